//! Codex rollout JSONL for `audit` (spec/interfaces.md §4): `session_meta` (id, cwd, version),
//! `turn_context` (model), the `# AGENTS.md instructions for <cwd>` user message (the project
//! docs as delivered, one joined text), `compacted`, and `token_count` events (one per request,
//! with its cached input).

use serde_json::Value;

use super::cache::{Obs, ReportedUsage};
use super::{
    Auditor, Compaction, ContextState, Delivery, SessionAudit, ToolRef, sha256_hex, timestamp_ms,
};

/// What the auditor keeps while it reads a Codex rollout.
#[derive(Default)]
pub struct CodexAuditState {
    model: Option<String>,
    last_total: Option<u64>,
    requests: Vec<Obs>,
    events: Vec<&'static str>,
    last_tool: Option<ToolRef>,
    current: ContextState,
    after_compaction: bool,
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// The project docs of a Codex instructions message: `(cwd, text)`.
fn instructions(text: &str) -> Option<(String, String)> {
    let rest = text.strip_prefix("# AGENTS.md instructions for ")?;
    let (cwd, body) = rest.split_once('\n')?;
    let start = body.find("<INSTRUCTIONS>")? + "<INSTRUCTIONS>".len();
    let end = body.rfind("</INSTRUCTIONS>")?;
    let inner = body.get(start..end)?;
    let inner = inner.strip_prefix('\n').unwrap_or(inner);
    let inner = inner.strip_suffix('\n').unwrap_or(inner);
    Some((cwd.trim().to_owned(), inner.to_owned()))
}

impl CodexAuditState {
    pub fn record(&mut self, out: &mut SessionAudit, n: usize, v: &Value) {
        let p = &v["payload"];
        match s(v, "type").unwrap_or_default() {
            "session_meta" => {
                if out.session.is_empty() {
                    out.session = s(p, "id").unwrap_or_default().to_owned();
                }
                if out.cwd.is_none() {
                    out.cwd = s(p, "cwd").map(str::to_owned);
                }
                if out.client_version.is_none() {
                    out.client_version = s(p, "cli_version").map(str::to_owned);
                }
            }
            "turn_context" => {
                if out.cwd.is_none() {
                    out.cwd = s(p, "cwd").map(str::to_owned);
                }
                if let Some(m) = s(p, "model") {
                    self.model = Some(m.to_owned());
                }
            }
            "compacted" => {
                out.compactions.push(Compaction {
                    line: n,
                    trigger: "unknown".into(),
                    pre_tokens: None,
                    before: std::mem::take(&mut self.current),
                    after: ContextState::default(),
                    lost: ContextState::default(),
                });
                self.after_compaction = true;
                self.events.push("compaction");
            }
            "response_item" => self.item(out, n, p),
            "event_msg" => {
                if s(p, "type") == Some("token_count") {
                    self.tokens(n, v, p);
                }
            }
            _ => Auditor::problem(out, n, "unknown record type"),
        }
    }

    fn item(&mut self, out: &mut SessionAudit, n: usize, p: &Value) {
        match s(p, "type").unwrap_or_default() {
            "message" if s(p, "role") == Some("user") => {
                let texts: Vec<&str> = p["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| s(c, "text"))
                    .collect();
                for t in texts {
                    if let Some((cwd, text)) = instructions(t) {
                        let how = if self.after_compaction {
                            "after-compaction"
                        } else if self.requests.is_empty() {
                            "startup"
                        } else {
                            "prompt"
                        };
                        if !self.current.instruction_files.contains(&cwd) {
                            self.current.instruction_files.push(cwd.clone());
                        }
                        out.deliveries.push(Delivery {
                            path: cwd,
                            scope: Some("project-doc".into()),
                            how,
                            prompt: out.prompts.max(1),
                            after_tool: None,
                            sha256: sha256_hex(&text),
                            bytes: text.len(),
                            line: n,
                            client_says_differs: None,
                            imports: Vec::new(),
                            on_disk: None,
                            predicted: None,
                            joined: Vec::new(),
                            text,
                        });
                    } else if !t.trim_start().starts_with('<') {
                        out.prompts += 1;
                    }
                }
            }
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                self.last_tool = Some(ToolRef {
                    tool: s(p, "name").unwrap_or("shell").to_owned(),
                    target: s(p, "arguments")
                        .or_else(|| s(p, "input"))
                        .map(str::to_owned),
                    line: n,
                });
            }
            _ => {}
        }
    }

    fn tokens(&mut self, n: usize, v: &Value, p: &Value) {
        let Some(last) = new_token_count(p, &mut self.last_total) else {
            return;
        };
        let input = last["input_tokens"].as_u64().unwrap_or(0);
        let cached = last["cached_input_tokens"].as_u64().unwrap_or(0);
        self.requests.push(Obs {
            id: format!("request-{}", self.requests.len() + 1),
            line: n,
            at_ms: s(v, "timestamp").and_then(timestamp_ms),
            model: self.model.clone(),
            usage: Some(ReportedUsage::from_openai(
                input,
                cached,
                last["output_tokens"].as_u64().unwrap_or(0),
            )),
            ttl_secs: 300,
            events: std::mem::take(&mut self.events),
            ..Obs::default()
        });
        self.after_compaction = false;
    }

    pub fn finish(&mut self, out: &mut SessionAudit) {
        out.requests = std::mem::take(&mut self.requests)
            .into_iter()
            .map(Obs::into_request)
            .collect();
    }
}

/// A Codex `token_count` payload's `last_token_usage` when its total is new: Codex repeats the
/// event with an unchanged total (after the tool outputs), and sends one with no `info` first.
pub(crate) fn new_token_count<'v>(p: &'v Value, last_total: &mut Option<u64>) -> Option<&'v Value> {
    let info = &p["info"];
    let total = info["total_token_usage"]["total_tokens"].as_u64()?;
    if *last_total == Some(total) {
        return None;
    }
    *last_total = Some(total);
    Some(&info["last_token_usage"])
}
