//! `hipocampus.config.json` and `memory/.compaction-state.json`, read the
//! way hipocampus reads them: every key optional, defaults as documented,
//! unknown keys kept untouched.

use crate::error::{Error, Result};
use layers::layer;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub(crate) mod layers;

/// The parts of `hipocampus.config.json` hipo uses.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct Config {
    pub compaction: CompactionConfig,
    pub llm: LlmLayer,
    pub search: SearchConfig,
    pub recall: RecallConfig,
    /// `share`: the project's memory is shared through a git repository
    /// (`hipo init --share`): a node file this clone's store did not
    /// record is judged by its own provenance (a merge brought it).
    pub share: bool,
    /// What is odd about the file but not fatal (a key that looks
    /// misspelt, a file that is not an object): for the front end to show.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// The keys hipo reads, by section (`""`: the top level).
const KNOWN_KEYS: &[(&str, &[&str])] = &[
    ("", &["compaction", "llm", "search", "recall", "share"]),
    (
        "compaction",
        &[
            "dailyThreshold",
            "weeklyThreshold",
            "monthlyThreshold",
            "rootMaxTokens",
            "cooldownHours",
        ],
    ),
    (
        "llm",
        &[
            "backend",
            "host",
            "model",
            "timeout_s",
            "num_ctx",
            "temperature",
            "keep_alive",
            "concurrency",
        ],
    ),
    ("search", &["extraGlobs", "embed"]),
    ("recall", &["budgetTokens", "floor"]),
];

/// Tokens a recall pack may hold unless told otherwise.
pub const DEFAULT_BUDGET: usize = 800;
/// The relevance ([`crate::search::Hit::relevance`]: the score over what
/// the best section scores by chance in a memory that size) the best
/// result must reach, or the pack is empty (it must also hold a fifth of
/// the prompt, `recall::gate::MIN_COVERAGE`; and a young memory that holds
/// the prompt's words well beyond chance takes a lower floor in proportion,
/// `recall::gate::BEYOND_CHANCE_FLOOR`). Chosen on dev sets of different
/// kinds, each in halves (`benches/recall_sets.py`: young memories of
/// typed entries, of captured agent sessions and of both, and the 16 MB
/// MemAware chat history), by one rule: the lowest two-decimal floor
/// leaving MemAware's short unrelated prompts as empty as before (105 of
/// 109), while the young memories keep what they answered
/// (docs/search.md, "Recall", gives each set). It counts in the unit of
/// `search::terms::chance_level`: changing one means re-deriving the other.
pub const DEFAULT_FLOOR: f32 = 0.18;

/// `recall.*`: what the prompt hook injects unasked.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct RecallConfig {
    /// The most a prompt's recall may hold, in tokens.
    pub budget_tokens: usize,
    /// The relevance the best passage needs, else nothing is injected
    /// (the score over the memory's chance level, so one floor fits a
    /// young memory and a large one).
    pub floor: f32,
}

impl Default for RecallConfig {
    fn default() -> Self {
        RecallConfig {
            budget_tokens: DEFAULT_BUDGET,
            floor: DEFAULT_FLOOR,
        }
    }
}

/// Warnings for keys that look like a misspelling of one hipo reads
/// (`dailyTreshold`, `daily_threshold`, `Compaction`). Other unknown keys
/// are hipocampus's or another tool's, and are kept without a word.
fn lint(value: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    for (section, known) in KNOWN_KEYS {
        let map = if section.is_empty() {
            value.as_object()
        } else {
            value.get(*section).and_then(|v| v.as_object())
        };
        for key in map.into_iter().flat_map(|m| m.keys()) {
            if known.contains(&key.as_str()) {
                continue;
            }
            if let Some(meant) = known.iter().find(|k| looks_misspelt(key, k)) {
                let at = |k: &str| {
                    if section.is_empty() {
                        k.to_string()
                    } else {
                        format!("{section}.{k}")
                    }
                };
                out.push(format!(
                    "`{}` is not a key hipo reads, so it is ignored; did you mean `{}`?",
                    at(key),
                    at(meant)
                ));
            }
        }
    }
    out
}

/// True if `key` is `known` spelt another way: other case or separators,
/// or within two edits.
fn looks_misspelt(key: &str, known: &str) -> bool {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (a, b) = (norm(key), norm(known));
    if a == b {
        return true;
    }
    // Levenshtein distance, cut off above 2.
    if a.len().abs_diff(b.len()) > 2 || b.len() < 4 {
        return false;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()] <= 2
}

/// `compaction.*`: thresholds in lines, cooldown in hours. Serialized
/// into the key of a settled compaction (`compact::settled`).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactionConfig {
    pub daily_threshold: usize,
    pub weekly_threshold: usize,
    pub monthly_threshold: usize,
    pub root_max_tokens: usize,
    pub cooldown_hours: f64,
    /// The top-level `share` key, where compaction needs it.
    #[serde(skip)]
    pub shared: bool,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        CompactionConfig {
            daily_threshold: 200,
            weekly_threshold: 300,
            monthly_threshold: 500,
            root_max_tokens: 3000,
            cooldown_hours: 3.0,
            shared: false,
        }
    }
}

/// `llm.timeout_s` unless a layer sets it: seconds for one model answer.
pub const DEFAULT_TIMEOUT_S: u64 = 120;
/// `llm.num_ctx` unless a layer sets it: the model's context, in tokens.
pub const DEFAULT_NUM_CTX: u64 = 8192;
/// `llm.temperature` unless a layer sets it.
pub const DEFAULT_TEMPERATURE: f32 = 0.2;
/// `llm.concurrency` unless a layer sets it: parallel model requests.
pub const DEFAULT_CONCURRENCY: usize = 1;
/// `llm.structured` unless a layer sets it.
pub const DEFAULT_STRUCTURED: bool = true;

layer! {
    /// `llm.*`, the local summarizer, as one layer of its settings: the
    /// config file's, or the flags' and their environment variables'
    /// (`config::layers`). Every key optional; `llm::resolve` merges the layers
    /// and applies the `DEFAULT_*` above.
    #[derive(Debug, Clone, Default, Deserialize, PartialEq)]
    #[serde(default, rename_all = "snake_case")]
    pub struct LlmLayer {
        #[serde(deserialize_with = "layers::present")]
        pub backend: Backend,
        pub host: String,
        pub model: String,
        #[serde(deserialize_with = "layers::present")]
        pub timeout_s: u64,
        #[serde(deserialize_with = "layers::present")]
        pub num_ctx: u64,
        #[serde(deserialize_with = "layers::present")]
        pub temperature: f32,
        pub keep_alive: String,
        #[serde(deserialize_with = "layers::present")]
        pub concurrency: usize,
        /// Ask for JSON matching a schema (Ollama 0.5+); hipo renders the
        /// Markdown. A server that refuses it gets the text prompt.
        #[serde(deserialize_with = "layers::present")]
        pub structured: bool,
    }
}

/// Which backend writes summaries (`llm.backend`, `--llm`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Backend {
    /// Nodes are left `needs-summarization` for the agent.
    #[default]
    None,
    /// A local model through Ollama.
    Ollama,
}

impl std::str::FromStr for Backend {
    type Err = String;

    /// `none` (or empty, as hipocampus leaves it) or `ollama`.
    fn from_str(s: &str) -> std::result::Result<Backend, String> {
        match s.trim() {
            "" | "none" => Ok(Backend::None),
            "ollama" => Ok(Backend::Ollama),
            other => Err(format!(
                "unknown llm backend `{other}`; use `none` or `ollama`"
            )),
        }
    }
}

impl<'de> Deserialize<'de> for Backend {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Backend, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// `search.*`: extra Markdown to index beyond memory/, knowledge/, plans/.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct SearchConfig {
    /// Project-relative globs such as `docs/**/*.md`.
    pub extra_globs: Vec<String>,
    /// `search.embed`: hybrid search's embedding model.
    pub embed: EmbedConfig,
}

/// `search.embed.*`: an Ollama embedding model makes searches hybrid
/// (BM25 fused with vectors) by default. Absent: lexical only.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct EmbedConfig {
    /// `all-minilm`, `nomic-embed-text`, `bge-m3`, `embeddinggemma`…
    pub model: Option<String>,
}

impl Config {
    /// Reads the config at `root`; a missing file means all defaults.
    pub fn load(root: &Path) -> Result<Config> {
        let path = root.join(crate::layout::CONFIG_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(Error::io(path, e)),
        };
        let bad_json = |e: serde_json::Error| Error::Config {
            path: path.clone(),
            message: format!(
                "line {}: {e}; fix the JSON or delete the key to use its default",
                e.line()
            ),
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(bad_json)?;
        if !value.is_object() {
            // serde would read `[]` as a struct of defaults, and `[{…}]`
            // field by field: neither is what the person meant.
            return Ok(Config {
                warnings: vec![format!(
                    "{}: is not a JSON object ({{\"compaction\": {{…}}, …}}), so it is ignored and the defaults are used",
                    path.display()
                )],
                ..Config::default()
            });
        }
        let mut config: Config = serde_json::from_str(&text).map_err(bad_json)?;
        config.compaction.shared = config.share;
        config.warnings = lint(&value)
            .into_iter()
            .map(|w| format!("{}: {w}", path.display()))
            .collect();
        for glob in &config.search.extra_globs {
            if let Some(why) = escapes_project(glob) {
                return Err(Error::Config {
                    path,
                    message: format!(
                        "search.extraGlobs: `{glob}` {why}: hipo reads only files inside the project; use a project-relative glob such as `docs/**/*.md` (copy or link what you want searched into the project)"
                    ),
                });
            }
        }
        Ok(config)
    }
}

/// Why a glob of `search.extraGlobs` could reach outside the project, if
/// it could: an absolute path (`/etc/*`, `C:\…`, `~/…`) or a `..` part.
pub(crate) fn escapes_project(glob: &str) -> Option<&'static str> {
    let g = glob.trim();
    let drive = g.len() >= 2 && g.as_bytes()[1] == b':' && g.as_bytes()[0].is_ascii_alphabetic();
    if g.starts_with('/') || g.starts_with('\\') || g.starts_with('~') || drive {
        return Some("is an absolute path");
    }
    if g.split(['/', '\\']).any(|part| part == "..") {
        return Some("climbs out of the project with `..`");
    }
    None
}

/// hipocampus's trigger state, shared with the agent's hooks.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CompactionState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_compaction_run: Option<String>,
    #[serde(default)]
    pub raw_lines_since_last_compaction: u64,
    #[serde(default)]
    pub checkpoints_since_last_compaction: u64,
    /// Keys other tools wrote, kept as they were.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl CompactionState {
    /// Reads the state file; missing means "never compacted".
    pub fn load(root: &Path) -> Result<CompactionState> {
        let path = root.join(crate::layout::STATE_FILE);
        match std::fs::read_to_string(&path) {
            Ok(t) => serde_json::from_str(&t).map_err(|e| Error::Config {
                path,
                message: format!("line {}: {e}; fix or delete the file", e.line()),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(CompactionState::default()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Writes the state file atomically.
    pub fn save(&self, root: &Path) -> Result<()> {
        let path = root.join(crate::layout::STATE_FILE);
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        crate::fsutil::write_atomic(&path, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_config_uses_defaults() {
        let c: Config =
            serde_json::from_str(r#"{"compaction": {"dailyThreshold": 50}, "other": 1}"#).unwrap();
        assert_eq!(c.compaction.daily_threshold, 50);
        assert_eq!(c.compaction.weekly_threshold, 300);
        assert_eq!(c.llm.backend, None);
        let c: Config =
            serde_json::from_str(r#"{"llm": {"model": null, "timeout_s": 9}}"#).unwrap();
        assert_eq!((c.llm.model, c.llm.timeout_s), (None, Some(9)));
        for null in [
            "backend",
            "timeout_s",
            "num_ctx",
            "temperature",
            "concurrency",
            "structured",
        ] {
            let text = format!(r#"{{"llm": {{"{null}": null}}}}"#);
            let e = serde_json::from_str::<Config>(&text)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("invalid type: null, expected"), "{null}: {e}");
        }
        let bad = serde_json::from_str::<Config>(r#"{"llm": {"backend": "gpt"}}"#);
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("use `none` or `ollama`")
        );
    }

    #[test]
    fn extra_globs_that_leave_the_project_are_refused() {
        for bad in [
            "/etc/*",
            "~/notes/*.md",
            "../other/**/*.md",
            "docs/../../x.md",
            "C:\\x\\*.md",
            "\\\\host\\s\\*.md",
        ] {
            assert!(escapes_project(bad).is_some(), "{bad}");
        }
        for good in [
            "docs/**/*.md",
            "*.md",
            "notes..md",
            "a/..b/*.md",
            "README.md",
        ] {
            assert_eq!(escapes_project(good), None, "{good}");
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(crate::layout::CONFIG_FILE),
            r#"{"search": {"extraGlobs": ["docs/*.md", "/etc/*"]}}"#,
        )
        .unwrap();
        let e = Config::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("hipocampus.config.json"), "{e}");
        assert!(e.contains("`/etc/*` is an absolute path"), "{e}");
    }

    #[test]
    fn a_config_that_is_not_an_object_or_has_misspelt_keys_warns() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(crate::layout::CONFIG_FILE);
        std::fs::write(&file, "[]").unwrap();
        let c = Config::load(dir.path()).unwrap();
        assert_eq!(c.compaction, CompactionConfig::default());
        assert!(
            c.warnings[0].contains("is not a JSON object"),
            "{:?}",
            c.warnings
        );
        std::fs::write(
            &file,
            r#"{"compaction": {"dailyTreshold": 5, "root_max_tokens": 9}, "Search": {}, "platform": "claude", "qmd": {}}"#,
        )
        .unwrap();
        let c = Config::load(dir.path()).unwrap();
        assert_eq!(
            c.warnings
                .iter()
                .map(|w| w.split_once(": ").unwrap().1)
                .collect::<Vec<_>>(),
            [
                "`Search` is not a key hipo reads, so it is ignored; did you mean `search`?",
                "`compaction.dailyTreshold` is not a key hipo reads, so it is ignored; did you mean `compaction.dailyThreshold`?",
                "`compaction.root_max_tokens` is not a key hipo reads, so it is ignored; did you mean `compaction.rootMaxTokens`?",
            ]
        );
        std::fs::write(&file, r#"{"compaction": {"dailyThreshold": 5}}"#).unwrap();
        assert!(Config::load(dir.path()).unwrap().warnings.is_empty());
    }

    #[test]
    fn state_keeps_unknown_keys() {
        let s: CompactionState =
            serde_json::from_str(r#"{"lastCompactionRun":"2026-01-01T00:00:00Z","checkpointsSinceLastCompaction":3,"x":true}"#)
                .unwrap();
        assert_eq!(s.checkpoints_since_last_compaction, 3);
        assert!(serde_json::to_string(&s).unwrap().contains("\"x\":true"));
    }
}
