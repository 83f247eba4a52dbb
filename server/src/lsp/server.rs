//! The `LanguageServer` implementation: decode, mutate or snapshot state, hand heavy work to
//! the background worker, encode. House rules (ARCHITECTURE.md, `lsp`): state is mutated
//! before the first `.await` of a notification, no lock is held across an `.await`, and no
//! handler awaits a request to the client (those run in spawned tasks with a timeout).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::ServeOptions;
pub use super::diagnostics::path_of;
use super::documents::Document;
use super::ext::{
    CatalogEntry, ContextExplainParams, ContextReportResult, ListSessionsParams, RunSessionParams,
    SessionIdParams, SessionSummary, SetSkillEnabledParams, SkillCatalogParams,
    TestSkillTriggersParams, Transcript, TriggerHostResult,
};
use super::features;
use super::jobs::{Job, lock, refresh_code_lenses};
use super::state::Snapshot;
use super::state::{ClientCaps, State};
use alisio_base::text::Encoding;
use alisio_base::workspace::Env;

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    sessions: Arc<super::sessions::Sessions>,
    tx: UnboundedSender<Job>,
    shutdown: Arc<AtomicBool>,
}

impl Backend {
    pub fn new(client: Client, tx: UnboundedSender<Job>, opts: ServeOptions) -> Self {
        let mut state = State {
            env: Env::from_process(),
            ..State::default()
        };
        state.options.trusted = opts.trust_project || opts.config.is_some();
        state.extra_config = opts.config;
        Self {
            client,
            state: Arc::new(Mutex::new(state)),
            sessions: Arc::new(super::sessions::Sessions::default()),
            tx,
            shutdown: Arc::new(AtomicBool::new(false)),
        }
    }

    pub fn sessions(&self) -> Arc<super::sessions::Sessions> {
        self.sessions.clone()
    }

    /// `alisio/runSession` (spec/sessions.md §2.11).
    pub async fn run_session(
        &self,
        params: RunSessionParams,
    ) -> Result<super::ext::RunSessionResult> {
        let snap = lock(&self.state).snapshot();
        super::sessions::run(self.client.clone(), self.sessions.clone(), snap, params).await
    }

    /// `alisio/contextReport {sessionId}`.
    pub async fn context_report(&self, params: SessionIdParams) -> Result<ContextReportResult> {
        blocking(&self.state, move |snap| {
            super::sessions::report(snap, &params.session_id)
        })
        .await?
    }

    /// `alisio/listSessions {}`.
    pub async fn list_sessions(
        &self,
        _params: Option<ListSessionsParams>,
    ) -> Result<Vec<SessionSummary>> {
        blocking(&self.state, super::sessions::list).await?
    }

    /// `alisio/sessionTranscript {sessionId}`: the `sessions show --json` object.
    pub async fn session_transcript(&self, params: SessionIdParams) -> Result<Transcript> {
        blocking(&self.state, move |snap| {
            super::sessions::transcript(snap, &params.session_id)
        })
        .await?
    }

    /// `alisio/checkpoints {sessionId}`.
    pub async fn checkpoints(
        &self,
        params: SessionIdParams,
    ) -> Result<Vec<super::ext::CheckpointInfo>> {
        blocking(&self.state, move |snap| {
            super::sessions::checkpoints(snap, &params.session_id)
        })
        .await?
    }

    /// `alisio/rewind {sessionId, checkpoint, resolve?}`.
    pub async fn rewind(
        &self,
        params: super::ext::RewindParams,
    ) -> Result<super::ext::RewindResult> {
        blocking(&self.state, move |snap| {
            super::sessions::rewind(snap, &params)
        })
        .await?
    }

    /// `alisio/sessionChanges {sessionId}`.
    pub async fn session_changes(
        &self,
        params: SessionIdParams,
    ) -> Result<Vec<super::ext::Change>> {
        blocking(&self.state, move |snap| {
            super::sessions::changes(snap, &params.session_id)
        })
        .await?
    }

    /// `alisio/keepChanges {sessionId, paths?}`.
    pub async fn keep_changes(
        &self,
        params: super::ext::KeepChangesParams,
    ) -> Result<super::ext::KeepChangesResult> {
        blocking(&self.state, move |snap| {
            super::sessions::keep(snap, &params)
        })
        .await?
    }

    /// `alisio/undoChange {sessionId, path, hunks?}`.
    pub async fn undo_change(
        &self,
        params: super::ext::UndoChangeParams,
    ) -> Result<super::ext::UndoChangeResult> {
        blocking(&self.state, move |snap| {
            super::sessions::undo(snap, &params)
        })
        .await?
    }

    /// `alisio/auditSessions {refresh?}` (spec/interfaces.md §4.6): the last audit; with
    /// `refresh: true`, or before the first audit ended, the audit runs now (on a blocking
    /// thread) and its result is kept.
    pub async fn audit_sessions(
        &self,
        params: Option<super::ext::AuditSessionsParams>,
    ) -> Result<super::ext::AuditSessionsResult> {
        let refresh = params.and_then(|p| p.refresh).unwrap_or(false);
        let now = {
            let st = lock(&self.state);
            st.options.audit_enabled && (refresh || !st.audit_done)
        };
        if now {
            let fresh = blocking(&self.state, super::audit_run::compute).await?;
            {
                let mut st = lock(&self.state);
                st.audit = Arc::new(fresh);
                st.audit_done = true;
            }
            self.schedule();
        }
        let running = lock(&self.state).audit_running;
        blocking(&self.state, move |snap| {
            super::audit_result::result(snap, running)
        })
        .await
    }

    /// Audits the recent sessions again in the background (`lsp::audit::request`).
    fn audit_again(&self) {
        super::audit_run::request(&self.client, &self.state, &self.tx);
    }

    /// `window/workDoneProgress/cancel`: tower-lsp-server does not route it, so it is registered
    /// as a custom notification; it cancels the session that owns the token.
    pub async fn progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        self.sessions.cancel_token(&params.token);
    }

    pub fn shutdown_flag(&self) -> Arc<AtomicBool> {
        self.shutdown.clone()
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn state(&self) -> Arc<Mutex<State>> {
        self.state.clone()
    }

    fn schedule(&self) {
        let _ = self.tx.send(Job::Recompute);
    }

    /// An open document changed: its own diagnostics go out at once on a task of their own (not
    /// behind a full pass in progress), then the full pass is scheduled.
    fn changed(&self, path: PathBuf) {
        if path.file_name().is_some_and(|n| n == "SKILL.md") {
            let client = self.client.clone();
            let state = self.state.clone();
            let p = path.clone();
            tokio::spawn(async move { fast_publish(&client, &state, &p).await });
        }
        let _ = self.tx.send(Job::Recompute);
    }
}

fn is_markdown(p: &std::path::Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

fn negotiate_encoding(params: &InitializeParams) -> Encoding {
    let first = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .and_then(|v| v.first());
    match first {
        Some(e) if *e == PositionEncodingKind::UTF8 => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

fn client_caps(params: &InitializeParams) -> ClientCaps {
    let ws = params.capabilities.workspace.as_ref();
    ClientCaps {
        dynamic_watch: ws
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false),
        rename_files: ws
            .and_then(|w| w.workspace_edit.as_ref())
            .and_then(|e| e.resource_operations.as_ref())
            .is_some_and(|ops| ops.contains(&ResourceOperationKind::Rename)),
        work_done_progress: params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false),
        lens_refresh: ws
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false),
    }
}

fn folders_of(params: &InitializeParams) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(folders) = &params.workspace_folders {
        out.extend(folders.iter().filter_map(|f| path_of(&f.uri)));
    }
    #[expect(deprecated, reason = "root_uri is still what older clients send")]
    if out.is_empty()
        && let Some(p) = params.root_uri.as_ref().and_then(path_of)
    {
        out.push(p);
    }
    out.into_iter()
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
        .collect()
}

/// Watches the editor process and exits when it is gone (docs/lsp.md, Decisions).
fn watch_parent(pid: u32) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(3)).await;
            if !process_alive(pid) {
                tracing::warn!("parent process {pid} is gone; exiting");
                // Background tasks and running process tools die with the server (spec/sessions.md §10.3).
                alisio_session::tools::process::end_live_groups(Duration::from_secs(2));
                std::process::exit(1);
            }
        }
    });
}

fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        return std::path::Path::new(&format!("/proc/{pid}")).exists();
    }
    // Elsewhere, `kill -0` answers without signalling.
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_or(true, |s| s.success())
}

/// Runs `f` on a blocking thread with a fresh snapshot; a panic inside becomes an internal error
/// instead of ending the server.
async fn blocking<R: Send + 'static>(
    state: &Mutex<State>,
    f: impl FnOnce(&Snapshot) -> R + Send + 'static,
) -> Result<R> {
    let snap = lock(state).snapshot();
    tokio::task::spawn_blocking(move || f(&snap))
        .await
        .map_err(|e| {
            tracing::error!("request handler failed: {e}");
            tower_lsp_server::jsonrpc::Error::internal_error()
        })
}

/// What one diagnostics pass computed over a snapshot: the versions and disk sequence it saw,
/// the diagnostics to publish. Its folder results are already in the state.
struct Pass {
    versions: Arc<std::collections::HashMap<PathBuf, i32>>,
    disk_seq: u64,
    diagnostics: std::collections::BTreeMap<PathBuf, Vec<alisio_base::diagnostic::Diagnostic>>,
}

/// The pass, written once for its three callers (the first scan, the worker, a skill toggle):
/// compute over `snap` on the pass thread (`lsp::pass_thread`), then store the folder results (`with_state` runs
/// under the same lock, for what the caller reads of them). `None` when the computation
/// panicked (logged).
async fn pass<T>(
    state: &Mutex<State>,
    snap: Snapshot,
    with_state: impl FnOnce(&mut State, &super::results::Computed) -> T,
) -> Option<(Pass, T)> {
    let versions = snap.versions.clone();
    let disk_seq = snap.disk_seq;
    let computed = match super::pass_thread::compute(snap).await {
        Ok(c) => c,
        Err(e) => {
            tracing::error!("diagnostics pass failed: {e}");
            return None;
        }
    };
    let extra = {
        let mut st = lock(state);
        let extra = with_state(&mut st, &computed);
        st.results = Arc::new(computed.folders);
        extra
    };
    let pass = Pass {
        versions,
        disk_seq,
        diagnostics: computed.diagnostics,
    };
    Some((pass, extra))
}

fn invalid_params(msg: impl Into<String>) -> tower_lsp_server::jsonrpc::Error {
    tower_lsp_server::jsonrpc::Error::invalid_params(msg.into())
}

fn file_path(uri: &Uri) -> Result<PathBuf> {
    path_of(uri).ok_or_else(|| invalid_params(format!("not a file URI: {}", uri.as_str())))
}

fn request_failed(msg: String) -> tower_lsp_server::jsonrpc::Error {
    tower_lsp_server::jsonrpc::Error {
        code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
        message: msg.into(),
        data: None,
    }
}

impl Backend {
    /// `alisio/contextExplain {uri, host?}` (spec/interfaces.md §3.1).
    pub async fn context_explain(
        &self,
        params: ContextExplainParams,
    ) -> Result<super::ext::ContextExplainResult> {
        let path = file_path(&params.uri)?;
        blocking(&self.state, move |snap| {
            features::context_explain(snap, &path, params.host)
        })
        .await?
        .ok_or_else(|| invalid_params("cannot explain this path"))
    }
}

impl Backend {
    /// `alisio/initAgentsMd {uri, write?, sha256?}` (spec/interfaces.md §3.1; lsp/init.rs).
    pub async fn init_agents_md(
        &self,
        params: super::init::InitParams,
    ) -> Result<super::init::InitProposal> {
        let at = file_path(&params.uri)?;
        blocking(&self.state, move |snap| {
            super::init::init_agents_md(snap, &at, &params)
        })
        .await?
        .map_err(request_failed)
    }

    /// `alisio/skillCatalog {uri?}` (spec/interfaces.md §3.1).
    pub async fn skill_catalog(
        &self,
        params: Option<SkillCatalogParams>,
    ) -> Result<Vec<CatalogEntry>> {
        let at = match params.and_then(|p| p.uri) {
            Some(u) => Some(file_path(&u)?),
            None => None,
        };
        blocking(&self.state, move |snap| {
            super::skills::catalog(snap, at.as_deref())
        })
        .await
    }

    /// `alisio/testSkillTriggers {uri?}` (spec/skills.md §10): the offline lab, in the background.
    pub async fn test_skill_triggers(
        &self,
        params: Option<TestSkillTriggersParams>,
    ) -> Result<Vec<TriggerHostResult>> {
        let at = match params.and_then(|p| p.uri) {
            Some(u) => Some(file_path(&u)?),
            None => None,
        };
        blocking(&self.state, move |snap| {
            super::skills::test_triggers(snap, at.as_deref())
        })
        .await?
        .map_err(request_failed)
    }

    /// `alisio/setSkillEnabled {id, enabled}`: persisted atomically, then everything is
    /// republished (spec/skills.md §3.3).
    pub async fn set_skill_enabled(&self, params: SetSkillEnabledParams) -> Result<CatalogEntry> {
        self.toggle(params.id, Some(params.enabled)).await
    }

    async fn toggle(&self, id: String, enabled: Option<bool>) -> Result<CatalogEntry> {
        let v = blocking(&self.state, move |snap| {
            super::skills::set_enabled(snap, &id, enabled)
        })
        .await?
        .map_err(request_failed)?;
        // Apply the change at once (spec/skills.md §3.3 step 7): the next lens or catalog request
        // must already see it, so recompute before answering.
        let snap = lock(&self.state).snapshot();
        let Some((p, ())) = pass(&self.state, snap, |_, _| ()).await else {
            return Err(tower_lsp_server::jsonrpc::Error::internal_error());
        };
        let diags = &p.diagnostics;
        publish(
            &self.client,
            &self.state,
            &p.versions,
            diags,
            Some(p.disk_seq),
        )
        .await;
        refresh_code_lenses(&self.client, &self.state);
        Ok(v)
    }
}

impl LanguageServer for Backend {
    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let path = file_path(&params.text_document_position.text_document.uri)?;
        let pos = params.text_document_position.position;
        blocking(&self.state, move |snap| {
            features::completions(snap, &path, pos).map(CompletionResponse::Array)
        })
        .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let path = file_path(&params.text_document_position_params.text_document.uri)?;
        let pos = params.text_document_position_params.position;
        blocking(&self.state, move |snap| {
            if path.file_name().is_none_or(|n| n != "SKILL.md") {
                return None;
            }
            let r = super::analysis::folder_result(snap, &path);
            super::skills::definition(snap, &r, &path, pos).map(GotoDefinitionResponse::Scalar)
        })
        .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let path = file_path(&params.text_document_position_params.text_document.uri)?;
        let pos = params.text_document_position_params.position;
        blocking(&self.state, move |snap| features::hover(snap, &path, pos)).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let path = file_path(&params.text_document.uri)?;
        blocking(&self.state, move |snap| {
            Some(features::code_lenses(snap, &path))
        })
        .await
    }

    async fn code_lens_resolve(&self, lens: CodeLens) -> Result<CodeLens> {
        // Lenses are sent with their command; resolving returns them as they are.
        Ok(lens)
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let path = file_path(&params.text_document.uri)?;
        blocking(&self.state, move |snap| {
            features::document_symbols(snap, &path)
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let path = file_path(&params.text_document.uri)?;
        blocking(&self.state, move |snap| {
            let actions = features::code_actions(snap, &path, &params);
            if actions.is_empty() {
                None
            } else {
                Some(actions)
            }
        })
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        let arg0 = params.arguments.first().cloned().unwrap_or(Value::Null);
        match params.command.as_str() {
            features::CMD_EXPLAIN => {
                let uri: Uri = serde_json::from_value(arg0).map_err(|e| {
                    invalid_params(format!("{}: expected [uri]: {e}", features::CMD_EXPLAIN))
                })?;
                let v = self
                    .context_explain(ContextExplainParams { uri, host: None })
                    .await?;
                Ok(Some(serde_json::to_value(v).unwrap_or(Value::Null)))
            }
            features::CMD_SHOW_SKILL | features::CMD_TOGGLE_SKILL => {
                let id = arg0
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| invalid_params(format!("{}: expected [id]", params.command)))?;
                if params.command == features::CMD_TOGGLE_SKILL {
                    let entry = self.toggle(id, None).await?;
                    return Ok(Some(serde_json::to_value(entry).unwrap_or(Value::Null)));
                }
                blocking(&self.state, move |snap| super::skills::show(snap, &id))
                    .await?
                    .map(Some)
                    .ok_or_else(|| invalid_params("unknown skill id"))
            }
            features::CMD_SHOW_REPORT => {
                let session_id = arg0.as_str().map(str::to_string).ok_or_else(|| {
                    invalid_params(format!(
                        "{}: expected [sessionId]",
                        features::CMD_SHOW_REPORT
                    ))
                })?;
                self.context_report(SessionIdParams { session_id })
                    .await
                    .map(|r| Some(r.to_json()))
            }
            features::CMD_SHOW_AUDIT => {
                let v = self.audit_sessions(None).await?;
                Ok(Some(serde_json::to_value(v).unwrap_or(Value::Null)))
            }
            other => Err(invalid_params(format!("unknown command: {other}"))),
        }
    }

    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let encoding = negotiate_encoding(&params);
        let problems = {
            let mut st = lock(&self.state);
            st.started = Some(std::time::SystemTime::now());
            st.encoding = encoding;
            st.caps = client_caps(&params);
            st.folders = folders_of(&params);
            let opts = params.initialization_options.clone().unwrap_or(Value::Null);
            let problems = st.options.update(&opts);
            if opts.is_object() {
                st.client_config = opts;
            }
            problems
        };
        let client = self.client.clone();
        let state = self.state.clone();
        tokio::spawn(async move { report_client_problems(&client, &state, problems).await });
        if let Some(pid) = params.process_id {
            watch_parent(pid);
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(match encoding {
                    Encoding::Utf8 => PositionEncodingKind::UTF8,
                    Encoding::Utf16 => PositionEncodingKind::UTF16,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec!["(".to_string(), ":".to_string()]),
                    ..CompletionOptions::default()
                }),
                definition_provider: Some(OneOf::Left(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(true),
                }),
                document_symbol_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        ..CodeActionOptions::default()
                    },
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: [
                        features::CMD_EXPLAIN,
                        features::CMD_SHOW_SKILL,
                        features::CMD_TOGGLE_SKILL,
                        features::CMD_SHOW_REPORT,
                        features::CMD_SHOW_AUDIT,
                    ]
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                    ..ExecuteCommandOptions::default()
                }),
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "alisio-ls".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        super::watch::start(self.client.clone(), self.state.clone(), self.tx.clone());
        // The first scan: run in the worker, reported with progress when the client supports it.
        let client = self.client.clone();
        let state = self.state.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let progress = lock(&state).caps.work_done_progress;
            if progress {
                let token = NumberOrString::String("alisio-ls/scan".to_string());
                // A client that does not answer quickly gets no progress, not a late scan.
                let created = tokio::time::timeout(
                    Duration::from_secs(1),
                    client.send_request::<request::WorkDoneProgressCreate>(
                        WorkDoneProgressCreateParams {
                            token: token.clone(),
                        },
                    ),
                )
                .await;
                if matches!(created, Ok(Ok(()))) {
                    let p = client
                        .progress(token, "alisio-ls: scanning workspace")
                        .begin()
                        .await;
                    let snap = lock(&state).snapshot();
                    if let Some((p, ())) = pass(&state, snap, |_, _| ()).await {
                        let seq = Some(p.disk_seq);
                        publish(&client, &state, &p.versions, &p.diagnostics, seq).await;
                    }
                    let again = {
                        let mut st = lock(&state);
                        st.scanned = true;
                        std::mem::take(&mut st.rescan)
                    };
                    if again {
                        let _ = tx.send(Job::Recompute);
                    }
                    p.finish().await;
                    super::audit_run::request(&client, &state, &tx);
                    return;
                }
            }
            lock(&state).scanned = true;
            let _ = tx.send(Job::Recompute);
            super::audit_run::request(&client, &state, &tx);
        });
    }

    async fn shutdown(&self) -> Result<()> {
        self.shutdown.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let Some(path) = path_of(&params.text_document.uri) else {
            return;
        };
        {
            let mut st = lock(&self.state);
            st.docs.insert(
                path.clone(),
                Document::new(&params.text_document.text, params.text_document.version),
            );
        }
        self.changed(path);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let Some(path) = path_of(&params.text_document.uri) else {
            return;
        };
        {
            let mut st = lock(&self.state);
            let enc = st.encoding;
            let Some(doc) = st.docs.get_mut(&path) else {
                return;
            };
            for change in &params.content_changes {
                doc.apply(change, enc);
            }
            doc.version = params.text_document.version;
        }
        self.changed(path);
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.schedule();
        // What recent sessions received is compared with the disk: a saved Markdown file may
        // change the comparison.
        if path_of(&params.text_document.uri).is_some_and(|p| is_markdown(&p)) {
            self.audit_again();
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let Some(path) = path_of(&params.text_document.uri) else {
            return;
        };
        lock(&self.state).docs.remove(&path);
        self.schedule();
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let section = params
            .settings
            .get("alisio")
            .cloned()
            .unwrap_or(params.settings);
        let problems = {
            let mut st = lock(&self.state);
            let problems = st.options.update(&section);
            if section.is_object() {
                st.client_config = section;
            }
            problems
        };
        self.schedule();
        self.audit_again();
        let client = self.client.clone();
        let state = self.state.clone();
        tokio::spawn(async move { report_client_problems(&client, &state, problems).await });
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let changed: Vec<PathBuf> = params
            .changes
            .iter()
            .filter_map(|c| path_of(&c.uri))
            .collect();
        super::disk::spawn(
            &self.client,
            &self.state,
            super::disk::skill_files(&changed),
        );
        self.schedule();
        if changed.iter().any(|p| is_markdown(p)) {
            self.audit_again();
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        {
            let mut st = lock(&self.state);
            for removed in &params.event.removed {
                if let Some(p) = path_of(&removed.uri) {
                    let p = std::fs::canonicalize(&p).unwrap_or(p);
                    st.folders.retain(|f| *f != p);
                }
            }
            for added in &params.event.added {
                if let Some(p) = path_of(&added.uri) {
                    st.folders.push(std::fs::canonicalize(&p).unwrap_or(p));
                }
            }
        }
        self.schedule();
    }
}

/// Shows one `window/showMessage` (Warning) per invalid client-provided value: the client-only
/// options' problems, then the configuration keys' (with `(using <value in effect>)`).
async fn report_client_problems(client: &Client, state: &Mutex<State>, mut problems: Vec<String>) {
    let snap = lock(state).snapshot();
    let folder = snap
        .folders
        .first()
        .cloned()
        .unwrap_or_else(|| std::path::PathBuf::from("/"));
    let cfg =
        tokio::task::spawn_blocking(move || super::analysis::folder_config(&snap, &folder)).await;
    if let Ok(cfg) = cfg {
        problems.extend(cfg.client_problems.into_iter().map(|p| p.message));
    }
    for p in problems {
        client.show_message(MessageType::WARNING, p).await;
    }
}

/// Publishes the own diagnostics of a changed open SKILL.md at once: validation of the one file
/// under the active profile, plus the discovery codes of the last full pass. Skipped when the
/// document changed again meanwhile (a newer task publishes).
async fn fast_publish(client: &Client, state: &Mutex<State>, path: &PathBuf) {
    let snap = lock(state).snapshot();
    let Some(version) = snap.versions.get(path).copied() else {
        return;
    };
    let p = path.clone();
    let computed =
        tokio::task::spawn_blocking(move || super::disk::own_diagnostics(&snap, &p)).await;
    let Ok(lsp) = computed else { return };
    let Some(uri) = super::diagnostics::uri(path) else {
        return;
    };
    {
        let mut st = lock(state);
        if st.docs.get(path).map(|d| d.version) != Some(version) {
            return;
        }
        if lsp.is_empty() {
            st.published.remove(path);
        } else {
            st.published.insert(path.clone());
        }
    }
    client.publish_diagnostics(uri, lsp, Some(version)).await;
}

/// Publishes the results: versions for open documents, empty lists for files that no longer
/// report anything. Unopened files are published only after the first scan ended, except by
/// `lsp::disk`. `disk_seq` is the snapshot's `State::disk_seq` when `results` cover every file,
/// `None` when they cover open documents only.
pub async fn publish(
    client: &Client,
    state: &Mutex<State>,
    snap_versions: &std::collections::HashMap<PathBuf, i32>,
    results: &std::collections::BTreeMap<PathBuf, Vec<alisio_base::diagnostic::Diagnostic>>,
    disk_seq: Option<u64>,
) {
    let pubs = {
        let mut st = lock(state);
        // A document edited after the snapshot keeps what it has: a newer pass is queued, and
        // stale results must not be published under the new version.
        let mut stale: std::collections::HashSet<PathBuf> = st
            .docs
            .iter()
            .filter(|(p, d)| snap_versions.get(*p) != Some(&d.version))
            .map(|(p, _)| p.clone())
            .collect();
        // So does a file published on its own after a change on disk this pass did not see.
        let seq = disk_seq.unwrap_or(0);
        stale.extend(
            st.disk_published
                .iter()
                .filter(|(_, s)| disk_seq.is_none() || **s > seq)
                .map(|(p, _)| p.clone()),
        );
        if disk_seq.is_some() {
            st.disk_published.retain(|_, s| *s > seq);
            st.passed_seq = st.passed_seq.max(seq);
        }
        let fresh: std::collections::BTreeMap<PathBuf, Vec<alisio_base::diagnostic::Diagnostic>> =
            results
                .iter()
                .filter(|(p, _)| !stale.contains(*p))
                .map(|(p, d)| (p.clone(), d.clone()))
                .collect();
        let mut previous = st.published.clone();
        previous.retain(|p| !stale.contains(p));
        let (pubs, mut now) =
            super::diagnostics::plan(&previous, &fresh, snap_versions, st.encoding);
        now.extend(st.published.iter().filter(|p| stale.contains(*p)).cloned());
        st.published = now;
        pubs
    };
    for p in pubs {
        client
            .publish_diagnostics(p.uri, p.diagnostics, p.version)
            .await;
    }
}

/// The skill scan limits a pass reached that no earlier pass showed, as messages.
fn new_scan_limits(st: &mut State, computed: &super::results::Computed) -> Vec<String> {
    let mut new = Vec::new();
    for r in computed.folders.values() {
        for dir in &r.skills.scan_limit {
            if st.shown_scan_limits.insert(dir.clone()) {
                new.push(format!(
                    "Skill scan limit of {} directories reached; stopped at {}",
                    alisio_rules::skills::discover::MAX_DIRS,
                    alisio_base::workspace::display_path(dir, &r.config.root)
                ));
            }
        }
    }
    new
}

/// The background worker: coalesces recompute requests, computes on a blocking thread, and
/// publishes. The first request after a quiet period is served at once (no timer in the path of
/// an edit); requests that arrive while computing are merged into one more pass.
pub async fn worker(client: Client, state: Arc<Mutex<State>>, mut rx: UnboundedReceiver<Job>) {
    while let Some(job) = rx.recv().await {
        // Coalesce: every job queued so far is served by this one pass.
        let _ = job;
        while rx.try_recv().is_ok() {}
        let snap = {
            let mut st = lock(&state);
            if !st.scanned && st.docs.is_empty() {
                st.rescan = true;
                continue;
            }
            st.snapshot()
        };
        let Some((p, limits)) = pass(&state, snap, new_scan_limits).await else {
            continue;
        };
        for m in limits {
            tracing::warn!("{m}");
            client.show_message(MessageType::WARNING, m).await;
        }
        let (versions, snap_seq, mut results) = (p.versions, p.disk_seq, p.diagnostics);
        let complete = lock(&state).scanned;
        if !complete {
            // Before the first scan ends only open documents get diagnostics.
            let open: std::collections::HashSet<PathBuf> = {
                let mut st = lock(&state);
                st.rescan = true;
                st.docs.keys().cloned().collect()
            };
            results.retain(|p, _| open.contains(p));
        }
        publish(
            &client,
            &state,
            &versions,
            &results,
            complete.then_some(snap_seq),
        )
        .await;
    }
}
