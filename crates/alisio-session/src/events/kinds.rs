//! Every event type of spec/sessions.md §8.2 and its payload, declared once: the emitter stores
//! and sends [`Event`] (serialized adjacently tagged, `{"type": …, "data": {…}}`), and the
//! protocol test of the editors (`server/src/lsp/ext_shapes_tests.rs`) checks the TypeScript
//! `SessionEventData` and the Neovim renderer against these shapes. Field order is the wire
//! order: the stored `data` and the notification keep the bytes they had as `json!` values.

use serde::Serialize;

use alisio_governor::events::ContextGoverned;
pub use alisio_governor::events::ContextReduced;
use alisio_governor::figures::Figures;

/// One session event (spec/sessions.md §8.2).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum Event {
    RunStarted(RunStarted),
    SandboxUnavailable(SandboxUnavailable),
    SessionReconciled(SessionReconciled),
    TextDelta(TextDelta),
    ToolStarted(ToolStarted),
    ApprovalRequested(ApprovalRequested),
    ApprovalResolved(ApprovalResolved),
    ToolCompleted(ToolCompleted),
    TurnCompleted(TurnCompleted),
    RequestRetry(RequestRetry),
    ResponseTruncated(ResponseTruncated),
    TruncationRecovery(TruncationRecovery),
    CompactionStarted(CompactionStarted),
    CompactionCompleted(CompactionCompleted),
    CompactionSkipped(CompactionSkipped),
    CompactionFailed(CompactionFailed),
    ContextReduced(ContextReduced),
    /// Boxed: the largest payload by far.
    ContextGoverned(Box<ContextGovernedEvent>),
    SessionRelayed(SessionRelayed),
    RunCompleted(RunCompleted),
    RunFailed(RunFailed),
    RunCancelled(RunCancelled),
}

impl Event {
    /// Every `type`, in the order of spec/sessions.md §8.2 (`session_relayed` is §12.5's).
    pub const TYPES: [&'static str; 22] = [
        "run_started",
        "sandbox_unavailable",
        "session_reconciled",
        "text_delta",
        "tool_started",
        "approval_requested",
        "approval_resolved",
        "tool_completed",
        "turn_completed",
        "request_retry",
        "response_truncated",
        "truncation_recovery",
        "compaction_started",
        "compaction_completed",
        "compaction_skipped",
        "compaction_failed",
        "context_reduced",
        "context_governed",
        "session_relayed",
        "run_completed",
        "run_failed",
        "run_cancelled",
    ];

    /// The event's `type` (the serde tag).
    #[must_use]
    pub const fn type_name(&self) -> &'static str {
        Self::TYPES[match self {
            Self::RunStarted(_) => 0,
            Self::SandboxUnavailable(_) => 1,
            Self::SessionReconciled(_) => 2,
            Self::TextDelta(_) => 3,
            Self::ToolStarted(_) => 4,
            Self::ApprovalRequested(_) => 5,
            Self::ApprovalResolved(_) => 6,
            Self::ToolCompleted(_) => 7,
            Self::TurnCompleted(_) => 8,
            Self::RequestRetry(_) => 9,
            Self::ResponseTruncated(_) => 10,
            Self::TruncationRecovery(_) => 11,
            Self::CompactionStarted(_) => 12,
            Self::CompactionCompleted(_) => 13,
            Self::CompactionSkipped(_) => 14,
            Self::CompactionFailed(_) => 15,
            Self::ContextReduced(_) => 16,
            Self::ContextGoverned(_) => 17,
            Self::SessionRelayed(_) => 18,
            Self::RunCompleted(_) => 19,
            Self::RunFailed(_) => 20,
            Self::RunCancelled(_) => 21,
        }]
    }

    /// The payload alone, as JSON (what the store's `events.data` holds).
    #[must_use]
    pub fn data(&self) -> serde_json::Value {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(mut m)) => m.remove("data").unwrap_or_default(),
            _ => serde_json::Value::Null,
        }
    }
}

/// `{mode, network}` of the process sandbox (spec/sessions.md §10.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SandboxState {
    pub mode: &'static str,
    pub network: bool,
}

impl SandboxState {
    #[must_use]
    pub fn of(sandbox: &alisio_sandbox::Sandbox) -> Self {
        Self {
            mode: sandbox.mode.as_str(),
            network: sandbox.network,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    pub model: String,
    pub provider: &'static str,
    pub governor: &'static str,
    pub resumed: bool,
    pub messages: usize,
    pub cwd: String,
    pub sandbox: Option<SandboxState>,
    /// The provider's prompt-cache lifetime this run assumes (spec/sessions.md §5.1
    /// `provider.promptCacheTtlSeconds`; 0: never), so that `audit` judges an expiry as the
    /// runner did.
    pub prompt_cache_ttl_seconds: u64,
    /// The session a relay continues (spec/sessions.md §12.5); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay_of: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SandboxUnavailable {
    pub requested: &'static str,
    /// Always `off`.
    pub mode: &'static str,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReconciled {
    pub interrupted_runs: usize,
    pub calls: Vec<ReconciledCall>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReconciledCall {
    pub id: String,
    pub name: String,
    pub outcome: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextDelta {
    pub turn: u32,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolStarted {
    pub id: String,
    pub name: String,
    /// The raw JSON string the model wrote.
    pub arguments: String,
    /// Null for a tool the session does not offer.
    pub effect: Option<&'static str>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequested {
    pub call_id: String,
    pub tool: String,
    pub effect: String,
    pub summary: String,
    pub paths: Vec<String>,
    /// Null unless the effect is `process`.
    pub sandbox: Option<SandboxState>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalResolved {
    pub call_id: String,
    pub decision: &'static str,
    pub source: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCompleted {
    pub id: String,
    pub name: String,
    pub is_error: bool,
    pub outcome: String,
    pub duration_ms: u64,
    /// The first 2,000 characters of the result.
    pub preview: String,
    /// The sub-session of a `task` call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child_session_id: Option<String>,
}

/// A model turn's usage (spec/sessions.md §1.4 `usage`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub estimated: bool,
}

/// A run's summed usage (`run_completed`; no `estimated`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnCompleted {
    pub turn: u32,
    pub calls: usize,
    pub stop_reason: &'static str,
    pub model: String,
    pub usage: TurnUsage,
    /// Cumulative for the run.
    pub tokens: u64,
    pub duration_ms: u64,
    pub ttft_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestRetry {
    pub attempt: u32,
    pub of: u32,
    pub reason: &'static str,
    pub status: Option<u16>,
    pub delay_ms: u64,
    pub discarded_text: bool,
    /// The discarded answer's usage (spec/governor.md §11.11: the provider billed it); absent
    /// when no answer came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<TurnUsage>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseTruncated {
    pub turn: u32,
    pub max_output_tokens: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncationRecovery {
    pub attempt: u32,
    pub of: u32,
    pub max_output_tokens: u32,
    /// The cut-off answer's usage (spec/governor.md §11.11: the provider billed it).
    pub usage: TurnUsage,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CompactionStarted {
    /// `auto` or `budget`.
    pub reason: &'static str,
    pub before: u64,
    pub messages: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionCompleted {
    pub reason: &'static str,
    pub before: u64,
    pub after: u64,
    pub replaced: usize,
    pub structured: bool,
    pub summarized_tokens: u64,
    pub checkpoint_tokens: u64,
    pub partial: bool,
    /// The summary request's usage (spec/governor.md §11.11).
    pub usage: TurnUsage,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CompactionSkipped {
    pub reason: &'static str,
    pub before: u64,
    pub detail: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CompactionFailed {
    pub reason: &'static str,
    pub error: String,
    /// The summary request's usage when an answer came (empty or cut off; spec/governor.md
    /// §11.11).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<TurnUsage>,
}

/// `context_governed` (spec/governor.md §7.1): the governor's figures and this request's
/// cache-aware replay figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContextGovernedEvent {
    #[serde(flatten)]
    pub figures: ContextGoverned,
    pub replay: ReplayFigures,
}

/// One request's figures replayed without the governor and with it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ReplayFigures {
    pub off: Figures,
    pub governed: Figures,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRelayed {
    pub to: String,
    pub structured: bool,
    pub at_fraction: f64,
    /// The handoff request's usage (spec/governor.md §11.11; estimated when the provider
    /// reported none).
    pub usage: TurnUsage,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunCompleted {
    pub text: String,
    pub turns: u32,
    pub tokens: u64,
    pub usage: RunUsage,
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunFailed {
    pub error: Option<String>,
    pub code: Option<&'static str>,
    pub turns: u32,
    pub tokens: u64,
    /// The usage of the answer that ended the run (`output_truncated`: the third cut-off answer;
    /// `invalid_turn`: the second rejected turn); absent when no answer ended it. The provider
    /// billed it (spec/governor.md §11.11).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<TurnUsage>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunCancelled {
    pub reason: String,
    /// Always `Cancelled`.
    pub error: &'static str,
}
