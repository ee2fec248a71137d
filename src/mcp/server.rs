//! The MCP handler and the runtime it runs on.
//!
//! `initialize` is answered from constants: nothing is opened until a
//! call needs the project, then the project is found once (from the
//! configured directory, `CLAUDE_PROJECT_DIR`, or the working directory)
//! and kept. A project not found yet is looked for again on the next
//! call, so a server started before `hipo init` works once it ran.

use super::{frames, resources};
use chrono::NaiveDate;
use hipo_core::Error;
use hipo_core::Hipo;
use hipo_core::{LlmLayer, LlmSettings as Settings};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool_handler};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a write (checkpoint, compact, status) waits for another hipo
/// process holding the project lock before it says so.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// What the server is started with.
#[derive(Debug, Clone)]
pub struct Config {
    /// The project root, if given (`--dir`, `HIPO_DIR`): it must be one.
    pub dir: Option<PathBuf>,
    /// Where to look for a project upwards from when `dir` is not given.
    pub cwd: PathBuf,
    /// The date that decides tentative/fixed and where entries go
    /// (default: the local date at each call).
    pub today: Option<NaiveDate>,
    /// Model settings over the project's `llm.*` (for compact and status).
    pub llm: LlmLayer,
    /// Embedding settings over the project's `search.embed.*` (searches):
    /// the same the CLI's flags and environment give.
    pub embed: hipo_core::EmbedLayer,
    /// How long writes wait for the project lock.
    pub lock_wait: Duration,
}

impl Config {
    /// `dir` if given; else the project is looked for from
    /// `CLAUDE_PROJECT_DIR` (set by Claude Code for the servers it
    /// starts), else from the working directory.
    pub fn from_env(dir: Option<PathBuf>) -> Config {
        let cwd = std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."));
        Config {
            dir,
            cwd,
            today: None,
            llm: LlmLayer::default(),
            embed: hipo_core::EmbedLayer::default(),
            lock_wait: LOCK_WAIT,
        }
    }
}

/// The MCP server: cheap to clone (every request gets a clone).
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
    tool_router: ToolRouter<Server>,
}

struct Shared {
    config: Config,
    hipo: Mutex<Option<Arc<Hipo>>>,
}

impl Server {
    /// A server for `config`; opens nothing.
    pub fn new(config: Config) -> Server {
        Server {
            shared: Arc::new(Shared {
                config,
                hipo: Mutex::new(None),
            }),
            tool_router: Server::tools(),
        }
    }

    /// The project, found on first use.
    pub(super) fn project(&self) -> hipo_core::Result<Arc<Hipo>> {
        let mut slot = self.shared.hipo.lock().map_err(|_| {
            Error::Usage("hipo: internal state poisoned; restart the server".into())
        })?;
        if let Some(h) = slot.as_ref() {
            return Ok(h.clone());
        }
        let c = &self.shared.config;
        let hipo = Arc::new(Hipo::find(c.dir.as_deref(), &c.cwd)?.with_embed(c.embed.clone()));
        *slot = Some(hipo.clone());
        Ok(hipo)
    }

    /// The date for this call.
    pub(super) fn today(&self) -> NaiveDate {
        self.shared
            .config
            .today
            .unwrap_or_else(|| chrono::Local::now().date_naive())
    }

    /// How long writes wait for the lock.
    pub(super) fn lock_wait(&self) -> Duration {
        self.shared.config.lock_wait
    }

    /// How long a search may wait when there is no index yet to answer
    /// from (with one, it never waits): at least three seconds.
    pub(super) fn read_wait(&self) -> Duration {
        self.lock_wait().max(Duration::from_secs(3))
    }

    /// The model settings for compact and status.
    pub(super) fn settings(&self, hipo: &Hipo) -> hipo_core::Result<Settings> {
        hipo_core::resolve_llm(&hipo.config().llm, &self.shared.config.llm)
    }
}

const INSTRUCTIONS: &str = "hipo is this project's long-term memory: Markdown logs of past sessions (memory/YYYY-MM-DD.md), \
summarised daily → weekly → monthly → memory/ROOT.md. Before answering about past work, decisions, preferences or \
people, `recall` (or `search`) it; `timeline` answers \"what happened last week\"; `get` reads a hit's section. \
Record what future sessions need with `checkpoint` (a decision, a user preference, feedback, a reference).";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("hipo", env!("CARGO_PKG_VERSION"))
                .with_title("hipo memory")
                .with_description("Local long-term memory for AI agents"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    /// The router's call, but arguments that do not fit a tool's schema
    /// (a missing or mistyped field) are an invalid-params error, as are
    /// hipo's own checks, rather than the SDK's tool result.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        const SDK_PREFIX: &str = "failed to deserialize parameters: ";
        let tool = request.name.clone();
        let answer = self
            .tool_router
            .call(ToolCallContext::new(self, request, context))
            .await?;
        if let CallToolResponse::Complete(result) = &answer
            && result.is_error == Some(true)
            && let Some(why) = result
                .content
                .first()
                .and_then(|c| c.as_text())
                .and_then(|t| t.text.strip_prefix(SDK_PREFIX))
        {
            return Err(ErrorData::invalid_params(
                format!("{tool}: {why} (its inputSchema in tools/list says what it takes)"),
                None,
            ));
        }
        Ok(answer)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        // Clients list resources as they connect: no project (yet) is
        // nothing to attach, not a failing server.
        let found = self.project().map(|h| resources::list(h.root()));
        Ok(ListResourcesResult::with_all_items(
            found.unwrap_or_default(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let hipo = self
            .project()
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(resources::read(hipo.root(), &request.uri)?.into())
    }
}

/// Serves MCP on stdin and stdout until the client closes stdin (or the
/// connection breaks before `initialize`): both end quietly.
pub fn serve_stdio(config: Config) -> hipo_core::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("tokio runtime", e))?;
    runtime.block_on(async move {
        let (to_sdk, sdk_in) = tokio::io::duplex(64 * 1024);
        let (sdk_out, from_sdk) = tokio::io::duplex(64 * 1024);
        let (answers, answered) = tokio::sync::mpsc::unbounded_channel();
        let reader = tokio::spawn(frames::read(tokio::io::stdin(), to_sdk, answers));
        let writer = tokio::spawn(frames::write(from_sdk, answered, tokio::io::stdout()));
        let served = serve(config, sdk_in, sdk_out).await;
        // The SDK ended on its own (the client closed stdin, the usual
        // way, also ends the reader): stop reading. What was answered goes
        // out before the process ends.
        if !reader.is_finished() {
            reader.abort();
        }
        let _ = reader.await;
        let _ = writer.await;
        served
    })
}

/// The server on the SDK's side of [`frames`].
async fn serve(
    config: Config,
    input: tokio::io::DuplexStream,
    output: tokio::io::DuplexStream,
) -> hipo_core::Result<()> {
    let running = match Server::new(config).serve((input, output)).await {
        Ok(running) => running,
        // The client went away before (or while) initializing.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(Error::Usage(format!("mcp: {e}"))),
    };
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| Error::Usage(format!("mcp: {e}")))
}
