//! The background audit of recent sessions (spec/interfaces.md §4.6). It reads only local files
//! (the clients' session files, the workspace), at most `audit.sessions` files per client, each
//! streamed in bounded memory, on a blocking thread of its own: never on the edit path. A pass
//! only locates the findings of the last audit (`lsp::audit`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;

use super::jobs::{Job, lock, refresh_code_lenses};
use super::results::FolderAudit;
use super::state::{Snapshot, State};
use alisio_governor::audit::SessionAudit;
use alisio_session::audit::findings::{self, Lenses, SessionFinding};

/// Audits every folder of the snapshot (blocking: reads session files).
#[must_use]
pub fn compute(snap: &Snapshot) -> HashMap<PathBuf, Arc<FolderAudit>> {
    let mut out = HashMap::new();
    let n = snap.options.audit_sessions;
    for folder in super::analysis::folders(snap) {
        let cfg = super::analysis::folder_config(snap, &folder);
        let fs = alisio_base::workspace::DiskFs;
        let place = alisio_session::audit::Place {
            fs: &fs,
            env: &snap.env,
            root: &cfg.root,
            cwd: &cfg.root,
            settings: &cfg.settings,
        };
        let sessions: Vec<(SessionAudit, Vec<SessionFinding>)> =
            alisio_session::audit::recent(&place, n)
                .into_iter()
                .map(|s| {
                    let f = findings::session_findings(&snap.env, &s);
                    (s, f)
                })
                .collect();
        let refs: Vec<(&SessionAudit, Vec<SessionFinding>)> =
            sessions.iter().map(|(s, f)| (s, f.clone())).collect();
        let audit = FolderAudit {
            pending: findings::pending(&refs),
            lenses: Lenses::new(&snap.env, &refs),
            sessions,
        };
        out.insert(folder, Arc::new(audit));
    }
    out
}

/// Starts a background audit unless one is running (then one more runs after it); with
/// `audit.enabled` off the last audit is dropped instead. When it ends, a pass republishes the
/// diagnostics and the client is asked to refresh its code lenses.
pub fn request(
    client: &Client,
    state: &Arc<Mutex<State>>,
    tx: &tokio::sync::mpsc::UnboundedSender<Job>,
) {
    {
        let mut st = lock(state);
        if !st.options.audit_enabled {
            if !st.audit.is_empty() {
                st.audit = Arc::default();
                let _ = tx.send(Job::Recompute);
            }
            return;
        }
        if st.audit_running {
            st.audit_again = true;
            return;
        }
        st.audit_running = true;
    }
    let (client, state, tx) = (client.clone(), state.clone(), tx.clone());
    tokio::spawn(async move {
        loop {
            let snap = lock(&state).snapshot();
            let done = tokio::task::spawn_blocking(move || compute(&snap)).await;
            let again = {
                let mut st = lock(&state);
                match done {
                    Ok(r) if st.options.audit_enabled => {
                        st.audit = Arc::new(r);
                        st.audit_done = true;
                    }
                    Ok(_) => st.audit = Arc::default(),
                    Err(e) => tracing::error!("session audit failed: {e}"),
                }
                let again = std::mem::take(&mut st.audit_again);
                st.audit_running = again;
                again
            };
            if !again {
                break;
            }
        }
        let _ = tx.send(Job::Recompute);
        refresh_code_lenses(&client, &state);
    });
}
