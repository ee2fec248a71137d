#!/usr/bin/env python3
"""Whole-process `hipo checkpoint` (one entry) and `compact` after a 10 KB
append, of two or more hipo binaries alternately on the MemAware corpus:
each round runs every binary once, in an order that flips every round, so
a noisy neighbour slows them alike (hyperfine is not on this machine, and
it runs one command's runs before the next's).

Usage: benches/checkpoint.py BIN [BIN ...]   (ROUNDS=40, MEMAWARE=corpus dir)

Each binary gets its own copy of the corpus, compacted and indexed first.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINE = "User: appended line of about fifty characters here.\n"


def timed(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    here = Path(__file__).resolve().parent.parent
    corpus = Path(os.environ.get("MEMAWARE", here.parent / "shared/data/memaware-sessions"))
    rounds = int(os.environ.get("ROUNDS", "40"))
    env = dict(os.environ, NO_COLOR="1", HIPO_TODAY="2023-07-15")
    work = Path(tempfile.mkdtemp())
    try:
        bins = []
        for i, b in enumerate(sys.argv[1:]):
            exe = work / f"hipo{i}"
            shutil.copy(b, exe)  # a copy, as `cargo install` places it
            proj = work / f"p{i}"
            (proj / "memory").mkdir(parents=True)
            for f in corpus.glob("20*.md"):
                shutil.copy(f, proj / "memory")
            for cmd in (["compact"], ["index"], ["compact"]):
                subprocess.run([str(exe), "--dir", str(proj), *cmd], env=env,
                               stdout=subprocess.DEVNULL, check=True)
            bins.append((b, str(exe), proj))
        checkpoint = {b: [] for b, _, _ in bins}
        append = {b: [] for b, _, _ in bins}
        for r in range(rounds):
            order = bins if r % 2 == 0 else bins[::-1]
            for b, exe, proj in order:
                checkpoint[b].append(timed(
                    [exe, "--dir", str(proj), "checkpoint", "--type", "project", "--topic",
                     "Bench entry", "-f", "outcome=appended"], env))
            for b, exe, proj in order:
                with open(proj / "memory/2023-06-30.md", "a") as f:
                    f.write("\n## Session bench [project]\n" + LINE * 200)
                append[b].append(timed([exe, "--dir", str(proj), "compact"], env))
        for b, _, _ in bins:
            for name, xs in (("checkpoint (one entry)", checkpoint[b]),
                             ("compact after 10 KB append", append[b])):
                xs = sorted(xs)
                p95 = xs[int(0.95 * (len(xs) - 1))]
                print(f"{b}: {name}: median {statistics.median(xs) * 1000:.1f} ms, "
                      f"p95 {p95 * 1000:.1f} ms ({rounds} rounds)")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
