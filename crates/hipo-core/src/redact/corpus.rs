//! The secrets corpus (`tests/data/secrets.tsv`, `lookalikes.tsv`) through
//! [`redact`](super::redact) alone: the quick loop for rule work. The
//! integration test `tests/secrets.rs` runs the same corpus through every
//! place the binary writes or shows text.

use super::{REDACTED, redact};

const SECRETS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/secrets.tsv"
));
const LOOKALIKES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/lookalikes.tsv"
));

/// `(provider, secret, line)` rows, `\n` decoded.
fn secrets() -> Vec<(&'static str, String, String)> {
    SECRETS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (provider, _, secret, line) = (f.next()?, f.next()?, f.next()?, f.next()?);
            Some((provider, unescape(secret), unescape(line)))
        })
        .collect()
}

fn lookalikes() -> Vec<String> {
    LOOKALIKES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| l.split_once('\t').map(|(_, line)| unescape(line)))
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n")
}

#[test]
fn corpus_recall_and_false_positives() {
    let secrets = secrets();
    let looks = lookalikes();
    assert!(secrets.len() >= 150 && looks.len() >= 150);
    let leaked: Vec<_> = secrets
        .iter()
        .filter(|(_, secret, line)| redact(line).contains(secret.as_str()))
        .collect();
    let altered: Vec<_> = looks.iter().filter(|l| redact(l) != l.as_str()).collect();
    for (provider, _, line) in &leaked {
        eprintln!("leaked {provider}: {line}");
    }
    for line in &altered {
        eprintln!("altered: {line}\n     -> {}", redact(line));
    }
    let recall = 1.0 - leaked.len() as f64 / secrets.len() as f64;
    let fp = altered.len() as f64 / looks.len() as f64;
    eprintln!(
        "redact alone: recall {:.1}% ({} of {}), false positives {:.1}% ({} of {})",
        recall * 100.0,
        secrets.len() - leaked.len(),
        secrets.len(),
        fp * 100.0,
        altered.len(),
        looks.len()
    );
    assert!(recall >= 0.98 && fp <= 0.02);
}

#[test]
fn corpus_is_idempotent_and_keeps_line_count() {
    for (_, _, line) in secrets() {
        let once = redact(&line).into_owned();
        assert_eq!(redact(&once), once, "{line}");
        assert_eq!(
            once.matches('\n').count(),
            line.matches('\n').count(),
            "{line}"
        );
        assert!(once.contains(REDACTED), "{line}");
    }
}
