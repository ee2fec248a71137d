#!/usr/bin/env python3
"""The prompt hook on a stale index, one at a time, for several hipo
binaries side by side (issue 28.5): each binary gets its own copy of the
MemAware corpus (indexed by it); the project lock is held from Python and
a raw log appended to, as a compaction would leave it, then 12 MemAware
questions are asked through `hipo hook claude-code prompt` with
HIPO_TIMINGS=1, ROUNDS times, alternating binaries. Prints the hook's
wall time and the `hits` step per binary.

Usage: ROUNDS=2 python3 benches/hooks_stale.py BIN [BIN ...]
  (MemAware at /work/shared/data/memaware-sessions; copies in /tmp)
"""
import fcntl, json, os, re, shutil, subprocess, sys, statistics, time
CORPUS = "/work/shared/data/memaware-sessions"
qs = [json.loads(l).get("query") for l in open("/work/shared/data/memaware-dev/dev.jsonl")]
qs = [q for q in qs if q][:12]
res = {}
for b in sys.argv[1:]:
    p = f"/tmp/hooks_stale_{os.path.basename(b)}"
    if not os.path.exists(p):
        os.makedirs(f"{p}/memory")
        for f in os.listdir(CORPUS):
            if f.startswith("20"):
                shutil.copy(f"{CORPUS}/{f}", f"{p}/memory/{f}")
        subprocess.run([b, "--dir", p, "index"], check=True, capture_output=True)
    res[b] = (p, [], [])
locks = {}
for b, (p, _, _) in res.items():
    fd = os.open(f"{p}/.hipo/lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    locks[b] = fd
    with open(f"{p}/memory/2023-06-30.md", "a") as f:
        f.write("\n## Stale entry [project]\n- outcome: stale\n")
env = dict(os.environ, HIPO_TIMINGS="1")
for r in range(int(os.environ.get("ROUNDS", "3"))):
    for q in qs:
        for b, (p, wall, hits) in res.items():
            stdin = json.dumps({"session_id": "x", "cwd": p, "hook_event_name": "UserPromptSubmit", "prompt": q})
            t = time.perf_counter()
            out = subprocess.run([b, "hook", "claude-code", "prompt"], input=stdin.encode(), env=env, cwd=p, capture_output=True)
            wall.append((time.perf_counter() - t) * 1000)
            m = re.findall(r"hits[^\n]*?([\d.]+)\s*ms", out.stderr.decode())
            if m: hits.append(float(m[-1]))
for b, (p, wall, hits) in res.items():
    s = sorted(wall)
    print(f"{os.path.basename(b)}: wall p50 {statistics.median(s):.1f} p95 {s[int(len(s)*.95)-1]:.1f} ms; hits p50 {statistics.median(hits) if hits else float('nan'):.1f} ms (n={len(s)})")
