#!/usr/bin/env python3
"""Fusions of hipo's own lexical and vector lists, replayed offline, by
halves and by group: does weighing each list by its confidence on this
question beat the plain reciprocal-rank fusion hipo does (issue 26 items
3 and 4)?

Usage: benches/fusion_replay.py HIPO PROJECT CASES.jsonl LISTS.json
PROJECT is indexed with `--embed-model all-minilm` (OLLAMA_HOST set, as
for benches/hybrid.py). The lists (lexical top 50, vector top 100, hybrid
top 10 per question, with scores) are written to LISTS.json the first
time and read from it after, so variants are tried without the model.
Halves: the first and last half of the file, and the odd and even cases.
"""
import json, os, statistics, subprocess, sys


def dump(bin_, proj, cases):
    env = dict(os.environ, NO_COLOR="1")

    def hits(q, mode, n):
        cmd = [bin_, "--json", "--dir", proj, "search", "--embed-model", "all-minilm", "--mode", mode, "-n", str(n), "--", q]
        out = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
        return [dict(path=h["path"], line=h["lines"][0], score=h["score"], cov=h["coverage"], cos=h.get("cosine")) for h in out["hits"]]

    return [dict(query=c["query"], expected=c["expected"], group=c.get("group"), lex=hits(c["query"], "lexical", 50),
                 vec=hits(c["query"], "vector", 100), hyb=hits(c["query"], "hybrid", 10)) for c in cases]


def rrf(lists, k=10.0):
    """hipo's embed::fusion::rrf: sum of w / (k + rank), ties by first appearance."""
    score, order = {}, {}
    for lst, w in lists:
        for r, x in enumerate(lst):
            order.setdefault(x, len(order))
            score[x] = score.get(x, 0.0) + w / (k + r + 1)
    return sorted(score, key=lambda x: (-score[x], order[x]))


def clarity(scores):
    """How far the first score stands above the list's first 20, in standard deviations."""
    s = scores[:20]
    if len(s) < 3:
        return 0.0
    return (s[0] - statistics.mean(s)) / (statistics.pstdev(s) or 1e-9)


def gap(scores):
    """The first score's lead over the second, relative to the first."""
    return (scores[0] - scores[1]) / abs(scores[0]) if len(scores) > 1 and scores[0] else 0.0


def variants(c):
    key = lambda h: (h["path"], h["line"])
    lex, vec = [key(h) for h in c["lex"]], [key(h) for h in c["vec"]]
    ls, vs = [h["score"] for h in c["lex"]], [h["cos"] or 0.0 for h in c["vec"]]
    cl, cv = clarity(ls), clarity(vs)
    total = (cl + cv) or 1.0
    return {
        "hipo hybrid": [key(h) for h in c["hyb"]],
        "lexical": lex,
        "vector": vec,
        "RRF k10 (replay of hipo hybrid)": rrf([(lex, 1), (vec, 1)]),
        "RRF k5": rrf([(lex, 1), (vec, 1)], 5),
        "RRF k10, each list weighed by its clarity": rrf([(lex, 2 * cl / total), (vec, 2 * cv / total)]),
        "RRF k10, each list weighed 1 + its first's lead": rrf([(lex, 1 + gap(ls)), (vec, 1 + gap(vs))]),
        "RRF k10, lexical weighed 0.5 + top coverage": rrf([(lex, 0.5 + (c["lex"][0]["cov"] if c["lex"] else 0)), (vec, 1)]),
    }


def metrics(ranks):
    n = len(ranks) or 1
    return (sum(1 for r in ranks if r and r <= 5) / n, sum(1 for r in ranks if r) / n, sum(1 / r for r in ranks if r) / n)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    bin_, proj, cases_path, lists_path = sys.argv[1:]
    if not os.path.exists(lists_path):
        cases = [json.loads(l) for l in open(cases_path) if l.strip()]
        json.dump(dump(bin_, proj, cases), open(lists_path, "w"))
    cases = json.load(open(lists_path))
    ranks = {}
    for c in cases:
        want = {(e.rsplit(":", 1)[0], int(e.rsplit(":", 1)[1])) for e in c["expected"]}
        for name, lst in variants(c).items():
            ranks.setdefault(name, []).append(next((r + 1 for r, x in enumerate(lst[:10]) if x in want), None))
    half = len(cases) // 2
    groups = sorted({c["group"] for c in cases if c.get("group")})
    fmt = lambda m: " / ".join(f"{x:.3f}" for x in m)
    print("| fusion | A: R@5 / R@10 / MRR | B: R@5 / R@10 / MRR | odd / even R@5 | all R@5 | " + " | ".join(groups) + " |")
    print("|---" * (5 + len(groups)) + "|")
    for name, rs in ranks.items():
        by = [metrics([r for c, r in zip(cases, rs) if c.get("group") == g])[0] for g in groups]
        print(f"| {name} | {fmt(metrics(rs[:half]))} | {fmt(metrics(rs[half:]))} | "
              f"{metrics(rs[0::2])[0]:.3f} / {metrics(rs[1::2])[0]:.3f} | {metrics(rs)[0]:.3f} | "
              + " | ".join(f"{x:.2f}" for x in by) + " |")


main()
