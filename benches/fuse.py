#!/usr/bin/env python3
"""Hybrid fusion against plain reciprocal-rank fusion of the same two lists
(issue 26: a fusion must never fall below it).

Usage: benches/fuse.py HIPO PROJECT DEV.jsonl [OUT.json]
  PROJECT holds the MemAware corpus under memory/, embedded
  (`hipo index --embed-model all-minilm`); OLLAMA_HOST points at the
  embedding stand-in (../shared/tools/ollama-embed-standin/).
For each question: hipo's lexical list (-n 50), its vector list (-n 100,
a section scored by its best passage) and its hybrid top 10; the two
lists fused here at equal weights and at 0.75 for the vector list (k 10).
Prints R@5 per half (odd / even questions) and overall.
"""
import json, os, subprocess, sys
bin_, proj, dev = sys.argv[1:4]
cases = [json.loads(l) for l in open(dev) if l.strip()]
env = dict(os.environ, NO_COLOR="1")
def hits(q, mode, n):
    r = subprocess.run([bin_, "--json", "--dir", proj, "search", "--embed-model", "all-minilm", "--mode", mode, "-n", str(n), "--", q], env=env, capture_output=True, text=True, check=True)
    return [(h["path"], h["lines"][0], h["lines"][1]) for h in json.loads(r.stdout)["hits"]]
def found(lst, exp):
    want = [(e.rsplit(":", 1)[0], int(e.rsplit(":", 1)[1])) for e in exp]
    for i, (p, lo, hi) in enumerate(lst):
        if any(p == wp and lo <= wl <= hi for wp, wl in want):
            return i + 1
    return None
def rrf(lists, k=10):
    s = {}
    order = []
    for lst, w in lists:
        for r, x in enumerate(lst):
            if x not in s: order.append(x); s[x] = 0
            s[x] += w / (k + r + 1)
    return sorted(order, key=lambda x: (-s[x], order.index(x)))
res = {m: [] for m in ("lexical", "vector", "hipo-hybrid", "rrf-0.75", "rrf-plain")}
for c in cases:
    q, exp = c["query"], c["expected"]
    lex = hits(q, "lexical", 50); vec = hits(q, "vector", 100); hyb = hits(q, "hybrid", 10)
    res["lexical"].append(found(lex, exp)); res["vector"].append(found(vec, exp)); res["hipo-hybrid"].append(found(hyb, exp))
    res["rrf-0.75"].append(found(rrf([(lex, 1.0), (vec, 0.75)]), exp))
    res["rrf-plain"].append(found(rrf([(lex, 1.0), (vec, 1.0)]), exp))
json.dump(res, open(sys.argv[4] if len(sys.argv) > 4 else "fuse.json", "w"))
for m, rs in res.items():
    parts = []
    for h, x in (("A", rs[0::2]), ("B", rs[1::2]), ("all", rs)):
        parts.append(f"{h} {sum(1 for r in x if r and r <= 5)}/{len(x)}")
    print(f"{m:12} R@5 " + "  ".join(parts))
