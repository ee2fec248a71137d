#!/usr/bin/env python3
"""Hybrid search on the MemAware dev questions, by halves (issue 26 item 4).

Compares, on the same project and model:
- hipo's own modes (`hipo --json eval --mode lexical|vector|hybrid`);
- fusions of hipo's own two lists (`search --mode lexical -n 50` and `--mode vector -n 100`):
  plain reciprocal-rank fusion (what hipo's hybrid is), the old 0.75 weighting, other k;
- the vector ranking per passage, max-pooled (hipo's: a section scores as its best passage)
  against one vector per section: the mean of its passage vectors, its first passage alone,
  and one embedding of its user's turns (cut at the model's 256 tokens), each alone and fused;
- the issue's anchor: BM25 with a user field (benches/anchors.py) fused with MiniLM of the
  user's turns (cosine), RRF k = 10.
The vector variants are computed here from hipo's own cache (`.hipo/vectors/`, exact f16 rows),
so no engine change is needed to compare them; the max-pooled one is checked against hipo's
vector list.

Usage: OLLAMA_HOST=http://127.0.0.1:PORT benches/hybrid.py HIPO PROJECT DEV.jsonl [OUT.json]
  HIPO: a release binary. PROJECT: the MemAware corpus in memory/, indexed and embedded
  (`hipo --dir PROJECT index --embed-model all-minilm`). OLLAMA_HOST: a server of all-minilm
  (../shared/tools/ollama-embed-standin/ with --cache, so every text is embedded once).
  OUT.json: every question's rank per list, for later comparisons.
  HYBRID_NO_USER=1 skips the lists that need a vector of each session's user turns (the anchor's).
Halves: A = the first 75 questions (50 easy, 25 medium), B = the last 75 (25 medium, 50 hard);
the odd/even halves of benches/anchors.py are printed too. Needs numpy, blake3, snowballstemmer.
"""
import json, os, struct, subprocess, sys, urllib.request
from pathlib import Path

import blake3
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchors import BM25, sessions, tok  # noqa: E402

MODEL = "all-minilm"
DEPTH = 100  # sections kept per vector list (hipo's embed::NEAREST)
LEX_DEPTH = 50  # lexical candidates fused (hipo's search::vectors::POOL)


def hipo(bin_, proj, *args):
    env = dict(os.environ, NO_COLOR="1")
    cmd = [bin_, "--json", "--dir", proj, *args]
    return json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)


def embed(texts, batch=32):
    host = os.environ["OLLAMA_HOST"].rstrip("/")
    out = []
    for i in range(0, len(texts), batch):
        body = json.dumps({"model": MODEL, "input": texts[i : i + batch]}).encode()
        req = urllib.request.Request(f"{host}/api/embed", body, {"Content-Type": "application/json"})
        out += json.load(urllib.request.urlopen(req, timeout=3600))["embeddings"]
    v = np.array(out, np.float32)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def fingerprint(text):
    """hipo's index::sections::fingerprint: a section's identity in the vector cache."""
    h = blake3.blake3()
    for line in text.split("\n"):
        line = line.rstrip()
        if line and not line.startswith("<!-- hipo"):
            h.update(line.encode() + b"\n")
    return int.from_bytes(h.digest()[:8], "little")


def fence(line):
    """A code fence as CommonMark reads one (markdown::fence): (marker, length, bare) or None."""
    rest = line.lstrip(" ")
    if len(line) - len(rest) > 3 or rest[:3] not in ("```", "~~~"):
        return None
    n = len(rest) - len(rest.lstrip(rest[0]))
    return rest[0], n, not rest[n:].strip()


def heading_lines(lines):
    """Indices of `# ` and `## ` headings outside fenced code (markdown::HeadingScan)."""
    out, open_ = [], None
    for i, line in enumerate(lines):
        f = fence(line)
        if open_:
            if f and f[0] == open_[0] and f[1] >= open_[1] and f[2]:
                open_ = None
        elif f:
            open_ = f
        elif line.startswith(("# ", "## ")):
            out.append(i)
    return out


def corpus_sections(proj, hipo_cuts=True):
    """The sections of memory/: (path, heading line) → (fingerprint, its user's turns). hipo's
    (cut at `#` and `##` headings outside fences), or the anchors' (a session per `## `)."""
    out = {}
    for f in sorted(Path(proj, "memory").glob("20*.md")):
        lines = f.read_text().split("\n")
        heads = heading_lines(lines) if hipo_cuts else [i for i, l in enumerate(lines) if l.startswith("## ")]
        starts = heads + [len(lines)]
        for a, b in zip(starts, starts[1:]):
            user = "\n".join(l[5:].strip() for l in lines[a:b] if l.startswith("User:"))
            out[(f"memory/{f.name}", a + 1)] = (fingerprint("\n".join(lines[a:b])), user)
    return out


def cache_rows(proj):
    """hipo's vector cache: per section fingerprint, its passage vectors in passage order."""
    d = Path(proj, ".hipo", "vectors")
    meta = json.loads((d / "meta.json").read_text())
    g, dim = meta["generation"], meta["dim"]
    rows = (d / f"rows.{g}.bin").read_bytes()
    vecs = np.frombuffer((d / f"vectors.{g}.f16").read_bytes(), np.float16).reshape(-1, dim)
    n = min(len(rows) // 24, len(vecs))
    by_fp = {}
    for i in range(n):
        fp, _text, piece, _count, _scale = struct.unpack("<QQHHf", rows[i * 24 : (i + 1) * 24])
        by_fp.setdefault(fp, []).append((piece, i))
    return {fp: vecs[[i for _, i in sorted(ps)]].astype(np.float32) for fp, ps in by_fp.items()}


def postings(bm):
    """anchors.BM25's scores, from an inverted index (the same sums, a hundred times faster)."""
    inv = {}
    for i, d in enumerate(bm.docs):
        for t, tf in d.items():
            inv.setdefault(t, []).append((i, tf))

    def scores(q):
        s = np.zeros(bm.n)
        for t in set(q):
            if t in inv:
                df = len(inv[t])
                idf = np.log(1 + (bm.n - df + 0.5) / (df + 0.5))
                for i, tf in inv[t]:
                    s[i] += idf * tf * (bm.k1 + 1) / (tf + bm.k1 * (1 - bm.b + bm.b * bm.len[i] / bm.avg))
        return s

    return scores


def rrf(lists, k=10.0):
    """hipo's embed::fusion::rrf: Σ w / (k + rank), ties by first appearance."""
    score, order = {}, {}
    for lst, w in lists:
        for r, x in enumerate(lst):
            order.setdefault(x, len(order))
            score[x] = score.get(x, 0.0) + w / (k + r + 1)
    return sorted(score, key=lambda x: (-score[x], order[x]))


def rank(lst, expected):
    for r, x in enumerate(lst[:10]):
        if x in expected:
            return r + 1
    return None


def metrics(ranks):
    n = len(ranks)
    r5 = sum(1 for r in ranks if r and r <= 5) / n
    r10 = sum(1 for r in ranks if r) / n
    mrr = sum(1 / r for r in ranks if r) / n
    return r5, r10, mrr


def table(results):
    """A markdown table: R@5 / R@10 / MRR on half A, half B and all; R@5 on the odd/even halves."""
    half = len(next(iter(results.values()))) // 2
    print("| ranking | A: R@5 / R@10 / MRR | B: R@5 / R@10 / MRR | all: R@5 / R@10 / MRR | odd / even R@5 |")
    print("|---|---|---|---|---|")
    for name, ranks in results.items():
        cells = [" / ".join(f"{x:.3f}" for x in metrics(rs)) for rs in (ranks[:half], ranks[half:], ranks)]
        oe = f"{metrics(ranks[0::2])[0]:.3f} / {metrics(ranks[1::2])[0]:.3f}"
        print(f"| {name} | {' | '.join(cells)} | {oe} |")


def main():
    bin_, proj, dev = sys.argv[1:4]
    cases = [json.loads(l) for l in open(dev) if l.strip()]
    want = [{(e.rsplit(":", 1)[0], int(e.rsplit(":", 1)[1])) for e in c["expected"]} for c in cases]
    qs = [c["query"] for c in cases]
    res = {}
    for mode in ("lexical", "vector", "hybrid"):
        rep = hipo(bin_, proj, "eval", "--embed-model", MODEL, "--mode", mode, dev)
        res[f"hipo {mode} (eval)"] = [c.get("rank") for c in rep["cases"]]

    def hits(q, mode, n):
        out = hipo(bin_, proj, "search", "--embed-model", MODEL, "--mode", mode, "-n", str(n), "--", q)
        return [(h["path"], h["lines"][0]) for h in out["hits"]]

    lex = [hits(q, "lexical", LEX_DEPTH) for q in qs]
    vec = [hits(q, "vector", DEPTH) for q in qs]

    # One vector list per way of scoring a section, computed from hipo's cache.
    secs = corpus_sections(proj)
    rows = cache_rows(proj)
    keys = [k for k, (fp, _) in secs.items() if fp in rows]
    print(f"{len(secs)} sections, {len(rows)} in the vector cache, {len(keys)} matched by fingerprint",
          f"({sum(len(v) for v in rows.values())} passages)", file=sys.stderr)
    qv = embed(qs)
    passages = [rows[secs[k][0]] for k in keys]
    mean = np.stack([p.mean(0) / np.linalg.norm(p.mean(0)) for p in passages])
    first = np.stack([p[0] for p in passages])
    all_rows = np.concatenate(passages)
    owner = np.concatenate([np.full(len(p), i) for i, p in enumerate(passages)])
    # The anchor's MiniLM list: one vector per session, its user's turns (cut at 256 tokens).
    with_user = os.environ.get("HYBRID_NO_USER") != "1"
    if with_user:
        by_session = corpus_sections(proj, hipo_cuts=False)
        user_keys = list(by_session)
        user = embed([by_session[k][1] for k in user_keys])

    def top(scores, ks):
        return [ks[i] for i in np.argsort(-scores, kind="stable")[:DEPTH]]

    variants = {"max": [], "mean": [], "first": [], "max+mean": [], "user": []}
    for q in qv:
        pc = all_rows @ q
        mx = np.full(len(passages), -np.inf)
        np.maximum.at(mx, owner, pc)
        mn = mean @ q
        variants["max"].append(top(mx, keys))
        variants["mean"].append(top(mn, keys))
        variants["first"].append(top(first @ q, keys))
        variants["max+mean"].append(top((mx + mn) / 2, keys))
        if with_user:
            variants["user"].append(top(user @ q, user_keys))
    same = sum(a[:10] == b[:10] for a, b in zip(variants["max"], vec))
    print(f"max-pooled here = hipo's vector top 10 on {same}/{len(qs)} questions", file=sys.stderr)

    # The anchor's lexical half: BM25 + user field over the same sessions.
    sess = sessions(Path(proj, "memory"))
    whole, uf = postings(BM25([s[3] for s in sess])), postings(BM25([s[4] for s in sess]))
    bm25u = []
    for q in qs:
        t = tok(q)
        sc = whole(t) + uf(t)
        bm25u.append([(sess[i][0], sess[i][1]) for i in np.argsort(-sc, kind="stable")[:LEX_DEPTH]])

    lists = {
        "hipo lexical list": lex,
        "hipo vector list (per passage, max-pooled)": vec,
        "vector: max-pooled, recomputed from the cache": variants["max"],
        "vector: one per section, mean of passages": variants["mean"],
        "vector: one per section, first passage": variants["first"],
        "vector: (max + mean) / 2": variants["max+mean"],
        "RRF k10 lexical + max-pooled (= hipo hybrid)": [rrf([(a, 1), (b, 1)]) for a, b in zip(lex, vec)],
        "RRF k10, vector list weighing 0.75 (old)": [rrf([(a, 1), (b, 0.75)]) for a, b in zip(lex, vec)],
    }
    for k in (5, 20, 60):
        lists[f"RRF k{k} lexical + max-pooled"] = [rrf([(a, 1), (b, 1)], k) for a, b in zip(lex, vec)]
    for name in ("mean", "first", "max+mean"):
        lists[f"RRF k10 lexical + {name}"] = [rrf([(a, 1), (b, 1)]) for a, b in zip(lex, variants[name])]
    lists["anchor: BM25+user"] = bm25u
    if with_user:
        lists["vector: one per session, user turns (256 tok)"] = variants["user"]
        lists["RRF k10 lexical + user turns"] = [rrf([(a, 1), (b, 1)]) for a, b in zip(lex, variants["user"])]
        lists["RRF k10 lexical + max-pooled + user turns"] = [
            rrf([(a, 1), (b, 1), (c, 1)]) for a, b, c in zip(lex, vec, variants["user"])
        ]
        lists["anchor: BM25+user RRF k10 MiniLM user turns"] = [
            rrf([(a, 1), (b, 1)]) for a, b in zip(bm25u, variants["user"])
        ]
    for name, per_q in lists.items():
        res[name] = [rank(lst, w) for lst, w in zip(per_q, want)]
    table(res)
    if len(sys.argv) > 4:
        json.dump(res, open(sys.argv[4], "w"), indent=0)


if __name__ == "__main__":
    main()
