//! Writes a synthetic memory history for the scale benchmarks
//! (`benches/scale.sh`): one raw log per day, each with several typed
//! hipocampus entries (`## Title [type]` and `- key: value` bullets, some
//! in Korean) and one MemAware-style session (`## Session …`, `User:` and
//! `Assistant:` turns), about 140 KB a day: 500 MB at ten years.
//!
//! Deterministic: a day's text depends only on the seed and the date, so
//! a 3-month history is the last 3 months of the 10-year one, and two runs
//! write the same bytes. Days are written in parallel.
//!
//! ```sh
//! cargo run --release --example gen-history -- --dir /tmp/h10 --days 3650 --end 2026-11-24 --seed 1
//! ```

use chrono::{Datelike, Days, NaiveDate};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

const PEOPLE: &[&str] = &[
    "Mina", "Jisoo", "Alex", "Priya", "Tomas", "Hana", "Diego", "Yuna", "Sam", "Olu",
];
const SYSTEMS: &[&str] = &[
    "orders service",
    "billing worker",
    "search cluster",
    "auth gateway",
    "ledger",
    "ingest pipeline",
    "mobile app",
    "admin console",
    "notification fan-out",
    "CI runners",
];
const TOOLS: &[&str] = &[
    "Postgres 16",
    "redis",
    "Kafka",
    "tantivy",
    "tokio",
    "Terraform",
    "Grafana",
    "nginx",
    "S3",
    "Kubernetes",
    "pgbouncer",
    "ClickHouse",
    "OpenTelemetry",
    "sqlx",
    "axum",
];
const VERBS: &[&str] = &[
    "migrate",
    "profile",
    "roll back",
    "shard",
    "cache",
    "upgrade",
    "retire",
    "benchmark",
    "document",
    "split",
    "rate-limit",
    "monitor",
];
const OUTCOMES: &[&str] = &[
    "p99 latency down from 840 ms to 120 ms",
    "no alerts overnight",
    "the flaky test was a timezone bug",
    "rollback took four minutes",
    "disk usage halved after vacuum",
    "the team agreed to ship behind a flag",
    "costs dropped by a third",
    "two regressions found and fixed",
];
const KOREAN: &[&str] = &[
    "배포 일정은 목요일 오전으로 확정했다",
    "장애 원인은 커넥션 풀 고갈이었다",
    "다음 주에 데이터베이스 마이그레이션 리뷰 회의",
    "사용자는 짧은 답변을 선호한다",
    "캐시 만료 시간을 10분으로 줄였다",
    "검색 인덱스 재구축이 필요하다",
];
const TOPICS: &[&str] = &[
    "a reusable water bottle that keeps drinks hot",
    "planning a trip to Jeju island",
    "learning to bake sourdough",
    "choosing a standing desk",
    "training for a half marathon",
    "budgeting for a new laptop",
    "repotting a fiddle leaf fig",
    "a Korean cooking class",
    "setting up a home NAS",
    "reading list for the summer",
];
const FILLER: &[&str] = &[
    "That sounds like a great plan.",
    "Here are a few options to consider:",
    "It depends on how often you use it.",
    "Many people find this helpful.",
    "You might also want to compare prices online.",
    "Let me know if you want more detail.",
    "The main trade-off is cost against durability.",
    "I'd start with the simplest option.",
];

/// splitmix64: tiny, fast and good enough for text.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, day: i64) -> Rng {
        Rng(seed ^ (day as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

struct Args {
    dir: PathBuf,
    days: u64,
    end: NaiveDate,
    seed: u64,
    /// Bytes of session text a day.
    session_bytes: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        dir: PathBuf::new(),
        days: 90,
        end: NaiveDate::from_ymd_opt(2026, 11, 24).ok_or("bad default date")?,
        seed: 1,
        session_bytes: 135_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--dir" => args.dir = PathBuf::from(value),
            "--days" => args.days = num(&value)?,
            "--seed" => args.seed = num(&value)?,
            "--session-bytes" => args.session_bytes = num(&value)? as usize,
            "--end" => {
                args.end = NaiveDate::parse_from_str(&value, "%Y-%m-%d")
                    .map_err(|e| format!("--end {value}: {e}"))?
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if args.dir.as_os_str().is_empty() {
        return Err("usage: gen-history --dir DIR [--days N] [--end YYYY-MM-DD] [--seed S] [--session-bytes B]".into());
    }
    Ok(args)
}

/// One entry in hipocampus's format: a typed heading and bullets.
fn entry(rng: &mut Rng, out: &mut String) {
    let (who, sys, tool) = (rng.pick(PEOPLE), rng.pick(SYSTEMS), rng.pick(TOOLS));
    match rng.below(5) {
        0 => {
            let _ = write!(
                out,
                "## {who} prefers {} [user]\n- {who} wants {sys} updates as written notes\n- {}\n\n",
                rng.pick(&[
                    "async reviews",
                    "short answers",
                    "morning syncs",
                    "diagrams"
                ]),
                rng.pick(KOREAN)
            );
        }
        1 => {
            let _ = write!(
                out,
                "## Keep {} [feedback]\n- rule: mention {tool} versions when proposing changes\n- why: {who} got bitten by a silent upgrade\n- how-to-apply: {}\n\n",
                rng.pick(&[
                    "answers short",
                    "diffs small",
                    "logs quiet",
                    "tests offline"
                ]),
                rng.pick(OUTCOMES)
            );
        }
        2 => {
            let _ = write!(
                out,
                "## {tool} docs for {sys} [reference]\n- references: knowledge/{}.md\n- note: {}\n\n",
                tool.to_lowercase().replace(' ', "-"),
                rng.pick(KOREAN)
            );
        }
        _ => {
            let verb = rng.pick(VERBS);
            let _ = write!(
                out,
                "## {} the {sys} [project]\n- request: {who} asked to {verb} the {sys} onto {tool}\n- analysis: {} requests a second at peak; {}\n- decisions: {verb} in two steps, {tool} first\n- outcome: {}\n\n",
                capitalise(verb),
                rng.below(9000) + 100,
                rng.pick(OUTCOMES),
                rng.pick(OUTCOMES)
            );
        }
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A MemAware-style session of about `bytes` bytes.
fn session(rng: &mut Rng, date: NaiveDate, bytes: usize, out: &mut String) {
    let start = out.len();
    let _ = write!(
        out,
        "## Session s{:011x}\nSession Date: {date}\n\n",
        rng.next() >> 20
    );
    while out.len() - start < bytes {
        let topic = rng.pick(TOPICS);
        let _ = writeln!(
            out,
            "User: I've been thinking about {topic}. {who} said {tool} {n} times last week; any suggestions?",
            who = rng.pick(PEOPLE),
            tool = rng.pick(TOOLS),
            n = rng.below(50) + 2
        );
        out.push_str("Assistant: ");
        for _ in 0..6 + rng.below(6) {
            out.push_str(rng.pick(FILLER));
            out.push(' ');
        }
        let _ = writeln!(out, "About {topic}: {}.", rng.pick(OUTCOMES));
        if rng.below(8) == 0 {
            let _ = writeln!(out, "User: {}", rng.pick(KOREAN));
        }
    }
    out.push('\n');
}

fn day_text(seed: u64, date: NaiveDate, session_bytes: usize) -> String {
    let mut rng = Rng::new(seed, i64::from(date.num_days_from_ce()));
    let mut out = String::with_capacity(session_bytes + 4096);
    let _ = write!(out, "# {date}\n\n");
    for _ in 0..3 + rng.below(4) {
        entry(&mut rng, &mut out);
    }
    session(&mut rng, date, session_bytes, &mut out);
    out
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let memory = args.dir.join("memory");
    std::fs::create_dir_all(&memory).map_err(|e| format!("{}: {e}", memory.display()))?;
    let config = args.dir.join("hipocampus.config.json");
    if !config.exists() {
        std::fs::write(&config, "{}\n").map_err(|e| format!("{}: {e}", config.display()))?;
    }
    let bytes: u64 = (0..args.days)
        .into_par_iter()
        .map(|back| {
            let date = args
                .end
                .checked_sub_days(Days::new(back))
                .ok_or("date out of range")?;
            let text = day_text(args.seed, date, args.session_bytes);
            let path = memory.join(format!("{date}.md"));
            std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(text.len() as u64)
        })
        .sum::<Result<u64, String>>()?;
    eprintln!(
        "wrote {} days, {:.1} MB, under {}",
        args.days,
        bytes as f64 / 1e6,
        memory.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen-history: {e}");
            ExitCode::from(2)
        }
    }
}
