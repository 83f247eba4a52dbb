//! Checkpoints of a session (spec/sessions.md §13): before each user turn the runner records
//! the workspace's files (a snapshot, `scan.rs`) and the active transcript; after each call that
//! may have changed files it records the workspace again (a `tool` mark), so a rewind can tell
//! the session's changes from the user's. `rewind.rs` restores a checkpoint: files first (the
//! user's own changes since are conflicts, never overwritten without being asked), then the
//! conversation, keeping the rewound branch in the store. `changes.rs` lists, keeps and undoes
//! the session's changes; `blobs.rs` is the blob store (loose blobs and packs); `error.rs` what
//! they fail with.

pub mod blobs;
mod changes;
mod error;
mod manifest;
mod rewind;
pub mod scan;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use blobs::Blobs;
pub use changes::{Change, ChangesError, ChangesRequest, changes, keep, undo};
pub use error::CheckpointError;
pub use manifest::{Manifest, SnapshotFile};
pub use rewind::{
    FileChange, MessageCounts, Resolve, RewindError, RewindReport, RewindRequest, rewind,
};
pub use scan::ScanStats;

use crate::store::{MsgRow, Role, RowKind, SnapKind, SnapRow, Store};

/// The directories a snapshot of `root` leaves out: the state dir when it lies inside the
/// workspace (the store and the blobs themselves).
#[must_use]
pub fn skipped(root: &Path, state_dir: &Path) -> Vec<PathBuf> {
    let state = state_dir
        .canonicalize()
        .unwrap_or_else(|_| state_dir.to_path_buf());
    if state.starts_with(root) {
        vec![state]
    } else {
        Vec::new()
    }
}

/// The snapshots one root run takes, with the last one as the cache of the next.
pub struct SnapshotTracker {
    root: PathBuf,
    skip: Vec<PathBuf>,
    blobs: Blobs,
    last: Manifest,
}

impl SnapshotTracker {
    /// A tracker for a session whose last stored manifest (if any) is the cache.
    #[must_use]
    pub fn new(store: &Store, sid: &str, root: &Path, state_dir: &Path) -> Self {
        let blobs = Blobs::of_state(state_dir);
        let last = store
            .snapshots(sid)
            .ok()
            .and_then(|rows| rows.into_iter().rev().find_map(|r| r.manifest))
            .and_then(|sha| blobs.manifest(&sha).ok())
            .unwrap_or_default();
        Self {
            root: root.to_path_buf(),
            skip: skipped(root, state_dir),
            blobs,
            last,
        }
    }

    /// Snapshots the workspace now; returns the manifest's sha256 and what it cost.
    ///
    /// # Errors
    /// A blob or manifest that cannot be written.
    pub fn take(&mut self) -> Result<(String, ScanStats), CheckpointError> {
        let (m, stats) = scan::scan(&self.root, &self.skip, &self.blobs, &self.last)?;
        let sha = self.blobs.put_manifest(&m)?;
        self.last = m;
        Ok((sha, stats))
    }
}

/// One checkpoint as `alisio/checkpoints` and `sessions rewind` list it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointInfo {
    /// 1, 2, … in the order taken (across rewound branches).
    pub checkpoint: i64,
    pub created_at: String,
    /// The seq of the user message that followed it (`null` when none was stored).
    pub prompt_seq: Option<i64>,
    /// That message's prompt text (the last text part: attachments come before it).
    pub prompt: Option<String>,
    /// Whether the files were recorded (false: the run could not change files; a rewind then
    /// restores the files of the next checkpoint that recorded them).
    pub files: bool,
    /// Whether the prompt is in the active transcript (false: rewound, or compacted).
    pub active: bool,
}

/// The user message stored after a checkpoint, with its prompt text.
pub(crate) fn prompt_after(rows: &[MsgRow], at_seq: i64) -> Option<(i64, String, bool)> {
    rows.iter()
        .find(|m| m.seq > at_seq && m.role == Role::User && m.kind == RowKind::Message)
        .map(|m| {
            let v = m.value();
            let text = v["content"]
                .as_array()
                .and_then(|parts| parts.iter().rev().find_map(|p| p["text"].as_str()))
                .unwrap_or_default()
                .to_string();
            (m.seq, text, !m.compacted)
        })
}

/// The checkpoints of a session, oldest first.
///
/// # Errors
/// Store errors.
pub fn list(store: &Store, sid: &str) -> Result<Vec<CheckpointInfo>, CheckpointError> {
    let rows = store.all_messages(sid)?;
    let mut out = Vec::new();
    for r in store.snapshots(sid)? {
        let SnapRow {
            kind: SnapKind::Start,
            checkpoint: Some(n),
            ..
        } = r
        else {
            continue;
        };
        let p = prompt_after(&rows, r.at_seq);
        out.push(CheckpointInfo {
            checkpoint: n,
            created_at: r.created_at.clone(),
            prompt_seq: p.as_ref().map(|x| x.0),
            prompt: p.as_ref().map(|x| x.1.clone()),
            files: r.manifest.is_some(),
            active: p.is_some_and(|x| x.2),
        });
    }
    Ok(out)
}
