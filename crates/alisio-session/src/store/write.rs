//! Every write of the store, as a named method of [`Tx`], the open transaction that
//! [`Store::tx`](super::Store::tx) hands out. A caller composes several writes (and
//! [`Emitter::commit`](crate::events::Emitter::commit) its events) in one transaction;
//! the SQL text stays here.

use rusqlite::{Transaction, params};
use serde_json::Value;

use super::{Role, RowKind, SessionRow};
use crate::util::{compact, now_rfc3339};

/// The result of one statement inside a transaction (an error rolls the whole transaction back).
pub type DbResult<T> = rusqlite::Result<T>;

/// One open immediate transaction. Built only by [`Store::tx`](super::Store::tx).
pub struct Tx<'c> {
    pub(super) tx: Transaction<'c>,
}

/// A background task row mirrored into the `tasks` table (spec/sessions.md §1.3). The fields are
/// optional as the task table hands them over; a missing required one fails the transaction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TaskRow {
    pub id: Option<String>,
    pub label: Option<String>,
    pub command: Option<String>,
    pub cwd: Option<String>,
    pub status: Option<String>,
    pub exit_code: Option<i64>,
    pub log_path: Option<String>,
    pub output_bytes: i64,
    pub created_at: Option<String>,
    pub ended_at: Option<String>,
}

/// How a run ended, as the `runs` row stores it.
#[derive(Clone, Copy, Debug)]
pub struct RunEnd<'a> {
    pub status: &'a str,
    /// The compact usage JSON.
    pub usage: &'a str,
    pub error: Option<&'a str>,
    pub code: Option<&'a str>,
}

impl Tx<'_> {
    // ---- sessions ----

    /// Inserts a session row.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_session(&self, s: &SessionRow) -> DbResult<()> {
        self.tx.execute(
            "INSERT INTO sessions(id,title,workspace,cwd,created_at,updated_at,parent_id,parent_call_id,provider,options,compacted_chars) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
            params![s.id, s.title, s.workspace, s.cwd, s.created_at, s.updated_at, s.parent_id, s.parent_call_id, compact(&s.provider), compact(&s.options), s.compacted_chars],
        )?;
        Ok(())
    }

    /// A resumed session's row at run start: its cwd, provider and options of this run.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn resume_session(
        &self,
        sid: &str,
        cwd: &str,
        provider: &Value,
        options: &Value,
    ) -> DbResult<()> {
        self.tx.execute(
            "UPDATE sessions SET cwd=?2, provider=?3, options=?4, updated_at=?5 WHERE id=?1",
            params![sid, cwd, compact(provider), compact(options), now_rfc3339()],
        )?;
        Ok(())
    }

    /// Replaces `sessions.options` (the caller merged unknown keys in).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_options(&self, sid: &str, options: &Value) -> DbResult<()> {
        self.tx.execute(
            "UPDATE sessions SET options=?2 WHERE id=?1",
            params![sid, compact(options)],
        )?;
        Ok(())
    }

    /// The conversation size right after a compaction (the trigger's baseline, spec/sessions.md §6.3).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_compacted_chars(&self, sid: &str, chars: i64) -> DbResult<()> {
        self.tx.execute(
            "UPDATE sessions SET compacted_chars=?2 WHERE id=?1",
            params![sid, chars],
        )?;
        Ok(())
    }

    // ---- messages ----

    /// The `seq` the next appended message gets.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn next_seq(&self, sid: &str) -> DbResult<i64> {
        self.tx.query_row(
            "SELECT coalesce(max(seq),0)+1 FROM messages WHERE session_id=?1",
            [sid],
            |r| r.get(0),
        )
    }

    /// Appends a message with `pos = seq` (or an explicit `pos`); returns its seq.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn append_message(
        &self,
        sid: &str,
        pos: Option<i64>,
        role: Role,
        kind: RowKind,
        json: &str,
        run_id: Option<&str>,
    ) -> DbResult<i64> {
        let seq = self.next_seq(sid)?;
        let now = now_rfc3339();
        self.tx.execute(
            "INSERT INTO messages(session_id,seq,pos,role,kind,json,compacted,replaced_by,run_id,created_at) VALUES(?1,?2,?3,?4,?5,?6,0,NULL,?7,?8)",
            params![
                sid,
                seq,
                pos.unwrap_or(seq),
                role.as_str(),
                kind.as_str(),
                json,
                run_id,
                now
            ],
        )?;
        self.tx.execute(
            "UPDATE sessions SET updated_at=?2 WHERE id=?1",
            params![sid, now],
        )?;
        Ok(seq)
    }

    /// Marks row `seq` compacted, replaced by the row `replaced_by` (the only update a message
    /// row ever gets).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn mark_compacted(&self, sid: &str, seq: i64, replaced_by: i64) -> DbResult<()> {
        self.tx.execute(
            "UPDATE messages SET compacted=1, replaced_by=?3 WHERE session_id=?1 AND seq=?2",
            params![sid, seq, replaced_by],
        )?;
        Ok(())
    }

    // ---- events ----

    /// Stores an event row; returns its id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn insert_event(
        &self,
        sid: &str,
        run_id: &str,
        seq: u64,
        ty: &str,
        ts: &str,
        data: &str,
    ) -> DbResult<i64> {
        self.tx.execute(
            "INSERT INTO events(session_id,run_id,seq,type,timestamp,data) VALUES(?1,?2,?3,?4,?5,?6)",
            params![sid, run_id, seq as i64, ty, ts, data],
        )?;
        Ok(self.tx.last_insert_rowid())
    }

    // ---- runs ----

    /// Inserts the `running` row of a new run.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn start_run(&self, run_id: &str, sid: &str) -> DbResult<()> {
        self.tx.execute(
            "INSERT INTO runs(id,session_id,started_at,status) VALUES(?1,?2,?3,'running')",
            params![run_id, sid, now_rfc3339()],
        )?;
        Ok(())
    }

    /// Records the `seq` of the run's prompt message.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn set_prompt_seq(&self, run_id: &str, sid: &str, seq: i64) -> DbResult<()> {
        self.tx.execute(
            "UPDATE runs SET prompt_seq=?3 WHERE id=?1 AND session_id=?2",
            params![run_id, sid, seq],
        )?;
        Ok(())
    }

    /// Stores how the run ended.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn finish_run(&self, run_id: &str, sid: &str, end: RunEnd<'_>) -> DbResult<()> {
        self.tx.execute(
            "UPDATE runs SET status=?3, ended_at=?4, usage=?5, error=?6, code=?7 WHERE id=?1 AND session_id=?2",
            params![run_id, sid, end.status, now_rfc3339(), end.usage, end.error, end.code],
        )?;
        Ok(())
    }

    /// Reconciliation (spec/sessions.md §1.7 step 1): runs still `running` become `interrupted`; returns how many.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn interrupt_running_runs(&self, sid: &str) -> DbResult<usize> {
        self.tx.execute(
            "UPDATE runs SET status='interrupted', ended_at=?2 WHERE session_id=?1 AND status='running'",
            params![sid, now_rfc3339()],
        )
    }

    // ---- the call journal ----

    /// Journals a call of a stored assistant message as `pending` (spec/sessions.md §1.5 step 1).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn add_call(
        &self,
        sid: &str,
        call_id: &str,
        assistant_seq: i64,
        name: &str,
        effect: Option<&str>,
    ) -> DbResult<()> {
        self.tx.execute(
            "INSERT INTO calls(session_id,call_id,assistant_seq,name,effect,state) VALUES(?1,?2,?3,?4,?5,'pending')",
            params![sid, call_id, assistant_seq, name, effect],
        )?;
        Ok(())
    }

    /// The call is about to run (spec/sessions.md §1.5 step 2).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn start_call(&self, sid: &str, call_id: &str) -> DbResult<()> {
        self.tx.execute(
            "UPDATE calls SET state='started', started_at=?3 WHERE session_id=?1 AND call_id=?2",
            params![sid, call_id, now_rfc3339()],
        )?;
        Ok(())
    }

    /// The call has its result (spec/sessions.md §1.5 step 3).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn finish_call(&self, sid: &str, call_id: &str, result: &str) -> DbResult<()> {
        self.tx.execute(
            "UPDATE calls SET state='done', result=?3, ended_at=?4, started_at=coalesce(started_at, ?4) WHERE session_id=?1 AND call_id=?2",
            params![sid, call_id, result, now_rfc3339()],
        )?;
        Ok(())
    }

    /// Reconciliation gave the call its result (spec/sessions.md §1.7 step 2); an earlier end time is kept.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn reconcile_call(&self, sid: &str, call_id: &str, result: &str) -> DbResult<()> {
        self.tx.execute(
            "UPDATE calls SET state='done', result=?3, ended_at=coalesce(ended_at, ?4) WHERE session_id=?1 AND call_id=?2",
            params![sid, call_id, result, now_rfc3339()],
        )?;
        Ok(())
    }

    // ---- background tasks ----

    /// Reconciliation: tasks still `running` in the table are `lost`; returns how many.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn lose_running_tasks(&self, sid: &str) -> DbResult<usize> {
        self.tx.execute(
            "UPDATE tasks SET status='lost', ended_at=?2 WHERE session_id=?1 AND status='running'",
            params![sid, now_rfc3339()],
        )
    }

    /// Inserts a task row, or updates its status, exit code, output size and end.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn upsert_task(&self, sid: &str, t: &TaskRow) -> DbResult<()> {
        self.tx.execute(
            "INSERT INTO tasks(session_id,id,label,command,cwd,status,exit_code,log_path,output_bytes,created_at,ended_at) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)
             ON CONFLICT(session_id,id) DO UPDATE SET status=excluded.status, exit_code=excluded.exit_code, output_bytes=excluded.output_bytes, ended_at=excluded.ended_at",
            params![
                sid,
                t.id,
                t.label,
                t.command,
                t.cwd,
                t.status,
                t.exit_code,
                t.log_path,
                t.output_bytes,
                t.created_at,
                t.ended_at
            ],
        )?;
        Ok(())
    }
}
