//! The tools, each a thin call into the [`hipo_core::Hipo`] facade on tokio's
//! blocking pool. Arguments are checked before any work: a bad one is an
//! invalid-params error naming it and its valid form. What the engine
//! reports (no project, a lock held too long, an unreadable file) is a
//! tool result with `isError` and hipo's message.

use super::page::page;
use super::progress;
use super::server::Server;
use crate::render::{self, Style};
use hipo_core::Entry;
use hipo_core::Error;
use hipo_core::NoProgress;
use hipo_core::{SearchOptions, Target};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::RequestMetaObject;
use rmcp::{Peer, RoleServer, tool, tool_router};
use std::sync::Arc;

use super::args::*;

#[tool_router(router = tools, vis = "pub(super)")]
impl Server {
    #[tool(
        description = "Search the project's long-term memory (past sessions' logs, their daily/weekly/monthly summaries, ROOT.md, knowledge/ and plans/) for passages about a question or keywords. Use it before answering about past work, decisions, user preferences or earlier conversations. Returns ranked hits, each with path:line, heading, level, date, entry type, a snippet and an id; read a hit's whole section with `get` (its id or path and line). Filters narrow by entry type, level, date range, week, month or path.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> Answer {
        let q = args.query()?;
        let limit = args.limit()?;
        let mode = args.mode()?;
        let hipo = match self.project() {
            Ok(h) => h,
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let wait = self.read_wait();
        let found = blocking(move || {
            let opts = SearchOptions {
                limit,
                ..Default::default()
            };
            hipo.search_in(mode, &q, &opts, wait, &NoProgress)
        })
        .await?;
        let found = match found {
            Ok(f) => f,
            // A mode that needs an embedding model the server lacks.
            Err(Error::Usage(why)) if mode.is_some() => return Err(invalid("mode", why)),
            Err(e) => return Ok(failed(&e, wait)),
        };
        let fresh = found.searcher.is_fresh();
        let warnings = warnings_of(&found.searcher);
        let mut out = freshness(fresh, &warnings);
        out.push_str(&render::hits(Style::PLAIN, &found.hits, None));
        let mut result = text(out);
        result.structured_content = Some(serde_json::json!({
            "fresh": fresh,
            "hits": found.hits.iter().map(HitOut::of).collect::<Vec<_>>(),
        }));
        if let (Some(semantic), Some(obj)) = (
            found.searcher.semantic(),
            result
                .structured_content
                .as_mut()
                .and_then(|v| v.as_object_mut()),
        ) {
            obj.insert("semantic".into(), semantic.into());
        }
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
        let page = blocking(move || page(hipo.get_lines(&target)?)).await?;
        let page = match page {
            Ok(p) => p,
            Err(e @ (Error::Query(_) | Error::BadInput { .. })) => {
                return Err(invalid(arg, strip_query_prefix(&e)));
            }
            Err(e) => return Ok(failed(&e, self.lock_wait())),
        };
        let out = page.render();
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
        hipo_core::parse_query(&args.request).map_err(|e| invalid("request", e))?;
        let mode = args.mode()?;
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
        // Asked for explicitly, the pack never abstains: the floor is for
        // recall nobody asked for (the prompt hook).
        let opts = hipo_core::RecallOptions {
            budget,
            floor: 0.0,
            today: chrono::Local::now().date_naive(),
        };
        let request = args.request.clone();
        let found =
            blocking(move || hipo.recall_in(mode, &request, &opts, wait, &NoProgress)).await?;
        let (pack, searcher) = match found {
            Ok(f) => f,
            Err(Error::Usage(why)) if mode.is_some() => return Err(invalid("mode", why)),
            Err(e) => return Ok(failed(&e, wait)),
        };
        let warnings = warnings_of(&searcher);
        let mut out = freshness(searcher.is_fresh(), &warnings);
        let pack_text = hipo_core::render_pack(&pack);
        if pack_text.is_empty() {
            out.push_str("nothing in memory matches that request\n");
        }
        out.push_str(&pack_text);
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
            hipo.status(&llm, today, chrono::Utc::now(), wait)
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
        let options = hipo_core::CompactOptions {
            dry_run: args.dry_run.unwrap_or(false),
            ..hipo_core::CompactOptions::new(today)
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

/// What a searcher has to tell the agent: a stale index, and a configured
/// embedding model that failed (the results are then lexical).
fn warnings_of(searcher: &hipo_core::Searcher) -> Vec<String> {
    let mut warnings = searcher.warnings().to_vec();
    warnings.extend(
        searcher
            .semantic_notes()
            .into_iter()
            .map(|why| format!("{why}; searching lexically")),
    );
    warnings
}
