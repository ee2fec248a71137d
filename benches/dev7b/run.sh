#!/usr/bin/env bash
# hipo's acceptance of a competent 7B model's answers, measured on the dev
# set of benches/dev7b/server.py (good answers, then bad ones), on two
# projects: fixtures/sample with every threshold at 5 lines (every level is
# asked), and five MemAware days (long chat logs, chunked at num_ctx 8192).
# Prints one Markdown row per project, answers and half (A, B: by a hash of
# the node): first answers served, refused (hipo asked again), and the run's
# end: nodes pending, nodes with parts written by hipo, ROOT by the model.
#
# Usage: benches/dev7b/run.sh HIPO
# Env: PORT (11600), NUM_CTX (8192), SEED (0), DAYS (the MemAware days),
#      PROJECTS (sample memaware), ANSWERS (good bad mixed), FULL (1: log prompts and answers),
#      MEMAWARE (the corpus), OUT_DIR (keep logs and reports there).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
hipo=$(realpath "${1:?usage: benches/dev7b/run.sh HIPO}")
corpus=${MEMAWARE:-$here/../shared/data/memaware-sessions}
[ -d "$corpus" ] || corpus=$here/../../shared/data/memaware-sessions
port=${PORT:-11600} num_ctx=${NUM_CTX:-8192} seed=${SEED:-0}
days=${DAYS:-2023-04-03 2023-04-05 2023-04-09 2023-04-10 2023-04-12}
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT

project() { # name → a fresh copy in $work/$1
  rm -rf "$work/$1"
  if [ "$1" = sample ]; then
    mkdir -p "$work/sample" && cp -r "$here/fixtures/sample/." "$work/sample/"
    echo '{"compaction":{"dailyThreshold":5,"weeklyThreshold":5,"monthlyThreshold":5}}' \
      > "$work/sample/hipocampus.config.json"
  else
    mkdir -p "$work/memaware/memory"
    for d in $days; do cp "$corpus/$d.md" "$work/memaware/memory/$d.md"; done
  fi
}

echo "| project | answers | half | good first answers | of them refused | bad first answers | of them refused | nodes pending | nodes with parts by hipo | ROOT by the model | hipo: accepted / refused (all calls) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for p in ${PROJECTS:-sample memaware}; do
  today=$([ "$p" = sample ] && echo 2027-01-21 || echo 2023-04-20)
  for answers in ${ANSWERS:-good bad mixed}; do
    project "$p"
    log="$work/$p-$answers.jsonl"
    python3 "$here/benches/dev7b/server.py" --port "$port" --seed "$seed" --log "$log" \
      $([ "$answers" = bad ] && echo --bad) $([ "$answers" = mixed ] && echo --mixed) ${FULL:+--full} &
    pid=$!
    for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/api/version" > /dev/null && break; sleep 0.2; done
    flags=(--today "$today" --llm ollama --model dev7b --host "http://127.0.0.1:$port" --num-ctx "$num_ctx")
    "$hipo" --dir "$work/$p" compact --json "${flags[@]}" > "$work/$p-$answers.json" 2> "$work/$p-$answers.err" || true
    "$hipo" --dir "$work/$p" status --json "${flags[@]}" > "$work/$p-$answers.status.json" 2>/dev/null || true
    kill $pid; wait $pid 2>/dev/null || true; pid=
    python3 - "$p" "$answers" "$log" "$work/$p-$answers.status.json" "$work/$p-$answers.err" "$work/$p-$answers.json" <<'PY'
import json, sys
name, answers, log, status, err, report = sys.argv[1:]
llm = json.load(open(report)).get("llm") or {}
counts = f"{llm.get('accepted', 0)} / {llm.get('refused', 0) + llm.get('ungrounded', 0)}"
calls = [json.loads(l) for l in open(log)]
retried = {c["base"] for c in calls if c["retry"]}
try:
    st = json.load(open(status))
except ValueError:
    st = {}
pending = len(st.get("backlog", []))
by_hipo = len(st.get("parts_by_hipo", {}))
root_failed = "memory/ROOT.md: summary failed" in open(err).read()
for half in "AB":
    first = [c for c in calls if not c["retry"] and c["half"] == half]
    good = [c for c in first if c["served"] == "good"]
    bad = [c for c in first if c["served"] != "good"]
    refused = lambda cs: sum(1 for c in cs if c["base"] in retried)
    root = [c for c in calls if c["kind"] == "root"]
    root_half = root and root[0]["half"] == half
    print(f"| {name} | {answers} | {half} | {len(good)} | {refused(good)} | {len(bad)} | {refused(bad)} | "
          f"{pending if half == 'A' else ''} | {by_hipo if half == 'A' else ''} | "
          f"{('no' if root_failed else 'yes') if root_half else ''} | {counts if half == 'A' else ''} |")
PY
  done
done
if [ -n "${OUT_DIR:-}" ]; then mkdir -p "$OUT_DIR" && cp "$work"/*.json "$work"/*.jsonl "$work"/*.err "$OUT_DIR/"; fi
