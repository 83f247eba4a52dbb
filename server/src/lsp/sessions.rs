//! Agent sessions from the editor (spec/sessions.md §2.10–§2.11, §4.4; spec/interfaces.md §3.1):
//! `alisio/runSession` runs `session::run_session` on a blocking thread, streams its events as
//! `alisio/sessionEvent`, reports work-done progress, asks approvals with `alisio/approve`, and
//! is cancelled by `$/cancelRequest` (the dropped request future signals the run) or by
//! `window/workDoneProgress/cancel` on its token (the run then answers `status: "cancelled"`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alisio_session::events::{Emitted, Event};
use serde_json::{Value, json};
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, ErrorCode};
use tower_lsp_server::ls_types::NumberOrString;

use super::analysis;
use super::ext::{
    Approve, ApproveParams, ApproveResult, ContextReportResult as ContextReport, Decision,
    RewindParams, RewindResult, RunSessionParams, RunSessionResult, RunStatusName, SessionEvent,
    SessionEventParams, SessionSummary,
};
use super::state::Snapshot;
use alisio_base::config::GovernorMode;
use alisio_session::approvals::{ApprovalRequest, Approver, Reply, Review, SessionGrants};
use alisio_session::context::DiskContext;
use alisio_session::runner::{PreRunError, RunStatus, SessionRun, run_session};
use alisio_session::store::Store;
use alisio_session::tools::bg::Tasks;
use alisio_session::{RunOptions, SessionConfig, read};

/// At most this many sessions run at once in one server (spec/sessions.md §1.6).
pub const MAX_RUNNING: usize = 4;

/// Server-wide session state.
#[derive(Default)]
pub struct Sessions {
    running: AtomicUsize,
    /// Grants per root session, kept across runs of the same session.
    grants: Mutex<HashMap<String, Arc<Mutex<SessionGrants>>>>,
    /// Background tasks of every session, killed when the server exits.
    pub tasks: Arc<Mutex<Tasks>>,
    /// Cancel flags by work-done token.
    by_token: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Cancel flags of every running run (the end of the input cancels them all).
    live: Mutex<Vec<Arc<AtomicBool>>>,
    /// The input has ended: a run that registers afterwards cancels itself (its request may
    /// have been read just before the end, its handler polled just after).
    input_closed: AtomicBool,
}

impl Sessions {
    pub fn cancel_token(&self, token: &NumberOrString) {
        if let Some(flag) = self
            .by_token
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&token_key(token))
        {
            flag.store(true, Ordering::SeqCst);
        }
    }

    /// Cancels every running run, and every run that registers later: the client is gone, and
    /// tower-lsp-server waits for in-flight requests before the server can exit (after `exit`
    /// it drops them itself).
    pub fn cancel_all(&self) {
        self.input_closed.store(true, Ordering::SeqCst);
        for f in self
            .live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
        {
            f.store(true, Ordering::SeqCst);
        }
    }

    pub fn kill_all(&self) {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .kill_all();
    }

    /// Registers a run's cancel flag (under its work-done token, if any) until the returned
    /// guard drops. The flag is set at once when the input already ended.
    fn register(self: &Arc<Self>, token: Option<&NumberOrString>) -> Registration {
        let cancel = Arc::new(AtomicBool::new(false));
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(cancel.clone());
        let token = token.map(token_key);
        if let Some(k) = &token {
            self.by_token
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(k.clone(), cancel.clone());
        }
        // Checked after the flag is visible in `live`: `cancel_all` sets `input_closed` before
        // it walks `live`, so either it sees this flag or this check sees its mark.
        if self.input_closed.load(Ordering::SeqCst) {
            cancel.store(true, Ordering::SeqCst);
        }
        Registration {
            sessions: self.clone(),
            cancel,
            done: Arc::new(AtomicBool::new(false)),
            token,
        }
    }
}

/// A run's cancel flag while its request lives. Dropping it before the run ends (the request
/// future dropped by `$/cancelRequest` or `exit`) cancels the run; dropping it at all removes
/// the flag from `live` and `by_token`.
struct Registration {
    sessions: Arc<Sessions>,
    cancel: Arc<AtomicBool>,
    /// Set when the run ended by itself.
    done: Arc<AtomicBool>,
    token: Option<String>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if !self.done.load(Ordering::SeqCst) {
            self.cancel.store(true, Ordering::SeqCst);
        }
        self.sessions
            .live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|f| !Arc::ptr_eq(f, &self.cancel));
        if let Some(k) = &self.token {
            let mut by = self
                .sessions
                .by_token
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // Another run may have reused the token since: leave its flag alone.
            if by.get(k).is_some_and(|f| Arc::ptr_eq(f, &self.cancel)) {
                by.remove(k);
            }
        }
    }
}

fn token_key(t: &NumberOrString) -> String {
    match t {
        NumberOrString::Number(n) => format!("n:{n}"),
        NumberOrString::String(s) => format!("s:{s}"),
    }
}

fn error(code: i64, message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::ServerError(code),
        message: message.into().into(),
        data: None,
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into().into(),
        data: None,
    }
}

/// Builds the run options of an editor session from the first workspace folder.
fn options(
    snap: &Snapshot,
    p: &RunSessionParams,
) -> Result<(RunOptions, super::results::FolderConfig), Error> {
    let folder = snap
        .folders
        .first()
        .cloned()
        .ok_or_else(|| invalid("alisio/runSession needs a workspace folder"))?;
    let cfg = analysis::folder_config(snap, &folder);
    let state = snap.env.state_home().ok_or_else(|| {
        error(
            -32603,
            "cannot determine the state directory (set ALISIO_STATE_HOME or HOME)",
        )
    })?;
    let mut o = RunOptions::new(&p.prompt, cfg.root.clone(), folder, state);
    o.settings = cfg.settings.clone();
    o.governor = match p.governor.as_deref() {
        None => cfg.settings.governor,
        Some(g) => GovernorMode::parse(g).ok_or_else(|| {
            invalid(format!(
                "governor must be \"off\", \"shadow\" or \"on\"; got \"{g}\""
            ))
        })?,
    };
    o.config = SessionConfig::from_layers(&cfg.layers);
    let mut prov = p.provider.clone().unwrap_or_default();
    if let Some(m) = &p.model {
        prov.insert("model".into(), json!(m));
    }
    o.provider_overrides = prov;
    o.read_only = p.read_only.unwrap_or(false);
    o.mode = match p.mode.as_deref() {
        None => None,
        Some(m) => Some(
            alisio_session::settings::SessionMode::parse(m).ok_or_else(|| {
                invalid(format!(
                    "mode must be \"default\" or \"coordinator\"; got \"{m}\""
                ))
            })?,
        ),
    };
    o.goal = p.goal.clone();
    o.max_turns = p.max_turns;
    o.session_id = p.session_id.clone();
    o.attachments = super::attachments::blocks(snap, &cfg.root, &p.attachments).map_err(invalid)?;
    o.headless = false;
    o.cancel_reason = "client".into();
    o.kill_tasks_at_end = false;
    Ok((o, cfg))
}

/// Asks the editor with `alisio/approve`, from the run's blocking thread.
struct LspApprover {
    client: Client,
    handle: tokio::runtime::Handle,
    headless: AtomicBool,
    timeout: Duration,
}

impl Approver for LspApprover {
    fn approve(&self, req: &ApprovalRequest, cancel: &AtomicBool) -> Reply {
        self.approve_reviewed(req, cancel).0
    }

    fn approve_reviewed(
        &self,
        req: &ApprovalRequest,
        cancel: &AtomicBool,
    ) -> (Reply, Option<Review>) {
        let params: ApproveParams = req.clone();
        let client = self.client.clone();
        let timeout = self.timeout;
        let reply = self.handle.block_on(async move {
            let ask = client.send_request::<Approve>(params);
            tokio::pin!(ask);
            let deadline = tokio::time::sleep(timeout);
            tokio::pin!(deadline);
            loop {
                tokio::select! {
                    r = &mut ask => return Some(r),
                    () = &mut deadline => return None,
                    () = tokio::time::sleep(Duration::from_millis(50)) => {
                        if cancel.load(Ordering::SeqCst) {
                            return Some(Err(error(-32800, "cancelled")));
                        }
                    }
                }
            }
        });
        match reply {
            None => (Reply::Timeout(timeout.as_secs()), None),
            Some(Err(e)) if e.code == ErrorCode::MethodNotFound => {
                self.headless.store(true, Ordering::SeqCst);
                (Reply::Unsupported, None)
            }
            Some(Err(e))
                if e.code == ErrorCode::ServerError(-32800)
                    || e.code == ErrorCode::RequestCancelled =>
            {
                (Reply::Cancelled, None)
            }
            Some(Err(_)) => (Reply::ClientError, None),
            Some(Ok(r)) => reply_of(r),
        }
    }

    fn headless(&self) -> bool {
        self.headless.load(Ordering::SeqCst)
    }
}

/// The decision of a reply, with the user's review of a write (spec/sessions.md §4.4): a reply
/// carrying both `content` and `hunks` is malformed.
fn reply_of(r: ApproveResult) -> (Reply, Option<Review>) {
    let review = match (r.content, r.hunks) {
        (Some(_), Some(_)) => return (Reply::ClientError, None),
        (Some(t), None) => Some(Review::Content(t)),
        (None, Some(h)) => Some(Review::Hunks(h)),
        (None, None) => None,
    };
    match r.decision {
        Decision::AllowOnce => (Reply::AllowOnce, review),
        Decision::AllowSession => (Reply::AllowSession, review),
        Decision::Deny => (Reply::Deny, None),
    }
}

/// Releases a running slot when the run ends, however it ends.
struct Slot(Arc<Sessions>);
impl Drop for Slot {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `alisio/runSession`.
pub async fn run(
    client: Client,
    sessions: Arc<Sessions>,
    snap: Snapshot,
    params: RunSessionParams,
) -> Result<RunSessionResult, Error> {
    let (opts, cfg) = options(&snap, &params)?;
    if sessions.running.fetch_add(1, Ordering::SeqCst) >= MAX_RUNNING {
        sessions.running.fetch_sub(1, Ordering::SeqCst);
        return Err(error(
            -32603,
            format!("Too many sessions running ({MAX_RUNNING})"),
        ));
    }
    let slot = Slot(sessions.clone());
    let registration = sessions.register(params.work_done_token.as_ref());
    let cancel = registration.cancel.clone();
    let progress = match &params.work_done_token {
        Some(t) => Some(
            client
                .progress(t.clone(), "Agent session")
                .with_cancel_button()
                .begin()
                .await,
        ),
        None => None,
    };
    let handle = tokio::runtime::Handle::current();
    let approver = LspApprover {
        client: client.clone(),
        handle: handle.clone(),
        headless: AtomicBool::new(false),
        timeout: Duration::from_millis(opts.config.approval_timeout_ms),
    };
    let context = Arc::new(DiskContext::new(
        cfg.root.clone(),
        cfg.settings.clone(),
        cfg.trusted,
        snap.env.clone(),
    ));
    let grants_for = |id: &str| {
        sessions
            .grants
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(id.to_string())
            .or_default()
            .clone()
    };
    let grants = opts.session_id.as_deref().map_or_else(
        || Arc::new(Mutex::new(SessionGrants::default())),
        grants_for,
    );
    let kept_grants = grants.clone();
    let tasks = sessions.tasks.clone();
    let run_cancel = cancel;
    let (events_tx, events_rx) = tokio::sync::mpsc::unbounded_channel::<(Value, Event)>();
    let forward = tokio::spawn(forward_events(client.clone(), progress, events_rx));
    let job = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let mut sink = |ev: &Emitted<'_>| {
            let _ = events_tx.send((ev.json.clone(), ev.event.clone()));
        };
        run_session(SessionRun {
            options: &opts,
            context,
            sink: &mut sink,
            approver: Some(&approver),
            grants,
            tasks,
            cancel: run_cancel,
        })
    });
    let outcome = job.await;
    let _ = forward.await;
    registration.done.store(true, Ordering::SeqCst);
    drop(registration);
    match outcome {
        Err(e) => Err(error(-32603, format!("the session failed: {e}"))),
        Ok(Err(PreRunError::Usage(m))) => Err(invalid(m)),
        Ok(Err(e @ PreRunError::Busy(_))) => Err(error(-32002, e.message())),
        Ok(Err(e)) => Err(error(-32603, e.message())),
        Ok(Ok(r)) => {
            // Keep the session's grants for its next run in this server.
            sessions
                .grants
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .entry(r.session_id.clone())
                .or_insert(kept_grants);
            Ok(RunSessionResult {
                session_id: r.session_id,
                status: match r.status {
                    RunStatus::Completed => RunStatusName::Completed,
                    RunStatus::Failed => RunStatusName::Failed,
                    RunStatus::Cancelled => RunStatusName::Cancelled,
                },
                text: r.text,
                report: r.report,
            })
        }
    }
}

/// Forwards a run's events in order as `alisio/sessionEvent`; progress reports ride along. The
/// first event (`run_started`) names the root session; only its terminal event ends the
/// progress (children have their own).
async fn forward_events(
    client: Client,
    progress: Option<
        tower_lsp_server::OngoingProgress<
            tower_lsp_server::Unbounded,
            tower_lsp_server::Cancellable,
        >,
    >,
    mut events_rx: tokio::sync::mpsc::UnboundedReceiver<(Value, Event)>,
) {
    let mut progress = progress;
    // The first event (run_started) names the root session; only its terminal event ends
    // the progress (children have their own).
    let mut root: Option<String> = None;
    while let Some((json, event)) = events_rx.recv().await {
        let sid = json["sessionId"].as_str().unwrap_or_default().to_owned();
        let is_root = root.get_or_insert_with(|| sid.clone()) == &sid;
        if let Some(p) = &progress {
            match &event {
                Event::ToolStarted(d) => p.report_with_message(d.name.clone(), None).await,
                Event::TurnCompleted(d) => {
                    p.report_with_message(format!("Turn {}", d.turn), None)
                        .await;
                }
                _ => {}
            }
        }
        client
            .send_notification::<SessionEvent>(SessionEventParams {
                session_id: sid,
                event: json,
            })
            .await;
        let end = match &event {
            Event::RunCompleted(_) => Some("completed".to_string()),
            Event::RunCancelled(_) => Some("cancelled".to_string()),
            Event::RunFailed(d) => {
                Some(format!("failed: {}", d.error.as_deref().unwrap_or("error")))
            }
            _ => None,
        };
        if is_root
            && let Some(msg) = end
            && let Some(p) = progress.take()
        {
            p.finish_with_message(msg).await;
        }
    }
    if let Some(p) = progress.take() {
        p.finish().await;
    }
}

fn store(snap: &Snapshot) -> Result<(Store, PathBuf), Error> {
    let dir = snap
        .env
        .state_home()
        .ok_or_else(|| error(-32603, "cannot determine the state directory"))?;
    Ok((Store::open(&dir).map_err(|e| error(-32603, e))?, dir))
}

/// `alisio/listSessions {}`.
pub fn list(snap: &Snapshot) -> Result<Vec<SessionSummary>, Error> {
    let folder = snap.folders.first().cloned().unwrap_or_default();
    let cfg = analysis::folder_config(snap, &folder);
    let (store, _) = store(snap)?;
    let rows = read::list(&store, &cfg.root.to_string_lossy(), false, false)
        .map_err(|e| error(-32603, e))?;
    rows.into_iter()
        .map(|v| serde_json::from_value(v).map_err(|e| error(-32603, e.to_string())))
        .collect()
}

/// `alisio/sessionTranscript {sessionId}`: the export of `sessions show <id> --json`.
pub fn transcript(snap: &Snapshot, id: &str) -> Result<read::Transcript, Error> {
    let (store, _) = store(snap)?;
    read::show(&store, id, false).map_err(invalid)
}

/// `alisio/checkpoints {sessionId}` (spec/sessions.md §13.3).
pub fn checkpoints(snap: &Snapshot, id: &str) -> Result<Vec<super::ext::CheckpointInfo>, Error> {
    let (store, _) = store(snap)?;
    let id = store.resolve_id(id).map_err(invalid)?;
    alisio_session::checkpoints::list(&store, &id).map_err(|e| error(-32603, e.to_string()))
}

/// `alisio/rewind {sessionId, checkpoint, resolve?}` (spec/sessions.md §13.3): refused while
/// the session runs (-32002).
pub fn rewind(snap: &Snapshot, p: &RewindParams) -> Result<RewindResult, Error> {
    let folder = snap.folders.first().cloned().unwrap_or_default();
    let cfg = analysis::folder_config(snap, &folder);
    let (mut store, dir) = store(snap)?;
    let req = alisio_session::checkpoints::RewindRequest {
        state_dir: &dir,
        root: &cfg.root,
        session_id: &p.session_id,
        checkpoint: p.checkpoint,
        resolve: p.resolve,
    };
    alisio_session::checkpoints::rewind(&mut store, &req).map_err(|e| {
        if e.is_busy() {
            error(-32002, e.to_string())
        } else if e.is_not_found() {
            invalid(e.to_string())
        } else {
            error(-32603, e.to_string())
        }
    })
}

fn changes_req<'a>(
    cfg: &'a super::results::FolderConfig,
    dir: &'a std::path::Path,
    id: &'a str,
) -> alisio_session::checkpoints::ChangesRequest<'a> {
    alisio_session::checkpoints::ChangesRequest {
        state_dir: dir,
        root: &cfg.root,
        session_id: id,
    }
}

fn changes_error(e: alisio_session::checkpoints::ChangesError) -> Error {
    if matches!(e, alisio_session::checkpoints::ChangesError::UndoRefused(_)) {
        error(-32803, e.to_string())
    } else if e.is_not_found() {
        invalid(e.to_string())
    } else if e.is_busy() {
        error(-32002, e.to_string())
    } else {
        error(-32603, e.to_string())
    }
}

/// `alisio/sessionChanges {sessionId}` (spec/sessions.md §13.4).
pub fn changes(snap: &Snapshot, id: &str) -> Result<Vec<super::ext::Change>, Error> {
    let cfg = analysis::folder_config(snap, &snap.folders.first().cloned().unwrap_or_default());
    let (store, dir) = store(snap)?;
    alisio_session::checkpoints::changes(&store, &changes_req(&cfg, &dir, id))
        .map_err(changes_error)
}

/// `alisio/keepChanges {sessionId, paths?}`.
pub fn keep(
    snap: &Snapshot,
    p: &super::ext::KeepChangesParams,
) -> Result<super::ext::KeepChangesResult, Error> {
    let cfg = analysis::folder_config(snap, &snap.folders.first().cloned().unwrap_or_default());
    let (mut store, dir) = store(snap)?;
    let kept = alisio_session::checkpoints::keep(
        &mut store,
        &changes_req(&cfg, &dir, &p.session_id),
        &p.paths,
    )
    .map_err(changes_error)?;
    Ok(super::ext::KeepChangesResult { kept })
}

/// `alisio/undoChange {sessionId, path, hunks?}`.
pub fn undo(
    snap: &Snapshot,
    p: &super::ext::UndoChangeParams,
) -> Result<super::ext::UndoChangeResult, Error> {
    let cfg = analysis::folder_config(snap, &snap.folders.first().cloned().unwrap_or_default());
    let (mut store, dir) = store(snap)?;
    let change = alisio_session::checkpoints::undo(
        &mut store,
        &changes_req(&cfg, &dir, &p.session_id),
        &p.path,
        p.hunks.as_deref(),
    )
    .map_err(changes_error)?;
    Ok(super::ext::UndoChangeResult { change })
}

/// `alisio/contextReport {sessionId}` and `alisio.showContextReport [sessionId]`.
pub fn report(snap: &Snapshot, id: &str) -> Result<ContextReport, Error> {
    let folder = snap.folders.first().cloned().unwrap_or_default();
    let cfg = analysis::folder_config(snap, &folder);
    let (store, _) = store(snap)?;
    let ctx = DiskContext::new(
        cfg.root.clone(),
        cfg.settings.clone(),
        cfg.trusted,
        snap.env.clone(),
    );
    // As the editor's next run would offer its tools: it can ask for approval.
    let sc = SessionConfig::from_layers(&cfg.layers);
    let policies = sc.policies(&[], false, false);
    read::report(&store, id, &cfg.settings, policies, &ctx).map_err(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(s: &Sessions) -> (usize, usize) {
        (
            s.live.lock().unwrap().len(),
            s.by_token.lock().unwrap().len(),
        )
    }

    #[test]
    fn a_run_registered_after_the_input_ended_is_cancelled_at_once() {
        let s = Arc::new(Sessions::default());
        let before = s.register(None);
        assert!(!before.cancel.load(Ordering::SeqCst));
        s.cancel_all();
        assert!(before.cancel.load(Ordering::SeqCst));
        let after = s.register(Some(&NumberOrString::String("t".into())));
        assert!(after.cancel.load(Ordering::SeqCst));
    }

    #[test]
    fn a_dropped_request_cancels_its_run_and_leaves_no_flag_behind() {
        let s = Arc::new(Sessions::default());
        let token = NumberOrString::Number(7);
        let r = s.register(Some(&token));
        let cancel = r.cancel.clone();
        assert_eq!(flags(&s), (1, 1));
        drop(r);
        assert!(cancel.load(Ordering::SeqCst));
        assert_eq!(flags(&s), (0, 0));
    }

    #[test]
    fn a_run_that_ended_by_itself_is_not_cancelled_and_keeps_a_reused_tokens_flag() {
        let s = Arc::new(Sessions::default());
        let token = NumberOrString::String("same".into());
        let first = s.register(Some(&token));
        let second = s.register(Some(&token));
        first.done.store(true, Ordering::SeqCst);
        let cancel = first.cancel.clone();
        drop(first);
        assert!(!cancel.load(Ordering::SeqCst));
        assert_eq!(flags(&s), (1, 1));
        s.cancel_token(&token);
        assert!(second.cancel.load(Ordering::SeqCst));
    }
}
