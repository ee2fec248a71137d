#!/usr/bin/env python3
"""`checkpoint` + `compact` and no-op `compact` of several hipo binaries,
run alternately on one project: each round runs every binary once, so a
noisy neighbour slows them alike (hyperfine runs one command's runs, then
the next's, and on a shared machine the order alone moved medians by 15%).

Usage: benches/interleave.py DIR BIN [BIN ...]   (ROUNDS=25 by default)
DIR is a compacted project, such as a history from examples/gen-history;
each round appends one entry to today's raw log (HIPO_TODAY, default
2026-11-25). A BIN given as BIN=DIR2 runs on its own copy DIR2 instead:
a binary's settled record (`compact::settled`) names the binary, so two
binaries on one project each find the other's record and plan in full
(`cp -al DIR DIR2 && rm -r DIR2/.hipo && cp -a DIR/.hipo DIR2/` makes a
copy that shares the raw logs' blocks: hipo only appends to today's log,
which the history does not have, and writes every other file by rename).
"""
import os
import resource
import statistics
import subprocess
import sys
import time


CPU = []  # user + system seconds of each run, in order


def timed(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    default_root, args = sys.argv[1], sys.argv[2:]
    where = {a.split("=", 1)[0]: (a.split("=", 1) + [default_root])[1] for a in args}
    bins = list(where)
    env = dict(os.environ, NO_COLOR="1")
    env.setdefault("HIPO_TODAY", "2026-11-25")
    rounds = int(os.environ.get("ROUNDS", "25"))
    append = {b: [] for b in bins}
    append_cpu = {b: [] for b in bins}
    noop = {b: [] for b in bins}
    load = os.getloadavg()[0]
    for b in bins:  # each binary's first no-op plans in full and settles
        for _ in range(2):
            timed([b, "--dir", where[b], "compact"], env)
    for _ in range(rounds):
        for b in bins:
            root = where[b]
            checkpoint = [b, "--dir", root, "checkpoint", "--type", "project",
                          "--topic", "Interleaved bench entry", "-f", "outcome=appended"]
            append[b].append(timed(checkpoint, env) + timed([b, "--dir", root, "compact"], env))
            append_cpu[b].append(CPU[-1] + CPU[-2])
        for b in bins:
            root = where[b]
            timed([b, "--dir", root, "compact"], env)  # plans in full, settles
            noop[b].append(timed([b, "--dir", root, "compact"], env))
    for b in bins:
        print(f"{b}: checkpoint + compact median {statistics.median(append[b]) * 1000:.1f} ms "
              f"(CPU {statistics.median(append_cpu[b]) * 1000:.1f} ms), "
              f"no-op compact median {statistics.median(noop[b]) * 1000:.1f} ms ({rounds} rounds)")
    print(f"load average (1 min) before {load:.1f}, after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
