#!/usr/bin/env bash
# The hooks and capture as whole processes, on the MemAware corpus with its
# tree built: session-start, a prompt's recall, ingesting a 1 MB Claude Code
# transcript delta, a no-op re-ingest, and a new session's first capture
# (its watermark looked for in every raw log, through the store's cache).
# Targets: 20 / 30 / 100 / 10 ms.
# Usage: benches/hooks.sh [corpus-dir]   (needs hyperfine, python3, a release build)
set -euo pipefail
source "$(dirname "$0")/setup.sh"
export NO_COLOR=1 HIPO_TODAY=2023-07-15
"$hipo" --dir "$work/p" compact > /dev/null
"$hipo" --dir "$work/p" index > /dev/null
python3 - "$work" <<'PY'
import json, sys, random
w = sys.argv[1]
random.seed(7)
words = "postgres cutover replica kayak garden budget recipe deploy rollback travel".split()
lines = []
for i in range(1400):
    text = " ".join(random.choice(words) for _ in range(60))
    role = "user" if i % 2 == 0 else "assistant"
    content = text if role == "user" else [{"type": "text", "text": text}]
    lines.append(json.dumps({"type": role, "uuid": f"u{i}", "sessionId": "bench",
                             "timestamp": "2023-07-15T10:00:00Z",
                             "message": {"role": role, "content": content}}))
open(f"{w}/bench.jsonl", "w").write("\n".join(lines) + "\n")
def hook(event, **extra):
    d = {"session_id": "bench", "cwd": f"{w}/p", "hook_event_name": event,
         "transcript_path": f"{w}/none.jsonl"}
    d.update(extra)
    return json.dumps(d)
open(f"{w}/start.json", "w").write(hook("SessionStart", source="compact"))
open(f"{w}/prompt.json", "w").write(hook("UserPromptSubmit", prompt="which national park did I camp in alone last spring?"))
PY
ls -l "$work/bench.jsonl" | awk '{printf "transcript: %.2f MB\n", $5/1048576}'
cp "$work/p/memory/2023-07-15.md" "$work/day.md" 2>/dev/null || : > "$work/day.md"
median() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print('\n'.join(f\"{x['command']}: median {x['median']*1000:.1f} ms\" for x in r))" "$1"; }
hyperfine --warmup 3 --runs 30 --export-json "$work/hooks.json" \
  -n "session-start hook" "$hipo hook claude-code session-start < $work/start.json" \
  -n "prompt hook (recall)" "$hipo hook claude-code prompt < $work/prompt.json" > /dev/null
hyperfine --warmup 1 --runs 20 --export-json "$work/ingest.json" \
  --prepare "cp $work/day.md $work/p/memory/2023-07-15.md" \
  -n "ingest a 1 MB transcript" "$hipo --dir $work/p ingest $work/bench.jsonl" > /dev/null
"$hipo" --dir "$work/p" ingest "$work/bench.jsonl" > /dev/null
hyperfine --warmup 3 --runs 30 --export-json "$work/noop.json" \
  -n "re-ingest, nothing new" "$hipo --dir $work/p ingest $work/bench.jsonl" > /dev/null
# A transcript never captured before, under a new name each run (the
# copy costs the same in every run; "copy only" measures it).
printf '%s\n' '{"type":"user","uuid":"n1","sessionId":"new","timestamp":"2023-07-15T11:00:00Z","message":{"role":"user","content":"a new session"}}' > "$work/new.jsonl"
mkdir -p "$work/new"
cat > "$work/new.sh" <<SH
#!/bin/sh
n=\$(ls "$work/new" | wc -l)
cp "$work/new.jsonl" "$work/new/s\$n.jsonl"
[ "\$1" = copy ] || exec "$hipo" --dir "$work/p" ingest "$work/new/s\$n.jsonl" > /dev/null
SH
chmod +x "$work/new.sh"
hyperfine -N --warmup 3 --runs 40 --export-json "$work/new.json" \
  -n "a new session's first capture" "$work/new.sh" \
  -n "copy only" "$work/new.sh copy" > /dev/null
median "$work/hooks.json"; median "$work/ingest.json"; median "$work/noop.json"; median "$work/new.json"
