//! mini-swe-agent `traj.json` (spec/governor.md §11.6): messages with `bash` tool calls, return codes
//! and `<output>` bodies; the base directory is empty (a fresh shell per command).

use std::collections::HashMap;

use serde_json::Value;

use super::{Outcome, Problem, Session, count_redacted, shell_foreign};
use crate::audit::cache::ReportedUsage;
use crate::model::{Call, Foreign, Message, Part, ToolResult, UserKind};
use crate::recorded::RecordedRequest;
use crate::shell::Base;

fn content_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// (exit code, comparison text, error) of a tool message (spec/governor.md §11.6).
fn outcome(m: &Value, content: &str) -> (Option<i64>, String, bool) {
    let extra = m.get("extra");
    let tag = || {
        let rest = content.strip_prefix("<returncode>")?;
        let end = rest.find("</returncode>")?;
        rest[..end].trim().parse::<i64>().ok()
    };
    let exit = extra
        .and_then(|e| e.get("returncode"))
        .and_then(Value::as_i64)
        .or_else(tag);
    let comparison = content
        .find("<output>")
        .and_then(|s| {
            content[s + 8..]
                .find("</output>")
                .map(|e| content[s + 8..s + 8 + e].to_owned())
        })
        .unwrap_or_else(|| content.to_owned());
    let exception = extra
        .and_then(|e| e.get("exception_info"))
        .is_some_and(|x| match x {
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
            _ => true,
        });
    (
        exit,
        comparison,
        exception || !content.starts_with("<returncode>"),
    )
}

/// The usage of the completion an assistant message came from (`extra.response.usage`, a chat
/// completion's: `prompt_tokens` includes the cached part, `prompt_tokens_details.cached_tokens`
/// or DeepSeek's `prompt_cache_hit_tokens`); spec/governor.md §11.11.
fn reported(m: &Value) -> Option<(ReportedUsage, bool)> {
    let u = m
        .pointer("/extra/response/usage")
        .filter(|u| u.is_object())?;
    let prompt = u.get("prompt_tokens").and_then(Value::as_u64)?;
    let cached = u
        .pointer("/prompt_tokens_details/cached_tokens")
        .or_else(|| u.get("prompt_cache_hit_tokens"))
        .and_then(Value::as_u64);
    let output = u
        .get("completion_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let usage = ReportedUsage::from_openai(prompt, cached.unwrap_or(0).min(prompt), output);
    Some((usage, cached.is_some()))
}

pub(crate) fn read(v: Value) -> Vec<Session> {
    let mut s = Session::default();
    s.source.redacted_values = count_redacted(&v);
    s.source.session = v
        .get("instance_id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut h = Vec::new();
    let mut outs: HashMap<String, (bool, Option<i64>, String)> = HashMap::new();
    for (i, m) in v
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let text = content_text(m.get("content"));
        match m.get("role").and_then(Value::as_str) {
            Some("system") => h.push(Message::User {
                kind: UserKind::System,
                parts: vec![Part::text(text)],
                skill: None,
                origin: Some("system".into()),
            }),
            Some("user") => h.push(Message::user(text)),
            Some("assistant") => {
                let mut calls = Vec::new();
                for c in m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let id = c.get("id").and_then(Value::as_str).unwrap_or_default();
                    let f = c.get("function");
                    let name = f
                        .and_then(|f| f.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let args = match f.and_then(|f| f.get("arguments")) {
                        Some(Value::String(a)) => a.clone(),
                        Some(a) => a.to_string(),
                        None => String::new(),
                    };
                    calls.push(Call::new(id, name, args));
                }
                if let Some((usage, cache_reported)) = reported(m) {
                    s.recorded.push(RecordedRequest {
                        message: h.len(),
                        usage,
                        cache_reported,
                    });
                }
                h.push(Message::assistant(text, calls));
            }
            Some("tool") => {
                let id = m
                    .get("tool_call_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let (exit, comparison, is_error) = outcome(m, &text);
                outs.insert(id.clone(), (is_error, exit, comparison));
                h.push(Message::Tool(ToolResult {
                    call_id: id,
                    parts: vec![Part::text(text)],
                    is_error,
                    denial: None,
                }));
            }
            Some("exit") => {}
            _ => s.source.problems.push(Problem {
                line: None,
                message: format!("messages[{i}]: unknown role"),
            }),
        }
    }
    for m in &mut h {
        let Message::Assistant { calls, .. } = m else {
            continue;
        };
        for c in calls.iter_mut() {
            let cmd = serde_json::from_str::<Value>(&c.arguments)
                .ok()
                .and_then(|a| a.get("command").and_then(Value::as_str).map(str::to_owned));
            let f = match (c.name.as_str(), cmd) {
                ("bash", Some(cmd)) => {
                    let o = outs
                        .get(&c.id)
                        .map(|(err, exit, cmp)| Outcome::new(*err, *exit, cmp));
                    shell_foreign(&cmd, &Base::Empty, o.as_ref())
                }
                _ => Foreign::default(),
            };
            c.foreign = Some(Box::new(f));
        }
    }
    s.history = h;
    vec![s]
}
