//! Our own transcript export (`sessions show ID --json`, spec/sessions.md §1.9): stored messages in
//! `pos` order, compacted and replaced rows left out, invariant sources from the session options,
//! and each assistant message's reported usage (spec/governor.md §11.11).

use serde_json::Value;

use super::{Problem, Session, count_redacted};
use crate::audit::cache::ReportedUsage;
use crate::model::{Call, Message, Part, PartKind, ToolResult, UserKind};
use crate::recorded::RecordedRequest;
use crate::stored::{Role, RowKind, SessionOptions};

fn parts(content: Option<&Value>) -> (Vec<Part>, Vec<Call>) {
    let mut ps = Vec::new();
    let mut calls = Vec::new();
    for b in content.and_then(Value::as_array).into_iter().flatten() {
        let s = |k: &str| {
            b.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        match b.get("type").and_then(Value::as_str) {
            Some("text") => ps.push(Part::text(s("text"))),
            Some("reasoning" | "thinking") => {
                ps.push(Part::reasoning(if b.get("text").is_some() {
                    s("text")
                } else {
                    s("thinking")
                }))
            }
            Some("tool_call") => calls.push(Call::new(s("id"), s("name"), s("arguments"))),
            Some("image") => ps.push(Part {
                kind: PartKind::Image,
                text: String::new(),
            }),
            _ => ps.push(Part::opaque(b.to_string())),
        }
    }
    (ps, calls)
}

/// One stored message JSON (spec/sessions.md §1.4) as a governor message.
#[must_use]
pub fn message(row_kind: &str, m: &Value) -> Option<Message> {
    let (mut ps, calls) = parts(m.get("content"));
    match Role::parse(m.get("role").and_then(Value::as_str)?)? {
        Role::User => {
            let kind = if is_checkpoint(row_kind) || m.get("checkpoint").is_some() {
                UserKind::Checkpoint
            } else {
                UserKind::Plain
            };
            let skill = m.get("skill").and_then(Value::as_str).map(str::to_owned);
            Some(Message::User {
                kind,
                parts: ps,
                skill,
                origin: None,
            })
        }
        Role::Assistant => {
            if let Some(pd) = m.get("providerData") {
                ps.push(Part::opaque(pd.to_string()));
            }
            Some(Message::Assistant { parts: ps, calls })
        }
        Role::Tool => Some(Message::Tool(ToolResult {
            call_id: m
                .get("callId")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            parts: ps,
            is_error: m.get("isError").and_then(Value::as_bool).unwrap_or(false),
            denial: m.get("denial").and_then(Value::as_str).map(str::to_owned),
        })),
    }
}

fn is_checkpoint(row_kind: &str) -> bool {
    RowKind::parse(row_kind) == Some(RowKind::Checkpoint)
}

pub(crate) fn read(v: Value) -> Vec<Session> {
    let mut s = Session::default();
    s.source.redacted_values = count_redacted(&v);
    let session = v.get("session").unwrap_or(&Value::Null);
    s.source.session = session
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    s.sources =
        SessionOptions::from_value(session.get("options").unwrap_or(&Value::Null)).sources();
    let mut rows: Vec<(i64, i64, &Value)> = Vec::new();
    for (i, r) in v
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let compacted = r
            .get("compacted")
            .is_some_and(|c| c.as_bool() == Some(true) || c.as_i64() == Some(1));
        let replaced = r.get("replacedBy").is_some_and(|x| !x.is_null());
        let kind = r.get("kind").and_then(Value::as_str).unwrap_or("message");
        if is_checkpoint(kind) {
            s.source.compactions += 1;
        }
        if compacted {
            s.source.compacted_messages += 1;
            continue;
        }
        if replaced {
            continue;
        }
        let pos = r.get("pos").and_then(Value::as_i64).unwrap_or(i as i64);
        let seq = r.get("seq").and_then(Value::as_i64).unwrap_or(i as i64);
        rows.push((pos, seq, r));
    }
    rows.sort_by_key(|(pos, seq, _)| (*pos, *seq));
    for (_, seq, r) in rows {
        let kind = r.get("kind").and_then(Value::as_str).unwrap_or("message");
        let stored = r.get("message");
        match stored.and_then(|m| message(kind, m)) {
            Some(m) => {
                // The usage the provider reported for the request this answer closed (the runner
                // stores `input` as the whole prompt; `None` when it estimated it).
                let usage = stored
                    .filter(|_| m.is_assistant())
                    .and_then(|j| j.get("usage"))
                    .and_then(ReportedUsage::from_stored);
                if let Some(usage) = usage {
                    s.recorded.push(RecordedRequest {
                        message: s.history.len(),
                        usage,
                        cache_reported: false,
                    });
                }
                s.history.push(m);
            }
            None => s.source.problems.push(Problem {
                line: None,
                message: format!("message seq {seq}: unknown stored message"),
            }),
        }
    }
    // The stored usage has a cache read and write whatever the provider reported (0 when it sent
    // none), so it says something of the cache only where the session shows one was used: some
    // request read from it or wrote to it (spec/governor.md §11.11).
    let cached = s
        .recorded
        .iter()
        .any(|r| r.usage.cache_read > 0 || r.usage.cache_write > 0);
    for r in &mut s.recorded {
        r.cache_reported = cached;
    }
    vec![s]
}
