//! The tools, each a thin call into the [`crate::Hipo`] facade on tokio's
//! blocking pool. Arguments are checked before any work: a bad one is an
//! invalid-params error naming it and its valid form. What the engine
//! reports (no project, a lock held too long, an unreadable file) is a
//! tool result with `isError` and hipo's message.

use super::progress;
use super::server::Server;
use crate::error::Error;
use crate::journal::Entry;
use crate::markdown::EntryType;
use crate::progress::NoProgress;
use crate::render::{self, Style};
use crate::search::{self, Hit, get::Target, query};
use chrono::NaiveDate;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, RequestMetaObject};
use rmcp::{ErrorData, Peer, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt::Display;
use std::sync::Arc;

type Answer = Result<CallToolResult, ErrorData>;

/// An invalid-params error naming the argument.
fn invalid(arg: &str, message: impl Display) -> ErrorData {
    ErrorData::invalid_params(format!("`{arg}`: {message}"), None)
}

/// A tool result holding text.
fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

/// An engine problem, as a tool error with hipo's message.
fn failed(e: &Error, wait: std::time::Duration) -> CallToolResult {
    let mut msg = format!("hipo: {e}");
    if matches!(e, Error::Busy { .. }) {
        msg.push_str(&format!(
            " (waited {} s for the project lock)",
            wait.as_secs_f64()
        ));
    }
    CallToolResult::error(vec![ContentBlock::text(msg)])
}

/// Runs the engine's blocking work off the runtime's thread. A panic in
/// it is an internal error, never the end of the server.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ErrorData> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ErrorData::internal_error(format!("hipo: the work stopped: {e}"), None))
}

fn date(arg: &str, value: &str) -> Result<NaiveDate, ErrorData> {
    NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d").map_err(|_| {
        invalid(
            arg,
            format!("`{value}` is not a date; write it like 2027-01-15"),
        )
    })
}

fn entry_type(arg: &str, value: &str) -> Result<EntryType, ErrorData> {
    EntryType::parse(value).ok_or_else(|| {
        invalid(
            arg,
            format!("unknown type `{value}`; use user, feedback, project or reference"),
        )
    })
}

/// A count given as a number or as a string of digits: some clients (the
/// MCP Inspector CLI's `--tool-arg limit=3`) send every argument as text.
fn count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    use serde::de::Error as _;
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Number(n)) => n
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| D::Error::custom(format!("{n} is not a count (0, 1, 2, …)"))),
        Some(serde_json::Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| D::Error::custom(format!("`{s}` is not a count (0, 1, 2, …)"))),
        Some(other) => Err(D::Error::custom(format!(
            "{other} is not a count (0, 1, 2, …)"
        ))),
    }
}

/// A flag given as a boolean or as the text `true`/`false`.
fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    use serde::de::Error as _;
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::Bool(b)) => Ok(Some(b)),
        Some(serde_json::Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
        Some(other) => Err(D::Error::custom(format!("{other} is not true or false"))),
    }
}

/// `search` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for: a question or keywords in natural language. Also
    /// understood: "exact phrase", +required, -excluded.
    pub query: String,
    /// How many results (1-100, default 10).
    #[serde(default, deserialize_with = "count")]
    pub limit: Option<usize>,
    /// Only entries of this type: user (what the user said or prefers),
    /// feedback (rules the user gave), project (work, decisions), reference
    /// (pointers). Several: comma-separated.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Only this level: raw (session logs), daily, weekly, monthly, root,
    /// knowledge, plans, other. Several: comma-separated.
    #[serde(default)]
    pub level: Option<String>,
    /// Only on or after this day, YYYY-MM-DD.
    #[serde(default)]
    pub after: Option<String>,
    /// Only on or before this day, YYYY-MM-DD.
    #[serde(default)]
    pub before: Option<String>,
    /// Only in this ISO week, like 2027-W03.
    #[serde(default)]
    pub week: Option<String>,
    /// Only in this month, like 2027-01.
    #[serde(default)]
    pub month: Option<String>,
    /// Only under this path prefix, like knowledge/.
    #[serde(default)]
    pub path: Option<String>,
}

impl SearchArgs {
    /// The query with the filters applied, or the argument that is wrong.
    fn query(&self) -> Result<query::Query, ErrorData> {
        let mut q = query::parse(&self.query).map_err(|e| invalid("query", e))?;
        for (name, value) in [
            ("type", &self.kind),
            ("level", &self.level),
            ("after", &self.after),
            ("before", &self.before),
            ("week", &self.week),
            ("month", &self.month),
            ("path", &self.path),
        ] {
            if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
                q.filters
                    .apply(name, v.trim())
                    .map_err(|e| invalid(name, strip_query_prefix(&e)))?;
            }
        }
        Ok(q)
    }

    fn limit(&self) -> Result<usize, ErrorData> {
        match self.limit {
            None => Ok(10),
            Some(n @ 1..=100) => Ok(n),
            Some(n) => Err(invalid(
                "limit",
                format!("{n} is not a count of results from 1 to 100"),
            )),
        }
    }
}

/// `query: …` without its prefix, for a message that names the argument.
fn strip_query_prefix(e: &Error) -> String {
    let s = e.to_string();
    s.strip_prefix("query: ").map(str::to_string).unwrap_or(s)
}

/// A hit as the tools return it in structured content.
#[derive(Serialize)]
struct HitOut<'a> {
    id: &'a str,
    path: &'a str,
    line: usize,
    heading: &'a str,
    level: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<&'a str>,
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
    score: f32,
    snippet: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    also_in: Vec<String>,
}

impl<'a> HitOut<'a> {
    fn of(h: &'a Hit) -> HitOut<'a> {
        HitOut {
            id: &h.id,
            path: &h.path,
            line: h.line,
            heading: &h.heading,
            level: h.level.as_str(),
            date: h.date.as_deref(),
            kind: h.kind.as_str(),
            status: h.status.as_deref(),
            score: h.score,
            snippet: &h.snippet,
            also_in: h
                .also_in
                .iter()
                .map(|p| format!("{}:{}", p.path, p.lines[0]))
                .collect(),
        }
    }
}

/// What a search needs to tell about the index it answered from.
fn freshness(fresh: bool, warnings: &[String]) -> String {
    let mut out = String::new();
    if !fresh {
        out.push_str("fresh: false (another hipo process was writing; these results come from the index as it was and may miss the newest entries)\n");
    }
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

/// `get` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetArgs {
    /// A project-relative file, like memory/2027-01-20.md (from a search
    /// hit's `path`). Give this or `id`.
    #[serde(default)]
    pub path: Option<String>,
    /// The first line to show (1-based); without `count`, shows to the end
    /// of the section holding it.
    #[serde(default, deserialize_with = "count")]
    pub line: Option<usize>,
    /// How many lines to show from `line`.
    #[serde(default, deserialize_with = "count")]
    pub count: Option<usize>,
    /// A search hit's id, like #1a2b3c4d5e6f: shows that hit's whole
    /// section. Give this or `path`.
    #[serde(default)]
    pub id: Option<String>,
}

impl GetArgs {
    fn target(&self) -> Result<Target, ErrorData> {
        match (&self.path, &self.id) {
            (Some(_), Some(_)) => Err(invalid("path", "give either `path` or `id`, not both")),
            (None, None) => Err(invalid(
                "path",
                "missing: give `path` (like memory/2027-01-20.md) or a hit's `id` (like #1a2b3c4d5e6f)",
            )),
            (None, Some(id)) => {
                let id = format!("#{}", id.trim().trim_start_matches('#'));
                search::get::parse(&id).map_err(|e| invalid("id", strip_query_prefix(&e)))
            }
            (Some(path), None) => {
                if self.line == Some(0) {
                    return Err(invalid("line", "lines are numbered from 1"));
                }
                if self.count == Some(0) {
                    return Err(invalid("count", "a number of lines, 1 or more"));
                }
                if self.count.is_some() && self.line.is_none() {
                    return Err(invalid("line", "`count` needs a first `line`"));
                }
                Ok(Target::Path {
                    path: path.trim().to_string(),
                    line: self.line,
                    count: self.count,
                })
            }
        }
    }
}

/// `recall` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecallArgs {
    /// What you need to remember, in natural language, like "what did we
    /// decide about the Postgres migration?".
    pub request: String,
    /// Most tokens to return (default 1500, at least 100).
    #[serde(default, deserialize_with = "count")]
    pub budget: Option<usize>,
}

/// `checkpoint` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointArgs {
    /// The entry's type: user (who the user is, what they want), feedback
    /// (a rule the user gave: keep rule, why, how-to-apply), project (work
    /// done, decisions), or reference (where something lives).
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["user", "feedback", "project", "reference"]))]
    pub kind: String,
    /// The entry's heading, one line, like "Postgres 16 cutover".
    pub topic: String,
    /// `- key: value` lines, in order: for project entries request,
    /// analysis, decisions, outcome, references; for feedback rule, why,
    /// how-to-apply.
    #[serde(default)]
    pub fields: Option<Fields>,
    /// Free Markdown after the fields.
    #[serde(default)]
    pub body: Option<String>,
}

/// `- key: value` lines in the order given.
#[derive(Debug, Default)]
pub struct Fields(pub Vec<(String, String)>);

impl<'de> Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Fields, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of field names to text, like {\"decisions\": \"…\"}")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Fields, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    let v = match v {
                        serde_json::Value::String(s) => s,
                        other => other.to_string(),
                    };
                    out.push((k, v));
                }
                Ok(Fields(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

impl JsonSchema for Fields {
    fn schema_name() -> Cow<'static, str> {
        "Fields".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "additionalProperties": { "type": "string" }
        })
    }
}

/// `compact` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactArgs {
    /// Only say what would be written, write nothing.
    #[serde(default, deserialize_with = "flag")]
    pub dry_run: Option<bool>,
}

/// `status` arguments (none).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

/// `timeline` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimelineArgs {
    /// First day, YYYY-MM-DD (default: 6 days before `to`).
    #[serde(default)]
    pub from: Option<String>,
    /// Last day, YYYY-MM-DD (default: today).
    #[serde(default)]
    pub to: Option<String>,
    /// Only entries of this type (user, feedback, project, reference), and
    /// the nodes holding such topics.
    #[serde(default, rename = "type")]
    #[schemars(extend("enum" = ["user", "feedback", "project", "reference", null]))]
    pub kind: Option<String>,
    /// Most lines to return (default 100).
    #[serde(default, deserialize_with = "count")]
    pub limit: Option<usize>,
}

#[tool_router(router = tools, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "Search the project's long-term memory (past sessions' logs, their daily/weekly/monthly summaries, ROOT.md, knowledge/ and plans/) for passages about a question or keywords. Use it before answering about past work, decisions, user preferences or earlier conversations. Returns ranked hits, each with path:line, heading, level, date, entry type, a snippet and an id; read a hit's whole section with `get` (its id or path and line). Filters narrow by entry type, level, date range, week, month or path.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> Answer {
        let q = args.query()?;
        let limit = args.limit()?;
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let wait = self.read_wait();
        let found = blocking(move || {
            let opts = search::Options {
                limit,
                ..Default::default()
            };
            hipo.search(&q, &opts, wait, &NoProgress)
        })
        .await?;
        let found = match found {
            Ok(f) => f,
            Err(e) => return Ok(failed(&e, wait)),
        };
        let fresh = found.searcher.is_fresh();
        let mut out = freshness(fresh, found.searcher.warnings());
        out.push_str(&render::hits(Style::PLAIN, &found.hits, None));
        let mut result = text(out);
        result.structured_content = Some(serde_json::json!({
            "fresh": fresh,
            "hits": found.hits.iter().map(HitOut::of).collect::<Vec<_>>(),
        }));
        Ok(result)
    }

    #[tool(
        description = "Read memory by line: a file (path), a slice of it (path, line, count), or a search hit's whole section (id). Paths are project-relative, like memory/2027-01-20.md or memory/weekly/2027-W03.md. Returns the lines with their line numbers, secrets redacted.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get(&self, Parameters(args): Parameters<GetArgs>) -> Answer {
        let target = args.target()?;
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let arg = if matches!(target, Target::Id(_)) {
            "id"
        } else {
            "path"
        };
        let slice = blocking(move || hipo.get_target(&target)).await?;
        let slice = match slice {
            Ok(s) => s,
            Err(e @ (Error::Query(_) | Error::BadInput { .. })) => {
                return Err(invalid(arg, strip_query_prefix(&e)));
            }
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let last = slice.first + slice.lines.len().saturating_sub(1);
        let width = last.to_string().len();
        let mut out = format!(
            "{} (lines {}-{} of {})\n",
            slice.path, slice.first, last, slice.total
        );
        for (i, line) in slice.lines.iter().enumerate() {
            out.push_str(&format!("{:>width$}  {line}\n", slice.first + i));
        }
        Ok(text(out))
    }

    #[tool(
        description = "Recall what memory holds about a request in natural language, as one context pack that fits a token budget: the best matching passages (path:line, heading, date, snippet), most relevant first, with a warning when the index may be behind. Use it at the start of a task or whenever the user refers to something from an earlier session.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn recall(&self, Parameters(args): Parameters<RecallArgs>) -> Answer {
        if args.request.trim().is_empty() {
            return Err(invalid("request", "empty; say what you need to remember"));
        }
        let q = query::parse(&args.request).map_err(|e| invalid("request", e))?;
        let budget = match args.budget {
            None => 1500,
            Some(b) if b >= 100 => b,
            Some(b) => {
                return Err(invalid(
                    "budget",
                    format!("{b} tokens is too few; give 100 or more"),
                ));
            }
        };
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let wait = self.read_wait();
        let found =
            blocking(move || hipo.search(&q, &search::Options::default(), wait, &NoProgress))
                .await?;
        let found = match found {
            Ok(f) => f,
            Err(e) => return Ok(failed(&e, wait)),
        };
        let mut out = freshness(found.searcher.is_fresh(), found.searcher.warnings());
        let used = crate::markdown::estimate_tokens(&out);
        out.push_str(&render::hits(
            Style::PLAIN,
            &found.hits,
            Some(budget.saturating_sub(used).max(50)),
        ));
        Ok(text(out))
    }

    #[tool(
        description = "Record something future sessions must know as a typed entry in today's memory log (memory/YYYY-MM-DD.md): a decision or finished work (project), what the user is like or wants (user), a rule the user gave (feedback: rule, why, how-to-apply), or where something lives (reference). Secrets are redacted before writing. Returns the path:line of the new entry.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn checkpoint(&self, Parameters(args): Parameters<CheckpointArgs>) -> Answer {
        let entry = Entry {
            kind: entry_type("type", &args.kind)?,
            topic: args.topic,
            fields: args.fields.unwrap_or_default().0,
            body: args.body.unwrap_or_default(),
        };
        if let Err(e) = entry.render() {
            let arg = if e.to_string().contains("topic") {
                "topic"
            } else {
                "fields"
            };
            return Err(invalid(arg, e));
        }
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let (wait, today) = (self.lock_wait(), self.today());
        let done = blocking(move || hipo.lock(wait)?.append(&entry, today)).await?;
        match done {
            Ok(a) => {
                let mut out = format!("appended {} line(s) to {}:{}\n", a.lines, a.path, a.line);
                if let Some(p) = &a.problem {
                    out.push_str(&format!("warning: {p}\n"));
                }
                Ok(text(out))
            }
            Err(e) => Ok(failed(&e, wait)),
        }
    }

    #[tool(
        description = "Show the state of the memory tree: nodes per level (daily, weekly, monthly, root) and their status, the summaries waiting to be written (needs-summarization), what the next compaction would rewrite, and whether a compaction is due.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn status(&self, Parameters(_): Parameters<StatusArgs>) -> Answer {
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let (wait, today) = (self.lock_wait(), self.today());
        let llm = match self.settings(&hipo) {
            Ok(s) => s,
            Err(e) => return Ok(failed(&e, wait)),
        };
        let report = blocking(move || {
            hipo.lock(wait)?
                .status(&llm, today, chrono::Utc::now())
                .map(|r| render::status(Style::PLAIN, &r))
        })
        .await?;
        Ok(match report {
            Ok(s) => text(s),
            Err(e) => failed(&e, wait),
        })
    }

    #[tool(
        description = "Bring the memory tree up to date: write the daily, weekly and monthly summaries and ROOT.md from the session logs (with the configured summarizer; without a model, long nodes are left needs-summarization for you to fill in). Use it when `status` says a compaction is due. Reports progress when the call carries a progressToken. dry_run: say what would be written, write nothing.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn compact(
        &self,
        Parameters(args): Parameters<CompactArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Answer {
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let (wait, today) = (self.lock_wait(), self.today());
        let llm = match self.settings(&hipo) {
            Ok(s) => s,
            Err(e) => return Ok(failed(&e, wait)),
        };
        let (notifier, forwarder) = progress::channel(peer, meta.get_progress_token());
        let notifier = Arc::new(notifier);
        let options = crate::compact::Options {
            dry_run: args.dry_run.unwrap_or(false),
            ..crate::compact::Options::new(today)
        };
        let done = blocking(move || {
            let session = hipo.lock(wait)?;
            session.compact(&llm, notifier.as_ref(), options)
        })
        .await?;
        forwarder.finish().await;
        let done = match done {
            Ok(d) => d,
            Err(e) => return Ok(failed(&e, wait)),
        };
        let mut out = render::compact_report(Style::PLAIN, &done.report);
        if let Some(s) = &done.llm {
            out.push_str(&format!(
                "llm: {} call(s), {} cached, {} prompt + {} output tokens\n",
                s.calls, s.cache_hits, s.prompt_tokens, s.output_tokens
            ));
        }
        for w in &done.report.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        for p in &done.report.problems {
            out.push_str(&format!("skipped: {p}\n"));
        }
        for f in &done.report.summary_failures {
            out.push_str(&format!(
                "summary failed: {}: {}; {}\n",
                f.path, f.reason, f.hint
            ));
        }
        Ok(text(out))
    }

    #[tool(
        description = "What happened in a date range: the entries of the session logs and the summary nodes whose period falls in it, newest first, one line each with its path:line (read one with `get`). Answers \"what did we do last week?\" directly. Default range: the last 7 days. Optional type keeps only user, feedback, project or reference entries.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn timeline(&self, Parameters(args): Parameters<TimelineArgs>) -> Answer {
        let today = self.today();
        let to = match &args.to {
            Some(v) => date("to", v)?,
            None => today,
        };
        let from = match &args.from {
            Some(v) => date("from", v)?,
            None => to - chrono::Duration::days(6),
        };
        if from > to {
            return Err(invalid(
                "from",
                format!("{from} is after `to` ({to}); give from on or before to"),
            ));
        }
        let kind = match &args.kind {
            Some(v) => Some(entry_type("type", v)?),
            None => None,
        };
        let limit = match args.limit {
            None => 100,
            Some(n) if n > 0 => n,
            Some(_) => return Err(invalid("limit", "a number of lines, 1 or more")),
        };
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let items = blocking(move || hipo.timeline(from, to, kind)).await?;
        Ok(match items {
            Ok(items) => text(format!(
                "{from}..{to}: {} line(s), newest first\n{}",
                items.len(),
                render::timeline(&items, limit)
            )),
            Err(e) => failed(&e, self.lock_wait()),
        })
    }
}
