//! alisio-ls's own sessions for `audit` (spec/interfaces.md §4): the store's `deliveries`
//! (spec/sessions.md §1.3) read as the clients' session files are, into the same
//! [`SessionAudit`] (format `alisio`), then compared with the disk and `context explain --host
//! alisio` by [`super::compare`]; and its model requests (the assistant message rows, with the
//! provider's `usage`) classified and priced as a client's (§4.3). The store is opened read
//! only: nothing is created, migrated or written.

use std::collections::HashSet;
use std::path::Path;

use alisio_governor::audit::cache::{Obs, ReportedUsage, classify_all};
use alisio_governor::audit::{
    Delivery, ListedSkill, SessionAudit, SkillListing, ToolRef, timestamp_ms,
};

use super::AuditError;
use crate::store::{DeliveryRow, RequestRow, SessionRow, Store, StoreError};

/// The format name of alisio-ls's sessions.
pub const FORMAT: &str = "alisio";

/// The store's file in a state directory.
#[must_use]
pub fn store_file(state: &Path) -> std::path::PathBuf {
    state.join("sessions.db")
}

/// Whether `path` is an SQLite database (its first 16 bytes).
#[must_use]
pub fn is_store(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"SQLite format 3\0")
}

/// A store error as the audit reports it, with the file as shown.
fn store_error(shown: &str) -> impl Fn(StoreError) -> AuditError + Copy + '_ {
    move |source| AuditError::Store {
        shown: shown.to_owned(),
        source,
    }
}

fn open(dir: &Path, shown: &str) -> Result<Option<Store>, AuditError> {
    Store::open_read_only(dir).map_err(store_error(shown))
}

/// The sessions of the store in `state` whose workspace is `root` (children included), newest
/// first; at most `limit` of them. No store there: none.
///
/// # Errors
/// The store cannot be read (`<shown>: <error>`).
pub fn workspace_sessions(
    state: &Path,
    root: &Path,
    shown: &str,
    limit: usize,
) -> Result<Vec<SessionAudit>, AuditError> {
    let Some(store) = open(state, shown)? else {
        return Ok(Vec::new());
    };
    let rows = store
        .workspace_sessions(&root.to_string_lossy())
        .map_err(store_error(shown))?;
    rows.iter()
        .take(limit)
        .map(|r| session(&store, r, shown))
        .collect()
}

/// Every session of the store file `path` (a `sessions.db` named on the command line), newest
/// first.
///
/// # Errors
/// The store cannot be read (`<shown>: <error>`).
pub fn all_sessions(path: &Path, shown: &str) -> Result<Vec<SessionAudit>, AuditError> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    if path.file_name().is_none_or(|n| n != "sessions.db") {
        return Err(AuditError::NotStoreFile {
            shown: shown.to_owned(),
        });
    }
    let Some(store) = open(dir, shown)? else {
        return Ok(Vec::new());
    };
    let rows = store.list("", true).map_err(store_error(shown))?;
    rows.iter()
        .map(|(r, _, _)| session(&store, r, shown))
        .collect()
}

fn tool_ref(r: &DeliveryRow) -> Option<ToolRef> {
    r.item.tool.as_ref().map(|t| ToolRef {
        tool: t.clone(),
        target: r.item.target.clone(),
        line: usize::try_from(r.at_seq).unwrap_or(0),
    })
}

/// One stored session as an audit: its deliveries (a request set's files the first time, and
/// later those whose path or text the previous set did not have), its skill listings (when the
/// catalog changed), its nested files, and its requests with their prompt cache.
fn session(store: &Store, row: &SessionRow, shown: &str) -> Result<SessionAudit, AuditError> {
    let e = store_error(shown);
    let runs = store.run_ids(&row.id).map_err(e)?;
    let rows = store.deliveries(&row.id).map_err(e)?;
    let mut s = SessionAudit {
        file: shown.to_owned(),
        format: FORMAT,
        session: row.id.clone(),
        cwd: Some(row.cwd.clone()),
        lines: rows.len(),
        prompts: runs.len(),
        started_ms: alisio_governor::audit::timestamp_ms(&row.created_at),
        ..SessionAudit::default()
    };
    if rows.is_empty() && !runs.is_empty() {
        s.problems.push(alisio_governor::audit::AuditProblem {
            line: 0,
            message: "this session records no deliveries (it ran before alisio-ls recorded them, store schema 3)".into(),
        });
    }
    let prompt_of = |run: &str| runs.iter().position(|r| r == run).map_or(0, |i| i + 1);
    let mut prev: HashSet<(String, String)> = HashSet::new();
    let mut first_set = true;
    let mut last_catalog: Option<String> = None;
    // What changed in the request's system text, at the seq the set was recorded at: the
    // request it applies to is the first stored one after that seq.
    let mut marks: Vec<(i64, &'static str)> = Vec::new();
    let mut sent_catalog: Option<Option<&str>> = None;
    let mut i = 0;
    while i < rows.len() {
        let r = &rows[i];
        if r.item.how == "nested" {
            s.deliveries
                .push(delivery(r, "nested", prompt_of(&r.run_id)));
            i += 1;
            continue;
        }
        // One request set: the rows of this run and request up to the next nested row.
        let mut j = i;
        while j < rows.len()
            && rows[j].item.how != "nested"
            && rows[j].run_id == r.run_id
            && rows[j].request == r.request
        {
            j += 1;
        }
        let set = &rows[i..j];
        let prompt = prompt_of(&r.run_id);
        let mut now = HashSet::new();
        for d in set.iter().filter(|d| d.item.kind == "instruction") {
            let key = (d.item.path.clone(), d.item.sha256.clone());
            let how = if first_set {
                "startup"
            } else if d.item.how == "joined" {
                "after-compaction"
            } else if d.request == 1 {
                "prompt"
            } else {
                "changed"
            };
            if first_set || !prev.contains(&key) {
                s.deliveries.push(delivery(d, how, prompt));
            }
            now.insert(key);
        }
        let catalog = set.iter().find(|d| d.item.kind == "catalog");
        if !first_set {
            if now != prev {
                marks.push((r.at_seq, "instruction-changed"));
            }
            if sent_catalog != Some(catalog.map(|c| c.item.sha256.as_str())) {
                marks.push((r.at_seq, "skill-listing-changed"));
            }
        }
        sent_catalog = Some(catalog.map(|c| c.item.sha256.as_str()));
        if let Some(c) = catalog
            && last_catalog.as_deref() != Some(&c.item.sha256)
        {
            last_catalog = Some(c.item.sha256.clone());
            s.skill_listings.push(SkillListing {
                line: usize::try_from(c.id).unwrap_or(0),
                prompt,
                bytes: usize::try_from(c.item.bytes).unwrap_or(0),
                sha256: c.item.sha256.clone(),
                skills: set
                    .iter()
                    .filter(|d| d.item.kind == "skill")
                    .map(|d| ListedSkill {
                        name: d.item.name.clone().unwrap_or_default(),
                        description_chars: usize::try_from(d.item.bytes).unwrap_or(0),
                        description: if d.item.detail.as_deref() == Some("dropped") {
                            "dropped"
                        } else {
                            "full"
                        },
                        text: String::new(),
                    })
                    .collect(),
            });
        }
        prev = now;
        first_set = false;
        i = j;
    }
    for at in store.rewind_seqs(&row.id).map_err(e)? {
        marks.push((at, "rewind"));
    }
    s.requests = requests(store.request_rows(&row.id).map_err(e)?, marks)
        .into_iter()
        .map(Obs::into_request)
        .collect();
    classify_all(&mut s, None);
    Ok(s)
}

/// Adds `e` to `events` once.
fn add(events: &mut Vec<&'static str>, e: &'static str) {
    if !events.contains(&e) {
        events.push(e);
    }
}

/// The session's requests (spec/interfaces.md §4, "alisio-ls's own sessions"): one per stored
/// assistant message in `seq` order, `line` its seq, its `created_at`, model and usage
/// ([`ReportedUsage::from_stored`]: none when estimated), a 300 s time to live, and what
/// happened since the previous request: a checkpoint row (`compaction`), a budget-reduced row
/// (`budget-reduction`), and `marks` (`(seq, event)`: a changed instruction set or skill
/// catalog recorded at that seq, a rewind after it).
fn requests(rows: Vec<RequestRow>, mut marks: Vec<(i64, &'static str)>) -> Vec<Obs> {
    marks.sort_by_key(|m| m.0);
    let mut marks = marks.into_iter().peekable();
    let mut events: Vec<&'static str> = Vec::new();
    let mut out = Vec::new();
    for row in rows {
        match row {
            RequestRow::Checkpoint { .. } => add(&mut events, "compaction"),
            RequestRow::Reduced { .. } => add(&mut events, "budget-reduction"),
            RequestRow::Request {
                seq,
                created_at,
                model,
                usage,
                ..
            } => {
                while let Some((_, e)) = marks.next_if(|m| m.0 < seq) {
                    add(&mut events, e);
                }
                out.push(Obs {
                    id: seq.to_string(),
                    line: usize::try_from(seq).unwrap_or(0),
                    at_ms: timestamp_ms(&created_at),
                    model,
                    usage: usage
                        .and_then(|u| serde_json::from_str(&u).ok())
                        .and_then(|u: serde_json::Value| ReportedUsage::from_stored(&u)),
                    ttl_secs: 300,
                    events: std::mem::take(&mut events),
                    ..Obs::default()
                });
            }
        }
    }
    out
}

fn delivery(r: &DeliveryRow, how: &'static str, prompt: usize) -> Delivery {
    Delivery {
        path: r.item.path.clone(),
        scope: Some(r.item.how.to_owned()),
        how,
        prompt,
        after_tool: (how == "nested").then(|| tool_ref(r)).flatten(),
        sha256: r.item.sha256.clone(),
        bytes: usize::try_from(r.item.bytes).unwrap_or(0),
        line: usize::try_from(r.id).unwrap_or(0),
        client_says_differs: None,
        imports: Vec::new(),
        on_disk: None,
        predicted: None,
        joined: Vec::new(),
        text: String::new(),
    }
}

#[cfg(test)]
mod tests;
