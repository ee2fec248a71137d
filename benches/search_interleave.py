#!/usr/bin/env python3
"""`hipo search` of several binaries run alternately on one project, as
whole processes: each round runs every query once with every binary, in
turn, so a noisy neighbour slows them alike. Prints p50 / p95 per binary,
the median CPU time of a run (what the wall clock would be on an idle
machine, short of I/O waits) and the machine's load.

Usage: benches/search_interleave.py DIR BIN [BIN ...]   (ROUNDS=10)
DIR is an indexed project, such as a history from examples/gen-history
(run `BIN --dir DIR compact` and one search first).
"""
import os
import resource
import statistics
import subprocess
import sys
import time

QUERIES = [
    "postgres migration rollback",
    "what did Mina decide about the billing worker?",
    "connection pool exhaustion",
    "sourdough",
    "검색 인덱스",
    "p99 latency kafka",
]


CPU = []  # user + system ms of each run, in order


def timed(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall


def pct(v, q):
    v = sorted(v)
    return v[max(1, -(-len(v) * q // 100)) - 1]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, bins = sys.argv[1], sys.argv[2:]
    env = dict(os.environ, NO_COLOR="1")
    rounds = int(os.environ.get("ROUNDS", "10"))
    times = {b: [] for b in bins}
    cpu = {b: [] for b in bins}
    for b in bins:  # warm: page cache, index current
        timed([b, "--dir", root, "search", "warmup"], env)
    load = os.getloadavg()[0]
    for _ in range(rounds):
        for q in QUERIES:
            for b in bins:
                times[b].append(timed([b, "--dir", root, "search", q], env))
                cpu[b].append(CPU[-1])
    for b in bins:
        v = times[b]
        print(f"{b}: search p50 {statistics.median(v):.1f} ms, p95 {pct(v, 95):.1f} ms "
              f"({len(v)} runs); CPU (user + system) p50 {statistics.median(cpu[b]):.1f} ms")
    print(f"load average (1 min) before {load:.1f}, after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
