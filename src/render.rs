//! Results as text for people and for agents: search hits, a compaction's
//! report and `status`, optionally within a token budget (what a hook
//! injects into a prompt or an MCP tool returns must not flood a context).
//!
//! Pure: values in, a `String` out. Front ends decide where it goes.
//! Presentation is the binary's: it needs only the engine's result types.
//! (A recall pack's text is the engine's, `hipo_core::render_pack`: its
//! token budget is counted on it.)

use hipo_core::{
    ActionReason as Reason, CompactReport as Report, Hit, Level, NodeInfo, NodeStatus as Status,
    StatusReport, TimelineItem as Item, estimate_tokens,
};
use std::fmt::Write;

/// Whether to emit ANSI styling. The front end decides (a terminal, and
/// `NO_COLOR` unset); an agent always gets plain text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Plain text, no escapes.
    pub const PLAIN: Style = Style { color: false };

    /// Bold text.
    pub fn bold(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// Dim text.
    pub fn dim(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// Search hits, best first. With a `budget` in tokens, hits are added
/// while they fit (the first always is, cut if need be) and a last line
/// says how many were left out.
pub fn hits(s: Style, hits: &[Hit], budget: Option<usize>) -> String {
    if hits.is_empty() {
        return "no results\n".into();
    }
    let mut out = String::new();
    for (i, h) in hits.iter().enumerate() {
        let mut one = String::new();
        if i > 0 {
            one.push('\n');
        }
        hit(&mut one, s, h);
        if let Some(budget) = budget
            && estimate_tokens(&out) + estimate_tokens(&one) > budget
        {
            if i == 0 {
                out.push_str(&cut_to_tokens(&one, budget));
                out.push('\n');
            }
            let left = hits.len() - i.max(1);
            if left > 0 {
                let _ = writeln!(out, "\n… {left} more result(s) beyond the token budget");
            }
            return out;
        }
        out.push_str(&one);
    }
    out
}

fn hit(out: &mut String, s: Style, h: &Hit) {
    let mut about = vec![h.level.as_str().to_string()];
    about.extend(h.date.clone());
    about.push(h.kind.as_str().to_string());
    about.extend(h.status.map(|st| st.as_str().to_string()));
    let _ = writeln!(
        out,
        "{}  {}  {}",
        s.bold(&format!("{}:{}", h.path, h.line)),
        h.heading,
        s.dim(&format!("[{}] {:.2} {}", about.join(", "), h.score, h.id))
    );
    if !h.snippet.is_empty() {
        let _ = writeln!(out, "    {}", highlighted(s, h));
    }
    if !h.also_in.is_empty() {
        let places: Vec<String> = h
            .also_in
            .iter()
            .map(|p| format!("{}:{}", p.path, p.lines[0]))
            .collect();
        let more = match h.also_in_more {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let _ = writeln!(
            out,
            "    {}",
            s.dim(&format!("also in: {}{more}", places.join(", ")))
        );
    }
    if let Some(text) = &h.text {
        out.push('\n');
        for line in text.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
}

/// The longest prefix of whole lines of `text` within `budget` tokens.
fn cut_to_tokens(text: &str, budget: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if estimate_tokens(&out) + estimate_tokens(line) > budget {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// Matches in bold on a terminal; `**…**` otherwise (Markdown, which an
/// agent reading the output understands).
fn highlighted(s: Style, h: &Hit) -> String {
    if !s.color {
        return h.snippet.clone();
    }
    let mut out = String::new();
    let mut at = 0;
    for [a, b] in &h.highlights {
        let (Some(before), Some(mark)) = (h.snippet_text.get(at..*a), h.snippet_text.get(*a..*b))
        else {
            return h.snippet.clone();
        };
        out.push_str(before);
        out.push_str(&s.bold(mark));
        at = *b;
    }
    out.push_str(h.snippet_text.get(at..).unwrap_or_default());
    out
}

/// What a compaction wrote (or would write), then the tree.
pub fn compact_report(s: Style, report: &Report) -> String {
    let mut out = String::new();
    let verb = if report.dry_run {
        "would write"
    } else {
        "wrote"
    };
    let written: Vec<_> = report
        .actions
        .iter()
        .filter(|a| a.written || a.reason == Reason::Adopted)
        .collect();
    if written.is_empty() {
        let _ = writeln!(
            out,
            "tree is up to date ({} nodes, today {})",
            report.nodes.len(),
            report.today
        );
    } else {
        let _ = writeln!(
            out,
            "{verb} {} node(s) (today {}):",
            report.written(),
            report.today
        );
        for a in &written {
            let _ = writeln!(
                out,
                "  {:<16} {:<44} {}",
                a.reason.describe(),
                a.path,
                s.dim(a.status.as_str())
            );
        }
    }
    out.push_str(&tree(s, &report.nodes));
    out
}

/// Node counts per level and the summary backlog.
pub fn tree(s: Style, nodes: &[NodeInfo]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", s.bold("tree:"));
    for level in [Level::Daily, Level::Weekly, Level::Monthly, Level::Root] {
        let of_level: Vec<_> = nodes.iter().filter(|n| n.level == level).collect();
        let count = |st: Status| of_level.iter().filter(|n| n.status == st).count();
        let _ = writeln!(
            out,
            "  {:<8} {:>4}  (fixed {}, tentative {}, needs-summarization {})",
            level.as_str(),
            of_level.len(),
            count(Status::Fixed),
            count(Status::Tentative),
            count(Status::NeedsSummarization)
        );
    }
    let backlog: Vec<_> = nodes
        .iter()
        .filter(|n| n.status == Status::NeedsSummarization)
        .collect();
    if !backlog.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            s.bold(&format!("needs summarization ({}):", backlog.len()))
        );
        for n in backlog.iter().take(20) {
            let _ = writeln!(out, "  {}", n.path);
        }
        if backlog.len() > 20 {
            let _ = writeln!(out, "  … and {} more (see --json)", backlog.len() - 20);
        }
    }
    out
}

/// `hipo status` as text.
pub fn status(s: Style, report: &StatusReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} (today {})",
        s.bold("project"),
        report.root,
        report.today
    );
    let _ = writeln!(out, "{}", s.bold("tree:"));
    for (level, c) in &report.levels {
        let _ = writeln!(
            out,
            "  {:<8} {:>4}  (fixed {}, tentative {}, needs-summarization {})",
            level.as_str(),
            c.total,
            c.fixed,
            c.tentative,
            c.needs_summarization
        );
    }
    if !report.backlog.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            s.bold(&format!("needs summarization ({}):", report.backlog.len()))
        );
        // As the compact report does: a memory kept without a model can
        // owe thousands of summaries, and `--json` lists them all.
        for n in report.backlog.iter().take(20) {
            let _ = writeln!(out, "  {} ({} source lines)", n.path, n.source_lines);
            if let Some(why) = report.waiting_because.get(&n.path) {
                let _ = writeln!(out, "    {why}");
            }
        }
        if report.backlog.len() > 20 {
            let _ = writeln!(
                out,
                "  … and {} more (see --json)",
                report.backlog.len() - 20
            );
        }
    }
    if report.writers.keys().any(|w| w.starts_with("ollama:")) {
        let by: Vec<String> = report
            .writers
            .iter()
            .map(|(w, n)| format!("{} {n}", w.strip_prefix("ollama:").unwrap_or(w)))
            .collect();
        let _ = writeln!(out, "{} {}", s.bold("written by:"), by.join(", "));
    }
    for (path, parts) in &report.parts_by_hipo {
        let _ = writeln!(out, "  {path}: {parts}; the rest by the model");
    }
    status_changes(&mut out, s, report);
    status_health(&mut out, s, report);
    out
}

fn status_changes(out: &mut String, s: Style, report: &StatusReport) {
    if !report.changed_files.is_empty() {
        let _ = writeln!(
            out,
            "{} {} since the last compaction:",
            s.bold("changed files:"),
            report.changed_files.len()
        );
        for f in report.changed_files.iter().take(20) {
            let _ = writeln!(out, "  {f}");
        }
    }
    if report.out_of_date.is_empty() {
        let _ = writeln!(out, "{} tree is up to date", s.bold("changes:"));
    } else {
        let _ = writeln!(
            out,
            "{} {} node(s) to rewrite on the next compact:",
            s.bold("changes:"),
            report.out_of_date.len()
        );
        for a in report.out_of_date.iter().take(20) {
            let _ = writeln!(out, "  {:<16} {}", a.reason.describe(), a.path);
        }
    }
}

fn status_health(out: &mut String, s: Style, report: &StatusReport) {
    let t = &report.triggers;
    let due = if t.due {
        format!("yes ({})", t.reasons.join("; "))
    } else {
        "no".into()
    };
    let _ = writeln!(
        out,
        "{} {due}; last run {}, {} raw lines and {} checkpoints since",
        s.bold("compaction due:"),
        t.last_compaction_run.as_deref().unwrap_or("never"),
        t.raw_lines_since_last_compaction,
        t.checkpoints_since_last_compaction
    );
    let st = &report.store;
    let _ = writeln!(
        out,
        "{} {} ({} KiB, schema {}, {} files, {} nodes){}",
        s.bold("store:"),
        st.path,
        st.bytes / 1024,
        st.schema,
        st.files,
        st.nodes,
        st.warning
            .as_deref()
            .map(|w| format!("; {w}"))
            .unwrap_or_default()
    );
    if report.problems.is_empty() {
        let _ = writeln!(out, "{} none", s.bold("problems:"));
    } else {
        let _ = writeln!(out, "{} {}", s.bold("problems:"), report.problems.len());
        for p in &report.problems {
            let _ = writeln!(out, "  {p}");
        }
    }
}

/// A timeline, one line per entry or node, at most `limit` lines; a last
/// line says how many were left out.
pub fn timeline(items: &[Item], limit: usize) -> String {
    if items.is_empty() {
        return "nothing in that range\n".into();
    }
    let mut out = String::new();
    for i in items.iter().take(limit) {
        let at = format!("{}:{}", i.path, i.line);
        match i.kind {
            Some(kind) => {
                let _ = writeln!(
                    out,
                    "{:<10}  {at}  [{}] {}",
                    i.period,
                    kind.as_str(),
                    i.title
                );
            }
            None => {
                let mut about = format!("{} node", i.level.as_str());
                if let Some(st) = i.status {
                    about.push_str(&format!(" ({})", st.as_str()));
                }
                if !i.topics.is_empty() {
                    const SHOWN: usize = 8;
                    let more = i.topics.len().saturating_sub(SHOWN);
                    about.push_str(&format!(
                        ": {}",
                        i.topics[..i.topics.len().min(SHOWN)].join(", ")
                    ));
                    if more > 0 {
                        about.push_str(&format!(" and {more} more"));
                    }
                }
                let _ = writeln!(out, "{:<10}  {at}  {about}", i.period);
            }
        }
    }
    if items.len() > limit {
        let _ = writeln!(
            out,
            "… {} more older line(s); narrow the range or raise the limit",
            items.len() - limit
        );
    }
    out
}
