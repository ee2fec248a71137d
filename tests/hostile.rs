//! Hostile trees, each with the outcome a user should see: no panic, the
//! file named with what to do, a non-zero exit where the user must act,
//! nothing lost or half-written, and memory bounded (the child's peak RSS,
//! from `wait4`). The sizes here are kept small enough for the test suite;
//! `benches/hostile.sh` runs the full-size cases (a 200 MB log, a 10 MB
//! line) on the release binary.

mod common;
use common::Project;
use std::path::Path;
use std::process::{Command, Stdio};

/// A finished child: exit code, output, and its peak resident memory.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    max_rss_mb: f64,
}

fn run(p: &Project, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipo"));
    cmd.arg("--dir")
        .arg(p.path())
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("HIPO_DIR")
        .env_remove("HIPO_TODAY")
        .env_remove("HIPO_FAILPOINT")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    wait_measured(child)
}

/// `hipo checkpoint` of a project entry on 2026-01-09 with one field.
fn checkpoint(p: &Project, field: &str, env: &[(&str, &str)]) -> Run {
    run(
        p,
        &[
            "checkpoint",
            "--today",
            "2026-01-09",
            "--type",
            "project",
            "--topic",
            "T",
            "-f",
            field,
        ],
        env,
    )
}

/// Waits for `child` with `wait4`, which reports its own peak RSS (not
/// that of every child this test process ever had).
#[cfg(unix)]
fn wait_measured(mut child: std::process::Child) -> Run {
    use std::io::Read;
    let (mut out, mut err) = (String::new(), String::new());
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let _ = so.read_to_string(&mut out);
    err.push_str(&reader.join().unwrap());
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid pointers.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -libc::WTERMSIG(status)
    };
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(code, 101, "{err}");
    Run {
        code,
        stdout: out,
        stderr: err,
        max_rss_mb: usage.ru_maxrss as f64 / 1024.0,
    }
}

/// Deterministic bytes from a seed, most of them not UTF-8.
fn junk(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 56) as u8
        })
        .collect()
}

fn day(date: &str, line: &str) -> String {
    format!("# {date}\n\n## Work [project]\n- {line}\n")
}

/// Hidden temp files a half-done write would leave.
fn temp_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(".hipo-tmp-") {
            out.push(e.path().display().to_string());
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) && name != ".hipo" {
            out.extend(temp_files(&e.path()));
        }
    }
    out
}

#[test]
fn a_large_raw_log_and_a_long_line_are_compacted_and_searched_in_bounded_memory() {
    // 1 MB of entries and a 1 MB line without a newline (the 200 MB log
    // and the 10 MB line are in benches/hostile.sh).
    let p = Project::empty();
    let mut log = String::from("# 2026-01-06\n");
    let mut i = 0;
    while log.len() < 1 << 20 {
        log.push_str(&format!(
            "\n## Entry {i} [project]\n- moved shard {i} to the replica\n- budget {i} agreed\n"
        ));
        i += 1;
    }
    log.push_str("\n## Last entry [project]\n- the wombat migration closed\n");
    p.write("memory/2026-01-06.md", &log);
    let mut line = String::from("# 2026-01-07\n\n");
    let mut k = 0;
    while line.len() < 1 << 20 {
        line.push_str(&format!("token{k} "));
        k += 1;
    }
    line.push_str("platypus");
    p.write("memory/2026-01-07.md", &line);

    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(compact.code, 0, "{}", compact.stderr);
    let search = run(&p, &["--json", "search", "wombat migration"], &[]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    assert!(
        search.stdout.contains("memory/2026-01-06.md"),
        "{}",
        search.stdout
    );
    let end = run(&p, &["--json", "search", "platypus"], &[]);
    assert_eq!(end.code, 0, "{}", end.stderr);
    assert!(
        end.stdout.contains("memory/2026-01-07.md"),
        "{}",
        end.stdout
    );
    // The raw logs are the source of truth: untouched.
    assert_eq!(p.read("memory/2026-01-06.md"), log);
    assert_eq!(p.read("memory/2026-01-07.md"), line);
    eprintln!(
        "hostile: 1 MB log + 1 MB line: peak RSS compact {:.0} MB, first search {:.0} MB",
        compact.max_rss_mb, search.max_rss_mb
    );
    for (what, r) in [("compact", &compact), ("search", &search)] {
        assert!(r.max_rss_mb < 400.0, "{what}: {:.0} MB", r.max_rss_mb);
    }
}

#[test]
fn binary_junk_with_a_date_name_is_named_skipped_and_left_as_it_is() {
    let p = Project::empty();
    let bytes = junk(200_000, 7);
    p.write("memory/2026-01-05.md", &bytes);
    p.write(
        "memory/2026-01-06.md",
        day("2026-01-06", "the wombat stays"),
    );
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(
        compact.code, 1,
        "skipped files make exit 1: {}",
        compact.stderr
    );
    assert!(
        compact.stderr.contains("memory/2026-01-05.md:") && compact.stderr.contains("UTF-8"),
        "{}",
        compact.stderr
    );
    assert!(p.exists("memory/daily/2026-01-06.md"), "the rest is done");
    assert!(!p.exists("memory/daily/2026-01-05.md"));
    let search = run(&p, &["search", "wombat"], &[]);
    assert_eq!(search.code, 1, "{}", search.stderr);
    assert!(search.stdout.contains("memory/2026-01-06.md"));
    assert!(
        search.stderr.contains("memory/2026-01-05.md"),
        "{}",
        search.stderr
    );
    assert_eq!(
        std::fs::read(p.path().join("memory/2026-01-05.md")).unwrap(),
        bytes
    );
}

fn billion_laughs(body: &str) -> String {
    let mut yaml =
        vec![r#"a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]"#.to_string()];
    let mut prev = 'a';
    for c in "bcdefghi".chars() {
        let refs = vec![format!("*{prev}"); 9].join(",");
        yaml.push(format!("{c}: &{c} [{refs}]"));
        prev = c;
    }
    format!("---\n{}\ntopics: *i\n---\n{body}", yaml.join("\n"))
}

#[test]
fn yaml_bombs_in_frontmatter_neither_hang_nor_blow_up() {
    let p = Project::empty();
    p.write("memory/2026-01-06.md", day("2026-01-06", "a quiet day"));
    p.write(
        "knowledge/laughs.md",
        billion_laughs("# Laughs\n\nthe wombat laughs\n"),
    );
    let deep = format!(
        "---\ntopics: {}{}\n---\n# Deep\n\nthe wombat dives\n",
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    p.write("knowledge/deep.md", &deep);
    // A bomb in a node hipo wrote: the node is rebuilt, the text kept.
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(compact.code, 0, "{}", compact.stderr);
    let node = p.read("memory/daily/2026-01-06.md");
    p.write(
        "memory/daily/2026-01-06.md",
        billion_laughs(node.split("---\n").nth(2).unwrap_or("# x\n")),
    );
    p.append("memory/2026-01-06.md", "- and one more line\n");
    let again = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert!(again.code == 0 || again.code == 1, "{}", again.stderr);
    assert!(
        p.read("memory/daily/2026-01-06.md")
            .contains("one more line")
    );
    let search = run(&p, &["--json", "search", "wombat"], &[]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    for f in ["knowledge/laughs.md", "knowledge/deep.md"] {
        assert!(search.stdout.contains(f), "{f}: {}", search.stdout);
    }
    for (what, r) in [
        ("compact", &compact),
        ("again", &again),
        ("search", &search),
    ] {
        assert!(r.max_rss_mb < 200.0, "{what}: {:.0} MB", r.max_rss_mb);
    }
}

#[test]
fn ten_thousand_nested_headings_are_indexed_and_found() {
    let p = Project::empty();
    let text: String = (0..10_000)
        .map(|i| {
            format!(
                "{} heading {i}\n\nnote {i} about the wombat\n\n",
                "#".repeat(1 + i % 6)
            )
        })
        .collect::<String>()
        + "## Last heading\n\nthe platypus at the very end\n";
    p.write("knowledge/headings.md", &text);
    p.write("memory/2026-01-06.md", day("2026-01-06", "a quiet day"));
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(compact.code, 0, "{}", compact.stderr);
    let search = run(&p, &["--json", "search", "platypus"], &[]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    let v: serde_json::Value = serde_json::from_str(&search.stdout).unwrap();
    assert_eq!(v["hits"][0]["path"], "knowledge/headings.md", "{v}");
    assert_eq!(v["hits"][0]["line"], 40_003, "{v}");
    assert!(search.max_rss_mb < 300.0, "{:.0} MB", search.max_rss_mb);
}

#[cfg(unix)]
#[test]
fn symlink_loops_in_memory_and_knowledge_neither_hang_nor_duplicate() {
    use std::os::unix::fs::symlink;
    let p = Project::empty();
    p.write(
        "memory/2026-01-06.md",
        day("2026-01-06", "the wombat sleeps"),
    );
    p.write("knowledge/notes.md", "# Notes\n\nthe wombat eats\n");
    symlink(".", p.path().join("memory/loop")).unwrap();
    symlink("..", p.path().join("knowledge/up")).unwrap();
    symlink("self", p.path().join("knowledge/self")).unwrap();
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert!(compact.code == 0 || compact.code == 1, "{}", compact.stderr);
    assert!(p.exists("memory/daily/2026-01-06.md"));
    let search = run(&p, &["--json", "search", "wombat", "-n", "50"], &[]);
    assert!(search.code == 0 || search.code == 1, "{}", search.stderr);
    let v: serde_json::Value = serde_json::from_str(&search.stdout).unwrap();
    let paths: Vec<&str> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"knowledge/notes.md"), "{paths:?}");
    assert!(paths.contains(&"memory/2026-01-06.md"), "{paths:?}");
    for path in &paths {
        assert!(
            !path.contains("loop/") && !path.contains("up/"),
            "{paths:?}"
        );
    }
}

#[test]
fn a_directory_with_a_date_name_is_named_and_skipped() {
    let p = Project::empty();
    std::fs::create_dir_all(p.path().join("memory/2026-01-02.md")).unwrap();
    p.write("memory/2026-01-06.md", day("2026-01-06", "the wombat"));
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(compact.code, 1, "{}", compact.stderr);
    assert!(
        compact.stderr.contains("memory/2026-01-02.md") && compact.stderr.contains("directory"),
        "{}",
        compact.stderr
    );
    assert!(p.exists("memory/daily/2026-01-06.md"));
    assert!(
        p.path().join("memory/2026-01-02.md").is_dir(),
        "left as it is"
    );
}

#[test]
fn non_ascii_and_spaced_file_names_are_searched_and_got() {
    let p = Project::empty();
    p.write("memory/2026-01-06.md", day("2026-01-06", "a quiet day"));
    p.write("knowledge/café notes é.md", "# Café\n\nthe wombat drinks\n");
    p.write("knowledge/회의 노트.md", "# 회의\n\n코끼리 회의 wombat\n");
    p.write(
        "knowledge/with  two spaces.md",
        "# Two\n\nthe wombat naps\n",
    );
    let search = run(&p, &["--json", "search", "wombat"], &[]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    for name in [
        "knowledge/café notes é.md",
        "knowledge/회의 노트.md",
        "knowledge/with  two spaces.md",
    ] {
        assert!(search.stdout.contains(name), "{name}: {}", search.stdout);
        let get = run(&p, &["get", name], &[]);
        assert_eq!(get.code, 0, "{name}: {}", get.stderr);
        assert!(get.stdout.contains("wombat"), "{}", get.stdout);
    }
}

/// A scratch tmpfs mounted at a path, unmounted on drop; `None` where the
/// machine does not let this process mount (not root, no CAP_SYS_ADMIN).
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }

    fn remount(&self, options: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{options}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(ok.success(), "remount {options}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Makes `memory/` read-only: by permissions for a normal user, by a
/// read-only tmpfs for root (whom permissions do not stop). `None` when
/// neither is possible here.
fn read_only_memory(p: &Project) -> Option<Option<Tmpfs>> {
    use std::os::unix::fs::PermissionsExt;
    let memory = p.path().join("memory");
    if !is_root() {
        for dir in [memory.join("daily"), memory.clone()] {
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        return Some(None);
    }
    let saved = tempfile::tempdir().unwrap();
    common::copy_dir(&memory, saved.path());
    std::fs::remove_dir_all(&memory).unwrap();
    let fs = Tmpfs::mount(&memory, "4m")?;
    common::copy_dir(saved.path(), &memory);
    fs.remount("ro");
    Some(Some(fs))
}

#[cfg(unix)]
#[test]
fn a_read_only_memory_dir_fails_clearly_and_writes_nothing() {
    let p = Project::empty();
    for d in 5..=7 {
        let date = format!("2026-01-{d:02}");
        p.write(&format!("memory/{date}.md"), day(&date, "the wombat"));
    }
    assert_eq!(run(&p, &["compact", "--today", "2026-01-08"], &[]).code, 0);
    p.write("memory/2026-01-09.md", day("2026-01-09", "the platypus"));
    let Some(_fs) = read_only_memory(&p) else {
        eprintln!(
            "hostile: read-only memory/ not tested: cannot chmod as root nor mount a tmpfs here"
        );
        return;
    };
    let before = p.snapshot();
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(compact.code, 2, "{}", compact.stderr);
    assert!(
        compact.stderr.contains("memory/") && compact.stderr.contains("make it writable")
            || compact.stderr.contains("give hipo permission"),
        "{}",
        compact.stderr
    );
    let checkpoint = checkpoint(&p, "outcome=x", &[]);
    assert_eq!(checkpoint.code, 2, "{}", checkpoint.stderr);
    assert!(
        checkpoint.stderr.contains("memory/"),
        "{}",
        checkpoint.stderr
    );
    assert_eq!(
        p.snapshot(),
        before,
        "nothing written, nothing half-written"
    );
    assert_eq!(temp_files(p.path()), Vec::<String>::new());
    // Reading still works: the index lives in .hipo/.
    let search = run(&p, &["--json", "search", "platypus"], &[]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    assert!(
        search.stdout.contains("memory/2026-01-09.md"),
        "{}",
        search.stdout
    );
    if !is_root() {
        use std::os::unix::fs::PermissionsExt;
        for dir in ["memory", "memory/daily"] {
            let mode = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(p.path().join(dir), mode).unwrap();
        }
    }
}

/// A tree a compaction has work to do on.
fn week(p: &Project) {
    for d in 5..=9 {
        let date = format!("2026-01-{d:02}");
        p.write(
            &format!("memory/{date}.md"),
            day(&date, &format!("the wombat on day {d}")),
        );
    }
}

#[test]
fn a_full_disk_fails_clearly_leaves_every_file_whole_and_the_next_run_converges() {
    // Simulated at the write boundaries (the real tmpfs case follows).
    let clean = Project::empty();
    week(&clean);
    assert_eq!(
        run(&clean, &["compact", "--today", "2026-02-20"], &[]).code,
        0
    );
    let p = Project::empty();
    week(&p);
    let full = [("HIPO_FAILPOINT", "write_atomic:3:error")];
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &full);
    assert_eq!(compact.code, 2, "{}", compact.stderr);
    assert!(
        compact.stderr.contains("free some space"),
        "{}",
        compact.stderr
    );
    let clean_files: std::collections::BTreeMap<_, _> = clean.snapshot().into_iter().collect();
    for (path, bytes) in p.snapshot() {
        assert_eq!(
            clean_files.get(&path),
            Some(&bytes),
            "{} is whole",
            path.display()
        );
    }
    assert_eq!(temp_files(p.path()), Vec::<String>::new());
    assert_eq!(run(&p, &["compact", "--today", "2026-02-20"], &[]).code, 0);
    assert_eq!(p.snapshot(), clean.snapshot());

    let log = p.read("memory/2026-01-09.md");
    let checkpoint = checkpoint(
        &p,
        "outcome=x",
        &[("HIPO_FAILPOINT", "journal.append:1:error")],
    );
    assert_eq!(checkpoint.code, 2, "{}", checkpoint.stderr);
    assert!(
        checkpoint.stderr.contains("memory/2026-01-09.md")
            && checkpoint.stderr.contains("free some space"),
        "{}",
        checkpoint.stderr
    );
    assert_eq!(p.read("memory/2026-01-09.md"), log, "nothing half-appended");
}

#[cfg(unix)]
#[test]
fn a_real_full_tmpfs_fails_clearly_and_an_append_never_lands_half() {
    let clean = Project::empty();
    week(&clean);
    assert_eq!(
        run(&clean, &["compact", "--today", "2026-02-20"], &[]).code,
        0
    );
    let p = Project::empty();
    let memory = p.path().join("memory");
    std::fs::remove_dir_all(&memory).unwrap();
    let Some(fs) = Tmpfs::mount(&memory, "64k") else {
        eprintln!(
            "hostile: real full disk not tested: cannot mount a tmpfs here (the failpoint case runs)"
        );
        return;
    };
    week(&p);
    // Fill what is left with a file outside hipo's tree.
    let mut filler = std::fs::File::create(memory.join("filler.bin")).unwrap();
    let chunk = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &chunk).is_ok() {}
    drop(filler);
    let compact = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(compact.code, 2, "{}", compact.stderr);
    assert!(
        compact.stderr.contains("free some space"),
        "{}",
        compact.stderr
    );
    assert_eq!(temp_files(p.path()), Vec::<String>::new());
    let clean_files: std::collections::BTreeMap<_, _> = clean.snapshot().into_iter().collect();
    for (path, bytes) in p.snapshot() {
        if !path.ends_with("filler.bin") {
            assert_eq!(
                clean_files.get(&path),
                Some(&bytes),
                "{} is whole",
                path.display()
            );
        }
    }
    let log = p.read("memory/2026-01-09.md");
    let long = "x".repeat(20_000);
    let checkpoint = checkpoint(&p, &format!("outcome={long}"), &[]);
    assert_eq!(checkpoint.code, 2, "{}", checkpoint.stderr);
    assert_eq!(p.read("memory/2026-01-09.md"), log, "nothing half-appended");
    // Space freed: the next run converges to a clean one.
    std::fs::remove_file(memory.join("filler.bin")).unwrap();
    fs.remount("size=4m");
    let again = run(&p, &["compact", "--today", "2026-02-20"], &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(p.snapshot(), clean.snapshot());
}
