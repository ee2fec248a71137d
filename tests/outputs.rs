//! What people and agents read, as inline snapshots: the real binary's
//! output on temp copies of `fixtures/sample`, compacted as of
//! [`TODAY`] so that every line is the same on every run. Only what
//! depends on the machine is masked: the temp directory (`[PROJECT]`), the
//! wall clock (`[TIME]`), timings (`[MS]`) and the store's size on disk
//! (`[SIZE]`).
//!
//! A change to an output fails here with a diff. When the change is meant
//! (ranking, a recall gate, new wording), update the snapshots with
//! `cargo insta test --review` (or `--accept`): see docs/testing.md.

use crate::common;

use common::mcp_client::Client;
use common::text::{masked, pretty};
use common::{Project, SAMPLE_TODAY as TODAY, Succeeds};
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// `hipo ARGS…`, which must succeed: its stdout, masked.
fn stdout(p: &Project, args: &[&str]) -> String {
    let out = p.hipo().args(args).succeeds();
    masked(p, &String::from_utf8(out.stdout).unwrap())
}

#[test]
fn compact_report_first_run_then_a_no_op() {
    let p = Project::sample();
    let first = stdout(&p, &["compact", "--today", TODAY]);
    insta::assert_snapshot!(first, @"
    wrote 26 node(s) (today 2027-01-21):
      new              memory/daily/2026-12-14.md                   fixed
      new              memory/daily/2026-12-15.md                   fixed
      new              memory/daily/2026-12-17.md                   fixed
      new              memory/daily/2026-12-18.md                   fixed
      new              memory/daily/2026-12-21.md                   fixed
      new              memory/daily/2026-12-22.md                   fixed
      new              memory/daily/2026-12-28.md                   fixed
      new              memory/daily/2026-12-30.md                   fixed
      new              memory/daily/2027-01-01.md                   fixed
      new              memory/daily/2027-01-03.md                   fixed
      new              memory/daily/2027-01-05.md                   fixed
      new              memory/daily/2027-01-07.md                   fixed
      new              memory/daily/2027-01-08.md                   fixed
      new              memory/daily/2027-01-12.md                   needs-summarization
      new              memory/daily/2027-01-14.md                   fixed
      new              memory/daily/2027-01-18.md                   fixed
      new              memory/daily/2027-01-20.md                   fixed
      new              memory/weekly/2026-W51.md                    fixed
      new              memory/weekly/2026-W52.md                    fixed
      new              memory/weekly/2026-W53.md                    fixed
      new              memory/weekly/2027-W01.md                    fixed
      new              memory/weekly/2027-W02.md                    tentative
      new              memory/weekly/2027-W03.md                    tentative
      new              memory/monthly/2026-12.md                    fixed
      new              memory/monthly/2027-01.md                    tentative
      new              memory/ROOT.md                               tentative
    tree:
      daily      17  (fixed 16, tentative 0, needs-summarization 1)
      weekly      6  (fixed 4, tentative 2, needs-summarization 0)
      monthly     2  (fixed 1, tentative 1, needs-summarization 0)
      root        1  (fixed 0, tentative 1, needs-summarization 0)
    needs summarization (1):
      memory/daily/2027-01-12.md
    ");
    insta::assert_snapshot!(stdout(&p, &["compact", "--today", TODAY]), @"
    tree is up to date (26 nodes, today 2027-01-21)
    tree:
      daily      17  (fixed 16, tentative 0, needs-summarization 1)
      weekly      6  (fixed 4, tentative 2, needs-summarization 0)
      monthly     2  (fixed 1, tentative 1, needs-summarization 0)
      root        1  (fixed 0, tentative 1, needs-summarization 0)
    needs summarization (1):
      memory/daily/2027-01-12.md
    ");
}

#[test]
fn search_hits_as_people_read_them() {
    let p = Project::compacted_sample();
    insta::assert_snapshot!(stdout(&p, &["search", "postgres 16 cutover", "-n", "3"]), @"
    memory/2027-01-08.md:3  2027-01-08 › Postgres 16 cutover  [raw, 2027-01-08, project] 27.72 #c3aea6d95e0d
        ## **Postgres** **16** **cutover** [project] - request: switch production writes to **Postgres** **16** - analysis: replication lag 0 bytes at 14:00 KST; sequences synced - decisions: cut over at 14:05 KST with 4 minutes read-only -…
        also in: memory/daily/2027-01-08.md:14, memory/weekly/2027-W01.md:45, memory/monthly/2027-01.md:103

    memory/2027-01-05.md:3  2027-01-05 › Cutover rehearsal  [raw, 2027-01-05, project] 21.56 #4498483c8cb6
        ## **Cutover** rehearsal [project] - request: rehearse the **Postgres** **16** **cutover** on staging - analysis: sequence values are not replicated by logical replication - decisions: sync sequences with a script right before…
        also in: memory/daily/2027-01-05.md:15, memory/weekly/2027-W01.md:20, memory/monthly/2027-01.md:78

    memory/2026-12-14.md:3  2026-12-14 › Postgres 16 migration kickoff  [raw, 2026-12-14, project] 14.39 #b8280a07c86f
        ## **Postgres** **16** migration kickoff [project] - request: plan the move of the orders service from **Postgres** 13 to **16** - analysis: pg_upgrade needs 40 min downtime; logical replication needs none but doubles disk for a week -…
        also in: memory/daily/2026-12-14.md:16, memory/weekly/2026-W51.md:25, memory/monthly/2026-12.md:34
    ");
    insta::assert_snapshot!(stdout(&p, &["search", "배포 일정", "-n", "2"]), @"
    memory/2026-12-17.md:3  2026-12-17 › 배포 일정 회의  [raw, 2026-12-17, project] 28.97 #e1f4f7d392f7
        ## **배포** **일정** 회의 [project] - request: 연말 **배포** **일정** 정리 - analysis: 12월 24일부터 1월 2일까지 온콜 인원이 2명뿐임 - decisions: 금요일 **배포**는 하지 않기로 함; 12월 22일이…
        also in: memory/daily/2026-12-17.md:15, memory/weekly/2026-W51.md:55, memory/monthly/2026-12.md:64

    memory/ROOT.md:22  Historical Summary  [root, project, tentative] 7.80 #66e5d8013418
        …ci-flakiness-in-integration-tests, tokio-console-docs, **배포**-**일정**-회의, jisoo-joins-on-call, replication-slot-lag-alert (+7 more) → memory/monthly/2026-12.md - 2027-01: 9 day(s) logged; 새해-장애-대응,…
    ");
}

/// `hipo --json search QUERY -n N` as people read JSON, its timing masked.
fn search_json(p: &Project, query: &str, n: &str) -> String {
    let mut v = p.json(["search", query, "-n", n]);
    v["took_ms"] = json!("[MS]");
    pretty(&v)
}

#[test]
fn search_hit_as_programs_read_it() {
    let p = Project::compacted_sample();
    insta::assert_snapshot!(search_json(&p, "postgres 16 cutover", "1"), @r###"
    {
      "query": "postgres 16 cutover",
      "took_ms": "[MS]",
      "fresh": true,
      "hits": [
        {
          "id": "#c3aea6d95e0d",
          "path": "memory/2027-01-08.md",
          "line": 3,
          "lines": [3, 8],
          "heading": "2027-01-08 › Postgres 16 cutover",
          "level": "raw",
          "date": "2027-01-08",
          "period": "2027-01-08",
          "type": "project",
          "score": 27.724125,
          "relevance": 0.3159533,
          "coverage": 1.0,
          "snippet": "## **Postgres** **16** **cutover** [project] - request: switch production writes to **Postgres** **16** - analysis: replication lag 0 bytes at 14:00 KST; sequences synced - decisions: cut over at 14:05 KST with 4 minutes read-only -…",
          "snippet_text": "## Postgres 16 cutover [project] - request: switch production writes to Postgres 16 - analysis: replication lag 0 bytes at 14:00 KST; sequences synced - decisions: cut over at 14:05 KST with 4 minutes read-only -…",
          "highlights": [[3, 11], [12, 14], [15, 22], [72, 80], [81, 83]],
          "also_in": [
            {"path": "memory/daily/2027-01-08.md", "lines": [14, 19], "level": "daily"},
            {"path": "memory/weekly/2027-W01.md", "lines": [45, 50], "level": "weekly"},
            {"path": "memory/monthly/2027-01.md", "lines": [103, 108], "level": "monthly"}
          ]
        }
      ]
    }
    "###);
}

/// A root hit has a status and no copies elsewhere.
#[test]
fn korean_search_hits_as_programs_read_them() {
    let p = Project::compacted_sample();
    insta::assert_snapshot!(search_json(&p, "배포 일정", "2"), @r###"
    {
      "query": "배포 일정",
      "took_ms": "[MS]",
      "fresh": true,
      "hits": [
        {
          "id": "#e1f4f7d392f7",
          "path": "memory/2026-12-17.md",
          "line": 3,
          "lines": [3, 8],
          "heading": "2026-12-17 › 배포 일정 회의",
          "level": "raw",
          "date": "2026-12-17",
          "period": "2026-12-17",
          "type": "project",
          "score": 28.970142,
          "relevance": 0.33015335,
          "coverage": 1.0,
          "snippet": "## **배포** **일정** 회의 [project] - request: 연말 **배포** **일정** 정리 - analysis: 12월 24일부터 1월 2일까지 온콜 인원이 2명뿐임 - decisions: 금요일 **배포**는 하지 않기로 함; 12월 22일이…",
          "snippet_text": "## 배포 일정 회의 [project] - request: 연말 배포 일정 정리 - analysis: 12월 24일부터 1월 2일까지 온콜 인원이 2명뿐임 - decisions: 금요일 배포는 하지 않기로 함; 12월 22일이…",
          "highlights": [[3, 9], [10, 16], [52, 58], [59, 65], [170, 176]],
          "also_in": [
            {"path": "memory/daily/2026-12-17.md", "lines": [15, 20], "level": "daily"},
            {"path": "memory/weekly/2026-W51.md", "lines": [55, 60], "level": "weekly"},
            {"path": "memory/monthly/2026-12.md", "lines": [64, 69], "level": "monthly"}
          ]
        },
        {
          "id": "#66e5d8013418",
          "path": "memory/ROOT.md",
          "line": 22,
          "lines": [20, 23],
          "heading": "Historical Summary",
          "level": "root",
          "type": "project",
          "status": "tentative",
          "score": 7.7998476,
          "relevance": 0.08888965,
          "coverage": 1.0,
          "snippet": "…ci-flakiness-in-integration-tests, tokio-console-docs, **배포**-**일정**-회의, jisoo-joins-on-call, replication-slot-lag-alert (+7 more) → memory/monthly/2026-12.md - 2027-01: 9 day(s) logged; 새해-장애-대응,…",
          "snippet_text": "…ci-flakiness-in-integration-tests, tokio-console-docs, 배포-일정-회의, jisoo-joins-on-call, replication-slot-lag-alert (+7 more) → memory/monthly/2026-12.md - 2027-01: 9 day(s) logged; 새해-장애-대응,…",
          "highlights": [[58, 64], [65, 71]],
          "also_in": []
        }
      ]
    }
    "###);
}

#[test]
fn status_after_a_compaction_and_after_a_late_note() {
    let p = Project::compacted_sample();
    insta::assert_snapshot!(stdout(&p, &["status", "--today", TODAY]), @"
    project [PROJECT] (today 2027-01-21)
    tree:
      daily      17  (fixed 16, tentative 0, needs-summarization 1)
      weekly      6  (fixed 4, tentative 2, needs-summarization 0)
      monthly     2  (fixed 1, tentative 1, needs-summarization 0)
      root        1  (fixed 0, tentative 1, needs-summarization 0)
    needs summarization (1):
      memory/daily/2027-01-12.md (227 source lines)
        no model configured (llm.backend is none): the agent or `hipo summarize --llm ollama` fills it in
    changes: tree is up to date
    compaction due: no; last run [TIME], 0 raw lines and 0 checkpoints since
    store: [PROJECT]/.hipo/store.redb ([SIZE], schema 3, 46 files, 26 nodes)
    problems: none
    ");
    p.append("memory/2027-01-08.md", "\n## Late note [project]\n- x\n");
    insta::assert_snapshot!(stdout(&p, &["status", "--today", TODAY]), @"
    project [PROJECT] (today 2027-01-21)
    tree:
      daily      17  (fixed 16, tentative 0, needs-summarization 1)
      weekly      6  (fixed 4, tentative 2, needs-summarization 0)
      monthly     2  (fixed 1, tentative 1, needs-summarization 0)
      root        1  (fixed 0, tentative 1, needs-summarization 0)
    needs summarization (1):
      memory/daily/2027-01-12.md (227 source lines)
        no model configured (llm.backend is none): the agent or `hipo summarize --llm ollama` fills it in
    changed files: 1 since the last compaction:
      memory/2027-01-08.md
    changes: 4 node(s) to rewrite on the next compact:
      source changed   memory/daily/2027-01-08.md
      source changed   memory/weekly/2027-W01.md
      source changed   memory/monthly/2027-01.md
      source changed   memory/ROOT.md
    compaction due: no; last run [TIME], 0 raw lines and 0 checkpoints since
    store: [PROJECT]/.hipo/store.redb ([SIZE], schema 3, 46 files, 26 nodes)
    problems: none
    ");
}

#[test]
fn status_as_programs_read_it() {
    let p = Project::compacted_sample();
    let mut v = p.json(["status", "--today", TODAY]);
    v["root"] = json!("[PROJECT]");
    v["triggers"]["last_compaction_run"] = json!("[TIME]");
    v["store"]["path"] = json!("[PROJECT]/.hipo/store.redb");
    v["store"]["bytes"] = json!("[SIZE]");
    insta::assert_snapshot!(pretty(&v), @r#"
    {
      "root": "[PROJECT]",
      "today": "2027-01-21",
      "levels": {
        "daily": {"total": 17, "tentative": 0, "fixed": 16, "needs_summarization": 1},
        "weekly": {"total": 6, "tentative": 2, "fixed": 4, "needs_summarization": 0},
        "monthly": {"total": 2, "tentative": 1, "fixed": 1, "needs_summarization": 0},
        "root": {"total": 1, "tentative": 1, "fixed": 0, "needs_summarization": 0}
      },
      "backlog": [
        {
          "path": "memory/daily/2027-01-12.md",
          "level": "daily",
          "status": "needs-summarization",
          "lines": 8,
          "source_lines": 227
        }
      ],
      "waiting_because": {
        "memory/daily/2027-01-12.md": "no model configured (llm.backend is none): the agent or `hipo summarize --llm ollama` fills it in"
      },
      "writers": {"copy": 24, "mechanical": 1, "none": 1},
      "parts_by_hipo": {},
      "changed_files": [],
      "out_of_date": [],
      "triggers": {
        "last_compaction_run": "[TIME]",
        "cooldown_hours": 3.0,
        "cooldown_elapsed": false,
        "raw_lines_since_last_compaction": 0,
        "checkpoints_since_last_compaction": 0,
        "due": false,
        "reasons": []
      },
      "store": {
        "path": "[PROJECT]/.hipo/store.redb",
        "bytes": "[SIZE]",
        "schema": 3,
        "files": 46,
        "nodes": 26,
        "warning": null
      },
      "problems": []
    }
    "#);
}

#[test]
fn recall_packs_what_bears_on_a_prompt_and_nothing_else() {
    let p = Project::compacted_sample();
    let asked = [
        "recall",
        "--today",
        TODAY,
        "when did we cut over to postgres 16?",
    ];
    insta::assert_snapshot!(stdout(&p, &asked), @"
    # hipo recall: when did we cut over to postgres 16?
    - postgres-16-cutover [project, 13d]
    - postgres-16-migration-kickoff [project, 38d]
    ## memory/2027-01-08.md:4-8 Postgres 16 cutover
      - request: switch production writes to Postgres 16
      - analysis: replication lag 0 bytes at 14:00 KST; sequences synced
      - decisions: cut over at 14:05 KST with 4 minutes read-only
      - outcome: done; old primary kept read-only for 7 days
      - references: knowledge/postgres-migration.md
    ## memory/2026-12-14.md:4-8 Postgres 16 migration kickoff (38 days old: check it still holds)
      - request: plan the move of the orders service from Postgres 13 to 16
      - analysis: pg_upgrade needs 40 min downtime; logical replication needs none but doubles disk for a week
      - decisions: use logical replication (pglogical is not needed, native publications suffice)
      - outcome: plan drafted in knowledge/postgres-migration.md
      - references: knowledge/postgres-migration.md
    ## knowledge/postgres-migration.md:10 Postgres 13 → 16 migration (orders service) › Replication slot hygiene
      An idle slot retains WAL forever. Drop slots without a subscriber; alert on lag over 1 GB.
    ");
    let unrelated = [
        "recall",
        "--today",
        TODAY,
        "write a haiku about autumn leaves",
    ];
    insta::assert_snapshot!(stdout(&p, &unrelated), @"");
}

#[test]
fn mcp_search_and_get_texts() {
    let p = Project::compacted_sample();
    let mut c = Client::start(&p, &[], &[]);
    let r = c.call(
        "search",
        json!({"query": "when did we cut over to postgres 16?", "limit": 3}),
    );
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    insta::assert_snapshot!(text, @"
    memory/2027-01-08.md:3  2027-01-08 › Postgres 16 cutover  [raw, 2027-01-08, project] 29.77 #c3aea6d95e0d
        ## **Postgres** **16** cutover [project] - request: switch production writes to **Postgres** **16** - analysis: replication lag 0 bytes at 14:00 KST; sequences synced - decisions: **cut** **over** at 14:05 KST with 4 minutes read-only -…
        also in: memory/daily/2027-01-08.md:14, memory/weekly/2027-W01.md:45, memory/monthly/2027-01.md:103

    memory/2026-12-14.md:3  2026-12-14 › Postgres 16 migration kickoff  [raw, 2026-12-14, project] 11.31 #b8280a07c86f
        ## **Postgres** **16** migration kickoff [project] - request: plan the move of the orders service from **Postgres** 13 to **16** - analysis: pg_upgrade needs 40 min downtime; logical replication needs none but doubles disk for a week -…
        also in: memory/daily/2026-12-14.md:16, memory/weekly/2026-W51.md:25, memory/monthly/2026-12.md:34

    knowledge/postgres-migration.md:10  Postgres 13 → 16 migration (orders service) › Replication slot hygiene  [knowledge, project] 9.71 #29c4257325d5
        …WAL forever. Drop slots without a subscriber; alert on lag **over** 1 GB.
    ");
    let id = r["result"]["structuredContent"]["hits"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    insta::assert_snapshot!(c.text("get", json!({"id": id})), @"
    memory/2027-01-08.md (lines 3-8 of 8)
    3  ## Postgres 16 cutover [project]
    4  - request: switch production writes to Postgres 16
    5  - analysis: replication lag 0 bytes at 14:00 KST; sequences synced
    6  - decisions: cut over at 14:05 KST with 4 minutes read-only
    7  - outcome: done; old primary kept read-only for 7 days
    8  - references: knowledge/postgres-migration.md
    ");
    let slice = c.text(
        "get",
        json!({"path": "memory/2027-01-20.md", "line": 3, "count": 3}),
    );
    insta::assert_snapshot!(slice, @"
    memory/2027-01-20.md (lines 3-5 of 11)
    3  ## Q1 roadmap draft [project]
    4  - request: draft the Q1 roadmap
    5  - decisions: priorities are invoice splitting GA, read replicas for analytics, CI under 10 minutes
    ");
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn mcp_recall_status_checkpoint_and_timeline_texts() {
    let p = Project::compacted_sample();
    let mut c = Client::start(&p, &[], &[]);
    let pack = c.text(
        "recall",
        json!({"request": "postgres cutover", "budget": 120}),
    );
    insta::assert_snapshot!(pack, @"
    # hipo recall: postgres cutover
    - postgres-16-cutover [project, 13d]
    - cutover-rehearsal [project, 16d]
    ## memory/2027-01-08.md:4-8 Postgres 16 cutover
      - request: switch production writes to Postgres 16
      - analysis: replication lag 0 bytes at 14:00 KST; sequences synced
      - decisions: cut over at 14:05 KST with 4 minutes read-only
      - outcome: done; old primary kept read-only for 7 days
      - references: knowledge/postgres-migration.md
    ");
    insta::assert_snapshot!(masked(&p, &c.text("status", json!({}))), @"
    project [PROJECT] (today 2027-01-21)
    tree:
      daily      17  (fixed 16, tentative 0, needs-summarization 1)
      weekly      6  (fixed 4, tentative 2, needs-summarization 0)
      monthly     2  (fixed 1, tentative 1, needs-summarization 0)
      root        1  (fixed 0, tentative 1, needs-summarization 0)
    needs summarization (1):
      memory/daily/2027-01-12.md (227 source lines)
        no model configured (llm.backend is none): the agent or `hipo summarize --llm ollama` fills it in
    changes: tree is up to date
    compaction due: no; last run [TIME], 0 raw lines and 0 checkpoints since
    store: [PROJECT]/.hipo/store.redb ([SIZE], schema 3, 46 files, 26 nodes)
    problems: none
    ");
    let done = c.text(
        "checkpoint",
        json!({
            "type": "feedback",
            "topic": "Kayak naming rule",
            "fields": {"rule": "name kayaks after rivers", "why": "the user likes it"},
        }),
    );
    insta::assert_snapshot!(done, @"appended 5 line(s) to memory/2027-01-21.md:3");
    let tl = c.text(
        "timeline",
        json!({"from": "2027-01-18", "to": "2027-01-21"}),
    );
    insta::assert_snapshot!(tl, @"
    2027-01-18..2027-01-21: 9 line(s), newest first
    2027-01     memory/monthly/2027-01.md:1  monthly node (tentative): holiday-on-call-handover [project], disk-pressure-on-replica [project], prefers-tables-for-comparisons [user], 새해-장애-대응 [project], quiet-weekend [project], cutover-rehearsal [project], use-kst-in-all-timestamps [feedback], 온콜-회고 [project] and 18 more
    2027-W03    memory/weekly/2027-W03.md:1  weekly node (tentative): old-primary-decommissioned [project], tom-is-on-leave [user], q1-roadmap-draft [project], 무제-메모 [project]
    2027-01-21  memory/2027-01-21.md:3  [feedback] Kayak naming rule
    2027-01-20  memory/daily/2027-01-20.md:1  daily node (fixed): q1-roadmap-draft [project], 무제-메모 [project]
    2027-01-20  memory/2027-01-20.md:9  [project] 무제 메모
    2027-01-20  memory/2027-01-20.md:3  [project] Q1 roadmap draft
    2027-01-18  memory/daily/2027-01-18.md:1  daily node (fixed): old-primary-decommissioned [project], tom-is-on-leave [user]
    2027-01-18  memory/2027-01-18.md:8  [user] Tom is on leave
    2027-01-18  memory/2027-01-18.md:3  [project] Old primary decommissioned
    ");
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
}

/// `hipo hook claude-code EVENT` as Claude Code runs it, for the hook JSON
/// of a session whose transcript is `sess-1.jsonl`: its stdout.
fn hook(p: &Project, event: &str, name: &str, extra: &str) -> String {
    let input = format!(
        r#"{{"session_id":"sess-1","transcript_path":"{}","cwd":"{}","hook_event_name":"{name}"{extra}}}"#,
        p.path().join("sess-1.jsonl").display(),
        p.path().display()
    );
    let out = common::run_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_hipo"))
            .args(["--today", TODAY, "hook", "claude-code", event])
            .current_dir(p.path().parent().unwrap())
            .env_remove("HIPO_DIR")
            .env("HIPO_LOCK_WAIT", "20"),
        &input,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
    String::from_utf8(out.stdout).unwrap()
}

/// One turn of a Claude Code transcript (`~/.claude/projects/…/ID.jsonl`).
const TRANSCRIPT: &str = concat!(
    r#"{"type":"user","uuid":"u1","sessionId":"sess-1","timestamp":"2027-01-21T09:30:00Z","message":{"role":"user","content":"the staging database moves to Frankfurt on Friday"}}"#,
    "\n",
    r#"{"type":"assistant","uuid":"a1","sessionId":"sess-1","timestamp":"2027-01-21T09:30:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted: staging moves to Frankfurt (eu-central-1) on Friday."}]}}"#,
    "\n"
);

#[test]
fn claude_code_hooks_stdout() {
    let p = Project::compacted_sample();
    p.write("SCRATCHPAD.md", "# Scratchpad\n\nnext: read replicas\n");
    p.write("sess-1.jsonl", TRANSCRIPT);
    let start = r#","source":"startup""#;
    // ROOT.md whole (its text is `sample::sample_root_snapshot`'s).
    let root = p.read("memory/ROOT.md");
    let lines = root.lines().count();
    let context = hook(&p, "session-start", "SessionStart", start)
        .replace(root.trim_end(), &format!("[memory/ROOT.md, {lines} lines]"));
    insta::assert_snapshot!(context, @"
    hipo memory for this project (memory/ROOT.md and the working files). Search it with `hipo search QUERY`; record outcomes with `hipo checkpoint`.

    === memory/ROOT.md ===
    [memory/ROOT.md, 58 lines]

    === SCRATCHPAD.md ===
    # Scratchpad

    next: read replicas
    ");
    // CLAUDE.md imports ROOT.md: Claude Code loads it, the hook is quiet.
    p.write(
        "CLAUDE.md",
        "# My project\n\n@memory/ROOT.md\n@SCRATCHPAD.md\n",
    );
    insta::assert_snapshot!(hook(&p, "session-start", "SessionStart", start), @"");
    let prompt = r#","prompt":"when did we cut over to postgres 16?""#;
    insta::assert_snapshot!(hook(&p, "prompt", "UserPromptSubmit", prompt), @"
    Passages from hipo memory that may bear on this prompt (hipo get PATH:LINE for more):
    # hipo recall: when did we cut over to postgres 16?
    - postgres-16-cutover [project, 13d]
    - postgres-16-migration-kickoff [project, 38d]
    ## memory/2027-01-08.md:4-8 Postgres 16 cutover
      - request: switch production writes to Postgres 16
      - analysis: replication lag 0 bytes at 14:00 KST; sequences synced
      - decisions: cut over at 14:05 KST with 4 minutes read-only
      - outcome: done; old primary kept read-only for 7 days
      - references: knowledge/postgres-migration.md
    ## memory/2026-12-14.md:4-8 Postgres 16 migration kickoff (38 days old: check it still holds)
      - request: plan the move of the orders service from Postgres 13 to 16
      - analysis: pg_upgrade needs 40 min downtime; logical replication needs none but doubles disk for a week
      - decisions: use logical replication (pglogical is not needed, native publications suffice)
      - outcome: plan drafted in knowledge/postgres-migration.md
      - references: knowledge/postgres-migration.md
    ## knowledge/postgres-migration.md:10 Postgres 13 → 16 migration (orders service) › Replication slot hygiene
      An idle slot retains WAL forever. Drop slots without a subscriber; alert on lag over 1 GB.
    ");
    let haiku = r#","prompt":"write a haiku about autumn leaves""#;
    insta::assert_snapshot!(hook(&p, "prompt", "UserPromptSubmit", haiku), @"");
    // Stop captures the transcript and prints nothing: on Claude Code any
    // output there makes the conversation go on.
    insta::assert_snapshot!(hook(&p, "stop", "Stop", ""), @"");
    // What it captured, as search and the summaries read it later.
    insta::assert_snapshot!(p.read("memory/2027-01-21.md"), @"
    # 2027-01-21

    ## Session 2027-01-21 09:30 the staging database moves to Frankfurt on Friday (claude-code) [project]
    User: the staging database moves to Frankfurt on Friday
    Assistant: Noted: staging moves to Frankfurt (eu-central-1) on Friday.
    <!-- hipo:ingest claude-code sess_1 389 line=c82d56f2566d23d8 -->
    ");
    insta::assert_snapshot!(hook(&p, "session-end", "SessionEnd", ""), @"");
}

#[test]
fn init_report_and_doctor_after_it() {
    let p = Project::sample();
    let bin = Path::new(env!("CARGO_BIN_EXE_hipo")).parent().unwrap();
    // `hipo` on PATH, as after `cargo install`.
    let run = |args: &[&str], path: &Path| {
        let out = p
            .hipo()
            .args(args)
            .env("PATH", path)
            .env_remove("HIPO_BIN")
            .output()
            .unwrap();
        let code = out.status.code().unwrap();
        format!(
            "{}[exit {code}]",
            masked(&p, &String::from_utf8_lossy(&out.stdout))
        )
    };
    insta::assert_snapshot!(run(&["init", "--platform", "claude-code"], bin), @"
    initialised [PROJECT]
      created memory/daily/
      created memory/weekly/
      created memory/monthly/
      created memory/ROOT.md
      created .gitignore entry .hipo/
      claude-code: created SCRATCHPAD.md
      claude-code: created WORKING.md
      claude-code: created TASK-QUEUE.md
      claude-code: created CLAUDE.md
      claude-code: created .claude/skills/hipo-memory/SKILL.md
      claude-code: created .claude/skills/hipo-recall/SKILL.md
      claude-code: created .claude/skills/hipo-flush/SKILL.md
      claude-code: created .claude/settings.local.json
      claude-code: created .mcp.json
    [exit 0]
    ");
    insta::assert_snapshot!(run(&["doctor"], bin), @"
    ok   claude-code: hooks installed in [PROJECT]/.claude/settings.local.json
    [exit 0]
    ");
    insta::assert_snapshot!(run(&["init", "--platform", "claude-code"], bin), @"
    [PROJECT] is already a hipo project; nothing changed
    [exit 0]
    ");
    // Not on PATH: the hooks and the MCP entry would not run.
    let empty = tempfile::tempdir().unwrap();
    insta::assert_snapshot!(run(&["doctor"], empty.path()), @"
    fix  claude-code: the SessionStart hook runs `hipo hook claude-code session-start`, but that program is not there: put hipo on PATH or run `hipo init --platform claude-code` again
    fix  claude-code: the UserPromptSubmit hook runs `hipo hook claude-code prompt`, but that program is not there: put hipo on PATH or run `hipo init --platform claude-code` again
    fix  claude-code: the Stop hook runs `hipo hook claude-code stop`, but that program is not there: put hipo on PATH or run `hipo init --platform claude-code` again
    fix  claude-code: the PreCompact hook runs `hipo hook claude-code pre-compact`, but that program is not there: put hipo on PATH or run `hipo init --platform claude-code` again
    fix  claude-code: the SessionEnd hook runs `hipo hook claude-code session-end`, but that program is not there: put hipo on PATH or run `hipo init --platform claude-code` again
    ok   claude-code: hooks installed in [PROJECT]/.claude/settings.local.json
    fix  the MCP server is registered as `hipo mcp`, but `hipo` is not on PATH: install it there (cargo install --path .)
    [exit 1]
    ");
}
