#!/usr/bin/env bash
# hipo's local-model path measured end to end against a real model: the
# Ollama stand-in (../shared/tools/ollama-llm-standin: SmolLM2-135M-Instruct
# through llama.cpp behind Ollama's API, with `format` and Ollama's silent
# cut; never --shape). Two projects at low thresholds: fixtures/sample, and
# four MemAware days (the first LINES lines of each, to keep the run short).
# Prints one Markdown table row per project: calls, tokens, seconds,
# answers structurally valid, accepted, refused for grounding, cuts seen.
#
# Usage: benches/llm_standin.sh HIPO STANDIN_DIR
#   HIPO         the hipo binary (e.g. target/release/hipo)
#   STANDIN_DIR  where setup.sh put the venv and model (./ollama-standin)
# Env: PORT (11500), NUM_CTX (2048), LINES (60), MEMAWARE (the corpus),
#      THREADS (1: llama.cpp threads; 2 on cores shared with builds was far slower),
#      TIMEOUT (600 s a call), STRUCTURED (true: JSON answers; false: the
#      text prompt), OUT_DIR (keep reports and the call log there).
# On 2 cores shared with compilers, llama.cpp with 2 threads generated
# 0.5 tokens/s, with 1 thread about 20: keep THREADS=1 on a busy machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
hipo=$(realpath "${1:?usage: benches/llm_standin.sh HIPO STANDIN_DIR}")
standin=$(realpath "${2:?usage: benches/llm_standin.sh HIPO STANDIN_DIR}")
server=${STANDIN_SERVER:-$here/../shared/tools/ollama-llm-standin/server.py}
corpus=${MEMAWARE:-$here/../shared/data/memaware-sessions}
port=${PORT:-11500} num_ctx=${NUM_CTX:-2048} structured=${STRUCTURED:-true} lines=${LINES:-60} timeout=${TIMEOUT:-600}
work=$(mktemp -d)
"$standin/venv/bin/python" "$server" --host "127.0.0.1:$port" --threads "${THREADS:-1}" \
  --model "smollm2:135m=$standin/models/SmolLM2-135M-Instruct.Q4_1.gguf" \
  --log "$work/calls.jsonl" > "$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$port/api/version" > /dev/null && break; sleep 1; done

low='{"compaction":{"dailyThreshold":12,"weeklyThreshold":30,"monthlyThreshold":60,"rootMaxTokens":3000}}'
mkdir -p "$work/sample" && cp -r "$here/fixtures/sample/." "$work/sample/"
echo "$low" > "$work/sample/hipocampus.config.json"
mkdir -p "$work/memaware/memory"
for d in 2023-04-02 2023-04-08 2023-04-11 2023-06-02; do
  head -n "$lines" "$corpus/$d.md" > "$work/memaware/memory/$d.md"
done
echo "$low" > "$work/memaware/hipocampus.config.json"

echo "| project ($([ "$structured" = true ] && echo JSON || echo text) answers) | calls | prompt tokens | output tokens | seconds | structurally valid | accepted | refused for grounding | cuts detected (prompt / answer) | server cuts |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for p in sample memaware; do
  today=$([ "$p" = sample ] && echo 2027-01-21 || echo 2023-06-05)
  before=$( (wc -l < "$work/calls.jsonl") 2>/dev/null || echo 0)
  start=$(date +%s.%N)
  "$hipo" --dir "$work/$p" compact --json --today "$today" --llm ollama --model smollm2:135m \
    --host "http://127.0.0.1:$port" --num-ctx "$num_ctx" --timeout-s "$timeout" \
    --structured "$structured" \
    > "$work/$p.json" 2> "$work/$p.err" || true
  end=$(date +%s.%N)
  python3 - "$p" "$work/$p.json" "$work/calls.jsonl" "$before" "$start" "$end" <<'PY'
import json, sys
name, report, log, before, start, end = sys.argv[1:]
s = json.load(open(report)).get("llm") or {}
calls = [json.loads(l) for l in open(log).read().splitlines()[int(before):]] if before else []
server_cuts = sum(1 for c in calls if c.get("truncated_tokens", 0) > 0)
valid = s.get("accepted", 0) + s.get("ungrounded", 0)
print(f"| {name} | {s.get('calls', 0)} | {s.get('prompt_tokens', 0):,} | {s.get('output_tokens', 0):,} | "
      f"{float(end) - float(start):.0f} | {valid} | {s.get('accepted', 0)} | {s.get('ungrounded', 0)} | "
      f"{s.get('cuts', 0)} / {s.get('cut_answers', 0)} | {server_cuts} |")
PY
done
# Keep the raw material when asked: reports, stderr, the server's call log.
if [ -n "${OUT_DIR:-}" ]; then mkdir -p "$OUT_DIR" && cp "$work"/*.json "$work"/*.err "$work"/calls.jsonl "$OUT_DIR/"; fi
