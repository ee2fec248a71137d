#!/usr/bin/env python3
"""`hipo search` as whole processes on the questions users and hooks send
(the first 60 MemAware dev questions, 15-40 words each), several binaries
interleaved: each round runs every question once with every binary, so a
noisy neighbour slows them alike.

Usage: benches/search_long.py PROJECT DEV.jsonl BIN [BIN ...]   (ROUNDS=5)
PROJECT holds the MemAware corpus under memory/ with its index built
(one search with each binary first, untimed). Prints p50 / p95 in ms.
"""
import json, os, statistics, subprocess, sys, time

project, dev, bins = sys.argv[1], sys.argv[2], sys.argv[3:]
questions = [json.loads(l)["query"] for l in open(dev) if l.strip()][:60]
env = dict(os.environ, NO_COLOR="1")
times = {b: [] for b in bins}
for b in bins:  # warm: the index is up to date, the files in the page cache
    subprocess.run([b, "--dir", project, "search", "--", questions[0]], env=env, stdout=subprocess.DEVNULL, check=True)
for _ in range(int(os.environ.get("ROUNDS", "5"))):
    for q in questions:
        for b in bins:
            start = time.perf_counter()
            subprocess.run([b, "--dir", project, "search", "--", q], env=env, stdout=subprocess.DEVNULL, check=True)
            times[b].append((time.perf_counter() - start) * 1000)
for b in bins:
    t = sorted(times[b])
    p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
    print(f"{b}: p50 {statistics.median(t):.2f} ms  p95 {p95:.2f} ms  ({len(t)} runs)")
