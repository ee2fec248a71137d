//! A search does not stat the files of periods that ended more than a
//! month ago: it takes them as compaction last saw or wrote them. Files
//! added or removed are seen by the next search (directories are still
//! read); an edit in place to a sealed file by the next compaction, and
//! then the next search; `hipo index` stats every file. Nothing is lost.

use crate::common;

use common::Project;

/// Three old days (sealed by any clock after 2020), each naming an animal.
fn old_days() -> Project {
    let p = Project::empty();
    for (d, animal) in [(6, "wombat"), (7, "platypus"), (8, "echidna")] {
        p.write(
            &format!("memory/2020-01-{d:02}.md"),
            format!("# 2020-01-{d:02}\n\n## Field notes [project]\n- saw a {animal} today\n"),
        );
    }
    p
}

fn found(p: &Project, word: &str) -> Vec<String> {
    p.hits(&[word])
        .iter()
        .map(|h| h["path"].as_str().unwrap().to_string())
        .filter(|path| !path.starts_with("memory/daily") && !path.contains("ly/"))
        .collect()
}

#[test]
fn a_sealed_edit_is_seen_by_the_next_compaction_and_a_new_file_at_once() {
    let p = old_days();
    assert_eq!(p.compact("2020-03-01").0, 0);
    assert_eq!(found(&p, "wombat"), ["memory/2020-01-06.md"]);
    // An edit in place to a sealed raw log: compaction's record vouches
    // for the old stamp, so a search does not look at it yet.
    p.append("memory/2020-01-06.md", "- and a quokka\n");
    assert!(found(&p, "quokka").is_empty());
    // A new file in a sealed period and a deleted one: seen at once.
    p.write(
        "memory/2020-01-09.md",
        "# 2020-01-09\n\n## Field notes [project]\n- saw a numbat today\n",
    );
    std::fs::remove_file(p.path().join("memory/2020-01-08.md")).unwrap();
    assert_eq!(found(&p, "numbat"), ["memory/2020-01-09.md"]);
    assert!(found(&p, "echidna").is_empty());
    // The next compaction stats every file: the next search indexes it.
    assert_eq!(p.compact("2020-03-01").0, 0);
    assert_eq!(found(&p, "quokka"), ["memory/2020-01-06.md"]);
}

#[test]
fn index_stats_every_file() {
    let p = old_days();
    assert_eq!(p.compact("2020-03-01").0, 0);
    assert_eq!(found(&p, "wombat"), ["memory/2020-01-06.md"]);
    p.append("memory/2020-01-07.md", "- and a quokka\n");
    assert!(found(&p, "quokka").is_empty());
    let (code, _, err) = p.run(["index"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(found(&p, "quokka"), ["memory/2020-01-07.md"]);
}

#[test]
fn without_compaction_records_every_file_is_stat_ed() {
    let p = old_days();
    assert_eq!(found(&p, "wombat"), ["memory/2020-01-06.md"]);
    p.append("memory/2020-01-06.md", "- and a quokka\n");
    assert_eq!(found(&p, "quokka"), ["memory/2020-01-06.md"]);
}
