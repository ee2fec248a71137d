#!/usr/bin/env bash
# The hostile trees at full size, on the release binary (tests/hostile.rs
# runs them small): a 200 MB raw log, a 10 MB single line, 10k nested
# headings, YAML bombs in frontmatter. For each: compact, then the first
# search (which builds the index), with exit code, wall time and peak RSS
# (GNU time). SIZE_MB=200 LINE_MB=10 HEADINGS=10000 change the sizes.
# Usage: benches/hostile.sh   (needs python3, /usr/bin/time, a release build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
hipo=${HIPO_BIN:-$here/target/release/hipo}
[ -x "$hipo" ] || (cd "$here" && cargo build --release -q)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$hipo" "$work/hipo" && hipo=$work/hipo
export NO_COLOR=1
size_mb=${SIZE_MB:-200}
line_mb=${LINE_MB:-10}
headings=${HEADINGS:-10000}

# Writes the four trees under $work/{log,line,headings,bombs}.
python3 - "$work" "$size_mb" "$line_mb" "$headings" <<'PY'
import os, random, sys
w, size_mb, line_mb, headings = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for d in ("log", "line", "headings", "bombs"):
    os.makedirs(f"{w}/{d}/memory", exist_ok=True)
    os.makedirs(f"{w}/{d}/knowledge", exist_ok=True)
quiet = "# 2026-01-05\n\n## Work [project]\n- a quiet day\n"
random.seed(11)
words = ("postgres cutover replica kayak garden budget recipe deploy rollback travel "
         "shard index release review metric alert the a of to and in").split()
with open(f"{w}/log/memory/2026-01-06.md", "w") as f:
    f.write("# 2026-01-06\n")
    n, i = 0, 0
    while n < size_mb << 20:
        body = "".join("- " + " ".join(random.choices(words, k=14)) + "\n" for _ in range(6))
        s = f"\n## Entry {i} [project]\n{body}"
        f.write(s); n += len(s); i += 1
    f.write("\n## Last entry [project]\n- the wombat migration closed\n")
with open(f"{w}/line/memory/2026-01-06.md", "w") as f:
    f.write("# 2026-01-06\n\n")
    n, k = 0, 0
    while n < line_mb << 20:
        s = f"token{k} "; f.write(s); n += len(s); k += 1
    f.write("wombat\n")
with open(f"{w}/headings/knowledge/headings.md", "w") as f:
    for i in range(headings):
        f.write(f"{'#' * (1 + i % 6)} heading {i}\n\nnote {i} about the wombat\n\n")
lol = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
for p, c in zip("abcdefgh", "bcdefghi"):
    lol.append(f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]")
open(f"{w}/bombs/knowledge/laughs.md", "w").write(
    "---\n" + "\n".join(lol) + "\ntopics: *i\n---\n# Laughs\n\nthe wombat laughs\n")
open(f"{w}/bombs/knowledge/deep.md", "w").write(
    "---\ntopics: " + "[" * 100000 + "]" * 100000 + "\n---\n# Deep\n\nthe wombat dives\n")
for d in ("line", "headings", "bombs"):
    open(f"{w}/{d}/memory/2026-01-05.md", "w").write(quiet)
PY
ls -l "$work/log/memory/2026-01-06.md" "$work/line/memory/2026-01-06.md" \
  | awk '{printf "%-50s %7.1f MB\n", $NF, $5/1048576}' | sed "s|$work/||"

measure() { # name, args…
  local name=$1; shift
  local code=0
  /usr/bin/time -f "%e %M %U" -o "$work/time" "$hipo" "$@" > "$work/out" 2> "$work/err" || code=$?
  tail -1 "$work/time" | awk -v n="$name" -v c="$code" \
    '{ printf "%-28s exit %d  %8.2f s (user %6.2f s)  %8.1f MB peak RSS\n", n, c, $1, $3, $2 / 1024 }'
  if grep -q panicked "$work/err"; then echo "  PANIC: $(grep panicked "$work/err")"; fi
}
for d in log line headings bombs; do
  measure "$d: compact" --dir "$work/$d" compact --today 2026-02-20
  measure "$d: first search" --dir "$work/$d" search wombat -n 3
  grep -q wombat "$work/out" || echo "  $d: the search did not find the last words"
  measure "$d: next search" --dir "$work/$d" search wombat -n 3
done
