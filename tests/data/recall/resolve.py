#!/usr/bin/env python3
"""Writes SET/prompts.jsonl from SET/prompts.src: one case a line,
`query<TAB>target[;target…]`, a target being `path` (a whole file) or
`path#words of its heading` (the entry under that heading, resolved to
`path:line` so `hipo eval` and benches/recall_sets.py read one format)."""
import json, sys
from pathlib import Path

for set_dir in map(Path, sys.argv[1:]):
    out = []
    for raw in (set_dir / "prompts.src").read_text().splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        query, targets = raw.split("\t")
        expected = []
        for t in targets.split(";"):
            path, _, heading = t.strip().partition("#")
            if not heading:
                expected.append(path)
                continue
            lines = (set_dir / path).read_text().splitlines()
            at = [i + 1 for i, l in enumerate(lines) if l.startswith("#") and heading in l]
            assert len(at) == 1, (set_dir, t, at)
            expected.append(f"{path}:{at[0]}")
        out.append(json.dumps({"query": query.strip(), "expected": expected}, ensure_ascii=False))
    (set_dir / "prompts.jsonl").write_text("\n".join(out) + "\n")
    print(set_dir, len(out))
