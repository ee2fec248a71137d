#!/usr/bin/env python3
"""`hipo search` as whole processes on the questions users and hooks send
(the first 60 MemAware dev questions, 15-40 words each), several binaries
interleaved: each round runs every question once with every binary, so a
noisy neighbour slows them alike.

Usage: benches/search_long.py PROJECT DEV.jsonl BIN [BIN ...]   (ROUNDS=5)
PROJECT holds the MemAware corpus under memory/ with its index built
(one search with each binary first, untimed). A BIN given as BIN=DIR
searches its own project DIR instead: an index is laid out by the binary
that built it (how many segments), so to compare two builds give each
binary the project it indexed itself. Prints p50 / p95 of the wall clock
and p50 of the CPU time (user + system) per search, in ms, and the load.
"""
import json, os, resource, statistics, subprocess, sys, time

project, dev, args = sys.argv[1], sys.argv[2], sys.argv[3:]
bins = [(a, *(a.split("=", 1) + [project])[:2]) for a in args]
questions = [json.loads(l)["query"] for l in open(dev) if l.strip()][:60]
env = dict(os.environ, NO_COLOR="1")
times = {a: [] for a, _, _ in bins}
cpu = {a: [] for a, _, _ in bins}
for _, b, p in bins:  # warm: the index is up to date, the files in the page cache
    subprocess.run([b, "--dir", p, "search", "--", questions[0]], env=env, stdout=subprocess.DEVNULL, check=True)
print(f"load before: {os.getloadavg()[0]:.2f}")
for _ in range(int(os.environ.get("ROUNDS", "5"))):
    for q in questions:
        for a, b, p in bins:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([b, "--dir", p, "search", "--", q], env=env, stdout=subprocess.DEVNULL, check=True)
            times[a].append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[a].append(used * 1000)
print(f"load after: {os.getloadavg()[0]:.2f}")
for a, _, _ in bins:
    t = sorted(times[a])
    p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
    print(f"{a}: p50 {statistics.median(t):.2f} ms  p95 {p95:.2f} ms  CPU p50 {statistics.median(cpu[a]):.2f} ms  ({len(t)} runs)")
