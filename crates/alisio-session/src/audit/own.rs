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
use crate::store::{DeliveryRow, RequestEvent, RequestRow, SessionRow, Store, StoreError};

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
    // One read transaction: the sessions and each one's reads see one state of the store.
    store.read_snapshot(store_error(shown), |store| {
        let rows = store
            .workspace_sessions(&root.to_string_lossy())
            .map_err(store_error(shown))?;
        rows.iter()
            .take(limit)
            .map(|r| session(store, r, shown))
            .collect()
    })
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
    store.read_snapshot(store_error(shown), |store| {
        let rows = store.list("", true).map_err(store_error(shown))?;
        rows.iter()
            .map(|(r, _, _)| session(store, r, shown))
            .collect()
    })
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
    // A delivery is a file whose path or text the previous set did not have; the system text
    // changed when a file's path, text, kept bytes or truncation did.
    let mut prev: HashSet<(String, String)> = HashSet::new();
    let mut prev_sent: HashSet<(String, String, i64, Option<String>)> = HashSet::new();
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
        let mut sent = HashSet::new();
        for d in set.iter().filter(|d| d.item.kind == "instruction") {
            sent.insert((
                d.item.path.clone(),
                d.item.sha256.clone(),
                d.item.bytes,
                d.item.detail.clone(),
            ));
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
            if sent != prev_sent {
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
        prev_sent = sent;
        first_set = false;
        i = j;
    }
    for at in store.rewind_seqs(&row.id).map_err(e)? {
        marks.push((at, "rewind"));
    }
    s.requests = requests(
        store.request_rows(&row.id).map_err(e)?,
        marks,
        store.run_last_seqs(&row.id).map_err(e)?,
        store.request_events(&row.id).map_err(e)?,
        row.provider.get("kind").and_then(serde_json::Value::as_str),
    )
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

/// The prompt cache's lifetime a provider kind assumes by default (spec/sessions.md §5.1
/// `provider.promptCacheTtlSeconds`), for a run whose `run_started` does not record the one it
/// used (stored before it was recorded): 300 s for `anthropic`, else 0 (never assumed expired).
fn ttl_of(kind: Option<&str>) -> u64 {
    if kind == Some("anthropic") { 300 } else { 0 }
}

/// A stored usage's JSON text as the provider reported it (`None`: absent, not JSON, estimated).
fn stored_usage(usage: Option<String>) -> Option<ReportedUsage> {
    usage
        .and_then(|u| serde_json::from_str::<serde_json::Value>(&u).ok())
        .and_then(|u| ReportedUsage::from_stored(&u))
}

/// What a stored event says of a request.
#[derive(Clone, Debug)]
enum Ev {
    /// `context_governed`: a request was built then.
    Built(Option<i64>),
    /// An answer the runner discarded (`truncation_recovery`, an invalid turn's
    /// `request_retry`, the answer that ended the run: `run_failed` with a `usage`): its event
    /// id, time and usage.
    Discarded(i64, Option<i64>, Option<String>),
    /// A compaction's summary (`compaction_completed`, `compaction_failed` with `usage`).
    Summary(i64, Option<i64>, Option<String>),
}

/// A run's events cut at each `turn_completed` (spec/interfaces.md §4): the k-th closed part
/// belongs to the run's k-th stored answer, the open part (after the last `turn_completed`) to
/// a handoff or an answer whose `turn_completed` was never stored, else to the run's end.
#[derive(Debug, Default)]
struct RunParts {
    closed: std::collections::VecDeque<Vec<Ev>>,
    open: Vec<Ev>,
    /// Its `run_started`'s provider kind.
    kind: Option<String>,
    /// Its `run_started`'s cache lifetime (recorded since it was added; else the kind's).
    ttl_secs: Option<u64>,
    /// The largest seq the run appended ([`Store::run_last_seqs`]).
    last_seq: Option<i64>,
    /// The model of its last stored answer.
    model: Option<String>,
}

/// The session's stored events by run, in the runs' order.
fn run_parts(
    runs: Vec<(String, Option<i64>)>,
    events: Vec<RequestEvent>,
) -> Vec<(String, RunParts)> {
    let mut out: Vec<(String, RunParts)> = runs
        .into_iter()
        .map(|(id, last_seq)| {
            (
                id,
                RunParts {
                    last_seq,
                    ..RunParts::default()
                },
            )
        })
        .collect();
    for e in events {
        let i = out
            .iter()
            .position(|(id, _)| *id == e.run_id)
            .unwrap_or_else(|| {
                out.push((e.run_id.clone(), RunParts::default()));
                out.len() - 1
            });
        let p = &mut out[i].1;
        let at = timestamp_ms(&e.timestamp);
        match e.ty.as_str() {
            "run_started" => {
                p.kind = e.provider;
                p.ttl_secs = e.ttl_secs;
            }
            "context_governed" => p.open.push(Ev::Built(at)),
            "turn_completed" => {
                let part = std::mem::take(&mut p.open);
                p.closed.push_back(part);
            }
            "truncation_recovery" | "request_retry" | "run_failed" if e.usage.is_some() => {
                p.open.push(Ev::Discarded(e.id, at, e.usage));
            }
            "compaction_completed" | "compaction_failed" if e.usage.is_some() => {
                p.open.push(Ev::Summary(e.id, at, e.usage));
            }
            _ => {}
        }
    }
    out
}

/// Builds the session's requests in order (see [`requests`]).
struct Builder {
    out: Vec<Obs>,
    /// What happened since the previous request.
    events: Vec<&'static str>,
    /// `(key, event)`, sorted: a delivery set's change at `2 × at_seq`, a rewind at
    /// `2 × at_seq + 1` (it comes after the rows up to its `at_seq`).
    marks: std::iter::Peekable<std::vec::IntoIter<(i64, &'static str)>>,
    /// The session's provider kind, for a run whose `run_started` is not stored.
    kind: Option<String>,
}

impl Builder {
    /// Takes the marks before `bound` into the pending events.
    fn marks_before(&mut self, bound: i64) {
        while let Some((_, e)) = self.marks.next_if(|m| m.0 < bound) {
            add(&mut self.events, e);
        }
    }

    /// A request of the conversation.
    fn push(
        &mut self,
        line: i64,
        at_ms: Option<i64>,
        model: Option<String>,
        usage: Option<String>,
        ttl: u64,
        bound: i64,
    ) {
        self.marks_before(bound);
        self.out.push(Obs {
            id: line.to_string(),
            line: usize::try_from(line).unwrap_or(0),
            at_ms,
            model,
            usage: stored_usage(usage),
            ttl_secs: ttl,
            events: std::mem::take(&mut self.events),
            ..Obs::default()
        });
    }

    /// The requests of a run's part, before the answer it belongs to (whose `bound`, model and
    /// lifetime they take); returns when the last request left unanswered was built.
    fn part(&mut self, part: Vec<Ev>, model: Option<&String>, ttl: u64, bound: i64) -> Option<i64> {
        let mut built = None;
        for ev in part {
            match ev {
                Ev::Built(at) => built = Some(at),
                Ev::Discarded(id, at, usage) => {
                    let at = built.take().unwrap_or(at);
                    self.push(id, at, model.cloned(), usage, ttl, bound);
                }
                Ev::Summary(id, at, usage) => self.out.push(Obs {
                    id: id.to_string(),
                    line: usize::try_from(id).unwrap_or(0),
                    at_ms: at,
                    model: model.cloned(),
                    usage: stored_usage(usage),
                    ttl_secs: ttl,
                    aside: Some("compaction-summary"),
                    ..Obs::default()
                }),
            }
        }
        built.flatten()
    }

    fn ttl(&self, run: &RunParts) -> u64 {
        run.ttl_secs
            .unwrap_or_else(|| ttl_of(run.kind.as_deref().or(self.kind.as_deref())))
    }

    /// The rest of a run's requests: parts no stored answer took (discarded answers at its
    /// end, a failed run's).
    fn flush(&mut self, run: &mut RunParts) {
        let ttl = self.ttl(run);
        let bound = run
            .last_seq
            .map_or(i64::MAX, |s| s.saturating_mul(2).saturating_add(1));
        let mut parts: Vec<Vec<Ev>> = run.closed.drain(..).collect();
        parts.push(std::mem::take(&mut run.open));
        for p in parts {
            self.part(p, run.model.as_ref(), ttl, bound);
        }
    }
}

/// The session's requests (spec/interfaces.md §4, "alisio-ls's own sessions"): one per stored
/// assistant message in `seq` order, `line` its seq, its model and usage
/// ([`ReportedUsage::from_stored`]: none when estimated), its time the `context_governed` event
/// of its request when stored, else its `created_at`, the lifetime of its run's provider kind;
/// before it the answers of its run the runner discarded and its compaction summaries (from the
/// events, `line` their event id); and what happened since the previous request: a checkpoint
/// row (`compaction`), a budget-reduced row (`budget-reduction`), a handoff
/// (`relay-handoff`), and `marks` (`(seq, event)`: a changed instruction set or skill catalog
/// recorded at that seq, a rewind after it).
fn requests(
    rows: Vec<RequestRow>,
    marks: Vec<(i64, &'static str)>,
    runs: Vec<(String, Option<i64>)>,
    events: Vec<RequestEvent>,
    kind: Option<&str>,
) -> Vec<Obs> {
    let mut marks: Vec<(i64, &'static str)> = marks
        .into_iter()
        .map(|(at, e)| {
            (
                at.saturating_mul(2)
                    .saturating_add(i64::from(e == "rewind")),
                e,
            )
        })
        .collect();
    marks.sort_by_key(|m| m.0);
    let mut runs = run_parts(runs, events);
    let mut b = Builder {
        out: Vec::new(),
        events: Vec::new(),
        marks: marks.into_iter().peekable(),
        kind: kind.map(String::from),
    };
    // The runs before this one are done: their leftovers go before this row.
    let mut flushed = 0;
    for row in rows {
        let run = match &row {
            RequestRow::Request { run_id, .. }
            | RequestRow::Checkpoint { run_id, .. }
            | RequestRow::Reduced { run_id, .. } => run_id.as_deref(),
        };
        let at = run.and_then(|r| runs.iter().position(|(id, _)| id == r));
        if let Some(at) = at {
            while flushed < at {
                b.flush(&mut runs[flushed].1);
                flushed += 1;
            }
        }
        match row {
            RequestRow::Checkpoint { .. } => add(&mut b.events, "compaction"),
            RequestRow::Reduced { .. } => add(&mut b.events, "budget-reduction"),
            RequestRow::Request {
                seq,
                created_at,
                model,
                usage,
                handoff,
                ..
            } => {
                let bound = seq.saturating_mul(2);
                let mut built = None;
                let mut ttl = ttl_of(kind);
                if let Some(at) = at {
                    let r = &mut runs[at].1;
                    let part = if handoff { None } else { r.closed.pop_front() };
                    let part = part.unwrap_or_else(|| std::mem::take(&mut r.open));
                    ttl = b.ttl(r);
                    built = b.part(part, model.as_ref(), ttl, bound);
                    r.model.clone_from(&model);
                }
                if handoff {
                    add(&mut b.events, "relay-handoff");
                }
                let at_ms = built.or_else(|| timestamp_ms(&created_at));
                b.push(seq, at_ms, model, usage, ttl, bound);
            }
        }
    }
    for (_, r) in runs.iter_mut().skip(flushed) {
        b.flush(r);
    }
    b.out
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
