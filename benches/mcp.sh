#!/usr/bin/env bash
# `hipo mcp` cold-start timings on the MemAware corpus: a new process per
# run, timed by a Python client from spawn to the answer (initialize, and
# initialize + the first search). The index is built once beforehand.
#
# Usage: benches/mcp.sh [corpus-dir] [runs]   (default runs: 200)
# Needs python3 and a release build (built if missing).
set -euo pipefail
source "$(dirname "$0")/setup.sh"
"$hipo" --dir "$work/p" index >/dev/null
echo "corpus: $(ls "$work/p/memory" | wc -l) day files, $(du -sb "$work/p/memory" | cut -f1) bytes; index built"
python3 "$here/benches/mcp_timing.py" "$hipo" "$work/p" "${2:-200}"
