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

/// `alisio/contextExplain {uri, host?}` → the explain object (spec/interfaces.md §1.1).
pub enum ContextExplain {}
impl Request for ContextExplain {
    type Params = ContextExplainParams;
    type Result = Value;
    const METHOD: &'static str = "alisio/contextExplain";
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ContextExplainParams {
    pub uri: Uri,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<crate::config::Host>,
}

/// `alisio/skillCatalog {uri?}` → the catalog entries (spec/interfaces.md §1.2).
pub enum SkillCatalog {}
impl Request for SkillCatalog {
    type Params = SkillCatalogParams;
    type Result = Vec<Value>;
    const METHOD: &'static str = "alisio/skillCatalog";
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SkillCatalogParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<Uri>,
}

/// `alisio/setSkillEnabled {id, enabled}` → the updated catalog entry (spec/skills.md §3.3).
pub enum SetSkillEnabled {}
impl Request for SetSkillEnabled {
    type Params = SetSkillEnabledParams;
    type Result = Value;
    const METHOD: &'static str = "alisio/setSkillEnabled";
}

#[derive(Debug, Serialize, Deserialize)]
pub struct SetSkillEnabledParams {
    pub id: String,
    pub enabled: bool,
}

// ---- agent sessions ---------------------------------------------------------------------

/// `alisio/runSession` (spec/sessions.md §2.11).
pub enum RunSession {}
impl Request for RunSession {
    type Params = RunSessionParams;
    type Result = RunSessionResult;
    const METHOD: &'static str = "alisio/runSession";
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

/// `alisio/contextReport {sessionId}` → the ContextReport (spec/governor.md §6.5).
pub enum ContextReport {}
impl Request for ContextReport {
    type Params = SessionIdParams;
    type Result = Value;
    const METHOD: &'static str = "alisio/contextReport";
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIdParams {
    pub session_id: String,
}

/// `alisio/listSessions {}` → the workspace's root sessions, most recent first.
pub enum ListSessions {}
impl Request for ListSessions {
    type Params = Option<Value>;
    type Result = Vec<SessionSummary>;
    const METHOD: &'static str = "alisio/listSessions";
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

/// `alisio/sessionTranscript {sessionId}` → the transcript export, the same object as
/// `alisio-ls sessions show <id> --json` (schemaVersion, session, messages).
pub enum SessionTranscript {}
impl Request for SessionTranscript {
    type Params = SessionIdParams;
    type Result = Value;
    const METHOD: &'static str = "alisio/sessionTranscript";
}

/// `alisio/initAgentsMd {uri}` → the root AGENTS.md that `alisio-ls init` would write, for the
/// editor to show in a diff before it writes (spec/instructions.md §9).
pub enum InitAgentsMd {}
impl Request for InitAgentsMd {
    type Params = super::init::InitParams;
    type Result = Value;
    const METHOD: &'static str = "alisio/initAgentsMd";
}

// ---- server → client --------------------------------------------------------------------

/// `alisio/approve`: the server asks the editor to approve one call (spec/sessions.md §4.4).
pub enum Approve {}
impl Request for Approve {
    type Params = ApproveParams;
    type Result = ApproveResult;
    const METHOD: &'static str = "alisio/approve";
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApproveParams {
    pub session_id: String,
    pub call_id: String,
    pub tool: String,
    /// `write`, `process` or `external`.
    pub effect: String,
    pub summary: String,
    pub paths: Vec<String>,
    /// What the call would do, for the editor to show before it answers (docs/editors.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Value>,
    /// `{mode, network}` of the sandbox a `process` call runs in (spec/sessions.md §10.4), else null.
    #[serde(default)]
    pub sandbox: Value,
}

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
