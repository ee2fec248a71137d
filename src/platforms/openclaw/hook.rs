//! The workspace hook hipo installs into OpenClaw: `hooks/hipo/HOOK.md`
//! (the events it subscribes to) and `hooks/hipo/handler.ts`, which runs
//! `hipo hook openclaw EVENT` as a child process with a bounded wait.

/// The events the handler subscribes to (all exact keys OpenClaw 2026.9
/// emits; it has no per-turn "agent end" internal event, so a turn is
/// captured at the next bootstrap, and the last at reset or shutdown).
pub const EVENTS: [&str; 7] = [
    "agent:bootstrap",
    "command:new",
    "command:reset",
    "command:stop",
    "session:compact:before",
    "session:auto-reset",
    "gateway:shutdown",
];

/// HOOK.md: the frontmatter OpenClaw reads (name, events) and what the
/// hook does, for a person reading `openclaw hooks info hipo`.
pub(super) fn hook_md() -> String {
    let events: Vec<String> = EVENTS.iter().map(|e| format!("\"{e}\"")).collect();
    format!(
        "---
name: hipo
description: \"hipo memory: loads memory/ROOT.md and the working files at bootstrap, captures sessions into memory/YYYY-MM-DD.md\"
metadata: {{\"openclaw\": {{\"emoji\": \"🧠\", \"events\": [{}]}}}}
---

# hipo

Written by `hipo init --platform openclaw`; `hipo uninstall --platform openclaw` removes it.

- `agent:bootstrap`: runs `hipo hook openclaw session-start` and adds its output (ROOT.md and the working files) to the bootstrap files; starts a capture of what earlier turns added to the agent's transcripts.
- `command:new`, `command:reset`, `command:stop`, `session:auto-reset`, `gateway:shutdown`: `hipo hook openclaw session-end` captures the session into today's raw log (once: a watermark in the log remembers what was read).
- `session:compact:before`: the same capture, then `hipo compact` in the background.

hipo runs as a child process with a bounded wait: a slow or missing hipo never blocks the gateway. Set `hooks.internal.entries.hipo.env.HIPO_BIN` in `~/.openclaw/openclaw.json` when `hipo` is not on the gateway's PATH.
",
        events.join(", ")
    )
}

/// The handler. Plain TypeScript with no imports beyond Node's, so it
/// loads offline and survives package-cache cleanups.
pub(super) const HANDLER_TS: &str = r#"// hipo's OpenClaw hook (written by `hipo init --platform openclaw`; `hipo uninstall --platform openclaw` removes it).
// Never blocks the gateway: hipo runs as a child process (no execSync), every wait is bounded,
// and a failure is only logged.
import { spawn } from "node:child_process";
import { join } from "node:path";

let bin = "hipo";
let workspace: string | undefined;
let agent: string | undefined;

/** Runs `hipo hook openclaw EVENT` with the hook JSON on stdin; resolves with its stdout, or what
 * it had printed when `waitMs` ran out (a capture goes on in the background after that). */
function hipo(event: string, input: Record<string, unknown>, waitMs: number): Promise<string> {
  return new Promise((resolve) => {
    let out = "";
    let settled = false;
    const finish = () => {
      if (!settled) {
        settled = true;
        resolve(out);
      }
    };
    let child: any;
    try {
      child = spawn(bin, ["hook", "openclaw", event], {
        cwd: (input.cwd as string) || undefined,
        detached: true,
        stdio: ["pipe", "pipe", "inherit"],
      });
    } catch (e) {
      console.error(`[hipo] could not start ${bin}: ${e}`);
      finish();
      return;
    }
    child.on("error", (e: any) => {
      console.error(`[hipo] could not run ${bin}: ${e?.message ?? e}`);
      finish();
    });
    child.stdout.on("data", (d: any) => (out += d));
    child.on("close", finish);
    const timer = setTimeout(() => {
      child.stdout.destroy();
      child.unref();
      finish();
    }, waitMs);
    timer.unref?.();
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

const handler = async (event: any) => {
  const ctx = event?.context ?? {};
  const env = ctx.cfg?.hooks?.internal?.entries?.hipo?.env;
  if (typeof env?.HIPO_BIN === "string" && env.HIPO_BIN) bin = env.HIPO_BIN;
  if (typeof ctx.workspaceDir === "string") workspace = ctx.workspaceDir;
  if (typeof ctx.agentId === "string") agent = ctx.agentId;
  const key = `${event?.type}:${event?.action}`;
  const base = { cwd: workspace, agent_id: agent, hook_event_name: key };
  if (key === "agent:bootstrap") {
    // What earlier turns added (OpenClaw has no per-turn end event): not awaited.
    void hipo("stop", base, 0);
    const text = await hipo("session-start", { ...base, session_id: ctx.sessionId }, 5000);
    if (text.trim() && Array.isArray(ctx.bootstrapFiles) && workspace) {
      ctx.bootstrapFiles.push({ name: "hipo memory", path: join(workspace, "memory", "ROOT.md"), content: text, missing: false });
    }
    return;
  }
  const session =
    ctx.previousSessionEntry?.sessionId ?? ctx.sessionEntry?.sessionId ?? ctx.sessionId ?? undefined;
  if (key === "session:compact:before") {
    await hipo("pre-compact", { ...base, session_id: session }, 8000);
  } else if (key === "gateway:shutdown") {
    await hipo("session-end", base, 4000);
  } else {
    await hipo("session-end", { ...base, session_id: session }, 8000);
  }
};

export default handler;
"#;
