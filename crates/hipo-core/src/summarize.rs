//! The seam between the tree and whoever writes summaries.
//!
//! Compaction decides *which* nodes need a summary; a [`Summarizer`] decides
//! *how*. Requests come a whole level at a time so a backend can run them
//! in parallel, and each request succeeds or fails on its own: one bad
//! answer never stops the rest of the tree.

use crate::layout::NodeId;
use crate::progress::Progress;
use std::fmt;

/// Who wrote a node's text. Recorded per node so that a change of model or
/// prompt can be told apart from a node someone else wrote; the string form
/// ([`fmt::Display`], [`Writer::parse`]) is what the store holds, so it must
/// never change for an existing variant.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Writer {
    /// Sources below the threshold, copied verbatim (`copy`).
    Copy,
    /// Built by hipo from the tree without a model: ROOT (`mechanical`).
    Mechanical,
    /// Someone else wrote it and hipo adopted it (`external`).
    External,
    /// The `none` backend: a node over the threshold is left as a stub for
    /// the agent to fill in (`none`).
    NoBackend,
    /// A local model through ollama (`ollama:{model}:{prompt_version}`).
    Model {
        model: String,
        prompt_version: String,
    },
}

impl Writer {
    /// Reads the stored form back; `None` for a string no hipo writes. A
    /// model name may itself hold `:` (`llama3.2:3b`), the prompt version
    /// never does, so the version is what follows the last `:`.
    pub fn parse(s: &str) -> Option<Writer> {
        match s {
            "copy" => Some(Writer::Copy),
            "mechanical" => Some(Writer::Mechanical),
            "external" => Some(Writer::External),
            "none" => Some(Writer::NoBackend),
            _ => {
                let (model, version) = s.strip_prefix("ollama:")?.rsplit_once(':')?;
                Some(Writer::Model {
                    model: model.to_string(),
                    prompt_version: version.to_string(),
                })
            }
        }
    }
}

/// Stored as its string form, so a store's bytes are what they were when
/// the record held a string; a string no hipo writes reads back as
/// someone else's text.
impl serde::Serialize for Writer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Writer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Writer, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Writer::parse(&s).unwrap_or(Writer::External))
    }
}

impl fmt::Display for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Writer::Copy => f.write_str("copy"),
            Writer::Mechanical => f.write_str("mechanical"),
            Writer::External => f.write_str("external"),
            Writer::NoBackend => f.write_str("none"),
            Writer::Model {
                model,
                prompt_version,
            } => write!(f, "ollama:{model}:{prompt_version}"),
        }
    }
}

/// One source a node is built from, already redacted.
#[derive(Debug, Clone)]
pub struct SourceText {
    /// Project-relative path.
    pub path: String,
    /// Body without frontmatter.
    pub body: String,
    /// Lines in `body`.
    pub lines: usize,
}

/// What ROOT's narrative is written from: the day, and the tree's
/// summaries (monthly nodes, then the last week's dailies), oldest first.
/// How they are laid out for a model is the summarizer's business.
#[derive(Debug, Clone)]
pub struct RootContext {
    pub today: chrono::NaiveDate,
    pub summaries: Vec<SourceText>,
}

/// A node that needs a summary.
#[derive(Debug, Clone)]
pub struct SummaryRequest {
    pub node: NodeId,
    /// Hash of everything the summary is made from; a cache key.
    pub input_hash: [u8; 32],
    /// Sources ready to be summarised, in order.
    pub sources: Vec<SourceText>,
}

impl SummaryRequest {
    /// Total lines over all sources.
    pub fn lines(&self) -> usize {
        self.sources.iter().map(|s| s.lines).sum()
    }
}

/// A finished summary body (Markdown without frontmatter).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub body: String,
    /// The model that wrote it, recorded in frontmatter.
    pub model: Option<String>,
    /// The prompt version, recorded in frontmatter.
    pub prompt_version: Option<String>,
}

/// Why one node was not summarised. The node stays `needs-summarization`.
#[derive(Debug, Clone, PartialEq)]
pub enum SummaryError {
    /// No backend is configured: the agent is expected to fill the node in.
    NotConfigured,
    /// The backend tried and failed for this node; `hint` says what to do.
    Failed { reason: String, hint: String },
}

/// A summary backend.
pub trait Summarizer: Sync {
    /// Identifies backend, model and prompt version; recorded per node so a
    /// change of backend can be detected.
    fn writer(&self) -> Writer;

    /// True when the backend can summarise at all (the `none` backend
    /// cannot, so compaction never waits on it).
    fn is_active(&self) -> bool;

    /// Summarises a batch, one result per request, in order.
    fn summarize(
        &self,
        requests: &[SummaryRequest],
        progress: &dyn Progress,
    ) -> Vec<Result<Summary, SummaryError>>;

    /// What the run should be told once (a server that refused structured
    /// answers, say); added to the report's warnings.
    fn notices(&self) -> Vec<String> {
        Vec::new()
    }

    /// Writes ROOT's Active Context, Recent Patterns and Historical Summary
    /// from `context`. `None`: this backend leaves ROOT mechanical.
    fn root_sections(
        &self,
        _input_hash: [u8; 32],
        _context: &RootContext,
    ) -> Option<Result<[String; 3], SummaryError>> {
        None
    }
}

/// The default backend: summarises nothing, so above-threshold nodes are
/// written as `needs-summarization` stubs for the agent to fill in.
pub struct NoneSummarizer;

impl Summarizer for NoneSummarizer {
    fn writer(&self) -> Writer {
        Writer::NoBackend
    }

    fn is_active(&self) -> bool {
        false
    }

    fn summarize(
        &self,
        requests: &[SummaryRequest],
        _: &dyn Progress,
    ) -> Vec<Result<Summary, SummaryError>> {
        requests
            .iter()
            .map(|_| Err(SummaryError::NotConfigured))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_is_stored_as_the_string_it_was_stored_as_before() {
        let model = Writer::Model {
            model: "llama3.2:3b".into(),
            prompt_version: "hipo-v3".into(),
        };
        for w in [Writer::Copy, Writer::Mechanical, Writer::NoBackend, model] {
            let bytes = crate::codec::encode(&w);
            assert_eq!(bytes, crate::codec::encode(&w.to_string()), "{w}");
            assert_eq!(crate::codec::decode::<Writer>(&bytes), Some(w));
        }
        let foreign = crate::codec::encode(&"something-else".to_string());
        assert_eq!(
            crate::codec::decode::<Writer>(&foreign),
            Some(Writer::External)
        );
    }

    #[test]
    fn writer_string_form_round_trips() {
        let model = Writer::Model {
            model: "llama3.2:3b".into(),
            prompt_version: "hipo-v1".into(),
        };
        for (w, s) in [
            (Writer::Copy, "copy"),
            (Writer::Mechanical, "mechanical"),
            (Writer::External, "external"),
            (Writer::NoBackend, "none"),
            (model, "ollama:llama3.2:3b:hipo-v1"),
        ] {
            assert_eq!(w.to_string(), s);
            assert_eq!(Writer::parse(s), Some(w));
        }
        assert_eq!(Writer::parse("ollama:"), None);
        assert_eq!(Writer::parse("someone"), None);
    }
}
