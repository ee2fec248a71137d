//! `hipo recall` through the real binary on a temp copy of the sample.

use crate::common;

use common::Project;
use std::path::Path;

#[test]
fn a_pack_holds_topics_and_passages_within_its_budget() {
    let p = Project::compacted_sample();
    let v = p.json([
        "recall",
        "--floor",
        "0",
        "--budget",
        "300",
        "restart",
        "prod",
        "databases",
        "without",
        "approval",
    ]);
    assert_eq!(v["abstained"], false, "{v}");
    assert!(v["tokens"].as_u64().unwrap() <= 300, "{v}");
    let topics = v["topics"].as_array().unwrap();
    assert!(
        topics.iter().any(|t| t
            .as_str()
            .unwrap()
            .contains("dont-restart-prod-databases-without-asking")),
        "{v}"
    );
    let first = &v["passages"][0];
    assert_eq!(first["path"], "memory/2026-12-18.md", "{v}");
    assert_eq!(first["type"], "feedback");
    assert!(first["text"][0].as_str().unwrap().contains("approval"));
    // ROOT is given as topics, never as a passage.
    let passages = v["passages"].as_array().unwrap();
    assert!(
        passages.iter().all(|x| x["path"] != "memory/ROOT.md"),
        "{v}"
    );
    // Passages are chosen on short forms (the first its snippet, the
    // rest 80 bytes), so 300 tokens reach several results; what those
    // leave is spent on showing them whole, best first: the first entry
    // as its three lines, its heading left to the label.
    assert!(passages.len() > 2, "{v}");
    assert_eq!(first["lines"], serde_json::json!([11, 13]), "{v}");
    assert_eq!(first["text"].as_array().unwrap().len(), 3, "{v}");
    // As text: a label with path:line, the heading (its date is the
    // path's, not repeated) and the type, then the lines.
    let out = p
        .hipo()
        .args(["recall", "--floor", "0", "restart prod databases approval"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "## memory/2026-12-18.md:11-13 Don't restart prod databases without asking (feedback)\n"
        ),
        "{text}"
    );
}

#[test]
fn old_project_entries_carry_a_freshness_note() {
    let p = Project::compacted_sample();
    let v = p.json([
        "--today",
        "2027-03-21",
        "recall",
        "--floor",
        "0",
        "postgres 16 cutover",
    ]);
    let cutover = v["passages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["path"] == "memory/2027-01-08.md")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(cutover["note"], "72 days old: check it still holds");
}

#[test]
fn below_the_floor_the_pack_is_empty() {
    let p = Project::compacted_sample();
    let out = p
        .hipo()
        .args(["recall", "explain how TCP congestion control works"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v = p.json(["recall", "the"]);
    assert_eq!(v["abstained"], true);
    assert_eq!(v["passages"].as_array().unwrap().len(), 0);
}

/// The floor counts in units of the memory's chance level, so a young
/// memory (the sample: a few KB) answers a question it holds with the
/// default floor, which a fixed BM25 score set on a 16 MB memory never
/// let through; and the config's `recall.floor` is what `hipo recall`
/// uses when `--floor` is not given.
#[test]
fn a_young_memory_recalls_with_the_default_floor_and_the_config_floor_holds() {
    let p = Project::compacted_sample();
    let v = p.json(["recall", "when did we cut over to postgres 16?"]);
    assert_eq!(v["abstained"], false, "{v}");
    assert!(
        v["passages"][0]["heading"]
            .as_str()
            .unwrap()
            .contains("Postgres 16 cutover"),
        "{v}"
    );
    p.add_config(r#""recall": {"floor": 1000}"#);
    let v = p.json(["recall", "when did we cut over to postgres 16?"]);
    assert_eq!(v["abstained"], true, "{v}");
}

/// Words the memory does not hold (a test marker, a file name, an error's
/// identifier) change nothing: the question the cutover entry answers is
/// recalled with them as without them, at the same relevance, and the
/// pack holds the passages near the best one, not whatever fills the
/// budget.
#[test]
fn unknown_words_do_not_close_the_gate_and_the_pack_is_as_small_as_the_evidence() {
    let p = Project::compacted_sample();
    let plain = "When did we cut over to Postgres 16, and what was the read-only window?";
    let marked = format!("{plain} zqx-cx-qq-23562 frobnitz_7781.blorb");
    let relevance = |q: &str| {
        let v = p.json(["search", "-n", "1", q]);
        v["hits"][0]["relevance"].as_f64().unwrap()
    };
    assert!(
        (relevance(plain) - relevance(&marked)).abs() < 1e-4,
        "{} vs {}",
        relevance(plain),
        relevance(&marked)
    );
    for q in [plain, marked.as_str()] {
        let v = p.json(["recall", q]);
        assert_eq!(v["abstained"], false, "{v}");
        let passages = v["passages"].as_array().unwrap();
        assert_eq!(passages[0]["path"], "memory/2027-01-08.md", "{v}");
        assert!(passages.len() <= 5, "{} passages: {v}", passages.len());
    }
}

/// A prompt is prose, not the query language: a pasted error in quotes
/// that the memory never saw, a `--flag` and a `word:` do not require,
/// exclude or filter anything. Read as a query, the quote was a phrase
/// every hit had to hold and `type:bug` a parse error: both prompts got
/// nothing, though the rest of their words name an entry.
#[test]
fn quotes_signs_and_colons_in_a_prompt_are_words() {
    let p = Project::compacted_sample();
    for (prompt, entry) in [
        (
            r#"split invoices is timing out on staging again, the log says "deadlock detected while waiting for ShareLock on transaction 99881" - what did we figure out last time?"#,
            "memory/2027-01-12.md",
        ),
        (
            "cargo test -- --test-threads=1 fails with AddrInUse again, type:bug or flaky?",
            "memory/2026-12-15.md",
        ),
    ] {
        let v = p.json(["recall", prompt]);
        assert_eq!(v["abstained"], false, "{prompt}: {v}");
        assert_eq!(v["passages"][0]["path"], entry, "{prompt}: {v}");
    }
    // `hipo search` keeps its language: the quoted phrase must appear.
    let v = p.json([
        "search",
        r#"deadlock "while waiting for ShareLock on transaction 99881""#,
    ]);
    assert_eq!(v["hits"].as_array().unwrap().len(), 0, "{v}");
}

/// A young memory of captured sessions (`tests/data/recall/sessions`,
/// 12 short sessions on a Rust CLI), where every word is rare: a prompt
/// about something else that shares one plain word with a session
/// ("good") has a best passage at the floor holding all of the prompt's
/// weight the memory knows, and was recalled. The rest of the prompt,
/// plain words the memory never saw, now counts in its weight, and the
/// pack is empty; a question the memory answers still gets its session,
/// with or without a code-like marker, which weighs nothing.
#[test]
fn a_prompt_sharing_one_plain_word_with_a_young_session_memory_gets_nothing() {
    let p = Project::empty();
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/recall/sessions/memory");
    for e in std::fs::read_dir(&set).unwrap() {
        let e = e.unwrap().path();
        let name = e.file_name().unwrap().to_str().unwrap().to_string();
        p.write(&format!("memory/{name}"), std::fs::read(&e).unwrap());
    }
    let unrelated = "what's a good recipe for kimchi fried rice";
    // What the gate saw before: relevance at the default floor, and all
    // of the weight of the words the memory holds.
    let hit = &p.hits(&["-n", "1", unrelated])[0];
    assert!(
        hit["relevance"].as_f64().unwrap() >= f64::from(hipo_core::DEFAULT_FLOOR),
        "{hit}"
    );
    assert!(hit["coverage"].as_f64().unwrap() >= 0.99, "{hit}");
    let v = p.json(["recall", unrelated]);
    assert_eq!(v["abstained"], true, "{v}");
    assert!(v["held"].as_f64().unwrap() < 0.2, "{v}");
    for q in [
        "where is the smtp password stored",
        "where is the smtp password stored zqx-cx-qq-23562 frobnitz_7781.blorb",
    ] {
        let v = p.json(["recall", q]);
        assert_eq!(v["abstained"], false, "{v}");
        assert_eq!(v["passages"][0]["path"], "memory/2027-03-08.md", "{v}");
        assert!(v["held"].as_f64().unwrap() > 0.99, "{v}");
    }
}

/// A young memory of typed entries (`tests/data/recall/team`) answers
/// "what should an error response from our API look like" with its API
/// guidelines' errors section, ranked first; the gate used to turn it
/// away because `look` and `like`, words the memory never wrote, counted
/// against the prompt at the highest IDF. General English's commonest
/// words (SMART's stop list) weigh nothing when unseen; words of another
/// subject still do, and close the gate.
#[test]
fn common_words_the_memory_never_wrote_do_not_close_the_gate() {
    let p = recall_set("team");
    let v = p.json([
        "recall",
        "what should an error response from our API look like",
    ]);
    assert_eq!(v["abstained"], false, "{v}");
    assert_eq!(
        v["passages"][0]["path"], "knowledge/api-guidelines.md",
        "{v}"
    );
    let held = v["held"].as_f64().unwrap();
    let v = p.json([
        "recall",
        "what should an error response from our graphql gateway look like",
    ]);
    assert_eq!(v["abstained"], true, "{v}");
    assert!(v["held"].as_f64().unwrap() < held, "{v}");
}

/// In a project in use, ROOT's generated lines ("rules added or changed
/// (last 30 days)", "recurring (last 30 days)") share plain words with any
/// prompt: "how do I undo the last git commit but keep the changes" once
/// opened a pack on the sample through ROOT alone, holding one unrelated
/// passage. ROOT is never a passage, so it never opens the pack.
#[test]
fn prompts_about_something_else_get_nothing_through_roots_generated_lines() {
    let p = Project::compacted_sample();
    assert_all_abstain(
        &p,
        &[
            "how do I undo the last git commit but keep the changes",
            "what's the difference between a mutex and a semaphore",
        ],
    );
}

/// `asked`'s first search hit is `path`, under the relevance floor, and its
/// recall pack opens with it anyway; returns the pack.
fn answered_under_the_floor(p: &Project, asked: &str, path: &str) -> serde_json::Value {
    let hit = &p.hits(&["-n", "1", asked])[0];
    assert_eq!(hit["path"], path, "{hit}");
    assert!(
        hit["relevance"].as_f64().unwrap() < f64::from(hipo_core::DEFAULT_FLOOR),
        "{hit}"
    );
    let v = p.json(["recall", asked]);
    assert_eq!(v["abstained"], false, "{v}");
    assert_eq!(v["passages"][0]["path"], path, "{v}");
    v
}

/// Each of `prompts`, about something the project's memory does not hold,
/// gets an empty pack.
fn assert_all_abstain(p: &Project, prompts: &[&str]) {
    for prompt in prompts {
        let v = p.json(["recall", prompt]);
        assert_eq!(v["abstained"], true, "{v}");
    }
}

/// A young memory of typed entries (`tests/data/recall/consult`: a
/// freelance data consultant's first month, 1,100 words of notes) answers
/// "when can I expect the NGO to actually pay me" with its invoice and
/// acceptance entry, ranked first but under the relevance floor: the
/// user's words for it are not the entry's. Every word of the prompt is
/// in the memory, and its weight there is far beyond what a memory of
/// 1,100 words holds by chance (`recall::background`), so the gate
/// takes a lower floor and the pack opens. Prompts about something else
/// share a word or two of the memory and stay empty.
#[test]
fn a_young_memory_holding_the_prompt_beyond_chance_answers_under_the_floor() {
    let p = recall_set("consult");
    let v = answered_under_the_floor(
        &p,
        "when can I expect the NGO to actually pay me",
        "memory/2028-01-28.md",
    );
    assert!(v["beyond_chance"].as_f64().unwrap() >= 0.6, "{v}");
    for unrelated in [
        "what's the difference between a left join and a full outer join",
        "explain idempotency in data pipelines with an example",
        "what's a good sourdough starter feeding schedule",
        // The memory's year is in every heading and in none of the
        // background's sessions: it says nothing of the prompt.
        "shoes 2028",
    ] {
        let v = p.json(["recall", unrelated]);
        assert_eq!(v["abstained"], true, "{v}");
        assert!(v["beyond_chance"].as_f64().unwrap() < 0.6, "{v}");
    }
}

/// A prompt that points back at the shared past ("did we …", "again",
/// "last time") takes the lower floor when the memory holds it a little
/// beyond chance: the user says it was worked out before. In the compacted
/// sample, the question about the old Postgres 13 box gets the
/// decommissioning entry, ranked first under the floor; the same words put
/// as a fresh statement get nothing, and prompts about something else that
/// point back ("clippy is complaining again …") stay empty.
#[test]
fn a_prompt_pointing_back_at_the_past_takes_the_lower_floor() {
    let p = Project::compacted_sample();
    let v = answered_under_the_floor(
        &p,
        "did we keep a backup of the old postgres 13 box before we killed it",
        "memory/2027-01-18.md",
    );
    assert_eq!(v["refers_back"], true, "{v}");
    // Under the threshold held beyond chance alone: the cue opened it.
    let beyond = v["beyond_chance"].as_f64().unwrap();
    assert!((0.2..0.6).contains(&beyond), "{v}");
    let v = p.json([
        "recall",
        "we should keep a backup of the old postgres 13 box before killing it",
    ]);
    assert_eq!(v["refers_back"], false, "{v}");
    assert_eq!(v["abstained"], true, "{v}");
    // Pointing back at something this memory is not about: at the lower
    // floor they would get a pack (the memory's plain words "clean",
    // "without", "feature flags" match), but the memory does not hold
    // them beyond chance, so the floor stays.
    for unrelated in [
        "clippy is complaining again about needless_borrow all over src/api, can you clean them up without changing behavior",
        "we discussed feature flags last week, what's a simple way to do one in a flask app without a third party service?",
    ] {
        let v = p.json(["recall", unrelated]);
        assert_eq!(v["refers_back"], true, "{v}");
        assert!(v["beyond_chance"].as_f64().unwrap() < 0.2, "{v}");
        assert_eq!(v["abstained"], true, "{v}");
        let lower = p.json(["recall", "--floor", "0.1", unrelated]);
        assert_eq!(lower["abstained"], false, "{lower}");
    }
}

/// Raw logs pruned after compaction leave their daily summaries: the
/// memory is no smaller for it, and how much of a prompt it holds by
/// chance is counted on the summaries then. Counted on what remains of
/// the logs (the knowledge page alone), every word held would look beyond
/// chance.
#[test]
fn pruned_logs_count_their_summaries_and_roots_lines_do_not_count_as_held() {
    let p = recall_set("consult");
    let (code, _, err) = p.compact("2028-02-01");
    assert_eq!(code, 0, "{err}");
    // ROOT's generated lines ("Topics Index", "recent") are not the
    // memory's words: a prompt made of them is not held beyond chance.
    let v = p.json(["recall", "what changed recently in the topics index"]);
    assert!(v["beyond_chance"].as_f64().unwrap() < 0.3, "{v}");
    let asked = "when can I expect the NGO to actually pay me";
    let before = p.json(["recall", asked])["beyond_chance"].as_f64().unwrap();
    for e in std::fs::read_dir(p.path().join("memory")).unwrap() {
        let e = e.unwrap().path();
        if e.extension().is_some_and(|x| x == "md") && e.file_name().unwrap() != "ROOT.md" {
            std::fs::remove_file(e).unwrap();
        }
    }
    let v = p.json(["recall", asked]);
    let after = v["beyond_chance"].as_f64().unwrap();
    assert!((after - before).abs() < 0.05, "{before} → {after}: {v}");
    assert_eq!(v["abstained"], false, "{v}");
}

/// A project holding the young recall set `name` of `tests/data/recall`
/// (its prompts too, which are not Markdown and are not indexed).
fn recall_set(name: &str) -> Project {
    let p = Project::empty();
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/recall")
            .join(name),
        p.path(),
    );
    p
}
