// hipo memory for OpenCode: written by `hipo init --platform opencode`;
// `hipo uninstall --platform opencode` removes it.
//
// Loads memory/ROOT.md and the working files into the system prompt of each
// session (again after OpenCode compacts it), adds what memory recalls for
// each prompt, and captures the session into today's raw log when the agent
// goes idle and before a compaction. Every call runs `hipo hook opencode
// EVENT` as a child process with a timeout: nothing here blocks OpenCode,
// and a missing or failing hipo only means no memory. No imports beyond
// Node's, so the plugin loads even when OpenCode cannot install packages.
// HIPO_BIN overrides the command (default: `hipo` on PATH).
import { spawn } from "node:child_process"

const BIN = process.env.HIPO_BIN || "hipo"
const WAIT_MS = 10000

/** Runs `hipo hook opencode EVENT` with `input` as its JSON stdin and
 * resolves to its stdout ("" on any failure or after `timeout` ms). A
 * detached call is left to finish on its own: OpenCode may exit first. */
const hook = (event, input, { timeout = WAIT_MS, detached = false } = {}) =>
  new Promise((resolve) => {
    let out = ""
    let settled = false
    const done = (v) => {
      if (!settled) {
        settled = true
        clearTimeout(timer)
        resolve(v)
      }
    }
    let child
    try {
      child = spawn(BIN, ["hook", "opencode", event], {
        stdio: ["pipe", detached ? "ignore" : "pipe", "ignore"],
        detached,
      })
    } catch {
      return resolve("")
    }
    const timer = setTimeout(() => {
      if (!detached) {
        try {
          child.kill()
        } catch {}
      }
      done("")
    }, timeout)
    child.on("error", () => done(""))
    child.stdin.on("error", () => {})
    if (detached) {
      child.stdin.end(JSON.stringify(input), () => {
        child.unref()
        done("")
      })
      return
    }
    child.stdout.on("data", (d) => (out += d))
    child.on("close", () => done(out))
    child.stdin.end(JSON.stringify(input))
  })

export const HipoPlugin = async ({ directory }) => {
  // Per session: the memory loaded at its start (a promise) and the recall
  // for its latest prompt.
  const context = new Map()
  const recall = new Map()
  const input = (sessionID, extra = {}) => ({ session_id: sessionID, cwd: directory, ...extra })
  const load = (sessionID, source) => {
    if (!context.has(sessionID)) {
      context.set(sessionID, hook("session-start", input(sessionID, { hook_event_name: "session.created", source })))
    }
    return context.get(sessionID)
  }
  const capture = (sessionID, event) =>
    hook(event, input(sessionID, { hook_event_name: "session.idle" }), { detached: true })

  return {
    event: async ({ event }) => {
      const sessionID = event.properties && event.properties.sessionID
      if (!sessionID) return
      if (event.type === "session.created") load(sessionID, "startup")
      else if (event.type === "session.compacted") context.delete(sessionID)
      else if (event.type === "session.idle") capture(sessionID, "stop")
    },
    "chat.message": async (info, output) => {
      const prompt = (output.parts || [])
        .filter((p) => p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
      if (!info.sessionID || !prompt.trim()) return
      recall.set(info.sessionID, await hook("prompt", input(info.sessionID, { hook_event_name: "chat.message", prompt })))
    },
    "experimental.chat.system.transform": async (info, output) => {
      if (!info.sessionID) return
      const memory = await load(info.sessionID, "startup")
      if (memory.trim()) output.system.push(memory)
      const passages = recall.get(info.sessionID)
      if (passages && passages.trim()) output.system.push(passages)
    },
    "experimental.session.compacting": async (info, output) => {
      if (!info.sessionID) return
      const [memory] = await Promise.all([
        load(info.sessionID, "compact"),
        hook("pre-compact", input(info.sessionID, { hook_event_name: "experimental.session.compacting" })),
      ])
      if (memory.trim()) output.context.push(memory)
    },
  }
}
