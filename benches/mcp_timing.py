#!/usr/bin/env python3
"""Whole-process timings of `hipo mcp`, as a client sees them.

For each run a fresh `hipo mcp` process is spawned (stdin and stdout
pipes, as every MCP client starts a stdio server) and the clock runs
from just before the spawn until the answer's line is read:

- initialize: the `initialize` response;
- first search: `initialize`, `notifications/initialized`, then a
  `tools/call` of `search`, until the search's response (a cold start:
  a new process, the index on disk already built);
- spawn floor: `hipo --version` to its exit, the cost of starting any
  process of this binary from Python, for scale.

With QMD set to a qmd command (its collection already indexed, its
state in the environment), `qmd mcp` is timed the same way, interleaved:
its `query` tool with one `lex` (BM25) search and `rerank: false`, the
closest match to hipo's search that loads no model.

Usage: mcp_timing.py HIPO PROJECT_DIR [RUNS]
Prints medians (and p10/p90) in milliseconds.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

hipo, project = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 200
queries = [
    "which national park did I camp in alone?",
    "what breakfast did I freeze on Saturday morning?",
    "what online course have I been taking for two weeks?",
    "which book club discussion had I just finished?",
    "how long was my drive to Washington DC?",
    "what did I name my new puppy?",
    "camping",
    "kayak",
]
env = dict(os.environ, NO_COLOR="1")
env.pop("HIPO_DIR", None)
INIT = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bench", "version": "0"}},
}) + "\n"
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"


def call(tool, arguments):
    return json.dumps({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }) + "\n"


HIPO = ([hipo, "--dir", project, "mcp"], lambda q: call("search", {"query": q, "limit": 10}))
QMD = None
if os.environ.get("QMD"):
    QMD = (shlex.split(os.environ["QMD"]) + ["mcp"],
           lambda q: call("query", {"searches": [{"type": "lex", "query": q}],
                                    "limit": 10, "rerank": False}))


def spawn(cmd):
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, bufsize=0)


def read_answer(p, want_id):
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit(f"hipo mcp closed stdout before answering id {want_id}")
        msg = json.loads(line)
        if msg.get("id") == want_id:
            return msg


def end(p):
    p.stdin.close()
    if p.wait(timeout=10) != 0:
        raise SystemExit(f"hipo mcp exited {p.returncode}")


def one_initialize(server=HIPO):
    t0 = time.perf_counter()
    p = spawn(server[0])
    p.stdin.write(INIT.encode())
    read_answer(p, 1)
    t = time.perf_counter() - t0
    end(p)
    return t


def one_search(q, server=HIPO):
    t0 = time.perf_counter()
    p = spawn(server[0])
    p.stdin.write((INIT + INITIALIZED + server[1](q)).encode())
    read_answer(p, 1)
    answer = read_answer(p, 2)
    t = time.perf_counter() - t0
    end(p)
    if "error" in answer or answer["result"].get("isError"):
        raise SystemExit(f"{server[0][0]}: the search of {q!r} failed: {answer}")
    if server is HIPO and not answer["result"]["structuredContent"]["hits"]:
        raise SystemExit(f"no hits for {q!r}: {answer}")
    return t


def one_version():
    t0 = time.perf_counter()
    subprocess.run([hipo, "--version"], stdout=subprocess.DEVNULL, env=env, check=True)
    return time.perf_counter() - t0


def report(name, times):
    ms = sorted(t * 1000 for t in times)
    q = statistics.quantiles(ms, n=10)
    print(f"{name:<28} median {statistics.median(ms):6.2f} ms   p10 {q[0]:6.2f}   p90 {q[-1]:6.2f}   ({len(ms)} runs)")


# Warm the page cache and the index once.
one_search("kayak")
qmd_runs = max(runs // 5, 10)
if QMD:
    one_search("kayak", QMD)
version, init, first, qinit, qfirst = [], [], [], [], []
for i in range(runs):
    # Interleaved, so all share the machine's state.
    version.append(one_version())
    init.append(one_initialize())
    first.append(one_search(queries[i % len(queries)]))
    if QMD and i < qmd_runs:
        qinit.append(one_initialize(QMD))
        qfirst.append(one_search(queries[i % len(queries)], QMD))
report("spawn floor (hipo --version)", version)
report("initialize answered", init)
report("first search answered", first)
if QMD:
    report("qmd mcp: initialize", qinit)
    report("qmd mcp: first query (lex)", qfirst)
