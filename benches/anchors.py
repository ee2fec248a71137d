#!/usr/bin/env python3
"""Reference rankings on the MemAware dev questions, each half apart, to
measure hipo's ranking against (issue 26's anchors, run here).

Usage: benches/anchors.py CORPUS_DIR DEV.jsonl [HIPO_EVAL.json …]
  CORPUS_DIR: ../shared/data/memaware-sessions (one `## Session` per session)
  HIPO_EVAL.json: `hipo --json eval DEV.jsonl` reports, printed beside the
  anchors with the same halves (odd and even questions).
Anchors: Okapi BM25 over whole sessions (k1 1.2, b 0.75, Snowball English
stems, stop words dropped); the same plus a BM25 field over the user's
turns, summed. Needs `pip install snowballstemmer`.
"""
import json, math, re, sys
from collections import Counter
from pathlib import Path
import snowballstemmer

STOP = set("""a an and are as at be but by for if in into is it no not of on or such that the their then there these
they this to was will with i me my we our you your he she him her his its what which who whom when where why how do does
did can could would should have has had am been being so than too very just about from up out over also any some all""".split())
stem = snowballstemmer.stemmer("english").stemWords
tok = lambda text: stem([w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP])


def sessions(corpus):
    out = []
    for f in sorted(Path(corpus).glob("20*.md")):
        lines = f.read_text().split("\n")  # as hipo counts lines: the corpus holds \x0c and \u2028
        starts = [i for i, l in enumerate(lines) if l.startswith("## ")] + [len(lines)]
        for a, b in zip(starts, starts[1:]):
            body = lines[a:b]
            user = [l[5:] for l in body if l.startswith("User:")]
            out.append((f"memory/{f.name}", a + 1, b, Counter(tok("\n".join(body))), Counter(tok("\n".join(user)))))
    return out


class BM25:
    def __init__(self, docs, k1=1.2, b=0.75):
        self.docs, self.k1, self.b = docs, k1, b
        self.n = len(docs)
        self.avg = sum(sum(d.values()) for d in docs) / max(self.n, 1)
        self.df = Counter(t for d in docs for t in d)
        self.len = [sum(d.values()) for d in docs]

    def scores(self, q):
        s = [0.0] * self.n
        for t in set(q):
            df = self.df.get(t)
            if not df:
                continue
            idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
            for i, d in enumerate(self.docs):
                tf = d.get(t)
                if tf:
                    s[i] += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.len[i] / self.avg))
        return s


def rank_of(order, sess, expected):
    want = set()
    for e in expected:
        path, line = e.rsplit(":", 1)
        want.add((path, int(line)))
    for r, i in enumerate(order[:50]):
        if (sess[i][0], sess[i][1]) in want:
            return r + 1
    return None


def report(name, ranks):
    for label, rs in (("A", ranks[0::2]), ("B", ranks[1::2]), ("all", ranks)):
        r5 = sum(1 for r in rs if r and r <= 5) / len(rs)
        r1 = sum(1 for r in rs if r == 1) / len(rs)
        print(f"{name:28} {label:3} R@1 {r1:.3f}  R@5 {r5:.3f}  (n {len(rs)})")


def main():
    corpus, dev = sys.argv[1:3]
    cases = [json.loads(l) for l in open(dev) if l.strip()]
    sess = sessions(corpus)
    whole = BM25([s[3] for s in sess])
    user = BM25([s[4] for s in sess])
    r_whole, r_user = [], []
    for c in cases:
        q = tok(c["query"])
        a, u = whole.scores(q), user.scores(q)
        r_whole.append(rank_of(sorted(range(len(sess)), key=lambda i: -a[i]), sess, c["expected"]))
        both = [x + y for x, y in zip(a, u)]
        r_user.append(rank_of(sorted(range(len(sess)), key=lambda i: -both[i]), sess, c["expected"]))
    report("BM25 whole sessions", r_whole)
    report("BM25 + user turns, summed", r_user)
    for path in sys.argv[3:]:
        rep = json.load(open(path))
        ranks = [c.get("rank") for c in rep["cases"]]
        report(f"hipo {Path(path).stem}", ranks)


if __name__ == "__main__":
    main()
