#!/usr/bin/env python3
"""Fake OpenAI model endpoint on 127.0.0.1 for running the real Codex and OpenCode CLIs in
tests/agents.rs (Python 3 stdlib only).

Speaks: POST .../responses, the Responses API Codex uses (SSE response.created, .in_progress,
.output_item.added, text or function-call deltas, .output_item.done, .completed);
POST .../chat/completions, the Chat Completions API OpenCode uses (chat.completion.chunk SSE
ending in [DONE], with a usage chunk when stream_options.include_usage; one JSON answer when not
streaming); GET .../models (one model, fake-model). Anything else gets 200 {}.

Directives, read from the newest user message only (so they act once per prompt):
  FAKE_TOOL: <command>  the first answer calls the client's shell tool (Codex exec_command,
                        OpenCode bash) with <command>; once the tool output comes back the
                        answer is text.
  FAKE_USAGE: <n>       the first answer reports n input tokens (else 10), which makes a client
                        with a small context limit compact once.

Usage: fake_openai.py --port-file FILE --log REQUESTS.jsonl
Listens on a free port and writes it to FILE (atomically, once listening). Appends each request
to the log as one JSON line {"method", "path", "body"}, body parsed as JSON when it is JSON.
"""
import json, time, uuid

from fakehttp import REPLY, TOOL_RE, USAGE_RE, Handler as Base, serve


def text_of(content):
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content or []
                     if isinstance(p, dict) and isinstance(p.get("text"), str))


def directives(items, is_tool_output, tool_names):
    """(shell tool name, its arguments) or (None, None), and the input tokens to report, from the
    newest user message among items and whether a tool output came after it."""
    prompt, tool_after = "", False
    for it in items:
        if not isinstance(it, dict):
            continue
        if it.get("role") == "user":
            prompt, tool_after = text_of(it.get("content")), False
        elif is_tool_output(it):
            tool_after = True
    usage = USAGE_RE.search(prompt)
    n_in = int(usage.group(1)) if usage and not tool_after else 10
    cmd = None if tool_after else TOOL_RE.search(prompt)
    if cmd and "exec_command" in tool_names:
        return "exec_command", {"cmd": cmd.group(1).strip()}, n_in
    if cmd and "bash" in tool_names:
        return "bash", {"command": cmd.group(1).strip(), "description": "scripted"}, n_in
    return None, None, n_in


class Handler(Base):
    def sse(self, data, event=None):
        head = f"event: {event}\n" if event else ""
        data = data if isinstance(data, str) else json.dumps(data)
        self.wfile.write(f"{head}data: {data}\n\n".encode())
        self.wfile.flush()

    def get_json(self, path):
        if path.endswith("/models"):
            return {"object": "list", "data": [
                {"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]}
        return {}

    def post(self, path, body):
        if path.endswith("/responses"):
            return self.answer_responses(body)
        if path.endswith("/chat/completions"):
            return self.answer_chat(body)
        self.send_json({})

    def answer_responses(self, b):
        names = {t.get("name") for t in b.get("tools") or [] if isinstance(t, dict)}
        tool, targs, n_in = directives(
            b.get("input") or [], lambda it: str(it.get("type", "")).endswith("_output"), names)
        usage = {"input_tokens": n_in, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": n_in + 3}
        if tool:
            iid = "fc_" + uuid.uuid4().hex[:24]
            item = {"type": "function_call", "id": iid, "call_id": "call_" + uuid.uuid4().hex[:20],
                    "name": tool, "arguments": json.dumps(targs), "status": "completed"}
            added = dict(item, arguments="", status="in_progress")
        else:
            iid = "msg_" + uuid.uuid4().hex[:24]
            item = {"type": "message", "id": iid, "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
            added = dict(item, status="in_progress", content=[])
        base = {"id": "resp_" + uuid.uuid4().hex[:24], "object": "response",
                "created_at": int(time.time()), "model": b.get("model", "fake-model")}
        done = dict(base, status="completed", output=[item], usage=usage)
        if not b.get("stream"):
            return self.send_json(done)
        self.start_sse()
        seq = iter(range(10**6))

        def event(kind, data):
            self.sse(dict({"type": kind, "sequence_number": next(seq)}, **data), event=kind)

        event("response.created", {"response": dict(base, status="in_progress", output=[])})
        event("response.in_progress", {"response": dict(base, status="in_progress", output=[])})
        event("response.output_item.added", {"output_index": 0, "item": added})
        at = {"item_id": iid, "output_index": 0}
        if tool:
            event("response.function_call_arguments.delta", dict(at, delta=item["arguments"]))
            event("response.function_call_arguments.done", dict(at, arguments=item["arguments"]))
        else:
            at["content_index"] = 0
            part = {"type": "output_text", "text": "", "annotations": []}
            event("response.content_part.added", dict(at, part=part))
            event("response.output_text.delta", dict(at, delta=REPLY))
            event("response.output_text.done", dict(at, text=REPLY))
            event("response.content_part.done", dict(at, part=dict(part, text=REPLY)))
        event("response.output_item.done", {"output_index": 0, "item": item})
        event("response.completed", {"response": done})

    def answer_chat(self, b):
        names = {(t.get("function") or {}).get("name") for t in b.get("tools") or []
                 if isinstance(t, dict)}
        tool, targs, n_in = directives(
            b.get("messages") or [], lambda m: m.get("role") == "tool", names)
        usage = {"prompt_tokens": n_in, "completion_tokens": 3, "total_tokens": n_in + 3}
        base = {"id": "chatcmpl-" + uuid.uuid4().hex[:24], "created": int(time.time()),
                "model": b.get("model", "fake-model")}
        call = tool and {"id": "call_" + uuid.uuid4().hex[:20], "type": "function",
                         "function": {"name": tool, "arguments": json.dumps(targs)}}
        finish = "tool_calls" if call else "stop"
        if not b.get("stream"):
            msg = {"role": "assistant", "content": None if call else REPLY}
            if call:
                msg["tool_calls"] = [call]
            return self.send_json(dict(base, object="chat.completion", usage=usage, choices=[
                {"index": 0, "message": msg, "finish_reason": finish}]))
        self.start_sse()

        def chunk(delta, finish=None):
            self.sse(dict(base, object="chat.completion.chunk", choices=[
                {"index": 0, "delta": delta, "finish_reason": finish}]))

        if call:
            chunk({"role": "assistant", "content": None, "tool_calls": [
                dict(call, index=0, function={"name": tool, "arguments": ""})]})
            chunk({"tool_calls": [{"index": 0, "function": {
                "arguments": call["function"]["arguments"]}}]})
        else:
            chunk({"role": "assistant", "content": ""})
            chunk({"content": REPLY})
        chunk({}, finish)
        if (b.get("stream_options") or {}).get("include_usage"):
            self.sse(dict(base, object="chat.completion.chunk", choices=[], usage=usage))
        self.sse("[DONE]")


if __name__ == "__main__":
    serve(Handler)
