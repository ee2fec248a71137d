//! Helpers for driving the real `hipo` binary in temp directories.
#![allow(dead_code)]

use assert_cmd::Command;
pub mod fake_embed;
pub mod fake_ollama;
pub mod mcp_client;
pub mod props;
pub mod text;

/// The date the sample memory is compacted as of in most tests.
pub const SAMPLE_TODAY: &str = "2027-01-21";
use std::path::{Path, PathBuf};

/// Runs a command that must succeed: a failure shows its stdout and stderr.
pub trait Succeeds {
    fn succeeds(&mut self) -> std::process::Output;
}

impl Succeeds for std::process::Command {
    fn succeeds(&mut self) -> std::process::Output {
        succeeded(self.output().unwrap())
    }
}

impl Succeeds for assert_cmd::Command {
    fn succeeds(&mut self) -> std::process::Output {
        succeeded(self.output().unwrap())
    }
}

fn succeeded(out: std::process::Output) -> std::process::Output {
    assert!(
        out.status.success(),
        "failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `cmd` with `input` on its stdin and collects its output, as a
/// hook is run by an agent platform.
pub fn run_with_stdin(cmd: &mut std::process::Command, input: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// A temp project; removed on drop.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    /// An empty project with `memory/`.
    pub fn empty() -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        Project { dir }
    }

    /// A temp copy of `fixtures/sample`.
    pub fn sample() -> Project {
        let p = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sample"),
            p.path(),
        );
        p
    }

    /// A temp copy of the sample, compacted as of [`SAMPLE_TODAY`].
    pub fn compacted_sample() -> Project {
        let p = Project::sample();
        let (code, out, err) = p.compact(SAMPLE_TODAY);
        assert_eq!(code, 0, "{out}{err}");
        p
    }

    /// Runs `hipo --json search ARGS…` and returns its hits.
    pub fn hits(&self, args: &[&str]) -> Vec<serde_json::Value> {
        let v = self.json(std::iter::once("search").chain(args.iter().copied()));
        v["hits"].as_array().unwrap().clone()
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (creating parents).
    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Adds `member` (`"key": value`) to the project's config object.
    pub fn add_config(&self, member: &str) {
        let config = self.read("hipocampus.config.json");
        let config = config
            .trim_end()
            .strip_suffix('}')
            .unwrap()
            .trim_end()
            .to_string();
        self.write(
            "hipocampus.config.json",
            format!("{config},\n  {member}\n}}\n"),
        );
    }

    /// Appends to a file.
    pub fn append(&self, rel: &str, text: &str) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(self.path().join(rel))
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path().join(rel).exists()
    }

    /// `hipo --dir <project> …` with a fixed environment.
    pub fn hipo(&self) -> Command {
        let mut cmd = Command::cargo_bin("hipo").unwrap();
        cmd.arg("--dir").arg(self.path());
        cmd.env_remove("HIPO_TODAY")
            .env_remove("HIPO_DIR")
            .env_remove("HIPO_EMBED_MODEL")
            .env_remove("OLLAMA_HOST")
            .env("NO_COLOR", "1");
        cmd
    }

    /// Runs `hipo ARGS…`, returning (exit code, stdout, stderr).
    pub fn run<I, S>(&self, args: I) -> (i32, String, String)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let out = self.hipo().args(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Runs `hipo --json ARGS…`, which must succeed, and parses its output.
    pub fn json<I, S>(&self, args: I) -> serde_json::Value
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let out = self.hipo().arg("--json").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// Runs `hipo compact --today DATE`, returning (exit code, stdout, stderr).
    pub fn compact(&self, today: &str) -> (i32, String, String) {
        self.run(["compact", "--today", today])
    }

    /// Every Markdown file under memory/ with its bytes, sorted.
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        collect(self.path(), self.path(), &mut out);
        out.sort();
        out
    }
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() {
            collect(root, &p, out);
        } else {
            out.push((
                p.strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(&p).unwrap(),
            ));
        }
    }
}

/// Recursively copies a directory.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A raw log with `n` lines of entries.
pub fn raw_log(date: &str, entries: &[(&str, &str)], filler_lines: usize) -> String {
    let mut s = format!("# {date}\n\n");
    for (heading, body) in entries {
        s.push_str(&format!("## {heading}\n{body}\n\n"));
    }
    for i in 0..filler_lines {
        s.push_str(&format!("- detail line {i}\n"));
    }
    s
}
