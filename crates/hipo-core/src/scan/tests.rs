use super::*;

#[test]
fn rehashes_only_changed_and_reports_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("memory");
    std::fs::create_dir_all(mem.join("daily")).unwrap();
    std::fs::write(mem.join("2026-03-15.md"), "## A [user]\n").unwrap();
    std::fs::write(mem.join("2026-02-30.md"), "x").unwrap();
    std::fs::write(mem.join("2026-03-16.md"), b"ok\n\xff\n").unwrap();
    std::fs::write(mem.join(".hidden.md"), "x").unwrap();
    let first = scan(dir.path(), &[]);
    assert_eq!(first.files.len(), 1);
    assert_eq!(first.problems.len(), 2);
    assert_eq!(first.problems[1].line, Some(2));
    let known = records(first);
    let second = scan(dir.path(), &known);
    assert!(!second.any_change());
    assert!(!second.files["memory/2026-03-15.md"].changed);
    std::fs::remove_file(mem.join("2026-03-15.md")).unwrap();
    let third = scan(dir.path(), &known);
    assert_eq!(third.removed, vec!["memory/2026-03-15.md".to_string()]);
}

#[cfg(unix)]
#[test]
fn follows_symlinked_files_reports_broken_ones_and_never_loops() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("memory");
    std::fs::create_dir_all(&mem).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("log.md");
    std::fs::write(&target, "## A [user]\n").unwrap();
    symlink(&target, mem.join("2026-03-15.md")).unwrap();
    symlink(elsewhere.path().join("gone.md"), mem.join("2026-03-16.md")).unwrap();
    symlink(dir.path(), mem.join("loop")).unwrap();
    symlink(elsewhere.path(), mem.join("daily")).unwrap();
    let s = scan(dir.path(), &[]);
    let paths: Vec<&str> = s.files.keys().map(String::as_str).collect();
    assert_eq!(paths, vec!["memory/2026-03-15.md"]);
    assert_eq!(
        s.files["memory/2026-03-15.md"].record.size,
        std::fs::metadata(&target).unwrap().len()
    );
    let problems: Vec<String> = s.problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems,
        vec!["memory/2026-03-16.md: is a broken symlink; fix or remove it"]
    );
}

#[test]
fn a_listing_is_clean_only_without_problems_and_sorted() {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("memory");
    std::fs::create_dir_all(mem.join("daily")).unwrap();
    for f in [
        "2026-03-16.md",
        "2026-03-15.md",
        "daily/2026-03-15.md",
        "notes.md",
    ] {
        std::fs::write(mem.join(f), "x\n").unwrap();
    }
    let listing = Listing::walk(dir.path(), &[]).unwrap();
    let rels: Vec<&str> = listing
        .clean_files()
        .unwrap()
        .iter()
        .map(|f| f.rel.as_str())
        .collect();
    assert_eq!(
        rels,
        [
            "memory/2026-03-15.md",
            "memory/2026-03-16.md",
            "memory/daily/2026-03-15.md",
            "memory/notes.md"
        ]
    );
    std::fs::write(mem.join("2026-02-30.md"), "x").unwrap();
    assert!(
        Listing::walk(dir.path(), &[])
            .unwrap()
            .clean_files()
            .is_none()
    );
    std::fs::remove_file(mem.join("2026-02-30.md")).unwrap();
    std::fs::create_dir(mem.join("2026-03-17.md")).unwrap();
    assert!(
        Listing::walk(dir.path(), &[])
            .unwrap()
            .clean_files()
            .is_none()
    );
}

#[test]
fn extra_globs_add_files_and_walk_only_their_base() {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "docs/a.md",
        "docs/deep/b.md",
        "docs/c.txt",
        "other/d.md",
        "knowledge/k.md",
    ] {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x\n").unwrap();
    }
    let globs = vec!["docs/**/*.md".to_string(), "knowledge/*.md".to_string()];
    let s = scan_with_globs(dir.path(), &[], &globs).unwrap();
    let paths: Vec<&str> = s.files.keys().map(String::as_str).collect();
    assert_eq!(paths, vec!["docs/a.md", "docs/deep/b.md", "knowledge/k.md"]);
    assert_eq!(
        glob_bases(&globs),
        vec![
            ("docs".to_string(), usize::MAX),
            ("knowledge".to_string(), 1)
        ]
    );
    assert_eq!(glob_bases(&["*.md".to_string()]), vec![(String::new(), 1)]);
    assert_eq!(
        glob_bases(&["README.md".to_string()]),
        vec![(String::new(), 1)]
    );
    assert!(scan_with_globs(dir.path(), &[], &["a/[".to_string()]).is_err());
}

#[test]
fn a_scan_tells_kept_changed_gone_new_and_bad_files_apart() {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("memory");
    std::fs::create_dir_all(mem.join("daily")).unwrap();
    std::fs::create_dir_all(dir.path().join("knowledge")).unwrap();
    for day in 10..=28 {
        std::fs::write(
            mem.join(format!("2026-03-{day}.md")),
            format!("day {day}\n"),
        )
        .unwrap();
    }
    std::fs::write(mem.join("daily/2026-03-10.md"), "node\n").unwrap();
    std::fs::write(dir.path().join("knowledge/k.md"), "k\n").unwrap();
    let known = records(scan(dir.path(), &[]));
    assert_eq!(known.len(), 21);
    // Changed, gone, new, badly named, unreadable; the rest unchanged.
    std::fs::write(mem.join("2026-03-12.md"), "day 12, longer now\n").unwrap();
    std::fs::remove_file(mem.join("2026-03-13.md")).unwrap();
    std::fs::remove_file(mem.join("daily/2026-03-10.md")).unwrap();
    std::fs::write(mem.join("2026-03-29.md"), "new\n").unwrap();
    std::fs::write(mem.join("2026-02-30.md"), "x").unwrap();
    std::fs::write(mem.join("2026-03-14.md"), b"ok\n\xff\n").unwrap();
    let s = scan(dir.path(), &known);
    let changed: Vec<&str> = s
        .files
        .iter()
        .filter(|(_, f)| f.changed)
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        changed,
        vec!["memory/2026-03-12.md", "memory/2026-03-29.md"]
    );
    assert_eq!(s.files.len(), 19);
    // Gone, and unreadable now: the scan drops its record.
    assert_eq!(
        s.removed,
        vec![
            "memory/2026-03-13.md",
            "memory/2026-03-14.md",
            "memory/daily/2026-03-10.md"
        ]
    );
    assert_eq!(s.problems.len(), 2);
    // The listing kept for after scans the same.
    let kept = Listing::roots(dir.path());
    let again = kept.scan_sorted(dir.path(), &known);
    let files = |s: &Scan| -> Vec<(String, FileRecord, bool)> {
        s.files
            .iter()
            .map(|(k, f)| (k.clone(), f.record.clone(), f.changed))
            .collect()
    };
    let updates = |s: &Scan| {
        let mut u = s.updates.clone();
        u.sort_by(|a, b| a.0.cmp(&b.0));
        u
    };
    assert_eq!(files(&again), files(&s));
    assert_eq!(updates(&again), updates(&s));
    assert_eq!(again.removed, s.removed);
    assert_eq!(again.problems, s.problems);
    assert_eq!(kept.len(), Listing::roots(dir.path()).len());
}

/// A scan's records, in path order, as the store gives them.
fn records(s: Scan) -> Vec<(String, FileRecord)> {
    let mut out: Vec<(String, FileRecord)> = s
        .updates
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
