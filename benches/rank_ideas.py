#!/usr/bin/env python3
"""Retrieval ideas for issue 26 item 3, measured by halves before any is
built into hipo: term proximity (BM25TP; Büttcher, Clarke & Lushman), an
SDM-like window pair, pseudo-relevance feedback (RM3), a proper BM25F, the
query's repeated words, and IDF weighting of long questions.

Usage: benches/rank_ideas.py CORPUS_DIR HIPO PROJECT EVAL.jsonl [EVAL.jsonl …]
  CORPUS_DIR: ../shared/data/memaware-sessions; PROJECT holds the same
  sessions under memory/, indexed. Each EVAL set (the MemAware dev
  questions, fixtures/eval/memaware.jsonl) is measured twice:
  - "replica": the anchors of benches/anchors.py rebuilt here over the
    whole corpus (Okapi BM25, k1 1.2, b 0.75, section statistics), each
    idea added to them;
  - "hipo+": hipo's own first 20 results (`hipo --json search -n 20`, the
    same candidates and order as `hipo eval`), reranked with the idea's
    score added, computed in Python for those 20 only (as a rerank in hipo
    would be).
Prints R@5 / R@10 / MRR for half A (odd cases), half B (even) and all;
with SPLIT=first-last, half A is the first half of the set and B the rest.
A change is worth building only if it wins on both halves.
Needs `pip install snowballstemmer`.
"""
import bisect, json, math, os, re, subprocess, sys
from collections import Counter, defaultdict
from pathlib import Path
import snowballstemmer

# hipo's stop words (index/analyzer.rs) and number words
STOP = set("""a about am an and any are as at be been being but by can could did do does doing for from had has have having
he her hers him his how i if in into is it its me my myself no not of on or our ours she should so such than that the their
them then there these they this those to us was we were what when where which who whom why will with would you your yours""".split())
NUM = dict(zip("one two three four five six seven eight nine ten eleven twelve".split(), map(str, range(1, 13))))
_stem = snowballstemmer.stemmer("english").stemWord
K1, B = 1.2, 0.75


def tok(text):
    words = (w.split("'")[0] for w in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower()))
    return [_stem(NUM.get(w, w)) for w in words if w not in STOP]


def sessions(corpus):
    out = []
    for f in sorted(Path(corpus).glob("20*.md")):
        lines = f.read_text().split("\n")  # not splitlines: the corpus holds \x0c and \u2028
        starts = [i for i, l in enumerate(lines) if l.startswith("## ")] + [len(lines)]
        for a, b in zip(starts, starts[1:]):
            body = lines[a:b]
            user = [l[5:] for l in body if l.startswith("User:")]
            size = len("\n".join(body).encode())
            # hipo's windows: sections over 3,000 bytes as ~2,000-byte windows overlapping by 400
            windows = 1 if size <= 3000 else math.ceil((size - 400) / 1600)
            out.append(dict(path=f"memory/{f.name}", lo=a + 1, hi=b, windows=windows, body=tok("\n".join(body)),
                            user=tok("\n".join(user)), open=tok("\n".join(user[:1]))))
    return out


class Field:
    def __init__(self, docs, counted=None):
        """`counted`: the number of documents BM25's statistics count
        (tantivy counts every document of the index, windows included)."""
        self.tf = [Counter(d) for d in docs]
        self.len = [len(d) for d in docs]
        self.n = len(docs)
        self.counted = counted or self.n
        self.avg = sum(self.len) / self.counted
        self.post = defaultdict(list)
        for i, c in enumerate(self.tf):
            for t, k in c.items():
                self.post[t].append((i, k))
        self.pos = []
        for d in docs:
            p = defaultdict(list)
            for k, t in enumerate(d):
                p[t].append(k)
            self.pos.append(p)

    def idf(self, t):
        df = len(self.post.get(t, ()))
        return math.log(1 + (self.counted - df + 0.5) / (df + 0.5)) if df else 0.0

    def norm(self, i):
        return 1 - B + B * self.len[i] / self.avg

    def bm25(self, q, w=None):
        s = [0.0] * self.n
        for t in q:
            idf = self.idf(t) * (w[t] if w else 1.0)
            for i, k in self.post.get(t, ()):
                s[i] += idf * k * (K1 + 1) / (k + K1 * self.norm(i))
        return s


def add(*xs):
    return [sum(v) for v in zip(*xs)]


def bm25f(F, U, q, wu):
    """One saturation over the weighted, length-normalised field frequencies."""
    s = [0.0] * F.n
    for t in q:
        acc = defaultdict(float)
        for i, k in F.post.get(t, ()):
            acc[i] += k / F.norm(i)
        for i, k in U.post.get(t, ()):
            acc[i] += wu * k / U.norm(i)
        for i, a in acc.items():
            s[i] += F.idf(t) * a * (K1 + 1) / (a + K1)
    return s


def bm25tp(F, q, cands, window=5):
    """Rasolofo & Savoy 2003: pairs of query terms within `window` tokens,
    1/d² each, saturated as BM25, weighted by the pair's smaller IDF."""
    out = {}
    for i in cands:
        p = F.pos[i]
        present = [t for t in q if t in p]
        tot = 0.0
        for a, ti in enumerate(present):
            for tj in present[a + 1:]:
                pj, acc = p[tj], 0.0
                for x in p[ti]:
                    for y in pj[bisect.bisect_left(pj, x - window):bisect.bisect_right(pj, x + window)]:
                        acc += 1.0 / (x - y) ** 2 if x != y else 0.0
                if acc:
                    tot += min(F.idf(ti), F.idf(tj)) * acc * (K1 + 1) / (acc + K1 * F.norm(i))
        out[i] = tot
    return out


def buttcher(F, q, cands):
    """Büttcher, Clarke & Lushman 2006: each pair of neighbouring query-term
    occurrences gives each term the other's IDF / distance², saturated."""
    out = {}
    for i in cands:
        occ = sorted((k, t) for t in q if t in F.pos[i] for k in F.pos[i][t])
        acc = defaultdict(float)
        for (x, a), (y, b) in zip(occ, occ[1:]):
            if a != b:
                acc[a] += F.idf(b) / (y - x) ** 2
                acc[b] += F.idf(a) / (y - x) ** 2
        out[i] = sum(min(1.0, F.idf(t)) * v * (K1 + 1) / (v + K1 * F.norm(i)) for t, v in acc.items())
    return out


def pairs_w8(F, q, cands, window=8):
    """SDM-like: each adjacent pair of question words as a term, its tf the
    co-occurrences within `window`, its df among the candidates."""
    tfs = {}
    for i in cands:
        p = F.pos[i]
        for a, b in zip(q, q[1:]):
            if a in p and b in p:
                pb = p[b]
                n = sum(bisect.bisect_right(pb, x + window) - bisect.bisect_left(pb, x - window) for x in p[a])
                if n:
                    tfs[(i, a, b)] = n
    df = Counter((a, b) for (_, a, b) in tfs)
    out = defaultdict(float)
    for (i, a, b), n in tfs.items():
        idf = math.log(1 + (F.n - df[(a, b)] + 0.5) / (df[(a, b)] + 0.5))
        out[i] += idf * n * (K1 + 1) / (n + K1 * F.norm(i))
    return out


def feedback(F, ids, terms):
    """RM3's relevance model from feedback documents (uniform weights)."""
    rel = Counter()
    for i in ids:
        for t, k in F.tf[i].items():
            rel[t] += k / (F.len[i] or 1) / len(ids)
    top = dict(rel.most_common(terms))
    z = sum(top.values()) or 1
    return {t: v / z for t, v in top.items()}


class Set:
    def __init__(self, path):
        self.name = Path(path).name
        self.cases = [json.loads(l) for l in open(path) if l.strip()]

    def wanted(self, c, s):
        for e in c["expected"]:
            path, line = e.rsplit(":", 1)
            if s["path"] == path and s["lo"] <= int(line) < s["hi"]:
                return True
        return False


def rank_of(order, S, c, ev):
    for r, i in enumerate(order[:50]):
        if ev.wanted(c, S[i]):
            return r + 1
    return None


def row(name, ranks):
    cells = []
    h = len(ranks) // 2
    split = os.environ.get("SPLIT") == "first-last"
    for rs in ((ranks[:h], ranks[h:]) if split else (ranks[0::2], ranks[1::2])) + (ranks,):
        n = len(rs)
        r5 = sum(1 for r in rs if r and r <= 5) / n
        r10 = sum(1 for r in rs if r and r <= 10) / n
        mrr = sum(1 / r for r in rs if r) / n
        cells.append(f"{r5:.3f} / {r10:.3f} / {mrr:.3f}")
    print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main():
    corpus, hipo, project, evals = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    S = sessions(corpus)
    body, user, opening = Field([s["body"] for s in S]), Field([s["user"] for s in S]), Field([s["open"] for s in S])
    every = len(S) + sum(s["windows"] for s in S)
    tbody, tuser = Field([s["body"] for s in S], every), Field([s["user"] for s in S], every)
    at = {(s["path"], s["lo"]): i for i, s in enumerate(S)}
    anchor = lambda q: add(body.bm25(q), user.bm25(q))
    anchor_open = lambda q: add(anchor(q), [2 * x for x in opening.bm25(q)])

    def plus(base, bonus, top=100, weight=1.0):
        def f(q):
            s = base(q)
            for i, v in bonus(q, sorted(range(len(S)), key=lambda i: -s[i])[:top]).items():
                s[i] += weight * v
            return s
        return f

    def rm3_full(q, lam=0.5):
        s = anchor(q)
        fb = feedback(body, sorted(range(len(S)), key=lambda i: -s[i])[:10], 20)
        w = Counter({t: (1 - lam) / len(q) for t in q})
        for t, v in fb.items():
            w[t] += lam * v
        w = {t: v * len(q) / (1 - lam) for t, v in w.items()}
        return add(body.bm25(list(w), w), user.bm25(list(w), w))

    def idf_weighted(q, g):
        m = max([body.idf(t) for t in q] or [1]) or 1
        w = {t: (body.idf(t) / m) ** g for t in q}
        return add(body.bm25(q, w), user.bm25(q, w))

    replica = [
        ("whole-session BM25", lambda q, raw: body.bm25(q)),
        ("BM25 + user field, summed (anchor)", lambda q, raw: anchor(q)),
        ("anchor on tantivy's statistics (windows counted)", lambda q, raw: add(tbody.bm25(q), tuser.bm25(q))),
        ("anchor, the question's repeated words counted (qtf)", lambda q, raw: anchor(raw)),
        ("anchor, query terms weighted (idf/max idf)^0.5", lambda q, raw: idf_weighted(q, 0.5)),
        ("anchor, query terms weighted (idf/max idf)^1", lambda q, raw: idf_weighted(q, 1)),
        ("BM25F, user weight 1", lambda q, raw: bm25f(body, user, q, 1.0)),
        ("BM25F, user weight 2", lambda q, raw: bm25f(body, user, q, 2.0)),
        ("anchor + BM25TP (window 5)", lambda q, raw: plus(anchor, lambda q, c: bm25tp(body, q, c))(q)),
        ("anchor + Büttcher proximity, body", lambda q, raw: plus(anchor, lambda q, c: buttcher(body, q, c))(q)),
        ("anchor + Büttcher proximity, user turns", lambda q, raw: plus(anchor, lambda q, c: buttcher(user, q, c))(q)),
        ("anchor + word pairs within 8", lambda q, raw: plus(anchor, lambda q, c: pairs_w8(body, q, c))(q)),
        ("anchor, RM3 (10 docs, 20 terms, λ 0.3)", lambda q, raw: rm3_full(q, 0.3)),
        ("anchor, RM3 (10 docs, 20 terms, λ 0.5)", lambda q, raw: rm3_full(q, 0.5)),
        ("anchor + 2 × opening turn", lambda q, raw: anchor_open(q)),
        ("anchor + 2 × opening turn + BM25TP", lambda q, raw: plus(anchor_open, lambda q, c: bm25tp(body, q, c))(q)),
        ("anchor + 2 × opening turn + Büttcher, body", lambda q, raw: plus(anchor_open, lambda q, c: buttcher(body, q, c))(q)),
    ]

    def rm3_rerank(q, ids, sc, lam, terms):
        """RM3 over hipo's first 20: feedback from its first 10; hipo's score
        put on the anchor's scale over the 20, then mixed as RM3 mixes."""
        fb = feedback(body, ids[:10], terms)
        b = add(body.bm25(list(fb), fb), user.bm25(list(fb), fb))
        a = anchor(q)
        k = sum(a[i] for i in ids) / (sum(sc) or 1)
        return [(1 - lam) * s * k / len(q) + lam * b[i] for s, i in zip(sc, ids)]

    def expansion(q, ids, sc, scale, source):
        """RM3's expansion terms alone (20, not in the question), from the
        anchor's first 10 sessions or hipo's, added as BM25 weighed by
        p(t|R) × `scale` × the question's length."""
        if source == "anchor":
            a = anchor(q)
            fbd = sorted(range(len(S)), key=lambda i: -a[i])[:10]
        else:
            fbd = ids[:10]
        fb = {t: v for t, v in feedback(body, fbd, 20).items() if t not in set(q)}
        b = body.bm25(list(fb), fb)
        return [s + scale * len(q) * b[i] for s, i in zip(sc, ids)]

    def bonus(fn, w):
        return lambda q, ids, sc: [s + w * fn(q, ids).get(i, 0.0) for s, i in zip(sc, ids)]

    def rrf(q, ids, sc):
        a = anchor(q)
        other = sorted(range(len(S)), key=lambda i: -a[i])[:20]
        out = Counter()
        for r, i in enumerate(ids):
            out[i] += 1 / (60 + r + 1)
        for r, i in enumerate(other):
            out[i] += 1 / (60 + r + 1)
        return out

    reranks = [("hipo as it is (main)", lambda q, ids, sc: sc)]
    for w in (0.5, 1, 2):
        reranks += [
            (f"hipo + {w} × BM25TP", bonus(lambda q, c: bm25tp(body, q, c), w)),
            (f"hipo + {w} × Büttcher, body", bonus(lambda q, c: buttcher(body, q, c), w)),
            (f"hipo + {w} × Büttcher, user turns", bonus(lambda q, c: buttcher(user, q, c), w)),
            (f"hipo + {w} × word pairs within 8", bonus(lambda q, c: pairs_w8(body, q, c), w)),
        ]
    for lam in (0.2, 0.5):
        for terms in (10, 20):
            reranks.append((f"hipo, RM3 (10 docs, {terms} terms, λ {lam})",
                            lambda q, ids, sc, lam=lam, terms=terms: rm3_rerank(q, ids, sc, lam, terms)))
    for source in ("anchor", "hipo"):
        for scale in (0.1, 0.3, 0.6, 1.0):
            reranks.append((f"hipo + RM3 expansion terms ({source}'s first 10) × {scale} × |q|",
                            lambda q, ids, sc, scale=scale, source=source: expansion(q, ids, sc, scale, source)))
    reranks.append(("RRF(hipo, anchor), k 60", None))

    for path in evals:
        ev = Set(path)
        print(f"\n{ev.name}: R@5 / R@10 / MRR\n\n| ranking | half A | half B | all |\n|---|---|---|---|")
        qs = [(list(dict.fromkeys(tok(c["query"]))), tok(c["query"])) for c in ev.cases]
        for name, fn in replica:
            ranks = []
            for (q, raw), c in zip(qs, ev.cases):
                s = fn(q, raw)
                ranks.append(rank_of(sorted(range(len(S)), key=lambda i: -s[i]), S, c, ev))
            row(f"replica: {name}", ranks)
        env = dict(os.environ, NO_COLOR="1")
        dumps = []
        for c in ev.cases:
            out = subprocess.run([hipo, "--dir", project, "--json", "search", "-n", "20", "--", c["query"]],
                                 capture_output=True, text=True, env=env, check=True).stdout
            hits = json.loads(out)["hits"]  # every MemAware hit is a session: a file's title holds none
            dumps.append([(at[(h["path"], h["lines"][0])], h["score"]) for h in hits if (h["path"], h["lines"][0]) in at])
        for name, fn in reranks:
            ranks = []
            for (q, _), c, d in zip(qs, ev.cases, dumps):
                ids, sc = [i for i, _ in d], [s for _, s in d]
                if not ids:
                    ranks.append(None)
                    continue
                if fn is None:
                    r = rrf(q, ids, sc)
                    order = sorted(r, key=lambda i: -r[i])
                else:
                    new = fn(q, ids, sc)
                    order = [i for _, i in sorted(zip(new, ids), key=lambda x: -x[0])]
                ranks.append(rank_of(order, S, c, ev))
            row(name, ranks)


if __name__ == "__main__":
    main()
