#!/usr/bin/env python3
"""`checkpoint` + `compact` and no-op `compact` of several hipo binaries,
run alternately on one project: each round runs every binary once, so a
noisy neighbour slows them alike (hyperfine runs one command's runs, then
the next's, and on a shared machine the order alone moved medians by 15%).

Usage: benches/interleave.py DIR BIN [BIN ...]   (ROUNDS=25 by default)
DIR is a compacted project, such as a history from examples/gen-history;
each round appends one entry to today's raw log (HIPO_TODAY, default
2026-11-25).
"""
import os
import statistics
import subprocess
import sys
import time


def timed(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, bins = sys.argv[1], sys.argv[2:]
    env = dict(os.environ, NO_COLOR="1")
    env.setdefault("HIPO_TODAY", "2026-11-25")
    rounds = int(os.environ.get("ROUNDS", "25"))
    append = {b: [] for b in bins}
    noop = {b: [] for b in bins}
    for b in bins:  # each binary's first no-op plans in full and settles
        for _ in range(2):
            timed([b, "--dir", root, "compact"], env)
    for _ in range(rounds):
        for b in bins:
            checkpoint = [b, "--dir", root, "checkpoint", "--type", "project",
                          "--topic", "Interleaved bench entry", "-f", "outcome=appended"]
            append[b].append(timed(checkpoint, env) + timed([b, "--dir", root, "compact"], env))
        for b in bins:
            timed([b, "--dir", root, "compact"], env)  # plans in full, settles
            noop[b].append(timed([b, "--dir", root, "compact"], env))
    for b in bins:
        print(f"{b}: checkpoint + compact median {statistics.median(append[b]) * 1000:.1f} ms, "
              f"no-op compact median {statistics.median(noop[b]) * 1000:.1f} ms ({rounds} rounds)")


if __name__ == "__main__":
    main()
