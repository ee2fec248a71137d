//! `hipo export --ndjson`, through the real binary on a temp copy of the
//! compacted sample: its shape, and that it holds what the index holds.

use crate::common;

use common::{Project, Succeeds};
use serde_json::Value;

const TODAY: &str = "2027-01-21";

/// Runs `hipo export --ndjson EXTRA…`, which must succeed, and parses
/// every line (each must be one JSON object).
fn export(p: &Project, extra: &[&str]) -> Vec<serde_json::Map<String, Value>> {
    let out = p.hipo().args(["export", "--ndjson"]).args(extra).succeeds();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with('\n'));
    text.lines()
        .enumerate()
        .map(|(i, l)| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(m)) => m,
            other => panic!("line {}: not a JSON object: {other:?}\n{l}", i + 1),
        })
        .collect()
}

#[test]
fn export_holds_every_section_the_index_holds_with_its_fields() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let docs = export(&p, &[]);
    // Exporting reads the Markdown only: no index is built for it.
    assert!(!p.exists(".hipo/index/meta.json"));
    let index = p.json(["index"]);
    assert_eq!(docs.len() as u64, index["sections_added"].as_u64().unwrap());
    assert!(docs.len() > 40, "{}", docs.len());
    for d in &docs {
        let mut fields: Vec<&str> = d.keys().map(String::as_str).collect();
        fields.sort_unstable();
        // A reader's fields, not the index's internals.
        assert_eq!(
            fields,
            [
                "date",
                "heading",
                "id",
                "level",
                "line_end",
                "line_start",
                "path",
                "period",
                "text",
                "timestamp",
                "type",
                "unit"
            ]
        );
        assert_eq!(d["unit"], "section");
        assert!(d["line_start"].as_u64().unwrap() >= 1);
        assert!(d["line_start"].as_u64() <= d["line_end"].as_u64());
        assert_eq!(d["id"].as_str().unwrap().len(), 32);
    }
    // Ids are unique, and the same in the next export.
    let ids: std::collections::BTreeSet<&str> =
        docs.iter().map(|d| d["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), docs.len());
    assert_eq!(export(&p, &[]), docs);
    // Every file the index searched is in the export, in path order.
    let paths: Vec<&str> = docs.iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert!(paths.is_sorted());
    let files: std::collections::BTreeSet<&str> = paths.iter().copied().collect();
    assert!(files.contains("memory/2026-12-14.md"));
    assert!(files.contains("memory/ROOT.md"));
    // A raw log's section carries its day, as a date and a timestamp.
    let kickoff = docs
        .iter()
        .find(|d| {
            d["heading"]
                .as_str()
                .unwrap()
                .contains("Postgres 16 migration kickoff")
        })
        .expect("the kickoff entry");
    assert_eq!(kickoff["path"], "memory/2026-12-14.md");
    assert_eq!(kickoff["level"], "raw");
    assert_eq!(kickoff["type"], "project");
    assert_eq!(kickoff["date"], "2026-12-14");
    assert_eq!(kickoff["period"], "2026-12-14");
    assert_eq!(kickoff["timestamp"], 1_797_206_400);
    assert!(
        kickoff["text"]
            .as_str()
            .unwrap()
            .contains("logical replication")
    );
    // Its lines are where `get` finds its heading.
    let raw = p.read("memory/2026-12-14.md");
    let at = kickoff["line_start"].as_u64().unwrap() as usize;
    assert!(
        raw.lines()
            .nth(at - 1)
            .unwrap()
            .contains("Postgres 16 migration kickoff")
    );
}

#[test]
fn an_edited_section_keeps_its_id() {
    let p = Project::sample();
    let id_of = |docs: &[serde_json::Map<String, Value>]| {
        docs.iter()
            .find(|d| {
                d["heading"]
                    .as_str()
                    .unwrap()
                    .contains("Postgres 16 migration kickoff")
            })
            .map(|d| d["id"].clone())
            .unwrap()
    };
    let before = id_of(&export(&p, &[]));
    let path = "memory/2026-12-14.md";
    let raw = p.read(path);
    p.write(
        path,
        raw.replace("logical replication", "logical replication (edited)"),
    );
    assert_eq!(id_of(&export(&p, &[])), before);
}

#[test]
fn export_windows_match_the_index_and_carry_no_secret() {
    let p = Project::sample();
    assert_eq!(p.compact(TODAY).0, 0);
    let docs = export(&p, &["--windows"]);
    let index = p.json(["index"]);
    let windows = docs.iter().filter(|d| d["unit"] == "window").count() as u64;
    assert_eq!(windows, index["index"]["windows"].as_u64().unwrap());
    // Each window follows its section, with its id and lines inside it.
    let mut section = None;
    for d in &docs {
        match d["unit"].as_str().unwrap() {
            "section" => section = Some(d.clone()),
            _ => {
                let s = section.as_ref().unwrap();
                let id = d["id"].as_str().unwrap();
                assert!(id.starts_with(&format!("{}-w", s["id"].as_str().unwrap())));
                assert!(s["line_start"].as_u64() <= d["line_start"].as_u64());
                assert!(d["line_end"].as_u64() <= s["line_end"].as_u64());
            }
        }
    }
    let all = serde_json::to_string(&docs).unwrap();
    for secret in [
        "AKIAIOSFODNN7EXAMPLE",
        "hunter2secret",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    ] {
        assert!(!all.contains(secret), "{secret} exported");
    }
    assert!(all.contains("[REDACTED]"));
}

#[test]
fn export_without_a_format_is_a_usage_error() {
    let p = Project::sample();
    let (code, out, err) = p.run(["export"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty());
    assert!(err.contains("--ndjson"), "{err}");
}
