#!/usr/bin/env python3
"""The prompt hook's latency while compactions run, for several hipo
binaries side by side in one run (issue 28.5).

Each binary gets its own copy of the MemAware corpus (compacted and
indexed by it). For each, a background loop appends an entry (so the
index is stale) and runs a model-backed `compact` against a fake Ollama
that answers each summary after DELAY seconds, so a compaction holds the
project lock for seconds as a real model's does. Meanwhile, round after
round and binary after binary, 8 prompt hooks (`hipo hook claude-code
prompt`, a MemAware question each) fire at once; each is timed as a whole
process. Prints p50 / p95 / max per binary, and how many hooks ran while
a compaction held the lock.

Usage: benches/hooks_under_compaction.py BIN [BIN ...]
  ROUNDS=15 DELAY=0.5 MEMAWARE=../shared/data/memaware-sessions
Needs python3 only (stdlib).
"""
import http.server
import json
import os
import shutil
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get(
    "MEMAWARE", os.path.join(HERE, "..", "..", "shared", "data", "memaware-sessions"))
DEV = os.path.join(os.path.dirname(CORPUS), "memaware-dev", "dev.jsonl")
TODAY = "2023-07-15"
DELAY = float(os.environ.get("DELAY", "0.5"))
ROUNDS = int(os.environ.get("ROUNDS", "15"))
HOOKS = 8


class Fake(http.server.BaseHTTPRequestHandler):
    """Ollama's routes hipo calls; every summary takes DELAY seconds."""

    def log_message(self, *args):
        pass

    def answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/api/tags":
            self.answer({"models": [{"name": "fake:latest", "size": 1,
                                     "modified_at": "2026-01-01T00:00:00Z"}]})
        else:
            self.answer({"version": "0.0.0-fake"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        time.sleep(DELAY)
        self.answer({"model": "fake", "response": "- a summary", "done": True,
                     "done_reason": "stop", "prompt_eval_count": 100, "eval_count": 5})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def questions():
    out = []
    with open(DEV) as f:
        for line in f:
            q = json.loads(line).get("query")
            if q:
                out.append(q)
    return out or ["what did we decide about the database migration?"]


def setup(binary, work, name, env):
    p = os.path.join(work, name)
    os.makedirs(os.path.join(p, "memory"))
    for f in os.listdir(CORPUS):
        if f.startswith("20") and f.endswith(".md"):
            shutil.copy(os.path.join(CORPUS, f), os.path.join(p, "memory", f))
    for args in (["compact"], ["index"]):
        subprocess.run([binary, "--dir", p, *args], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p


def compactions(binary, p, env, stop, state):
    """Appends and compacts with the slow model until `stop` is set;
    `state["running"]` is true while a compaction runs."""
    n = 0
    while not stop.is_set():
        n += 1
        subprocess.run([binary, "--dir", p, "checkpoint", "--type", "project", "--topic",
                        f"Bench entry {n}", "-f", f"outcome=entry {n} of the bench"],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        state["running"] = True
        start = time.perf_counter()
        subprocess.run([binary, "--dir", p, "compact", "--llm", "ollama", "--model", "fake"],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        state["running"] = False
        state["runs"].append(time.perf_counter() - start)


def hook(binary, p, prompt, env, state):
    stdin = json.dumps({"session_id": "bench", "cwd": p,
                        "hook_event_name": "UserPromptSubmit", "prompt": prompt})
    during = state["running"]
    start = time.perf_counter()
    out = subprocess.run([binary, "hook", "claude-code", "prompt"], input=stdin.encode(),
                         env=env, cwd=p, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    end = time.perf_counter()
    return end - start, out.returncode, during


def pct(v, q):
    v = sorted(v)
    return v[max(1, -(-len(v) * q // 100)) - 1]


def main():
    bins = [os.path.abspath(b) for b in sys.argv[1:]]
    if not bins:
        sys.exit(__doc__)
    server = Server(("127.0.0.1", 0), Fake)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ, NO_COLOR="1", HIPO_TODAY=TODAY,
               OLLAMA_HOST=f"http://127.0.0.1:{server.server_address[1]}")
    env.pop("HIPO_DIR", None)
    qs = questions()
    work = tempfile.mkdtemp()
    try:
        projects = [setup(b, work, f"p{i}", env) for i, b in enumerate(bins)]
        stop = threading.Event()
        states = [{"running": False, "runs": []} for _ in bins]
        loops = [threading.Thread(target=compactions, args=(b, p, env, stop, st), daemon=True)
                 for b, p, st in zip(bins, projects, states)]
        for t in loops:
            t.start()
        time.sleep(2)
        times = [[] for _ in bins]
        during = [0 for _ in bins]
        failed = [0 for _ in bins]
        for r in range(ROUNDS):
            for i, (b, p, st) in enumerate(zip(bins, projects, states)):
                runs = []
                threads = [threading.Thread(target=lambda k=k: runs.append(
                    hook(b, p, qs[(r * HOOKS + k) % len(qs)], env, st)))
                    for k in range(HOOKS)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                for took, code, busy in runs:
                    times[i].append(took * 1000)
                    failed[i] += code != 0
                    during[i] += busy
        stop.set()
        for t in loops:
            t.join()
        print(f"{ROUNDS} rounds x {HOOKS} hooks at once, model delay {DELAY} s, "
              f"load {os.getloadavg()[0]:.1f}")
        for i, b in enumerate(bins):
            v = times[i]
            print(f"{b}: p50 {statistics.median(v):7.1f}  p95 {pct(v, 95):7.1f}  "
                  f"max {max(v):7.1f} ms  (n={len(v)}, failed {failed[i]}, "
                  f"compactions {len(states[i]['runs'])}, median "
                  f"{statistics.median(states[i]['runs'] or [0]):.1f} s; "
                  f"hooks started during one {during[i]})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
