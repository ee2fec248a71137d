//! Search on real agent conversations: four days of the MemAware corpus
//! (`fixtures/memaware`, MIT licence), through the real binary.

use crate::common;

use common::{Project, copy_dir};
use std::path::Path;

fn corpus() -> Project {
    let p = Project::empty();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/memaware/memory"),
        &p.path().join("memory"),
    );
    p
}

#[test]
fn ranking_holds_on_the_eval_excerpt() {
    let p = corpus();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eval/memaware-excerpt.jsonl");
    let v = p.json([
        std::ffi::OsStr::new("eval"),
        fixture.as_os_str(),
        "-k".as_ref(),
        "1,5".as_ref(),
    ]);
    let all = &v["overall"];
    assert_eq!(all["cases"], 13);
    // Measured 1.0 and 0.887 when written; a ranking change that loses a
    // case from the top 5 or drops MRR much fails here.
    assert_eq!(all["recall"]["5"].as_f64().unwrap(), 1.0, "{v:#}");
    assert!(all["mrr"].as_f64().unwrap() >= 0.8, "{v:#}");
}

#[test]
fn a_question_finds_the_session_where_the_user_said_it() {
    let p = corpus();
    let v = p.json(["search", "which hotel did I stay at in Chicago?", "-n", "3"]);
    let hit = &v["hits"][0];
    assert_eq!(hit["path"], "memory/2023-06-02.md");
    let [lo, hi] = [0, 1].map(|i| hit["lines"][i].as_u64().unwrap());
    assert!(lo <= 1250 && 1250 <= hi, "{hit}");
    let line = hit["line"].as_u64().unwrap();
    assert!(lo <= line && line <= hi, "{hit}");
    let text = std::fs::read_to_string(p.path().join("memory/2023-06-02.md")).unwrap();
    let session: Vec<&str> = text
        .lines()
        .skip(lo as usize - 1)
        .take((hi - lo + 1) as usize)
        .collect();
    assert!(
        session
            .iter()
            .any(|l| l.starts_with("User:") && l.contains("Chicago")),
        "the user's own words are in the hit's section"
    );
    let said = text.lines().nth(line as usize - 1).unwrap().to_lowercase();
    assert!(said.contains("hotel") || said.contains("chicago"), "{said}");
}

/// In a young memory every word is rare, so a long prompt about something
/// else reaches the relevance floor on the few words it shares with some
/// passage ("client" here, in a session about freelance rates). The pack
/// stays empty because that passage holds little of the prompt's weight;
/// a question the memory answers still gets its pack.
#[test]
fn a_young_memory_gives_nothing_for_a_long_prompt_about_something_else() {
    let p = corpus();
    let go = "I'm refactoring a Go HTTP service and noticed goroutines leaking whenever a client disconnects mid-request. How should I propagate context cancellation through the handlers and downstream database calls so nothing keeps executing after the request is gone?";
    let hits = p.json(["search", go, "-n", "1"]);
    let best = &hits["hits"][0];
    let floor = f64::from(hipo_core::DEFAULT_FLOOR);
    assert!(best["relevance"].as_f64().unwrap() >= floor, "{hits}");
    assert!(best["coverage"].as_f64().unwrap() < 0.2, "{hits}");
    let v = p.json(["recall", go]);
    assert_eq!(v["abstained"], true, "{v}");
    let v = p.json(["recall", "where did I run the charity 5K?"]);
    assert_eq!(v["abstained"], false, "{v}");
}
