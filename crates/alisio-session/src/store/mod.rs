//! The durable session store (spec/sessions.md §1): SQLite in the state dir, WAL, one transaction per
//! append, schema v3 (v1 and v2 stores are migrated at open), advisory per-session locks and reconciliation of interrupted runs.
//!
//! Invariant: message rows are never deleted and their `json` never changes; the only updates
//! are `compacted` (0→1) and `replaced_by`. Every write is one transaction, so a crash leaves
//! either all of an append or none of it.
//!
//! This module is the only place with SQL text: reads are methods of [`Store`], writes are
//! methods of the transaction [`Tx`] (`write.rs`), reconciliation's reads are in
//! `reconcile.rs`.

mod deliveries;
mod reconcile;
mod requests;
mod snapshots;
mod write;

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Value, json};

pub use alisio_governor::stored::{Role, RowKind};
pub use deliveries::{Delivered, DeliveryRow};
pub use reconcile::{
    INTERRUPTED_PENDING, INTERRUPTED_RUNNING, Reconciled, paired_view, tool_message, unanswered,
};
pub use requests::{RequestEvent, RequestRow};
pub use snapshots::{NewSnap, SnapKind, SnapRow};
pub use write::{DbResult, RunEnd, TaskRow, Tx};

pub const SCHEMA_VERSION: i64 = 3;

const SCHEMA_V1: &str = "
CREATE TABLE sessions(
  id TEXT PRIMARY KEY, title TEXT NOT NULL, workspace TEXT NOT NULL, cwd TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  parent_id TEXT NULL REFERENCES sessions(id), parent_call_id TEXT NULL,
  provider TEXT NOT NULL, options TEXT NOT NULL DEFAULT '{}', compacted_chars INTEGER NOT NULL DEFAULT 0);
CREATE TABLE runs(
  id TEXT NOT NULL, session_id TEXT NOT NULL REFERENCES sessions(id), started_at TEXT NOT NULL,
  ended_at TEXT NULL, status TEXT NOT NULL, prompt_seq INTEGER,
  usage TEXT NOT NULL DEFAULT '{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0}',
  error TEXT NULL, code TEXT NULL, PRIMARY KEY(id, session_id));
CREATE TABLE messages(
  session_id TEXT NOT NULL REFERENCES sessions(id), seq INTEGER NOT NULL, pos INTEGER NOT NULL,
  role TEXT NOT NULL, kind TEXT NOT NULL, json TEXT NOT NULL, compacted INTEGER NOT NULL DEFAULT 0,
  replaced_by INTEGER NULL, run_id TEXT NULL, created_at TEXT NOT NULL, PRIMARY KEY(session_id, seq));
CREATE UNIQUE INDEX messages_active_pos ON messages(session_id, pos) WHERE compacted = 0;
CREATE TABLE calls(
  session_id TEXT NOT NULL REFERENCES sessions(id), call_id TEXT NOT NULL, assistant_seq INTEGER NOT NULL,
  name TEXT NOT NULL, effect TEXT NULL, state TEXT NOT NULL, result TEXT NULL,
  started_at TEXT NULL, ended_at TEXT NULL, PRIMARY KEY(session_id, call_id));
CREATE TABLE events(
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, run_id TEXT NOT NULL,
  seq INTEGER NOT NULL, type TEXT NOT NULL, timestamp TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX events_session ON events(session_id, id);
CREATE TABLE tasks(
  session_id TEXT NOT NULL, id TEXT NOT NULL, label TEXT NOT NULL, command TEXT NOT NULL, cwd TEXT NOT NULL,
  status TEXT NOT NULL, exit_code INTEGER NULL, log_path TEXT NOT NULL, output_bytes INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL, ended_at TEXT NULL, PRIMARY KEY(session_id, id));
";

/// v2 (spec/sessions.md §13.2): the checkpoints and marks of each session.
const SCHEMA_V2: &str = "
CREATE TABLE snapshots(
  session_id TEXT NOT NULL REFERENCES sessions(id), id INTEGER NOT NULL, kind TEXT NOT NULL,
  checkpoint INTEGER NULL, manifest TEXT NULL, active TEXT NULL, at_seq INTEGER NOT NULL,
  created_at TEXT NOT NULL, paths TEXT NULL, PRIMARY KEY(session_id, id));
";

/// v3 (spec/sessions.md §1.3): what each request delivered, file by file, for `audit`.
const SCHEMA_V3: &str = "
CREATE TABLE deliveries(
  session_id TEXT NOT NULL REFERENCES sessions(id), id INTEGER NOT NULL, run_id TEXT NOT NULL,
  request INTEGER NOT NULL, at_seq INTEGER NOT NULL, kind TEXT NOT NULL, how TEXT NOT NULL,
  path TEXT NOT NULL, sha256 TEXT NOT NULL, bytes INTEGER NOT NULL, name TEXT NULL,
  detail TEXT NULL, call_id TEXT NULL, tool TEXT NULL, target TEXT NULL,
  created_at TEXT NOT NULL, PRIMARY KEY(session_id, id));
";

/// A stored session row.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub title: String,
    pub workspace: String,
    pub cwd: String,
    pub created_at: String,
    pub updated_at: String,
    pub parent_id: Option<String>,
    pub parent_call_id: Option<String>,
    pub provider: Value,
    pub options: Value,
    pub compacted_chars: i64,
}

/// A stored message row.
#[derive(Clone, Debug, PartialEq)]
pub struct MsgRow {
    pub seq: i64,
    pub pos: i64,
    pub role: Role,
    pub kind: RowKind,
    pub json: String,
    pub compacted: bool,
    pub replaced_by: Option<i64>,
    pub run_id: Option<String>,
    pub created_at: String,
}

impl MsgRow {
    #[must_use]
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.json).unwrap_or(Value::Null)
    }
}

/// A `calls` journal row.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRow {
    pub call_id: String,
    pub assistant_seq: i64,
    pub name: String,
    pub state: String,
    pub result: Option<String>,
}

/// The open database.
pub struct Store {
    connection: Connection,
    dir: PathBuf,
}

/// What the store fails with (the `Display` texts are the messages users see).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("Session store error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("Cannot create the state directory {}: {source}", path.display())]
    StateDir {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("Cannot create {}: {source}", path.display())]
    Create {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("Session store was created by a newer alisio-ls (schema {0}); upgrade alisio-ls")]
    NewerSchema(i64),
    #[error("Session not found: {0}")]
    NotFound(String),
    #[error("Ambiguous session id prefix: {0}")]
    Ambiguous(String),
    /// Another process holds the session's lock (LSP -32002).
    #[error("Session {0} is busy in another run")]
    Busy(String),
    #[error("Cannot open the session lock: {0}")]
    LockOpen(std::io::Error),
    #[error("Cannot lock the session: {0}")]
    Lock(std::io::Error),
    /// A `snapshots.kind` this build does not know (a newer build wrote it).
    #[error("Session store error: unknown snapshots.kind {0:?}")]
    UnknownSnapshotKind(String),
}

/// The message, for the callers that still report errors as text.
impl From<StoreError> for String {
    fn from(e: StoreError) -> Self {
        e.to_string()
    }
}

const fn sql(e: rusqlite::Error) -> StoreError {
    StoreError::Sql(e)
}

/// The state dir of spec/sessions.md §0, created with mode 0700.
///
/// # Errors
/// When it cannot be determined or created.
pub fn ensure_dir(dir: &Path) -> Result<(), StoreError> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir).map_err(|source| StoreError::StateDir {
        path: dir.to_path_buf(),
        source,
    })
}

impl Store {
    /// Opens (creating when missing) `<dir>/sessions.db`, applies the pragmas and migrations.
    ///
    /// # Errors
    /// I/O, SQLite errors, or a store created by a newer version.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        ensure_dir(dir)?;
        let path = dir.join("sessions.db");
        if !path.exists() {
            let mut o = OpenOptions::new();
            o.create(true).append(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                o.mode(0o600);
            }
            o.open(&path).map_err(|source| StoreError::Create {
                path: path.clone(),
                source,
            })?;
        }
        let conn = Connection::open(&path).map_err(sql)?;
        conn.busy_timeout(std::time::Duration::from_millis(5000))
            .map_err(sql)?;
        let _: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(sql)?;
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            .map_err(sql)?;
        let mut s = Self {
            connection: conn,
            dir: dir.to_path_buf(),
        };
        s.migrate()?;
        Ok(s)
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let tx = self
            .connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sql)?;
        let v: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql)?;
        if v > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema(v));
        }
        if v < 1 {
            tx.execute_batch(SCHEMA_V1).map_err(sql)?;
            tx.execute_batch("PRAGMA user_version = 1").map_err(sql)?;
        }
        if v < 2 {
            tx.execute_batch(SCHEMA_V2).map_err(sql)?;
            tx.execute_batch("PRAGMA user_version = 2").map_err(sql)?;
        }
        if v < 3 {
            tx.execute_batch(SCHEMA_V3).map_err(sql)?;
            tx.execute_batch("PRAGMA user_version = 3").map_err(sql)?;
        }
        tx.commit().map_err(sql)
    }

    /// Opens `<dir>/sessions.db` read only, as `audit` does: nothing is created or migrated
    /// (a v1 or v2 store is read as it is: it has no deliveries). `Ok(None)` when there is no
    /// store there.
    ///
    /// # Errors
    /// SQLite errors, or a store created by a newer version.
    pub fn open_read_only(dir: &Path) -> Result<Option<Self>, StoreError> {
        let path = dir.join("sessions.db");
        if !path.is_file() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql)?;
        conn.busy_timeout(std::time::Duration::from_millis(5000))
            .map_err(sql)?;
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql)?;
        if v > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema(v));
        }
        Ok(Some(Self {
            connection: conn,
            dir: dir.to_path_buf(),
        }))
    }

    /// Runs `f` in one immediate transaction and commits it.
    ///
    /// # Errors
    /// Any SQLite error (nothing is committed then).
    pub fn tx<T>(&mut self, f: impl FnOnce(&Tx<'_>) -> DbResult<T>) -> Result<T, StoreError> {
        let tx = Tx {
            tx: self
                .connection
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(sql)?,
        };
        let out = f(&tx).map_err(sql)?;
        tx.tx.commit().map_err(sql)?;
        Ok(out)
    }

    /// The state directory the store lives in.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Resolves a full id or a unique prefix of at least 8 characters.
    ///
    /// # Errors
    /// `Session not found: <id>` or `Ambiguous session id prefix: <prefix>`.
    pub fn resolve_id(&self, id: &str) -> Result<String, StoreError> {
        if self.session(id)?.is_some() {
            return Ok(id.to_string());
        }
        if id.len() >= 8 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            let mut st = self
                .connection
                .prepare("SELECT id FROM sessions WHERE substr(id, 1, ?2) = ?1 LIMIT 2")
                .map_err(sql)?;
            let ids: Vec<String> = st
                .query_map(params![id, id.len() as i64], |r| r.get(0))
                .map_err(sql)?
                .filter_map(Result::ok)
                .collect();
            match ids.len() {
                1 => return Ok(ids.into_iter().next().unwrap_or_default()),
                0 => {}
                _ => return Err(StoreError::Ambiguous(id.to_string())),
            }
        }
        Err(StoreError::NotFound(id.to_string()))
    }

    /// One session by exact id.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError> {
        self.connection
            .query_row(
                "SELECT id,title,workspace,cwd,created_at,updated_at,parent_id,parent_call_id,provider,options,compacted_chars FROM sessions WHERE id=?1",
                [id],
                session_row,
            )
            .optional()
            .map_err(sql)
    }

    /// Every message row of a session in `seq` order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn all_messages(&self, sid: &str) -> Result<Vec<MsgRow>, StoreError> {
        self.messages_where(sid, "")
    }

    /// The active transcript (`compacted = 0`) in `pos` order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn active_messages(&self, sid: &str) -> Result<Vec<MsgRow>, StoreError> {
        self.messages_where(sid, "AND compacted = 0")
    }

    /// Active rows appended after `seq`, in `pos` order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn active_after(&self, sid: &str, seq: i64) -> Result<Vec<MsgRow>, StoreError> {
        self.messages_where(sid, &format!("AND compacted = 0 AND seq > {seq}"))
    }

    /// The session's highest `seq` (0 when empty); an index lookup.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn max_seq(&self, sid: &str) -> Result<i64, StoreError> {
        self.connection
            .query_row(
                "SELECT coalesce(max(seq),0) FROM messages WHERE session_id=?1",
                [sid],
                |r| r.get(0),
            )
            .map_err(sql)
    }

    /// The `seq` the next appended message gets.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn next_seq(&self, sid: &str) -> Result<i64, StoreError> {
        self.connection
            .query_row(
                "SELECT coalesce(max(seq),0)+1 FROM messages WHERE session_id=?1",
                [sid],
                |r| r.get(0),
            )
            .map_err(sql)
    }

    /// How many runs the session has had.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn run_count(&self, sid: &str) -> Result<i64, StoreError> {
        self.connection
            .query_row(
                "SELECT count(*) FROM runs WHERE session_id=?1",
                [sid],
                |r| r.get(0),
            )
            .map_err(sql)
    }

    /// Whether the call journal already has `call_id` (an id reused across turns).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn call_exists(&self, sid: &str, call_id: &str) -> Result<bool, StoreError> {
        self.connection
            .query_row(
                "SELECT count(*) FROM calls WHERE session_id=?1 AND call_id=?2",
                params![sid, call_id],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(sql)
    }

    /// How many checkpoints the active transcript holds.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn active_checkpoints(&self, sid: &str) -> Result<i64, StoreError> {
        self.connection
            .query_row(
                "SELECT count(*) FROM messages WHERE session_id=?1 AND kind='checkpoint' AND compacted=0",
                [sid],
                |r| r.get(0),
            )
            .map_err(sql)
    }

    /// The `data` JSON of the session's latest stored event of type `ty`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn last_event_data(&self, sid: &str, ty: &str) -> Result<Option<String>, StoreError> {
        self.connection
            .query_row(
                "SELECT data FROM events WHERE session_id=?1 AND type=?2 ORDER BY id DESC LIMIT 1",
                params![sid, ty],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql)
    }

    /// `(type, data)` of the session's stored events of the given types, in id order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn events_of_types(
        &self,
        sid: &str,
        types: &[&str],
    ) -> Result<Vec<(String, String)>, StoreError> {
        let marks: Vec<String> = (0..types.len()).map(|k| format!("?{}", k + 2)).collect();
        let query = format!(
            "SELECT type, data FROM events WHERE session_id=?1 AND type IN ({}) ORDER BY id",
            marks.join(",")
        );
        let mut st = self.connection.prepare(&query).map_err(sql)?;
        let values = std::iter::once(sid).chain(types.iter().copied());
        let rows = st
            .query_map(rusqlite::params_from_iter(values), |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }

    /// `(timestamp, data)` of the session's last stored event of type `ty`.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn last_event(&self, sid: &str, ty: &str) -> Result<Option<(String, String)>, StoreError> {
        self.connection
            .query_row(
                "SELECT timestamp, data FROM events WHERE session_id=?1 AND type=?2 ORDER BY id DESC LIMIT 1",
                params![sid, ty],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(sql)
    }

    /// The `data` JSON of every stored event of type `ty` of the session, in id order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn event_data(&self, sid: &str, ty: &str) -> Result<Vec<String>, StoreError> {
        let mut st = self
            .connection
            .prepare("SELECT data FROM events WHERE session_id=?1 AND type=?2 ORDER BY id")
            .map_err(sql)?;
        let rows = st.query_map(params![sid, ty], |r| r.get(0)).map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<String>>>().map_err(sql)
    }

    /// The row that row `seq` replaced (the lowest `seq` with `replaced_by = seq`).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn replaced_by(&self, sid: &str, seq: i64) -> Result<Option<MsgRow>, StoreError> {
        self.connection
            .query_row(
                "SELECT seq,pos,role,kind,json,compacted,replaced_by,run_id,created_at FROM messages WHERE session_id=?1 AND replaced_by=?2 ORDER BY seq LIMIT 1",
                params![sid, seq],
                msg_row,
            )
            .optional()
            .map_err(sql)
    }

    fn messages_where(&self, sid: &str, cond: &str) -> Result<Vec<MsgRow>, StoreError> {
        let order = if cond.is_empty() { "seq" } else { "pos" };
        let q = format!(
            "SELECT seq,pos,role,kind,json,compacted,replaced_by,run_id,created_at FROM messages WHERE session_id=?1 {cond} ORDER BY {order}"
        );
        let mut st = self.connection.prepare(&q).map_err(sql)?;
        let rows = st.query_map([sid], msg_row).map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }

    /// The call journal of a session.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn calls(&self, sid: &str) -> Result<HashMap<String, CallRow>, StoreError> {
        let mut st = self
            .connection
            .prepare(
                "SELECT call_id,assistant_seq,name,state,result FROM calls WHERE session_id=?1",
            )
            .map_err(sql)?;
        let rows = st
            .query_map([sid], |r| {
                Ok(CallRow {
                    call_id: r.get(0)?,
                    assistant_seq: r.get(1)?,
                    name: r.get(2)?,
                    state: r.get(3)?,
                    result: r.get(4)?,
                })
            })
            .map_err(sql)?;
        let v = rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)?;
        Ok(v.into_iter().map(|c| (c.call_id.clone(), c)).collect())
    }

    /// Sessions for `sessions list`: root sessions of `workspace` (all workspaces and children
    /// with `all`), newest `updated_at` first, with the active message count and last run status.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn list(
        &self,
        workspace: &str,
        all: bool,
    ) -> Result<Vec<(SessionRow, i64, String)>, StoreError> {
        let q = if all {
            "SELECT id,title,workspace,cwd,created_at,updated_at,parent_id,parent_call_id,provider,options,compacted_chars FROM sessions ORDER BY updated_at DESC, id DESC"
        } else {
            "SELECT id,title,workspace,cwd,created_at,updated_at,parent_id,parent_call_id,provider,options,compacted_chars FROM sessions WHERE workspace=?1 AND parent_id IS NULL ORDER BY updated_at DESC, id DESC"
        };
        let mut st = self.connection.prepare(q).map_err(sql)?;
        let rows: Vec<SessionRow> = if all {
            st.query_map([], session_row)
                .map_err(sql)?
                .collect::<rusqlite::Result<_>>()
                .map_err(sql)?
        } else {
            st.query_map([workspace], session_row)
                .map_err(sql)?
                .collect::<rusqlite::Result<_>>()
                .map_err(sql)?
        };
        let mut out = Vec::new();
        for s in rows {
            let n: i64 = self
                .connection
                .query_row(
                    "SELECT count(*) FROM messages WHERE session_id=?1 AND compacted=0",
                    [&s.id],
                    |r| r.get(0),
                )
                .map_err(sql)?;
            let status: Option<String> = self
                .connection
                .query_row("SELECT status FROM runs WHERE session_id=?1 ORDER BY started_at DESC, rowid DESC LIMIT 1", [&s.id], |r| r.get(0))
                .optional()
                .map_err(sql)?;
            out.push((s, n, status.unwrap_or_else(|| "idle".into())));
        }
        Ok(out)
    }

    /// Every session of `workspace`, children included, newest `updated_at` first.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn workspace_sessions(&self, workspace: &str) -> Result<Vec<SessionRow>, StoreError> {
        let mut st = self
            .connection
            .prepare("SELECT id,title,workspace,cwd,created_at,updated_at,parent_id,parent_call_id,provider,options,compacted_chars FROM sessions WHERE workspace=?1 ORDER BY updated_at DESC, id DESC")
            .map_err(sql)?;
        let rows = st.query_map([workspace], session_row).map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }

    /// The ids of a session's runs in the order they started.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn run_ids(&self, sid: &str) -> Result<Vec<String>, StoreError> {
        let mut st = self
            .connection
            .prepare("SELECT id FROM runs WHERE session_id=?1 ORDER BY started_at, rowid")
            .map_err(sql)?;
        let rows = st.query_map([sid], |r| r.get(0)).map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<String>>>().map_err(sql)
    }

    /// Stored events of a session, in id order, as envelopes.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn events(&self, sid: &str) -> Result<Vec<Value>, StoreError> {
        let mut st = self.connection.prepare("SELECT id,run_id,seq,type,timestamp,data FROM events WHERE session_id=?1 ORDER BY id").map_err(sql)?;
        let rows = st
            .query_map([sid], |r| {
                let id: i64 = r.get(0)?;
                let run: String = r.get(1)?;
                let seq: i64 = r.get(2)?;
                let ty: String = r.get(3)?;
                let ts: String = r.get(4)?;
                let data: String = r.get(5)?;
                Ok(json!({"schemaVersion":1,"runId":run,"sessionId":sid,"seq":seq,"type":ty,"timestamp":ts,
                    "data":serde_json::from_str::<Value>(&data).unwrap_or(Value::Null),"eventId":id.to_string()}))
            })
            .map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }
}

fn msg_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<MsgRow> {
    Ok(MsgRow {
        seq: r.get(0)?,
        pos: r.get(1)?,
        role: Role::parse(&r.get::<_, String>(2)?).ok_or_else(|| unknown_value(2, "role"))?,
        kind: RowKind::parse(&r.get::<_, String>(3)?).ok_or_else(|| unknown_value(3, "kind"))?,
        json: r.get(4)?,
        compacted: r.get::<_, i64>(5)? != 0,
        replaced_by: r.get(6)?,
        run_id: r.get(7)?,
        created_at: r.get(8)?,
    })
}

/// A stored role or kind this version does not know (a corrupt or newer store).
fn unknown_value(col: usize, what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        col,
        rusqlite::types::Type::Text,
        format!("unknown message {what}").into(),
    )
}

fn session_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRow> {
    let provider: String = r.get(8)?;
    let options: String = r.get(9)?;
    Ok(SessionRow {
        id: r.get(0)?,
        title: r.get(1)?,
        workspace: r.get(2)?,
        cwd: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
        parent_id: r.get(6)?,
        parent_call_id: r.get(7)?,
        provider: serde_json::from_str(&provider).unwrap_or(Value::Null),
        options: serde_json::from_str(&options).unwrap_or_else(|_| json!({})),
        compacted_chars: r.get(10)?,
    })
}

/// An exclusive advisory lock on `<dir>/locks/<sid>.lock`, held while the file lives.
///
/// # Errors
/// `Session <id> is busy in another run` when another process holds it.
pub fn lock(dir: &Path, sid: &str) -> Result<File, StoreError> {
    let ldir = dir.join("locks");
    ensure_dir(&ldir)?;
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(ldir.join(format!("{sid}.lock")))
        .map_err(StoreError::LockOpen)?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Busy(sid.to_string())),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Lock(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::now_rfc3339;

    fn session(id: &str) -> SessionRow {
        SessionRow {
            id: id.into(),
            title: "t".into(),
            workspace: "/w".into(),
            cwd: "/w".into(),
            created_at: now_rfc3339(),
            updated_at: now_rfc3339(),
            parent_id: None,
            parent_call_id: None,
            provider: json!({"kind":"script"}),
            options: json!({}),
            compacted_chars: 0,
        }
    }

    #[test]
    fn open_sets_wal_and_schema_version_three() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(d.path()).unwrap();
        let mode: String = s
            .connection
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let v: i64 = s
            .connection
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 3);
    }

    #[test]
    fn a_version_one_store_is_migrated_to_three_keeping_its_rows() {
        let d = tempfile::tempdir().unwrap();
        {
            let c = Connection::open(d.path().join("sessions.db")).unwrap();
            c.execute_batch(SCHEMA_V1).unwrap();
            c.execute_batch("PRAGMA user_version = 1").unwrap();
            c.execute("INSERT INTO sessions(id,title,workspace,cwd,created_at,updated_at,provider) VALUES('s','t','/w','/w','a','a','{}')", []).unwrap();
        }
        let s = Store::open(d.path()).unwrap();
        let v: i64 = s
            .connection
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 3);
        assert!(s.session("s").unwrap().is_some());
        assert_eq!(s.snapshots("s").unwrap(), vec![]);
        assert_eq!(s.deliveries("s").unwrap(), vec![]);
    }

    fn delivered(path: &str, sha: &str) -> Delivered {
        Delivered {
            kind: "instruction",
            how: "section",
            path: path.into(),
            sha256: sha.into(),
            bytes: 3,
            name: None,
            detail: None,
            call_id: None,
            tool: None,
            target: None,
        }
    }

    #[test]
    fn a_version_two_store_is_migrated_to_three_and_read_only_opening_changes_nothing() {
        let d = tempfile::tempdir().unwrap();
        {
            let c = Connection::open(d.path().join("sessions.db")).unwrap();
            c.execute_batch(SCHEMA_V1).unwrap();
            c.execute_batch(SCHEMA_V2).unwrap();
            c.execute_batch("PRAGMA user_version = 2").unwrap();
            c.execute("INSERT INTO sessions(id,title,workspace,cwd,created_at,updated_at,provider) VALUES('s','t','/w','/w','a','a','{}')", []).unwrap();
        }
        // Read only: the v2 store is read as it is (no deliveries), and stays v2.
        let ro = Store::open_read_only(d.path()).unwrap().unwrap();
        assert_eq!(ro.workspace_sessions("/w").unwrap().len(), 1);
        assert_eq!(ro.deliveries("s").unwrap(), vec![]);
        drop(ro);
        let c = Connection::open(d.path().join("sessions.db")).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 2);
        drop(c);
        assert!(
            Store::open_read_only(&d.path().join("none"))
                .unwrap()
                .is_none()
        );
        // Opened for writing: migrated, rows kept, deliveries recorded and read back.
        let mut s = Store::open(d.path()).unwrap();
        let v: i64 = s
            .connection
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 3);
        assert_eq!(s.snapshots("s").unwrap(), vec![]);
        let set = vec![
            delivered("/w/AGENTS.md", "aa"),
            delivered("/w/b/AGENTS.md", "bb"),
        ];
        assert!(s.request_set_changed("s", &set).unwrap());
        s.tx(|tx| tx.add_deliveries("s", "r1", 1, 0, &set)).unwrap();
        assert!(!s.request_set_changed("s", &set).unwrap());
        let mut nested = delivered("/w/c/AGENTS.md", "cc");
        nested.how = "nested";
        nested.call_id = Some("call-1".into());
        s.tx(|tx| tx.add_deliveries("s", "r1", 1, 3, std::slice::from_ref(&nested)))
            .unwrap();
        // A nested row is not part of the request set.
        assert_eq!(s.last_request_set("s").unwrap(), set);
        let changed = vec![delivered("/w/AGENTS.md", "ab")];
        assert!(s.request_set_changed("s", &changed).unwrap());
        s.tx(|tx| tx.add_deliveries("s", "r1", 2, 4, &changed))
            .unwrap();
        let rows = s.deliveries("s").unwrap();
        assert_eq!(
            rows.iter()
                .map(|r| (
                    r.id,
                    r.request,
                    r.at_seq,
                    r.item.how,
                    r.item.sha256.as_str()
                ))
                .collect::<Vec<_>>(),
            [
                (1, 1, 0, "section", "aa"),
                (2, 1, 0, "section", "bb"),
                (3, 1, 3, "nested", "cc"),
                (4, 2, 4, "section", "ab")
            ]
        );
        assert_eq!(rows[2].item.call_id.as_deref(), Some("call-1"));
        assert_eq!(s.last_request_set("s").unwrap(), changed);
    }

    #[test]
    fn newer_schema_is_refused_with_the_upgrade_message() {
        let d = tempfile::tempdir().unwrap();
        drop(Store::open(d.path()).unwrap());
        let c = Connection::open(d.path().join("sessions.db")).unwrap();
        c.execute_batch("PRAGMA user_version = 4").unwrap();
        drop(c);
        let e = Store::open(d.path()).err().unwrap();
        assert!(matches!(e, StoreError::NewerSchema(4)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "Session store was created by a newer alisio-ls (schema 4); upgrade alisio-ls"
        );
        let e = Store::open_read_only(d.path()).err().unwrap();
        assert!(matches!(e, StoreError::NewerSchema(4)), "{e:?}");
    }

    #[test]
    fn appends_get_pos_equal_seq_and_prefixes_resolve() {
        let d = tempfile::tempdir().unwrap();
        let mut s = Store::open(d.path()).unwrap();
        let id = "0190aaaa-bbbb-7ccc-8ddd-eeeeffff0000";
        s.tx(|tx| {
            tx.insert_session(&session(id))?;
            tx.append_message(id, None, Role::User, RowKind::Message, "{}", None)?;
            tx.append_message(id, None, Role::Assistant, RowKind::Message, "{}", None)
        })
        .unwrap();
        let m = s.active_messages(id).unwrap();
        assert_eq!(
            m.iter().map(|r| (r.seq, r.pos)).collect::<Vec<_>>(),
            vec![(1, 1), (2, 2)]
        );
        assert_eq!(s.resolve_id("0190aaaa").unwrap(), id);
        assert_eq!(
            s.resolve_id("0190aaab").unwrap_err().to_string(),
            "Session not found: 0190aaab"
        );
        s.tx(|tx| tx.insert_session(&session("0190aaaa-0000-7ccc-8ddd-eeeeffff0000")))
            .unwrap();
        assert_eq!(
            s.resolve_id("0190aaaa").unwrap_err().to_string(),
            "Ambiguous session id prefix: 0190aaaa"
        );
    }

    #[test]
    fn a_second_lock_on_the_same_session_reports_busy() {
        let d = tempfile::tempdir().unwrap();
        let _a = lock(d.path(), "abc").unwrap();
        let e = lock(d.path(), "abc").unwrap_err();
        assert!(matches!(&e, StoreError::Busy(s) if s == "abc"), "{e:?}");
        assert_eq!(e.to_string(), "Session abc is busy in another run");
        // The runner's pre-run error keeps the busy case as its own variant (LSP -32002).
        assert_eq!(
            crate::runner::PreRunError::from(e),
            crate::runner::PreRunError::Busy("Session abc is busy in another run".into())
        );
        assert_eq!(
            crate::runner::PreRunError::from(StoreError::NotFound("x".into())),
            crate::runner::PreRunError::Other("Session not found: x".into())
        );
    }

    #[test]
    fn unanswered_calls_get_the_interrupted_texts_by_journal_state() {
        let d = tempfile::tempdir().unwrap();
        let mut s = Store::open(d.path()).unwrap();
        let id = "s1";
        let asst = r#"{"role":"assistant","content":[{"type":"tool_call","id":"a","name":"read_file","arguments":"{}"},{"type":"tool_call","id":"b","name":"shell","arguments":"{}"},{"type":"tool_call","id":"c","name":"read_file","arguments":"{}"}]}"#;
        s.tx(|tx| {
            tx.insert_session(&session(id))?;
            tx.append_message(id, None, Role::User, RowKind::Message, "{}", None)?;
            let seq = tx.append_message(id, None, Role::Assistant, RowKind::Message, asst, None)?;
            tx.tx.execute(
                "INSERT INTO calls VALUES('s1','a',?1,'read_file','read','done',?2,NULL,NULL)",
                params![
                    seq,
                    tool_message("a", "read_file", false, "ok", None, &["x".into()])
                ],
            )?;
            tx.tx.execute(
                "INSERT INTO calls VALUES('s1','b',?1,'shell','process','started',NULL,NULL,NULL)",
                params![seq],
            )?;
            tx.tx.execute(
                "INSERT INTO calls VALUES('s1','c',?1,'read_file','read','pending',NULL,NULL,NULL)",
                params![seq],
            )
        })
        .unwrap();
        let r = unanswered(&s, id).unwrap();
        assert_eq!(
            r.iter()
                .map(|c| (c.id.as_str(), c.outcome.as_str()))
                .collect::<Vec<_>>(),
            vec![("a", "ok"), ("b", "interrupted"), ("c", "interrupted")]
        );
        assert!(r[1].json.contains(INTERRUPTED_RUNNING));
        assert!(r[2].json.contains(INTERRUPTED_PENDING));
        let view = paired_view(&s, id).unwrap();
        assert_eq!(
            view.iter().map(|m| m.role.as_str()).collect::<Vec<_>>(),
            vec!["user", "assistant", "tool", "tool", "tool"]
        );
        assert_eq!(
            s.active_messages(id).unwrap().len(),
            2,
            "the paired view writes nothing"
        );
    }
}
