#!/usr/bin/env python3
"""The recall gate and pack size on every dev set, each split in halves.

Usage: benches/recall_sets.py HIPO [SET_DIR…] [--memaware PROJECT DEV.jsonl UNRELATED.txt]
  SET_DIR defaults to every set under tests/data/recall/ (a memory of
  Markdown files with prompts.jsonl, the prompts it answers, and
  unrelated.txt, prompts about something else). Each set is copied to a
  temp project and compacted first, as a project is after its hooks ran.
  --memaware takes a project holding the MemAware corpus under memory/
  (see benches/setup.sh) with the dev questions and unrelated prompts.
  FLOOR=X measures another floor; BUDGET=N another budget (default 800).
  UNRELATED=FILE asks every set FILE's prompts as its unrelated ones
  (fixtures/eval/unrelated-prompts-cued.txt: prompts about something else
  that point back at the past, "remind me how to …", "… again").
  TODAY=next compacts and recalls each set as of the day after its last
  raw log (HIPO_TODAY), as a project in use is, so ROOT's "last 30 days"
  lines and the entries' ages are those of a live project; by default
  the machine's date, before or long after the sets' days.

Per set and half (odd / even case), it prints:
  hit      packs holding a passage of an answering file (MemAware: of an
           answer session), of the prompts the memory answers
  entry    packs holding a passage of an answering entry (the section under
           an expected `path:line` heading, or an expected whole file)
  empty    unrelated prompts given an empty pack
  pp       passages per non-empty pack
  prec     passages from an answering entry, over all passages given
  shown    of the prompts whose pack holds an answering entry, the mean
           share of that entry's words its passages show (how much of the
           answer the agent reads without opening it)
  tok      tokens per non-empty pack
"""
import datetime, json, os, re, shutil, subprocess, sys, tempfile
from pathlib import Path

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


def recall(project, query):
    cmd = [hipo, "--dir", str(project), "--json", "recall", "--budget", os.environ.get("BUDGET", "800")]
    if os.environ.get("FLOOR"):
        cmd += ["--floor", os.environ["FLOOR"]]
    out = subprocess.run(cmd + ["--", query], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


class Spans:
    """Where each expected entry ends: the line before the next heading of
    its level or above."""

    def __init__(self, project):
        self.project, self.cache = Path(project), {}

    def entry(self, path, line):
        if path not in self.cache:
            self.cache[path] = (self.project / path).read_text().splitlines()
        lines = self.cache[path]
        level = len(lines[line - 1]) - len(lines[line - 1].lstrip("#"))
        end = len(lines)
        for i in range(line, len(lines)):
            hashes = len(lines[i]) - len(lines[i].lstrip("#"))
            if 0 < hashes <= level and lines[i][hashes : hashes + 1] == " ":
                end = i
                break
        return line, end

    def words(self, path, span):
        lines = self.cache[path][span[0] : span[1]] if span else (self.project / path).read_text().splitlines()
        return set(re.findall(r"\w+", "\n".join(lines).lower()))


def judge(spans, pack, expected):
    """(file hit, entry hit, passages from an answering entry, share of
    the best-shown answering entry's words in its passages)"""
    want = []
    for e in expected:
        path, _, line = e.rpartition(":") if e.rsplit(":", 1)[-1].isdigit() else (e, "", "")
        want.append((path, spans.entry(path, int(line)) if line else None))
    files = {p for p, _ in want}
    good, shown = 0, 0.0
    for p in pack["passages"]:
        for path, span in want:
            if p["path"] == path and (span is None or span[0] <= p["lines"][0] <= span[1]):
                good += 1
                entry = spans.words(path, span)
                seen = set(re.findall(r"\w+", " ".join(p["text"]).lower()))
                shown = max(shown, len(entry & seen) / max(len(entry), 1))
                break
    file_hit = any(p["path"] in files for p in pack["passages"])
    return file_hit, good > 0, good, shown


def measure(name, project, cases, unrelated):
    spans = Spans(project)
    rows = []
    for half in (0, 1, None):
        cs = cases if half is None else cases[half::2]
        us = unrelated if half is None else unrelated[half::2]
        hit = entry = given = packs = good = tokens = 0
        shown = 0.0
        for c in cs:
            pack = c.setdefault("_pack", None) or recall(project, c["query"])
            c["_pack"] = pack
            f, e, g, w = judge(spans, pack, c["expected"])
            hit, entry, good, shown = hit + f, entry + e, good + g, shown + w
            if pack["passages"]:
                packs, given, tokens = packs + 1, given + len(pack["passages"]), tokens + pack["tokens"]
        empty = 0
        for u in us:
            pack = u.get("_pack") or recall(project, u["query"])
            u["_pack"] = pack
            empty += not pack["passages"]
        label = "all" if half is None else ("A" if half == 0 else "B")
        rows.append(
            f"{name:10} {label:3} hit {hit:3}/{len(cs):<3} ({hit / len(cs):.3f})  entry {entry:3}/{len(cs):<3}"
            f"  empty {empty:3}/{len(us):<3}  pp {given / max(packs, 1):5.2f}  prec {good / max(given, 1):.3f}"
            f"  shown {shown / max(entry, 1):.2f}  tok {tokens / max(packs, 1):4.0f}"
        )
    print("\n".join(rows), flush=True)


def load(set_dir):
    cases = [json.loads(l) for l in open(set_dir / "prompts.jsonl") if l.strip()]
    source = os.environ.get("UNRELATED") or set_dir / "unrelated.txt"
    unrelated = [{"query": l.strip()} for l in open(source) if l.strip()]
    return cases, unrelated


for s in sets:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "p"
        shutil.copytree(s, project, ignore=shutil.ignore_patterns("prompts.*", "unrelated.txt"))
        if os.environ.get("TODAY") == "next":
            last = max(p.stem for p in (project / "memory").glob("[0-9]*-[0-9]*-[0-9]*.md"))
            day = datetime.date.fromisoformat(last) + datetime.timedelta(days=1)
            os.environ["HIPO_TODAY"] = day.isoformat()
        subprocess.run([hipo, "--dir", str(project), "compact"], capture_output=True, check=True)
        cases, unrelated = load(s)
        measure(s.name, project, cases, unrelated)

if memaware:
    os.environ.pop("HIPO_TODAY", None)
    project, dev, unrelated = memaware
    cases = [json.loads(l) for l in open(dev) if l.strip()]
    # An answer is the whole session under the expected `## Session` line.
    unrelated = [{"query": l.strip()} for l in open(unrelated) if l.strip()]
    measure("memaware", project, cases, unrelated)
