//! The `deliveries` table (schema v3, spec/sessions.md §1.3): what the runner delivered to the
//! model, file by file, with the sha256 of each text, so that `audit` reads alisio-ls's own
//! sessions like the clients' (spec/interfaces.md §4). A request records its whole set (the
//! instruction files of its system text, the skills of its catalog) only when the set differs
//! from the last one the session recorded; a nested attachment is recorded with the tool
//! message that carries it. Reads are [`Store`] methods, writes [`Tx`] methods.

use rusqlite::{OptionalExtension as _, params};

use super::{DbResult, Store, StoreError, Tx, sql};
use crate::util::now_rfc3339;

/// One file (or the catalog) as delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// `instruction`, `skill` (one listed skill) or `catalog` (the skill catalog text itself).
    pub kind: &'static str,
    /// `section` (an instruction file of the request's system text, from the cwd's chain),
    /// `joined` (a nested file that joined the section at a compaction), `nested` (attached to
    /// a tool result), `listing` (a skill or the catalog of the request).
    pub how: &'static str,
    /// Absolute path (a skill: its SKILL.md; the catalog: empty).
    pub path: String,
    /// Lower-case hex sha256: an instruction file's text as read (spec/instructions.md §2.5,
    /// the attach map's hash), a SKILL.md's bytes, the catalog's text.
    pub sha256: String,
    /// Bytes sent: an instruction file's kept bytes, a skill's description length in
    /// characters as listed (0 when the catalog is collapsed), the catalog text's length.
    pub bytes: i64,
    /// A skill's name.
    pub name: Option<String>,
    /// A skill's description as listed: `full` or `dropped` (a collapsed catalog); an
    /// instruction file's truncation when it was cut (`end`, `beginning`).
    pub detail: Option<String>,
    /// `nested`: the call whose result carried the attachment, its tool and its first path.
    pub call_id: Option<String>,
    pub tool: Option<String>,
    pub target: Option<String>,
}

impl Delivered {
    /// What two recorded sets are compared on (the call of a nested file is not part of a set).
    fn key(&self) -> (&str, &str, &str, &str, i64, Option<&str>, Option<&str>) {
        (
            self.kind,
            self.how,
            &self.path,
            &self.sha256,
            self.bytes,
            self.name.as_deref(),
            self.detail.as_deref(),
        )
    }
}

/// One stored delivery row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryRow {
    /// The session's counter, in the order recorded.
    pub id: i64,
    pub run_id: String,
    /// The run's request number (1-based) the row belongs to.
    pub request: i64,
    /// The largest message seq when it was recorded (a nested file: its tool message's seq).
    pub at_seq: i64,
    pub item: Delivered,
    pub created_at: String,
}

/// The kinds and ways this build writes (a row of another is a newer build's: read, kept as
/// text).
fn known(s: &str) -> &'static str {
    match s {
        "instruction" => "instruction",
        "skill" => "skill",
        "catalog" => "catalog",
        "section" => "section",
        "joined" => "joined",
        "nested" => "nested",
        "listing" => "listing",
        _ => "unknown",
    }
}

impl Store {
    /// Whether the store has the `deliveries` table (a store written before schema v3, opened
    /// read only, has not).
    fn has_deliveries(&self) -> Result<bool, StoreError> {
        self.has_table("deliveries")
    }

    /// Every delivery row of a session, in the order recorded (none in a store older than v3).
    ///
    /// # Errors
    /// SQLite errors.
    pub fn deliveries(&self, sid: &str) -> Result<Vec<DeliveryRow>, StoreError> {
        if !self.has_deliveries()? {
            return Ok(Vec::new());
        }
        self.delivery_rows("", params![sid])
    }

    /// The rows of `session_id = ?1` and `cond` (its parameters from `?2` on), in id order.
    fn delivery_rows(
        &self,
        cond: &str,
        p: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<DeliveryRow>, StoreError> {
        let q = format!(
            "SELECT id,run_id,request,at_seq,kind,how,path,sha256,bytes,name,detail,call_id,tool,target,created_at FROM deliveries WHERE session_id=?1 {cond} ORDER BY id"
        );
        let mut st = self.connection.prepare(&q).map_err(sql)?;
        let rows = st
            .query_map(p, |r| {
                Ok(DeliveryRow {
                    id: r.get(0)?,
                    run_id: r.get(1)?,
                    request: r.get(2)?,
                    at_seq: r.get(3)?,
                    item: Delivered {
                        kind: known(&r.get::<_, String>(4)?),
                        how: known(&r.get::<_, String>(5)?),
                        path: r.get(6)?,
                        sha256: r.get(7)?,
                        bytes: r.get(8)?,
                        name: r.get(9)?,
                        detail: r.get(10)?,
                        call_id: r.get(11)?,
                        tool: r.get(12)?,
                        target: r.get(13)?,
                    },
                    created_at: r.get(14)?,
                })
            })
            .map_err(sql)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(sql)
    }

    /// The set the session's last recorded request delivered (its `section`, `joined` and
    /// `listing` rows), empty when none was recorded.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn last_request_set(&self, sid: &str) -> Result<Vec<Delivered>, StoreError> {
        let last: Option<(String, i64)> = self
            .connection
            .query_row(
                "SELECT run_id,request FROM deliveries WHERE session_id=?1 AND how<>'nested' ORDER BY id DESC LIMIT 1",
                [sid],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(sql)?;
        let Some((run, request)) = last else {
            return Ok(Vec::new());
        };
        let rows = self.delivery_rows(
            "AND how<>'nested' AND run_id=?2 AND request=?3",
            params![sid, run, request],
        )?;
        Ok(rows.into_iter().map(|r| r.item).collect())
    }

    /// Whether `set` differs from the session's last recorded request set.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn request_set_changed(&self, sid: &str, set: &[Delivered]) -> Result<bool, StoreError> {
        let last = self.last_request_set(sid)?;
        Ok(last.len() != set.len() || last.iter().zip(set).any(|(a, b)| a.key() != b.key()))
    }
}

impl Tx<'_> {
    /// Stores the rows of one request (or one nested attachment) in order.
    ///
    /// # Errors
    /// SQLite errors.
    pub fn add_deliveries(
        &self,
        sid: &str,
        run_id: &str,
        request: i64,
        at_seq: i64,
        items: &[Delivered],
    ) -> DbResult<()> {
        let mut id: i64 = self.tx.query_row(
            "SELECT coalesce(max(id),0) FROM deliveries WHERE session_id=?1",
            [sid],
            |r| r.get(0),
        )?;
        let now = now_rfc3339();
        for d in items {
            id += 1;
            self.tx.execute(
                "INSERT INTO deliveries(session_id,id,run_id,request,at_seq,kind,how,path,sha256,bytes,name,detail,call_id,tool,target,created_at) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
                params![sid, id, run_id, request, at_seq, d.kind, d.how, d.path, d.sha256, d.bytes, d.name, d.detail, d.call_id, d.tool, d.target, now],
            )?;
        }
        Ok(())
    }
}
