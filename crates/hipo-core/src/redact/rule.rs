//! What a redaction rule is: the shape [`super::rules`] lists every
//! format in, and the modules of particular formats ([`super::card`],
//! [`super::published`], [`super::tool_forms`]) give theirs in.

/// A rule: the pattern, the capture group holding the secret (0 = the
/// whole match), a check the secret must pass (for patterns that would
/// otherwise catch prose), and its anchors: literals, one of which
/// (ASCII case aside) every text the pattern matches contains. The
/// anchors of all rules make the prefilter that decides which patterns
/// a text needs compiled and run (`prefilter_covers_every_match` checks
/// them on the corpora).
pub(super) type Rule = (
    &'static str,
    usize,
    Option<fn(&str) -> bool>,
    &'static [&'static str],
);
