//! Team memory through git, as a team uses it: two clones of one bare
//! repository, each with its agent appending entries (`hipo checkpoint`)
//! and compacting, committing, and pulling the other's work by merge and
//! by rebase, round after round. Nothing may be lost or doubled, no file
//! may hold a conflict marker, `git status` must be clean once the other
//! side's work is in, and the two trees must end identical, and (for
//! mechanical summaries) equal to what one machine builds from the merged
//! raw logs.

use crate::common;

use assert_cmd::Command;
use common::Succeeds;
use common::fake_ollama::{FakeOllama, Mode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A clone, its name, and a home of its own (no one's global git config).
struct Clone {
    name: &'static str,
    dir: PathBuf,
    home: PathBuf,
}

impl Clone {
    fn git(&self, today: &str, args: &[&str]) -> std::process::Output {
        let out = std::process::Command::new("git")
            .current_dir(&self.dir)
            .args(args)
            .envs(env(&self.home, today))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: git {args:?}: {}{}",
            self.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn git_text(&self, args: &[&str]) -> String {
        String::from_utf8(self.git("2027-01-01", args).stdout).unwrap()
    }

    fn hipo(&self, today: &str) -> Command {
        let mut cmd = Command::cargo_bin("hipo").unwrap();
        cmd.arg("--dir")
            .arg(&self.dir)
            .env_remove("HIPO_DIR")
            .env_remove("OLLAMA_HOST")
            .env_remove("HIPO_LLM")
            .env_remove("HIPO_MODEL")
            .envs(env(&self.home, today));
        cmd
    }

    fn checkpoint(&self, today: &str, topic: &str) {
        self.hipo(today)
            .args(["checkpoint", "--type", "project", "--topic", topic])
            .args(["-f", &format!("request=work on {topic}")])
            // Lines every entry shares: git's line union keeps them once.
            .args(["-f", "decisions=none", "-f", "outcome=done"])
            .succeeds();
    }

    /// Compacts; with the fake model, ROOT's narrative may fail its
    /// grounding check (the fake echoes one heading; exit 4), which leaves
    /// ROOT's computed sections as a run without a model writes them.
    fn compact(&self, today: &str) {
        let out = self.hipo(today).arg("compact").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let root_only = out.status.code() == Some(4)
            && err
                .lines()
                .filter(|l| l.contains("summary failed"))
                .all(|l| l.starts_with("hipo: memory/ROOT.md: summary failed"));
        assert!(
            out.status.success() || root_only,
            "{}: compact: {}{err}",
            self.name,
            String::from_utf8_lossy(&out.stdout)
        );
    }

    fn commit(&self, today: &str, message: &str) {
        self.git(today, &["add", "-A"]);
        if !self.git_text(&["status", "--porcelain"]).is_empty() {
            self.git(today, &["commit", "-q", "-m", message]);
        }
    }

    /// Every tracked file with its bytes.
    fn tracked(&self) -> BTreeMap<String, Vec<u8>> {
        self.git_text(&["ls-files"])
            .lines()
            .map(|p| (p.to_string(), std::fs::read(self.dir.join(p)).unwrap()))
            .collect()
    }

    fn status(&self) -> String {
        self.git_text(&["status", "--porcelain", "--untracked-files=all"])
    }
}

fn env(home: &Path, today: &str) -> Vec<(&'static str, std::ffi::OsString)> {
    vec![
        ("HOME", home.into()),
        ("GIT_CONFIG_GLOBAL", home.join("gitconfig").into()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_AUTHOR_NAME", "agent".into()),
        ("GIT_AUTHOR_EMAIL", "agent@example.com".into()),
        ("GIT_COMMITTER_NAME", "agent".into()),
        ("GIT_COMMITTER_EMAIL", "agent@example.com".into()),
        ("HIPO_TODAY", today.into()),
        ("NO_COLOR", "1".into()),
    ]
}

/// A bare repository and two clones of it, set up as `docs/team.md` says:
/// `hipo init --share` on the first, committed and pushed; a plain clone
/// and `hipo init --share` on the second.
struct Team {
    _tmp: tempfile::TempDir,
    a: Clone,
    b: Clone,
}

const START: &str = "2026-12-20";

fn team(config: impl Fn(&mut serde_json::Value)) -> Team {
    let tmp = tempfile::tempdir().unwrap();
    let clone = |name: &'static str| {
        let home = tmp.path().join(format!("home-{name}"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("gitconfig"), "[init]\n\tdefaultBranch = main\n").unwrap();
        Clone {
            name,
            dir: tmp.path().join(name),
            home,
        }
    };
    let (a, b) = (clone("a"), clone("b"));
    let origin = tmp.path().join("origin.git");
    std::fs::create_dir_all(&a.dir).unwrap();
    a.git(START, &["init", "-q", "--bare", origin.to_str().unwrap()]);
    a.git(START, &["init", "-q"]);
    a.hipo(START).args(["init", "--share"]).succeeds();
    let path = a.dir.join("hipocampus.config.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(value["share"], true);
    let ignore = std::fs::read_to_string(a.dir.join(".gitignore")).unwrap();
    for personal in [
        ".hipo/",
        "memory/.compaction-state.json",
        ".claude/settings.local.json",
    ] {
        assert!(ignore.lines().any(|l| l == personal), "{ignore}");
    }
    config(&mut value);
    std::fs::write(&path, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    a.commit(START, "memory");
    a.git(
        START,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    a.git(START, &["push", "-q", "-u", "origin", "main"]);
    std::fs::create_dir_all(&b.dir).unwrap();
    b.git(START, &["clone", "-q", origin.to_str().unwrap(), "."]);
    // A fresh clone lacks the drivers until `hipo init --share` runs there.
    let doctor = b.hipo(START).args(["--json", "doctor"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains("lacks hipo's merge driver"),
        "{}",
        String::from_utf8_lossy(&doctor.stdout)
    );
    b.hipo(START).args(["init", "--share"]).succeeds();
    let doctor = b.hipo(START).args(["--json", "doctor"]).output().unwrap();
    let doctor = String::from_utf8_lossy(&doctor.stdout);
    assert!(!doctor.contains("merge driver"), "{doctor}");
    assert!(
        doctor.contains("merges memory/ with hipo's drivers"),
        "{doctor}"
    );
    assert_eq!(
        b.status(),
        "",
        "init --share on a clone changes nothing git carries"
    );
    Team { _tmp: tmp, a, b }
}

fn day(round: usize) -> String {
    let start: chrono::NaiveDate = START.parse().unwrap();
    (start + chrono::Duration::days(3 * round as i64)).to_string()
}

/// No file the clone tracks holds a conflict marker, nothing is unmerged.
fn no_conflicts(c: &Clone) {
    assert_eq!(c.git_text(&["diff", "--name-only", "--diff-filter=U"]), "");
    for (path, bytes) in c.tracked() {
        let text = String::from_utf8_lossy(&bytes);
        for marker in ["<<<<<<<", "=======", ">>>>>>>", "|||||||"] {
            assert!(
                !text.lines().any(|l| l.starts_with(marker)),
                "{}: {path} holds a conflict marker:\n{text}",
                c.name
            );
        }
    }
}

/// What the hook's compaction left after a pull: only derived files,
/// nothing untracked, no raw log touched.
fn only_derived_changed(c: &Clone) {
    for line in c.status().lines() {
        let path = &line[3..];
        let derived = ["memory/daily/", "memory/weekly/", "memory/monthly/"]
            .iter()
            .any(|d| path.starts_with(d))
            || path == "memory/ROOT.md";
        assert!(
            line.starts_with(" M ") && derived,
            "{}: after the pull: {line}",
            c.name
        );
    }
}

/// The rounds: both append and compact, both commit; one pushes, the
/// other pulls (merge on even rounds, rebase on odd ones) and pushes, the
/// first pulls; the clone that pushes first alternates. Returns every
/// topic written.
fn rounds(t: &Team, n: usize, model: Option<&FakeOllama>) -> Vec<String> {
    let mut topics = Vec::new();
    for r in 0..n {
        let today = day(r);
        let earlier = day(r.saturating_sub(1));
        for c in [&t.a, &t.b] {
            for k in 0..2 {
                let topic = format!("Round {r} {} entry {k}", c.name);
                // Late entries: b also writes to the last round's day,
                // which both compacted and committed then.
                let when = if c.name == "b" && k == 1 && r % 2 == 1 {
                    &earlier
                } else {
                    &today
                };
                c.checkpoint(when, &topic);
                topics.push(topic);
            }
            c.compact(&today);
            c.commit(&today, &format!("{} round {r}", c.name));
            assert_eq!(c.status(), "");
        }
        let (first, second) = if r % 2 == 0 {
            (&t.a, &t.b)
        } else {
            (&t.b, &t.a)
        };
        let how = if r % 4 < 2 { "--no-rebase" } else { "--rebase" };
        first.git(&today, &["push", "-q", "origin", "main"]);
        if r % 3 == 2 {
            // Without the hook (a git client that runs none): the drivers
            // alone leave a clean status; the compaction comes after.
            let hooks_off = "core.hooksPath=/nonexistent";
            second.git(
                &today,
                &["-c", hooks_off, "pull", "-q", how, "origin", "main"],
            );
            no_conflicts(second);
            assert_eq!(
                second.status(),
                "",
                "{} round {r}: after the drivers",
                second.name
            );
            second.compact(&today);
        } else {
            second.git(&today, &["pull", "-q", how, "origin", "main"]);
        }
        no_conflicts(second);
        only_derived_changed(second);
        second.commit(&today, &format!("{} compacted after the pull", second.name));
        second.git(&today, &["push", "-q", "origin", "main"]);
        let asked = model.map(node_prompts);
        first.git(&today, &["pull", "-q", "--no-rebase", "origin", "main"]);
        // The other clone's summaries of these very sources are kept: the
        // hook's compaction asks the model for no node.
        assert_eq!(model.map(node_prompts), asked, "round {r}");
        no_conflicts(first);
        assert_eq!(first.status(), "", "{} after pulling round {r}", first.name);
        assert_eq!(first.tracked(), second.tracked(), "round {r}");
    }
    topics
}

/// The summaries the model was asked for, ROOT's narrative aside (the
/// fake's answer fails ROOT's grounding, so ROOT is asked again each run).
fn node_prompts(server: &FakeOllama) -> usize {
    server
        .generates()
        .iter()
        .filter(|g| !g.to_string().contains("ROOT.md's narrative"))
        .count()
}

/// Each topic is in the raw logs once, whole: its heading and its lines.
fn each_entry_once(c: &Clone, topics: &[String]) {
    let mut raw = String::new();
    for (path, bytes) in c.tracked() {
        let name = path.strip_prefix("memory/").unwrap_or("");
        if !name.contains('/') && name.starts_with("20") {
            raw.push_str(&String::from_utf8(bytes).unwrap());
            raw.push('\n');
        }
    }
    for topic in topics {
        let whole = format!(
            "## {topic} [project]\n- request: work on {topic}\n- decisions: none\n- outcome: done\n"
        );
        assert_eq!(raw.matches(&whole).count(), 1, "{topic}:\n{raw}");
    }
    assert_eq!(raw.matches("\n## ").count(), topics.len());
}

/// Both clones compact again: nothing changes, `git status` stays clean
/// and the trees are the same.
fn settle(t: &Team, today: &str) {
    for c in [&t.a, &t.b] {
        c.compact(today);
        no_conflicts(c);
        assert_eq!(c.status(), "", "{} after a last compaction", c.name);
    }
    assert_eq!(t.a.tracked(), t.b.tracked());
}

#[test]
fn two_clones_merging_and_rebasing_lose_nothing_and_converge() {
    let t = team(|_| {});
    let topics = rounds(&t, 12, None);
    each_entry_once(&t.a, &topics);
    let last = day(11);
    settle(&t, &last);
    // One machine given the merged raw logs builds the same tree.
    let one = tempfile::tempdir().unwrap();
    let merged = t.a.tracked();
    for (path, bytes) in &merged {
        let name = path.strip_prefix("memory/").unwrap_or("");
        if path == "hipocampus.config.json" || (!name.contains('/') && name.starts_with("20")) {
            let to = one.path().join(path);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, bytes).unwrap();
        }
    }
    let single = Clone {
        name: "single",
        dir: one.path().to_path_buf(),
        home: t.a.home.clone(),
    };
    single.compact(&last);
    let mut derived = 0;
    for (path, bytes) in &merged {
        if path.starts_with("memory/") && path.ends_with(".md") {
            let built = std::fs::read(one.path().join(path)).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&built),
                String::from_utf8_lossy(bytes),
                "{path}"
            );
            derived += 1;
        }
    }
    assert!(derived > 20, "{derived} memory files compared");
    assert!(merged.contains_key("memory/weekly/2027-W01.md"));
    assert!(merged.contains_key("memory/monthly/2026-12.md"));
}

#[test]
fn with_a_model_the_clones_converge_and_no_summary_is_left_waiting() {
    let server = FakeOllama::start(Mode::Ok);
    let t = team(|config| {
        config["llm"] =
            serde_json::json!({"backend": "ollama", "model": "fake", "host": server.url});
        for key in ["dailyThreshold", "weeklyThreshold", "monthlyThreshold"] {
            config["compaction"][key] = 3.into();
        }
    });
    let topics = rounds(&t, 10, Some(&server));
    each_entry_once(&t.a, &topics);
    settle(&t, &day(9));
    let tree = t.a.tracked();
    let summaries = tree
        .iter()
        .filter(|(p, _)| p.starts_with("memory/daily/") || p.starts_with("memory/weekly/"))
        .map(|(p, b)| (p, String::from_utf8_lossy(b)))
        .collect::<Vec<_>>();
    assert!(summaries.len() > 10);
    for (path, text) in &summaries {
        assert!(!text.contains("needs-summarization"), "{path}:\n{text}");
    }
    assert!(
        summaries.iter().any(|(_, t)| t.contains("model: fake")),
        "a model wrote summaries"
    );
    assert!(!server.generates().is_empty());
}

#[test]
fn a_project_that_does_not_share_gets_no_drivers_and_no_word_from_doctor() {
    let tmp = tempfile::tempdir().unwrap();
    let c = Clone {
        name: "solo",
        dir: tmp.path().join("solo"),
        home: tmp.path().to_path_buf(),
    };
    std::fs::create_dir_all(&c.dir).unwrap();
    c.git(START, &["init", "-q"]);
    c.hipo(START).arg("init").succeeds();
    assert!(!c.dir.join(".gitattributes").exists());
    let config = std::fs::read_to_string(c.dir.join("hipocampus.config.json")).unwrap();
    assert!(!config.contains("share"));
    let doctor = c.hipo(START).args(["--json", "doctor"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&doctor.stdout).contains("merge"));
    let hooks = c.dir.join(".git/hooks/post-merge");
    assert!(!hooks.exists());
}

/// A memory file that is not UTF-8 text is not merged: the driver exits 2
/// naming the path and what to do, and leaves OURS as it was, so git
/// reports the path as conflicted instead of committing a half-merge.
#[test]
fn the_merge_driver_refuses_a_file_that_is_not_utf8_and_leaves_ours_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (base, ours, theirs) = (
        dir.path().join("base"),
        dir.path().join("ours"),
        dir.path().join("theirs"),
    );
    std::fs::write(&base, "# 2027-01-21\n").unwrap();
    let ours_bytes: &[u8] = b"# 2027-01-21\n\n## Ours [project]\n- note: \xff\xfe\n";
    std::fs::write(&ours, ours_bytes).unwrap();
    std::fs::write(&theirs, "# 2027-01-21\n\n## Theirs [project]\n").unwrap();
    let out = Command::cargo_bin("hipo")
        .unwrap()
        .arg("merge-driver")
        .arg("raw")
        .args([&base, &ours, &theirs])
        .arg("memory/2027-01-21.md")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("memory/2027-01-21.md: not UTF-8 text") && err.contains("resolve it by hand"),
        "{err}"
    );
    assert_eq!(std::fs::read(&ours).unwrap(), ours_bytes);
}
