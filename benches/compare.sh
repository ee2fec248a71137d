#!/usr/bin/env bash
# Two binaries side by side in one hyperfine run each, on the MemAware
# corpus: no-op compact, compact after a 10 KB append, and a search.
# Usage: benches/compare.sh OLD_HIPO [NEW_HIPO]   (NEW defaults to target/release/hipo)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${MEMAWARE:-$here/../shared/data/memaware-sessions}
old=$(realpath "${1:?usage: benches/compare.sh OLD_HIPO [NEW_HIPO]}")
new=$(realpath "${2:-$here/target/release/hipo}")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp "$old" "$work/old"; cp "$new" "$work/new"   # copies, as `cargo install` places them
export HIPO_TODAY=2023-07-15 NO_COLOR=1
for b in old new; do
  mkdir -p "$work/$b-p/memory" && cp "$corpus"/20*.md "$work/$b-p/memory/"
  "$work/$b" --dir "$work/$b-p" compact > /dev/null
  "$work/$b" --dir "$work/$b-p" index > /dev/null
  cat > "$work/append-$b.sh" <<EOS
#!/bin/sh
printf '\n## Session bench [project]\n%s\n' "\$(yes 'User: appended line of about fifty characters here.' | head -200)" >> "$work/$b-p/memory/2023-06-30.md"
EOS
  chmod +x "$work/append-$b.sh"
done
median() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print('\n'.join(f\"{x['command']}: median {x['median']*1000:.2f} ms\" for x in r)); m=[x['median'] for x in r]; print(f'  new/old = {m[1]/m[0]:.3f}')" "$1"; }
hyperfine -N --warmup 3 --runs 40 --export-json "$work/noop.json" \
  -n "old compact no-op" "$work/old --dir $work/old-p compact" \
  -n "new compact no-op" "$work/new --dir $work/new-p compact" > /dev/null
hyperfine --warmup 2 --runs 30 --export-json "$work/append.json" \
  -n "old compact after 10 KB append" --prepare "$work/append-old.sh" "$work/old --dir $work/old-p compact" \
  -n "new compact after 10 KB append" --prepare "$work/append-new.sh" "$work/new --dir $work/new-p compact" > /dev/null
hyperfine -N --warmup 3 --runs 60 --export-json "$work/search.json" \
  -n "old search" "$work/old --dir $work/old-p search 'which national park did I camp in alone?'" \
  -n "new search" "$work/new --dir $work/new-p search 'which national park did I camp in alone?'" > /dev/null
median "$work/noop.json"; median "$work/append.json"; median "$work/search.json"
