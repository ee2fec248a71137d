//! The shipped sample memory (`fixtures/sample`), compacted by the real binary.

use crate::common;

use common::Project;

const TODAY: &str = "2027-01-21";

#[test]
fn sample_compacts_cleanly_and_redacts_secrets() {
    let p = Project::sample();
    let (code, out, err) = p.compact(TODAY);
    assert_eq!(code, 0, "{out}{err}");
    let secrets = [
        "AKIAIOSFODNN7EXAMPLE",
        "hunter2secret",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "xoxb-2048",
        "AbC123dEf456GhI789",
    ];
    for (path, bytes) in p.snapshot() {
        let text = String::from_utf8_lossy(&bytes);
        let is_raw = path.starts_with("memory")
            && path.components().count() == 2
            && path.to_string_lossy() != "memory/ROOT.md";
        for s in secrets {
            assert!(is_raw || !text.contains(s), "{} leaks {s}", path.display());
        }
    }
    assert!(
        p.read("memory/2026-12-22.md")
            .contains("AKIAIOSFODNN7EXAMPLE"),
        "raw logs are never modified"
    );
    assert!(
        p.read("memory/daily/2026-12-22.md")
            .contains("postgres://app:[REDACTED]@db.internal:5432/app")
    );
}

#[test]
fn sample_tree_shape() {
    let p = Project::sample();
    p.compact(TODAY);
    // 2026-W53 (Dec 28 .. Jan 3) feeds both months.
    for m in ["memory/monthly/2026-12.md", "memory/monthly/2027-01.md"] {
        assert!(p.read(m).contains("- memory/weekly/2026-W53.md"), "{m}");
    }
    let long = p.read("memory/daily/2027-01-12.md");
    assert!(
        long.contains("status: needs-summarization") && long.contains("source-lines: 227"),
        "{long}"
    );
    let w02 = p.read("memory/weekly/2027-W02.md");
    assert!(
        w02.contains("pending:\n- memory/daily/2027-01-12.md"),
        "{w02}"
    );
    assert!(
        p.read("memory/daily/2026-12-17.md")
            .contains("- 배포-일정-회의 [project]")
    );
    let state: serde_json::Value =
        serde_json::from_str(&p.read("memory/.compaction-state.json")).unwrap();
    assert_eq!(state["checkpointsSinceLastCompaction"], 0);
}

/// The sample's ROOT as an agent loads it without a model: its rules and
/// facts in their own words in the Topics Index (rules first), what each
/// recent entry decided in Active Context, the load-test series folded.
#[test]
fn sample_root_snapshot() {
    let p = Project::sample();
    p.compact(TODAY);
    insta::assert_snapshot!(p.read("memory/ROOT.md"), @r###"
---
type: root
status: tentative
last-updated: 2027-01-21
---

## Active Context (recent ~7 days)
<!-- hipo:auto -->
- 2027-01-20 q1-roadmap-draft: priorities are invoice splitting GA, read replicas for analytics, CI under 10 minutes → draft in plans/release-2027-q1.md
- 2027-01-20 무제-메모: 분석용 읽기 전용 복제본은 2월에 추가 예정
- 2027-01-18 old-primary-decommissioned: take a final pg_dump to cold storage, then destroy → done; cost down 18%

## Recent Patterns
<!-- hipo:auto -->
- recurring (last 30 days): cutover (2 entries, 2 days), invoice (2 entries, 2 days), load test round (8 entries, 1 day)
- rules added or changed (last 30 days): write-the-lock-order-down (new, 2027-01-12), use-kst-in-all-timestamps (new, 2027-01-05)
- facts about people added or changed (last 30 days): tom-is-on-leave (new, 2027-01-18), prefers-tables-for-comparisons (new, 2026-12-30)
- last 30 days: 2 user, 2 feedback, 21 project, 1 reference entries

## Historical Summary
<!-- hipo:auto -->
- 2026-12: 8 day(s) logged; postgres-16-migration-kickoff, mina-prefers-async-reviews, keep-answers-short, ci-flakiness-in-integration-tests, tokio-console-docs, 배포-일정-회의, jisoo-joins-on-call, replication-slot-lag-alert (+7 more) → memory/monthly/2026-12.md
- 2027-01: 9 day(s) logged; 새해-장애-대응, quiet-weekend, cutover-rehearsal, use-kst-in-all-timestamps, 온콜-회고, grafana-dashboards, postgres-16-cutover, deadlock-in-invoice-splitting (+15 more) → memory/monthly/2027-01.md

## Topics Index
<!-- hipo:auto -->
- write-the-lock-order-down [feedback, 9d]: document lock order in a comment at every multi-table transaction; how to apply: `// lock order: invoices -> invoice_lines -> payments`
- use-kst-in-all-timestamps [feedback, 16d]: write times in KST with the zone, e.g. 15:10 KST; how to apply: convert log times before quoting them
- dont-restart-prod-databases-without-asking [feedback, 34d]: never restart or fail over a production database without explicit approval; how to apply: propose the command and wait for a yes, even in an incident
- keep-answers-short [feedback, 38d]: answer in at most five bullet points unless asked for detail; how to apply: lead with the decision, then the reason, skip background
- tom-is-on-leave [user, 3d]: Tom is on leave until February 3; route his reviews to Mina
- prefers-tables-for-comparisons [user, 22d]: the user wants options compared in a Markdown table, not prose
- jisoo-joins-on-call [user, 35d]: Jisoo (지수) joins the on-call rotation from January; prefers Korean for incident notes; 지수 님은 한국어로 장애 보고서를 쓰는 것을 선호함
- mina-prefers-async-reviews [user, 38d]: Mina (backend lead) wants design reviews as written docs, not meetings; she reads them Tuesday and Thursday mornings KST
- q1-roadmap-draft [project, 1d]
- 무제-메모 [project, 1d]
- old-primary-decommissioned [project, 3d]
- flag-split_invoices-on-in-production [project, 7d]
- deadlock-in-invoice-splitting [project, 9d]
- load-test-round-1–8 [project, 9d]: 8 topics
- stack-trace-from-staging [project, 9d]
- postgres-16-cutover [project, 13d]
- 온콜-회고 [project, 14d]
- cutover-rehearsal [project, 16d]
- quiet-weekend [project, 18d]
- 새해-장애-대응 [project, 20d]
- disk-pressure-on-replica [project, 22d]
- holiday-on-call-handover [project, 24d]
- release-3.8-shipped [project, 30d]
- vault-access-for-ci [project, 30d]
- release-3.8-checklist [project, 31d]
- replication-slot-lag-alert [project, 34d]
- 배포-일정-회의 [project, 35d]
- ci-flakiness-in-integration-tests [project, 37d]
- postgres-16-migration-kickoff [project, 38d]
- grafana-dashboards [reference, 14d]
- tokio-console-docs [reference, 37d] ?
"###);
}

#[test]
fn sample_status_json() {
    let p = Project::sample();
    let out = p
        .hipo()
        .args(["status", "--json", "--today", TODAY])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["triggers"]["checkpoints_since_last_compaction"], 2);
    assert!(v["out_of_date"].as_array().unwrap().len() >= 26);
    p.compact(TODAY);
    let out = p
        .hipo()
        .args(["status", "--json", "--today", TODAY])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["out_of_date"].as_array().unwrap().len(), 0);
    p.append("memory/2027-01-08.md", "\n## Late note [project]\n- x\n");
    let out = p
        .hipo()
        .args(["status", "--json", "--today", TODAY])
        .output()
        .unwrap();
    let late: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        late["changed_files"],
        serde_json::json!(["memory/2027-01-08.md"])
    );
    assert_eq!(v["levels"]["daily"]["needs_summarization"], 1);
    assert_eq!(v["backlog"][0]["path"], "memory/daily/2027-01-12.md");
    assert_eq!(v["backlog"][0]["source_lines"], 227);
}
