//! What hipo writes into a project for an agent to read: the memory
//! protocol, the skills, the hot files. Short and factual: the platforms
//! warn that imperative "MANDATORY" text trips prompt-injection defences.

/// The memory protocol, for CLAUDE.md or AGENTS.md.
pub const PROTOCOL: &str = "## Memory (hipo)
This project keeps long-term memory as plain Markdown, maintained by hipo.
- `memory/ROOT.md` indexes what is remembered: the standing rules (`[feedback]`) and facts about people (`[user]`) in their own words at the top of its Topics Index, then topics with their age, recent work, recurring topics, history. `SCRATCHPAD.md`, `WORKING.md` and `TASK-QUEUE.md` hold the current work.
- Earlier sessions are searchable: `hipo search \"words\"` (filters: `type:feedback`, `after:2026-03-01`, `level:weekly`), then `hipo get PATH:LINE` for the passage.
- When a task is done, its outcome can be recorded: `hipo checkpoint --type project --topic \"Topic\" --field request=… --field decisions=… --field outcome=…` (types: project, feedback, user, reference; feedback uses rule=, why=, how-to-apply=).
- Session transcripts are captured by hooks, and the summary tree is compacted in the background: nothing else to run.";

/// Claude Code imports these into its context at launch.
pub const CLAUDE_IMPORTS: &str = "@memory/ROOT.md\n@SCRATCHPAD.md\n@WORKING.md\n@TASK-QUEUE.md";

/// A skill: its directory name (equal to `name`, as OpenCode requires)
/// and its SKILL.md.
pub struct Skill {
    pub name: &'static str,
    pub text: &'static str,
}

pub const SKILLS: [Skill; 3] = [
    Skill {
        name: "hipo-memory",
        text: "---
name: hipo-memory
description: How this project's long-term memory works (hipo) and when to read or write it. Use at the start of work that may build on earlier sessions, and when finishing a task.
---
# Project memory (hipo)

- `memory/ROOT.md` is the index: Topics Index (each topic with its type and age; the standing rules and facts about people first, in their own words), Active Context (what each recent entry decided), Recent Patterns (recurring topics, rules added or changed), Historical Summary.
- Raw logs `memory/YYYY-MM-DD.md` are append-only; daily, weekly and monthly summaries are built from them by `hipo compact`.
- Look things up with `hipo search \"words\"`; read a hit with `hipo get PATH:LINE`.
- Record a finished task: `hipo checkpoint --type project --topic \"Topic\" --field request=… --field analysis=… --field decisions=… --field outcome=… --field references=…`.
- Record a rule the user gave: `hipo checkpoint --type feedback --topic \"Topic\" --field rule=… --field why=… --field how-to-apply=…`.
- A summary node marked `status: needs-summarization` may be filled in by hand; keep its frontmatter.
",
    },
    Skill {
        name: "hipo-recall",
        text: "---
name: hipo-recall
description: Recall what earlier sessions decided or learned about a subject. Use when a request refers to past work, a previous decision, a person's preference, or \"what we did last time\".
---
# Recall from memory

1. Read the Topics Index in `memory/ROOT.md` for the subject's topic and age.
2. `hipo search \"the subject in a few words\"` (add `type:feedback` for rules, `after:YYYY-MM-DD` for recent work).
3. `hipo get PATH:LINE` on the best hits; quote the date with what you found.
4. A `project` entry older than 30 days may be stale: check before relying on it.
",
    },
    Skill {
        name: "hipo-flush",
        text: "---
name: hipo-flush
description: Save the important context of this session to memory now, without waiting for the session to end. Use before a long break, a risky operation, or when the user asks to remember something.
---
# Flush the session to memory

Record each decision, fact or outcome worth keeping as one entry:

`hipo checkpoint --type project --topic \"Topic\" --field decisions=… --field outcome=…`

Use `--type user` for facts about the user, `--type feedback` for rules they gave (`rule=`, `why=`, `how-to-apply=`), `--type reference` for pointers to documents. Then `hipo compact` brings the summary tree up to date.
",
    },
];

/// The hot files hipocampus defines, created empty of content but with
/// their purpose, never over a person's file.
pub const HOT_FILES: [(&str, &str); 3] = [
    (
        "SCRATCHPAD.md",
        "# Scratchpad\n\nShort-lived notes for the work in progress (about 150 lines at most).\n",
    ),
    (
        "WORKING.md",
        "# Working\n\nThe tasks in progress, their state and next step (about 100 lines at most).\n",
    ),
    (
        "TASK-QUEUE.md",
        "# Task queue\n\nWhat is waiting to be done, most important first (about 50 lines at most).\n",
    ),
];
