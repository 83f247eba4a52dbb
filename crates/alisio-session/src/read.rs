//! The read side (spec/sessions.md §1.9): `sessions list`, `sessions show`, `sessions report`,
//! `alisio/listSessions`, `alisio/contextReport`. Nothing here writes.

use serde::Serialize;
use serde_json::{Value, json};

use super::store::{self, Store, StoreError};
use alisio_governor::report::ContextReport;
use alisio_governor::stored::SessionOptions;

/// `alisio/listSessions` (and `sessions list --json` with `cli`: workspace, status, parentId).
///
/// # Errors
/// Store errors.
pub fn list(
    store: &Store,
    workspace: &str,
    all: bool,
    cli: bool,
) -> Result<Vec<Value>, StoreError> {
    let rows = store.list(workspace, all)?;
    Ok(rows
        .into_iter()
        .map(|(s, n, status)| {
            let mut v = json!({"sessionId":s.id,"title":s.title,"createdAt":s.created_at,"updatedAt":s.updated_at,"messages":n});
            // spec/sessions.md §12.5: the relay chain.
            for k in ["relayOf", "relayedTo"] {
                if let Some(x) = s.options.get(k).filter(|x| x.is_string()) {
                    v[k] = x.clone();
                }
            }
            if cli {
                v["workspace"] = json!(s.workspace);
                v["status"] = json!(status);
                if all {
                    v["parentId"] = json!(s.parent_id);
                }
            }
            v
        })
        .collect())
}

/// The transcript export of `sessions show ID --json` and `alisio/sessionTranscript`, in the
/// order it is printed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    pub schema_version: u32,
    pub session: TranscriptSession,
    pub messages: Vec<TranscriptMessage>,
    /// The stored event envelopes (`--events` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Value>>,
}

/// The session row of a [`Transcript`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptSession {
    pub id: String,
    pub title: String,
    pub workspace: String,
    pub cwd: String,
    pub created_at: String,
    pub updated_at: String,
    pub parent_id: Option<String>,
    /// The provider settings the session was created with, as stored.
    pub provider: Value,
    /// The stored session options (`SessionOptions`), as stored.
    pub options: Value,
}

/// One stored message of a [`Transcript`], compacted ones included.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptMessage {
    pub seq: i64,
    pub pos: i64,
    pub role: store::Role,
    pub kind: store::RowKind,
    pub compacted: bool,
    pub replaced_by: Option<i64>,
    pub run_id: Option<String>,
    pub created_at: String,
    /// The stored message (spec/governor.md §2.1) as stored; `null` when it does not parse.
    pub message: Value,
}

/// The transcript export of `sessions show ID --json`.
///
/// # Errors
/// Store errors, unknown session.
pub fn show(store: &Store, id: &str, events: bool) -> Result<Transcript, StoreError> {
    let s = store
        .session(id)?
        .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
    let messages = store
        .all_messages(id)?
        .into_iter()
        .map(|m| TranscriptMessage {
            message: m.value(),
            seq: m.seq,
            pos: m.pos,
            role: m.role,
            kind: m.kind,
            compacted: m.compacted,
            replaced_by: m.replaced_by,
            run_id: m.run_id,
            created_at: m.created_at,
        })
        .collect();
    Ok(Transcript {
        schema_version: 1,
        session: TranscriptSession {
            id: s.id,
            title: s.title,
            workspace: s.workspace,
            cwd: s.cwd,
            created_at: s.created_at,
            updated_at: s.updated_at,
            parent_id: s.parent_id,
            provider: s.provider,
            options: s.options,
        },
        messages,
        events: if events {
            Some(store.events(id)?)
        } else {
            None
        },
    })
}

/// `sessions show` without `--json`: one line per active message of the paired view.
///
/// # Errors
/// Store errors.
pub fn show_lines(store: &Store, id: &str) -> Result<Vec<String>, StoreError> {
    Ok(store::paired_view(store, id)?
        .into_iter()
        .map(|m| {
            let v = m.value();
            let mut text = super::providers::texts(&v);
            for (_, name, args) in super::providers::calls_of(&v) {
                text.push_str(&format!(" → {name} {args}"));
            }
            let one = text.replace('\n', " ");
            format!(
                "#{} {} {}",
                m.pos,
                m.role,
                super::util::take_chars(one.trim(), 200)
            )
        })
        .collect())
}

/// The ContextReport of the session's next request, from the paired view (dry: no events,
/// no writes, no compaction). The request parts are built as a headless run would build them
/// (read tools only unless the last run stored otherwise).
///
/// # Errors
/// Store errors, unknown session.
///
/// `policies` are those of the surface asking, as its next run would have them with no flags:
/// the CLI's are headless (an `ask` effect is not offered), the editor's are not (it can ask).
pub fn report(
    store: &Store,
    id: &str,
    settings: &alisio_base::config::Settings,
    policies: super::approvals::Policies,
    ctx: &dyn super::SessionContext,
) -> Result<ContextReport, StoreError> {
    let s = store
        .session(id)?
        .ok_or_else(|| StoreError::NotFound(id.to_string()))?;
    let options = SessionOptions::from_value(&s.options);
    let mode = options
        .governor
        .as_deref()
        .and_then(alisio_base::config::GovernorMode::parse)
        .unwrap_or(settings.governor);
    let active = store::paired_view(store, id)?;
    let root = std::path::PathBuf::from(&s.workspace);
    let cwd = std::path::PathBuf::from(&s.cwd);
    let attached = super::runner::joined_of(&options);
    let (_, parts) =
        super::runner::request_parts(&root, &cwd, &attached, ctx, &policies, seat_of(&s), None);
    let sources = super::run_governor::RunnerSources::from_options(&options, Vec::new(), 0);
    let mut governor = super::run_governor::RunGovernor::new(mode, settings);
    governor.restore_cold(super::run_governor::stored_cold(store, id)?);
    let mut r = governor.report(id, &active, &parts, &sources);
    super::run_governor::with_stored_replay(store, id, &mut r)?;
    // spec/sessions.md §12.2: the coordinator's briefs.
    if s.parent_id.is_none() && s.options["mode"] == "coordinator" {
        let values: Vec<Value> = active.iter().map(super::store::MsgRow::value).collect();
        r.set_delegation(super::briefs::report(
            &values,
            &super::runner::worker_text(),
        ));
    }
    // spec/sessions.md §12.5: the session's place in a relay chain.
    let (of, to) = (&s.options["relayOf"], &s.options["relayedTo"]);
    if of.is_string() || to.is_string() {
        r.set_relay(json!({"of": of, "to": to}));
    }
    // This process has no ledger for the session: the ledger's figures as the process that
    // ran it measured them at its last request (spec/governor.md §8).
    if let ContextReport::Measured(m) = &mut r
        && m.usage.is_none()
    {
        m.usage = store
            .last_event_data(id, "context_governed")?
            .and_then(|d| serde_json::from_str::<Value>(&d).ok())
            .and_then(|mut v| serde_json::from_value(v["usage"].take()).ok());
    }
    Ok(r)
}

/// The seat a stored session's next request has (spec/sessions.md §12.1): its stored mode.
fn seat_of(s: &super::store::SessionRow) -> super::runner::Seat {
    let coordinator = s.options["mode"] == "coordinator";
    match (&s.parent_id, coordinator) {
        (Some(_), worker) => super::runner::Seat::Child { worker },
        (None, true) => super::runner::Seat::Coordinator,
        (None, false) => super::runner::Seat::Root { task: true },
    }
}
