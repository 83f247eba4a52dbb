//! The custom protocol (spec/interfaces.md §3.1, spec/sessions.md §2.10–§2.11), declared once: every
//! `alisio/*` method is a type with its `METHOD`, `Params` and `Result` (rust-analyzer's
//! `lsp_ext.rs` is the model). The VS Code client mirrors this file in
//! `editors/vscode/src/lsp_ext.ts`, the Neovim plugin in `editors/neovim/lua/alisio/ext.lua`;
//! the tests in `ext_tests.rs` fail when the three lists of methods differ, and when a value
//! of a Rust `Params` or `Result` type does not fit the TypeScript interface declared for it.
//!
//! Every params and result is a Rust type; results the core builds (the explain object, a
//! catalog entry, the ContextReport, the transcript export) are the core's own types, the same
//! ones the CLI prints. The server binds each handler through its request type
//! (`lsp::Bind::request::<R, _>`: `R::Params` in, `R::Result` out), so a handler whose types
//! differ from the declaration does not compile.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::ls_types::{NumberOrString, Uri};

pub use alisio_governor::report::ContextReport as ContextReportResult;
pub use alisio_rules::families::StartupObject;
pub use alisio_rules::families::cost::{EntryCost, FamilyCost, NotLoadedFile};
pub use alisio_rules::instructions::explain::ExplainObject;
pub use alisio_rules::skills::catalog::CatalogEntry;
pub use alisio_session::read::Transcript;

/// A request the client sends: the server decodes `Params` and encodes `Result`. (ls-types'
/// `Request` also asks `Result: Deserialize`, which the server never does and the core's
/// report types, holding `&'static str`, are not; server → client requests use `Request`.)
pub trait ClientRequest {
    type Params: DeserializeOwned + Send + 'static;
    type Result: Serialize + Send + 'static;
    const METHOD: &'static str;
}

/// Declares a client → server request: an uninhabited type with its `METHOD`, `Params` and
/// `Result`.
macro_rules! request {
    ($(#[$attr:meta])* $name:ident: $method:literal, $params:ty => $result:ty) => {
        $(#[$attr])*
        pub enum $name {}
        impl ClientRequest for $name {
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
    TestSkillTriggers::METHOD,
    RunSession::METHOD,
    ContextReport::METHOD,
    ListSessions::METHOD,
    SessionTranscript::METHOD,
    InitAgentsMd::METHOD,
    Checkpoints::METHOD,
    Rewind::METHOD,
    SessionChanges::METHOD,
    KeepChanges::METHOD,
    UndoChange::METHOD,
    AuditSessions::METHOD,
    Approve::METHOD,
    SessionEvent::METHOD,
];

// ---- instructions and skills ------------------------------------------------------------

request! {
    /// `alisio/contextExplain {uri, host?}` → the explain object with its `startup` object,
    /// what `context explain --json` prints (spec/interfaces.md §1.1).
    ContextExplain: "alisio/contextExplain", ContextExplainParams => ContextExplainResult
}

/// The explain object and, beside its fields, `startup`: the startup cost of the host's
/// agents, commands and MCP servers in a session started in the file's directory (`null` for a
/// host whose families are not simulated; spec/instructions.md §10).
#[derive(Debug, Serialize)]
pub struct ContextExplainResult {
    #[serde(flatten)]
    pub explain: ExplainObject,
    pub startup: Option<StartupObject>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ContextExplainParams {
    pub uri: Uri,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<alisio_base::config::Host>,
}

request! {
    /// `alisio/skillCatalog {uri?}` → the catalog entries (spec/interfaces.md §1.2); no params
    /// (or `null`) is the first folder's catalog.
    SkillCatalog: "alisio/skillCatalog", Option<SkillCatalogParams> => Vec<CatalogEntry>
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct SkillCatalogParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<Uri>,
}

request! {
    /// `alisio/setSkillEnabled {id, enabled}` → the updated catalog entry (spec/skills.md §3.3).
    SetSkillEnabled: "alisio/setSkillEnabled", SetSkillEnabledParams => CatalogEntry
}

#[derive(Debug, Serialize, Deserialize)]
pub struct SetSkillEnabledParams {
    pub id: String,
    pub enabled: bool,
}

request! {
    /// `alisio/testSkillTriggers {uri?}` → the offline trigger lab, one result per simulated
    /// host (spec/skills.md §10, the JSON of `skills test --json` without `confusion`): the
    /// SKILL.md `uri` (with its eval file), else every listed skill that has one.
    TestSkillTriggers: "alisio/testSkillTriggers", Option<TestSkillTriggersParams> => Vec<TriggerHostResult>
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TestSkillTriggersParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<Uri>,
}

/// One host's lab result.
#[derive(Debug, Serialize, Deserialize)]
pub struct TriggerHostResult {
    pub host: String,
    pub skills: Vec<TriggerScore>,
    pub misrouted: Vec<TriggerMiss>,
}

/// One skill's figures on one host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TriggerScore {
    pub name: String,
    /// The SKILL.md's URI.
    pub uri: String,
    pub listed: bool,
    pub true_positives: u32,
    pub false_positives: u32,
    pub false_negatives: u32,
    pub true_negatives: u32,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
}

/// A prompt that went elsewhere.
#[derive(Debug, Serialize, Deserialize)]
pub struct TriggerMiss {
    pub skill: String,
    /// The skill's SKILL.md URI (where the quickfix list points).
    pub uri: String,
    pub prompt: String,
    pub expected: String,
    pub routed: Option<String>,
    pub score: f64,
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

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSessionResult {
    pub session_id: String,
    pub status: RunStatusName,
    /// The last assistant text of the run (empty when none).
    pub text: String,
    /// The ContextReport of the session's next request (spec/governor.md §6.5).
    pub report: ContextReportResult,
}

request! {
    /// `alisio/contextReport {sessionId}` → the ContextReport (spec/governor.md §6.5).
    ContextReport: "alisio/contextReport", SessionIdParams => ContextReportResult
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionIdParams {
    pub session_id: String,
}

request! {
    /// `alisio/listSessions {}` → the workspace's root sessions, most recent first.
    ListSessions: "alisio/listSessions", Option<ListSessionsParams> => Vec<SessionSummary>
}

/// `{}`: listing takes no arguments (unknown keys are ignored).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ListSessionsParams {}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub session_id: String,
    pub title: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub messages: u64,
    /// The relay chain (spec/sessions.md §12.5): the session this one continues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_of: Option<String>,
    /// The session this one relayed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relayed_to: Option<String>,
}

request! {
    /// `alisio/sessionTranscript {sessionId}` → the transcript export, the same object as
    /// `alisio-ls sessions show <id> --json` (schemaVersion, session, messages).
    SessionTranscript: "alisio/sessionTranscript", SessionIdParams => Transcript
}

request! {
    /// `alisio/initAgentsMd {uri}` → the root AGENTS.md that `alisio-ls init` would write, for the
    /// editor to show in a diff before it writes (spec/instructions.md §9).
    InitAgentsMd: "alisio/initAgentsMd", super::init::InitParams => super::init::InitProposal
}

request! {
    /// `alisio/checkpoints {sessionId}` → the session's checkpoints, oldest first
    /// (spec/sessions.md §12.3).
    Checkpoints: "alisio/checkpoints", SessionIdParams => Vec<CheckpointInfo>
}

/// One checkpoint: the core's type, serialized as it is.
pub use alisio_session::checkpoints::CheckpointInfo;

request! {
    /// `alisio/rewind {sessionId, checkpoint, resolve?}` → what the rewind did, or, with
    /// conflicts and `resolve: "ask"`, what it would do (spec/sessions.md §12.3).
    Rewind: "alisio/rewind", RewindParams => RewindResult
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindParams {
    pub session_id: String,
    pub checkpoint: i64,
    /// What to do with files the user changed after the checkpoint: `ask` (default: change
    /// nothing, list them), `keep` (leave them as they are) or `overwrite`.
    #[serde(default)]
    pub resolve: alisio_session::checkpoints::Resolve,
}

/// The core's report, serialized as it is.
pub type RewindResult = alisio_session::checkpoints::RewindReport;

request! {
    /// `alisio/sessionChanges {sessionId}` → the files the session changed, each against its
    /// baseline (spec/sessions.md §12.4).
    SessionChanges: "alisio/sessionChanges", SessionIdParams => Vec<Change>
}

/// One changed file: the core's type, serialized as it is.
pub use alisio_session::checkpoints::Change;

request! {
    /// `alisio/keepChanges {sessionId, paths?}` → `{kept}`: the current text of those files
    /// (all when `paths` is empty or absent) becomes their baseline.
    KeepChanges: "alisio/keepChanges", KeepChangesParams => KeepChangesResult
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeepChangesParams {
    pub session_id: String,
    #[serde(default)]
    pub paths: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct KeepChangesResult {
    pub kept: Vec<String>,
}

request! {
    /// `alisio/undoChange {sessionId, path, hunks?}` → `{change}`: the file back to its baseline,
    /// or the hunks flagged `true` only; `change` is what is left of it (`null`: nothing).
    /// Refused (-32803) when the user changed the file again since the session did.
    UndoChange: "alisio/undoChange", UndoChangeParams => UndoChangeResult
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoChangeParams {
    pub session_id: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hunks: Option<Vec<bool>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct UndoChangeResult {
    pub change: Option<Change>,
}

// ---- recorded sessions ------------------------------------------------------------------

request! {
    /// `alisio/auditSessions {refresh?}` → the last audit of the workspace's recent sessions
    /// (spec/interfaces.md §4.6); with `refresh: true` the audit runs again first.
    AuditSessions: "alisio/auditSessions", Option<AuditSessionsParams> => AuditSessionsResult
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct AuditSessionsParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct AuditSessionsResult {
    /// `audit.enabled`: when false nothing is read and `sessions` is empty.
    pub enabled: bool,
    /// A background audit is running (the result is the previous one).
    pub running: bool,
    pub sessions: Vec<AuditedSession>,
}

/// One audited session, newest first per client.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditedSession {
    /// The session file (absolute).
    pub file: String,
    /// `Claude Code` or `Codex`.
    pub client: String,
    /// `claude-code` or `codex` (spec/interfaces.md §4.4).
    pub format: String,
    pub session: String,
    pub cwd: Option<String>,
    pub client_version: Option<String>,
    pub prompts: usize,
    pub deliveries: usize,
    pub requests: usize,
    pub findings: Vec<AuditFinding>,
}

/// One finding of a session: the core's type, serialized as it is (`{kind, path?, message}`).
pub type AuditFinding = alisio_session::audit::findings::SessionFinding;

// ---- server → client --------------------------------------------------------------------

/// `alisio/approve`: the server asks the editor to approve one call (spec/sessions.md §4.4).
pub enum Approve {}
impl Request for Approve {
    type Params = ApproveParams;
    type Result = ApproveResult;
    const METHOD: &'static str = "alisio/approve";
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

/// The reply. With an allow decision for `write_file`/`edit_file` it may carry the user's review
/// (spec/sessions.md §4.4): `content`, the text to write, or `hunks`, one flag per hunk of the
/// preview (`true`: take it); at most one of the two.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApproveResult {
    pub decision: Decision,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hunks: Option<Vec<bool>>,
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
    pub session_id: String,
    /// The envelope `{schemaVersion, runId, sessionId, seq, type, timestamp, data, eventId?,
    /// parentSessionId?}`, as the session emitted it (its `data` differs by `type`).
    pub event: Value,
}

#[cfg(test)]
#[path = "ext_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "ext_shapes_tests.rs"]
mod shapes;
