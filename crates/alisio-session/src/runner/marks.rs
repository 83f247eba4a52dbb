//! Checkpoints and marks of a root run (spec/sessions.md §13.1–§13.2): the checkpoint before
//! the prompt, a `tool` mark after every call that may have changed files. A snapshot that
//! fails is logged and skipped: the run goes on, and that turn cannot be rewound to.

use super::error::RunError;
use std::collections::HashMap;

use super::Run;
use crate::approvals::Policy;
use crate::checkpoints::SnapshotTracker;
use crate::store::{NewSnap, SnapKind};
use crate::tools::review::Reviewed;

/// What a run keeps about the files it may change.
#[derive(Default)]
pub(super) struct Edits {
    /// The snapshots of a root run that may change files (`None` before the first one).
    tracker: Option<SnapshotTracker>,
    /// Approved writes as reviewed, by call id (spec/sessions.md §4.4): applied instead of the
    /// call's own write.
    pub(super) reviewed: HashMap<String, Reviewed>,
}

impl Run<'_> {
    /// Whether the run may change files at all (a write or process tool is offered).
    fn may_change_files(&self) -> bool {
        self.policies.write != Policy::Deny || self.policies.process != Policy::Deny
    }

    /// Snapshots the workspace; `what` names it in the log (`bench/checkpoints.sh` reads it).
    fn snapshot(&mut self, what: &str) -> Option<String> {
        let sid = self.session_id.clone();
        let t0 = std::time::Instant::now();
        let t = self.edits.tracker.get_or_insert_with(|| {
            SnapshotTracker::new(
                &self.store,
                &sid,
                &self.options.root,
                &self.options.state_dir,
            )
        });
        match t.take() {
            Ok((sha, stats)) => {
                tracing::debug!(
                    "snapshot {what}: {} files, {} read, {} bytes kept, {} us",
                    stats.files,
                    stats.hashed,
                    stats.stored,
                    t0.elapsed().as_micros()
                );
                Some(sha)
            }
            Err(e) => {
                tracing::warn!("checkpoint skipped: {e}");
                None
            }
        }
    }

    /// The checkpoint before the prompt: the workspace (when the run may change files) and the
    /// active transcript.
    pub(super) fn checkpoint(&mut self) {
        if self.is_child {
            return;
        }
        let manifest = if self.may_change_files() {
            match self.snapshot("checkpoint") {
                Some(s) => Some(s),
                None => return,
            }
        } else {
            None
        };
        let sid = self.session_id.clone();
        let res = (|| -> Result<(), RunError> {
            let active: Vec<i64> = self
                .store
                .active_messages(&sid)?
                .iter()
                .map(|m| m.seq)
                .collect();
            let at_seq = self.store.max_seq(&sid)?;
            let n = self
                .store
                .snapshots(&sid)?
                .iter()
                .filter(|r| r.kind == SnapKind::Start)
                .count() as i64
                + 1;
            self.store.tx(|tx| {
                tx.add_snapshot(
                    &sid,
                    &NewSnap {
                        kind: SnapKind::Start,
                        checkpoint: Some(n),
                        manifest: manifest.as_deref(),
                        active: &active,
                        at_seq,
                        paths: &[],
                    },
                )
                .map(|_| ())
            })?;
            Ok(())
        })();
        if let Err(e) = res {
            tracing::warn!("checkpoint skipped: {e}");
        }
    }

    /// A `tool` mark after a call that may have changed files.
    pub(super) fn mark_after_call(&mut self) {
        if self.is_child || self.edits.tracker.is_none() {
            return;
        }
        let Some(sha) = self.snapshot("mark") else {
            return;
        };
        let sid = self.session_id.clone();
        let res = self.store.max_seq(&sid).and_then(|at_seq| {
            self.store.tx(|tx| {
                tx.add_snapshot(
                    &sid,
                    &NewSnap {
                        kind: SnapKind::Tool,
                        checkpoint: None,
                        manifest: Some(&sha),
                        active: &[],
                        at_seq,
                        paths: &[],
                    },
                )
                .map(|_| ())
            })
        });
        if let Err(e) = res {
            tracing::warn!("mark skipped: {e}");
        }
    }
}
