#!/usr/bin/env bash
# OpenClaw's hooks and capture as whole processes, on the MemAware corpus with its tree built:
# the session-start hook, capturing a 1 MB delta from OpenClaw's SQLite transcript store (one
# session, the hook's case), and a capture with nothing new, for one session and for a store
# of 200 sessions already captured (the `hipo ingest --platform openclaw` case).
# Targets (issue 12): session start 20 ms, a 1 MB delta 100 ms, a no-op 10 ms.
# Usage: benches/openclaw-hooks.sh [corpus-dir]   (needs hyperfine, python3, a release build)
set -euo pipefail
source "$(dirname "$0")/setup.sh"
export NO_COLOR=1 HIPO_TODAY=2023-07-15 HOME=$work/home
mkdir -p "$HOME"
"$hipo" --dir "$work/p" compact > /dev/null
python3 - "$work" <<'PY'
import json, os, random, sqlite3, sys
w = sys.argv[1]
random.seed(7)
words = "postgres cutover replica kayak garden budget recipe deploy rollback travel".split()
os.makedirs(f"{w}/home/.openclaw/agents/main/agent")
db = sqlite3.connect(f"{w}/home/.openclaw/agents/main/agent/openclaw-agent.sqlite")
db.execute("PRAGMA journal_mode=WAL")
db.execute("""CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
  event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER,
  navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT""")
def rows(session, n, chars):
    out, parent = [], None
    out.append(json.dumps({"type": "session", "version": 4, "id": session, "timestamp": "2023-07-15T10:00:00Z", "cwd": f"{w}/p"}))
    for i in range(n):
        text = " ".join(random.choice(words) for _ in range(chars // 7))
        eid = f"{session}-{i}"
        if i % 2 == 0:
            msg = {"role": "user", "content": text}
        else:
            msg = {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": text}]}
        out.append(json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": "2023-07-15T10:00:00Z", "message": msg}))
        parent = eid
    return out
# 200 old sessions, and the big one: about 1 MB of event JSON.
for s in range(200):
    for seq, r in enumerate(rows(f"old-{s}", 6, 200)):
        db.execute("INSERT INTO transcript_events VALUES (?, ?, ?, 0, NULL, NULL, NULL)", (f"old-{s}", seq, r))
size = 0
for seq, r in enumerate(rows("bench", 1400, 700)):
    db.execute("INSERT INTO transcript_events VALUES ('bench', ?, ?, 0, NULL, NULL, NULL)", (seq, r))
    size += len(r)
db.commit()
print(f"store: 1 session of {size / 1048576:.2f} MB of events, 200 sessions of 7 rows")
def hook(**extra):
    d = {"cwd": f"{w}/p", "agent_id": "main", "hook_event_name": "agent:bootstrap"}
    d.update(extra)
    return json.dumps(d)
open(f"{w}/start.json", "w").write(hook(session_id="bench"))
open(f"{w}/stop.json", "w").write(hook(session_id="bench", hook_event_name="command:new"))
PY
# The old sessions are captured already; the big one is the delta.
"$hipo" --dir "$work/p" ingest --platform openclaw > /dev/null
day=$work/p/memory/2023-07-15.md
python3 - "$day" <<'PY'
import re, sys
p = sys.argv[1]
t = open(p).read()
# Drop the big session's entry (its heading to its watermark): it is the delta to measure.
t = re.sub(r"\n## Session [^\n]*\n(?:(?!\n## ).)*?<!-- hipo:ingest openclaw bench seq:\d+ -->\n", "\n", t, flags=re.S)
open(p, "w").write(t)
PY
cp "$day" "$work/day.md"
median() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print('\n'.join(f\"{x['command']}: median {x['median']*1000:.1f} ms\" for x in r))" "$1"; }
hyperfine --warmup 3 --runs 30 --export-json "$work/start.json.out" \
  -n "openclaw session-start hook" "$hipo hook openclaw session-start < $work/start.json" > /dev/null
hyperfine --warmup 1 --runs 20 --export-json "$work/ingest.json" \
  --prepare "cp $work/day.md $day" \
  -n "openclaw capture, 1 MB delta (hook, one session)" "$hipo hook openclaw session-end < $work/stop.json" > /dev/null
"$hipo" hook openclaw session-end < "$work/stop.json"
hyperfine --warmup 3 --runs 30 --export-json "$work/noop.json" \
  -n "openclaw capture, nothing new (hook, one session)" "$hipo hook openclaw session-end < $work/stop.json" \
  -n "openclaw ingest, nothing new (201 sessions)" "$hipo --dir $work/p ingest --platform openclaw" > /dev/null
median "$work/start.json.out"; median "$work/ingest.json"; median "$work/noop.json"
