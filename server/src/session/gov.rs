//! The runner's side of the governor (sessions.md §7): what it hands the governor per request,
//! and what it gets back (projected messages, invariants block, `context_governed` payload).

use serde_json::{Value, json};

use super::store::MsgRow;
use crate::config::GovernorMode;

/// Invariant sources the runner owns (§4.5, §7).
#[derive(Clone, Debug, Default)]
pub struct Sources {
    pub quotes: Vec<String>,
    pub goal: Option<String>,
    pub criteria: Vec<(String, bool)>,
    pub grants: Vec<String>,
    pub external_dirs: usize,
}

/// What a built request sends.
#[derive(Clone, Debug, Default)]
pub struct Projected {
    /// Messages in the stored neutral form, after the projection.
    pub messages: Vec<Value>,
    /// The invariants block (mode `on`, after the first checkpoint).
    pub invariants: Option<String>,
    /// The `context_governed` payload (modes `shadow`, `on`).
    pub event: Option<Value>,
}

/// Per-session governor state kept by the runner.
#[derive(Debug)]
pub struct Gov {
    pub mode: GovernorMode,
    pub settings: crate::config::Settings,
}

/// Request-level parts measured by the report.
#[derive(Clone, Debug, Default)]
pub struct Parts {
    pub system: String,
    pub instructions: Vec<(String, String)>,
    pub skills: Option<String>,
    pub tools: String,
}

impl Gov {
    #[must_use]
    pub fn new(mode: GovernorMode, settings: &crate::config::Settings) -> Self {
        Self { mode, settings: settings.clone() }
    }

    /// Projects one request.
    pub fn project(&mut self, _session_id: &str, active: &[MsgRow], _parts: &Parts, _request: u64, _recovery: bool, _sources: &Sources) -> Projected {
        Projected { messages: active.iter().map(MsgRow::value).collect(), invariants: None, event: None }
    }

    /// The ContextReport of the next request (dry).
    #[must_use]
    pub fn report(&self, session_id: &str, _active: &[MsgRow], _parts: &Parts, _sources: &Sources) -> Value {
        json!({"sessionId":session_id,"mode":self.mode.as_str()})
    }

    /// Records a stored result in the usage ledger.
    pub fn observe(&mut self, _call_id: &str) {}

    /// The stored history was rewritten in place (budget reduction).
    pub fn invalidate(&mut self) {}

    /// The extra summarizer field request (mode `on`), appended to the summarizer prompt.
    #[must_use]
    pub fn summarizer_extra(&self) -> Option<String> {
        None
    }

    /// New `contextInvariants` after a compaction.
    #[must_use]
    pub fn accept_quotes(&self, _stored: &Value, _returned: Option<&Value>, _summarized: &[MsgRow]) -> Option<Value> {
        None
    }
}
