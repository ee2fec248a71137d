//! The tools' arguments and answers: JSON schemas a model reads, checks
//! that turn a bad argument into an invalid-params error naming it and its
//! valid form, and the shapes hits are returned in.

use chrono::NaiveDate;
use hipo_core::EntryType;
use hipo_core::Error;
use hipo_core::{Hit, Query, Target};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt::Display;

pub(super) type Answer = Result<CallToolResult, ErrorData>;

/// An invalid-params error naming the argument.
pub(super) fn invalid(arg: &str, message: impl Display) -> ErrorData {
    ErrorData::invalid_params(format!("`{arg}`: {message}"), None)
}

/// A tool result holding text.
pub(super) fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

/// An engine problem, as a tool error with hipo's message.
pub(super) fn failed(e: &Error, wait: std::time::Duration) -> CallToolResult {
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
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ErrorData> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ErrorData::internal_error(format!("hipo: the work stopped: {e}"), None))
}

pub(super) fn date(arg: &str, value: &str) -> Result<NaiveDate, ErrorData> {
    NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d").map_err(|_| {
        invalid(
            arg,
            format!("`{value}` is not a date; write it like 2027-01-15"),
        )
    })
}

pub(super) fn entry_type(arg: &str, value: &str) -> Result<EntryType, ErrorData> {
    EntryType::parse(value).ok_or_else(|| {
        invalid(
            arg,
            format!("unknown type `{value}`; use user, feedback, project or reference"),
        )
    })
}

/// A count given as a number or as a string of digits: some clients (the
/// MCP Inspector CLI's `--tool-arg limit=3`) send every argument as text.
pub(super) fn count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
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
pub(super) fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
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
    /// How to rank: lexical (keywords, BM25), hybrid (keywords fused with
    /// meaning, from an embedding model) or vector (meaning alone). Default:
    /// hybrid when the server has an embedding model, else lexical.
    #[serde(default)]
    pub mode: Option<String>,
}

/// The ranking a `mode` argument asks for (`None`: the server's default).
fn mode_of(mode: Option<&str>) -> Result<Option<hipo_core::SearchMode>, ErrorData> {
    mode.filter(|m| !m.trim().is_empty())
        .map(|m| m.parse().map_err(|e: String| invalid("mode", e)))
        .transpose()
}

impl SearchArgs {
    /// The ranking asked for (`None`: the server's default).
    pub(super) fn mode(&self) -> Result<Option<hipo_core::SearchMode>, ErrorData> {
        mode_of(self.mode.as_deref())
    }

    /// The query with the filters applied, or the argument that is wrong.
    pub(super) fn query(&self) -> Result<Query, ErrorData> {
        let mut q = hipo_core::parse_query(&self.query).map_err(|e| invalid("query", e))?;
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
                q.filter(name, v.trim())
                    .map_err(|e| invalid(name, strip_query_prefix(&e)))?;
            }
        }
        Ok(q)
    }

    pub(super) fn limit(&self) -> Result<usize, ErrorData> {
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
pub(super) fn strip_query_prefix(e: &Error) -> String {
    let s = e.to_string();
    s.strip_prefix("query: ").map(str::to_string).unwrap_or(s)
}

/// A hit as the tools return it in structured content.
#[derive(Serialize)]
pub(super) struct HitOut<'a> {
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
    pub(super) fn of(h: &'a Hit) -> HitOut<'a> {
        HitOut {
            id: &h.id,
            path: &h.path,
            line: h.line,
            heading: &h.heading,
            level: h.level.as_str(),
            date: h.date.as_deref(),
            kind: h.kind.as_str(),
            status: h.status.map(|st| st.as_str()),
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
pub(super) fn freshness(fresh: bool, warnings: &[String]) -> String {
    let mut out = String::new();
    if !fresh {
        out.push_str("fresh: false (the index could not be updated just now, the warning says why; these results come from the index as it was and may miss the newest entries)\n");
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
    pub(super) fn target(&self) -> Result<Target, ErrorData> {
        match (&self.path, &self.id) {
            (Some(_), Some(_)) => Err(invalid("path", "give either `path` or `id`, not both")),
            (None, None) => Err(invalid(
                "path",
                "missing: give `path` (like memory/2027-01-20.md) or a hit's `id` (like #1a2b3c4d5e6f)",
            )),
            (None, Some(id)) => {
                let id = format!("#{}", id.trim().trim_start_matches('#'));
                hipo_core::parse_target(&id).map_err(|e| invalid("id", strip_query_prefix(&e)))
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
    /// How to rank the passages: lexical, hybrid or vector, as for
    /// `search`. Default: hybrid when the server has an embedding model,
    /// else lexical.
    #[serde(default)]
    pub mode: Option<String>,
}

impl RecallArgs {
    /// The ranking asked for (`None`: the server's default).
    pub(super) fn mode(&self) -> Result<Option<hipo_core::SearchMode>, ErrorData> {
        mode_of(self.mode.as_deref())
    }
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
