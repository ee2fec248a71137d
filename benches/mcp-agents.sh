#!/usr/bin/env bash
# hipo's MCP tools as the real agent clients see them: Claude Code, Codex
# CLI and OpenCode run headless against a fake model endpoint
# (../shared/tools/agent-clients/), with `hipo mcp` registered by hand in
# each one's MCP config (what `hipo init --platform …` will write). Checks
# that the tools, with their descriptions, are in the tool list each
# client sends to the model (the fake's request log).
#
# Usage: benches/mcp-agents.sh AGENTS_DIR [claude|codex|opencode|all]
#   AGENTS_DIR as given to agent-clients/setup.sh (the CLIs in AGENTS_DIR/node_modules/.bin).
# A client that is not installed there is skipped with a message.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tools=${AGENT_CLIENTS:-$here/../shared/tools/agent-clients}
[[ $# -ge 1 ]] || { echo "usage: $0 AGENTS_DIR [claude|codex|opencode|all]" >&2; exit 2; }
bin=$(cd "$1" && pwd -P)/node_modules/.bin
what=${2:-all}
hipo=$here/target/release/hipo
[ -x "$hipo" ] || (cd "$here" && cargo build --release -q)
work=$(mktemp -d -t hipo-agents.XXXXXX)
work=$(cd "$work" && pwd -P)
pids=()
cleanup() { for p in "${pids[@]:-}"; do [[ -n $p ]] && kill "$p" 2>/dev/null || true; done; [[ -n ${KEEP:-} ]] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT
fail=0
# A phrase of the search tool's description, and of the timeline tool's.
desc_search="Search the project's long-term memory"
desc_timeline="What happened in a date range"

start_fake() {  # start_fake SCRIPT DIR -> sets PORT
  python3 "$tools/$1" --port-file "$2/port" --log "$2/requests.jsonl" >"$2/fake.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [[ -s $2/port ]] && break; sleep 0.1; done
  PORT=$(cat "$2/port")
}
check() {  # check DESCRIPTION COMMAND...
  if "${@:2}" >/dev/null 2>&1; then echo "  ok   $1"; else echo "  FAIL $1"; fail=1; fi
}
# The tool list is not a prompt item, so look at the raw request log.
in_request() { grep -qF -- "$2" "$1/requests.jsonl"; }
project() {  # a copy of the sample memory as the agent's project
  cp -r "$here/fixtures/sample" "$1"
  (cd "$1" && git init -q 2>/dev/null || true)
}
have() { [[ -x $bin/$1 ]] || { echo "== $1: SKIP, not installed in $bin (run agent-clients/setup.sh)"; return 1; }; }

agent_claude() {
  have claude || return 0
  echo "== claude ($("$bin/claude" --version))"
  local D=$work/claude
  mkdir -p "$D/home"
  project "$D/proj"
  start_fake fake_anthropic.py "$D"
  cat >"$D/proj/.mcp.json" <<JSON
{"mcpServers": {"hipo": {"command": "$hipo", "args": ["mcp"]}}}
JSON
  # ENABLE_TOOL_SEARCH=false: Claude Code 2.1 otherwise defers MCP tools
  # behind ToolSearch and sends only their names in a reminder.
  (cd "$D/proj" && HOME=$D/home ANTHROPIC_API_KEY=sk-ant-dummy ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT \
    DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 ENABLE_TOOL_SEARCH=false \
    "$bin/claude" -p "what did we decide about postgres?" --output-format json \
    </dev/null >"$D/out" 2>"$D/err") || echo "  claude exited $?"
  check "mcp__hipo__search in the tools sent to the model" in_request "$D" mcp__hipo__search
  check "mcp__hipo__timeline in the tools sent to the model" in_request "$D" mcp__hipo__timeline
  check "search's description in the request" in_request "$D" "$desc_search"
  check "timeline's description in the request" in_request "$D" "$desc_timeline"
}

agent_codex() {
  have codex || return 0
  echo "== codex ($("$bin/codex" --version))"
  local D=$work/codex C=$work/codex/home/.codex
  mkdir -p "$C"
  project "$D/proj"
  start_fake fake_openai.py "$D"
  cat >"$C/config.toml" <<TOML
model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"

[mcp_servers.hipo]
command = "$hipo"
args = ["mcp", "--dir", "$D/proj"]
startup_timeout_sec = 20
tool_timeout_sec = 60
TOML
  # --strict-config: an unknown key under [mcp_servers.hipo] would fail
  # here instead of being ignored silently.
  (cd "$D/proj" && HOME=$D/home CODEX_HOME=$C FAKE_API_KEY=dummy \
    "$bin/codex" exec --strict-config --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox \
    "what did we decide about postgres?" </dev/null >"$D/out" 2>"$D/err") || echo "  codex exited $?"
  check "the mcp__hipo namespace in the tools sent to the model" in_request "$D" mcp__hipo
  check "search's description in the request" in_request "$D" "$desc_search"
  check "timeline's description in the request" in_request "$D" "$desc_timeline"
}

agent_opencode() {
  have opencode || return 0
  echo "== opencode ($("$bin/opencode" --version 2>/dev/null))"
  local D=$work/opencode
  mkdir -p "$D/home"
  project "$D/proj"
  start_fake fake_openai.py "$D"
  cat >"$D/proj/opencode.json" <<JSON
{
  "\$schema": "https://opencode.ai/config.json",
  "model": "fake/fake-model",
  "small_model": "fake/fake-model",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Fake",
      "options": {"baseURL": "http://127.0.0.1:$PORT/v1", "apiKey": "dummy"},
      "models": {"fake-model": {"name": "Fake Model", "limit": {"context": 8000, "output": 1000}}}
    }
  },
  "mcp": {"hipo": {"type": "local", "command": ["$hipo", "mcp"], "enabled": true}}
}
JSON
  (cd "$D/proj" && printf 'what did we decide about postgres?' | \
    HOME=$D/home XDG_CONFIG_HOME=$D/home/.config XDG_DATA_HOME=$D/home/.local/share \
    XDG_CACHE_HOME=$D/home/.cache XDG_STATE_HOME=$D/home/.local/state \
    OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
    OPENCODE_DISABLE_LSP_DOWNLOAD=1 npm_config_registry=http://127.0.0.1:9/ npm_config_fetch_retries=0 \
    "$bin/opencode" run >"$D/out" 2>"$D/err") || echo "  opencode exited $?"
  check "hipo_search in the tools sent to the model" in_request "$D" hipo_search
  check "hipo_timeline in the tools sent to the model" in_request "$D" hipo_timeline
  check "search's description in the request" in_request "$D" "$desc_search"
  check "timeline's description in the request" in_request "$D" "$desc_timeline"
}

case $what in
  claude|codex|opencode) "agent_$what" ;;
  all) agent_claude; agent_codex; agent_opencode ;;
  *) echo "unknown client: $what" >&2; exit 2 ;;
esac
exit $fail
