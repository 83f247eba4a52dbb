//! The session runner (spec/sessions.md §2), one room per concern:
//!
//! - `lifecycle.rs`: [`run_session`] and its [`SessionRun`], the checks before a run, the
//!   session lock, the provider, reconciliation, `run_started`, the prompt, and the end
//!   (the `runs` row, the terminal event, the task table);
//! - `turn.rs`: the loop: one model turn after another, provider retries, truncation
//!   recovery, turn validation, the assistant message, the limits;
//! - `request.rs`: request building: system text, offered tools, invariant sources, the
//!   governor's projection, the ContextReport ([`request_parts`] is shared with `read.rs`);
//! - `calls.rs`: call execution: validation, nested instructions, scheduling, the journal,
//!   tool messages in call order;
//! - `approve.rs`: confinement and approvals of one call;
//! - `child.rs`: `task` calls as child sessions;
//! - `compaction/`: compaction and budget reduction before a turn.
//!
//! They share `Run`, whose fields are private to this module and its rooms.
//!
//! Where things go: what the model is sent (a new block, an attachment, a stored result read
//! back) is built in `request.rs`; what happens to a call and its result (storing, capping,
//! a new outcome) in `calls.rs` (`complete_slot`, `flush`); what the user is asked and shown
//! before a call runs in `approve.rs` (`summary`, `ask`); SQL only in `session/store/`.

mod approve;
mod calls;
mod child;
mod compaction;
mod error;
mod lifecycle;
mod marks;
mod relay;
mod request;
mod result_read;
mod turn;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

use super::SessionContext;
use super::approvals::{Approver, Policies, SessionGrants};
use super::events::Emitter;
use super::providers::{Provider, TokenUsage};
use super::run_governor::RunGovernor;
use super::settings::{ProviderConfig, RunOptions};
use super::store::{SessionRow, Store};
use super::tools::ToolCtx;
use alisio_governor::stored::SessionOptions;
pub use error::RunError;
pub use lifecycle::{SessionRun, build_provider, provider_config, run_session, title_of};
use request::ActiveTranscript;
pub use request::{
    COORDINATOR_RULES, DELEGATE, PREAMBLE, RECOVERY_NOTE, SUBAGENT, Seat, WORKER_RULES,
    attached_of, joined_of, offered, preamble_block, request_parts, tools_json, worker_text,
};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    Completed,
    Failed,
    Cancelled,
}

impl RunStatus {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// The final result (`alisio/runSession` result, CLI exit code).
#[derive(Clone, Debug)]
pub struct RunResult {
    pub session_id: String,
    pub run_id: String,
    pub status: RunStatus,
    /// The last assistant text of the run (empty when none).
    pub text: String,
    pub code: Option<String>,
    pub error: Option<String>,
    pub turns: u32,
    pub tokens: u64,
    /// The ContextReport of the next request.
    pub report: alisio_governor::report::ContextReport,
    /// A relay ended this session's run: the next session's id and its first message
    /// (spec/sessions.md §12.5). `run_session` continues there; its result is the last link's.
    pub relay: Option<(String, String)>,
}

/// A failure before the run row exists: no events were emitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PreRunError {
    /// Usage errors (exit 2; LSP -32602).
    #[error("{0}")]
    Usage(String),
    /// `Session <id> is busy in another run` (LSP -32002).
    #[error("{0}")]
    Busy(String),
    /// Unknown or ambiguous session, other workspace, key variable, model missing, store…
    #[error("{0}")]
    Other(String),
}

/// The store's busy case stays `Busy`; every other store error is `Other`.
impl From<super::store::StoreError> for PreRunError {
    fn from(e: super::store::StoreError) -> Self {
        match e {
            super::store::StoreError::Busy(_) => Self::Busy(e.to_string()),
            e => Self::Other(e.to_string()),
        }
    }
}

impl PreRunError {
    #[must_use]
    pub fn message(&self) -> &str {
        match self {
            Self::Usage(m) | Self::Busy(m) | Self::Other(m) => m,
        }
    }
}

/// What a run has done so far; a new run (root or child) starts from the default.
#[derive(Default)]
struct Progress {
    turns: u32,
    tokens: u64,
    usage: TokenUsage,
    /// Requests built so far (every built request counts).
    request_no: u64,
    /// The last assistant text.
    last_text: String,
    /// The last answer was cut at the output limit and had no calls.
    truncated: bool,
    /// When the last request was built (ms since the epoch): the provider's cache was last
    /// used then.
    last_request_ms: Option<u128>,
    /// The usage of the answer that ends the run without a turn (a third cut-off answer, a second
    /// invalid turn): the provider billed it, and `run_failed` carries it (spec/sessions.md §8).
    ended_by: Option<crate::events::TurnUsage>,
}

impl Progress {
    /// Counts one answer's usage. The figures come from the endpoint: saturate, never overflow.
    fn count(&mut self, u: &TokenUsage) {
        self.tokens = self.tokens.saturating_add(u.input.saturating_add(u.output));
        self.usage.input = self.usage.input.saturating_add(u.input);
        self.usage.output = self.usage.output.saturating_add(u.output);
        self.usage.cache_read = self.usage.cache_read.saturating_add(u.cache_read);
        self.usage.cache_write = self.usage.cache_write.saturating_add(u.cache_write);
    }
}

/// A run in progress.
pub(crate) struct Run<'a> {
    options: &'a RunOptions,
    store: Store,
    emitter: Emitter<'a>,
    session_id: String,
    run_id: String,
    session: SessionRow,
    provider: Box<dyn Provider>,
    provider_config: ProviderConfig,
    model: String,
    tool_context: Arc<ToolCtx>,
    context: Arc<dyn SessionContext>,
    approver: Option<&'a dyn Approver>,
    grants: Arc<Mutex<SessionGrants>>,
    policies: Policies,
    cancel: Arc<AtomicBool>,
    progress: Progress,
    governor: RunGovernor,
    max_turns: u32,
    max_tokens: u64,
    max_output: u32,
    compacted_this_turn: bool,
    /// The context window (provider config or script header).
    window: Option<u64>,
    /// A sub-agent's run (spec/sessions.md §9): no `task` tool, the sub-agent paragraph in the system text.
    is_child: bool,
    /// The session mode (spec/sessions.md §12.1); a child has its root's.
    mode: crate::settings::SessionMode,
    /// The relay is on (spec/sessions.md §12.5): root sessions only.
    relay_on: bool,
    /// A forked skill's `allowed-tools` as alisio tool names (spec/sessions.md §12.7).
    tool_filter: Option<Vec<String>>,
    /// Set by a relay: the next session's id and its first message.
    relay_next: Option<(String, String)>,
    /// The prompt after a `/skill:` expansion (text, displayId), computed before the run starts.
    expanded: Option<(String, Option<String>)>,
    /// The active transcript as last read, with per-row sizes and parsed values.
    transcript: ActiveTranscript,
    /// When the current request's first text fragment arrived (`ttftMs`).
    first_text: std::cell::Cell<Option<Instant>>,
    /// Snapshots for checkpoints, and approved writes as the user reviewed them.
    edits: marks::Edits,
    /// The nested files of the turn's attachment, recorded in `deliveries` with the tool
    /// message that carries them.
    nested: Vec<super::store::Delivered>,
}

impl Run<'_> {
    /// The session options object as stored now (the row read at run start when the store
    /// fails); writes merge into it.
    fn stored_options(&self) -> Value {
        self.store
            .session(&self.session_id)
            .ok()
            .flatten()
            .map_or_else(|| self.session.options.clone(), |s| s.options)
    }

    /// The session options as stored now, decoded.
    fn options(&self) -> SessionOptions {
        SessionOptions::from_value(&self.stored_options())
    }

    /// The session's working directory.
    fn cwd(&self) -> PathBuf {
        PathBuf::from(&self.session.cwd)
    }

    /// Emits one durable event of this session (no parent), stored before it is sent.
    fn durable_event(&mut self, event: super::events::Event) -> Result<(), RunError> {
        let sid = self.session_id.clone();
        Ok(self.emitter.durable(
            &mut self.store,
            vec![super::events::Pending::new(&sid, None, event)],
        )?)
    }
}
