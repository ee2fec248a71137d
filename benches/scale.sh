#!/usr/bin/env bash
# Scale: hipo on 3 months, 1 year and 10 years of synthetic history, side
# by side in one run (examples/gen-history.rs writes the history; a day is
# ~140 KB, 10 years ~500 MB). For each size:
#   full build       compact + index from scratch (one run: /usr/bin/time)
#   no-op compact    hyperfine, nothing changed
#   append+compact   `hipo checkpoint` of one entry then `compact` (hyperfine)
#   search           whole process, several queries (hyperfine; p50/p99 of all runs)
#   CPU time         user + system, mean (hyperfine): what the wall clock
#                    would be on an idle machine, short of I/O waits
#   peak RSS         of each ("Maximum resident set size", /usr/bin/time -v)
#   index size       du of .hipo/index and .hipo
# then writes $out/scale.json, a markdown table ($out/scale.md) and an SVG
# plot ($out/scale.svg) with benches/scale_report.py.
#
# Usage: benches/scale.sh [out-dir]        (default: benches/results)
#   DAYS="90 365 3650" RUNS=20 WORK=/tmp/scale benches/scale.sh
#   HIPO_BIN=/path/to/other/hipo benches/scale.sh /tmp/other   (another build, to compare)
# Needs hyperfine, python3, GNU time and a release build (built if missing: rebuild it
# yourself after a change).
# The work directory (~3x the history on disk) is removed on exit unless
# WORK is given.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$here/benches/results}
days_list=${DAYS:-90 365 3650}
runs=${RUNS:-20}
end=2026-11-24
today=2026-11-25
mkdir -p "$out"
if [ -n "${WORK:-}" ]; then work=$WORK; mkdir -p "$work"; else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
# Built only if missing: building the example enables dev-dependencies
# features, so `cargo build --release` after it relinks hipo (minutes here).
[ -x "$here/target/release/hipo" ] || (cd "$here" && cargo build --release -q --bin hipo)
[ -x "$here/target/release/examples/gen-history" ] ||
  (cd "$here" && cargo build --release -q --example gen-history)
cp "${HIPO_BIN:-$here/target/release/hipo}" "$work/hipo"
hipo=$work/hipo
gen=$here/target/release/examples/gen-history
export NO_COLOR=1 HIPO_TODAY=$today
queries=(
  "postgres migration rollback"
  "what did Mina decide about the billing worker?"
  "connection pool exhaustion"
  "sourdough"
  "검색 인덱스"
  "p99 latency kafka"
)

# seconds and peak KiB of one run: "secs kib"
timed() {
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > /dev/null 2> "$work/stderr.txt" ||
    { cat "$work/stderr.txt" >&2; return 1; }
  cat "$work/time.txt"
}
peak() { timed "$@" | cut -d' ' -f2; }

results=$work/results.jsonl
: > "$results"
for days in $days_list; do
  d=$work/h$days
  rm -rf "$d"
  "$gen" --dir "$d" --days "$days" --end "$end" --seed 1 2> /dev/null
  corpus=$(du -sb "$d/memory" | cut -f1)
  echo "== $days days: $corpus bytes of raw logs" >&2
  h() { echo "$hipo --dir $d $*"; }

  read -r c_s c_kb < <(timed $(h compact))
  read -r i_s i_kb < <(timed $(h index))
  echo "   full build: compact ${c_s}s ${c_kb}KiB, index ${i_s}s ${i_kb}KiB" >&2

  hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/noop.json" "$(h compact)" > /dev/null
  noop_kb=$(peak $(h compact))

  append="$(h checkpoint --type project --topic "'Scale bench entry'" -f outcome=appended) && $(h compact)"
  hyperfine --warmup 1 --runs "$runs" --export-json "$work/append.json" "$append" > /dev/null
  ck_kb=$(peak "$hipo" --dir "$d" checkpoint --type project --topic 'Scale bench entry' -f outcome=appended)
  ac_kb=$(peak $(h compact))

  cmds=()
  for q in "${queries[@]}"; do cmds+=("$(h search "'$q'")"); done
  "$hipo" --dir "$d" search warmup > /dev/null
  hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/search.json" "${cmds[@]}" > /dev/null
  search_kb=$(peak "$hipo" --dir "$d" search "${queries[0]}")

  python3 - "$days" "$corpus" "$c_s" "$c_kb" "$i_s" "$i_kb" "$noop_kb" "$ck_kb" "$ac_kb" "$search_kb" \
    "$(du -sb "$d/.hipo/index" | cut -f1)" "$(du -sb "$d/.hipo" | cut -f1)" \
    "$work/noop.json" "$work/append.json" "$work/search.json" >> "$results" <<'EOS'
import json, statistics, sys
a = sys.argv[1:]
def times(path):
    return sorted(t for r in json.load(open(path))["results"] for t in r["times"])
def cpu(path):
    """Mean user + system CPU of a run, over the commands: on a shared
    machine the wall clock also counts the wait for a core."""
    rs = json.load(open(path))["results"]
    return sum(r["user"] + r["system"] for r in rs) / len(rs) * 1000
def pct(ts, p):
    return ts[min(len(ts) - 1, round(p / 100 * (len(ts) - 1)))] * 1000
noop, append, search = times(a[12]), times(a[13]), times(a[14])
print(json.dumps({
    "days": int(a[0]), "corpus_bytes": int(a[1]),
    "build_s": float(a[2]) + float(a[4]), "compact_build_s": float(a[2]), "index_build_s": float(a[4]),
    "build_kib": max(int(a[3]), int(a[5])), "compact_build_kib": int(a[3]), "index_build_kib": int(a[5]),
    "noop_ms": statistics.median(noop) * 1000, "noop_kib": int(a[6]),
    "append_ms": statistics.median(append) * 1000, "append_kib": max(int(a[7]), int(a[8])),
    "search_p50_ms": pct(search, 50), "search_p99_ms": pct(search, 99), "search_runs": len(search),
    "search_kib": int(a[9]),
    "noop_cpu_ms": cpu(a[12]), "append_cpu_ms": cpu(a[13]), "search_cpu_ms": cpu(a[14]), "index_bytes": int(a[10]), "hipo_bytes": int(a[11]),
}))
EOS
  tail -1 "$results" >&2
  [ -n "${KEEP:-}" ] || rm -rf "$d"
done
python3 "$here/benches/scale_report.py" "$results" "$out"
