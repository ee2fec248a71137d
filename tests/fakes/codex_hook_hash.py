#!/usr/bin/env python3
"""Prints the Codex config.toml entries that mark every hook in a hooks.json as reviewed, as
Codex's /hooks screen would (Codex 0.169 runs only reviewed hooks). Python 3 stdlib only.

Written from Codex's own hooks/list answers, independently of hipo's doctor (src/harness/
doctor.rs), so a test can check the two agree. Key: "<abs hooks.json>:<snake event>:<group>:
<handler>"; hash: "sha256:" + SHA-256 of the compact, key-sorted, UTF-8 JSON of
{"event_name", "matcher" (events with matchers, if set), "hooks": [{"type": "command",
"command", "timeout" (default 600, at least 1), "async": false, "statusMessage" (if set)}]}.

Usage: codex_hook_hash.py HOOKS_JSON >> "$CODEX_HOME/config.toml"
"""
import hashlib, json, os, re, sys

MATCHER_EVENTS = {"PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart",
                  "PreCompact", "PostCompact", "SubagentStart", "SubagentStop"}


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def hook_hash(event, group, handler):
    h = {"type": "command", "command": handler["command"],
         "timeout": max(1, int(handler.get("timeout", 600))), "async": False}
    if handler.get("statusMessage") is not None:
        h["statusMessage"] = handler["statusMessage"]
    ident = {"event_name": snake(event), "hooks": [h]}
    if event in MATCHER_EVENTS and group.get("matcher") is not None:
        ident["matcher"] = group["matcher"]
    s = json.dumps(ident, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(s.encode("utf-8")).hexdigest()


def main():
    path = os.path.abspath(sys.argv[1])
    with open(path, encoding="utf-8") as f:
        hooks = json.load(f)["hooks"]
    for event, groups in hooks.items():
        for gi, group in enumerate(groups):
            for hi, handler in enumerate(group.get("hooks", [])):
                if handler.get("type", "command") != "command":
                    continue
                key = f"{path}:{snake(event)}:{gi}:{hi}"
                print(f"[hooks.state.{json.dumps(key)}]\n"
                      f"trusted_hash = \"{hook_hash(event, group, handler)}\"\n")


if __name__ == "__main__":
    main()
