#!/usr/bin/env bash
# Lock waits under load: PROCS hipo processes at once (checkpoints, compact,
# index, status, searches), ROUNDS times, while the "platform" appends to
# today's log without the lock, on the MemAware corpus (or the directory
# given as $1) with its tree built. Every lock reports its wait and hold
# (HIPO_LOCK_TRACE=1); prints p50/p90/p99/max per command, the failures
# (must be 0) and checks that no entry was lost or doubled.
# Usage: PROCS=16 ROUNDS=10 benches/concurrency.sh [corpus-dir]   (python3, a release build)
set -euo pipefail
source "$(dirname "$0")/setup.sh"
procs=${PROCS:-16}
rounds=${ROUNDS:-10}
today=2023-07-15
export NO_COLOR=1 HIPO_TODAY=$today HIPO_LOCK_WAIT=120 HIPO_LOCK_TRACE=1
p=$work/p
"$hipo" --dir "$p" compact > /dev/null 2>&1
"$hipo" --dir "$p" index > /dev/null 2>&1
echo "corpus: $(ls "$p/memory"/20*.md | wc -l) raw logs; $procs processes x $rounds rounds"
mkdir -p "$work/err"
queries=("postgres cutover" "camping trip" "budget review" "which recipe did I try" "deploy rollback")
job() { # round, slot
  local r=$1 i=$2 out=$work/err/$1-$2
  case $((i % 5)) in
    0) echo checkpoint > "$out.cmd"
       "$hipo" --dir "$p" checkpoint --type project --topic "Round $r slot $i" -f "outcome=mark-$r-$i" ;;
    1) echo search > "$out.cmd"
       "$hipo" --dir "$p" --json search "${queries[$(((r + i) % 5))]}" ;;
    2) if [ $((i % 2)) = 0 ]; then echo compact > "$out.cmd"; "$hipo" --dir "$p" compact
       else echo index > "$out.cmd"; "$hipo" --dir "$p" index; fi ;;
    3) echo status > "$out.cmd"
       "$hipo" --dir "$p" --json status ;;
    4) echo search > "$out.cmd"
       "$hipo" --dir "$p" --json search "round $r" ;;
  esac > /dev/null 2> "$out.err" || echo "$?" > "$out.fail"
}
start=$(date +%s.%N)
for r in $(seq 1 "$rounds"); do
  ( for k in $(seq 1 20); do echo "- platform line $r-$k" >> "$p/memory/$today.md"; done ) &
  for i in $(seq 0 $((procs - 1))); do job "$r" "$i" & done
  wait
done
end=$(date +%s.%N)
python3 - "$work/err" "$p/memory/$today.md" "$procs" "$rounds" "$start" "$end" <<'PY'
import glob, math, os, re, sys
d, log, procs, rounds, start, end = sys.argv[1:]
procs, rounds = int(procs), int(rounds)
waits, holds, fails = {}, [], []
for err in sorted(glob.glob(f"{d}/*.err")):
    base = err[:-4]
    cmd = open(base + ".cmd").read().strip()
    if os.path.exists(base + ".fail"):
        fails.append((os.path.basename(base), cmd, open(base + ".fail").read().strip(), open(err).read()[-300:]))
    for m in re.finditer(r"^hipo: lock waited_ms=([\d.]+) held_ms=([\d.]+)$", open(err).read(), re.M):
        waits.setdefault(cmd, []).append(float(m.group(1)))
        holds.append(float(m.group(2)))
def pct(v):
    v = sorted(v)
    at = lambda q: v[max(1, math.ceil(q * len(v))) - 1]  # nearest rank
    return f"n={len(v):4d}  p50={at(.5):8.1f}  p90={at(.9):8.1f}  p99={at(.99):8.1f}  max={v[-1]:8.1f} ms"
print(f"wall time: {float(end) - float(start):.1f} s")
print(f"lock waits, all         {pct([w for v in waits.values() for w in v])}")
for cmd in sorted(waits):
    print(f"lock waits, {cmd:12s}{pct(waits[cmd])}")
print(f"lock holds, all         {pct(holds)}")
text = open(log).read()
lost = [f"{r}-{i}" for r in range(1, rounds + 1) for i in range(0, procs, 5)
        if text.count(f"- outcome: mark-{r}-{i}\n") != 1]
lost += [f"platform {r}-{k}" for r in range(1, rounds + 1) for k in range(1, 21)
         if text.count(f"- platform line {r}-{k}\n") != 1]
print(f"failed processes: {len(fails)}; entries lost or doubled: {len(lost)}")
for f in fails[:5]:
    print("  ", *f)
sys.exit(1 if fails or lost else 0)
PY
