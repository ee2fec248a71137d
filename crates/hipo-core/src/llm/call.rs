//! One request to Ollama and what can go wrong with it: the request
//! (options, `format`, timeout), the counts the server reports, and the
//! errors turned into a reason and what to do about it.

use super::structured::{self, Mode};
use super::{OllamaSummarizer, prompt};
use crate::summarize::SummaryError;
use ollama_rs::error::OllamaError;
use ollama_rs::generation::completion::request::GenerationRequest;
use ollama_rs::models::ModelOptions;

/// Attempts at a node whose prompt was cut, each with smaller chunks.
pub(super) const CUT_TRIES: usize = 3;

/// Why a call gave no usable answer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Failure {
    /// The server refused the `format` field (an Ollama before 0.5).
    Format(String),
    /// The prompt did not fit the model's context: the server said so, or
    /// cut it (seen in the count it reports).
    PromptCut(String),
    /// The answer came but was refused (why): asked again once with the
    /// reason, then that part is summarised mechanically.
    Refused(String),
    /// Anything else: the node stays pending with this reason and hint.
    Failed(SummaryError),
}

impl From<SummaryError> for Failure {
    fn from(e: SummaryError) -> Failure {
        Failure::Failed(e)
    }
}

impl Failure {
    /// The reason and hint a node is left pending with.
    pub(super) fn into_error(self) -> SummaryError {
        match self {
            Failure::Failed(e) => e,
            Failure::Refused(reason) => SummaryError::Failed {
                reason,
                hint: "re-run `hipo summarize`; if it keeps failing, use a larger model".into(),
            },
            Failure::Format(text) => SummaryError::Failed {
                reason: format!("the server refused the JSON answer format ({text})"),
                hint: "upgrade Ollama to 0.5 or later, or set llm.structured to false".into(),
            },
            Failure::PromptCut(why) => SummaryError::Failed {
                reason: format!("the prompt did not fit the model's context ({why})"),
                hint: "raise llm.num_ctx (or --num-ctx) if the model allows it".into(),
            },
        }
    }
}

/// What the server answered, with the counts it reported.
pub(super) struct Reply {
    pub text: String,
    /// Prompt tokens as the server counted them (after any cut).
    pub prompt_tokens: Option<u64>,
    /// Answer tokens.
    pub output_tokens: Option<u64>,
}

/// What a request asks for.
pub(super) struct Request<'a> {
    pub system: &'a str,
    pub user: &'a str,
    pub mode: Mode,
    /// The JSON schema of the answer, used in [`Mode::Structured`].
    pub schema: fn() -> serde_json::Value,
    /// The longest answer, in tokens (`num_predict`).
    pub num_predict: usize,
}

impl OllamaSummarizer<'_> {
    /// One non-streaming generate call, with the timeout and options. What
    /// is sent is redacted and free of hipo's markers; so is the answer.
    pub(super) async fn generate(&self, req: &Request<'_>) -> Result<Reply, Failure> {
        // Everything sent is redacted here, whoever built the prompt (an
        // agent's edit to a node is not redacted on disk), and hipo's own
        // markers are never sent as content.
        let user =
            prompt::without_markers(&crate::redact::redact(&crate::private::strip(req.user)));
        let options = ModelOptions::default()
            .num_ctx(self.settings.num_ctx)
            .temperature(self.settings.temperature)
            .num_predict(i32::try_from(req.num_predict).unwrap_or(i32::MAX));
        let mut request = GenerationRequest::new(self.settings.model.clone(), user.as_str())
            .system(req.system)
            .options(options);
        if req.mode == Mode::Structured
            && let Some(format) = structured::format((req.schema)())
        {
            request = request.format(format);
        }
        if let Some(k) = self
            .settings
            .keep_alive
            .as_deref()
            .and_then(|k| super::settings::parse_keep_alive(k).ok())
        {
            request = request.keep_alive(k);
        }
        // Wall time is counted around a whole batch (`OllamaSummarizer::
        // block_on`), so overlapping calls are not counted twice.
        let result =
            tokio::time::timeout(self.settings.timeout, self.client.generate(request)).await;
        self.count(|s| s.calls += 1);
        let response = match result {
            Err(_) => {
                return Err(Failure::Failed(SummaryError::Failed {
                    reason: format!(
                        "no answer from {} within {}s",
                        self.settings.host,
                        self.settings.timeout.as_secs()
                    ),
                    hint: "raise llm.timeout_s (or --timeout-s), or use a smaller model".into(),
                }));
            }
            Ok(Err(e)) => return Err(self.explain(e)),
            Ok(Ok(response)) => response,
        };
        if let Ok(mut s) = self.stats.lock() {
            s.prompt_tokens += response
                .prompt_eval_count
                .unwrap_or((prompt::tokens(req.system) + prompt::tokens(&user)) as u64);
            s.output_tokens += response
                .eval_count
                .unwrap_or(prompt::tokens(&response.response) as u64);
        }
        Ok(Reply {
            text: crate::redact::redact(&response.response).into_owned(),
            prompt_tokens: response.prompt_eval_count,
            output_tokens: response.eval_count,
        })
    }

    /// Turns a client error into a reason and what to do about it.
    pub(super) fn explain(&self, e: OllamaError) -> Failure {
        let host = &self.settings.host;
        let model = &self.settings.model;
        let failed =
            |reason: String, hint: String| Failure::Failed(SummaryError::Failed { reason, hint });
        match e {
            OllamaError::ReqwestError(re) if re.is_connect() => failed(
                format!("cannot connect to ollama at {host}"),
                "start it with `ollama serve`, or set llm.host / OLLAMA_HOST".into(),
            ),
            OllamaError::ReqwestError(re) if re.is_timeout() => failed(
                format!("ollama at {host} timed out"),
                "raise llm.timeout_s (or --timeout-s)".into(),
            ),
            OllamaError::Other(text) if text.contains("not found") => failed(
                format!("model `{model}` is not available on {host}"),
                format!("run `ollama pull {model}`"),
            ),
            OllamaError::Other(text) if refuses_format(&text) => Failure::Format(error_text(&text)),
            OllamaError::Other(text) if about_context(&text) => {
                Failure::PromptCut(error_text(&text))
            }
            OllamaError::JsonError(err) => failed(
                format!("ollama sent a malformed response ({err})"),
                "check that llm.host points at an Ollama server".into(),
            ),
            other => failed(
                format!("ollama error: {}", describe(&other)),
                "run `hipo llm check`".into(),
            ),
        }
    }
}

/// An error about the `format` field: an Ollama before 0.5 cannot read a
/// schema there (`cannot unmarshal object into … format of type string`).
fn refuses_format(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("format") && !about_context(text)
}

/// An HTTP 400 about the prompt's length (some models on some Ollama
/// releases, instead of a silent cut).
fn about_context(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    (t.contains("context")
        && (t.contains("length") || t.contains("exceed") || t.contains("window")))
        || t.contains("too long")
        || t.contains("too many tokens")
}

/// The `error` of Ollama's JSON error body, else the text itself.
fn error_text(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
        .unwrap_or_else(|| text.trim().to_string())
}

pub(super) fn describe(e: &OllamaError) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(&format!(": {s}"));
        source = s.source();
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_about_format_and_context_are_told_apart() {
        let old = r#"{"error":"json: cannot unmarshal object into Go struct field GenerateRequest.format of type string"}"#;
        assert!(refuses_format(old) && !about_context(old));
        assert_eq!(
            error_text(old),
            "json: cannot unmarshal object into Go struct field GenerateRequest.format of type string"
        );
        let long = r#"{"error":"the input length exceeds the context length"}"#;
        assert!(about_context(long) && !refuses_format(long));
        assert!(!about_context("server is shutting down"));
    }
}
