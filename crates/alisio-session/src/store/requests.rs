//! The model requests of a session as the store recorded them, for `audit`'s prompt cache
//! (spec/interfaces.md §4, §4.3): one per assistant message row the runner appended (kind
//! `message`, `pos = seq`; compacted rows included, so a compaction loses none; a budget-reduced
//! copy or a rewind's restored copy is not a request), with its model, `usage` and `handoff`
//! mark extracted by SQLite so no message text is loaded; the rows that rewrote the conversation
//! between two requests (a compaction's checkpoint, a budget-reduced copy: only rows that some
//! row names in `replaced_by`, so a rewind's restored copy of one is not counted again); the
//! rewinds; and the events that carry a request's time or an answer the runner discarded.

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
        /// The message's `model` (`None` when absent, not a string, or the JSON is not valid).
        model: Option<String>,
        /// The message's `usage` object as JSON text (`None` when absent or the JSON is not
        /// valid).
        usage: Option<String>,
        /// The message is a relay's handoff (`"handoff": true`, spec/sessions.md §12.5).
        handoff: bool,
    },
    /// A compaction's checkpoint (kind `checkpoint`) that replaced rows.
    Checkpoint { seq: i64, run_id: Option<String> },
    /// A budget reduction's copy (kind `reduced`) that replaced a row.
    Reduced { seq: i64, run_id: Option<String> },
}

/// One event of [`Store::request_events`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestEvent {
    /// The stored `events.id` (the envelope's `eventId`).
    pub id: i64,
    pub run_id: String,
    /// `run_started`, `context_governed`, `turn_completed`, `truncation_recovery`,
    /// `request_retry`, `compaction_completed`, `compaction_failed` or `run_failed`.
    pub ty: String,
    pub timestamp: String,
    /// The data's `usage` as JSON text (`None` when absent, null or the JSON is not valid).
    pub usage: Option<String>,
    /// `run_started`'s `provider` (the provider kind).
    pub provider: Option<String>,
    /// `run_started`'s `promptCacheTtlSeconds` (absent before it was recorded).
    pub ttl_secs: Option<u64>,
}

/// The event types [`Store::request_events`] reads.
const REQUEST_EVENTS: &str = "'run_started','context_governed','turn_completed','truncation_recovery','request_retry','compaction_completed','compaction_failed','run_failed'";

/// A text column, or `None` when it is NULL or another type.
fn text(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    Ok(match r.get_ref(i)? {
        rusqlite::types::ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        _ => None,
    })
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
                    CASE WHEN json_valid(json) THEN json_extract(json, '$.usage') END,
                    CASE WHEN json_valid(json) THEN json_extract(json, '$.handoff') END
                 FROM messages WHERE session_id = ?1 AND (
                    (role = 'assistant' AND kind = 'message' AND pos = seq)
                    OR (kind IN ('checkpoint', 'reduced') AND seq IN (
                        SELECT DISTINCT replaced_by FROM messages
                        WHERE session_id = ?1 AND replaced_by IS NOT NULL)))
                 ORDER BY seq",
            )
            .map_err(sql)?;
        let rows = st
            .query_map(params![sid], |r| {
                let seq: i64 = r.get(0)?;
                let run_id = text(r, 2)?;
                Ok(match r.get::<_, String>(1)?.as_str() {
                    "checkpoint" => RequestRow::Checkpoint { seq, run_id },
                    "reduced" => RequestRow::Reduced { seq, run_id },
                    _ => RequestRow::Request {
                        seq,
                        run_id,
                        created_at: r.get(3)?,
                        model: text(r, 4)?,
                        usage: text(r, 5)?,
                        handoff: matches!(r.get_ref(6)?, rusqlite::types::ValueRef::Integer(1)),
                    },
                })
            })
            .map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }

    /// The session's events that time its requests or carry an answer the runner discarded, in
    /// id order (spec/interfaces.md §4): `run_started` (its provider kind), `context_governed`
    /// (a built request), `turn_completed`, and `truncation_recovery`, `request_retry`,
    /// `compaction_completed`, `compaction_failed`, `run_failed` with their `usage`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn request_events(&self, sid: &str) -> Result<Vec<RequestEvent>, StoreError> {
        let query = format!(
            "SELECT id, run_id, type, timestamp,
                CASE WHEN json_valid(data) THEN json_extract(data, '$.usage') END,
                CASE WHEN json_valid(data) AND type = 'run_started'
                    THEN json_extract(data, '$.provider') END,
                CASE WHEN json_valid(data) AND type = 'run_started'
                    AND json_type(data, '$.promptCacheTtlSeconds') = 'integer'
                    THEN json_extract(data, '$.promptCacheTtlSeconds') END
             FROM events WHERE session_id = ?1 AND type IN ({REQUEST_EVENTS}) ORDER BY id"
        );
        let mut st = self.connection.prepare(&query).map_err(sql)?;
        let rows = st
            .query_map(params![sid], |r| {
                Ok(RequestEvent {
                    id: r.get(0)?,
                    run_id: text(r, 1)?.unwrap_or_default(),
                    ty: r.get(2)?,
                    timestamp: text(r, 3)?.unwrap_or_default(),
                    usage: text(r, 4)?,
                    provider: text(r, 5)?,
                    ttl_secs: r
                        .get::<_, Option<i64>>(6)?
                        .and_then(|t| u64::try_from(t).ok()),
                })
            })
            .map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }

    /// The session's runs in order (as [`Store::run_ids`]), each with the largest `seq` of the
    /// rows it appended itself (`pos = seq`, or a checkpoint or reduced copy that replaced a
    /// row; a rewind's restored copy keeps its original run and is not counted); `None` when it
    /// appended none.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn run_last_seqs(&self, sid: &str) -> Result<Vec<(String, Option<i64>)>, StoreError> {
        let mut st = self
            .connection
            .prepare(
                "SELECT r.id, (SELECT MAX(m.seq) FROM messages m
                    WHERE m.session_id = r.session_id AND m.run_id = r.id AND (m.pos = m.seq
                        OR m.seq IN (SELECT DISTINCT replaced_by FROM messages
                            WHERE session_id = ?1 AND replaced_by IS NOT NULL)))
                 FROM runs r WHERE r.session_id = ?1 ORDER BY r.started_at, r.rowid",
            )
            .map_err(sql)?;
        let rows = st
            .query_map(params![sid], |r| Ok((r.get(0)?, r.get(1)?)))
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

    /// Runs `f` in one deferred read transaction, so that its reads see one snapshot of the
    /// store (a writer's commit in between is not seen half). `error` maps this method's own
    /// SQLite errors.
    ///
    /// # Errors
    /// SQLite errors beginning or ending the transaction, and `f`'s.
    pub fn read_snapshot<T, E>(
        &self,
        error: impl Fn(StoreError) -> E,
        f: impl FnOnce(&Self) -> Result<T, E>,
    ) -> Result<T, E> {
        self.connection
            .execute_batch("BEGIN DEFERRED")
            .map_err(|e| error(sql(e)))?;
        let out = f(self);
        // A read transaction: ending it commits nothing.
        let end = self.connection.execute_batch("COMMIT");
        let out = out?;
        end.map_err(|e| error(sql(e)))?;
        Ok(out)
    }

    /// Sets the `created_at` of the session's assistant row `seq` (tests: stored times as a
    /// pause would have left them); whether there was one.
    #[cfg(test)]
    pub(crate) fn set_answer_time(&self, sid: &str, seq: i64, at: &str) -> bool {
        self.connection
            .execute(
                "UPDATE messages SET created_at=?3 WHERE session_id=?1 AND seq=?2 AND role='assistant'",
                params![sid, seq, at],
            )
            .is_ok_and(|n| n == 1)
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

#[cfg(test)]
mod tests;
