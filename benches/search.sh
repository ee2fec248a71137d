#!/usr/bin/env bash
# Whole-process search timings on the MemAware corpus, and qmd side by side
# in the same hyperfine runs when QMD names a qmd command.
#
# Usage: benches/search.sh [corpus-dir]
#   QMD=/path/to/qmd benches/search.sh     # also measure qmd (state kept in a temp HOME)
# Needs hyperfine, python3 and a release build (built if missing).
set -euo pipefail
source "$(dirname "$0")/setup.sh"
export NO_COLOR=1 HIPO_DIR=$work/p
queries=(
  "which national park did I camp in alone?"
  "what breakfast did I freeze on Saturday morning?"
  "what online course have I been taking for two weeks?"
  "which book club discussion had I just finished?"
  "how long was my drive to Washington DC?"
  "what did I name my new puppy?"
  "camping"
  "kayak"
)
qmd_on() { [ -n "${QMD:-}" ]; }
if qmd_on; then
  export HOME=$work/qmdhome XDG_CACHE_HOME=$work/qmdhome/cache XDG_CONFIG_HOME=$work/qmdhome/config
fi
median() {
  python3 - "$@" <<'EOS'
import json, statistics, sys
for path in sys.argv[1:]:
    results = json.load(open(path))["results"]
    groups = {}
    for r in results:
        groups.setdefault(r["command"].split(":")[0], []).extend(r["times"])
    for tool, times in groups.items():
        print(f"  {tool}: median {statistics.median(times)*1000:.1f} ms over {len(times)} runs")
EOS
}

echo "corpus: $(ls "$work/p/memory" | wc -l) day files, $(du -sb "$work/p/memory" | cut -f1) bytes"

echo "== full index build"
cmds=(-n hipo "$hipo index")
qmd_on && cmds+=(-n qmd "$QMD collection add $work/p/memory --name mem")
hyperfine -N --runs 5 --prepare "rm -rf $work/p/.hipo ${XDG_CACHE_HOME:-$work/none} ${XDG_CONFIG_HOME:-$work/none}" \
  --export-json "$work/build.json" "${cmds[@]}" > /dev/null
median "$work/build.json"

echo "== index size"
"$hipo" index > /dev/null
echo "  hipo: $(du -sb "$work/p/.hipo/index" | cut -f1) bytes ($(python3 -c "print(round($(du -sb "$work/p/.hipo/index" | cut -f1)/$(du -sb "$work/p/memory" | cut -f1),2))")x the corpus)"
if qmd_on; then
  db=$XDG_CACHE_HOME/qmd/index.sqlite
  echo "  qmd: $(stat -c %s "$db") bytes ($(python3 -c "print(round($(stat -c %s "$db")/$(du -sb "$work/p/memory" | cut -f1),2))")x)"
fi

echo "== search, whole fresh process, 10 results with snippets (p50 over ${#queries[@]} queries)"
cmds=()
for q in "${queries[@]}"; do
  cmds+=(-n "hipo: $q" "$hipo search '$q'")
  qmd_on && cmds+=(-n "qmd: $q" "$QMD search '$q' -n 10")
done
hyperfine -N --warmup 3 --runs 15 --export-json "$work/search.json" "${cmds[@]}" > /dev/null
median "$work/search.json"

echo "== peak memory of one search"
/usr/bin/time -f "  hipo: %M KB peak RSS" "$hipo" search "${queries[0]}" > /dev/null
qmd_on && /usr/bin/time -f "  qmd: %M KB peak RSS" $QMD search "${queries[0]}" > /dev/null

echo "== one appended entry, picked up by the next search (append untimed)"
cat > "$work/append.sh" <<EOS
#!/bin/sh
printf '\n## Session bench-%s [project]\nUser: I finally bought a kayak for the lake trips.\nAssistant: Great.\n' "\$(date +%s%N)" >> "$work/p/memory/2023-06-30.md"
EOS
chmod +x "$work/append.sh"
cmds=(-n hipo "$hipo search kayak")
qmd_on && cmds+=(-n qmd "sh -c '$QMD update >/dev/null && $QMD search kayak'")
hyperfine -N --warmup 3 --runs 40 --prepare "$work/append.sh" --export-json "$work/append.json" "${cmds[@]}" > /dev/null
median "$work/append.json"

if qmd_on; then
  echo "== file-level retrieval on fixtures/eval/memaware.jsonl (right day file in the top 10)"
  python3 - "$here/fixtures/eval/memaware.jsonl" "$hipo" "$QMD" <<'EOS'
import json, shlex, subprocess, sys
fixture, hipo, qmd = sys.argv[1], sys.argv[2], shlex.split(sys.argv[3])
cases = [json.loads(l) for l in open(fixture) if l.strip()]
def files(cmd):
    # hipo --files prints paths; qmd --files prints `#docid,score,qmd://coll/path`.
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return [l.strip().split(",")[-1].split("/")[-1] for l in out.splitlines() if l.strip()]
stats = {"hipo": [0, 0], "qmd": [0, 0]}
for c in cases:
    want = {e.split(":")[0].split("/")[-1] for e in c["expected"]}
    for tool, cmd in [("hipo", [hipo, "search", c["query"], "--files", "-n", "10"]),
                      ("qmd", qmd + ["search", c["query"], "-n", "10", "--files"])]:
        got = files(cmd)
        stats[tool][0] += bool(want & set(got))
        stats[tool][1] += not got
for tool, (found, empty) in stats.items():
    print(f"  {tool}: {found}/{len(cases)} found ({found/len(cases):.0%}), {empty} returned nothing ({empty/len(cases):.0%})")
EOS
fi
