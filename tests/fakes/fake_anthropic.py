#!/usr/bin/env python3
"""Fake Anthropic model endpoint on 127.0.0.1 for running the real Claude Code CLI in
tests/agents.rs (Python 3 stdlib only).

Speaks: POST /v1/messages (one assistant turn; SSE message_start, content_block_start/delta/stop,
message_delta, message_stop when "stream" is true, else one JSON message) and
POST /v1/messages/count_tokens; anything else gets 200 {}.

Directives, read from the newest user prompt only (so they act once per prompt):
  FAKE_TOOL: <command>  the first answer is a Bash tool_use running <command>; once the
                        tool_result comes back the answer is text.
  FAKE_USAGE: <n>       the first answer reports n input tokens (else 10), which makes Claude Code
                        compact its context once when n is close to the model's window.

Usage: fake_anthropic.py --port-file FILE --log REQUESTS.jsonl
Listens on a free port and writes it to FILE (atomically, once listening). Appends each request
to the log as one JSON line {"method", "path", "body"}, body parsed as JSON when it is JSON.
"""
import json, uuid

from fakehttp import REPLY, TOOL_RE, USAGE_RE, Handler as Base, serve


def newest_prompt(body):
    """The newest user prompt's text, and whether a tool_result came after it."""
    prompt, tool_after = "", False
    for m in body.get("messages") or []:
        if not isinstance(m, dict) or m.get("role") != "user":
            continue
        c = m.get("content")
        parts = [{"type": "text", "text": c}] if isinstance(c, str) else c or []
        parts = [p for p in parts if isinstance(p, dict)]
        if any(p.get("type") == "tool_result" for p in parts):
            tool_after = True
        else:
            prompt = "\n".join(p.get("text", "") for p in parts if p.get("type") == "text")
            tool_after = False
    return prompt, tool_after


class Handler(Base):
    def post(self, path, body):
        if path.endswith("/count_tokens"):
            return self.send_json({"input_tokens": 10})
        if not path.endswith("/messages"):
            return self.send_json({})
        self.answer(body)

    def answer(self, b):
        prompt, tool_after = newest_prompt(b)
        usage = USAGE_RE.search(prompt)
        n_in = int(usage.group(1)) if usage and not tool_after else 10
        cmd = None if tool_after else TOOL_RE.search(prompt)
        offers_bash = any(isinstance(t, dict) and t.get("name") == "Bash" for t in b.get("tools") or [])
        block = {"type": "text", "text": REPLY}
        if cmd and offers_bash:
            block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:22], "name": "Bash",
                     "input": {"command": cmd.group(1).strip(), "description": "scripted"}}
        stop = "tool_use" if block["type"] == "tool_use" else "end_turn"
        msg = {"id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant",
               "model": b.get("model", "claude-fake"), "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": n_in, "output_tokens": 3,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
        if not b.get("stream"):
            return self.send_json(dict(msg, content=[block]))
        self.start_sse()

        def event(kind, data):
            self.wfile.write(f"event: {kind}\ndata: {json.dumps(dict(type=kind, **data))}\n\n".encode())
            self.wfile.flush()

        event("message_start", {"message": dict(msg, content=[], stop_reason=None)})
        if block["type"] == "tool_use":
            event("content_block_start", {"index": 0, "content_block": dict(block, input={})})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
            delta = {"type": "text_delta", "text": REPLY}
        event("content_block_delta", {"index": 0, "delta": delta})
        event("content_block_stop", {"index": 0})
        event("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 3}})
        event("message_stop", {})


if __name__ == "__main__":
    serve(Handler)
