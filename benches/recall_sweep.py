#!/usr/bin/env python3
"""The recall gate's thresholds swept on a dump of every prompt's hits.

Usage: benches/recall_sweep.py HIPO [SET_DIR…] [--memaware PROJECT DEV.jsonl UNRELATED.txt]
  (the sets and MemAware as benches/recall_sets.py takes them).

Per prompt it asks `hipo --json recall --floor 0` (for `held`, the share of
the prompt's weight in words the memory holds, and how many passages the
budget holds) and `hipo --json search -n 20` (each hit's relevance and
coverage), then replays recall's rule in Python: the pack opens when a hit
has relevance >= FLOOR and coverage * held >= MIN_COVERAGE; later passages
enter with relevance >= PACK_SHARE * the best one's. It prints, per set
and half, answered prompts with an answering file / entry in the pack,
unrelated prompts left empty and passages per pack, for MIN_COVERAGE in
0.15 0.175 0.2 0.25 and PACK_SHARE in 0.5 0.4 0.3 0.2 (the others at
recall's defaults, 0.2 and 0.3). The replay matches `benches/recall_sets.py`
at the defaults; the budget is approximated by the floor-0 pack's size.
FLOORS="0.08 0.09 … 0.14" also sweeps the floor (FLOOR=X sets the one the other
sweeps use, default 0.18, recall's); DUMP=FILE.json saves the dump, or
reads it when it exists (to sweep again without asking hipo).
"""
import json, os, shutil, subprocess, sys, tempfile
from pathlib import Path

FLOOR = float(os.environ.get("FLOOR", "0.18"))
here = Path(__file__).resolve().parent.parent
args = sys.argv[1:]
hipo = str(Path(args.pop(0)).resolve())
memaware = None
if "--memaware" in args:
    i = args.index("--memaware")
    memaware = args[i + 1 : i + 4]
    del args[i : i + 4]
sets = [Path(a) for a in args] or sorted(
    p for p in (here / "tests/data/recall").iterdir() if (p / "prompts.jsonl").exists()
)


def run(project, *a):
    out = subprocess.run([hipo, "--dir", str(project), "--json", *a], capture_output=True, text=True)
    return json.loads(out.stdout) if out.stdout.strip() else {}


def dump(project, prompts, unrelated):
    rows = []
    cases = [json.loads(l) | {"kind": "ans"} for l in open(prompts) if l.strip()]
    cases += [{"query": l.strip(), "kind": "unr"} for l in open(unrelated) if l.strip()]
    for c in cases:
        pack = run(project, "recall", "--floor", "0", "--", c["query"])
        hits = run(project, "search", "-n", "20", "--", c["query"]).get("hits", [])
        rows.append(c | {"held": pack.get("held", 1.0), "cap": len(pack.get("passages", [])), "hits": hits})
    return rows


def answers(h, expected):
    """(file, entry) of an answer: an expected path, or the section holding an expected line."""
    f = e = False
    for x in expected:
        path, _, line = x.rpartition(":") if x.rsplit(":", 1)[-1].isdigit() else (x, "", "")
        if h["path"] == path:
            f = True
            e |= not line or h["lines"][0] <= int(line) <= h["lines"][1]
    return f, e


def pack(r, min_cov, share, floor=None):
    floor = FLOOR if floor is None else floor
    opens = [h for h in r["hits"] if h["relevance"] >= floor and h["coverage"] * r["held"] >= min_cov]
    if not opens:
        return []
    best = max(h["relevance"] for h in opens)
    hs = [h for h in r["hits"] if not h["path"].endswith("ROOT.md")][: max(r["cap"], 1)]
    return [h for h in hs if h["relevance"] >= best * share]


def report(name, rows, min_cov, share, floor=None):
    cells = []
    for half in (0, 1):
        a = [r for r in rows if r["kind"] == "ans"][half::2]
        u = [r for r in rows if r["kind"] == "unr"][half::2]
        hit = ent = given = packs = 0
        for r in a:
            p = pack(r, min_cov, share, floor)
            got = [answers(h, r["expected"]) for h in p]
            hit += any(f for f, _ in got)
            ent += any(e for _, e in got)
            given, packs = given + len(p), packs + bool(p)
        empty = sum(not pack(r, min_cov, share, floor) for r in u)
        cells.append(f"{hit:2}/{ent:2} of {len(a):2}, {empty:2}/{len(u):2} empty, pp {given / max(packs, 1):5.2f}")
    print(f"  {name:9} " + " | ".join(cells), flush=True)


dumps = []
saved = os.environ.get("DUMP")
if saved and os.path.exists(saved):
    dumps, sets, memaware = json.load(open(saved)), [], None
for s in sets:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        shutil.copytree(s, project, ignore=shutil.ignore_patterns("prompts.*", "unrelated.txt"))
        subprocess.run([hipo, "--dir", str(project), "compact"], capture_output=True, check=True)
        dumps.append((s.name, dump(project, s / "prompts.jsonl", s / "unrelated.txt")))
if memaware:
    dumps.append(("memaware", dump(*memaware)))
if saved and not os.path.exists(saved):
    json.dump(dumps, open(saved, "w"))
for fl in os.environ.get("FLOORS", "").split():
    print(f"FLOOR {fl} (MIN_COVERAGE 0.2, PACK_SHARE 0.3)")
    for name, rows in dumps:
        report(name, rows, 0.2, 0.3, float(fl))
for m in (0.15, 0.175, 0.2, 0.25):
    print(f"MIN_COVERAGE {m} (PACK_SHARE 0.3): hit/entry of answered, unrelated empty, passages per pack; half A | half B")
    for name, rows in dumps:
        report(name, rows, m, 0.3)
for sh in (0.5, 0.4, 0.3, 0.2):
    print(f"PACK_SHARE {sh} (MIN_COVERAGE 0.2)")
    for name, rows in dumps:
        report(name, rows, 0.2, sh)
