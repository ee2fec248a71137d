//! A reader never needs to write: on a full disk and on a read-only mount,
//! `search`, the prompt hook's recall, MCP `search` and `status` answer
//! from the index and store they have (stale, exit 0), saying why. Real
//! mounts (a small tmpfs, a read-only bind mount) where this machine lets
//! the test mount; skipped with a message where it does not.
#![cfg(unix)]

use crate::common;

use common::mcp_client::Client;
use common::{Project, SAMPLE_TODAY as TODAY};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mount, undone on drop.
struct Mount(PathBuf);

impl Mount {
    /// A tmpfs of `size` at `at`.
    fn tmpfs(at: &Path, size: &str) -> Option<Mount> {
        mount(&["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"], at)
            .then(|| Mount(at.to_path_buf()))
    }

    /// `from` seen read only at `at`.
    fn read_only(from: &Path, at: &Path) -> Option<Mount> {
        if !mount(&["--bind", from.to_str()?], at) {
            return None;
        }
        let m = Mount(at.to_path_buf());
        mount(&["-o", "remount,bind,ro"], at).then_some(m)
    }
}

fn mount(args: &[&str], at: &Path) -> bool {
    Command::new("mount")
        .args(args)
        .arg(at)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// `hipo --dir DIR ARGS…`: (code, stdout, stderr).
fn hipo(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipo"))
        .arg("--dir")
        .arg(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env("HIPO_LOCK_WAIT", "5")
        .env_remove("HIPO_DIR")
        .env_remove("HIPO_TODAY")
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// `hipo --json search QUERY` in `dir`: its JSON and stderr; exit 0.
fn search(dir: &Path, query: &str) -> (Value, String) {
    let (code, out, err) = hipo(dir, &["--json", "search", query]);
    assert_eq!(code, 0, "search {query}: {err}");
    (serde_json::from_str(&out).unwrap(), err)
}

/// The Claude Code prompt hook in `dir`: (code, stdout).
fn prompt_hook(dir: &Path, prompt: &str) -> (i32, String) {
    let input = json!({
        "session_id": "s1",
        "cwd": dir,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    });
    let out = common::run_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_hipo"))
            .args(["--today", TODAY, "hook", "claude-code", "prompt"])
            .current_dir(dir)
            .env_remove("HIPO_DIR"),
        &input.to_string(),
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// MCP `search` in `dir`: the whole result.
fn mcp_search(dir: &Path, query: &str) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipo"));
    cmd.arg("--dir").arg(dir);
    let mut c = Client::spawn(cmd, &[], &[]);
    let r = c.call("search", json!({"query": query}));
    let (code, err) = c.close();
    assert_eq!(code, Some(0), "{err}");
    r["result"].clone()
}

const PROMPT: &str = "why did we remove the old Postgres 13 primary, and what did it save?";
const WALRUS: &str = "\n## Walrus drill [project]\n- the walrus failover drill passed\n";

/// The compacted sample with its index built.
fn indexed() -> Project {
    let p = Project::compacted_sample();
    assert!(!p.hits(&["postgres"]).is_empty());
    p
}

#[test]
fn a_full_disk_answers_from_the_index_it_has_and_catches_up_when_freed() {
    let p = indexed();
    let root = p.path().to_path_buf();
    let saved = tempfile::tempdir().unwrap();
    common::copy_dir(&root, saved.path());
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            std::fs::remove_dir_all(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    let Some(_fs) = Mount::tmpfs(&root, "16m") else {
        eprintln!("disks: full disk not tested: cannot mount a tmpfs here");
        return;
    };
    common::copy_dir(saved.path(), &root);
    // A file changed since the last index update, then the disk filled.
    p.append("memory/2027-01-20.md", WALRUS);
    let filler = root.join("filler.bin");
    let mut f = std::fs::File::create(&filler).unwrap();
    while std::io::Write::write_all(&mut f, &[0u8; 4096]).is_ok() {}
    drop(f);
    let before = p.snapshot();

    let (v, err) = search(&root, "postgres");
    assert_eq!(v["fresh"], false, "{err}");
    assert!(!v["hits"].as_array().unwrap().is_empty(), "{v}");
    assert!(err.contains("free some space"), "{err}");
    let (code, out) = prompt_hook(&root, PROMPT);
    assert_eq!(code, 0);
    assert!(out.contains("memory/"), "recall answered: {out}");
    let r = mcp_search(&root, "postgres");
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["fresh"], false, "{r}");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("free some space")),
        "{r}"
    );
    let (code, out, err) = hipo(&root, &["--json", "status", "--today", TODAY]);
    assert_eq!(code, 0, "{err}");
    assert!(serde_json::from_str::<Value>(&out).is_ok(), "{out}");
    assert_eq!(p.snapshot(), before, "a reader wrote no Markdown");

    // Space freed: the next search indexes the change.
    std::fs::remove_file(&filler).unwrap();
    let (v, err) = search(&root, "walrus failover");
    assert_eq!(v["fresh"], true, "{err}");
    assert_eq!(v["hits"][0]["path"], "memory/2027-01-20.md", "{v}");
}

#[test]
fn a_read_only_mount_answers_current_then_stale_and_writes_nothing() {
    let p = indexed();
    let view = tempfile::tempdir().unwrap();
    let Some(_ro) = Mount::read_only(p.path(), view.path()) else {
        eprintln!("disks: read-only mount not tested: cannot bind-mount here");
        return;
    };
    let ro = view.path();
    assert!(
        std::fs::write(ro.join("probe"), "x").is_err(),
        "the view is read only"
    );
    // Nothing changed: current, without the lock it cannot take.
    let (v, err) = search(ro, "postgres");
    assert_eq!(v["fresh"], true, "{err}");
    assert!(err.is_empty(), "{err}");
    let (code, out, err) = hipo(ro, &["--json", "status", "--today", TODAY]);
    assert_eq!(code, 0, "{err}");
    let status: Value = serde_json::from_str(&out).unwrap();
    assert!(err.contains("read only"), "{err}");
    assert!(status["store"]["files"].as_u64().unwrap() > 0, "{status}");
    let (code, out, _) = hipo(ro, &["get", "memory/2027-01-18.md"]);
    assert_eq!(code, 0);
    assert!(out.contains("Postgres 13"), "{out}");

    // A file changed (through the writable path): stale, said, exit 0.
    p.append("memory/2027-01-20.md", WALRUS);
    let (v, err) = search(ro, "postgres");
    assert_eq!(v["fresh"], false, "{err}");
    assert!(!v["hits"].as_array().unwrap().is_empty(), "{v}");
    assert!(err.contains("read only"), "{err}");
    let (code, out) = prompt_hook(ro, PROMPT);
    assert_eq!(code, 0);
    assert!(out.contains("memory/"), "recall answered: {out}");
    let r = mcp_search(ro, "postgres");
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["fresh"], false, "{r}");
    let (code, _, err) = hipo(ro, &["--json", "status", "--today", TODAY]);
    assert_eq!(code, 0, "{err}");

    // Through the writable path, the change is indexed as ever.
    let (v, _) = search(p.path(), "walrus failover");
    assert_eq!(v["fresh"], true);
    assert_eq!(v["hits"][0]["path"], "memory/2027-01-20.md", "{v}");
}
