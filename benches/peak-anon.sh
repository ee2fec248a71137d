#!/usr/bin/env bash
# Peak anonymous and file-backed resident memory of a command, sampled
# from /proc/PID/status every 50 ms (GNU time's peak RSS counts the
# index's memory-mapped files with the heap).
# Usage: benches/peak-anon.sh COMMAND ARGS…   e.g.
#   rm -rf DIR/.hipo && benches/peak-anon.sh target/release/hipo --dir DIR search wombat
"$@" >/dev/null 2>&1 &
pid=$!
anon=0; file=0
while kill -0 "$pid" 2>/dev/null; do
  if read -r a f < <(awk '/^RssAnon/{a=$2} /^RssFile/{f=$2} END{print a+0, f+0}' "/proc/$pid/status" 2>/dev/null); then
    [ "$a" -gt "$anon" ] && anon=$a
    [ "$f" -gt "$file" ] && file=$f
  fi
  sleep 0.05
done
wait "$pid"; code=$?
echo "exit $code  peak anonymous $((anon / 1024)) MiB  peak file-backed $((file / 1024)) MiB"
