//! Which model, where, and how: the `llm.*` layers (the config file's,
//! then the flags' and their environment variables') merged by the one
//! rule of `config::layers`, the defaults applied, checked once.

pub use crate::config::LlmLayer;
use crate::config::layers::merged;
use crate::config::{
    DEFAULT_CONCURRENCY, DEFAULT_NUM_CTX, DEFAULT_STRUCTURED, DEFAULT_TEMPERATURE,
    DEFAULT_TIMEOUT_S,
};
use crate::error::{Error, Result};
use ollama_rs::generation::parameters::{KeepAlive, TimeUnit};
use std::time::Duration;

/// Ollama's default address.
pub const DEFAULT_HOST: &str = "http://127.0.0.1:11434";

pub use crate::config::Backend;

/// The resolved LLM settings for one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub backend: Backend,
    /// Base URL, e.g. `http://127.0.0.1:11434`.
    pub host: String,
    pub model: String,
    pub timeout: Duration,
    pub num_ctx: u64,
    pub temperature: f32,
    pub keep_alive: Option<String>,
    pub concurrency: usize,
    /// Ask for JSON matching a schema (`format`) rather than Markdown.
    pub structured: bool,
}

/// The config's layer under the front end's (flags over their environment
/// variables), merged key by key; then the defaults, and the checks.
pub fn resolve(config: &LlmLayer, over: &LlmLayer) -> Result<Settings> {
    let l = merged([config.clone(), over.clone()]);
    let backend = l.backend.unwrap_or_default();
    let model = l.model.unwrap_or_default();
    if backend == Backend::Ollama && model.trim().is_empty() {
        return Err(Error::Llm(
            "the ollama backend needs a model: pass --model NAME (or HIPO_MODEL, or llm.model in hipocampus.config.json)".into(),
        ));
    }
    if let Some(k) = &l.keep_alive {
        parse_keep_alive(k)?;
    }
    Ok(Settings {
        backend,
        host: normalize_host(l.host.as_deref().unwrap_or(DEFAULT_HOST)),
        model,
        timeout: Duration::from_secs(l.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S).max(1)),
        num_ctx: l.num_ctx.unwrap_or(DEFAULT_NUM_CTX).max(1024),
        temperature: l.temperature.unwrap_or(DEFAULT_TEMPERATURE),
        keep_alive: l.keep_alive,
        concurrency: l.concurrency.unwrap_or(DEFAULT_CONCURRENCY).max(1),
        structured: l.structured.unwrap_or(DEFAULT_STRUCTURED),
    })
}

/// Accepts what `OLLAMA_HOST` accepts: `host`, `host:port`, or a URL.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    let with_scheme = if host.contains("://") {
        host.to_string()
    } else {
        format!("http://{host}")
    };
    let authority = with_scheme.split("://").nth(1).unwrap_or("");
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty());
    if has_port {
        with_scheme
    } else {
        format!("{with_scheme}:11434")
    }
}

pub(super) fn parse_keep_alive(k: &str) -> Result<KeepAlive> {
    let k = k.trim();
    match k {
        "-1" => return Ok(KeepAlive::Indefinitely),
        "0" => return Ok(KeepAlive::UnloadOnCompletion),
        _ => {}
    }
    let (num, unit) = k.split_at(k.len().saturating_sub(1));
    match (num.parse::<u64>(), TimeUnit::from_symbol(unit)) {
        (Ok(time), Some(unit)) => Ok(KeepAlive::Until { time, unit }),
        _ => Err(Error::Llm(format!(
            "keep_alive `{k}` is not -1, 0 or a duration like 30s, 5m, 2h"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_like_ollama_host() {
        assert_eq!(normalize_host("127.0.0.1"), "http://127.0.0.1:11434");
        assert_eq!(normalize_host("0.0.0.0:9999"), "http://0.0.0.0:9999");
        assert_eq!(normalize_host("http://box:11434/"), "http://box:11434");
        assert_eq!(normalize_host("https://box"), "https://box:11434");
    }

    #[test]
    fn resolve_merges_and_validates() {
        let cfg = LlmLayer::default();
        assert_eq!(
            resolve(&cfg, &LlmLayer::default()).unwrap().backend,
            Backend::None
        );
        let o = LlmLayer {
            backend: Some(Backend::Ollama),
            ..Default::default()
        };
        assert!(
            resolve(&cfg, &o)
                .unwrap_err()
                .to_string()
                .contains("needs a model")
        );
        let o = LlmLayer {
            backend: Some(Backend::Ollama),
            model: Some("m".into()),
            concurrency: Some(0),
            ..Default::default()
        };
        let s = resolve(&cfg, &o).unwrap();
        assert_eq!(
            (s.host.as_str(), s.concurrency, s.temperature),
            (DEFAULT_HOST, 1, 0.2)
        );
        assert!("gpt".parse::<Backend>().is_err());
        let o = LlmLayer {
            keep_alive: Some("5 minutes".into()),
            ..Default::default()
        };
        assert!(resolve(&cfg, &o).is_err());
        assert!(parse_keep_alive("5m").is_ok() && parse_keep_alive("-1").is_ok());
    }
}
