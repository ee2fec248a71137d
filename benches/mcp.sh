#!/usr/bin/env bash
# `hipo mcp` cold-start timings on the MemAware corpus: a new process per
# run, timed by a Python client from spawn to the answer (initialize, and
# initialize + the first search). The index is built once beforehand.
#
# Usage: benches/mcp.sh [corpus-dir] [runs]   (default runs: 200)
#   QMD=/path/to/qmd benches/mcp.sh     # also time `qmd mcp` (state kept in a temp HOME; a fifth of the runs)
# Needs python3 and a release build (built if missing).
set -euo pipefail
source "$(dirname "$0")/setup.sh"
"$hipo" --dir "$work/p" index >/dev/null
if [ -n "${QMD:-}" ]; then
  export HOME=$work/qmdhome XDG_CACHE_HOME=$work/qmdhome/cache XDG_CONFIG_HOME=$work/qmdhome/config
  $QMD collection add "$work/p/memory" --name mem >/dev/null
  $QMD update >/dev/null
  echo "qmd: $($QMD --version), $($QMD search kayak -n 10 --files | wc -l) files for 'kayak'"
fi
echo "corpus: $(ls "$work/p/memory" | wc -l) day files, $(du -sb "$work/p/memory" | cut -f1) bytes; index built"
python3 "$here/benches/mcp_timing.py" "$hipo" "$work/p" "${2:-200}"
