//! `alisio/auditSessions` (spec/interfaces.md §4.6): the last audit of recent sessions as the
//! protocol's result. Apart from `lsp::audit` so that the diagnostics pass, which reads the
//! audit, does not name the protocol declarations.

use std::path::PathBuf;
use std::sync::Arc;

use super::ext::{AuditSessionsResult, AuditedSession};
use super::results::FolderAudit;
use super::state::Snapshot;
use alisio_session::audit::findings;

/// `alisio/auditSessions`: the last audit of every folder, newest first per client.
#[must_use]
pub fn result(snap: &Snapshot, running: bool) -> AuditSessionsResult {
    let mut folders: Vec<(&PathBuf, &Arc<FolderAudit>)> = snap.audit.iter().collect();
    folders.sort_by(|a, b| a.0.cmp(b.0));
    let sessions = folders
        .into_iter()
        .flat_map(|(_, a)| &a.sessions)
        .map(|(s, f)| AuditedSession {
            file: s.file.clone(),
            client: findings::client_name(s.format).to_owned(),
            format: s.format.to_owned(),
            session: s.session.clone(),
            cwd: s.cwd.clone(),
            client_version: s.client_version.clone(),
            prompts: s.prompts,
            deliveries: s.deliveries.len(),
            requests: s.requests.len(),
            findings: f.clone(),
        })
        .collect();
    AuditSessionsResult {
        enabled: snap.options.audit_enabled,
        running,
        sessions,
    }
}
