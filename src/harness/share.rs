//! `hipo init --share`: a project whose memory a team shares through a git
//! repository. What is shared is set in files the repository carries
//! (`share` in the config, the merge attributes in `.gitattributes`, what
//! stays out in `.gitignore`); what git will not carry is set on each
//! clone (the merge drivers in `.git/config`, the hooks that compact after
//! a merge or a rebase), so every clone runs `hipo init --share` once and
//! `hipo doctor` says when one has not. The merges themselves are
//! the engine's (`hipo_core::merge_files`).

use super::doctor::{fix, ok, warn};
use super::files::{put, read};
use super::{Finding, Report};
use hipo_core::{CONFIG_FILE, STATE_FILE};
use hipo_core::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Opens hipo's lines in `.gitattributes` (and marks its hooks).
const MARK: &str = "# hipo: team memory (hipo init --share)";

/// Which driver merges which memory file, relative to the project root.
const ATTRIBUTES: &str = "memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md merge=hipo-raw
memory/daily/*.md merge=hipo
memory/weekly/*.md merge=hipo
memory/monthly/*.md merge=hipo
memory/ROOT.md merge=hipo
memory/.compaction-state.json merge=hipo
MEMORY.md merge=hipo
";

/// The drivers' names in `.git/config`, and the `merge-driver` kind each runs.
const DRIVERS: [(&str, &str, &str); 2] = [
    (
        "hipo-raw",
        "raw",
        "hipo: a raw log, both sides' entries each whole",
    ),
    (
        "hipo",
        "derived",
        "hipo: a derived memory file, one side whole until the next compaction",
    ),
];

/// The hooks that bring the tree up to date after git changed it.
const HOOKS: [&str; 2] = ["post-merge", "post-rewrite"];

/// Sets the project under `root` up for a shared repository; `bin` runs
/// hipo from this clone's git config and hooks (`hipo`, or this binary's
/// path when `hipo` on PATH is not it); `personal` are the platforms'
/// hooks files that stay out of git. Idempotent.
pub fn install(root: &Path, bin: &str, personal: &[&str]) -> Result<Report> {
    let top = toplevel(root)?;
    let mut report = Report {
        platform: "git".into(),
        ..Default::default()
    };
    report.note(CONFIG_FILE, share_in_config(root)?);
    report.note(
        ".gitattributes",
        add_lines(&root.join(".gitattributes"), ATTRIBUTES)?,
    );
    report.note(
        ".gitignore",
        add_lines(&root.join(".gitignore"), &ignored(personal))?,
    );
    for (name, kind, what) in DRIVERS {
        let driver = format!("{bin} merge-driver {kind} %O %A %B %P");
        let key = format!("merge.{name}.driver");
        let was = git_config_get(root, &key);
        git(
            root,
            &["config", "--local", &format!("merge.{name}.name"), what],
        )?;
        git(root, &["config", "--local", &key, &driver])?;
        let change = match was {
            Some(w) if w == driver => super::Change::Unchanged,
            Some(_) => super::Change::Updated,
            None => super::Change::Created,
        };
        report.note(&format!(".git/config [merge \"{name}\"]"), change);
    }
    let rel = root
        .canonicalize()
        .ok()
        .and_then(|r| r.strip_prefix(&top).ok().map(Path::to_path_buf))
        .unwrap_or_default();
    let hooks = hooks_dir(root)?;
    for name in HOOKS {
        let path = hooks.join(name);
        match read(&path)? {
            Some(old) if !old.contains(MARK) => report.next_steps.push(format!(
                "{} is someone else's hook, so it was left as it is: add `{bin} --dir \"$(git rev-parse --show-toplevel)/{}\" compact` to it, so that a pull brings the memory tree up to date",
                path.display(),
                rel.display()
            )),
            old => {
                let text = hook_script(name, bin, &rel);
                std::fs::create_dir_all(&hooks).map_err(|e| Error::io(&hooks, e))?;
                let change = put(&path, old.as_deref(), Some(&text))?;
                make_executable(&path)?;
                report.note(&format!(".git/hooks/{name}"), change);
            }
        }
    }
    for rel in ignored(personal).lines().filter(|rel| tracked(root, rel)) {
        report.next_steps.push(format!(
            "{rel} belongs to this machine and is now ignored, but git still tracks it: run `git rm --cached {rel}` and commit"
        ));
    }
    report.next_steps.push(format!(
        "commit {CONFIG_FILE}, .gitattributes and .gitignore; on every other clone (a fresh one too) run `hipo init --share` once: git does not carry its merge drivers and hooks"
    ));
    Ok(report)
}

/// `hipo doctor`'s word on a shared project: whether this clone has the
/// merge drivers and the hooks. Nothing for a project that does not share.
pub fn check(root: &Path, share: bool, out: &mut Vec<Finding>) {
    if !share {
        return;
    }
    if toplevel(root).is_err() {
        out.push(warn(format!(
            "{CONFIG_FILE} says `share`, but {} is not in a git repository",
            root.display()
        )));
        return;
    }
    let missing: Vec<&str> = DRIVERS
        .iter()
        .filter(|(name, ..)| git_config_get(root, &format!("merge.{name}.driver")).is_none())
        .map(|(name, ..)| *name)
        .collect();
    if !missing.is_empty() {
        out.push(fix(format!(
            "this project is shared, but this clone lacks hipo's merge driver ({}): a pull would leave conflicts in memory/; run `hipo init --share`",
            missing.join(", ")
        )));
    }
    let attributes = std::fs::read_to_string(root.join(".gitattributes")).unwrap_or_default();
    if !attributes.contains("merge=hipo-raw") {
        out.push(fix(
            "this project is shared, but .gitattributes does not name hipo's merge drivers: run `hipo init --share` and commit .gitattributes".into(),
        ));
    }
    let hooked = hooks_dir(root).is_ok_and(|dir| {
        HOOKS
            .iter()
            .all(|h| std::fs::read_to_string(dir.join(h)).is_ok_and(|t| t.contains(MARK)))
    });
    if !hooked {
        out.push(warn(
            "this clone has no hipo post-merge/post-rewrite hook: after a pull run `hipo compact` yourself (or `hipo init --share` to install them)".into(),
        ));
    }
    if missing.is_empty() && attributes.contains("merge=hipo-raw") && hooked {
        out.push(ok(
            "shared memory: this clone merges memory/ with hipo's drivers".into(),
        ));
    }
}

/// What stays out of git besides `.hipo/`: this clone's trigger state and
/// the hook settings that are personal (they may name this machine's
/// binary by its path).
fn ignored(personal: &[&str]) -> String {
    let mut lines = format!("{STATE_FILE}\n");
    for rel in personal {
        lines.push_str(rel);
        lines.push('\n');
    }
    lines
}

/// The hook: compact after git changed the tree (a merge, a pull, a
/// rebase; not an amend). Its failure never fails git's command.
fn hook_script(name: &str, bin: &str, rel: &Path) -> String {
    let skip = if name == "post-rewrite" {
        "[ \"$1\" = rebase ] || exit 0\n"
    } else {
        ""
    };
    let dir = if rel.as_os_str().is_empty() {
        "$(git rev-parse --show-toplevel)".to_string()
    } else {
        format!("$(git rev-parse --show-toplevel)/{}", rel.display())
    };
    format!(
        "#!/bin/sh\n{MARK}\n# Brings the memory tree up to what the merged raw logs give.\n{skip}{bin} --dir \"{dir}\" compact >/dev/null || echo \"hipo: the compaction after git's {name} failed; run hipo compact\" >&2\nexit 0\n"
    )
}

/// Adds the lines of `block` a file lacks, under [`MARK`].
fn add_lines(path: &Path, block: &str) -> Result<super::Change> {
    let old = read(path)?;
    let current = old.as_deref().unwrap_or("");
    let have: Vec<&str> = current.lines().map(str::trim).collect();
    let missing: Vec<&str> = block.lines().filter(|l| !have.contains(l)).collect();
    if missing.is_empty() {
        return Ok(super::Change::Unchanged);
    }
    let mut text = current.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if !have.contains(&MARK) {
        text.push_str(MARK);
        text.push('\n');
    }
    for line in missing {
        text.push_str(line);
        text.push('\n');
    }
    put(path, old.as_deref(), Some(&text))
}

/// Sets `"share": true` in the config, keeping the rest byte for byte.
fn share_in_config(root: &Path) -> Result<super::Change> {
    let path = root.join(CONFIG_FILE);
    let old = read(&path)?.unwrap_or_else(|| "{}\n".into());
    let value: serde_json::Value = serde_json::from_str(&old).map_err(|e| Error::Config {
        path: path.clone(),
        message: format!(
            "line {}: {e}; fix the JSON, then run `hipo init --share` again",
            e.line()
        ),
    })?;
    let new = match value.get("share") {
        Some(serde_json::Value::Bool(true)) => return Ok(super::Change::Unchanged),
        Some(_) => {
            return Err(Error::Config {
                path,
                message: "`share` is set to something other than true: set it to true (or delete it), then run `hipo init --share` again".into(),
            });
        }
        None => {
            let Some(open) = old.find('{') else {
                return Err(Error::Config {
                    path,
                    message: "is not a JSON object".into(),
                });
            };
            let empty = value.as_object().is_some_and(|m| m.is_empty());
            let member = if empty {
                "\n  \"share\": true\n"
            } else {
                "\n  \"share\": true,"
            };
            format!("{}{member}{}", &old[..=open], &old[open + 1..])
        }
    };
    put(&path, Some(&old), Some(&new))
}

/// The top of the work tree `root` is in; an error when it is in none.
fn toplevel(root: &Path) -> Result<PathBuf> {
    let top = git(root, &["rev-parse", "--show-toplevel"]).map_err(|_| {
        Error::Usage(format!(
            "{} is not in a git repository: run `git init` (or clone your team's repository) first, then `hipo init --share`",
            root.display()
        ))
    })?;
    let top = PathBuf::from(top.trim());
    Ok(top.canonicalize().unwrap_or(top))
}

/// Where git looks for this clone's hooks (`core.hooksPath` honoured).
fn hooks_dir(root: &Path) -> Result<PathBuf> {
    let dir = PathBuf::from(git(root, &["rev-parse", "--git-path", "hooks"])?.trim());
    Ok(if dir.is_absolute() {
        dir
    } else {
        root.join(dir)
    })
}

fn tracked(root: &Path, rel: &str) -> bool {
    git(root, &["ls-files", "--error-unmatch", rel]).is_ok()
}

fn git_config_get(root: &Path, key: &str) -> Option<String> {
    git(root, &["config", "--get", key])
        .ok()
        .map(|v| v.trim().to_string())
}

/// Runs git in `root`; its stdout, or an error with its stderr.
fn git(root: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(|e| Error::Usage(format!("cannot run git: {e}; install git, then try again")))?;
    if !out.status.success() {
        return Err(Error::Usage(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::io(path, e))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Change;

    #[test]
    fn share_is_set_in_the_config_keeping_the_rest_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE);
        std::fs::write(
            &path,
            "{\n  \"llm\": {\"backend\": \"none\"}, \"other\": [1, 2]\n}\n",
        )
        .unwrap();
        assert_eq!(share_in_config(dir.path()).unwrap(), Change::Updated);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "{\n  \"share\": true,\n  \"llm\": {\"backend\": \"none\"}, \"other\": [1, 2]\n}\n"
        );
        assert_eq!(share_in_config(dir.path()).unwrap(), Change::Unchanged);
        std::fs::write(&path, "{}").unwrap();
        share_in_config(dir.path()).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["share"], true);
        std::fs::write(&path, "{\"share\": false}").unwrap();
        assert!(share_in_config(dir.path()).is_err());
    }

    #[test]
    fn lines_are_added_once_after_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".gitignore");
        std::fs::write(&path, "target\n.hipo/").unwrap();
        assert_eq!(
            add_lines(&path, ".hipo/\nmemory/x\n").unwrap(),
            Change::Updated
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("target\n.hipo/\n{MARK}\nmemory/x\n")
        );
        assert_eq!(
            add_lines(&path, ".hipo/\nmemory/x\n").unwrap(),
            Change::Unchanged
        );
    }

    #[test]
    fn the_post_rewrite_hook_compacts_after_a_rebase_only() {
        let hook = hook_script("post-rewrite", "hipo", Path::new("sub dir"));
        assert!(hook.starts_with("#!/bin/sh\n") && hook.contains(MARK));
        assert!(hook.contains("[ \"$1\" = rebase ] || exit 0"));
        assert!(hook.contains("hipo --dir \"$(git rev-parse --show-toplevel)/sub dir\" compact"));
        assert!(hook.ends_with("exit 0\n"));
        assert!(!hook_script("post-merge", "hipo", Path::new("")).contains("rebase"));
    }
}
