//! Claude Code JSONL (spec/governor.md §11.4): main chain and sidechains, merged assistant lines,
//! tool results split into tool messages, and the tool mapping onto canonical tools.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    Line, Outcome, Problem, Session, count_redacted, cursor_poll, fingerprint, shell_foreign,
    text_of,
};
use crate::audit::cache::ReportedUsage;
use crate::model::{Call, Class, Foreign, Message, Part, PartKind, ToolResult, UserKind};
use crate::recorded::RecordedRequest;
use crate::shell::{self, Base};
use crate::stubs::canonical;

/// A chain: its sidechain root (`None` for the main chain) and its message lines.
type Chain<'v> = (Option<String>, Vec<(usize, &'v Value)>);

const IGNORED: &[&str] = &[
    "summary",
    "system",
    "progress",
    "queue-operation",
    "file-history-snapshot",
];

pub(crate) fn read(lines: &[Line]) -> Vec<Session> {
    let mut problems = Vec::new();
    let mut skipped = 0;
    let mut redacted = 0;
    let mut msgs: Vec<(usize, &Value)> = Vec::new();
    for l in lines {
        let Some(v) = l.value.as_ref().filter(|v| v.is_object()) else {
            skipped += 1;
            problems.push(Problem {
                line: Some(l.number),
                message: "malformed JSON line".into(),
            });
            continue;
        };
        redacted += count_redacted(v);
        match v.get("type").and_then(Value::as_str) {
            Some("user" | "assistant") => {
                if v.get("message").is_some_and(Value::is_object) {
                    msgs.push((l.number, v));
                } else {
                    problems.push(Problem {
                        line: Some(l.number),
                        message: "message line without a message object".into(),
                    });
                }
            }
            Some(t) if IGNORED.contains(&t) => {}
            _ => problems.push(Problem {
                line: Some(l.number),
                message: "unknown record type".into(),
            }),
        }
    }
    let side = |v: &Value| {
        v.get("isSidechain")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    let any_main = msgs.iter().any(|(_, v)| !side(v));
    // Roots of sidechain lines: follow parentUuid through sidechain lines.
    let by_uuid: HashMap<&str, &Value> = msgs
        .iter()
        .filter_map(|(_, v)| v.get("uuid").and_then(Value::as_str).map(|u| (u, *v)))
        .collect();
    let root_of = |v: &Value| -> String {
        let mut cur = v;
        for _ in 0..=msgs.len() {
            let parent = cur
                .get("parentUuid")
                .and_then(Value::as_str)
                .and_then(|p| by_uuid.get(p))
                .filter(|p| side(p));
            match parent {
                Some(p) => cur = p,
                None => break,
            }
        }
        cur.get("uuid")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut chains: Vec<Chain<'_>> = vec![(None, Vec::new())];
    let mut index: HashMap<String, usize> = HashMap::new();
    for (n, v) in &msgs {
        if !any_main || !side(v) {
            chains[0].1.push((*n, v));
        } else {
            let root = root_of(v);
            let k = *index.entry(root.clone()).or_insert_with(|| {
                chains.push((Some(root), Vec::new()));
                chains.len() - 1
            });
            chains[k].1.push((*n, v));
        }
    }
    let session_id = msgs
        .iter()
        .chain(std::iter::empty())
        .find_map(|(_, v)| v.get("sessionId").and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned();
    let mut out = Vec::new();
    for (k, (root, chain)) in chains.into_iter().enumerate() {
        let mut s = build(&chain);
        s.source.session = if root.is_some() {
            format!("{session_id}/sidechain-{k}")
        } else {
            session_id.clone()
        };
        s.source.sidechain = root.is_some();
        if k == 0 {
            s.source.skipped_lines = skipped;
            s.source.problems = problems.clone();
            s.source.redacted_values = redacted;
        }
        out.push(s);
    }
    out
}

fn base_of(v: &Value) -> Base {
    match v.get("cwd").and_then(Value::as_str) {
        Some(c) if !c.is_empty() => Base::Known(c.to_owned()),
        _ => Base::Unknown,
    }
}

fn result_parts(content: Option<&Value>) -> Vec<Part> {
    match content {
        Some(Value::String(s)) => vec![Part::text(s.clone())],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => Some(Part::text(
                    b.get("text").and_then(Value::as_str).unwrap_or_default(),
                )),
                Some(_) => Some(Part {
                    kind: PartKind::Image,
                    text: String::new(),
                }),
                None => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn build(chain: &[(usize, &Value)]) -> Session {
    let mut s = Session::default();
    let mut h: Vec<Message> = Vec::new();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut bases: HashMap<String, Base> = HashMap::new();
    let mut meta: HashMap<String, Value> = HashMap::new();
    for (_, v) in chain {
        let msg = &v["message"];
        if v.get("type").and_then(Value::as_str) == Some("assistant") {
            let mut parts = Vec::new();
            let mut calls = Vec::new();
            match msg.get("content") {
                Some(Value::String(t)) => parts.push(Part::text(t.clone())),
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => parts.push(Part::text(
                                b.get("text").and_then(Value::as_str).unwrap_or_default(),
                            )),
                            Some("thinking") => parts.push(Part::reasoning(
                                b.get("thinking")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default(),
                            )),
                            Some("tool_use") => {
                                let id = b
                                    .get("id")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned();
                                bases.insert(id.clone(), base_of(v));
                                let input = b.get("input").cloned().unwrap_or(Value::Null);
                                calls.push(Call::new(
                                    id,
                                    b.get("name").and_then(Value::as_str).unwrap_or_default(),
                                    input.to_string(),
                                ));
                            }
                            _ => parts.push(Part::opaque(b.to_string())),
                        }
                    }
                }
                _ => {}
            }
            let id = msg.get("id").and_then(Value::as_str).map(str::to_owned);
            let at = match id.as_ref().and_then(|i| by_id.get(i)).copied() {
                Some(k) if matches!(h.get(k), Some(Message::Assistant { .. })) => {
                    if let Some(Message::Assistant { parts: p, calls: c }) = h.get_mut(k) {
                        p.extend(parts);
                        c.extend(calls);
                    }
                    k
                }
                _ => {
                    if let Some(i) = id {
                        by_id.insert(i, h.len());
                    }
                    h.push(Message::Assistant { parts, calls });
                    h.len() - 1
                }
            };
            // The lines of one response repeat its usage (the output count grows): the last
            // line's is the response's (spec/governor.md §11.11).
            if let Some(u) = msg.get("usage").filter(|u| u.is_object()) {
                let usage = ReportedUsage::from_anthropic(u);
                let cache_reported = u.get("cache_read_input_tokens").is_some_and(Value::is_u64);
                match s.recorded.iter_mut().rev().find(|r| r.message == at) {
                    Some(r) => {
                        r.usage = usage;
                        r.cache_reported = cache_reported;
                    }
                    None => s.recorded.push(RecordedRequest {
                        message: at,
                        usage,
                        cache_reported,
                    }),
                }
            }
            continue;
        }
        let kind = if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
            UserKind::Checkpoint
        } else if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
            UserKind::Injected
        } else {
            UserKind::Plain
        };
        let mut rest = Vec::new();
        match msg.get("content") {
            Some(Value::String(t)) => rest.push(Part::text(t.clone())),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("tool_result") => {
                            let id = b
                                .get("tool_use_id")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned();
                            if let Some(m) = v.get("toolUseResult") {
                                meta.insert(id.clone(), m.clone());
                            }
                            let is_error =
                                b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
                            h.push(Message::Tool(ToolResult {
                                call_id: id,
                                parts: result_parts(b.get("content")),
                                is_error,
                                denial: None,
                            }));
                        }
                        Some("text") => rest.push(Part::text(
                            b.get("text").and_then(Value::as_str).unwrap_or_default(),
                        )),
                        _ => rest.push(Part {
                            kind: PartKind::Image,
                            text: String::new(),
                        }),
                    }
                }
            }
            _ => {}
        }
        if kind == UserKind::Checkpoint {
            s.source.compactions += 1;
            s.source.compacted_messages += h.len();
            h.clear();
            by_id.clear();
            s.recorded.clear();
        }
        if !rest.is_empty() || kind == UserKind::Checkpoint {
            h.push(Message::User {
                kind,
                parts: rest,
                skill: None,
                origin: None,
            });
        }
    }
    annotate(&mut h, &bases, &meta);
    s.history = h;
    s
}

fn annotate(h: &mut [Message], bases: &HashMap<String, Base>, meta: &HashMap<String, Value>) {
    let results: HashMap<String, ToolResult> = h
        .iter()
        .filter_map(|m| {
            if let Message::Tool(r) = m {
                Some((r.call_id.clone(), r.clone()))
            } else {
                None
            }
        })
        .collect();
    for m in h.iter_mut() {
        let Message::Assistant { calls, .. } = m else {
            continue;
        };
        for c in calls {
            let base = bases.get(&c.id).cloned().unwrap_or(Base::Unknown);
            let input: Value = serde_json::from_str(&c.arguments).unwrap_or(Value::Null);
            let r = results.get(&c.id);
            c.foreign = Some(Box::new(foreign(
                &c.name,
                &input,
                &base,
                r,
                meta.get(&c.id),
            )));
        }
    }
}

fn named_of(input: &Value, base: &Base) -> Vec<String> {
    let mut out = Vec::new();
    for k in ["path", "file", "filePath", "file_path", "notebook_path"] {
        if let Some(p) = input.get(k).and_then(Value::as_str) {
            out.push(p.to_owned());
            if let Some(key) = shell::key(base, p).filter(|x| x != p) {
                out.push(key);
            }
        }
    }
    out
}

fn int(v: Option<&Value>) -> Option<u64> {
    v.and_then(Value::as_u64)
}

/// The canonical meaning of one Claude Code call (spec/governor.md §11.4 table).
fn foreign(
    name: &str,
    input: &Value,
    base: &Base,
    r: Option<&ToolResult>,
    meta: Option<&Value>,
) -> Foreign {
    if super::has_redacted(input) {
        return Foreign::default();
    }
    let ok = r.is_some_and(|r| !r.is_error);
    let text = r.map(text_of).unwrap_or_default();
    let mut f = Foreign {
        named: named_of(input, base),
        ..Foreign::default()
    };
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    match name {
        "Read" => {
            let Some(p) = s("file_path") else { return f };
            let key = shell::key(base, p);
            f.canonical = Some("read_file".into());
            f.origin = Some(p.to_owned());
            f.reads = key.clone();
            let (offset, limit) = (int(input.get("offset")), int(input.get("limit")));
            if ok {
                let lines = (offset.is_some() || limit.is_some())
                    .then(|| (offset.unwrap_or(1), limit.unwrap_or(2000)));
                let group = key.as_ref().map(|k| {
                    format!(
                        "cc\u{0}{k}\u{0}{}\u{0}{}",
                        offset.unwrap_or(1),
                        limit.unwrap_or(2000)
                    )
                });
                f.attributable = key.clone().map(|k| vec![k]);
                f.class = Class::Read {
                    shown: key.clone().unwrap_or_else(|| p.to_owned()),
                    key,
                    lines,
                    sha256: None,
                    compare: group.map(|g| (g, fingerprint(None, &text))),
                };
            }
        }
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            let p = if name == "NotebookEdit" {
                s("notebook_path")
            } else {
                s("file_path")
            };
            let Some(p) = p else { return f };
            f.canonical = Some(
                if name == "Write" {
                    "write_file"
                } else {
                    "edit_file"
                }
                .into(),
            );
            f.origin = Some(p.to_owned());
            if ok && let Some(k) = shell::key(base, p) {
                f.class = Class::Write { keys: vec![k] };
            }
        }
        "Grep" | "Glob" => {
            let Some(pattern) = s("pattern") else {
                return f;
            };
            f.canonical = Some("search_text".into());
            if ok {
                f.attributable = meta
                    .and_then(|m| m.get("filenames"))
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .filter_map(|p| shell::key(base, p))
                            .collect()
                    });
                f.class = Class::Search {
                    signature: format!("cc\u{0}{}\u{0}{}", base.signature(), canonical(input)),
                    shown: pattern.to_owned(),
                    records: Some(fingerprint(None, &text)),
                };
            }
        }
        "LS" => f.canonical = Some("list_files".into()),
        "Bash" => {
            let Some(cmd) = s("command") else { return f };
            if input.get("run_in_background").and_then(Value::as_bool) == Some(true) {
                f.named = super::shell_named(cmd, base);
                return f;
            }
            let outcome = r.map(|r| Outcome::new(r.is_error, None, &text));
            return shell_foreign(cmd, base, outcome.as_ref());
        }
        "BashOutput" | "TaskOutput" => {
            let task_key = if name == "BashOutput" {
                "bash_id"
            } else {
                "task_id"
            };
            let Some(task) = s(task_key) else { return f };
            let empty = meta.is_some_and(|m| {
                if name == "BashOutput" {
                    m.get("stdout").and_then(Value::as_str) == Some("")
                        && m.get("stderr").and_then(Value::as_str) == Some("")
                } else {
                    let present: Vec<&str> = ["stdout", "stderr", "output"]
                        .iter()
                        .filter_map(|k| m.get(*k).and_then(Value::as_str))
                        .collect();
                    !present.is_empty() && present.iter().all(|x| x.is_empty())
                }
            });
            let named = f.named;
            f = cursor_poll(task.to_owned(), empty, ok);
            f.named = named;
        }
        "Skill" => {
            f.canonical = Some("skill_load".into());
            f.class = Class::Skill;
        }
        _ => {}
    }
    f
}
