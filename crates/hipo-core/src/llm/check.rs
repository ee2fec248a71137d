//! `hipo llm check`: is the server up, and is the model pulled?

use super::{OllamaSummarizer, Settings};
use crate::error::{Error, Result};
use crate::summarize::SummaryError;

/// The outcome of `hipo llm check`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    pub host: String,
    pub model: String,
    /// The server answered.
    pub reachable: bool,
    /// The model is pulled.
    pub model_present: bool,
    /// One line for a person.
    pub message: String,
}

/// Asks the server for its models: is it up, and is the model pulled?
pub fn check(settings: &Settings) -> Result<Check> {
    let summarizer = OllamaSummarizer::new(settings.clone(), None)?;
    let host = settings.host.clone();
    let model = settings.model.clone();
    let listed = summarizer
        .block_on(|| async {
            tokio::time::timeout(settings.timeout, summarizer.client.list_local_models()).await
        })
        .map_err(|e| Error::Llm(format!("{e:?}")))?;
    let (reachable, model_present, message) = match listed {
        Err(_) => (
            false,
            false,
            format!(
                "ollama at {host}: no answer within {}s; is it running (`ollama serve`)?",
                settings.timeout.as_secs()
            ),
        ),
        Ok(Err(e)) => match summarizer.explain(e).into_error() {
            SummaryError::Failed { reason, hint } => (false, false, format!("{reason}; {hint}")),
            SummaryError::NotConfigured => (false, false, "not configured".into()),
        },
        Ok(Ok(models)) => {
            let present = models
                .iter()
                .any(|m| m.name == model || m.name == format!("{model}:latest"));
            let msg = if model.is_empty() {
                format!(
                    "ollama at {host} is up ({} models); no model configured: pass --model NAME",
                    models.len()
                )
            } else if present {
                format!("ollama at {host} is up and model `{model}` is pulled")
            } else {
                format!(
                    "ollama at {host} is up but model `{model}` is not pulled: run `ollama pull {model}`"
                )
            };
            (true, present, msg)
        }
    };
    Ok(Check {
        host,
        model,
        reachable,
        model_present,
        message,
    })
}
