//! Claude Code session JSONL for `audit` (spec/interfaces.md §4): v1 (instructions inside the
//! user messages as `Contents of <path> (<scope>):` blocks) and v2.x (`attachment` records:
//! `instructions`, `nested_memory`, `skill_listing`; `api-request` records naming each
//! request's kept prefix; `system` `compact_boundary`).

use std::collections::HashMap;

use serde_json::Value;

use super::cache::Obs;
use super::{
    Auditor, Compaction, ContextState, Delivery, ListedSkill, SessionAudit, SkillListing, SkillUse,
    ToolRef, mark_imports, sha256_hex, timestamp_ms,
};

/// Record types of Claude Code session files (v1 and v2.x); anything else is an unknown record.
pub const KNOWN: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "queue-operation",
    "file-history-snapshot",
    "attachment",
    "last-prompt",
    "atis-latch",
    "api-request-shape",
    "api-request-blob",
    "api-request",
    "tools-used",
    "cost-state",
    "mode",
    "custom-title",
    "agent-name",
    "tag",
    "pr-link",
];

/// Attachment types `audit` reads or knowingly ignores (others are counted as unknown).
const ATTACHMENTS_IGNORED: &[&str] = &[
    "environment",
    "model",
    "agent_listing_delta",
    "session_context",
    "date",
    "remote_session_change",
    "prompt_snapshot",
    "command_permissions",
    "file",
    "read_truncation_notice",
    "edited_text_file",
    "hook_success",
    "hook_additional_context",
    "queued_command",
    "plan_mode",
    "critical_system_reminder",
    "mcp_instructions_delta",
];

/// What the auditor keeps while it reads a Claude Code transcript.
#[derive(Default)]
pub struct ClaudeAuditState {
    session: Option<String>,
    in_prompt: bool,
    requests_seen: bool,
    after_compaction: bool,
    last_tool: Option<ToolRef>,
    /// Path → sha256 of the last delivery (to see a changed file).
    last_sha: HashMap<String, String>,
    last_listing: Option<String>,
    /// The state of the model's context since the last compaction.
    current: ContextState,
    /// The compaction whose `after` is being collected.
    open: Option<Compaction>,
    /// Events since the previous request (a request's break cause).
    events: Vec<&'static str>,
    api: Vec<Obs>,
    by_request: HashMap<String, usize>,
    /// Requests from assistant records (v1, or v2 without api-request records).
    from_assistant: Vec<Obs>,
    message_ids: HashMap<String, usize>,
    ttl_secs: Option<u64>,
    /// Whether the file is one subagent's (its first message is a sidechain's): then its
    /// sidechain records are the session; in a main file they are left out.
    sidechain_file: Option<bool>,
    /// The last request's id and the hashes of every message it sent, when known.
    last_hashes: Option<(String, Vec<String>)>,
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

impl ClaudeAuditState {
    pub fn record(&mut self, out: &mut SessionAudit, n: usize, v: &Value) {
        if self.session.is_none()
            && let Some(id) = s(v, "sessionId")
        {
            self.session = Some(id.to_owned());
            out.session = id.to_owned();
        }
        if out.cwd.is_none()
            && let Some(c) = s(v, "cwd").filter(|c| !c.is_empty())
        {
            out.cwd = Some(c.to_owned());
        }
        if out.client_version.is_none()
            && let Some(c) = s(v, "version").filter(|c| !c.is_empty())
        {
            out.client_version = Some(c.to_owned());
        }
        let t = s(v, "type").unwrap_or_default();
        match t {
            "user" => self.user(out, n, v),
            "assistant" => self.assistant(out, n, v),
            "attachment" => self.attachment(out, n, v),
            "system" => {
                if s(v, "subtype") == Some("compact_boundary") {
                    let meta = v.get("compactMetadata");
                    self.compaction(
                        n,
                        meta.and_then(|m| s(m, "trigger")).unwrap_or("unknown"),
                        meta.and_then(|m| m.get("preTokens"))
                            .and_then(Value::as_u64),
                    );
                }
            }
            "api-request" => self.api_request(out, n, v),
            _ if KNOWN.contains(&t) => {}
            _ => Auditor::problem(out, n, "unknown record type"),
        }
    }

    fn compaction(&mut self, n: usize, trigger: &str, pre_tokens: Option<u64>) {
        self.close_window();
        self.open = Some(Compaction {
            line: n,
            trigger: trigger.to_owned(),
            pre_tokens,
            before: std::mem::take(&mut self.current),
            after: ContextState::default(),
            lost: ContextState::default(),
        });
        self.after_compaction = true;
        self.events.push("compaction");
    }

    fn close_window(&mut self) -> Option<Compaction> {
        let mut c = self.open.take()?;
        c.after = self.current.clone();
        let minus = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter().filter(|x| !b.contains(x)).cloned().collect()
        };
        c.lost = ContextState {
            instruction_files: minus(&c.before.instruction_files, &c.after.instruction_files),
            skill_listing: c.before.skill_listing && !c.after.skill_listing,
            skill_bodies: minus(&c.before.skill_bodies, &c.after.skill_bodies),
            todos: minus(&c.before.todos, &c.after.todos),
        };
        Some(c)
    }

    fn end_window(&mut self, out: &mut SessionAudit) {
        if let Some(c) = self.close_window() {
            out.compactions.push(c);
        }
    }

    fn how(&self) -> &'static str {
        if self.after_compaction {
            "after-compaction"
        } else if self.requests_seen {
            "prompt"
        } else {
            "startup"
        }
    }

    fn deliver(&mut self, out: &mut SessionAudit, mut group: Vec<Delivery>) {
        mark_imports(&mut group);
        for mut d in group {
            match self.last_sha.insert(d.path.clone(), d.sha256.clone()) {
                Some(old) if old != d.sha256 => self.events.push("instruction-changed"),
                // The same text again: the caller compares the first copy (bounded memory).
                Some(_) => d.text = String::new(),
                None => {}
            }
            if !self.current.instruction_files.contains(&d.path) {
                self.current.instruction_files.push(d.path.clone());
            }
            out.deliveries.push(d);
        }
    }

    /// A delivery of `text` (hashed as the client trims it: spec/interfaces.md §4.1).
    fn delivery(
        &self,
        out: &SessionAudit,
        n: usize,
        path: &str,
        scope: Option<&str>,
        text: &str,
    ) -> Delivery {
        let text = text.trim();
        Delivery {
            path: path.to_owned(),
            scope: scope.map(str::to_owned),
            how: self.how(),
            prompt: out.prompts.max(1),
            after_tool: None,
            sha256: sha256_hex(text),
            bytes: text.len(),
            line: n,
            client_says_differs: None,
            imports: Vec::new(),
            on_disk: None,
            predicted: None,
            joined: Vec::new(),
            text: text.to_owned(),
        }
    }

    fn attachment(&mut self, out: &mut SessionAudit, n: usize, v: &Value) {
        let a = &v["attachment"];
        match s(a, "type").unwrap_or_default() {
            "instructions" => {
                let group = a["files"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| {
                        let p = s(f, "path")?;
                        Some(self.delivery(
                            out,
                            n,
                            p,
                            s(f, "type"),
                            s(f, "content").unwrap_or_default(),
                        ))
                    })
                    .collect();
                self.deliver(out, group);
            }
            "nested_memory" => {
                let c = &a["content"];
                let Some(p) = s(c, "path").or_else(|| s(a, "path")) else {
                    return Auditor::problem(out, n, "nested_memory without a path");
                };
                let mut d =
                    self.delivery(out, n, p, s(c, "type"), s(c, "content").unwrap_or_default());
                d.how = "nested";
                d.after_tool = self.last_tool.clone();
                d.client_says_differs = c.get("contentDiffersFromDisk").and_then(Value::as_bool);
                self.deliver(out, vec![d]);
            }
            "skill_listing" => {
                let text = s(a, "content").unwrap_or_default();
                self.listing(out, n, text);
            }
            "deferred_tools_delta" | "mcp_tools_delta" => {
                if self.requests_seen {
                    self.events.push("tool-delta");
                }
            }
            "todo" | "todo_reminder" | "plan_file_reference" => {
                let items = todo_items(a.get("content").or_else(|| a.get("todos")));
                if !items.is_empty() {
                    self.current.todos = items;
                }
            }
            "invoked_skills" => {
                for sk in a["skills"].as_array().into_iter().flatten() {
                    if let Some(name) = s(sk, "name")
                        && !self.current.skill_bodies.iter().any(|b| b == name)
                    {
                        self.current.skill_bodies.push(name.to_owned());
                    }
                }
            }
            t if ATTACHMENTS_IGNORED.contains(&t) => {}
            _ => Auditor::problem(out, n, "unknown attachment type"),
        }
    }

    fn listing(&mut self, out: &mut SessionAudit, n: usize, text: &str) {
        let sha = sha256_hex(text);
        if self.requests_seen && self.last_listing.as_ref().is_some_and(|l| *l != sha) {
            self.events.push("skill-listing-changed");
        }
        self.last_listing = Some(sha.clone());
        self.current.skill_listing = true;
        out.skill_listings.push(SkillListing {
            line: n,
            prompt: out.prompts.max(1),
            bytes: text.len(),
            sha256: sha,
            skills: parse_listing(text),
        });
    }

    fn user(&mut self, out: &mut SessionAudit, n: usize, v: &Value) {
        let msg = &v["message"];
        let meta = v.get("isMeta").and_then(Value::as_bool) == Some(true);
        let side = v.get("isSidechain").and_then(Value::as_bool) == Some(true);
        if side != *self.sidechain_file.get_or_insert(side) {
            return;
        }
        if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
            if self.open.is_none() {
                self.compaction(n, "unknown", None);
            }
            return;
        }
        let texts: Vec<&str> = match &msg["content"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(parts) => parts
                .iter()
                .filter(|p| s(p, "type") == Some("text"))
                .filter_map(|p| s(p, "text"))
                .collect(),
            _ => Vec::new(),
        };
        let tool_result = msg["content"]
            .as_array()
            .is_some_and(|a| a.iter().any(|p| s(p, "type") == Some("tool_result")));
        let prompt = !meta
            && !tool_result
            && texts
                .first()
                .is_some_and(|t| !t.trim_start().starts_with('<'));
        if prompt {
            out.prompts += 1;
            self.in_prompt = true;
        }
        for t in &texts {
            if meta && let Some(rest) = t.strip_prefix("Base directory for this skill: ") {
                self.skill_body(out, rest);
                continue;
            }
            let blocks = v1_blocks(t);
            if !blocks.is_empty() {
                let group = blocks
                    .into_iter()
                    .map(|(p, label, text)| {
                        let mut d = self.delivery(out, n, &p, label.as_deref(), &text);
                        if label.is_none() {
                            d.how = "nested";
                            d.after_tool = self.last_tool.clone();
                        }
                        d
                    })
                    .collect();
                self.deliver(out, group);
            }
        }
    }

    fn skill_body(&mut self, out: &mut SessionAudit, rest: &str) {
        let (dir, body) = rest.split_once("\n\n").unwrap_or((rest, ""));
        let name = dir.rsplit('/').next().unwrap_or(dir).to_owned();
        let refs = references(body);
        let idx = out
            .skills_invoked
            .iter()
            .rposition(|u| u.body_sha256.is_none());
        let u = if let Some(i) = idx {
            &mut out.skills_invoked[i]
        } else {
            out.skills_invoked.push(SkillUse {
                name: name.clone(),
                line: 0,
                dir: None,
                body_sha256: None,
                unread_references: Vec::new(),
                references: Vec::new(),
            });
            let last = out.skills_invoked.len() - 1;
            &mut out.skills_invoked[last]
        };
        u.dir = Some(dir.to_owned());
        u.body_sha256 = Some(sha256_hex(body.trim()));
        u.unread_references.clone_from(&refs);
        u.references = refs;
        let shown = u.name.clone();
        if !self.current.skill_bodies.contains(&shown) {
            self.current.skill_bodies.push(shown);
        }
    }

    fn assistant(&mut self, out: &mut SessionAudit, n: usize, v: &Value) {
        let msg = &v["message"];
        let side = v.get("isSidechain").and_then(Value::as_bool) == Some(true);
        if side != *self.sidechain_file.get_or_insert(side) {
            return;
        }
        if let Some(ttl) = s(v, "promptCacheRequested") {
            self.ttl_secs = Some(if ttl == "1h" { 3600 } else { 300 });
        }
        for b in msg["content"].as_array().into_iter().flatten() {
            if s(b, "type") != Some("tool_use") {
                continue;
            }
            let name = s(b, "name").unwrap_or_default();
            let input = &b["input"];
            let target = [
                "file_path",
                "path",
                "notebook_path",
                "command",
                "pattern",
                "skill",
            ]
            .iter()
            .find_map(|k| s(input, k))
            .map(str::to_owned);
            let text = input.to_string();
            for u in &mut out.skills_invoked {
                u.unread_references.retain(|r| !text.contains(r.as_str()));
            }
            if name == "Skill" {
                let skill = s(input, "skill")
                    .or_else(|| s(input, "command"))
                    .unwrap_or_default();
                out.skills_invoked.push(SkillUse {
                    name: skill.to_owned(),
                    line: n,
                    dir: None,
                    body_sha256: None,
                    unread_references: Vec::new(),
                    references: Vec::new(),
                });
            }
            if name == "TodoWrite" {
                self.current.todos = todo_items(input.get("todos"));
            }
            self.last_tool = Some(ToolRef {
                tool: name.to_owned(),
                target,
                line: n,
            });
        }
        let usage = &msg["usage"];
        let obs_usage = super::cache::ReportedUsage::from_anthropic(usage);
        if let Some(r) = s(v, "requestRef").and_then(|r| self.by_request.get(r)) {
            let o = &mut self.api[*r];
            if o.usage.is_none() {
                o.usage = Some(obs_usage);
            }
            return;
        }
        let id = s(msg, "id").unwrap_or_default().to_owned();
        if id.is_empty() || self.message_ids.contains_key(&id) || usage.is_null() {
            return;
        }
        self.end_window(out);
        self.message_ids
            .insert(id.clone(), self.from_assistant.len());
        self.from_assistant.push(Obs {
            id,
            line: n,
            at_ms: s(v, "timestamp").and_then(timestamp_ms),
            model: s(msg, "model").map(str::to_owned),
            shape: None,
            base: None,
            keep: None,
            count: None,
            usage: Some(obs_usage),
            hashes_kept: None,
            ttl_secs: self.ttl_secs.unwrap_or(300),
            events: std::mem::take(&mut self.events),
            aside: None,
        });
        self.requests_seen = true;
        self.after_compaction = false;
    }

    fn api_request(&mut self, out: &mut SessionAudit, n: usize, v: &Value) {
        let keep = v.get("keep").and_then(Value::as_u64);
        let tails: Vec<String> = v["tail"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| h.as_str().map(str::to_owned))
            .collect();
        let tail = tails.len() as u64;
        let id = s(v, "id").unwrap_or_default().to_owned();
        let base = s(v, "base");
        let full: Option<Vec<String>> = match (&self.last_hashes, keep) {
            (_, Some(0)) => Some(tails),
            (Some((last, hs)), Some(k)) if base == Some(last.as_str()) => {
                usize::try_from(k).ok().filter(|k| *k <= hs.len()).map(|k| {
                    let mut f = hs[..k].to_vec();
                    f.extend(tails);
                    f
                })
            }
            _ => None,
        };
        let hashes_kept = match (&self.last_hashes, &full) {
            (Some((_, prev)), Some(cur)) => {
                Some(cur.len() >= prev.len() && cur[..prev.len()] == prev[..])
            }
            _ => None,
        };
        self.last_hashes = full.map(|f| (id.clone(), f));
        self.by_request.insert(id.clone(), self.api.len());
        let events = std::mem::take(&mut self.events);
        self.end_window(out);
        self.api.push(Obs {
            id,
            line: n,
            at_ms: s(v, "timestamp").and_then(timestamp_ms),
            model: v["params"]["model"].as_str().map(str::to_owned),
            shape: s(v, "shapeHash").map(str::to_owned),
            base: s(v, "base").map(str::to_owned),
            keep,
            count: keep.map(|k| k + tail),
            usage: None,
            hashes_kept,
            ttl_secs: self.ttl_secs.unwrap_or(300),
            events,
            aside: None,
        });
        self.requests_seen = true;
        self.after_compaction = false;
    }

    pub fn finish(&mut self, out: &mut SessionAudit) {
        self.end_window(out);
        out.compactions.sort_by_key(|c| c.line);
        let reqs = if self.api.is_empty() {
            std::mem::take(&mut self.from_assistant)
        } else {
            std::mem::take(&mut self.api)
        };
        out.requests = reqs.into_iter().map(Obs::into_request).collect();
        for u in &mut out.skills_invoked {
            u.references.clear();
        }
    }
}

/// The items of a todo list (`[{content, status}]`), or of a plain text list.
fn todo_items(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|t| s(t, "content").or_else(|| t.as_str()).map(str::to_owned))
            .collect(),
        Some(Value::String(t)) => t
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The skills of a listing (`- name: description` lines; a line without `: ` has no
/// description; a continuation line belongs to the previous skill).
pub(super) fn parse_listing(text: &str) -> Vec<ListedSkill> {
    let mut out: Vec<ListedSkill> = Vec::new();
    for line in text.lines() {
        if let Some(item) = line.strip_prefix("- ") {
            let (name, desc) = match item.split_once(": ") {
                Some((n, d)) => (n.trim(), d.trim()),
                None => (item.trim().trim_end_matches(':'), ""),
            };
            out.push(ListedSkill {
                name: name.to_owned(),
                description_chars: 0,
                description: "full",
                text: desc.to_owned(),
            });
        } else if let Some(last) = out.last_mut()
            && !line.trim().is_empty()
        {
            last.text.push('\n');
            last.text.push_str(line.trim());
        }
    }
    for sk in &mut out {
        sk.description_chars = sk.text.chars().count();
        sk.description = if sk.text.is_empty() {
            "dropped"
        } else if sk.text.ends_with('\u{2026}') || sk.text.ends_with("...") {
            "shortened"
        } else {
            "full"
        };
    }
    out
}

/// Claude Code v1 instruction blocks of a message text: `Contents of <path> (<scope>):` (a
/// startup file) or `Contents of <path>:` (a nested file), each followed by a blank line and
/// the text, up to the next block or the end of the reminder.
pub(super) fn v1_blocks(text: &str) -> Vec<(String, Option<String>, String)> {
    const HEAD: &str = "Contents of ";
    let mut out = Vec::new();
    let mut starts: Vec<usize> = text.match_indices(HEAD).map(|(i, _)| i).collect();
    starts.retain(|&i| i == 0 || text[..i].ends_with('\n'));
    for (k, &i) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let chunk = &text[i + HEAD.len()..end];
        let Some((head, body)) = chunk.split_once(":\n") else {
            continue;
        };
        if !head.starts_with('/') {
            continue;
        }
        let (path, label) = match head.strip_suffix(')').and_then(|h| h.rsplit_once(" (")) {
            Some((p, l)) => (p.to_owned(), Some(l.to_owned())),
            None => (head.to_owned(), None),
        };
        let body = body
            .split("\n</system-reminder>")
            .next()
            .unwrap_or(body)
            .trim();
        out.push((path, label, body.to_owned()));
    }
    out
}

/// Relative file names a skill body mentions (`ref.md`, `scripts/run.sh`, `[x](docs/a.md)`).
pub(super) fn references(body: &str) -> Vec<String> {
    const EXT: &[&str] = &[
        "md", "txt", "py", "sh", "js", "ts", "json", "yaml", "yml", "toml", "csv", "html",
    ];
    let mut out: Vec<String> = Vec::new();
    for raw in body.split(|c: char| c.is_whitespace() || "()[]<>`'\",".contains(c)) {
        let w = raw.trim_end_matches(['.', ':', ';', '!', '?']);
        if w.is_empty() || w.starts_with('/') || w.contains("://") || w.starts_with('@') {
            continue;
        }
        let Some((stem, ext)) = w.rsplit_once('.') else {
            continue;
        };
        if stem.is_empty() || !EXT.contains(&ext) || w == "SKILL.md" {
            continue;
        }
        if !out.iter().any(|x| x == w) {
            out.push(w.to_owned());
        }
    }
    out
}
