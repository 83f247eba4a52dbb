//! The read side (spec/sessions.md §1.9): `sessions list`, `sessions show`, `sessions report`,
//! `alisio/listSessions`, `alisio/contextReport`. Nothing here writes.

use serde_json::{Value, json};

use super::store::{self, Store};
use alisio_governor::stored::SessionOptions;

/// `alisio/listSessions` (and `sessions list --json` with `cli`: workspace, status, parentId).
///
/// # Errors
/// Store errors.
pub fn list(store: &Store, workspace: &str, all: bool, cli: bool) -> Result<Vec<Value>, String> {
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

/// The transcript export of `sessions show ID --json`.
///
/// # Errors
/// Store errors, unknown session.
pub fn show(store: &Store, id: &str, events: bool) -> Result<Value, String> {
    let s = store
        .session(id)?
        .ok_or_else(|| format!("Session not found: {id}"))?;
    let msgs: Vec<Value> = store
        .all_messages(id)?
        .into_iter()
        .map(|m| {
            json!({"seq":m.seq,"pos":m.pos,"role":m.role,"kind":m.kind,"compacted":m.compacted,"replacedBy":m.replaced_by,"runId":m.run_id,
                "createdAt":m.created_at,"message":serde_json::from_str::<Value>(&m.json).unwrap_or(Value::Null)})
        })
        .collect();
    let mut v = json!({"schemaVersion":1,"session":{"id":s.id,"title":s.title,"workspace":s.workspace,"cwd":s.cwd,"createdAt":s.created_at,
        "updatedAt":s.updated_at,"parentId":s.parent_id,"provider":s.provider,"options":s.options},"messages":msgs});
    if events {
        v["events"] = Value::Array(store.events(id)?);
    }
    Ok(v)
}

/// `sessions show` without `--json`: one line per active message of the paired view.
///
/// # Errors
/// Store errors.
pub fn show_lines(store: &Store, id: &str) -> Result<Vec<String>, String> {
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
) -> Result<Value, String> {
    let s = store
        .session(id)?
        .ok_or_else(|| format!("Session not found: {id}"))?;
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
    let sources = super::gov::Sources::from_options(&options, Vec::new(), 0);
    let gov = super::gov::Gov::new(mode, settings);
    let mut r = gov.report(id, &active, &parts, &sources);
    super::gov::with_stored_replay(store, id, &mut r)?;
    // spec/sessions.md §12.2: the coordinator's briefs.
    if s.parent_id.is_none() && s.options["mode"] == "coordinator" {
        let values: Vec<Value> = active.iter().map(super::store::MsgRow::value).collect();
        r["delegation"] = super::briefs::report(&values, &super::runner::worker_text());
    }
    // spec/sessions.md §12.5: the session's place in a relay chain.
    let (of, to) = (&s.options["relayOf"], &s.options["relayedTo"]);
    if of.is_string() || to.is_string() {
        r["relay"] = json!({"of": of, "to": to});
    }
    // This process has no ledger for the session: the ledger's figures as the process that
    // ran it measured them at its last request (spec/governor.md §8).
    if r["measured"] == Value::Bool(true) && r["usage"].is_null() {
        r["usage"] = store
            .last_event_data(id, "context_governed")?
            .and_then(|d| serde_json::from_str::<Value>(&d).ok())
            .map(|v| v["usage"].clone())
            .unwrap_or(Value::Null);
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
