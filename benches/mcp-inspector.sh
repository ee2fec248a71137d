#!/usr/bin/env bash
# `hipo mcp` driven by a client nobody here wrote: the official MCP
# Inspector CLI (npm: @modelcontextprotocol/inspector). On a temp copy of
# fixtures/sample it lists the tools, calls `search` and `timeline`, lists
# the resources, and checks each answer. Skips (exit 0, with a message)
# when node/npx is missing; fails when the Inspector cannot be fetched.
#
# Usage: benches/mcp-inspector.sh            (INSPECTOR=@modelcontextprotocol/inspector@VERSION to pin)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v npx >/dev/null || ! command -v node >/dev/null; then
  echo "SKIP: node/npx not found; install Node.js >= 20 to run the MCP Inspector against hipo mcp"
  exit 0
fi
hipo=$here/target/release/hipo
[ -x "$hipo" ] || (cd "$here" && cargo build --release -q)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/fixtures/sample" "$work/p"
pkg=${INSPECTOR:-@modelcontextprotocol/inspector}
# The project and date go by environment: the Inspector reads every
# option it is given, the server's own flags included.
inspect() {
  echo "\$ npx $pkg --cli -e HIPO_DIR=<sample> -e HIPO_TODAY=2027-01-21 hipo mcp $*" >&2
  npx -y "$pkg" --cli -e "HIPO_DIR=$work/p" -e HIPO_TODAY=2027-01-21 "$hipo" mcp "$@"
}
check() { # check NAME JSON PYTHON-EXPR
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $3, d; print('ok:', sys.argv[2])" "$work/out.json" "$1"
}

npx -y "$pkg" --help >/dev/null 2>&1 || { echo "FAIL: npx could not fetch $pkg"; exit 1; }
echo "Inspector: $(npm view "$pkg" version 2>/dev/null || echo "$pkg") via npx"
inspect --method tools/list > "$work/out.json"
python3 -c "import json,sys; [print(f\"  {t['name']:<11} {t['description'][:90]}…\") for t in json.load(open(sys.argv[1]))['tools']]" "$work/out.json"
check "tools/list names the seven tools" "$work/out.json" \
  "sorted(t['name'] for t in d['tools']) == ['checkpoint','compact','get','recall','search','status','timeline'] and all(t.get('description') for t in d['tools'])"

inspect --method tools/call --tool-name search --tool-arg 'query=when did we cut over to postgres 16?' --tool-arg limit=3 | tee "$work/out.json"
check "search finds the cutover" "$work/out.json" \
  "not d.get('isError') and d['structuredContent']['hits'][0]['path'] == 'memory/2027-01-08.md'"

inspect --method tools/call --tool-name timeline --tool-arg from=2027-01-14 --tool-arg to=2027-01-21 | tee "$work/out.json"
check "timeline lists the week" "$work/out.json" \
  "'memory/2027-01-20.md:3  [project] Q1 roadmap draft' in d['content'][0]['text']"

inspect --method tools/call --tool-name search --tool-arg query=x --tool-arg type=bug > "$work/out.json" 2>&1 || true
cat "$work/out.json"
grep -q 'unknown type `bug`' "$work/out.json" && echo "ok: a bad type is refused, naming the argument"

"$hipo" --dir "$work/p" --today 2027-01-21 compact >/dev/null
inspect --method resources/list | tee "$work/out.json"
check "resources/list offers ROOT.md" "$work/out.json" \
  "any(r['uri'].endswith('/memory/ROOT.md') for r in d['resources'])"
echo "all Inspector checks passed"
