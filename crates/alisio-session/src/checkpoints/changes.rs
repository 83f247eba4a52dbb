//! The changes of a session (spec/sessions.md §13.4): the files its calls changed (writes,
//! edits, process calls and sub-agents, found by comparing its snapshots), each against its
//! baseline, the bytes before the session's first change (or what the user last kept). Keep
//! makes the current text the baseline; Undo, per file or per hunk, writes the baseline back,
//! and is refused when the user changed the file again since the session did.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::blobs::Blobs;
use super::error::CheckpointError;
use super::manifest::{Manifest, SnapshotFile};
use super::scan::scan;
use super::skipped;
use crate::diff::{self, Hunk};
use crate::store::{NewSnap, SnapKind, SnapRow, Store, StoreError};
use crate::util::sha256_hex;

/// Text over this many bytes (or not UTF-8) is not shown, and undone only as a whole file.
const TEXT_MAX: u64 = 1_048_576;

/// One file the session changed, as `alisio/sessionChanges` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub path: String,
    /// `added`, `modified` or `deleted`, against the baseline.
    pub status: String,
    /// The baseline text (`null`: no file, or not shown: see `truncated`).
    pub before: Option<String>,
    /// The current text (`null`: no file, or not shown).
    pub after: Option<String>,
    /// Over 1 MiB or not UTF-8 on a side: no texts, no hunks.
    pub truncated: bool,
    pub hunks: Vec<Hunk>,
    /// The sha256 of the current bytes (`null`: no file).
    pub sha256: Option<String>,
    /// The user changed the file after the session's last change of it: Undo is refused.
    pub user_changed: bool,
}

/// Why a review of a session's changes failed (spec/sessions.md §13.4); `Display` is the message.
#[derive(Debug, thiserror::Error)]
pub enum ChangesError {
    /// An unknown or ambiguous session, the store itself.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A path the session did not change (LSP -32602).
    #[error("Not a change of this session: {0}")]
    NotAChange(String),
    /// The undo would overwrite the user's change, or cannot apply (LSP -32803, nothing written).
    #[error("Undo refused: {0}")]
    UndoRefused(String),
    /// Snapshot, blob and scan errors.
    #[error(transparent)]
    Snapshot(#[from] CheckpointError),
    /// A file the undo cannot write or remove.
    #[error("{0}")]
    Failed(String),
    /// A file the undo cannot write (the atomic replace of the base crate).
    #[error(transparent)]
    Write(alisio_base::workspace::write::WriteError),
}

impl ChangesError {
    /// The session runs in another process (LSP -32002).
    #[must_use]
    pub const fn is_busy(&self) -> bool {
        matches!(self, Self::Store(StoreError::Busy(_)))
    }

    /// The request names no session or no change of it (LSP -32602).
    #[must_use]
    pub const fn is_not_found(&self) -> bool {
        matches!(
            self,
            Self::NotAChange(_) | Self::Store(StoreError::NotFound(_) | StoreError::Ambiguous(_))
        )
    }
}

/// What a session's snapshots say about its files.
struct History {
    blobs: Blobs,
    baseline: Manifest,
    /// Paths a session transition changed, with the entry that transition left.
    by_session: BTreeMap<String, Option<SnapshotFile>>,
    /// The manifests after each session's last change, in order, and their kinds.
    marks: Vec<(SnapRow, Manifest)>,
}

fn history(store: &Store, state_dir: &Path, sid: &str) -> Result<History, ChangesError> {
    let blobs = Blobs::of_state(state_dir);
    let mut marks = Vec::new();
    for r in store.snapshots(sid)? {
        if let Some(sha) = &r.manifest {
            let m = blobs.manifest(sha)?;
            marks.push((r, m));
        }
    }
    let mut baseline = marks
        .iter()
        .find(|m| m.0.kind == SnapKind::Start)
        .map(|m| m.1.clone())
        .unwrap_or_default();
    let mut by_session = BTreeMap::new();
    for w in marks.windows(2) {
        let (a, b) = (&w[0].1, &w[1].1);
        match w[1].0.kind {
            SnapKind::Tool | SnapKind::Rewind | SnapKind::Undo => {
                let paths: BTreeSet<&String> = a.files.keys().chain(b.files.keys()).collect();
                for p in paths {
                    if !Manifest::same(a.files.get(p), b.files.get(p)) {
                        by_session.insert(p.clone(), b.files.get(p).cloned());
                    }
                }
            }
            SnapKind::Keep => {
                for p in &w[1].0.paths {
                    match b.files.get(p) {
                        Some(e) => baseline.files.insert(p.clone(), e.clone()),
                        None => baseline.files.remove(p),
                    };
                }
            }
            SnapKind::Start | SnapKind::Pre => {}
        }
    }
    Ok(History {
        blobs,
        baseline,
        by_session,
        marks,
    })
}

fn text_of(
    blobs: &Blobs,
    e: Option<&SnapshotFile>,
) -> Result<(Option<String>, bool), ChangesError> {
    let Some(e) = e else { return Ok((None, false)) };
    let Some(sha) = &e.sha else {
        return Ok((None, true));
    };
    if e.size > TEXT_MAX {
        return Ok((None, true));
    }
    match String::from_utf8(blobs.get(sha)?) {
        Ok(t) => Ok((Some(t), false)),
        Err(_) => Ok((None, true)),
    }
}

impl History {
    /// The changes against `now`, in path order.
    fn changes(&self, now: &Manifest) -> Result<Vec<Change>, ChangesError> {
        let mut out = Vec::new();
        for (p, left) in &self.by_session {
            let (base, cur) = (self.baseline.files.get(p), now.files.get(p));
            if Manifest::same(base, cur) {
                continue;
            }
            let (before, tb) = text_of(&self.blobs, base)?;
            let (after, ta) = text_of(&self.blobs, cur)?;
            let truncated = tb || ta;
            let hunks = if truncated {
                Vec::new()
            } else {
                diff::hunks(
                    before.as_deref().unwrap_or(""),
                    after.as_deref().unwrap_or(""),
                )
            };
            out.push(Change {
                path: p.clone(),
                status: match (base, cur) {
                    (None, _) => "added",
                    (_, None) => "deleted",
                    _ => "modified",
                }
                .into(),
                before: if truncated { None } else { before },
                after: if truncated { None } else { after },
                truncated,
                hunks,
                sha256: cur.and_then(|e| e.sha.clone()),
                user_changed: !Manifest::same(left.as_ref(), cur),
            });
        }
        Ok(out)
    }
}

/// Where a session's files are.
pub struct ChangesRequest<'a> {
    pub state_dir: &'a Path,
    pub root: &'a Path,
    pub session_id: &'a str,
}

fn now_of(req: &ChangesRequest<'_>, h: &History) -> Result<Manifest, ChangesError> {
    let cache = h.marks.last().map(|m| m.1.clone()).unwrap_or_default();
    Ok(scan(
        req.root,
        &skipped(req.root, req.state_dir),
        &h.blobs,
        &cache,
    )?
    .0)
}

/// The session's changes now (spec/sessions.md §13.4).
///
/// # Errors
/// An unknown session, store and snapshot errors.
pub fn changes(store: &Store, req: &ChangesRequest<'_>) -> Result<Vec<Change>, ChangesError> {
    let sid = store.resolve_id(req.session_id)?;
    let h = history(store, req.state_dir, &sid)?;
    let now = now_of(req, &h)?;
    h.changes(&now)
}

fn mark(
    store: &mut Store,
    sid: &str,
    kind: SnapKind,
    manifest: &str,
    paths: &[String],
) -> Result<(), ChangesError> {
    let at_seq = store.max_seq(sid)?;
    store.tx(|tx| {
        tx.add_snapshot(
            sid,
            &NewSnap {
                kind,
                checkpoint: None,
                manifest: Some(manifest),
                active: &[],
                at_seq,
                paths,
            },
        )
        .map(|_| ())
    })?;
    Ok(())
}

/// Keeps the session's changes of `paths` (all of them when empty): their current text becomes
/// the baseline. Returns the paths kept.
///
/// # Errors
/// An unknown session, a path the session did not change, store and snapshot errors.
pub fn keep(
    store: &mut Store,
    req: &ChangesRequest<'_>,
    paths: &[String],
) -> Result<Vec<String>, ChangesError> {
    let sid = store.resolve_id(req.session_id)?;
    let h = history(store, req.state_dir, &sid)?;
    let now = now_of(req, &h)?;
    let listed: Vec<String> = h.changes(&now)?.into_iter().map(|c| c.path).collect();
    let kept: Vec<String> = if paths.is_empty() {
        listed
    } else {
        for p in paths {
            if !listed.contains(p) {
                return Err(ChangesError::NotAChange(p.clone()));
            }
        }
        paths.to_vec()
    };
    let sha = h.blobs.put_manifest(&now)?;
    mark(store, &sid, SnapKind::Keep, &sha, &kept)?;
    Ok(kept)
}

/// Undoes the session's change of `path`: the whole file back to its baseline, or, with
/// `hunks` (one flag per hunk of the change, `true`: undo it), those hunks only. Returns the
/// change as it is afterwards (`None`: nothing of it is left).
///
/// # Errors
/// `Undo refused: …` when the user changed the file since the session did, when it changed
/// while undoing, or when hunks are asked of a change without text; unknown paths and
/// sessions; I/O errors.
pub fn undo(
    store: &mut Store,
    req: &ChangesRequest<'_>,
    path: &str,
    hunks: Option<&[bool]>,
) -> Result<Option<Change>, ChangesError> {
    let sid = store.resolve_id(req.session_id)?;
    let h = history(store, req.state_dir, &sid)?;
    let now = now_of(req, &h)?;
    let c = h
        .changes(&now)?
        .into_iter()
        .find(|c| c.path == path)
        .ok_or_else(|| ChangesError::NotAChange(path.to_string()))?;
    if c.user_changed {
        return Err(ChangesError::UndoRefused(format!(
            "{path} was changed again after the session changed it; undoing would overwrite those changes"
        )));
    }
    let real = req.root.join(path);
    let current = std::fs::read(&real).ok();
    if current.as_deref().map(sha256_hex) != c.sha256 {
        return Err(ChangesError::UndoRefused(format!(
            "{path} changed while undoing"
        )));
    }
    let target: Option<Vec<u8>> = match hunks {
        None => match h.baseline.files.get(path) {
            None => None,
            Some(e) => Some(h.blobs.get(e.sha.as_ref().ok_or_else(|| {
                ChangesError::UndoRefused(format!("the bytes of {path} before the session were not kept (over the snapshot size cap)"))
            })?)?),
        },
        Some(flags) => {
            let (Some(_), false) = (c.after.as_ref().or(c.before.as_ref()), c.truncated) else {
                return Err(ChangesError::UndoRefused(format!(
                    "{path} has no text to undo hunk by hunk; undo the whole file"
                )));
            };
            let keep: Vec<bool> = flags.iter().map(|u| !u).collect();
            let before = c.before.as_deref().unwrap_or("");
            let text = diff::apply(before, c.after.as_deref().unwrap_or(""), &keep)
                .map_err(|e| ChangesError::UndoRefused(e.to_string()))?;
            (c.before.is_some() || !text.is_empty()).then(|| text.into_bytes())
        }
    };
    match &target {
        None => std::fs::remove_file(&real)
            .map_err(|e| ChangesError::Failed(format!("Cannot undo {path}: {e}")))?,
        Some(bytes) => {
            crate::tools::files::atomic_replace(&real, path, bytes, current.as_deref())
                .map_err(ChangesError::Write)?;
        }
    }
    let (after, _) = scan(req.root, &skipped(req.root, req.state_dir), &h.blobs, &now)?;
    let sha = h.blobs.put_manifest(&after)?;
    mark(store, &sid, SnapKind::Undo, &sha, &[])?;
    let h2 = history(store, req.state_dir, &sid)?;
    Ok(h2.changes(&after)?.into_iter().find(|c| c.path == path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_says_what_the_server_answers_with_and_keeps_its_message() {
        let not_a_change = ChangesError::NotAChange("src/a.rs".into());
        assert_eq!(
            not_a_change.to_string(),
            "Not a change of this session: src/a.rs"
        );
        assert!(not_a_change.is_not_found() && !not_a_change.is_busy());
        let refused = ChangesError::UndoRefused("src/a.rs changed while undoing".into());
        assert_eq!(
            refused.to_string(),
            "Undo refused: src/a.rs changed while undoing"
        );
        assert!(!refused.is_not_found() && !refused.is_busy());
        let unknown = ChangesError::from(StoreError::NotFound("s-1".into()));
        assert_eq!(unknown.to_string(), "Session not found: s-1");
        assert!(unknown.is_not_found());
        let ambiguous = ChangesError::from(StoreError::Ambiguous("0a".into()));
        assert!(ambiguous.is_not_found());
        let busy = ChangesError::from(StoreError::Busy("s-2".into()));
        assert_eq!(busy.to_string(), "Session s-2 is busy in another run");
        assert!(busy.is_busy() && !busy.is_not_found());
        let other = ChangesError::Failed("Cannot undo a: denied".to_string());
        assert_eq!(other.to_string(), "Cannot undo a: denied");
        assert!(!other.is_busy() && !other.is_not_found());
        let sha = "0".repeat(64);
        let damaged = ChangesError::from(CheckpointError::Damaged { sha: sha.clone() });
        assert_eq!(
            damaged.to_string(),
            format!("Snapshot blob {sha} is damaged")
        );
        assert!(!damaged.is_busy() && !damaged.is_not_found());
    }
}
