//! The `snapshots` table (schema v2, spec/sessions.md §13): the checkpoints taken before each
//! user turn and the marks that tell the session's changes of workspace files from the user's.
//! Reads are [`Store`] methods, writes [`Tx`] methods, as everywhere in the store.

use rusqlite::params;

use super::{DbResult, Store, StoreError, Tx, sql};
use crate::util::now_rfc3339;

/// What a snapshot row records (spec/sessions.md §13.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapKind {
    /// A checkpoint: the workspace and the conversation before a user turn.
    Start,
    /// The workspace after a call of the session that may have changed files.
    Tool,
    /// The workspace as a rewind found it (what happened since the last mark was the user's).
    Pre,
    /// The workspace right after a rewind.
    Rewind,
    /// The user kept the session's changes of `paths` (they are the new baseline).
    Keep,
    /// The workspace right after the user undid a change of the session.
    Undo,
}

impl SnapKind {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Tool => "tool",
            Self::Pre => "pre",
            Self::Rewind => "rewind",
            Self::Keep => "keep",
            Self::Undo => "undo",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "start" => Self::Start,
            "tool" => Self::Tool,
            "pre" => Self::Pre,
            "rewind" => Self::Rewind,
            "keep" => Self::Keep,
            "undo" => Self::Undo,
            _ => return None,
        })
    }
}

/// One stored snapshot row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapRow {
    /// The session's counter, in the order taken.
    pub id: i64,
    pub kind: SnapKind,
    /// `start`: the checkpoint's number (1, 2, …); `rewind`: the checkpoint rewound to.
    pub checkpoint: Option<i64>,
    /// The sha256 of the manifest blob; `None`: a run that could not change files.
    pub manifest: Option<String>,
    /// `start`: the seqs of the active transcript before the prompt.
    pub active: Vec<i64>,
    /// `start`: the largest message seq when it was taken (the prompt follows it).
    pub at_seq: i64,
    /// `keep`: the paths kept.
    pub paths: Vec<String>,
    pub created_at: String,
}

/// What [`Tx::add_snapshot`] stores.
pub struct NewSnap<'a> {
    pub kind: SnapKind,
    pub checkpoint: Option<i64>,
    pub manifest: Option<&'a str>,
    pub active: &'a [i64],
    pub at_seq: i64,
    pub paths: &'a [String],
}

impl Store {
    /// Every snapshot row of a session, in the order taken.
    ///
    /// # Errors
    /// SQLite errors, or a kind this build does not know.
    pub fn snapshots(&self, sid: &str) -> Result<Vec<SnapRow>, StoreError> {
        let mut st = self
            .connection
            .prepare("SELECT id,kind,checkpoint,manifest,active,at_seq,created_at,paths FROM snapshots WHERE session_id=?1 ORDER BY id")
            .map_err(sql)?;
        let rows = st
            .query_map([sid], |r| {
                let kind: String = r.get(1)?;
                let active: Option<String> = r.get(4)?;
                let paths: Option<String> = r.get(7)?;
                Ok((
                    SnapRow {
                        id: r.get(0)?,
                        kind: SnapKind::Start,
                        checkpoint: r.get(2)?,
                        manifest: r.get(3)?,
                        active: active
                            .and_then(|a| serde_json::from_str(&a).ok())
                            .unwrap_or_default(),
                        at_seq: r.get(5)?,
                        paths: paths
                            .and_then(|a| serde_json::from_str(&a).ok())
                            .unwrap_or_default(),
                        created_at: r.get(6)?,
                    },
                    kind,
                ))
            })
            .map_err(sql)?;
        let mut out = Vec::new();
        for row in rows {
            let (mut s, kind) = row.map_err(sql)?;
            s.kind = SnapKind::parse(&kind).ok_or(StoreError::UnknownSnapshotKind(kind))?;
            out.push(s);
        }
        Ok(out)
    }
}

impl Tx<'_> {
    /// Stores one snapshot row; returns its id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn add_snapshot(&self, sid: &str, s: &NewSnap<'_>) -> DbResult<i64> {
        let id: i64 = self.tx.query_row(
            "SELECT coalesce(max(id),0)+1 FROM snapshots WHERE session_id=?1",
            [sid],
            |r| r.get(0),
        )?;
        let active = (s.kind == SnapKind::Start)
            .then(|| serde_json::to_string(s.active).unwrap_or_else(|_| "[]".into()));
        let paths = (s.kind == SnapKind::Keep)
            .then(|| serde_json::to_string(s.paths).unwrap_or_else(|_| "[]".into()));
        self.tx.execute(
            "INSERT INTO snapshots(session_id,id,kind,checkpoint,manifest,active,at_seq,created_at,paths) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)",
            params![sid, id, s.kind.as_str(), s.checkpoint, s.manifest, active, s.at_seq, now_rfc3339(), paths],
        )?;
        Ok(id)
    }

    /// Takes an active message out of the active transcript for a rewind (the row stays, with
    /// `compacted = 1` and no `replaced_by`: the rewound branch is kept).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn rewind_out(&self, sid: &str, seq: i64) -> DbResult<()> {
        self.tx.execute(
            "UPDATE messages SET compacted=1 WHERE session_id=?1 AND seq=?2 AND compacted=0",
            params![sid, seq],
        )?;
        Ok(())
    }
}
