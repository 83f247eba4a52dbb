//! `audit`: what recorded agent sessions actually received (spec/interfaces.md §4). A pure,
//! streaming reader: [`Auditor::feed`] takes one JSONL line at a time and keeps only what the
//! audit reports (no message history), so a session file of any size is read in bounded memory;
//! [`Auditor::finish`] returns the [`SessionAudit`]. Comparisons with the disk and with
//! `context explain` are the caller's (they need I/O); this module gives the hashes.
//!
//! Bad input: a line that is not UTF-8, not JSON, or a record of an unknown type or version is
//! skipped and counted ([`SessionAudit::skipped_lines`], the first problems kept with their line
//! numbers); nothing is fatal.

pub mod cache;
mod claude;
mod codex;

use serde::Serialize;
use serde_json::Value;

pub use cache::{CacheClass, ListPrices, RequestCache, price_table};
pub(crate) use codex::new_token_count;

/// At most this many problems are kept (all are counted).
pub const MAX_PROBLEMS: usize = 20;

/// The session formats `audit` reads line by line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditFormat {
    ClaudeCode,
    Codex,
}

impl AuditFormat {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
        }
    }
}

/// A tool call named as `Read /abs/path` (the tool and its main argument).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolRef {
    pub tool: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The 1-based line of the call.
    pub line: usize,
}

/// An `@import` written in a delivered file, and whether its target was delivered with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportSeen {
    /// The token as written (`@AGENTS.md`).
    pub token: String,
    /// The path it names (resolved against the file's directory), when it can be resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub expanded: bool,
}

/// One instruction file as the client delivered it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    /// The absolute path the client named (Codex: the cwd whose project docs were joined).
    pub path: String,
    /// The client's scope or kind (`Project`, `User`, `Local`, `project-doc` …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `startup` (with the first prompt), `prompt` (re-sent with a later prompt),
    /// `after-compaction` (re-sent after a compaction) or `nested` (attached after a tool call).
    pub how: &'static str,
    /// The 1-based user prompt it came with.
    pub prompt: usize,
    /// For `nested`: the tool call that triggered it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_tool: Option<ToolRef>,
    /// The sha256 of the text as delivered.
    pub sha256: String,
    pub bytes: usize,
    pub line: usize,
    /// The client's own flag that its text differs from the file on disk (Claude Code
    /// `contentDiffersFromDisk`), when it wrote one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_says_differs: Option<bool>,
    pub imports: Vec<ImportSeen>,
    /// Filled by the caller: `same`, `older-copy` (the file on disk now differs) or `missing`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_disk: Option<&'static str>,
    /// Filled by the caller: whether `context explain` predicts this file with this text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<bool>,
    /// Filled by the caller (Codex): the files explain joins for that cwd, absolute (never
    /// serialised; the language server's per-file summaries read it).
    #[serde(skip)]
    pub joined: Vec<String>,
    /// The delivered text itself, kept only until the caller compared it, and only in the first
    /// delivery of each path and text (a repeat has it empty; never serialised).
    #[serde(skip)]
    pub text: String,
}

/// One skill of a listing as sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedSkill {
    pub name: String,
    /// The description's length in characters as sent (0 when dropped).
    pub description_chars: usize,
    /// `full`, `shortened` (ends in an ellipsis, or shorter than the SKILL.md's on disk, the
    /// caller's finding) or `dropped` (no description sent).
    pub description: &'static str,
    /// The description as sent (never serialised; the caller compares it with the disk).
    #[serde(skip)]
    pub text: String,
}

/// A skill listing as the client sent it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillListing {
    pub line: usize,
    pub prompt: usize,
    pub bytes: usize,
    pub sha256: String,
    pub skills: Vec<ListedSkill>,
}

/// A skill the model invoked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillUse {
    pub name: String,
    pub line: usize,
    /// The skill's directory, when the client named it with the loaded body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// The sha256 of the body as loaded, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_sha256: Option<String>,
    /// Files the body names (relative) that no later tool call read.
    pub unread_references: Vec<String>,
    /// Files the body names (for the unread computation; never serialised).
    #[serde(skip)]
    pub references: Vec<String>,
}

/// What the model had at one side of a compaction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextState {
    pub instruction_files: Vec<String>,
    pub skill_listing: bool,
    pub skill_bodies: Vec<String>,
    /// The todo list (its items), when one was written.
    pub todos: Vec<String>,
}

/// One compaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    pub line: usize,
    /// `manual`, `auto`, or `unknown`.
    pub trigger: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_tokens: Option<u64>,
    pub before: ContextState,
    /// What the first request after it carried (up to the next user prompt's request).
    pub after: ContextState,
    /// `before` minus `after`, item by item.
    pub lost: ContextState,
}

/// A file `context explain` predicts for the session's cwd that the session never received
/// (filled by the caller, spec/interfaces.md §4.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotReceived {
    /// Absolute path.
    pub path: String,
    /// The sha256 explain gives for it now (of the text the client would deliver), when it
    /// gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// Cache totals of a session.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheTotals {
    pub requests: usize,
    pub hits: usize,
    pub cold: usize,
    pub expected_rebuilds: usize,
    pub ttl_expired: usize,
    pub broken: usize,
    /// The session's cost in US dollars at the price table's prices.
    pub cost: f64,
    /// What the breaks with an avoidable cause cost above a cache read.
    pub avoidable: f64,
    /// What TTL expiries cost above a cache read (reported apart: an idle gap is a choice).
    pub ttl_cost: f64,
}

/// A located problem met while reading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AuditProblem {
    pub line: usize,
    pub message: String,
}

/// The audit of one session file.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionAudit {
    pub file: String,
    pub format: &'static str,
    pub session: String,
    /// The session's working directory as the client recorded it.
    pub cwd: Option<String>,
    pub client_version: Option<String>,
    /// Filled by the caller: whether the cwd lies in the audited workspace (`None` when no cwd
    /// was recorded: the transcript cannot be matched to a workspace).
    pub workspace_match: Option<bool>,
    pub lines: usize,
    pub skipped_lines: usize,
    pub problems: Vec<AuditProblem>,
    pub prompts: usize,
    pub deliveries: Vec<Delivery>,
    /// Filled by the caller: the files explain predicts at start for the session's cwd that
    /// the session never received (and that have not changed since it started).
    pub not_received: Vec<NotReceived>,
    pub skill_listings: Vec<SkillListing>,
    pub skills_invoked: Vec<SkillUse>,
    pub compactions: Vec<Compaction>,
    pub requests: Vec<RequestCache>,
    pub cache: CacheTotals,
    /// When the session started (its first record's timestamp, ms since the epoch), when one
    /// was recorded (never serialised; the caller's not-received check reads it).
    #[serde(skip)]
    pub started_ms: Option<i64>,
}

/// The streaming reader of one session file.
pub struct Auditor {
    out: SessionAudit,
    format: Option<AuditFormat>,
    claude: claude::ClaudeAuditState,
    codex: codex::CodexAuditState,
    pending: Vec<(usize, Value)>,
}

/// Lines looked at before the format is decided (the first recognised record decides).
const DETECT_LINES: usize = 50;

impl Auditor {
    /// A reader for a file shown as `file`.
    #[must_use]
    pub fn new(file: &str) -> Self {
        Self {
            out: SessionAudit {
                file: file.to_owned(),
                ..SessionAudit::default()
            },
            format: None,
            claude: claude::ClaudeAuditState::default(),
            codex: codex::CodexAuditState::default(),
            pending: Vec::new(),
        }
    }

    /// The format, once decided.
    #[must_use]
    pub const fn format(&self) -> Option<AuditFormat> {
        self.format
    }

    pub(crate) fn problem(out: &mut SessionAudit, line: usize, message: &str) {
        out.skipped_lines += 1;
        if out.problems.len() < MAX_PROBLEMS {
            out.problems.push(AuditProblem {
                line,
                message: message.to_owned(),
            });
        }
    }

    /// Counts one line that was not read (the caller's reason, such as a line over its size
    /// cap) as skipped.
    pub fn skip(&mut self, message: &str) {
        self.out.lines += 1;
        let n = self.out.lines;
        Self::problem(&mut self.out, n, message);
    }

    /// Feeds one line (without its newline; a trailing `\r` is ignored).
    pub fn feed(&mut self, raw: &[u8]) {
        self.out.lines += 1;
        let n = self.out.lines;
        let raw = if n == 1 {
            raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw)
        } else {
            raw
        };
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let Some(v) = std::str::from_utf8(raw)
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(s).ok())
            .filter(Value::is_object)
        else {
            let msg = if std::str::from_utf8(raw).is_err() {
                "not UTF-8"
            } else {
                "not a JSON object (corrupt or truncated line)"
            };
            Self::problem(&mut self.out, n, msg);
            return;
        };
        if self.out.started_ms.is_none() {
            self.out.started_ms = v
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(timestamp_ms);
        }
        if self.format.is_none() {
            self.format = detect(&v);
            if self.format.is_none() {
                if self.pending.len() < DETECT_LINES {
                    self.pending.push((n, v));
                } else {
                    Self::problem(&mut self.out, n, "unknown record type");
                }
                return;
            }
            for (pn, pv) in std::mem::take(&mut self.pending) {
                self.dispatch(pn, &pv);
            }
        }
        self.dispatch(n, &v);
    }

    fn dispatch(&mut self, n: usize, v: &Value) {
        match self.format {
            Some(AuditFormat::ClaudeCode) => self.claude.record(&mut self.out, n, v),
            Some(AuditFormat::Codex) => self.codex.record(&mut self.out, n, v),
            None => Self::problem(&mut self.out, n, "unknown record type"),
        }
    }

    /// Ends the file: classifies the requests, prices them and returns the audit.
    #[must_use]
    pub fn finish(mut self, prices: Option<ListPrices>) -> SessionAudit {
        for (pn, _) in std::mem::take(&mut self.pending) {
            Self::problem(&mut self.out, pn, "unknown record type");
        }
        match self.format {
            Some(AuditFormat::ClaudeCode) => self.claude.finish(&mut self.out),
            Some(AuditFormat::Codex) => self.codex.finish(&mut self.out),
            None => {}
        }
        self.out.format = self.format.map_or("unknown", AuditFormat::as_str);
        cache::classify_all(&mut self.out, prices);
        self.out
    }
}

fn detect(v: &Value) -> Option<AuditFormat> {
    let t = v.get("type").and_then(Value::as_str)?;
    if matches!(
        t,
        "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted"
    ) && v.get("payload").is_some_and(Value::is_object)
    {
        return Some(AuditFormat::Codex);
    }
    let claude_key = ["uuid", "leafUuid", "sessionId", "messageId"]
        .iter()
        .any(|k| v.get(*k).is_some());
    (claude_key && claude::KNOWN.contains(&t)).then_some(AuditFormat::ClaudeCode)
}

/// The sha256 of a text, in lower-case hex.
#[must_use]
pub fn sha256_hex(s: &str) -> String {
    use sha2::{Digest as _, Sha256};
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Milliseconds since the epoch of an RFC 3339 UTC timestamp (`2026-12-02T17:28:52.912Z`);
/// `None` when it is not one.
#[must_use]
pub fn timestamp_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut ms = 0;
    if b.get(19) == Some(&b'.') {
        let frac: String = s[20..].chars().take_while(char::is_ascii_digit).collect();
        let f3: String = format!("{frac:0<3}").chars().take(3).collect();
        ms = f3.parse::<i64>().ok()?;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + mi) * 60_000 + se * 1000 + ms)
}

/// `@import` tokens of a delivered text (outside code spans and fences), resolved against
/// `dir`; whether each was expanded is decided by the caller of [`mark_imports`].
fn import_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let mut in_code = false;
        let mut prev = ' ';
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '`' {
                in_code = !in_code;
            } else if c == '@' && !in_code && (prev.is_whitespace() || i == 0) {
                let tok: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| !c.is_whitespace())
                    .collect();
                if !tok.is_empty() && (tok.contains('.') || tok.contains('/')) {
                    out.push(tok);
                }
            }
            prev = c;
            i += 1;
        }
    }
    out
}

/// Lexical `..`/`.` removal of an absolute path string.
fn normalize(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Fills `imports` of the deliveries in `group` (one batch delivered together): an import is
/// expanded when its target is delivered in the same batch.
fn mark_imports(group: &mut [Delivery]) {
    let paths: Vec<String> = group.iter().map(|d| d.path.clone()).collect();
    for d in group.iter_mut() {
        let dir = d.path.rsplit_once('/').map_or("", |(a, _)| a).to_owned();
        d.imports = import_tokens(&d.text)
            .into_iter()
            .map(|tok| {
                let path = if tok.starts_with('/') {
                    Some(normalize(&tok))
                } else if tok.starts_with('~') {
                    None
                } else {
                    Some(normalize(&format!("{dir}/{tok}")))
                };
                let expanded = path.as_ref().is_some_and(|p| paths.contains(p));
                ImportSeen {
                    token: format!("@{tok}"),
                    path,
                    expanded,
                }
            })
            .collect();
    }
}

#[cfg(test)]
mod tests;
