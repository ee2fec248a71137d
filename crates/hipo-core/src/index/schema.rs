//! The index's schema: what each window document holds and how it is
//! indexed. Field names are defined once, in [`name`], because search reads
//! fast fields by name and a typo there would only show as empty results.

use super::analyzer;
use crate::error::{Error, Result};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions,
};

/// The field names, shared by the schema, [`Fields::of`] and the fast-field
/// readers in search.
pub(crate) mod name {
    pub const BODY: &str = "body";
    pub const HEADING: &str = "heading";
    pub const USER: &str = "user";
    pub const SBODY: &str = "sbody";
    pub const SUSER: &str = "suser";
    pub const SOPEN: &str = "sopen";
    pub const UNIT: &str = "unit";
    pub const PATH: &str = "path";
    pub const KEY: &str = "key";
    pub const FP: &str = "fp";
    pub const SEC: &str = "sec";
    pub const WIN: &str = "win";
    pub const LEVEL: &str = "level";
    pub const LEVEL_RANK: &str = "level_rank";
    pub const KIND: &str = "kind";
    pub const STATUS: &str = "status";
    pub const DATE_LO: &str = "date_lo";
    pub const DATE_HI: &str = "date_hi";
    pub const PERIOD: &str = "period";
    pub const SEC_LO: &str = "sec_lo";
    pub const SEC_HI: &str = "sec_hi";
    pub const WIN_LO: &str = "win_lo";
    pub const WIN_HI: &str = "win_hi";
    pub const SBYTE_LO: &str = "sbyte_lo";
    pub const SBYTE_HI: &str = "sbyte_hi";
    pub const WBYTE_LO: &str = "wbyte_lo";
    pub const WBYTE_HI: &str = "wbyte_hi";
    pub const SECRET: &str = "secret";
}

/// The index's fields, looked up once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    /// Window text, redacted; positions for phrases.
    pub body: Field,
    /// `title › heading` of the section: indexed (boosted) and stored.
    pub heading: Field,
    /// Lines of the window a user wrote (`User:` turns).
    pub user: Field,
    /// The whole section's text (section documents only): ranking.
    pub sbody: Field,
    /// Every line of the section a user wrote (section documents only).
    pub suser: Field,
    /// The section's first user turn: what a session was opened to ask
    /// (section documents only).
    pub sopen: Field,
    /// [`UNIT_SECTION`] or [`UNIT_WINDOW`]: what a document stands for.
    pub unit: Field,
    pub path: Field,
    /// Hex of the section key; shared by a section's windows.
    pub key: Field,
    /// [`super::sections::fingerprint`]: equal for verbatim copies.
    pub fp: Field,
    /// The section key's first 8 bytes, to group windows fast.
    pub sec: Field,
    /// Window ordinal within its section.
    pub win: Field,
    pub level: Field,
    pub level_rank: Field,
    /// Entry type tag.
    pub kind: Field,
    pub status: Field,
    pub date_lo: Field,
    pub date_hi: Field,
    pub period: Field,
    pub sec_lo: Field,
    pub sec_hi: Field,
    pub win_lo: Field,
    pub win_hi: Field,
    pub sbyte_lo: Field,
    pub sbyte_hi: Field,
    pub wbyte_lo: Field,
    pub wbyte_hi: Field,
    /// 1 when the section held a secret (redacted in the index): only such
    /// sections need redacting again when shown.
    pub secret: Field,
}

/// [`Fields::unit`] of a section's one ranking document.
pub(crate) const UNIT_SECTION: &str = "s";
/// [`Fields::unit`] of a window (a passage shown and marked).
pub(crate) const UNIT_WINDOW: &str = "w";

/// The schema a new index is created with. Field order is part of the
/// layout: a change bumps [`super::LAYOUT_VERSION`].
pub(crate) fn schema() -> Schema {
    let mut b = Schema::builder();
    let text = |positions: bool| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(analyzer::NAME)
                .set_index_option(if positions {
                    IndexRecordOption::WithFreqsAndPositions
                } else {
                    IndexRecordOption::WithFreqs
                }),
        )
    };
    let fast_u64 = NumericOptions::default()
        .set_indexed()
        .set_fast()
        .set_stored();
    b.add_text_field(name::BODY, text(true));
    b.add_text_field(name::HEADING, text(false).set_stored());
    b.add_text_field(name::USER, text(false));
    b.add_text_field(name::SBODY, text(false));
    b.add_text_field(name::SUSER, text(false));
    b.add_text_field(name::SOPEN, text(false));
    b.add_text_field(name::UNIT, STRING);
    b.add_text_field(name::PATH, STRING | STORED);
    b.add_text_field(name::KEY, STRING | STORED);
    b.add_u64_field(name::FP, NumericOptions::default().set_indexed().set_fast());
    b.add_u64_field(
        name::SEC,
        NumericOptions::default().set_indexed().set_fast(),
    );
    b.add_u64_field(name::WIN, NumericOptions::default().set_fast());
    b.add_text_field(name::LEVEL, STRING | STORED);
    b.add_u64_field(name::LEVEL_RANK, NumericOptions::default().set_fast());
    b.add_text_field(name::KIND, STRING | STORED);
    b.add_text_field(name::STATUS, STORED);
    b.add_u64_field(name::DATE_LO, fast_u64.clone());
    b.add_u64_field(name::DATE_HI, fast_u64);
    b.add_text_field(name::PERIOD, STORED);
    for f in [
        name::SEC_LO,
        name::SEC_HI,
        name::WIN_LO,
        name::WIN_HI,
        name::SBYTE_LO,
        name::SBYTE_HI,
        name::WBYTE_LO,
        name::WBYTE_HI,
        name::SECRET,
    ] {
        b.add_u64_field(f, STORED);
    }
    b.build()
}

impl Fields {
    /// Looks every field up in an opened index's schema; a missing one
    /// means an index of another layout, which a rebuild cures.
    pub(crate) fn of(schema: &Schema) -> Result<Fields> {
        let f = |name: &str| {
            schema.get_field(name).map_err(|_| {
                Error::IndexLayout(format!("field `{name}` missing; run `hipo rebuild`"))
            })
        };
        Ok(Fields {
            body: f(name::BODY)?,
            heading: f(name::HEADING)?,
            user: f(name::USER)?,
            sbody: f(name::SBODY)?,
            suser: f(name::SUSER)?,
            sopen: f(name::SOPEN)?,
            unit: f(name::UNIT)?,
            path: f(name::PATH)?,
            key: f(name::KEY)?,
            fp: f(name::FP)?,
            sec: f(name::SEC)?,
            win: f(name::WIN)?,
            level: f(name::LEVEL)?,
            level_rank: f(name::LEVEL_RANK)?,
            kind: f(name::KIND)?,
            status: f(name::STATUS)?,
            date_lo: f(name::DATE_LO)?,
            date_hi: f(name::DATE_HI)?,
            period: f(name::PERIOD)?,
            sec_lo: f(name::SEC_LO)?,
            sec_hi: f(name::SEC_HI)?,
            win_lo: f(name::WIN_LO)?,
            win_hi: f(name::WIN_HI)?,
            sbyte_lo: f(name::SBYTE_LO)?,
            sbyte_hi: f(name::SBYTE_HI)?,
            wbyte_lo: f(name::WBYTE_LO)?,
            wbyte_hi: f(name::WBYTE_HI)?,
            secret: f(name::SECRET)?,
        })
    }
}
