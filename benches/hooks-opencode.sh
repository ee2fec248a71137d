#!/usr/bin/env bash
# OpenCode's hook costs on the MemAware corpus with its tree built:
#  1. the plugin's round trip, as OpenCode pays it: the real
#     .opencode/plugins/hipo.js (written by `hipo init --platform opencode`)
#     imported in Node and its hooks called, each spawning
#     `hipo hook opencode EVENT` with its JSON on stdin (medians of 30 calls);
#  2. the same hooks as whole processes (hyperfine);
#  3. capturing a session of about 1 MB from an OpenCode-shaped SQLite store,
#     and a re-capture with nothing new.
# Usage: benches/hooks-opencode.sh [corpus-dir]   (needs hyperfine, python3, node, a release build)
set -euo pipefail
source "$(dirname "$0")/setup.sh"
export NO_COLOR=1 HIPO_TODAY=2023-07-15
"$hipo" --dir "$work/p" compact > /dev/null
"$hipo" --dir "$work/p" index > /dev/null
"$hipo" --dir "$work/p" init --platform opencode > /dev/null
python3 - "$work" <<'PY'
import json, sys, random, sqlite3
w = sys.argv[1]
random.seed(7)
words = "postgres cutover replica kayak garden budget recipe deploy rollback travel".split()
db = sqlite3.connect(f"{w}/opencode.db")
db.executescript("""
PRAGMA journal_mode=WAL;
CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, title TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
""")
db.execute("INSERT INTO session VALUES ('ses_bench', ?, 'bench', 1, 2)", (f"{w}/p",))
t = 1689415200000
size = 0
for i in range(1960):
    text = " ".join(random.choice(words) for _ in range(60))
    role = "user" if i % 2 == 0 else "assistant"
    m = {"role": role, "time": {"created": t + i * 1000}}
    if role == "assistant":
        m["time"]["completed"] = t + i * 1000 + 500
    part = {"type": "text", "text": text}
    db.execute("INSERT INTO message VALUES (?, 'ses_bench', 0, 0, ?)", (f"msg_{i:06d}", json.dumps(m)))
    db.execute("INSERT INTO part VALUES (?, ?, 'ses_bench', 0, 0, ?)", (f"prt_{i:06d}", f"msg_{i:06d}", json.dumps(part)))
    size += len(json.dumps(m)) + len(json.dumps(part))
db.commit()
print(f"session rows: {size / 1048576:.2f} MB of JSON")
def hook(**extra):
    d = {"session_id": "ses_bench", "cwd": f"{w}/p"}
    d.update(extra)
    return json.dumps(d)
open(f"{w}/start.json", "w").write(hook(hook_event_name="session.created", source="startup"))
open(f"{w}/prompt.json", "w").write(hook(hook_event_name="chat.message", prompt="which national park did I camp in alone last spring?"))
open(f"{w}/stop.json", "w").write(hook(hook_event_name="session.idle"))
PY
export OPENCODE_DB=$work/opencode.db HIPO_BIN=$hipo
cat > "$work/drive.mjs" <<'JS'
// Calls the installed plugin's hooks as OpenCode does, timing each await.
const { HipoPlugin } = await import(process.argv[2])
const plugin = await HipoPlugin({ directory: process.argv[3] })
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const time = async (f) => { const t = performance.now(); await f(); return performance.now() - t }
const start = [], prompt = []
for (let i = 0; i < 30; i++) {
  const sessionID = `ses_drive_${i}`
  // The first system transform of a session loads its memory.
  start.push(await time(() => plugin["experimental.chat.system.transform"]({ sessionID }, { system: [] })))
  prompt.push(await time(() => plugin["chat.message"]({ sessionID }, { parts: [{ type: "text", text: "which national park did I camp in alone last spring?" }] })))
}
const out = { system: [] }
await plugin["experimental.chat.system.transform"]({ sessionID: "ses_drive_0" }, out)
if (!out.system.some((s) => s.includes("=== memory/ROOT.md ==="))) throw new Error("no memory pushed")
console.log(`plugin → session-start round trip: median ${median(start).toFixed(1)} ms`)
console.log(`plugin → prompt (recall) round trip: median ${median(prompt).toFixed(1)} ms`)
JS
node "$work/drive.mjs" "$work/p/.opencode/plugins/hipo.js" "$work/p"
median() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print('\n'.join(f\"{x['command']}: median {x['median']*1000:.1f} ms\" for x in r))" "$1"; }
hyperfine --warmup 3 --runs 30 --export-json "$work/hooks.json" \
  -n "session-start hook (opencode)" "$hipo hook opencode session-start < $work/start.json" \
  -n "prompt hook (opencode, recall)" "$hipo hook opencode prompt < $work/prompt.json" > /dev/null
cp "$work/p/memory/2023-07-15.md" "$work/day.md" 2>/dev/null || : > "$work/day.md"
hyperfine --warmup 1 --runs 20 --export-json "$work/ingest.json" \
  --prepare "cp $work/day.md $work/p/memory/2023-07-15.md" \
  -n "capture a 1 MB OpenCode session (stop hook)" "$hipo hook opencode stop < $work/stop.json" > /dev/null
"$hipo" hook opencode stop < "$work/stop.json"
hyperfine --warmup 3 --runs 30 --export-json "$work/noop.json" \
  -n "re-capture, nothing new" "$hipo hook opencode stop < $work/stop.json" > /dev/null
median "$work/hooks.json"; median "$work/ingest.json"; median "$work/noop.json"
