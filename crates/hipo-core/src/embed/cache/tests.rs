use super::*;

fn v(x: f32, y: f32) -> Vec<f32> {
    vec![x, y, 0.0, 0.0]
}

/// A section's rows: one per vector, text fingerprints `section * 100 + i`.
fn rows(section: u64, vectors: &[Vec<f32>]) -> Vec<Row> {
    vectors
        .iter()
        .enumerate()
        .map(|(i, vector)| Row {
            section,
            text: section * 100 + i as u64,
            piece: i as u16,
            count: vectors.len() as u16,
            vector: vector.clone(),
        })
        .collect()
}

fn ids(top: &[(u64, f32)]) -> Vec<u64> {
    top.iter().map(|t| t.0).collect()
}

#[test]
fn a_section_scores_as_its_best_passage_and_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = VectorCache::open(dir.path(), "m").unwrap();
    let lock = c.lock().unwrap();
    c.append(&lock, &rows(1, &[v(1.0, 0.0)])).unwrap();
    // Section 2's first passage is far from the question, its last near.
    c.append(&lock, &rows(2, &[v(1.0, -1.0), v(0.0, 3.0)]))
        .unwrap();
    c.append(&lock, &rows(3, &[v(1.0, 1.0)])).unwrap();
    drop(lock);
    let c = VectorCache::open(dir.path(), "m").unwrap();
    assert_eq!((c.len(), c.sections()), (4, 3));
    let top = c.nearest(&v(0.1, 1.0), 2).unwrap();
    assert_eq!(ids(&top), [2, 3]);
    assert!((top[0].1 - 0.995).abs() < 0.01, "{top:?}");
    // A passage's vector is found by its text, for another section.
    let again = c.vector_of_text(201).unwrap();
    assert!(again[1] > 0.99, "{again:?}");
    assert!(c.vector_of_text(999).is_none());
}

#[test]
fn another_model_drops_the_vectors_and_a_torn_batch_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = VectorCache::open(dir.path(), "m").unwrap();
    let lock = c.lock().unwrap();
    c.append(&lock, &rows(1, &[v(1.0, 0.0)])).unwrap();
    // Section 2 torn after its first of two passages.
    c.append(&lock, &rows(2, &[v(0.0, 1.0), v(1.0, 1.0)])[..1])
        .unwrap();
    drop(lock);
    // And an interrupted batch: vectors written, records not.
    append_file(&dir.path().join(DIR).join("vectors.0.f16"), &[0u8; 5]).unwrap();
    let mut c = VectorCache::open(dir.path(), "m").unwrap();
    assert_eq!((c.len(), c.contains(1), c.contains(2)), (1, true, false));
    let lock = c.lock().unwrap();
    c.append(&lock, &rows(2, &[v(0.0, 1.0), v(1.0, 1.0)]))
        .unwrap();
    drop(lock);
    let c = VectorCache::open(dir.path(), "m").unwrap();
    assert_eq!(c.len(), 3);
    assert_eq!(ids(&c.nearest(&v(0.0, 1.0), 1).unwrap()), [2]);
    let c = VectorCache::open(dir.path(), "other").unwrap();
    assert!(c.is_empty() && !c.contains(1));
}

#[test]
fn stale_rows_are_dropped_once_over_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = VectorCache::open(dir.path(), "m").unwrap();
    let lock = c.lock().unwrap();
    for s in 1..=8 {
        c.append(&lock, &rows(s, &[v(s as f32, 1.0)])).unwrap();
    }
    // One stale row of eight: under the share, nothing is rewritten.
    let live: HashSet<u64> = (2..=8).collect();
    assert_eq!(c.compact(&lock, &live).unwrap(), 0);
    assert_eq!(c.len(), 8);
    // A reader that mapped the old generation.
    let reader = VectorCache::open(dir.path(), "m").unwrap();
    // Three of eight: compacted into the next generation.
    let live: HashSet<u64> = (4..=8).collect();
    assert_eq!(c.stale(&live), 3);
    assert_eq!(c.compact(&lock, &live).unwrap(), 3);
    assert_eq!((c.len(), c.stale(&live)), (5, 0));
    drop(lock);
    let files: Vec<String> = std::fs::read_dir(dir.path().join(DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(files.iter().all(|f| !f.contains(".0.")), "{files:?}");
    let c = VectorCache::open(dir.path(), "m").unwrap();
    assert_eq!((c.len(), c.contains(1), c.contains(4)), (5, false, true));
    assert_eq!(ids(&c.nearest(&v(8.0, 1.0), 1).unwrap()), [8]);
    // The old reader still answers from its mapping.
    assert_eq!(reader.len(), 8);
    assert_eq!(ids(&reader.nearest(&v(1.0, 0.0), 8).unwrap()).len(), 8);
}
