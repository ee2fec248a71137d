# Sourced by the whole-process bench scripts: a temp project holding the
# MemAware corpus (or the directory given as $1) and a copy of the release
# binary, built if missing. Sets $here, $work and $hipo; removes $work on exit.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$here/../shared/data/memaware-sessions}
hipo=$here/target/release/hipo
[ -x "$hipo" ] || (cd "$here" && cargo build --release -q)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Run a copy, as `cargo install` would place it: cargo's hard-linked build
# output in target/ starts measurably slower (~0.5 ms a process here).
cp "$hipo" "$work/hipo" && hipo=$work/hipo
mkdir -p "$work/p/memory"
cp "$corpus"/20*.md "$work/p/memory/"
