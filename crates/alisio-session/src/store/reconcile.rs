//! Reconciliation of interrupted runs (spec/sessions.md §1.7) as reads: which calls of the active
//! transcript have no result and what result they get, and the paired view read-only consumers
//! show. The writes of reconciliation are the runner's, through [`Tx`](super::Tx).

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{MsgRow, Role, RowKind, Store, StoreError};
use crate::util::{compact, now_rfc3339};

pub const INTERRUPTED_RUNNING: &str = "Interrupted: the session stopped while this call was running; its effects are unknown. Inspect the workspace before retrying.";
pub const INTERRUPTED_PENDING: &str = "Interrupted: the session stopped before this call ran.";

/// One reconciled call.
#[derive(Clone, Debug, PartialEq)]
pub struct Reconciled {
    pub id: String,
    pub name: String,
    pub outcome: String,
    /// The tool message JSON to append.
    pub json: String,
    /// `write_file`/`edit_file` call interrupted while running: its path argument.
    pub write_path: Option<String>,
}

/// Calls without a tool message in the active transcript, in transcript order, with the result
/// reconciliation gives them (spec/sessions.md §1.7 step 2). Pure: reads only.
///
/// # Errors
/// SQLite errors.
pub fn unanswered(store: &Store, sid: &str) -> Result<Vec<Reconciled>, StoreError> {
    let msgs = store.active_messages(sid)?;
    let journal = store.calls(sid)?;
    let mut answered = HashSet::new();
    for m in &msgs {
        if m.role == Role::Tool
            && let Some(id) = m.value().get("callId").and_then(Value::as_str)
        {
            answered.insert(id.to_string());
        }
    }
    let mut out = Vec::new();
    for m in msgs.iter().filter(|m| m.role == Role::Assistant) {
        let v = m.value();
        for part in v
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if part.get("type").and_then(Value::as_str) != Some("tool_call") {
                continue;
            }
            let id = str_field(part, "id");
            if answered.contains(&id) {
                continue;
            }
            let name = str_field(part, "name");
            let interrupted = |text: &str| {
                tool_message(&id, &name, true, "interrupted", None, &[text.to_string()])
            };
            let row = journal.get(&id);
            let (outcome, json, write_path) = match row {
                Some(c) if c.state == "done" && c.result.is_some() => {
                    let j = c.result.clone().unwrap_or_default();
                    let o = serde_json::from_str::<Value>(&j)
                        .ok()
                        .and_then(|v| v.get("outcome").and_then(Value::as_str).map(String::from))
                        .unwrap_or_else(|| "ok".into());
                    (o, j, None)
                }
                Some(c) if c.state == "started" => {
                    let wp = crate::tools::spec(&name)
                        .filter(|s| s.effect == crate::tools::Effect::Write)
                        .and_then(|s| {
                            let args = part
                                .get("arguments")
                                .and_then(Value::as_str)
                                .and_then(|a| serde_json::from_str::<Map<String, Value>>(a).ok())?;
                            s.declared_paths(&args).into_iter().next()
                        });
                    ("interrupted".into(), interrupted(INTERRUPTED_RUNNING), wp)
                }
                _ => ("interrupted".into(), interrupted(INTERRUPTED_PENDING), None),
            };
            out.push(Reconciled {
                id,
                name,
                outcome,
                json,
                write_path,
            });
        }
    }
    Ok(out)
}

/// The string field `key` of `v`, empty when absent or not a string.
fn str_field(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The stored tool message JSON (spec/sessions.md §1.4). Empty text parts are not stored.
#[must_use]
pub fn tool_message(
    call_id: &str,
    name: &str,
    is_error: bool,
    outcome: &str,
    denial: Option<&str>,
    texts: &[String],
) -> String {
    let content: Vec<Value> = texts
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| json!({"type":"text","text":t}))
        .collect();
    let mut m =
        json!({"role":"tool","callId":call_id,"name":name,"isError":is_error,"outcome":outcome});
    // The structural refusal mark (spec/sessions.md §1.4): denial pruning reads it, never the text.
    if let Some(d) = denial {
        m["denial"] = json!(d);
    }
    m["content"] = Value::Array(content);
    compact(&m)
}

/// The active transcript with reconciliation applied in memory (read-only consumers).
///
/// # Errors
/// SQLite errors.
pub fn paired_view(store: &Store, sid: &str) -> Result<Vec<MsgRow>, StoreError> {
    let mut msgs = store.active_messages(sid)?;
    let missing = unanswered(store, sid)?;
    if missing.is_empty() {
        return Ok(msgs);
    }
    // Insert each synthetic result right after its assistant message's existing results.
    let mut next_seq = store.all_messages(sid)?.last().map_or(0, |m| m.seq);
    for r in missing {
        let Some(ai) = msgs.iter().position(|m| {
            m.role == Role::Assistant
                && m.json
                    .contains(&format!("\"id\":{}", compact(&Value::String(r.id.clone()))))
        }) else {
            continue;
        };
        let mut at = ai + 1;
        while at < msgs.len() && msgs[at].role == Role::Tool {
            at += 1;
        }
        next_seq += 1;
        msgs.insert(
            at,
            MsgRow {
                seq: next_seq,
                pos: next_seq,
                role: Role::Tool,
                kind: RowKind::Message,
                json: r.json,
                compacted: false,
                replaced_by: None,
                run_id: None,
                created_at: now_rfc3339(),
            },
        );
    }
    Ok(msgs)
}
