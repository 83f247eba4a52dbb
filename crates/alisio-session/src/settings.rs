//! Session settings (spec/sessions.md §1.8, §2.1, §5.1, §6.1): read from the configuration layers
//! (security-sensitive keys never from project config), then overridden by CLI flags or
//! `alisio/runSession` params.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use super::approvals::Policy;
use super::providers::ProviderSetupError;
use super::tools::Effect;
use alisio_base::config::{ConfigReader, GovernorMode, Layer, Settings};

/// Settings from configuration files and the editor.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// The merged `provider` object (before run overrides).
    pub provider: Map<String, Value>,
    pub max_turns: u32,
    pub max_tokens: Option<u64>,
    pub max_context_chars: u64,
    pub max_output_tokens: Option<u32>,
    pub compaction_auto: bool,
    pub compaction_threshold: f64,
    pub keep_turns: u32,
    pub compaction_max_output: Option<u32>,
    pub write: Policy,
    pub process: Policy,
    pub approval_timeout_ms: u64,
    pub pass_env: Vec<String>,
    /// `process.sandbox` (spec/sessions.md §10.4; user config, init options, `--sandbox`).
    pub sandbox: alisio_sandbox::Mode,
    /// `process.network` (user config, init options).
    pub network: bool,
    pub external_dirs: Vec<PathBuf>,
    pub subagents: bool,
    pub subagent_max_turns: u32,
    pub tasks_max_running: usize,
    pub tasks_max_run_ms: u64,
    pub tasks_max_output: u64,
    /// `session.mode` (spec/sessions.md §12.1).
    pub mode: SessionMode,
    /// `session.relay` (spec/sessions.md §12.5); `None`: on in coordinator mode, else off.
    pub relay: Option<bool>,
    /// `relay.atFraction` (spec/sessions.md §12.5), 0.1–0.95.
    pub relay_at_fraction: f64,
}

/// The session mode (spec/sessions.md §12.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SessionMode {
    /// Every tool the approvals allow.
    #[default]
    Default,
    /// The root only decomposes, delegates, reads reports and decides.
    Coordinator,
}

impl SessionMode {
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "default" => Some(Self::Default),
            "coordinator" => Some(Self::Coordinator),
            _ => None,
        }
    }

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Coordinator => "coordinator",
        }
    }
}

impl SessionConfig {
    /// Whether the relay is on for a root session in `mode` (spec/sessions.md §12.5).
    #[must_use]
    pub fn relay_on(&self, mode: SessionMode) -> bool {
        self.relay.unwrap_or(mode == SessionMode::Coordinator)
    }
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            provider: Map::new(),
            max_turns: 50,
            max_tokens: None,
            max_context_chars: 800_000,
            max_output_tokens: None,
            compaction_auto: true,
            compaction_threshold: 0.85,
            keep_turns: 2,
            compaction_max_output: None,
            write: Policy::Ask,
            process: Policy::Ask,
            approval_timeout_ms: 300_000,
            pass_env: Vec::new(),
            sandbox: alisio_sandbox::Mode::WorkspaceWrite,
            network: false,
            external_dirs: Vec::new(),
            subagents: true,
            subagent_max_turns: 30,
            tasks_max_running: 8,
            tasks_max_run_ms: 3_600_000,
            tasks_max_output: 2_097_152,
            mode: SessionMode::Default,
            relay: None,
            relay_at_fraction: 0.7,
        }
    }
}

impl SessionConfig {
    /// The approval policies a run gets from this configuration and its flags (spec/sessions.md §4.2).
    #[must_use]
    pub fn policies(
        &self,
        allow: &[Effect],
        read_only: bool,
        headless: bool,
    ) -> super::approvals::Policies {
        super::approvals::Policies {
            write: self.write,
            process: self.process,
        }
        .effective(allow, read_only, headless)
    }

    /// Reads the layers (lowest precedence first) through the one configuration reader: every
    /// key is declared in `alisio_base::config`'s key table with its type, bounds and scope, an
    /// invalid value is a configuration problem (CLI exit 2, server `config-invalid`) and never
    /// read, and the security-sensitive keys are never read from project configuration
    /// (spec/sessions.md §1.8).
    #[must_use]
    pub fn from_layers(layers: &[Layer]) -> Self {
        let r = ConfigReader::new(layers);
        let d = Self::default();
        Self {
            provider: r.merged("provider"),
            max_turns: r.u32("limits.maxTurns").unwrap_or(d.max_turns),
            max_tokens: r.u64("limits.maxTokens").or(d.max_tokens),
            max_context_chars: r
                .u64("limits.maxContextChars")
                .unwrap_or(d.max_context_chars),
            max_output_tokens: r.u32("limits.maxOutputTokens").or(d.max_output_tokens),
            compaction_auto: r.bool("compaction.auto").unwrap_or(d.compaction_auto),
            compaction_threshold: r
                .f64("compaction.threshold")
                .unwrap_or(d.compaction_threshold),
            keep_turns: r.u32("compaction.keepTurns").unwrap_or(d.keep_turns),
            compaction_max_output: r
                .u32("compaction.maxOutputTokens")
                .or(d.compaction_max_output),
            // `approvals.write = "sandboxed"` is accepted and means `ask` (spec/sessions.md §4.2:
            // write tools are not sandboxed).
            write: r
                .str("approvals.write")
                .and_then(Policy::parse)
                .filter(|p| *p != Policy::Sandboxed)
                .unwrap_or(d.write),
            process: r
                .str("approvals.process")
                .and_then(Policy::parse)
                .unwrap_or(d.process),
            approval_timeout_ms: r
                .u64("approvals.timeoutMs")
                .unwrap_or(d.approval_timeout_ms),
            pass_env: r.strings("process.passEnv").unwrap_or(d.pass_env),
            sandbox: r
                .str("process.sandbox")
                .and_then(alisio_sandbox::Mode::parse)
                .unwrap_or(d.sandbox),
            network: r.bool("process.network").unwrap_or(d.network),
            external_dirs: r
                .strings("externalDirectories")
                .map_or(d.external_dirs, |v| {
                    v.into_iter().map(PathBuf::from).collect()
                }),
            subagents: r.bool("subagents.enabled").unwrap_or(d.subagents),
            subagent_max_turns: r.u32("subagents.maxTurns").unwrap_or(d.subagent_max_turns),
            tasks_max_running: r
                .u64("tasks.maxRunning")
                .and_then(|v| usize::try_from(v).ok())
                .unwrap_or(d.tasks_max_running),
            tasks_max_run_ms: r.u64("tasks.maxRunMs").unwrap_or(d.tasks_max_run_ms),
            tasks_max_output: r.u64("tasks.maxOutputBytes").unwrap_or(d.tasks_max_output),
            mode: r
                .str("session.mode")
                .and_then(SessionMode::parse)
                .unwrap_or(d.mode),
            relay: r.bool("session.relay").or(d.relay),
            relay_at_fraction: r.f64("relay.atFraction").unwrap_or(d.relay_at_fraction),
        }
    }
}

/// The provider kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProviderKind {
    OpenAi,
    Anthropic,
    Script,
}

impl ProviderKind {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Script => "script",
        }
    }
}

/// The resolved `provider` object (spec/sessions.md §5.1).
#[derive(Clone, Debug)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: Option<String>,
    pub api_key_env: String,
    pub context_window: Option<u64>,
    pub max_output_tokens: u32,
    pub temperature: Option<f64>,
    pub max_tokens_param: String,
    pub stream_usage: bool,
    pub headers: Vec<(String, String)>,
    pub connect_timeout: Duration,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
    pub max_retries: u32,
    pub retry_base_ms: u64,
    pub script: Option<PathBuf>,
    pub prompt_cache: bool,
    /// How long the provider keeps a prompt cache after its last use (spec/sessions.md §5.1):
    /// a request sent later finds it cold, and the governor rewrites for free there
    /// (spec/governor.md §2.7). `None`: never assumed cold.
    pub prompt_cache_ttl: Option<Duration>,
}

impl ProviderConfig {
    /// Defaults by kind, then the object's keys.
    ///
    /// # Errors
    /// An unknown kind.
    pub fn from_json(p: &Map<String, Value>) -> Result<Self, ProviderSetupError> {
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(String::from);
        let u = |k: &str| p.get(k).and_then(Value::as_u64);
        let kind = match s("kind").as_deref() {
            None | Some("openai") => ProviderKind::OpenAi,
            Some("anthropic") => ProviderKind::Anthropic,
            Some("script") => ProviderKind::Script,
            Some(o) => return Err(ProviderSetupError::UnknownKind(o.to_string())),
        };
        let (url, key) = match kind {
            ProviderKind::Anthropic => ("https://api.anthropic.com", "ANTHROPIC_API_KEY"),
            _ => ("https://api.openai.com/v1", "OPENAI_API_KEY"),
        };
        let model = s("model");
        let window = u("contextWindow").filter(|w| *w <= 2_000_000).or_else(|| {
            (kind == ProviderKind::Anthropic
                && model.as_deref().is_some_and(|m| m.starts_with("claude-")))
            .then_some(200_000)
        });
        let headers = p
            .get("headers")
            .and_then(Value::as_object)
            .map(|h| {
                h.iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            kind,
            base_url: s("baseUrl").unwrap_or_else(|| url.into()),
            model,
            api_key_env: s("apiKeyEnv").unwrap_or_else(|| key.into()),
            context_window: window,
            max_output_tokens: u("maxOutputTokens")
                .and_then(|v| u32::try_from(v).ok())
                .unwrap_or(8192),
            temperature: p.get("temperature").and_then(Value::as_f64),
            max_tokens_param: s("maxTokensParam").unwrap_or_else(|| "max_tokens".into()),
            stream_usage: p
                .get("streamUsage")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            headers,
            connect_timeout: Duration::from_millis(u("connectTimeoutMs").unwrap_or(10_000)),
            idle_timeout: Duration::from_millis(u("idleTimeoutMs").unwrap_or(300_000)),
            request_timeout: Duration::from_millis(u("requestTimeoutMs").unwrap_or(1_800_000)),
            max_retries: u("maxRetries").map_or(3, |v| v as u32),
            retry_base_ms: u("retryBaseMs").unwrap_or(1000),
            script: s("script").map(PathBuf::from),
            // Anthropic's `ephemeral` cache, which the adapter sets, lives 5 minutes from its last
            // use; OpenAI states no lifetime (recorded Codex sessions read from cache after a
            // 45-minute pause), so it is never assumed cold unless configured.
            prompt_cache_ttl: Some(u("promptCacheTtlSeconds").unwrap_or(
                if kind == ProviderKind::Anthropic {
                    300
                } else {
                    0
                },
            ))
            .filter(|s| *s > 0)
            .map(Duration::from_secs),
            prompt_cache: p
                .get("promptCache")
                .and_then(Value::as_bool)
                .unwrap_or(true),
        })
    }

    /// What the store records: `{kind, baseUrl, model, apiKeyEnv}` (the variable's name only).
    #[must_use]
    pub fn stored(&self) -> Value {
        serde_json::json!({"kind":self.kind.as_str(),"baseUrl":if self.kind == ProviderKind::Script { Value::Null } else { Value::String(self.base_url.clone()) },
            "model":self.model,"apiKeyEnv":if self.kind == ProviderKind::Script { Value::Null } else { Value::String(self.api_key_env.clone()) }})
    }
}

/// Everything one run needs besides its callbacks.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub prompt: String,
    /// Attachment blocks from the editor (`governor::attachment::block`), sent as text parts of
    /// the user message before the prompt (spec/sessions.md §4.6).
    pub attachments: Vec<String>,
    /// Resume this session (full id or prefix of at least 8 chars).
    pub session_id: Option<String>,
    /// Canonical working directory (inside `root`).
    pub cwd: PathBuf,
    /// Canonical workspace root.
    pub root: PathBuf,
    pub state_dir: PathBuf,
    /// Resolved general settings (governor settings come from here).
    pub settings: Settings,
    pub governor: GovernorMode,
    pub config: SessionConfig,
    /// `--provider/--model/--base-url/--script` or `runSession.provider`/`model`, merged key by
    /// key over the configured provider.
    pub provider_overrides: Map<String, Value>,
    pub allow: Vec<Effect>,
    pub read_only: bool,
    /// CLI: true (ask becomes deny).
    pub headless: bool,
    pub add_dirs: Vec<PathBuf>,
    pub goal: Option<String>,
    pub criteria: Vec<(String, bool)>,
    pub max_turns: Option<u32>,
    /// `client`, `signal` or `parent`: the `run_cancelled` reason.
    pub cancel_reason: String,
    /// Kill background tasks when the run ends (CLI).
    pub kill_tasks_at_end: bool,
    /// `--mode` or `runSession.mode`; `None`: the stored mode of a resumed session, else
    /// `session.mode` (spec/sessions.md §12.1).
    pub mode: Option<SessionMode>,
    /// Set by the runner when a relay continues in a new session (spec/sessions.md §12.5).
    pub relay: Option<RelayLink>,
}

/// The link a relay starts a new session with (spec/sessions.md §12.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayLink {
    /// The session handing over.
    pub of: String,
    /// The id of the new session (chosen before the old one ends, which names it).
    pub id: String,
    /// The chain's title (the first link's).
    pub title: String,
}

impl RunOptions {
    /// Defaults for a workspace (tests and simple callers).
    #[must_use]
    pub fn new(prompt: &str, root: PathBuf, cwd: PathBuf, state_dir: PathBuf) -> Self {
        Self {
            prompt: prompt.to_string(),
            attachments: Vec::new(),
            session_id: None,
            cwd,
            root,
            state_dir,
            settings: Settings::default(),
            governor: GovernorMode::Off,
            config: SessionConfig::default(),
            provider_overrides: Map::new(),
            allow: Vec::new(),
            read_only: false,
            headless: true,
            add_dirs: Vec::new(),
            goal: None,
            criteria: Vec::new(),
            max_turns: None,
            cancel_reason: "client".into(),
            kill_tasks_at_end: true,
            mode: None,
            relay: None,
        }
    }
}
