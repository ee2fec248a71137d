#!/usr/bin/env bash
# Issue 29's table in one go, two binaries side by side: long questions, a
# 10 KB append on MemAware, ten-year search, ten- and one-year append +
# compact, and the ten-year first index build's peak memory.
#
# Usage: benches/issue29_final.sh OLD NEW [WORK]
#   MEMAWARE (default ../shared/data/memaware-sessions), DEV (the dev
#   questions) and GEN (examples/gen-history, built with
#   `cargo build --release --example gen-history`) can be set. WORK
#   (default a temp dir) holds the histories; they are reused if present.
set -euo pipefail
OLD=$(realpath "$1"); NEW=$(realpath "$2"); WORK=${3:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
MEMAWARE=$(realpath "${MEMAWARE:-$here/../../shared/data/memaware-sessions}")
DEV=$(realpath "${DEV:-$here/../../shared/data/memaware-dev/dev.jsonl}")
GEN=${GEN:-$here/../target/release/examples/gen-history}
export HIPO_TODAY=2026-11-25 NO_COLOR=1
cd "$WORK"
load() { echo "== $(date -u +%H:%M) load $(cut -d' ' -f1-3 /proc/loadavg) $*"; }
for h in h10:3650 h1:365; do
  d=${h%%:*}
  if [ ! -d "$d" ]; then
    "$GEN" --dir "$d" --days "${h##*:}" --end 2026-11-24 --seed 1 >/dev/null
    "$OLD" --dir "$d" compact >/dev/null 2>&1 && "$OLD" --dir "$d" index >/dev/null 2>&1
  fi
done
load "long questions (MemAware uncompacted, each binary its own index)"
rm -rf mwo mwn && mkdir -p mwo mwn && cp -r "$MEMAWARE" mwo/memory && cp -r "$MEMAWARE" mwn/memory
"$OLD" --dir mwo index >/dev/null 2>&1; "$NEW" --dir mwn index >/dev/null 2>&1
ROUNDS=8 python3 "$here/search_long.py" mwo "$DEV" "$OLD=mwo" "$NEW=mwn" | tail -4
load "10 KB append + compact, MemAware"
ROUNDS=20 python3 "$here/append_interleave.py" "$MEMAWARE" "$OLD" "$NEW" | tail -3
load "ten years: search"
ROUNDS=10 python3 "$here/search_interleave.py" h10 "$OLD" "$NEW" | tail -3
for h in h10 h1; do
  load "$h: checkpoint + compact, each binary its own copy"
  rm -rf "${h}o" "${h}n"
  for x in o n; do
    cp -al "$h" "$h$x" && rm -r "$h$x/.hipo" && cp -a "$h/.hipo" "$h$x/"
    # today's raw log written by an earlier run: a copy, not a shared inode
    [ -f "$h/memory/$HIPO_TODAY.md" ] && cp --remove-destination "$h/memory/$HIPO_TODAY.md" "$h$x/memory/"
  done
  ROUNDS=15 python3 "$here/interleave.py" "${h}o" "$OLD=${h}o" "$NEW=${h}n" | tail -3
done
load "ten years: first index build, peak RSS"
for b in "$OLD" "$NEW"; do
  rm -rf h10n/.hipo/index
  /usr/bin/time -f "$b: %e s, %U s user, %M KiB peak" "$b" --dir h10n index >/dev/null
done
load done
