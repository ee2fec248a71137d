#!/usr/bin/env python3
"""A 10 KB append to a past day's log, then `compact`, of two hipo binaries
run alternately, each on its own copy of the MemAware corpus: wall clock
and CPU time (user + system, what an idle machine would come closer to)
per run, medians, and the machine's load.

Usage: benches/append_interleave.py CORPUS OLD NEW   (ROUNDS=20)
CORPUS is a directory of raw logs such as ../shared/data/memaware-sessions.
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TEXT = "\n## Session bench [project]\n" + "User: appended line of about fifty characters here.\n" * 200


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    corpus, bins = sys.argv[1], {"old": sys.argv[2], "new": sys.argv[3]}
    env = dict(os.environ, NO_COLOR="1", HIPO_TODAY="2023-07-15")
    work = tempfile.mkdtemp()
    try:
        dirs = {}
        for k, b in bins.items():
            dirs[k] = os.path.join(work, k)
            os.makedirs(os.path.join(dirs[k], "memory"))
            for name in os.listdir(corpus):
                if name.startswith("20") and name.endswith(".md"):
                    shutil.copy(os.path.join(corpus, name), os.path.join(dirs[k], "memory"))
            for _ in range(2):  # built, then settled
                subprocess.run([b, "--dir", dirs[k], "compact"], env=env,
                               stdout=subprocess.DEVNULL, check=True)
        wall = {k: [] for k in bins}
        cpu = {k: [] for k in bins}
        load = os.getloadavg()[0]
        for _ in range(int(os.environ.get("ROUNDS", "20"))):
            for k, b in bins.items():
                with open(os.path.join(dirs[k], "memory", "2023-06-30.md"), "a") as f:
                    f.write(TEXT)
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run([b, "--dir", dirs[k], "compact"], env=env,
                               stdout=subprocess.DEVNULL, check=True)
                wall[k].append((time.perf_counter() - t0) * 1000)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[k].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
        for k, b in bins.items():
            print(f"{b}: 10 KB append + compact median {statistics.median(wall[k]):.1f} ms, "
                  f"CPU {statistics.median(cpu[k]):.1f} ms")
        print(f"load average (1 min) before {load:.1f}, after {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
