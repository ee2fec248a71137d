#!/usr/bin/env bash
# Redaction speed before and after a change, side by side in one run.
#
#   benches/redact.sh OLD_TREE [ROUNDS]
#
# OLD_TREE is a checkout of the older revision holding the same
# benches/redact.rs, tests/data/*.tsv and a `redact::build_rule_set`
# (e.g. `git archive REV | tar -x -C /tmp/old`, then copy those in).
# Each side's bench is built into this tree's target/ (only hipo is
# rebuilt; the sources are touched first, since both trees share the
# artifacts' names) and copied aside; the two copies then run alternately
# ROUNDS times (default 3), so both see the machine's load alike. It
# prints each round's criterion medians (ms) and the ratio new/old.
set -euo pipefail
new=$(cd "$(dirname "$0")/.." && pwd)
old=$(cd "${1:?usage: benches/redact.sh OLD_TREE [ROUNDS]}" && pwd)
rounds=${2:-3}
export CARGO_TARGET_DIR="$new/target"
export HIPO_BENCH_CORPUS="${HIPO_BENCH_CORPUS:-$new/../shared/data/memaware-sessions}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for side in old new; do
  dir=${!side}
  touch "$dir"/src/lib.rs "$dir"/src/redact/*.rs
  exe=$(cd "$dir" && cargo bench --bench redact --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "redact" and m.get("executable"):
        print(m["executable"])')
  cp "$exe" "$work/bench-$side"
done

median() { # a bench's median (ms) from criterion's last run
  python3 -c "import json,sys; print('%.2f' % (json.load(open(sys.argv[1]))['median']['point_estimate']/1e6))" \
    "$work/criterion/redact/$1/new/estimates.json"
}
printf '%-6s %-16s %9s %9s %6s\n' round bench old new ratio
for r in $(seq "$rounds"); do
  declare -A m=()
  for side in old new; do
    (cd "$work" && CARGO_TARGET_DIR="$work" "$work/bench-$side" --bench --noplot >/dev/null 2>&1)
    for b in memaware secrets_corpus build_rule_set; do m[$side.$b]=$(median "$b"); done
  done
  for b in memaware secrets_corpus build_rule_set; do
    python3 -c "import sys; o,n=map(float,sys.argv[3:]); print('%-6s %-16s %9.2f %9.2f %6.2f' % (sys.argv[1],sys.argv[2],o,n,n/o))" \
      "$r" "$b" "${m[old.$b]}" "${m[new.$b]}"
  done
done
