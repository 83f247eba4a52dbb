//! The model requests of a session as the store recorded them, for `audit`'s prompt cache
//! (spec/interfaces.md §4.3): one per assistant message row the runner appended (kind
//! `message`, `pos = seq`; compacted rows included, so a compaction loses none; a budget-reduced
//! copy or a rewind's restored copy is not a request), with its model and `usage` extracted by
//! SQLite so no message text is loaded; and the rows that rewrote the conversation between two
//! requests (checkpoints, budget-reduced copies, rewinds).

use rusqlite::params;

use super::{Store, StoreError, sql};

/// One row of [`Store::request_rows`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestRow {
    /// An assistant message the runner appended: one model request.
    Request {
        seq: i64,
        run_id: Option<String>,
        created_at: String,
        /// The message's `model` (`None` when absent or the JSON is not valid).
        model: Option<String>,
        /// The message's `usage` object as JSON text (`None` when absent or the JSON is not
        /// valid).
        usage: Option<String>,
    },
    /// A compaction's checkpoint (kind `checkpoint`).
    Checkpoint { seq: i64 },
    /// A budget reduction's copy (kind `reduced`).
    Reduced { seq: i64 },
}

impl RequestRow {
    /// The row's `seq`.
    #[must_use]
    pub const fn seq(&self) -> i64 {
        match self {
            Self::Request { seq, .. } | Self::Checkpoint { seq } | Self::Reduced { seq } => *seq,
        }
    }
}

impl Store {
    /// The session's requests and the rows that rewrote its conversation, in `seq` order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn request_rows(&self, sid: &str) -> Result<Vec<RequestRow>, StoreError> {
        let mut st = self
            .connection
            .prepare(
                "SELECT seq, kind, run_id, created_at,
                    CASE WHEN json_valid(json) THEN json_extract(json, '$.model') END,
                    CASE WHEN json_valid(json) THEN json_extract(json, '$.usage') END
                 FROM messages WHERE session_id = ?1 AND (
                    (role = 'assistant' AND kind = 'message' AND pos = seq)
                    OR kind IN ('checkpoint', 'reduced'))
                 ORDER BY seq",
            )
            .map_err(sql)?;
        let rows = st
            .query_map(params![sid], |r| {
                let seq: i64 = r.get(0)?;
                let text = |i: usize| -> rusqlite::Result<Option<String>> {
                    Ok(match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Text(t) => {
                            Some(String::from_utf8_lossy(t).into_owned())
                        }
                        _ => None,
                    })
                };
                Ok(match r.get::<_, String>(1)?.as_str() {
                    "checkpoint" => RequestRow::Checkpoint { seq },
                    "reduced" => RequestRow::Reduced { seq },
                    _ => RequestRow::Request {
                        seq,
                        run_id: r.get(2)?,
                        created_at: r.get(3)?,
                        model: text(4)?,
                        usage: text(5)?,
                    },
                })
            })
            .map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }

    /// The `at_seq` of each rewind of the session (the largest seq before it), in order; none
    /// in a store older than v2.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn rewind_seqs(&self, sid: &str) -> Result<Vec<i64>, StoreError> {
        if !self.has_table("snapshots")? {
            return Ok(Vec::new());
        }
        let mut st = self
            .connection
            .prepare(
                "SELECT at_seq FROM snapshots WHERE session_id = ?1 AND kind = 'rewind' ORDER BY id",
            )
            .map_err(sql)?;
        let rows = st.query_map(params![sid], |r| r.get(0)).map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<i64>>>().map_err(sql)
    }

    /// Whether the store has table `name` (an older schema may not).
    pub(super) fn has_table(&self, name: &str) -> Result<bool, StoreError> {
        self.connection
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?1",
                params![name],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(sql)
    }
}
