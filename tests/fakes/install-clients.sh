#!/usr/bin/env bash
# Installs the agent CLIs that tests/agents.rs drives (Claude Code, Codex, OpenCode), at the
# versions the tests were written against, into DIR with npm. Then:
#   HIPO_AGENT_CLIENTS=DIR cargo test --test main agents::
# Needs Node >= 20 and the npm registry once (a DIR that already holds these versions is kept as
# it is, offline); the CLIs then run offline against tests/fakes/. Claude Code declares
# Node >= 22 (npm warns EBADENGINE) but ships a native binary and runs on 20.
# Exits non-zero if npm is missing or the install fails; .ci/run then lets the tests skip.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
PINNED=(@anthropic-ai/claude-code@2.1.330 @openai/codex@0.169.0 opencode-ai@1.18.33)
WANT="claude: 2.1.330 (Claude Code)
codex: codex-cli 0.169.0
opencode: 1.18.33"
mkdir -p "$1"
DIR=$(cd "$1" && pwd)
B=$DIR/node_modules/.bin
# The clients write config directories on first start: give them a throwaway HOME.
H=$(mktemp -d)
trap 'rm -rf "$H"' EXIT

# Each CLI's version, which also shows that it starts (a missing platform binary shows up here,
# not as a test failure).
versions() {
  local c v
  for c in claude codex opencode; do
    v=$(HOME=$H XDG_CONFIG_HOME=$H XDG_DATA_HOME=$H XDG_CACHE_HOME=$H XDG_STATE_HOME=$H \
      CODEX_HOME=$H "$B/$c" --version </dev/null 2>/dev/null) || { echo "$c does not start"; return 1; }
    echo "$c: ${v##*$'\n'}"
  done
}

if [[ $(versions 2>/dev/null) == "$WANT" ]]; then
  echo "agent clients already installed in $DIR"
  exit 0
fi
command -v npm >/dev/null || { echo "npm not found" >&2; exit 1; }
# A package.json of its own stops npm from walking up into a parent project.
[[ -f $DIR/package.json ]] || echo '{"name":"hipo-agent-clients","private":true}' >"$DIR/package.json"
(cd "$DIR" && npm install --no-audit --no-fund --no-update-notifier --loglevel=error "${PINNED[@]}")
got=$(versions) || { echo "$got" >&2; exit 1; }
echo "$got"
[[ $got == "$WANT" ]] || { echo "unexpected versions in $DIR" >&2; exit 1; }
