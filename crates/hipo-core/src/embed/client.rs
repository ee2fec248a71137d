//! One Ollama `/api/embed` call (batched inputs) through ollama-rs, on a
//! current-thread runtime of hipo's own, with a timeout. Failures are
//! described for a person: what went wrong and what to do.

use ollama_rs::Ollama;
use ollama_rs::error::OllamaError;
use ollama_rs::generation::embeddings::request::{EmbeddingsInput, GenerateEmbeddingsRequest};
use std::time::Duration;

/// An embedding client for one model.
pub struct Embedder {
    client: Ollama,
    host: String,
    model: String,
}

impl Embedder {
    /// A client of `model` at `host` (a normalised Ollama URL).
    pub fn new(host: &str, model: &str) -> Result<Embedder, String> {
        let client = Ollama::try_new(host).map_err(|e| format!("bad ollama host `{host}`: {e}"))?;
        Ok(Embedder {
            client,
            host: host.to_string(),
            model: model.to_string(),
        })
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// One vector per input, in order. Inputs longer than the model's
    /// context are truncated by Ollama (`truncate: true`), as the model
    /// would only see their start anyway. `<private>` spans are never sent
    /// (a file written by hand may hold them).
    pub fn embed(&self, inputs: &[String], timeout: Duration) -> Result<Vec<Vec<f32>>, String> {
        let sent = inputs
            .iter()
            .map(|i| crate::private::strip(i).into_owned())
            .collect();
        let request =
            GenerateEmbeddingsRequest::new(self.model.clone(), EmbeddingsInput::Multiple(sent))
                .truncate(true);
        let answer = block_on(|| async {
            tokio::time::timeout(timeout, self.client.generate_embeddings(request)).await
        })?;
        let answer = match answer {
            Err(_) => {
                return Err(format!(
                    "embedding model `{}` at {} did not answer within {} s",
                    self.model,
                    self.host,
                    timeout.as_secs_f32()
                ));
            }
            Ok(Err(e)) => return Err(self.describe(e)),
            Ok(Ok(a)) => a,
        };
        if answer.embeddings.len() != inputs.len() {
            return Err(format!(
                "embedding model `{}` answered {} vectors for {} inputs",
                self.model,
                answer.embeddings.len(),
                inputs.len()
            ));
        }
        Ok(answer.embeddings)
    }

    fn describe(&self, e: OllamaError) -> String {
        match e {
            OllamaError::ReqwestError(re) if re.is_connect() => format!(
                "no Ollama at {} (start it with `ollama serve`, or set OLLAMA_HOST)",
                self.host
            ),
            OllamaError::ReqwestError(re) if re.is_timeout() => {
                format!("embedding model `{}` timed out", self.model)
            }
            OllamaError::Other(text) if text.contains("not found") => format!(
                "embedding model `{}` is not on the Ollama at {} (`ollama pull {}`)",
                self.model, self.host, self.model
            ),
            other => format!(
                "embedding model `{}` failed: {}",
                self.model,
                error_chain(&other)
            ),
        }
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        cur = inner.source();
    }
    s
}

/// Runs a future on a runtime of hipo's own. Inside a caller's runtime
/// (the MCP server calls searches from tokio's blocking pool) a nested
/// `block_on` would panic, so there the work moves to a scoped thread.
fn block_on<T, F>(make: impl FnOnce() -> F + Send) -> Result<T, String>
where
    F: std::future::Future<Output = T>,
    T: Send,
{
    let run = move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map(|rt| rt.block_on(make()))
            .map_err(|e| format!("cannot start the async runtime: {e}"))
    };
    if tokio::runtime::Handle::try_current().is_err() {
        return run();
    }
    std::thread::scope(|s| s.spawn(run).join())
        .unwrap_or_else(|_| Err("the embedding call's thread panicked".into()))
}
