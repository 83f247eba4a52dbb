//! Rewinding a session to a checkpoint (spec/sessions.md §13.3): the plan (what each file
//! needs, and which of those files the user changed since the checkpoint), the question when
//! such a conflict exists, then the files and the conversation.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::blobs::Blobs;
use super::error::CheckpointError;
use super::manifest::Manifest;
use super::scan::scan;
use super::{prompt_after, skipped};
use crate::store::{self, NewSnap, SnapKind, SnapRow, Store};
use crate::util::sha256_hex;

/// What to do with files the user changed after the checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolve {
    /// Change nothing and list them (the default: the rewind asks).
    #[default]
    Ask,
    /// Rewind, leaving those files as the user left them.
    Keep,
    /// Rewind them too.
    Overwrite,
}

/// One file the rewind changes, or would change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    /// `restore` (back to its bytes at the checkpoint), `create` (it did not exist since),
    /// `delete` (it did not exist at the checkpoint).
    pub action: String,
    /// The user changed it after the checkpoint.
    pub conflict: bool,
}

/// How many messages left and re-entered the active transcript.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageCounts {
    pub removed: usize,
    pub restored: usize,
}

/// The result of `alisio/rewind` and `sessions rewind --json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewindReport {
    pub session_id: String,
    pub checkpoint: i64,
    /// False when the rewind asked instead (conflicts with `resolve: "ask"`): nothing changed.
    pub rewound: bool,
    /// The prompt of the turn rewound away (for the editor to offer again).
    pub prompt: Option<String>,
    pub files: Vec<FileChange>,
    /// Files the user changed after the checkpoint that the rewind would change.
    pub conflicts: Vec<String>,
    /// Conflicts left as the user left them (`resolve: "keep"`).
    pub kept: Vec<String>,
    /// Files whose bytes at the checkpoint were not kept (over the size caps): left alone.
    pub unrestorable: Vec<String>,
    /// Files that changed while the rewind ran, or could not be written: left alone.
    pub failed: Vec<String>,
    pub messages: MessageCounts,
}

/// Paths whose entry differs between two manifests.
fn changed(a: &Manifest, b: &Manifest, out: &mut BTreeSet<String>) {
    for p in a.files.keys().chain(b.files.keys()) {
        if !Manifest::same(a.files.get(p), b.files.get(p)) {
            out.insert(p.clone());
        }
    }
}

/// The files the user changed since snapshot `from` (its index in `marks`): every step into a
/// `start` or `pre` mark happened outside the session's calls, and so did everything since
/// the last mark.
fn user_changed(marks: &[(SnapRow, Manifest)], from: usize, now: &Manifest) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for w in marks[from..].windows(2) {
        if matches!(
            w[1].0.kind,
            SnapKind::Start | SnapKind::Pre | SnapKind::Keep
        ) {
            changed(&w[0].1, &w[1].1, &mut out);
        }
    }
    if let Some(last) = marks.last() {
        changed(&last.1, now, &mut out);
    }
    out
}

/// The changes that bring `now` back to `target`, in path order.
fn plan(target: &Manifest, now: &Manifest, user: &BTreeSet<String>) -> Vec<FileChange> {
    let paths: BTreeSet<&String> = target.files.keys().chain(now.files.keys()).collect();
    paths
        .into_iter()
        .filter(|p| !Manifest::same(target.files.get(*p), now.files.get(*p)))
        .map(|p| FileChange {
            path: p.clone(),
            action: match (target.files.get(p), now.files.get(p)) {
                (None, _) => "delete",
                (Some(_), None) => "create",
                _ => "restore",
            }
            .to_string(),
            conflict: user.contains(p),
        })
        .collect()
}

/// Applies one change, after checking the file still holds what the scan saw.
fn apply_one(
    root: &Path,
    blobs: &Blobs,
    c: &FileChange,
    target: &Manifest,
    now: &Manifest,
) -> Result<(), CheckpointError> {
    let real = root.join(&c.path);
    let current = match std::fs::symlink_metadata(&real) {
        Ok(m) if m.is_file() => Some(std::fs::read(&real)?),
        Ok(_) => return Err(CheckpointError::NotAFile),
        Err(_) => None,
    };
    let seen = now.files.get(&c.path);
    let still = match (&current, seen) {
        (None, None) => true,
        (Some(b), Some(e)) => e.sha.as_ref().is_none_or(|s| *s == sha256_hex(b)),
        _ => false,
    };
    if !still {
        return Err(CheckpointError::ChangedDuringRewind);
    }
    match target.files.get(&c.path) {
        None => Ok(std::fs::remove_file(&real)?),
        Some(e) => {
            let sha = e.sha.as_ref().ok_or(CheckpointError::NotKept)?;
            let bytes = blobs.get(sha)?;
            crate::tools::files::atomic_replace(&real, &c.path, &bytes, current.as_deref())
                .map(|_| ())
                .map_err(CheckpointError::Write)
        }
    }
}

/// What a rewind is asked to do.
pub struct RewindRequest<'a> {
    pub state_dir: &'a Path,
    pub root: &'a Path,
    pub session_id: &'a str,
    pub checkpoint: i64,
    pub resolve: Resolve,
}

/// Why a rewind did not happen.
#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    /// An unknown or ambiguous session, a busy one (`StoreError::Busy`), the store itself.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    #[error("Checkpoint {checkpoint} not found in session {session}")]
    CheckpointNotFound { checkpoint: i64, session: String },
    /// Snapshot, blob and scan errors.
    #[error(transparent)]
    Snapshot(#[from] CheckpointError),
}

impl RewindError {
    /// The session runs in another process (LSP -32002).
    #[must_use]
    pub const fn is_busy(&self) -> bool {
        matches!(self, Self::Store(store::StoreError::Busy(_)))
    }

    /// The request names no session or checkpoint (LSP -32602).
    #[must_use]
    pub const fn is_not_found(&self) -> bool {
        matches!(
            self,
            Self::CheckpointNotFound { .. }
                | Self::Store(store::StoreError::NotFound(_) | store::StoreError::Ambiguous(_))
        )
    }
}

/// Rewinds a session to a checkpoint (spec/sessions.md §13.3), under the session's lock.
///
/// # Errors
/// An unknown session or checkpoint, a busy session, store and snapshot errors.
pub fn rewind(store: &mut Store, req: &RewindRequest<'_>) -> Result<RewindReport, RewindError> {
    let sid = store.resolve_id(req.session_id)?;
    let _lock = store::lock(req.state_dir, &sid)?;
    let blobs = Blobs::of_state(req.state_dir);
    let rows = store.snapshots(&sid)?;
    let Some(at) = rows
        .iter()
        .position(|r| r.kind == SnapKind::Start && r.checkpoint == Some(req.checkpoint))
    else {
        return Err(RewindError::CheckpointNotFound {
            checkpoint: req.checkpoint,
            session: sid,
        });
    };
    let cp = rows[at].clone();
    let mut marks: Vec<(SnapRow, Manifest)> = Vec::new();
    for r in &rows[at..] {
        if let Some(sha) = &r.manifest {
            marks.push((r.clone(), blobs.manifest(sha)?));
        }
    }
    let cache = marks.last().map(|m| m.1.clone()).unwrap_or_default();
    let skip = skipped(req.root, req.state_dir);
    let (now, _) = scan(req.root, &skip, &blobs, &cache)?;
    // The files of the first checkpoint from here on that recorded them (a run that could not
    // change files has none; nothing of the session changed files before that one).
    let target = rows[at..]
        .iter()
        .find(|r| r.kind == SnapKind::Start && r.manifest.is_some())
        .and_then(|r| marks.iter().position(|m| m.0.id == r.id));
    let mut report = RewindReport {
        session_id: sid.clone(),
        checkpoint: req.checkpoint,
        prompt: prompt_after(&store.all_messages(&sid)?, cp.at_seq).map(|p| p.1),
        ..RewindReport::default()
    };
    if let Some(t) = target {
        let user = user_changed(&marks, t, &now);
        report.files = plan(&marks[t].1, &now, &user);
        report.conflicts = report
            .files
            .iter()
            .filter(|c| c.conflict)
            .map(|c| c.path.clone())
            .collect();
        if !report.conflicts.is_empty() && req.resolve == Resolve::Ask {
            return Ok(report);
        }
        let target_m = &marks[t].1;
        for c in &report.files {
            if c.conflict && req.resolve == Resolve::Keep {
                report.kept.push(c.path.clone());
                continue;
            }
            if target_m.files.get(&c.path).is_some_and(|e| e.sha.is_none()) {
                report.unrestorable.push(c.path.clone());
                continue;
            }
            if let Err(e) = apply_one(req.root, &blobs, c, target_m, &now) {
                tracing::warn!("rewind of {}: {e}", c.path);
                report.failed.push(c.path.clone());
            }
        }
    }
    report.rewound = true;
    let (after, _) = scan(req.root, &skip, &blobs, &now)?;
    let pre_sha = blobs.put_manifest(&now)?;
    let post_sha = blobs.put_manifest(&after)?;
    report.messages = restore_messages(store, &sid, &cp, (&pre_sha, &post_sha))?;
    Ok(report)
}

/// The conversation back to the checkpoint's active transcript, in one transaction with the
/// `pre` and `rewind` marks: rows added since leave the active transcript (kept, compacted);
/// rows active then and not now (a later compaction or reduction took them out) come back as
/// copies at their `pos`.
fn restore_messages(
    store: &mut Store,
    sid: &str,
    cp: &SnapRow,
    (pre, post): (&str, &str),
) -> Result<MessageCounts, CheckpointError> {
    let all = store.all_messages(sid)?;
    let then: HashSet<i64> = cp.active.iter().copied().collect();
    let by_seq: BTreeMap<i64, &store::MsgRow> = all.iter().map(|m| (m.seq, m)).collect();
    let out: Vec<i64> = all
        .iter()
        .filter(|m| !m.compacted && !then.contains(&m.seq))
        .map(|m| m.seq)
        .collect();
    let mut back: Vec<&store::MsgRow> = cp
        .active
        .iter()
        .filter_map(|s| by_seq.get(s).copied())
        .filter(|m| m.compacted)
        .collect();
    back.sort_by_key(|m| m.pos);
    let counts = MessageCounts {
        removed: out.len(),
        restored: back.len(),
    };
    let at_seq = store.max_seq(sid)?;
    store.tx(|tx| {
        tx.add_snapshot(
            sid,
            &NewSnap {
                kind: SnapKind::Pre,
                checkpoint: None,
                manifest: Some(pre),
                active: &[],
                at_seq,
                paths: &[],
            },
        )?;
        for s in &out {
            tx.rewind_out(sid, *s)?;
        }
        for m in &back {
            tx.append_message(
                sid,
                Some(m.pos),
                m.role,
                m.kind,
                &m.json,
                m.run_id.as_deref(),
            )?;
        }
        tx.add_snapshot(
            sid,
            &NewSnap {
                kind: SnapKind::Rewind,
                checkpoint: Some(cp.checkpoint.unwrap_or(0)),
                manifest: Some(post),
                active: &[],
                at_seq,
                paths: &[],
            },
        )?;
        Ok(())
    })?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{SessionRow, StoreError};
    use crate::util::now_rfc3339;

    fn request<'a>(dir: &'a Path, session_id: &'a str) -> RewindRequest<'a> {
        RewindRequest {
            state_dir: dir,
            root: dir,
            session_id,
            checkpoint: 7,
            resolve: Resolve::Ask,
        }
    }

    #[test]
    fn a_rewind_fails_with_the_typed_case_of_each_refusal() {
        let d = tempfile::tempdir().unwrap();
        let mut s = Store::open(d.path()).unwrap();
        let e = rewind(&mut s, &request(d.path(), "nope")).unwrap_err();
        assert!(e.is_not_found() && !e.is_busy(), "{e:?}");
        assert_eq!(e.to_string(), "Session not found: nope");
        s.tx(|tx| {
            tx.insert_session(&SessionRow {
                id: "s1".into(),
                title: "t".into(),
                workspace: "/w".into(),
                cwd: "/w".into(),
                created_at: now_rfc3339(),
                updated_at: now_rfc3339(),
                parent_id: None,
                parent_call_id: None,
                provider: serde_json::json!({"kind":"script"}),
                options: serde_json::json!({}),
                compacted_chars: 0,
            })
        })
        .unwrap();
        let e = rewind(&mut s, &request(d.path(), "s1")).unwrap_err();
        assert!(
            matches!(&e, RewindError::CheckpointNotFound { checkpoint: 7, session } if session == "s1")
        );
        assert!(e.is_not_found());
        assert_eq!(e.to_string(), "Checkpoint 7 not found in session s1");
        let _held = store::lock(d.path(), "s1").unwrap();
        let e = rewind(&mut s, &request(d.path(), "s1")).unwrap_err();
        assert!(matches!(&e, RewindError::Store(StoreError::Busy(_))));
        assert!(e.is_busy() && !e.is_not_found());
    }
}
