#!/usr/bin/env python3
"""The issue-28 reproduction: a capture killed while it writes, then run twice.

    python3 benches/kill_capture.py RUNS [HIPO_BINARY]

Each run: a 12,000-message Claude Code transcript in a fresh project, the
Stop hook started and SIGKILLed as soon as today's raw log grows, then the
hook run twice more. Prints, per run, whether the kill tore the write (the
raw log does not end in a watermark) and how many messages are in the raw
log twice or not at all (whole `User:`/`Assistant:` lines), then the totals.

    TEAR=1000,250000,600000 python3 benches/kill_capture.py RUNS [HIPO_BINARY]

aims the kill exactly instead: the first hook of each run tears its write
after that many bytes (the `journal.append:1:tear=K` failpoint, the next K
in turn) and kills itself, so every run tears, whatever the machine's speed.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

N = 12_000
DAY = "2027-01-21"


def transcript(n):
    out = []
    for i in range(n):
        if i % 2 == 0:
            kind, content = "user", json.dumps(f"message m{i}z about the rollout plan")
        else:
            kind = "assistant"
            content = json.dumps([{"type": "text", "text": f"answer m{i}z: noted, step {i} done"}])
        out.append(
            '{"type":"%s","uuid":"s-%d","sessionId":"sess-1","timestamp":"%sT09:30:00Z",'
            '"message":{"role":"%s","content":%s}}' % (kind, i, DAY, kind, content)
        )
    return "\n".join(out) + "\n"


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    binary = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "target/debug/hipo")
    text = transcript(N)
    tears = [int(k) for k in os.environ.get("TEAR", "").split(",") if k]
    torn = twice_total = missing_total = 0
    for r in range(runs):
        d = tempfile.mkdtemp()
        os.makedirs(f"{d}/memory")
        with open(f"{d}/sess.jsonl", "w") as f:
            f.write(text)
        stdin = json.dumps({"session_id": "sess-1", "transcript_path": f"{d}/sess.jsonl",
                            "cwd": d, "hook_event_name": "Stop"}).encode()
        hook = [binary, "--today", DAY, "hook", "claude-code", "stop"]
        env = dict(os.environ)
        if tears:
            env["HIPO_FAILPOINT"] = f"journal.append:1:tear={tears[r % len(tears)]}"
        p = subprocess.Popen(hook, cwd=d, stdin=subprocess.PIPE, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p.stdin.write(stdin)
        p.stdin.close()
        log = f"{d}/memory/{DAY}.md"
        while True:
            if not tears and os.path.exists(log) and os.path.getsize(log) > 0:
                p.kill()
                break
            if p.poll() is not None:
                break
        p.wait()
        with open(log, "rb") as f:
            after_kill = f.read()
        was_torn = bool(after_kill) and not after_kill.endswith(b"-->\n")
        torn += was_torn
        for _ in range(2):
            subprocess.run(hook, cwd=d, input=stdin, capture_output=True)
        with open(log) as f:
            data = f.read()
        seen = collections.Counter(re.findall(
            r"^(?:User: message|Assistant: answer) m(\d+)z.*(?:plan|done)$", data, re.M))
        twice = sum(1 for v in seen.values() if v > 1)
        missing = N - len(seen)
        twice_total += twice
        missing_total += missing
        print(f"run {r}: torn={was_torn} twice={twice} missing={missing}")
        shutil.rmtree(d)
    print(f"{runs} runs: {torn} kills tore the write; {twice_total} messages twice, "
          f"{missing_total} missing in all")


if __name__ == "__main__":
    main()
