#!/usr/bin/env bash
# Whole-process timings on the MemAware corpus, side by side in one run.
# Usage: benches/hyperfine.sh [corpus-dir]   (needs hyperfine and a release build)
set -euo pipefail
source "$(dirname "$0")/setup.sh"
export HIPO_TODAY=2023-07-15 NO_COLOR=1
cat > "$work/append.sh" <<EOS
#!/bin/sh
printf '\n## Session bench [project]\n%s\n' "\$(yes 'User: appended line of about fifty characters here.' | head -200)" >> "$work/p/memory/2023-06-30.md"
EOS
chmod +x "$work/append.sh"
"$hipo" --dir "$work/p" compact > /dev/null
median() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print('\n'.join(f\"{x['command']}: median {x['median']*1000:.1f} ms (min {x['min']*1000:.1f}, max {x['max']*1000:.1f})\" for x in r))" "$1"; }
hyperfine -N --warmup 3 --runs 40 --export-json "$work/noop.json" \
  -n "compact no-op" "$hipo --dir $work/p compact" > /dev/null
hyperfine --warmup 2 --runs 30 --prepare "$work/append.sh" --export-json "$work/append.json" \
  -n "compact after 10 KB append" "$hipo --dir $work/p compact" > /dev/null
hyperfine --warmup 1 --runs 10 --prepare "rm -rf $work/p/.hipo $work/p/memory/daily $work/p/memory/weekly $work/p/memory/monthly $work/p/memory/ROOT.md" \
  --export-json "$work/full.json" -n "compact from nothing" "$hipo --dir $work/p compact" > /dev/null
median "$work/noop.json"; median "$work/append.json"; median "$work/full.json"
