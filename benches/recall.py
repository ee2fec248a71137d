#!/usr/bin/env python3
"""Pack hit rate and abstention of `hipo recall`.

Usage: benches/recall.py HIPO PROJECT_DIR DEV.jsonl UNRELATED.txt
  FLOOR=X benches/recall.py …   measures another score floor
  PROJECT_DIR holds the MemAware corpus under memory/ (see README).
A pack hits when one of its passages shows lines of an answer session (the
section under an expected `## Session` heading line); a prompt unrelated to
the memory should get an empty pack (abstained).
"""
import json, os, subprocess, sys
from pathlib import Path

hipo, project, dev, unrelated = sys.argv[1:5]

def recall(query, budget=None):
    cmd = [hipo, "--dir", project, "--json", "recall"]
    if budget:
        cmd += ["--budget", str(budget)]
    if os.environ.get("FLOOR"):  # another floor than the default
        cmd += ["--floor", os.environ["FLOOR"]]
    out = subprocess.run(cmd + ["--", query], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)

ends = {}
def session_end(path, line):
    """Last line of the section starting at `line`."""
    if path not in ends:
        ends[path] = [i + 1 for i, l in enumerate((Path(project) / path).read_text().splitlines())
                      if l.startswith("#")] + [10**9]
    return min(h for h in ends[path] if h > line) - 1

cases = [json.loads(l) for l in open(dev) if l.strip()]
for budget in (400, 800, 1600):
    hits, groups, tokens = 0, {}, []
    for c in cases:
        pack = recall(c["query"], budget)
        tokens.append(pack["tokens"])
        want = [(e.rsplit(":", 1)[0], int(e.rsplit(":", 1)[1])) for e in c["expected"]]
        hit = any(p["path"] == path and line <= p["lines"][1] and p["lines"][0] <= session_end(path, line)
                  for p in pack["passages"] for path, line in want)
        hits += hit
        g = groups.setdefault(c.get("group", "-"), [0, 0])
        g[0] += hit; g[1] += 1
        assert pack["tokens"] <= budget, (budget, pack["tokens"], c["query"])
    per = " ".join(f"{g} {h / n:.3f}" for g, (h, n) in sorted(groups.items()))
    print(f"budget {budget}: pack hit rate {hits / len(cases):.3f} ({per}); max tokens {max(tokens)}")
prompts = [l.strip() for l in open(unrelated) if l.strip()]
empty = sum(recall(p)["abstained"] for p in prompts)
print(f"unrelated prompts: {empty}/{len(prompts)} abstained ({empty / len(prompts):.3f})")
empty_dev = sum(recall(c["query"])["abstained"] for c in cases)
print(f"dev questions abstained: {empty_dev}/{len(cases)}")
