//! The checkpoint of a compaction as pure functions (spec/sessions.md §6.4–§6.6, §6.8): where
//! to cut, the summarizer's request text, parsing and rendering its answer, and clipping a
//! message for budget reduction. No store, no provider: `mod.rs` drives them.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::providers::{calls_of, texts};
use crate::store::{MsgRow, Role, RowKind};
use crate::util::{chars, take_chars};

/// The summarizer's system text (spec/sessions.md §6.5).
pub const SUMMARIZER_SYSTEM: &str = "You condense the transcript of a coding-agent session into a checkpoint that lets the agent continue the work without the original messages. Answer with only this JSON object and nothing else: {\"checkpoint\":{\"goal\":\"...\",\"instructions\":[\"...\"],\"discoveries\":[\"...\"],\"accomplished\":[\"...\"],\"currentState\":\"...\",\"nextSteps\":[\"...\"],\"relevantFiles\":[\"...\"]}}. `instructions` are the user's instructions and constraints. Keep file paths, symbols, commands, tool call ids and error texts exactly as written. Invent nothing. Be brief.";

/// spec/sessions.md §6.4: the index of the first kept message, or `None` (no plan).
#[must_use]
pub fn plan(active: &[MsgRow], keep_turns: u32) -> Option<usize> {
    let n = active.len();
    let mut open: HashSet<String> = HashSet::new();
    let mut safe = vec![false; n + 1];
    for (i, m) in active.iter().enumerate() {
        if i > 0 && m.role != Role::Tool && open.is_empty() {
            safe[i] = true;
        }
        let v = m.value();
        if m.role == Role::Assistant {
            for (id, _, _) in calls_of(&v) {
                open.insert(id);
            }
        } else if m.role == Role::Tool
            && let Some(id) = v.get("callId").and_then(Value::as_str)
        {
            open.remove(id);
        }
    }
    if !open.is_empty() {
        return None;
    }
    let mut starts: Vec<usize> = Vec::new();
    if active.first().is_some_and(|m| m.role == Role::User) {
        starts.push(0);
    }
    for (i, m) in active.iter().enumerate() {
        if i > 0 && safe[i] && m.role == Role::User {
            starts.push(i);
        }
    }
    let k = keep_turns as usize;
    let mut cut = if k == 0 {
        n
    } else if starts.len() > k {
        starts[starts.len() - k]
    } else if starts.len() >= 2 {
        starts[starts.len() - 1]
    } else {
        0
    };
    if cut < 2 {
        cut = (2..n).rev().find(|&i| safe[i] && n - i >= 4).unwrap_or(0);
    }
    (cut >= 2).then_some(cut)
}

fn item(s: String) -> String {
    if chars(&s) > 4000 {
        format!("{}… [truncated]", take_chars(&s, 4000))
    } else {
        s
    }
}

/// The summarizer's user message (spec/sessions.md §6.5).
#[must_use]
pub fn transcript(msgs: &[MsgRow]) -> String {
    let mut lines = Vec::new();
    for m in msgs {
        let v = m.value();
        match m.role {
            Role::User if m.kind == RowKind::Checkpoint => {
                lines.push(item(format!("PREVIOUS SUMMARY: {}", texts(&v))))
            }
            Role::User => lines.push(item(format!("USER: {}", texts(&v)))),
            Role::Assistant => {
                let t = texts(&v);
                if !t.is_empty() {
                    lines.push(item(format!("ASSISTANT: {t}")));
                }
                for (id, name, args) in calls_of(&v) {
                    lines.push(item(format!("TOOL CALL {id} {name}: {args}")));
                }
            }
            Role::Tool => {
                let err = if v["isError"] == json!(true) {
                    " (error)"
                } else {
                    ""
                };
                lines.push(item(format!(
                    "TOOL RESULT {}{err}: {}",
                    v["callId"].as_str().unwrap_or_default(),
                    texts(&v)
                )));
            }
        }
    }
    format!(
        "Checkpoint this session transcript.\n\n<transcript>\n{}\n</transcript>",
        lines.join("\n")
    )
}

/// spec/sessions.md §6.6: the parsed checkpoint object, when valid.
#[must_use]
pub fn parse(raw: &str) -> Option<Value> {
    let body = if let Some(start) = raw.find("```") {
        let after = &raw[start + 3..];
        let after = after.strip_prefix("json").unwrap_or(after);
        after.find("```").map(|e| after[..e].to_string())
    } else {
        None
    };
    let body = body.or_else(|| {
        let (a, b) = (raw.find('{')?, raw.rfind('}')?);
        (a < b).then(|| raw[a..=b].to_string())
    })?;
    let v: Value = serde_json::from_str(body.trim()).ok()?;
    let c = v.get("checkpoint")?;
    let goal = c.get("goal")?.as_str()?.trim();
    if goal.is_empty() || chars(goal) > 4000 {
        return None;
    }
    for k in [
        "instructions",
        "discoveries",
        "accomplished",
        "nextSteps",
        "relevantFiles",
    ] {
        match c.get(k) {
            None => {}
            Some(Value::Array(a))
                if a.len() <= 40
                    && a.iter()
                        .all(|x| x.as_str().is_some_and(|s| chars(s) <= 4000)) => {}
            _ => return None,
        }
    }
    match c.get("currentState") {
        None => {}
        Some(Value::String(s)) if chars(s) <= 4000 => {}
        _ => return None,
    }
    Some(v)
}

/// spec/sessions.md §6.6 rendering of a structured checkpoint.
#[must_use]
pub fn render(v: &Value) -> String {
    let c = &v["checkpoint"];
    let list = |k: &str| {
        let items: Vec<String> = c
            .get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| format!("- {s}"))
                    .collect()
            })
            .unwrap_or_default();
        if items.is_empty() {
            "- (none)".to_string()
        } else {
            items.join("\n")
        }
    };
    let string = |k: &str| {
        c.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("(none)")
            .to_string()
    };
    [
        format!("## Goal\n{}", string("goal")),
        format!(
            "## User instructions and constraints\n{}",
            list("instructions")
        ),
        format!("## Discoveries\n{}", list("discoveries")),
        format!("## Accomplished\n{}", list("accomplished")),
        format!("## Current state\n{}", string("currentState")),
        format!("## Next steps\n{}", list("nextSteps")),
        format!("## Relevant files\n{}", list("relevantFiles")),
    ]
    .join("\n\n")
}

pub(super) fn clippable(m: &MsgRow, v: &Value) -> bool {
    m.kind != RowKind::Checkpoint
        && v.get("skill").is_none()
        && !(m.role == Role::Tool && v["name"] == crate::tools::specs::SKILL_LOAD.name)
}

pub(super) fn clip(v: &Value, cap: usize) -> Value {
    let mut out = v.clone();
    let mut left = cap;
    let mut cut_any = false;
    if let Some(parts) = out.get_mut("content").and_then(Value::as_array_mut) {
        for p in parts.iter_mut() {
            if p["type"] != "text" {
                continue;
            }
            let t = p["text"].as_str().unwrap_or_default().to_string();
            let n = chars(&t);
            if n <= left {
                left -= n;
            } else {
                p["text"] = json!(take_chars(&t, left).to_string());
                left = 0;
                cut_any = true;
            }
        }
        if cut_any {
            // A tool result says how to read the rest: its call's stored result is whole
            // (spec/sessions.md §2.8, §6.8); the first `cap` characters are what is kept.
            let marker = match v["callId"].as_str().filter(|_| v["role"] == "tool") {
                Some(id) => format!(
                    "\n… [truncated by context budget; result_read {{\"callId\":{},\"offset\":{cap}}} returns the rest]",
                    serde_json::to_string(id).unwrap_or_default()
                ),
                None => "\n… [truncated by context budget]".to_string(),
            };
            if let Some(last) = parts.iter_mut().rev().find(|p| p["type"] == "text") {
                let t = last["text"].as_str().unwrap_or_default().to_string();
                last["text"] = json!(format!("{t}{marker}"));
            }
            parts.retain(|p| {
                p["type"] != "text" || p["text"].as_str().is_some_and(|s| !s.is_empty())
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seq: i64, role: Role, json: Value) -> MsgRow {
        MsgRow {
            seq,
            pos: seq,
            role,
            kind: RowKind::Message,
            json: json.to_string(),
            compacted: false,
            replaced_by: None,
            run_id: None,
            created_at: String::new(),
        }
    }

    fn user(seq: i64) -> MsgRow {
        row(
            seq,
            Role::User,
            json!({"role":"user","content":[{"type":"text","text":"u"}]}),
        )
    }

    fn call(seq: i64, id: &str) -> MsgRow {
        row(
            seq,
            Role::Assistant,
            json!({"role":"assistant","content":[{"type":"tool_call","id":id,"name":"read_file","arguments":"{}"}]}),
        )
    }

    fn result(seq: i64, id: &str) -> MsgRow {
        row(
            seq,
            Role::Tool,
            json!({"role":"tool","callId":id,"name":"read_file","isError":false,"outcome":"ok","content":[{"type":"text","text":"r"}]}),
        )
    }

    #[test]
    fn the_cut_keeps_the_last_exchanges_and_never_splits_a_call() {
        let t = vec![
            user(1),
            call(2, "a"),
            result(3, "a"),
            user(4),
            call(5, "b"),
            result(6, "b"),
            user(7),
        ];
        assert_eq!(plan(&t, 2), Some(3));
        let single = vec![user(1), call(2, "a"), result(3, "a"), call(4, "b")];
        assert_eq!(plan(&single, 2), None, "an unanswered call: no plan");
        let short = vec![
            user(1),
            call(2, "a"),
            result(3, "a"),
            row(
                4,
                Role::Assistant,
                json!({"role":"assistant","content":[{"type":"text","text":"x"}]}),
            ),
        ];
        assert_eq!(plan(&short, 2), None);
    }

    #[test]
    fn structured_checkpoints_render_seven_headings() {
        let v = parse(
            "```json\n{\"checkpoint\":{\"goal\":\"g\",\"instructions\":[\"no semicolons\"]}}\n```",
        )
        .unwrap();
        assert_eq!(
            render(&v),
            "## Goal\ng\n\n## User instructions and constraints\n- no semicolons\n\n## Discoveries\n- (none)\n\n## Accomplished\n- (none)\n\n## Current state\n(none)\n\n## Next steps\n- (none)\n\n## Relevant files\n- (none)"
        );
        assert!(parse("just words").is_none());
        assert!(parse("} backwards {").is_none());
        assert!(parse("{\"checkpoint\":{\"goal\":\"\"}}").is_none());
    }
}
