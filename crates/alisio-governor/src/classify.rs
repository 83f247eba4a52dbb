//! Classification of Alisio's own calls and results (spec/governor.md §2.2), and the per-result facts
//! the rules, the report and the usage heuristic share. Foreign calls arrive pre-classified
//! (`Call::foreign`, set by `readers`).

use serde_json::{Map, Value};

use super::model::{Call, Class, Message, PartKind, ToolResult};
use super::stubs::canonical;

/// Canonical tool names the report may show as `as` (spec/governor.md §11).
pub const READ: &str = "read_file";

fn obj(s: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    }
}

/// A JSON integer (by value, so `2.0` counts) at least `min`.
fn int_at_least(v: &Value, min: u64) -> Option<u64> {
    let n = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1.0e18)
            .map(|f| f as u64)
    })?;
    (n >= min).then_some(n)
}

/// An optional typed field: `Ok(None)` when absent or null, `Err` when present with another type.
fn opt<T>(
    m: &Map<String, Value>,
    k: &str,
    f: impl Fn(&Value) -> Option<T>,
) -> Result<Option<T>, ()> {
    match m.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => f(v).map(Some).ok_or(()),
    }
}

fn string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

/// The result text: text parts concatenated, no separator (spec/governor.md §2.2).
#[must_use]
pub fn result_text(r: &ToolResult) -> String {
    r.parts
        .iter()
        .filter(|p| p.kind == PartKind::Text)
        .map(|p| p.text.as_str())
        .collect()
}

/// Whether the runner attached an `<instructions>` part to this result (spec/governor.md §2.2). The runner
/// writes the part as `"\n<instructions>…"`, so leading whitespace is skipped.
#[must_use]
pub fn has_attached_instructions(r: &ToolResult) -> bool {
    r.parts
        .iter()
        .skip(1)
        .any(|p| p.kind == PartKind::Text && p.text.trim_start().starts_with("<instructions"))
}

/// The result JSON: the first text part parsed as an object.
fn result_json(r: &ToolResult) -> Option<Map<String, Value>> {
    r.parts
        .iter()
        .find(|p| p.kind == PartKind::Text)
        .and_then(|p| obj(&p.text))
}

fn is_sha(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Search match records of a `stdout` (spec/governor.md §3.1): `j:`canonical data or `t:`raw text, one per line.
#[must_use]
pub fn search_records(stdout: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in stdout.split('\n').filter(|l| !l.is_empty()) {
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(m)) => {
                if matches!(
                    m.get("type").and_then(Value::as_str),
                    Some("match" | "context")
                ) {
                    out.push(format!(
                        "j:{}",
                        canonical(m.get("data").unwrap_or(&Value::Null))
                    ));
                }
            }
            Ok(_) => {}
            Err(_) => out.push(format!("t:{line}")),
        }
    }
    out
}

/// Paths of `match` records (`data.path.text`) in a search `stdout`, for usage (spec/governor.md §8).
fn search_match_paths(stdout: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in stdout.split('\n').filter(|l| !l.is_empty()) {
        if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(line)
            && m.get("type").and_then(Value::as_str) == Some("match")
            && let Some(p) = m
                .get("data")
                .and_then(|d| d.get("path"))
                .and_then(|p| p.get("text"))
                .and_then(Value::as_str)
            && !out.iter().any(|x| x == p)
        {
            out.push(p.to_owned());
        }
    }
    out
}

/// Classifies an Alisio call and its result (spec/governor.md §2.2). `Class::Other` when unclassified.
#[must_use]
pub fn classify_native(call: &Call, result: &ToolResult) -> Class {
    classify_native_inner(call, result).unwrap_or_default()
}

fn classify_native_inner(call: &Call, result: &ToolResult) -> Option<Class> {
    let a = obj(&call.arguments)?;
    let json = result_json(result);
    match call.name.as_str() {
        "read_file" => {
            let path = a.get("path").and_then(Value::as_str)?.to_owned();
            let start = opt(&a, "startLine", |v| int_at_least(v, 1)).ok()?;
            let limit = opt(&a, "limit", |v| int_at_least(v, 1)).ok()?;
            let lines = (start.is_some() || limit.is_some())
                .then(|| (start.unwrap_or(1), limit.unwrap_or(200)));
            let sha = json
                .as_ref()
                .and_then(|j| j.get("sha256"))
                .and_then(Value::as_str)
                .filter(|s| is_sha(s))
                .map(str::to_ascii_lowercase);
            let compare = sha.clone().map(|s| (format!("sha\u{0}{path}"), s));
            Some(Class::Read {
                key: Some(path.clone()),
                shown: path,
                lines,
                sha256: sha,
                compare,
            })
        }
        "write_file" | "edit_file" => Some(Class::Write {
            keys: vec![a.get("path").and_then(Value::as_str)?.to_owned()],
        }),
        "bg_output" => {
            let task = a.get("id").and_then(Value::as_str)?.to_owned();
            let offset = opt(&a, "offset", |v| int_at_least(v, 0)).ok()?.unwrap_or(0);
            let limit = opt(&a, "limit", |v| int_at_least(v, 1))
                .ok()?
                .unwrap_or(16384);
            let next_offset = json
                .as_ref()
                .and_then(|j| j.get("next_offset"))
                .and_then(|v| int_at_least(v, 0));
            let empty = json
                .as_ref()
                .and_then(|j| j.get("text"))
                .and_then(Value::as_str)
                == Some("");
            Some(Class::Bg {
                task,
                offset,
                limit,
                cursor: false,
                next_offset,
                empty,
            })
        }
        "search_text" => {
            let pattern = a.get("pattern").and_then(Value::as_str)?.to_owned();
            let path = opt(&a, "path", string).ok()?.unwrap_or_else(|| ".".into());
            let literal = opt(&a, "literal", Value::as_bool).ok()?.unwrap_or(false);
            let glob = opt(&a, "glob", string).ok()?;
            let signature = canonical(&serde_json::json!([pattern, path, literal, glob]));
            let records = json.as_ref().and_then(|j| {
                let stdout = j.get("stdout")?.as_str()?;
                let code = j.get("exitCode")?.as_i64()?;
                Some(format!("{code}\n{}", search_records(stdout).join("\n")))
            });
            Some(Class::Search {
                signature,
                shown: pattern,
                records,
            })
        }
        "skill_load" => {
            a.get("name").and_then(Value::as_str)?;
            Some(Class::Skill)
        }
        _ => None,
    }
}

/// The canonical name shown as `as` for a classified foreign call.
#[must_use]
pub fn canonical_of(call: &Call) -> Option<&str> {
    call.foreign.as_ref().and_then(|f| f.canonical.as_deref())
}

/// Segment origin of a tool segment (spec/governor.md §6.2): the path as written for read/write/edit, else the name.
#[must_use]
pub fn origin_of(call: &Call) -> String {
    if let Some(f) = &call.foreign {
        return f.origin.clone().unwrap_or_else(|| call.name.clone());
    }
    if matches!(call.name.as_str(), "read_file" | "write_file" | "edit_file")
        && let Some(p) = obj(&call.arguments)
            .and_then(|a| a.get("path").and_then(Value::as_str).map(str::to_owned))
    {
        return p;
    }
    call.name.clone()
}

/// Paths a call names (spec/governor.md §8), and the path it reads.
#[must_use]
pub fn named_paths(call: &Call) -> (Vec<String>, Option<String>) {
    if let Some(f) = &call.foreign {
        return (f.named.clone(), f.reads.clone());
    }
    let Some(a) = obj(&call.arguments) else {
        return (Vec::new(), None);
    };
    let s = |k: &str| a.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut named = Vec::new();
    let mut reads = None;
    match call.name.as_str() {
        "read_file" | "write_file" | "edit_file" | "list_files" | "search_text"
        | "context_explain" => {
            if let Some(p) = s("path") {
                if call.name == "read_file" {
                    reads = Some(p.clone());
                }
                named.push(p);
            }
        }
        "run_process" | "shell" | "bg_run" => {
            named.extend(s("cwd"));
            if call.name != "bg_run" {
                let mut text = s("command").unwrap_or_default();
                if call.name == "run_process" {
                    for arg in a
                        .get("args")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        text.push(' ');
                        text.push_str(arg.as_str().unwrap_or_default());
                    }
                }
                named.extend(command_words(&text));
            }
        }
        _ => {
            for k in ["path", "file", "filePath", "file_path", "notebook_path"] {
                named.extend(s(k));
            }
        }
    }
    (named, reads)
}

/// The whole words of a command (spec/governor.md §8).
#[must_use]
pub fn command_words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "\"'`;|&<>()=,".contains(c))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A result's attributable paths (spec/governor.md §8) keyed by canonical tool, or `None` (not attributable).
#[must_use]
pub fn attributable(
    call: &Call,
    result: &ToolResult,
    class: &Class,
) -> Option<(String, Vec<String>)> {
    if result.is_error {
        return None;
    }
    if let Some(f) = &call.foreign {
        let tool = f.canonical.clone()?;
        return f
            .attributable
            .clone()
            .filter(|p| !p.is_empty())
            .map(|p| (tool, p));
    }
    match (call.name.as_str(), class) {
        ("read_file", Class::Read { key: Some(k), .. }) => Some((READ.into(), vec![k.clone()])),
        ("list_files", _) => {
            let files: Vec<String> = result_json(result)?
                .get("files")?
                .as_array()?
                .iter()
                .filter_map(|f| {
                    f.as_str()
                        .or_else(|| f.get("path").and_then(Value::as_str))
                        .map(str::to_owned)
                })
                .collect();
            (!files.is_empty()).then(|| ("list_files".into(), files))
        }
        ("search_text", _) => {
            let paths = search_match_paths(result_json(result)?.get("stdout")?.as_str()?);
            (!paths.is_empty()).then(|| ("search_text".into(), paths))
        }
        _ => None,
    }
}

/// Every tool message's paired call: `(message index, call index)` of the call, when any.
#[must_use]
pub fn pair_calls(history: &[Message]) -> Vec<Option<(usize, usize)>> {
    let mut by_id: std::collections::HashMap<&str, (usize, usize)> =
        std::collections::HashMap::new();
    let mut out = vec![None; history.len()];
    for (i, m) in history.iter().enumerate() {
        match m {
            Message::Assistant { calls, .. } => {
                for (k, c) in calls.iter().enumerate() {
                    by_id.entry(c.id.as_str()).or_insert((i, k));
                }
            }
            Message::Tool(r) => out[i] = by_id.get(r.call_id.as_str()).copied(),
            Message::User { .. } => {}
        }
    }
    out
}
