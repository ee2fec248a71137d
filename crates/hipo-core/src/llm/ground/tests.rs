use super::*;

const SOURCES: &str = "Node: daily 2026-12-14\n\nSources:\n\n===== memory/2026-12-14.md =====\n# 2026-12-14\n\n## Postgres 16 migration kickoff [project]\n- decisions: use logical replication\n\n## Mina prefers async reviews [user]\n- Mina wants design reviews as written docs\n\n## Keep answers short [feedback]\n- rule: answer in at most five bullet points\n";

fn grounds() -> Grounds {
    Grounds::new(
        &crate::llm::prompt::system(
            crate::layout::Level::Daily,
            crate::llm::structured::Mode::Structured,
        ),
        SOURCES,
        true,
    )
}

const GOOD: &str = "## Topics\n- postgres-16-migration [project]: logical replication\n- mina [user]: async written reviews\n- short-answers [feedback]\n## Key Decisions\n- logical replication for the Postgres 16 migration\n## Tasks Completed\n- none\n## Lessons Learned\n- rule: answer in at most five bullets / why: phone\n## Open Items\n- none\n";

#[test]
fn a_good_summary_is_grounded() {
    assert_eq!(grounds().check(GOOD), Ok(()));
}

#[test]
fn ungrounded_answers_are_refused_with_a_reason() {
    let g = grounds();
    let nonsense = "## Topics\n- lesanti [project]: ISAMS\n## Key Decisions\n- The LeSanti decision was adopted by the International Society for Microbial Research (ISAMS)\n## Tasks Completed\n- none\n## Lessons Learned\n- none\n## Open Items\n- none\n";
    assert!(
        g.check(nonsense)
            .unwrap_err()
            .contains("drops user or feedback")
    );
    let no_user = GOOD.replace("- mina [user]: async written reviews\n", "");
    assert!(
        g.check(&no_user)
            .unwrap_err()
            .contains("Mina prefers async reviews")
    );
    let line = "- decisions: use logical replication for postgres and mina reviews, short answers";
    let repeated = format!(
        "## Topics\n{line}\n## Key Decisions\n{line}\n## Tasks Completed\n{line}\n## Lessons Learned\n- none\n## Open Items\n- none\n"
    );
    assert!(g.check(&repeated).unwrap_err().contains("repeats a bullet"));
    let echo = GOOD.replace(
        "## Open Items\n- none",
        "## Open Items\n- keep the core content whole (facts about the user, their preferences, people)",
    );
    assert!(
        g.check(&echo)
            .unwrap_err()
            .contains("repeats the instructions")
    );
    let invented = "## Topics\n- observatory [project]\n## Key Decisions\n- calibrated spectrometer lenses, ordered telescope mirrors, polished quartz crystals\n## Tasks Completed\n- painted observatory domes, shipped meteorite samples\n## Lessons Learned\n- none\n## Open Items\n- none\n";
    let g = Grounds::new("", SOURCES, false);
    assert!(
        g.check(invented)
            .unwrap_err()
            .contains("not about its sources")
    );
    let g = Grounds::new("", "", false);
    assert!(g.check(invented).unwrap_err().contains("% of its words"));
}

#[test]
fn fragments_of_markup_are_refused() {
    // What SmolLM2-135M wrote for a sample day, with the format forced.
    let g = grounds();
    let answer = GOOD.replace(
        "- none\n## Lessons",
        "- 2027-15.md [project]: }] } # 2027-15.md ## Use KST in all timestamps ```json {\n## Lessons",
    );
    assert!(
        g.check(&answer)
            .unwrap_err()
            .contains("fragments of markup")
    );
}

#[test]
fn common_words_tell_no_topic_apart() {
    let t =
        topics("## Session a_1\n## Session b_2\n## Session c_3\n## Charity events in LA [user]\n");
    assert_eq!(t.len(), 1, "{t:?}");
    assert_eq!(t[0].words, ["charity", "events", "la"]);
}

/// Summaries written by hand (and by agents) from the sample and MemAware
/// sources: every one is accepted, so grounding refuses no good summary.
#[test]
fn real_summaries_are_all_accepted() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/summaries");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let (front, summary) = text.split_once("\n---\n").unwrap();
        let field = |name: &str| {
            front
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .unwrap_or_else(|| panic!("{}: no {name}", path.display()))
                .trim()
                .to_string()
        };
        let Ok(crate::layout::PathKind::Node(node)) = crate::layout::classify(&field("node: "))
        else {
            panic!("{}: not a node", path.display())
        };
        let sources: Vec<crate::summarize::SourceText> = field("sources: ")
            .split(", ")
            .map(|p| {
                let raw = std::fs::read_to_string(
                    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("../..")
                        .join(p),
                )
                .unwrap();
                crate::summarize::SourceText {
                    path: p.to_string(),
                    lines: raw.lines().count(),
                    body: raw,
                }
            })
            .collect();
        let system =
            crate::llm::prompt::system(node.level(), crate::llm::structured::Mode::Structured);
        let user = crate::llm::prompt::user(node, None, &sources);
        let body = crate::llm::prompt::accept(summary)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let g = Grounds::new(&system, &user, true);
        if let Err(e) = g.check(&body) {
            panic!("{}: {e}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} summaries");
}

#[test]
fn a_thin_narrative_names_too_few_topics() {
    // What SmolLM2-135M wrote for ROOT: fragments, no topic of the days.
    let g = Grounds::new("", SOURCES, false);
    let thin = "## Active Context\n- 2027-12-31\n- tom\n## Recent Patterns\n- delete_13.md\n## Historical Summary\n- 2027-q1.md\n";
    assert!(
        g.check(thin)
            .unwrap_err()
            .contains("names 0 of their 3 topics")
    );
    // Without every user item, ROOT is still fine when it names enough.
    let ok = "## Active Context\n- Postgres 16 migration by logical replication\n## Recent Patterns\n- Mina wants written reviews\n## Historical Summary\n- 2026-12: migration kickoff\n";
    assert_eq!(g.check(ok), Ok(()));
}

/// What a competent 7B model writes, from the issue's cases: accepted.
#[test]
fn ordinary_imperfections_are_accepted() {
    let g = Grounds::new(
        "",
        "Node: daily 2027-01-08\n\n===== memory/2027-01-08.md =====\n## Use KST in all timestamps [feedback]\n- rule: every timestamp in logs and reports carries the zone\n## Postgres 16 migration [project]\n- decisions: use logical replication\n",
        true,
    );
    let answer = "## Topics\n- Time zone convention [feedback]: rule: write times in KST with the zone\n- Postgres 16 migration [project]: use logical replication\n## Key Decisions\n- use logical replication\n## Tasks Completed\n- None mentioned\n## Lessons Learned\n- use logical replication\n## Open Items\n- N/A\n";
    let repaired = normalise(answer);
    assert_eq!(g.check(&repaired.text), Ok(()));
    assert!(!repaired.text.contains("None mentioned"));
    assert_eq!(repaired.text.matches("use logical replication").count(), 2);
    // Without the item, refused.
    let lost = answer.replace(
        "- Time zone convention [feedback]: rule: write times in KST with the zone\n",
        "",
    );
    assert!(
        g.check(&normalise(&lost).text)
            .unwrap_err()
            .contains("Use KST in all timestamps")
    );
}

#[test]
fn a_retry_note_is_no_instruction_to_echo() {
    let user = crate::llm::prompt::retry(
        SOURCES,
        "the answer repeats a bullet across sections: `logical replication for the Postgres 16 migration and more`",
    );
    assert!(user.starts_with("Node: daily 2026-12-14\nYour previous answer was refused: "));
    let g = Grounds::new("", &user, true);
    assert_eq!(g.check(GOOD), Ok(()));
}
