//! Finding and creating a project; [`crate::Hipo`] opens it.

use crate::config::CompactionState;
use crate::error::{Error, Problem, Result};
use crate::fsutil::write_atomic;
use crate::layout::{CONFIG_FILE, HIPO_DIR, MEMORY_DIR, STATE_FILE};
use std::path::{Path, PathBuf};

/// Resolves the project root: `dir` if given (it must be a project), else
/// the nearest ancestor of `cwd` holding `hipocampus.config.json` or
/// `memory/`. Only `hipo init` may start a project in a plain directory.
pub fn find_root(dir: Option<&Path>, cwd: &Path) -> Result<PathBuf> {
    if let Some(dir) = dir {
        let shown = dir.display();
        return if !dir.is_dir() {
            Err(Error::NoProject(format!(
                "{shown} does not exist or is not a directory; create it or run `hipo init --dir {shown}`"
            )))
        } else if !is_project(dir) {
            Err(Error::NoProject(format!(
                "{shown} is not a hipo project (no {CONFIG_FILE} or {MEMORY_DIR}/); run `hipo init --dir {shown}`"
            )))
        } else {
            Ok(dir.to_path_buf())
        };
    }
    cwd.ancestors()
        .find(|d| is_project(d))
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            Error::NoProject(format!(
                "no hipo project in {} or its parents (looked for {CONFIG_FILE} or {MEMORY_DIR}/); run `hipo init` or pass --dir",
                cwd.display()
            ))
        })
}

/// True if `dir` holds `hipocampus.config.json` or `memory/`.
fn is_project(dir: &Path) -> bool {
    dir.join(CONFIG_FILE).is_file() || dir.join(MEMORY_DIR).is_dir()
}

/// Reads `memory/.compaction-state.json` for a command that goes on
/// without it: a malformed or unreadable file is a [`Problem`] naming the
/// file and what to do, and the caller must leave that file as it is (it
/// may hold keys other tools wrote).
pub fn load_state(root: &Path) -> std::result::Result<CompactionState, Problem> {
    CompactionState::load(root).map_err(|e| Problem {
        path: STATE_FILE.into(),
        line: None,
        message: match e {
            Error::Config { message, .. } => message,
            Error::Io { source, .. } => format!("cannot read: {source}; fix or delete the file"),
            other => format!("{other}; fix or delete the file"),
        },
    })
}

/// What `init` created.
#[derive(Debug, Default, serde::Serialize)]
pub struct InitReport {
    pub root: String,
    pub created: Vec<String>,
}

/// Creates the hipocampus layout. Idempotent; never overwrites a file.
pub fn init(root: &Path, today: chrono::NaiveDate) -> Result<InitReport> {
    let mut report = InitReport {
        root: root.display().to_string(),
        ..Default::default()
    };
    for dir in [
        "memory/daily",
        "memory/weekly",
        "memory/monthly",
        "knowledge",
        "plans",
    ] {
        let p = root.join(dir);
        if !p.is_dir() {
            std::fs::create_dir_all(&p).map_err(|e| Error::io(&p, e))?;
            report.created.push(format!("{dir}/"));
        }
    }
    let root_md = crate::root::build(&crate::root::RootInput {
        today,
        max_tokens: 3000,
        days: Vec::new(),
        summaries: Vec::new(),
        existing: None,
        narrative: None,
        notes: Vec::new(),
    });
    let config = "{\n  \"compaction\": {\n    \"cooldownHours\": 3,\n    \"dailyThreshold\": 200,\n    \"weeklyThreshold\": 300,\n    \"monthlyThreshold\": 500,\n    \"rootMaxTokens\": 3000\n  },\n  \"llm\": {\n    \"backend\": \"none\"\n  }\n}\n";
    for (rel, text) in [
        (crate::layout::ROOT_PATH, root_md.as_str()),
        (CONFIG_FILE, config),
    ] {
        let p = root.join(rel);
        if !p.exists() {
            write_atomic(&p, text.as_bytes())?;
            report.created.push(rel.to_string());
        }
    }
    let state = root.join(STATE_FILE);
    if !state.exists() {
        CompactionState::default().save(root)?;
        report.created.push(STATE_FILE.to_string());
    }
    let gitignore = root.join(".gitignore");
    let current = match std::fs::read_to_string(&gitignore) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(&gitignore, e)),
    };
    let entry = format!("{HIPO_DIR}/");
    if !current
        .lines()
        .any(|l| l.trim() == entry || l.trim() == HIPO_DIR || l.trim() == format!("/{entry}"))
    {
        let mut text = current;
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&entry);
        text.push('\n');
        write_atomic(&gitignore, text.as_bytes())?;
        report.created.push(".gitignore entry .hipo/".into());
    }
    Ok(report)
}

/// Deletes the derived cache (everything in `.hipo/` but the lock).
pub fn drop_cache(root: &Path) -> Result<()> {
    let dir = root.join(HIPO_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name() == "lock" {
            continue;
        }
        let result = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        result.map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_is_idempotent_and_keeps_files() {
        let dir = tempfile::tempdir().unwrap();
        let today = chrono::NaiveDate::from_ymd_opt(2027, 1, 1).unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target").unwrap();
        let first = init(dir.path(), today).unwrap();
        assert!(first.created.contains(&"memory/ROOT.md".to_string()));
        std::fs::write(dir.path().join("memory/ROOT.md"), "mine").unwrap();
        let second = init(dir.path(), today).unwrap();
        assert!(second.created.is_empty(), "{:?}", second.created);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("memory/ROOT.md")).unwrap(),
            "mine"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".gitignore")).unwrap(),
            "target\n.hipo/\n"
        );
    }

    #[test]
    fn finds_nearest_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        assert_eq!(
            find_root(None, &dir.path().join("a/b")).unwrap(),
            dir.path()
        );
        assert!(find_root(Some(&dir.path().join("nope")), dir.path()).is_err());
    }

    #[test]
    fn a_bad_state_file_is_a_problem() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(MEMORY_DIR)).unwrap();
        assert_eq!(load_state(dir.path()).unwrap(), CompactionState::default());
        std::fs::write(dir.path().join(STATE_FILE), "{\"x\": 1,}").unwrap();
        let problem = load_state(dir.path()).unwrap_err();
        assert_eq!(problem.path, STATE_FILE);
        assert!(
            problem.message.ends_with("fix or delete the file"),
            "{problem}"
        );
    }

    #[test]
    fn a_given_dir_must_be_a_project() {
        let dir = tempfile::tempdir().unwrap();
        let err = find_root(Some(dir.path()), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a hipo project"), "{err}");
        assert!(err.contains("run `hipo init --dir"), "{err}");
        std::fs::write(dir.path().join(CONFIG_FILE), "{}").unwrap();
        assert_eq!(find_root(Some(dir.path()), dir.path()).unwrap(), dir.path());
        let mem = tempfile::tempdir().unwrap();
        std::fs::create_dir(mem.path().join(MEMORY_DIR)).unwrap();
        assert_eq!(find_root(Some(mem.path()), dir.path()).unwrap(), mem.path());
    }
}
