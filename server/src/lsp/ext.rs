//! The custom protocol (spec/interfaces.md §3.1, spec/sessions.md §2.10–§2.11), declared once: every
//! `alisio/*` method is a type with its `METHOD`, `Params` and `Result` (rust-analyzer's
//! `lsp_ext.rs` is the model). The VS Code client mirrors this file in
//! `editors/vscode/src/lsp_ext.ts`, the Neovim plugin in `editors/neovim/lua/alisio/ext.lua`;
//! a test below fails when the three lists of methods differ.
//!
//! Results the core already builds as JSON of a documented shape (the explain object of
//! spec/interfaces.md §1.1, a catalog entry of spec/interfaces.md §1.2, the ContextReport of spec/governor.md §6.5, the
//! transcript export of `sessions show --json`) are carried as `serde_json::Value` inside a
//! named type: the core owns those shapes and their tests, the protocol owns the envelope.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::ls_types::{NumberOrString, Uri};

/// Declares a custom request: an uninhabited type with its `METHOD`, `Params` and `Result`.
macro_rules! request {
    ($(#[$attr:meta])* $name:ident: $method:literal, $params:ty => $result:ty) => {
        $(#[$attr])*
        pub enum $name {}
        impl Request for $name {
            type Params = $params;
            type Result = $result;
            const METHOD: &'static str = $method;
        }
    };
}

/// Every custom method, client → server requests first, then what the server sends.
pub const METHODS: &[&str] = &[
    ContextExplain::METHOD,
    SkillCatalog::METHOD,
    SetSkillEnabled::METHOD,
    RunSession::METHOD,
    ContextReport::METHOD,
    ListSessions::METHOD,
    SessionTranscript::METHOD,
    InitAgentsMd::METHOD,
    Approve::METHOD,
    SessionEvent::METHOD,
];

// ---- instructions and skills ------------------------------------------------------------

request! {
    /// `alisio/contextExplain {uri, host?}` → the explain object (spec/interfaces.md §1.1).
    ContextExplain: "alisio/contextExplain", ContextExplainParams => Value
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ContextExplainParams {
    pub uri: Uri,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<alisio_base::config::Host>,
}

request! {
    /// `alisio/skillCatalog {uri?}` → the catalog entries (spec/interfaces.md §1.2).
    SkillCatalog: "alisio/skillCatalog", SkillCatalogParams => Vec<Value>
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SkillCatalogParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<Uri>,
}

request! {
    /// `alisio/setSkillEnabled {id, enabled}` → the updated catalog entry (spec/skills.md §3.3).
    SetSkillEnabled: "alisio/setSkillEnabled", SetSkillEnabledParams => Value
}

#[derive(Debug, Serialize, Deserialize)]
pub struct SetSkillEnabledParams {
    pub id: String,
    pub enabled: bool,
}

// ---- agent sessions ---------------------------------------------------------------------

request! {
    /// `alisio/runSession` (spec/sessions.md §2.11).
    RunSession: "alisio/runSession", RunSessionParams => RunSessionResult
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSessionParams {
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// `"default"` or `"coordinator"` (spec/sessions.md §12.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_done_token: Option<NumberOrString>,
    /// Files or ranges from the editor, sent with the prompt (spec/sessions.md §4.6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

/// One attachment: a document, or lines of it (`range`: an LSP range; whole lines are taken,
/// and an end at character 0 of a later line stops before that line).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attachment {
    pub uri: Uri,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<tower_lsp_server::ls_types::Range>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatusName {
    Completed,
    Failed,
    Cancelled,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSessionResult {
    pub session_id: String,
    pub status: RunStatusName,
    /// The last assistant text of the run (empty when none).
    pub text: String,
    /// The ContextReport of the session's next request (spec/governor.md §6.5).
    pub report: Value,
}

request! {
    /// `alisio/contextReport {sessionId}` → the ContextReport (spec/governor.md §6.5).
    ContextReport: "alisio/contextReport", SessionIdParams => Value
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIdParams {
    pub session_id: String,
}

request! {
    /// `alisio/listSessions {}` → the workspace's root sessions, most recent first.
    ListSessions: "alisio/listSessions", Option<Value> => Vec<SessionSummary>
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub session_id: String,
    pub title: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub messages: u64,
}

request! {
    /// `alisio/sessionTranscript {sessionId}` → the transcript export, the same object as
    /// `alisio-ls sessions show <id> --json` (schemaVersion, session, messages).
    SessionTranscript: "alisio/sessionTranscript", SessionIdParams => Value
}

request! {
    /// `alisio/initAgentsMd {uri}` → the root AGENTS.md that `alisio-ls init` would write, for the
    /// editor to show in a diff before it writes (spec/instructions.md §9).
    InitAgentsMd: "alisio/initAgentsMd", super::init::InitParams => Value
}

// ---- server → client --------------------------------------------------------------------

request! {
    /// `alisio/approve`: the server asks the editor to approve one call (spec/sessions.md §4.4).
    Approve: "alisio/approve", ApproveParams => ApproveResult
}

/// The session core's request, serialized as it is: one type for one concept.
pub type ApproveParams = alisio_session::ApprovalRequest;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    AllowOnce,
    AllowSession,
    Deny,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApproveResult {
    pub decision: Decision,
}

/// `alisio/sessionEvent {sessionId, event}`: one event envelope of spec/sessions.md §8.
pub enum SessionEvent {}
impl Notification for SessionEvent {
    type Params = SessionEventParams;
    const METHOD: &'static str = "alisio/sessionEvent";
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEventParams {
    pub session_id: Value,
    pub event: Value,
}

#[cfg(test)]
#[path = "ext_tests.rs"]
mod tests;
