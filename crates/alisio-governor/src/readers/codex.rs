//! Codex rollout JSONL (spec/governor.md §11.5): session meta, turn cwd, compaction, response items
//! grouped into assistant messages, output unwrapping and the tool mapping.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    Line, Outcome, Problem, Session, count_redacted, cursor_poll, shell_foreign, shell_named,
};
use crate::audit::cache::ReportedUsage;
use crate::model::{Call, Class, Foreign, Message, Part, ToolResult, UserKind};
use crate::recorded::RecordedRequest;
use crate::shell::{self, Base};
use crate::stubs::canonical;
use crate::tokens::redacted_token;

/// An unwrapped output (spec/governor.md §11.5).
#[derive(Clone, Debug, Default)]
struct Out {
    exit: Option<i64>,
    comparison: String,
    running: bool,
}

#[derive(Default)]
struct State {
    history: Vec<Message>,
    session: Session,
    meta_cwd: Option<String>,
    turn_cwd: Option<String>,
    in_assistant: bool,
    bases: HashMap<String, Base>,
    outs: HashMap<String, Out>,
    web: usize,
    /// The last `token_count` total seen: Codex repeats an event with an unchanged total.
    last_total: Option<u64>,
}

fn texts(content: Option<&Value>) -> Vec<String> {
    match content {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Unwraps an output value: (result text, is_error, unwrapped).
fn unwrap_output(v: Option<&Value>) -> (String, bool, Out) {
    match v {
        Some(Value::Object(m)) => {
            let text = texts(m.get("content")).concat();
            let err = m.get("success").and_then(Value::as_bool) == Some(false);
            let out = Out {
                comparison: text.clone(),
                ..Out::default()
            };
            (text, err, out)
        }
        Some(Value::String(s)) => {
            if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(s)
                && let Some(o) = m.get("output").and_then(Value::as_str)
                && m.get("metadata").is_some_and(Value::is_object)
            {
                let exit = m
                    .get("metadata")
                    .and_then(|x| x.get("exit_code"))
                    .and_then(Value::as_i64);
                return (
                    o.to_owned(),
                    false,
                    Out {
                        exit,
                        comparison: o.to_owned(),
                        running: false,
                    },
                );
            }
            (s.clone(), false, header_output(s))
        }
        Some(other) => (
            other.to_string(),
            false,
            Out {
                comparison: other.to_string(),
                ..Out::default()
            },
        ),
        None => (String::new(), false, Out::default()),
    }
}

/// Case (3): a header and an `Output:` line; else case (4).
fn header_output(s: &str) -> Out {
    let Some(at) = s
        .find("Output:\n")
        .filter(|at| *at == 0 || s.as_bytes().get(at - 1) == Some(&b'\n'))
        .or_else(|| {
            s.strip_suffix("Output:")
                .map(|h| h.len())
                .filter(|at| *at == 0 || s.as_bytes().get(at - 1) == Some(&b'\n'))
        })
    else {
        return Out {
            comparison: s.to_owned(),
            ..Out::default()
        };
    };
    let header = &s[..at];
    let comparison = s
        .get(at + "Output:\n".len()..)
        .unwrap_or_default()
        .to_owned();
    let mut out = Out {
        comparison,
        ..Out::default()
    };
    for line in header.lines() {
        if let Some(rest) = line.trim().strip_prefix("Process exited with code ") {
            out.exit = rest.trim().parse().ok();
        } else if line.trim().starts_with("Process running with session ID ") {
            out.running = true;
        }
    }
    out
}

impl State {
    /// A `token_count` event (spec/governor.md §11.11): a new total is the usage of the request
    /// the current assistant message answers; a repeated total, or one outside an assistant
    /// message, is not.
    fn tokens(&mut self, p: &Value) {
        if p.get("type").and_then(Value::as_str) != Some("token_count") {
            return;
        }
        let Some(last) = crate::audit::new_token_count(p, &mut self.last_total) else {
            return;
        };
        if !self.in_assistant || !matches!(self.history.last(), Some(Message::Assistant { .. })) {
            return;
        }
        let n = |k: &str| last[k].as_u64().unwrap_or(0);
        let usage = ReportedUsage::from_openai(
            n("input_tokens"),
            n("cached_input_tokens"),
            n("output_tokens"),
        );
        let message = self.history.len() - 1;
        let recorded = &mut self.session.recorded;
        // The first new total after the message began is the request before it (§11.11); a
        // later one while it is open is a continuation the replay does not model.
        if recorded.last().is_none_or(|r| r.message != message) {
            recorded.push(RecordedRequest {
                message,
                usage,
                cache_reported: last.get("cached_input_tokens").is_some_and(Value::is_u64),
            });
        }
    }

    fn base(&self) -> Base {
        match self.turn_cwd.as_ref().or(self.meta_cwd.as_ref()) {
            Some(c) if !c.is_empty() => Base::Known(c.clone()),
            _ => Base::Unknown,
        }
    }

    fn assistant(&mut self) -> &mut Message {
        if !self.in_assistant || !matches!(self.history.last(), Some(Message::Assistant { .. })) {
            self.history.push(Message::Assistant {
                parts: Vec::new(),
                calls: Vec::new(),
            });
        }
        self.in_assistant = true;
        let n = self.history.len() - 1;
        &mut self.history[n]
    }

    fn item(&mut self, p: &Value, line: Option<usize>) {
        let ty = p.get("type").and_then(Value::as_str).unwrap_or_default();
        match ty {
            "message" => {
                let role = p.get("role").and_then(Value::as_str).unwrap_or_default();
                let parts: Vec<Part> = texts(p.get("content"))
                    .into_iter()
                    .map(Part::text)
                    .collect();
                if role == "assistant" {
                    if let Message::Assistant { parts: ps, .. } = self.assistant() {
                        ps.extend(parts);
                    }
                    return;
                }
                self.in_assistant = false;
                let first = parts.first().map(|x| x.text.as_str()).unwrap_or_default();
                let (kind, origin) = match role {
                    "developer" | "system" => (UserKind::System, Some(role.to_owned())),
                    "user" if first.starts_with("<environment_context>") => {
                        (UserKind::Injected, None)
                    }
                    "user"
                        if first.starts_with("<user_instructions>")
                            || first.starts_with("# AGENTS.md instructions") =>
                    {
                        (UserKind::Instructions, None)
                    }
                    "user" => (UserKind::Plain, None),
                    _ => {
                        self.session.source.problems.push(Problem {
                            line,
                            message: "unknown message role".into(),
                        });
                        return;
                    }
                };
                self.history.push(Message::User {
                    kind,
                    parts,
                    skill: None,
                    origin,
                });
            }
            "reasoning" => {
                let mut parts: Vec<Part> = Vec::new();
                for s in p
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    parts.extend(s.get("text").and_then(Value::as_str).map(Part::reasoning));
                }
                parts.extend(texts(p.get("content")).into_iter().map(Part::reasoning));
                if let Some(e) = p.get("encrypted_content").and_then(Value::as_str) {
                    parts.push(Part::opaque(e));
                }
                if let Message::Assistant { parts: ps, .. } = self.assistant() {
                    ps.extend(parts);
                }
            }
            "function_call" | "custom_tool_call" => {
                let id = p
                    .get("call_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let name = p
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let args = match p.get(if ty == "function_call" {
                    "arguments"
                } else {
                    "input"
                }) {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => String::new(),
                };
                let base = self.base();
                self.bases.insert(id.clone(), base);
                if let Message::Assistant { calls, .. } = self.assistant() {
                    calls.push(Call::new(id, name, args));
                }
            }
            "web_search_call" => {
                self.web += 1;
                let id = p
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("web_search_call-{}", self.web), str::to_owned);
                let args = p.get("action").map(Value::to_string).unwrap_or_default();
                if let Message::Assistant { calls, .. } = self.assistant() {
                    calls.push(Call::new(id, "web_search_call", args));
                }
            }
            "function_call_output" | "custom_tool_call_output" => {
                self.in_assistant = false;
                let id = p
                    .get("call_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let (text, is_error, out) = unwrap_output(p.get("output"));
                self.outs.insert(id.clone(), out);
                self.history.push(Message::Tool(ToolResult {
                    call_id: id,
                    parts: vec![Part::text(text)],
                    is_error,
                    denial: None,
                }));
            }
            _ => {
                self.in_assistant = false;
                self.session.source.problems.push(Problem {
                    line,
                    message: "unknown response item type".into(),
                });
            }
        }
    }
}

pub(crate) fn read(lines: &[Line]) -> Vec<Session> {
    let mut st = State::default();
    for l in lines {
        let Some(v) = l.value.as_ref().filter(|v| v.is_object()) else {
            st.session.source.skipped_lines += 1;
            st.session.source.problems.push(Problem {
                line: Some(l.number),
                message: "malformed JSON line".into(),
            });
            continue;
        };
        st.session.source.redacted_values += count_redacted(v);
        let p = v.get("payload").unwrap_or(&Value::Null);
        match v.get("type").and_then(Value::as_str) {
            Some("session_meta") => {
                if let Some(id) = p.get("id").and_then(Value::as_str) {
                    st.session.source.session = id.to_owned();
                }
                st.meta_cwd = p.get("cwd").and_then(Value::as_str).map(str::to_owned);
                if let Some(t) = p
                    .get("base_instructions")
                    .and_then(|b| b.get("text"))
                    .and_then(Value::as_str)
                {
                    st.session.parts.system = Some(t.to_owned());
                }
            }
            Some("turn_context") => {
                st.turn_cwd = p.get("cwd").and_then(Value::as_str).map(str::to_owned)
            }
            Some("event_msg") => st.tokens(p),
            Some("compacted") => {
                st.session.source.compactions += 1;
                st.session.source.compacted_messages += st.history.len();
                st.history.clear();
                st.session.recorded.clear();
                st.in_assistant = false;
                st.history.push(Message::checkpoint(
                    p.get("message").and_then(Value::as_str).unwrap_or_default(),
                ));
                for item in p
                    .get("replacement_history")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    st.item(item, Some(l.number));
                }
                st.in_assistant = false;
            }
            Some("response_item") => st.item(p, Some(l.number)),
            _ => st.session.source.problems.push(Problem {
                line: Some(l.number),
                message: "unknown record type".into(),
            }),
        }
    }
    let results: HashMap<String, (bool, String)> = st
        .history
        .iter()
        .filter_map(|m| {
            if let Message::Tool(r) = m {
                Some((r.call_id.clone(), (r.is_error, super::text_of(r))))
            } else {
                None
            }
        })
        .collect();
    for m in &mut st.history {
        let Message::Assistant { calls, .. } = m else {
            continue;
        };
        for c in calls.iter_mut() {
            let base = st.bases.get(&c.id).cloned().unwrap_or(Base::Unknown);
            let r = results.get(&c.id);
            let out = st.outs.get(&c.id);
            c.foreign = Some(Box::new(foreign(c, &base, r, out)));
        }
    }
    let mut s = st.session;
    s.history = st.history;
    vec![s]
}

fn patch_paths(text: &str, base: &Base) -> (Vec<String>, Vec<String>) {
    let mut raw = Vec::new();
    for line in text.lines() {
        for prefix in [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ] {
            if let Some(p) = line.strip_prefix(prefix) {
                raw.push(p.trim_end().to_owned());
            }
        }
    }
    let keys = raw.iter().filter_map(|p| shell::key(base, p)).collect();
    (raw, keys)
}

fn patch_foreign(
    patch: &str,
    base: &Base,
    r: Option<&(bool, String)>,
    out: Option<&Out>,
) -> Foreign {
    let (raw, keys) = patch_paths(patch, base);
    let mut f = Foreign {
        canonical: Some("edit_file".into()),
        origin: raw.first().cloned(),
        named: raw.clone(),
        ..Foreign::default()
    };
    f.named.extend(keys.iter().cloned());
    let ok = r.is_some_and(|(err, text)| {
        !err && (text.starts_with("Success.") || out.and_then(|o| o.exit) == Some(0))
    });
    if ok && !keys.is_empty() {
        f.class = Class::Write { keys };
    }
    f
}

fn foreign(c: &Call, turn_base: &Base, r: Option<&(bool, String)>, out: Option<&Out>) -> Foreign {
    if redacted_token(&c.arguments).is_some() {
        return Foreign::default();
    }
    let args: Value = serde_json::from_str(&c.arguments).unwrap_or(Value::Null);
    if super::has_redacted(&args) {
        return Foreign::default();
    }
    let base = match args.get("workdir").and_then(Value::as_str) {
        Some(w) if !w.is_empty() && redacted_token(w).is_none() => {
            shell::key(turn_base, w).map_or(Base::Unknown, Base::Known)
        }
        Some(_) => Base::Unknown,
        None => turn_base.clone(),
    };
    let outcome = r
        .zip(out)
        .map(|((err, _), o)| Outcome::new(*err, o.exit, &o.comparison));
    let running = out.is_some_and(|o| o.running);
    let shell_cmd = |cmd: &str| -> Foreign {
        if let Some(rest) = cmd.trim_start().strip_prefix("apply_patch") {
            return patch_foreign(rest, turn_base, r, out);
        }
        if running {
            return Foreign {
                named: shell_named(cmd, &base),
                ..Foreign::default()
            };
        }
        shell_foreign(cmd, &base, outcome.as_ref())
    };
    match c.name.as_str() {
        "exec_command" => args
            .get("cmd")
            .and_then(Value::as_str)
            .map_or_else(Foreign::default, shell_cmd),
        "shell" => {
            let argv: Vec<&str> = args
                .get("command")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match argv.as_slice() {
                [sh, flag, script]
                    if matches!(sh.rsplit('/').next().unwrap_or(sh), "sh" | "bash" | "zsh")
                        && matches!(*flag, "-c" | "-lc") =>
                {
                    shell_cmd(script)
                }
                ["apply_patch", patch] => patch_foreign(patch, turn_base, r, out),
                [] => Foreign::default(),
                words => shell_cmd(
                    &words
                        .iter()
                        .map(|w| quote_word(w))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
            }
        }
        "write_stdin" => {
            let chars = args
                .get("chars")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some(sid) = args.get("session_id") else {
                return Foreign::default();
            };
            if !chars.is_empty() {
                return Foreign::default();
            }
            let empty = out.is_some_and(|o| o.comparison.is_empty());
            cursor_poll(canonical(sid), empty, r.is_some_and(|(err, _)| !err))
        }
        "apply_patch" => {
            let patch = args
                .get("input")
                .and_then(Value::as_str)
                .map_or_else(|| c.arguments.clone(), str::to_owned);
            patch_foreign(&patch, turn_base, r, out)
        }
        _ => {
            let mut f = Foreign::default();
            for k in ["path", "file", "filePath", "file_path", "notebook_path"] {
                f.named
                    .extend(args.get(k).and_then(Value::as_str).map(str::to_owned));
            }
            f
        }
    }
}

/// Quotes one argv word for the classifier (single quotes when it needs any).
fn quote_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}
