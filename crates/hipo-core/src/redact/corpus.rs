//! The secrets corpora (`tests/data/secrets.tsv`, `lookalikes.tsv`: provider
//! formats; `nl_secrets.tsv`, `nl_lookalikes.tsv`: secrets said in words)
//! through [`redact`](super::redact) alone: the quick loop for rule work,
//! figures by half (`cargo test --lib redact::corpus -- --nocapture`). The
//! integration test `tests/secrets.rs` runs the same corpora through every
//! place the binary writes or shows text.

use super::{PATTERNS, REDACTED, RULES, redact, said};

const SECRETS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/secrets.tsv"
));
const LOOKALIKES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/lookalikes.tsv"
));
const NL_SECRETS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/nl_secrets.tsv"
));
const NL_LOOKALIKES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/nl_lookalikes.tsv"
));

fn rows(text: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').collect())
}

/// `(half, secret, line)` and `(half, line)` of the words corpus.
#[allow(clippy::type_complexity)]
fn nl() -> (
    Vec<(&'static str, String, String)>,
    Vec<(&'static str, String)>,
) {
    let secrets = rows(NL_SECRETS)
        .filter(|f| f.len() == 4)
        .map(|f| (f[0], unescape(f[2]), unescape(f[3])))
        .collect();
    let looks = rows(NL_LOOKALIKES)
        .filter(|f| f.len() == 3)
        .map(|f| (f[0], unescape(f[2])))
        .collect();
    (secrets, looks)
}

/// Caught and altered by half: the figures docs/reliability.md gives.
#[test]
fn said_in_words_by_half() {
    let (secrets, looks) = nl();
    assert!(secrets.len() >= 200 && looks.len() >= 150);
    for half in ["A", "B"] {
        let s: Vec<_> = secrets.iter().filter(|r| r.0 == half).collect();
        let l: Vec<_> = looks.iter().filter(|r| r.0 == half).collect();
        let leaked: Vec<_> = s
            .iter()
            .filter(|r| redact(&r.2).contains(r.1.as_str()))
            .collect();
        let altered: Vec<_> = l.iter().filter(|r| redact(&r.1) != r.1.as_str()).collect();
        for r in &leaked {
            eprintln!("leaked ({half}): {}", r.2);
        }
        for r in &altered {
            eprintln!("altered ({half}): {}\n     -> {}", r.1, redact(&r.1));
        }
        eprintln!(
            "said in words, half {half}: {} of {} caught, {} of {} look-alikes altered",
            s.len() - leaked.len(),
            s.len(),
            altered.len(),
            l.len()
        );
        assert!(leaked.len() * 100 <= s.len() * 2, "half {half}");
        assert!(altered.len() * 100 <= l.len() * 2, "half {half}");
    }
}

/// The prefilter never drops a rule a text needs: every rule that
/// matches a corpus line has an anchor in it. A rule whose anchors miss
/// would silently stop redacting.
#[test]
fn prefilter_covers_every_match() {
    let (nl_secrets, nl_looks) = nl();
    let lines = secrets()
        .into_iter()
        .map(|r| r.2)
        .chain(lookalikes())
        .chain(nl_secrets.into_iter().map(|r| r.2))
        .chain(nl_looks.into_iter().map(|r| r.1))
        .chain(super::tests::all_cases().map(|c| c.0.to_string()))
        .chain(BLIND_SETS.iter().flat_map(|(s, l, ..)| {
            s.lines()
                .chain(l.lines())
                .filter(|l| !l.starts_with('#'))
                .filter_map(|l| l.rsplit('\t').next())
                .map(unescape)
        }));
    for line in lines {
        let need = RULES.candidates(&line);
        for (i, rule) in PATTERNS.iter().enumerate() {
            let matched = RULES.regex(i).is_some_and(|(re, _)| re.is_match(&line));
            assert!(!matched || need[i], "rule {} missed on: {line}", rule.0);
        }
        for (i, part) in said::PARTS.iter().enumerate() {
            let matched = part.regex().is_some_and(|re| re.is_match(&line));
            assert!(
                !matched || need[PATTERNS.len() + i],
                "part {i} missed on: {line}"
            );
        }
    }
}

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

/// Secrets caught and look-alikes kept by half (odd / even rows) of a
/// corpus in the blind sets' form: `kind<TAB>secret<TAB>line` and
/// `kind<TAB>line` rows. Prints what leaked and what was altered.
fn by_half(secrets: &str, looks: &str) -> [[usize; 4]; 2] {
    let rows = |text: &str, n: usize| -> Vec<Vec<String>> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split('\t').map(unescape).collect::<Vec<_>>())
            .filter(|f| f.len() == n)
            .collect()
    };
    let (s, l) = (rows(secrets, 3), rows(looks, 2));
    // Per half: secrets caught, secrets, look-alikes kept, look-alikes.
    let mut out = [[0; 4]; 2];
    for (i, r) in s.iter().enumerate() {
        out[i % 2][1] += 1;
        if redact(&r[2]).contains(r[1].as_str()) {
            eprintln!(
                "leaked {} ({}): {}\n     -> {}",
                r[0],
                i % 2,
                r[2],
                redact(&r[2])
            );
        } else {
            out[i % 2][0] += 1;
        }
    }
    for (i, r) in l.iter().enumerate() {
        out[i % 2][3] += 1;
        if redact(&r[1]) == r[1].as_str() {
            out[i % 2][2] += 1;
        } else {
            eprintln!(
                "altered {} ({}): {}\n     -> {}",
                r[0],
                i % 2,
                r[1],
                redact(&r[1])
            );
        }
    }
    for (h, [caught, n, kept, m]) in out.iter().enumerate() {
        eprintln!("half {h}: secrets caught {caught} of {n}, look-alikes kept {kept} of {m}");
    }
    out
}

/// The sets written blind (their writers never saw the rules; the
/// rules were then worked on against them, so they are dev sets now,
/// docs/reliability.md): what they catch and keep may only grow.
/// The sets written blind: secrets, look-alikes, and what each half
/// catches and keeps now (below).
#[allow(clippy::type_complexity)]
const BLIND_SETS: [(&str, &str, [usize; 2], [usize; 2]); 17] = [
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_lookalikes.tsv"
        )),
        BLIND_CAUGHT,
        BLIND_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_said_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_said_lookalikes.tsv"
        )),
        SAID_CAUGHT,
        SAID_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_agent_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_agent_lookalikes.tsv"
        )),
        AGENT_CAUGHT,
        AGENT_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_langs_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_langs_lookalikes.tsv"
        )),
        LANGS_CAUGHT,
        LANGS_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_voices_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_voices_lookalikes.tsv"
        )),
        VOICES_CAUGHT,
        VOICES_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_team_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_team_lookalikes.tsv"
        )),
        TEAM_CAUGHT,
        TEAM_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_writer_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_writer_lookalikes.tsv"
        )),
        WRITER_CAUGHT,
        WRITER_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_ops_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_ops_lookalikes.tsv"
        )),
        OPS_CAUGHT,
        OPS_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_home_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_home_lookalikes.tsv"
        )),
        HOME_CAUGHT,
        HOME_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_shop_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_shop_lookalikes.tsv"
        )),
        SHOP_CAUGHT,
        SHOP_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_sre_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_sre_lookalikes.tsv"
        )),
        SRE_CAUGHT,
        SRE_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_family_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_family_lookalikes.tsv"
        )),
        FAMILY_CAUGHT,
        FAMILY_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_mobile_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_mobile_lookalikes.tsv"
        )),
        MOBILE_CAUGHT,
        MOBILE_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_consult_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_consult_lookalikes.tsv"
        )),
        CONSULT_CAUGHT,
        CONSULT_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_lab_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_lab_lookalikes.tsv"
        )),
        LAB_CAUGHT,
        LAB_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_hotel_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_hotel_lookalikes.tsv"
        )),
        HOTEL_CAUGHT,
        HOTEL_KEPT,
    ),
    (
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_game_secrets.tsv"
        )),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/blind_game_lookalikes.tsv"
        )),
        GAME_CAUGHT,
        GAME_KEPT,
    ),
];

#[test]
fn blind_sets_hold_their_figures() {
    for (secrets, looks, caught, kept) in BLIND_SETS {
        let got = by_half(secrets, looks);
        for h in 0..2 {
            assert!(got[h][0] >= caught[h], "half {h}: {:?}", got[h]);
            assert!(got[h][2] >= kept[h], "half {h}: {:?}", got[h]);
        }
    }
}

/// Caught and kept by half now. Before the rules were worked on against
/// them, `hipo export` showed 256 of the first set's 303 secrets caught
/// and 204 of its 213 look-alikes kept, 96 of 183 and 210 of 212 for the
/// second.
const BLIND_CAUGHT: [usize; 2] = [150, 146];
const BLIND_KEPT: [usize; 2] = [104, 103];
const SAID_CAUGHT: [usize; 2] = [88, 84];
const SAID_KEPT: [usize; 2] = [106, 105];
/// The third set was held out from the first round of work (157 of 249
/// caught before it, 197 after; 239 and 242 of 245 kept), then worked on.
const AGENT_CAUGHT: [usize; 2] = [119, 115];
const AGENT_KEPT: [usize; 2] = [123, 122];
/// The fourth and fifth were held out from the second and third rounds
/// (docs/reliability.md), then worked on.
const LANGS_CAUGHT: [usize; 2] = [127, 117];
const LANGS_KEPT: [usize; 2] = [137, 137];
const VOICES_CAUGHT: [usize; 2] = [153, 155];
const VOICES_KEPT: [usize; 2] = [189, 189];
/// The sixth was held out from five rounds, then worked on in a sixth.
const TEAM_CAUGHT: [usize; 2] = [167, 171];
const TEAM_KEPT: [usize; 2] = [198, 195];
/// The seventh was held out from six rounds (191 of 356 caught before
/// them, 286 after; 337 and 338 of 340 kept), then worked on in a seventh.
const WRITER_CAUGHT: [usize; 2] = [157, 158];
const WRITER_KEPT: [usize; 2] = [169, 169];
/// The eighth and ninth were held out from the seventh round: 229 and 177
/// of 300 caught before it, 239 and 187 after (docs/reliability.md), then
/// worked on in an eighth.
const OPS_CAUGHT: [usize; 2] = [133, 135];
const OPS_KEPT: [usize; 2] = [142, 144];
const HOME_CAUGHT: [usize; 2] = [134, 139];
const HOME_KEPT: [usize; 2] = [149, 145];
/// The tenth and eleventh were held out from the eighth round: 155 and 241
/// of 300 caught before it through `hipo export`, 209 and 253 after, the
/// same 295 and 290 look-alikes kept (docs/reliability.md).
const SHOP_CAUGHT: [usize; 2] = [124, 132];
const SHOP_KEPT: [usize; 2] = [150, 146];
const SRE_CAUGHT: [usize; 2] = [134, 133];
const SRE_KEPT: [usize; 2] = [149, 144];
/// The twelfth and thirteenth were held out from the ninth round: 179 and
/// 248 of 300 caught before it through `hipo export`, 185 and 249 after
/// (docs/reliability.md); the thirteenth's look-alikes were then worked
/// on (276 kept before).
const FAMILY_CAUGHT: [usize; 2] = [94, 96];
const FAMILY_KEPT: [usize; 2] = [149, 147];
const MOBILE_CAUGHT: [usize; 2] = [130, 121];
const MOBILE_KEPT: [usize; 2] = [146, 145];
/// The fourteenth and fifteenth were held out from the tenth round: 246
/// and 248 of 300 caught before it through `hipo export`, 254 and 251
/// after; 292 → 291 and 294 → 294 look-alikes kept, the one lost (a
/// Twilio account SID) mended after (docs/reliability.md).
const CONSULT_CAUGHT: [usize; 2] = [135, 127];
const CONSULT_KEPT: [usize; 2] = [146, 146];
const LAB_CAUGHT: [usize; 2] = [130, 127];
const LAB_KEPT: [usize; 2] = [147, 147];
/// The sixteenth and seventeenth were held out from the eleventh round:
/// 245 and 243 of 300 caught before it through `hipo export`, 245 and
/// 248 after, the same 294 and 288 look-alikes kept (docs/reliability.md).
const HOTEL_CAUGHT: [usize; 2] = [120, 125];
const HOTEL_KEPT: [usize; 2] = [146, 148];
const GAME_CAUGHT: [usize; 2] = [119, 128];
const GAME_KEPT: [usize; 2] = [141, 147];

/// A corpus written elsewhere, by half: `HIPO_SECRETS_TSV` and
/// `HIPO_LOOKALIKES_TSV` in the blind sets' form (a new blind set, before
/// anyone works against it).
/// `cargo test -p hipo-core --lib external_corpus -- --ignored --nocapture`.
#[test]
#[ignore = "needs HIPO_SECRETS_TSV and HIPO_LOOKALIKES_TSV"]
fn external_corpus() {
    let read = |var: &str| std::fs::read_to_string(std::env::var(var).unwrap()).unwrap();
    by_half(&read("HIPO_SECRETS_TSV"), &read("HIPO_LOOKALIKES_TSV"));
}
