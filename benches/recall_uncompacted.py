#!/usr/bin/env python3
"""The recall gate on every young set left uncompacted (a project before
its first session ended), for one or more binaries side by side.

Usage: benches/recall_uncompacted.py HIPO [HIPO…]
Prints, per binary, the prompts whose pack holds a passage of an answering
file and the unrelated prompts left empty, in all and per set.
"""
import json, subprocess, sys, shutil, tempfile
from pathlib import Path
root = Path('/work/main/tests/data/recall')
tot = {}
for b in sys.argv[1:]:
    A = U = NA = NU = 0
    per = []
    for s in sorted(p for p in root.iterdir() if (p / 'prompts.jsonl').exists()):
        with tempfile.TemporaryDirectory() as t:
            P = Path(t) / 'p'
            shutil.copytree(s, P, ignore=shutil.ignore_patterns('prompts.*', 'unrelated.txt'))
            def rec(q):
                return json.loads(subprocess.run([b, '--dir', str(P), '--json', 'recall', '--', q], capture_output=True, text=True).stdout)
            a = u = 0
            cases = [json.loads(l) for l in open(s / 'prompts.jsonl') if l.strip()]
            for c in cases:
                exp = {e.rsplit(':', 1)[0] for e in c['expected']}
                a += bool(exp & {p['path'] for p in rec(c['query'])['passages']})
            un = [l.strip() for l in open(s / 'unrelated.txt') if l.strip()]
            for q in un:
                u += not rec(q)['passages']
            per.append(f"{s.name} {a}/{len(cases)} {u}/{len(un)}")
            A += a; U += u; NA += len(cases); NU += len(un)
    print(b, f"answered {A}/{NA} unrelated empty {U}/{NU}")
    print('   ', '; '.join(per))
