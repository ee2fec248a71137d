//! `hipo search`, `get`, `index` and `eval`, through the real binary on
//! temp copies of the sample memory.

use crate::common;

use common::Project;
use serde_json::Value;

use common::SAMPLE_TODAY as TODAY;

fn paths(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn copies_collapse_to_the_raw_log_with_also_in() {
    let p = Project::compacted_sample();
    let h = p.hits(&["postgres 16 cutover", "-n", "3"]);
    let top = &h[0];
    assert_eq!(top["path"], "memory/2027-01-08.md");
    assert_eq!(top["level"], "raw");
    assert_eq!(top["heading"], "2027-01-08 › Postgres 16 cutover");
    let also: Vec<&str> = top["also_in"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        also,
        vec![
            "memory/daily/2027-01-08.md",
            "memory/weekly/2027-W01.md",
            "memory/monthly/2027-01.md"
        ]
    );
    // No copy of the same entry shows up as a result of its own.
    let all = p.hits(&["cutover", "-n", "20"]);
    let headings: Vec<&str> = all.iter().map(|h| h["heading"].as_str().unwrap()).collect();
    let mut unique = headings.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(headings.len(), unique.len(), "{headings:?}");
}

#[test]
fn hits_carry_line_snippet_and_highlights() {
    let p = Project::compacted_sample();
    let h = &p.hits(&["\"sequences synced\"", "level:raw"])[0];
    assert_eq!(h["path"], "memory/2027-01-08.md");
    let line = h["line"].as_u64().unwrap() as usize;
    let text = p.read("memory/2027-01-08.md");
    let at = text.lines().nth(line - 1).unwrap();
    assert!(at.contains("sequences synced"), "line {line}: {at}");
    assert!(
        h["snippet"]
            .as_str()
            .unwrap()
            .contains("**sequences** **synced**"),
        "{h}"
    );
    let plain = h["snippet_text"].as_str().unwrap();
    let [a, b] = [0, 1].map(|i| h["highlights"][0][i].as_u64().unwrap() as usize);
    assert_eq!(&plain[a..b], "sequences");
    assert_eq!(h["type"], "project");
    assert_eq!(h["date"], "2027-01-08");
}

#[test]
fn korean_queries_match_inside_words() {
    let p = Project::compacted_sample();
    let h = p.hits(&["회의", "level:raw"]);
    assert_eq!(h[0]["path"], "memory/2026-12-17.md", "{h:?}");
    assert!(h[0]["snippet"].as_str().unwrap().contains("**회의**"));
    // 온콜 appears inside 온콜은 / 온콜을 too.
    assert!(!p.hits(&["온콜"]).is_empty());
}

#[test]
fn secrets_are_neither_indexed_nor_shown() {
    let p = Project::compacted_sample();
    assert!(p.hits(&["hunter2secret"]).is_empty());
    assert!(p.hits(&["AKIAIOSFODNN7EXAMPLE"]).is_empty());
    let out = p
        .hipo()
        .args(["search", "--full", "staging credentials"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("[REDACTED]"), "{shown}");
    for secret in [
        "AKIAIOSFODNN7EXAMPLE",
        "hunter2secret",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    ] {
        assert!(!shown.contains(secret), "{secret} shown:\n{shown}");
    }
    let got = p
        .hipo()
        .args(["get", "memory/2026-12-22.md"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&got.stdout).contains("hunter2secret"));
}

#[test]
fn filters_inline_and_as_flags() {
    let p = Project::compacted_sample();
    for h in p.hits(&["type:feedback", "-n", "50"]) {
        assert_eq!(h["type"], "feedback", "{h}");
    }
    for h in p.hits(&["postgres", "--level", "weekly"]) {
        assert_eq!(h["level"], "weekly", "{h}");
    }
    for h in p.hits(&["postgres", "month:2026-12", "level:raw"]) {
        assert!(h["date"].as_str().unwrap().starts_with("2026-12"), "{h}");
    }
    let k = p.hits(&["postgres", "path:knowledge/"]);
    assert!(!k.is_empty());
    assert!(paths(&k).iter().all(|p| p.starts_with("knowledge/")));
    let after = p.hits(&["postgres", "level:raw", "after:2027-01-10"]);
    assert!(
        after
            .iter()
            .all(|h| h["date"].as_str().unwrap() >= "2027-01-10"),
        "{after:?}"
    );
    // Excluded words remove results.
    let with = p.hits(&["replication"]).len();
    let without = p.hits(&["replication -slot"]).len();
    assert!(without < with, "{with} vs {without}");
    // A phrase must appear as written.
    for h in p.hits(&["\"read-only\"", "--full"]) {
        assert!(
            h["text"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("read-only")
        );
    }
}

#[test]
fn bad_queries_exit_2_and_say_what_to_write() {
    let p = Project::compacted_sample();
    for (args, says) in [
        (vec!["search", "type:bug"], "unknown type `bug`"),
        (vec!["search", "x", "--after", "2027-02-30"], "not a date"),
        (vec!["search", "the of"], "nothing to search for"),
        (vec!["get", "memory/nope.md"], "no such file"),
        (vec!["get", "../outside.md:3"], "no such file"),
        (vec!["get", "memory/2026-12-14.md:999"], "the file has"),
        (vec!["get", "#abcdef123456"], "search again"),
    ] {
        let out = p.hipo().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn search_sees_appends_and_deletions_without_an_update_step() {
    let p = Project::compacted_sample();
    assert!(p.hits(&["zeppelin"]).is_empty());
    p.append(
        "memory/2027-01-20.md",
        "\n## Zeppelin hangar lease [project]\n- outcome: signed for two years\n",
    );
    let h = p.hits(&["zeppelin"]);
    assert_eq!(h.len(), 1);
    assert_eq!(h[0]["path"], "memory/2027-01-20.md");
    let line = h[0]["lines"][0].as_u64().unwrap() as usize;
    assert!(
        p.read("memory/2027-01-20.md")
            .lines()
            .nth(line - 1)
            .unwrap()
            .contains("Zeppelin")
    );
    // A moved file moves its results; a deleted one leaves no ghost.
    std::fs::rename(
        p.path().join("knowledge/release-process.md"),
        p.path().join("knowledge/releases.md"),
    )
    .unwrap();
    let k = paths(&p.hits(&["release", "path:knowledge/"]));
    assert!(k.contains(&"knowledge/releases.md".to_string()), "{k:?}");
    assert!(!k.contains(&"knowledge/release-process.md".to_string()));
    std::fs::remove_file(p.path().join("memory/2027-01-20.md")).unwrap();
    assert!(p.hits(&["zeppelin"]).is_empty());
}

#[test]
fn a_deleted_or_corrupt_cache_is_rebuilt() {
    let p = Project::compacted_sample();
    let before = p.hits(&["cutover rehearsal"]);
    std::fs::remove_dir_all(p.path().join(".hipo")).unwrap();
    assert_eq!(paths(&p.hits(&["cutover rehearsal"])), paths(&before));
    std::fs::write(p.path().join(".hipo/index/meta.json"), "not json").unwrap();
    assert_eq!(paths(&p.hits(&["cutover rehearsal"])), paths(&before));
}

#[test]
fn index_reports_and_is_incremental() {
    let p = Project::compacted_sample();
    let run = |p: &Project| -> Value { p.json(["index"]) };
    let first = run(&p);
    assert!(first["rebuilt"].is_string(), "{first}");
    assert!(first["files_indexed"].as_u64().unwrap() > 40);
    let second = run(&p);
    assert_eq!(second["files_indexed"], 0);
    assert!(second.get("rebuilt").is_none());
    p.append(
        "memory/2027-01-20.md",
        "\n## One more [user]\n- likes tea\n",
    );
    let third = run(&p);
    assert_eq!(third["files_indexed"], 1);
    assert_eq!(third["sections_added"], 1, "only the new entry: {third}");
    assert_eq!(third["sections_removed"], 0);
    assert!(third["index"]["bytes"].as_u64().unwrap() > 0);
}

#[test]
fn unreadable_files_are_named_and_the_rest_searched() {
    let p = Project::compacted_sample();
    p.write("knowledge/broken.md", b"## Fine\nok\n\xff\xfe bad\n");
    let out = p.hipo().args(["search", "postgres"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("knowledge/broken.md:3"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("memory/"));
}

#[test]
fn extra_globs_from_the_config_are_searched() {
    let p = Project::compacted_sample();
    p.write(
        "docs/runbooks/failover.md",
        "## Failover drill\nPromote the standby with pg_ctl promote.\n",
    );
    let config = p.read("hipocampus.config.json");
    let mut v: Value = serde_json::from_str(&config).unwrap();
    v["search"] = serde_json::json!({"extraGlobs": ["docs/**/*.md"]});
    p.write("hipocampus.config.json", v.to_string());
    let h = p.hits(&["promote standby"]);
    assert_eq!(h[0]["path"], "docs/runbooks/failover.md");
    assert_eq!(h[0]["level"], "other");
}

#[test]
fn a_busy_project_is_searched_as_it_is() {
    let p = Project::compacted_sample();
    p.hits(&["postgres"]);
    let project = hipo_core::Hipo::open(p.path()).unwrap();
    let _held = project.lock(std::time::Duration::ZERO).unwrap();
    let search = |q: &str| {
        let out = p.hipo().args(["--json", "search", q]).output().unwrap();
        assert!(out.status.success());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        (v, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    // Nothing changed: a read-only look, without the lock, says current.
    let (v, err) = search("postgres");
    assert_eq!(v["fresh"], true, "{err}");
    assert!(err.is_empty(), "{err}");
    // A change it cannot index without the lock: the index as it is.
    p.append(
        "memory/2027-01-20.md",
        "\n## Walrus drill [project]\n- walrus\n",
    );
    let (v, err) = search("postgres");
    assert_eq!(v["fresh"], false);
    assert!(!v["hits"].as_array().unwrap().is_empty());
    assert!(err.contains("another hipo process"), "{err}");
    assert!(search("walrus").0["hits"].as_array().unwrap().is_empty());
    // The lock let go: the next search sees the change.
    drop(_held);
    let (v, _) = search("walrus");
    assert_eq!(v["fresh"], true);
    assert_eq!(v["hits"][0]["path"], "memory/2027-01-20.md", "{v}");
}

#[test]
fn human_output() {
    let p = Project::compacted_sample();
    let out = p
        .hipo()
        .args(["search", "restart production database approval", "-n", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // The id is a content hash; mask it for the snapshot.
    let mut masked = text.clone();
    while let Some(at) = masked.find(" #").map(|i| i + 1).filter(|&i| {
        masked[i + 1..]
            .chars()
            .take(12)
            .all(|c| c.is_ascii_hexdigit())
    }) {
        masked.replace_range(at..at + 13, "#ID");
    }
    insta::assert_snapshot!(masked);
}

#[test]
fn a_secret_in_a_heading_is_neither_found_nor_shown() {
    let p = Project::compacted_sample();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    p.append(
        "memory/2027-01-20.md",
        &format!("\n## Rotated GITHUB_TOKEN={token} for CI [project]\n- outcome: zeppelin deploys green\n"),
    );
    assert!(p.hits(&[token]).is_empty());
    let h = &p.hits(&["zeppelin"])[0];
    let heading = h["heading"].as_str().unwrap();
    assert!(
        heading.contains("[REDACTED]") && !heading.contains(token),
        "{heading}"
    );
}

#[test]
fn a_key_block_longer_than_a_window_never_shows_in_a_snippet() {
    let p = Project::compacted_sample();
    let key_line = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn";
    let mut entry = String::from("\n## Deploy box setup [project]\n");
    for i in 0..30 {
        entry.push_str(&format!("- step {i}: checked the deploy box settings\n"));
    }
    entry.push_str("- the zeppelin deploy key follows\n-----BEGIN OPENSSH PRIVATE KEY-----\n");
    for _ in 0..40 {
        entry.push_str(key_line);
        entry.push('\n');
    }
    entry.push_str("-----END OPENSSH PRIVATE KEY-----\n- done\n");
    p.append("memory/2027-01-20.md", &entry);
    let h = p.hits(&["zeppelin", "--full"]);
    assert_eq!(h.len(), 1);
    for field in ["snippet", "snippet_text", "text"] {
        let shown = h[0][field].as_str().unwrap();
        assert!(!shown.contains(&key_line[..20]), "{field}: {shown}");
    }
}

#[test]
fn index_waits_for_a_busy_project_and_never_claims_to_be_up_to_date() {
    let p = Project::compacted_sample();
    p.json(["index"]);
    let project = hipo_core::Hipo::open(p.path()).unwrap();
    let _held = project.lock(std::time::Duration::ZERO).unwrap();
    let out = p
        .hipo()
        .env("HIPO_LOCK_WAIT", "0.2")
        .arg("index")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "busy: {out:?}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("up to date"));
}

#[test]
fn required_and_excluded_words_count_over_the_whole_section() {
    let p = Project::empty();
    let filler: String = (0..200)
        .map(|i| format!("filler line number {i} about other things entirely\n"))
        .collect();
    p.write(
        "memory/2026-03-10.md",
        format!("## Long one [project]\nzorbadog appears here\n{filler}quixocat at the end\n"),
    );
    p.write(
        "memory/2026-03-11.md",
        "## Short [project]\nzorbadog alone\n",
    );
    let files = |args: &[&str]| paths(&p.hits(args));
    assert_eq!(files(&["+zorbadog", "+quixocat"]), ["memory/2026-03-10.md"]);
    assert_eq!(
        files(&["\"zorbadog\" \"quixocat\""]),
        ["memory/2026-03-10.md"]
    );
    assert_eq!(files(&["zorbadog -quixocat"]), ["memory/2026-03-11.md"]);
}

#[test]
fn a_day_a_monthly_holds_from_the_month_before_keeps_its_date() {
    let p = Project::compacted_sample();
    assert!(p.hits(&["after:2027-01-25"]).is_empty());
    let december = p.hits(&["month:2027-01", "-n", "50"]);
    assert!(!december.is_empty());
    for h in &december {
        let date = h["date"].as_str().unwrap();
        assert!(date.starts_with("2027-01"), "{h}");
    }
}

#[test]
fn a_fence_with_a_language_does_not_hide_the_sessions_after_it() {
    let p = Project::empty();
    p.write(
        "memory/2026-03-10.md",
        "## Session one [project]\n```python\n# a comment\n```python\nprint(1)\n```\n## Session two [project]\nmarmoset facts\n",
    );
    let h = p.hits(&["marmoset"]);
    assert_eq!(h[0]["heading"], "Session two", "{h:?}");
}

#[test]
fn an_edit_with_its_mtime_put_back_is_still_seen() {
    let p = Project::compacted_sample();
    let rel = "memory/2027-01-20.md";
    assert!(p.hits(&["flapove"]).is_empty());
    let path = p.path().join(rel);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let text = p.read(rel);
    let same_size = text.replacen("roadmap", "flapove", 1);
    assert_eq!(same_size.len(), text.len(), "same size");
    p.write(rel, &same_size);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(paths(&p.hits(&["flapove"])), [rel]);
}

#[test]
fn a_secret_in_a_heading_never_reaches_the_store() {
    let p = Project::compacted_sample();
    p.append(
        "memory/2027-01-20.md",
        "\n## Deploy creds sk-proj-abcdefghijklmnopqrstuvwx12 [project]\n- rotated\n",
    );
    let (code, _, err) = p.compact(TODAY);
    assert_eq!(code, 0, "{err}");
    p.hits(&["rotated"]);
    let bytes = std::fs::read(p.path().join(".hipo/store.redb")).unwrap();
    let needle = b"abcdefghijklmnopqrstuvwx12";
    assert!(!bytes.windows(needle.len()).any(|w| w == needle));
}

/// A file that cannot be read (not UTF-8) has no record and no stamp, so
/// it fails the quick unchanged-tree check every time; the full comparison
/// then finds nothing changed, and a search must not rewrite the store
/// (hooks search on every prompt).
#[test]
fn an_unreadable_file_does_not_make_every_search_write_the_store() {
    let p = Project::compacted_sample();
    p.write(
        "memory/2027-01-23.md",
        b"# 2027-01-23\n\nok\n\xff\n".as_slice(),
    );
    // The file is named as a problem (exit 1), the others searched.
    let found = |p: &Project| {
        let out = p
            .hipo()
            .args(["--json", "search", "roadmap"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        !v["hits"].as_array().unwrap().is_empty()
    };
    assert!(found(&p));
    found(&p);
    let store = p.path().join(".hipo/store.redb");
    let before = (
        std::fs::read(&store).unwrap(),
        std::fs::metadata(&store).unwrap().modified().unwrap(),
    );
    for _ in 0..2 {
        assert!(found(&p));
    }
    let after = (
        std::fs::read(&store).unwrap(),
        std::fs::metadata(&store).unwrap().modified().unwrap(),
    );
    assert!(before == after, "the store was rewritten by a search");
}

/// A session is ranked by what its user opened it to ask: a question about
/// a session's subject finds the session opened for it before a longer
/// one that mentions the subject more often in passing.
#[test]
fn the_session_opened_for_a_subject_ranks_first() {
    let p = Project::empty();
    let filler = "Assistant: here are some general notes on the matter.\n".repeat(12);
    let passing =
        "Assistant: a kayak on the trip might help, pack a kayak bag for the kayak trip.\n";
    let text = format!(
        "# 2026-03-02\n\n## Session budget\nUser: I need a budget spreadsheet for the spring.\n{filler}{passing}{passing}{passing}\
         User: and the kayak trip, plan it too\n{passing}{filler}\n## Session lake\nUser: Can you help me plan my kayak trip on Lake Tahoe?\n{filler}"
    );
    p.write("memory/2026-03-02.md", text);
    let h = p.hits(&["what did we plan for my kayak trip?", "-n", "2"]);
    assert_eq!(h[0]["heading"], "2026-03-02 › Session lake", "{h:#?}");
}

/// The first results do not depend on how many are asked for: `-n 3`,
/// `-n 10` and the start of `-n 20` (what recall asks for) agree. A
/// section missing from one of the ranked lists is scored by that list's
/// last, so a candidate pool sized by `-n` moved scores near the cut.
#[test]
fn the_first_results_do_not_depend_on_how_many_are_asked_for() {
    let p = Project::empty();
    let words: Vec<String> = (0..400).map(|i| format!("w{i:03}x")).collect();
    let mut seed: u64 = 7;
    let mut next = move |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for day in 1..=28 {
        let mut log = format!("# 2026-02-{day:02}\n");
        for s in 0..25 {
            log.push_str(&format!("\n## Session d{day}s{s}\n"));
            for turn in 0..(2 + next(6)) {
                let who = if turn % 2 == 0 { "User" } else { "Assistant" };
                let line: Vec<&str> = (0..(6 + next(30)))
                    .map(|_| words[next(40) * next(10) % words.len()].as_str())
                    .collect();
                log.push_str(&format!("{who}: {}\n", line.join(" ")));
            }
        }
        p.write(&format!("memory/2026-02-{day:02}.md"), log);
    }
    let places = |q: &str, n: &str| -> Vec<String> {
        p.hits(&[q, "-n", n])
            .iter()
            .map(|h| format!("{}:{}", h["path"], h["line"]))
            .collect()
    };
    for _ in 0..25 {
        let q: Vec<&str> = (0..8).map(|_| words[next(words.len())].as_str()).collect();
        let q = q.join(" ");
        let twenty = places(&q, "20");
        for n in [3, 10] {
            let first = places(&q, &n.to_string());
            assert_eq!(first[..], twenty[..n.min(twenty.len())], "{q} -n {n}");
        }
    }
}

/// A quoted value over many lines becomes a secret by an edit the index
/// has not seen (another hipo holds the lock): the window shown lies inside
/// the value, far from its key, and still never shows it.
#[test]
fn a_secret_across_a_window_edge_never_shows_from_a_stale_index() {
    let p = Project::compacted_sample();
    let filler: String = (0..150)
        .map(|i| match i {
            75 => "line 75 names the dunlin cutover\n".to_string(),
            _ => format!("line {i} of the sandpiper rollout plan\n"),
        })
        .collect();
    p.append(
        "memory/2027-01-20.md",
        &format!("\n## Rollout config [project]\npasswerd: \"opening words\n{filler}closing words\"\n- outcome: done\n"),
    );
    let hits = p.hits(&["dunlin"]);
    assert!(hits[0]["snippet_text"].as_str().unwrap().contains("dunlin"));
    let (first, line) = (hits[0]["lines"][0].as_u64(), hits[0]["line"].as_u64());
    assert!(first.unwrap() + 60 < line.unwrap(), "{hits:?}");
    let project = hipo_core::Hipo::open(p.path()).unwrap();
    let _held = project.lock(std::time::Duration::ZERO).unwrap();
    // The same length, so the index's places still hold.
    let log = p.read("memory/2027-01-20.md");
    p.write(
        "memory/2027-01-20.md",
        log.replace("passwerd: \"", "password: \""),
    );
    let v = p.json(["search", "--full", "dunlin"]);
    assert_eq!(v["fresh"], false, "{v}");
    let hit = &v["hits"][0];
    assert_eq!(hit["path"], "memory/2027-01-20.md", "{v}");
    for field in ["snippet_text", "text"] {
        let shown = hit[field].as_str().unwrap();
        assert!(!shown.contains("dunlin"), "{field}: {shown}");
        assert!(!shown.contains("sandpiper"), "{field}: {shown}");
    }
    // The value's lines go, its key stays: `password: "[REDACTED]`.
    assert!(
        hit["text"]
            .as_str()
            .unwrap()
            .contains("password: \"[REDACTED]")
    );
}

/// A search whose quoted phrase no section holds finds nothing, as the
/// language says, and says why on stderr: a question pasted in quotes is
/// one phrase. A plain search that finds nothing gives no such hint.
#[test]
fn a_quoted_phrase_that_finds_nothing_says_why() {
    let p = Project::compacted_sample();
    let (code, out, err) = p.run(["search", "\"when did we cut over to postgres 16?\""]);
    assert_eq!((code, out.as_str()), (0, "no results\n"), "{err}");
    assert!(
        err.contains("hint: a quoted phrase must appear as written"),
        "{err}"
    );
    let (code, out, err) = p.run(["search", "when did we cut over to postgres 16?"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("memory/2027-01-08.md"), "{out}");
    let (code, out, err) = p.run(["search", "kimchi fried rice"]);
    assert_eq!((code, out.as_str()), (0, "no results\n"), "{err}");
    assert!(!err.contains("hint"), "{err}");
}
