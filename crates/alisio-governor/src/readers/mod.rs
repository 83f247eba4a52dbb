//! Readers of transcripts into the governor's message model (spec/governor.md §11): format
//! detection, the common normalisation of spec/governor.md §11.3, and one module per format. Bad input yields
//! located problems and counts, never a panic; one broken line never empties the result.

pub mod alisio;
pub mod claude;
pub mod codex;
pub mod mini;

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::RequestParts;
use super::classify::{command_words, result_text};
use super::invariants::Sources;
use super::model::{Class, Foreign, Message, ToolResult};
use super::shell::{self, Base, CommandKind};
use super::tokens::redacted_token;

/// A transcript format (spec/governor.md §11.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Alisio,
    ClaudeCode,
    Codex,
    MiniSweAgent,
}

impl Format {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Alisio => "alisio",
            Self::ClaudeCode => "claude-code",
            Self::Codex => "codex",
            Self::MiniSweAgent => "mini-swe-agent",
        }
    }
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Alisio,
            Self::ClaudeCode,
            Self::Codex,
            Self::MiniSweAgent,
        ]
        .into_iter()
        .find(|f| f.as_str() == s)
    }
}

/// A located problem met while reading (a line number when the format has lines).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
}

/// The `source` object of a report (spec/governor.md §11.1), plus the problems met.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub file: String,
    pub format: &'static str,
    pub session: String,
    pub sidechain: bool,
    pub lines: usize,
    pub skipped_lines: usize,
    pub compactions: usize,
    pub compacted_messages: usize,
    pub orphan_calls: usize,
    pub orphan_results: usize,
    pub redacted_values: usize,
    pub unclassified_repeats: usize,
    pub problems: Vec<Problem>,
}

/// One session of a transcript, normalised to H.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub history: Vec<Message>,
    pub parts: RequestParts,
    pub sources: Sources,
    pub source: Source,
    /// The provider's reported usage of the requests, where the transcript records it
    /// (spec/governor.md §11.11), by the assistant message each request was answered with.
    pub recorded: Vec<crate::recorded::RecordedRequest>,
}

/// Why a file could not be read as a transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported;

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unsupported transcript format")
    }
}

/// A JSONL line: its 1-based number and parsed value (`None` when malformed).
pub(crate) struct Line {
    pub number: usize,
    pub value: Option<Value>,
}

pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Splits into non-empty lines; a line that is not UTF-8 or not JSON is malformed.
pub(crate) fn jsonl(bytes: &[u8]) -> (Vec<Line>, usize) {
    let bytes = strip_bom(bytes);
    let mut out = Vec::new();
    let mut total = 0;
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        total = i + 1;
        let value = std::str::from_utf8(raw)
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(s).ok());
        out.push(Line {
            number: i + 1,
            value,
        });
    }
    (out, total)
}

fn whole_json(bytes: &[u8]) -> Option<Value> {
    let s = std::str::from_utf8(strip_bom(bytes)).ok()?;
    match serde_json::from_str::<Value>(s) {
        Ok(v @ Value::Object(_)) => Some(v),
        _ => None,
    }
}

fn is_codex_line(v: &Value) -> bool {
    matches!(
        v.get("type").and_then(Value::as_str),
        Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
    ) && v.get("payload").is_some_and(Value::is_object)
}

fn is_claude_line(v: &Value) -> bool {
    matches!(
        v.get("type").and_then(Value::as_str),
        Some(
            "user"
                | "assistant"
                | "system"
                | "summary"
                | "progress"
                | "queue-operation"
                | "file-history-snapshot"
        )
    ) && ["uuid", "leafUuid", "sessionId", "messageId"]
        .iter()
        .any(|k| v.get(*k).is_some())
}

/// Format detection (spec/governor.md §11.2).
#[must_use]
pub fn detect(bytes: &[u8]) -> Option<Format> {
    parse(bytes).0
}

/// A transcript parsed once, for detection and reading alike: the whole file as one JSON object,
/// or its lines (with the number of the last non-blank one).
enum Parsed {
    Whole(Value),
    Lines(Vec<Line>, usize),
}

/// The format a transcript's parse shows, with the parse (spec/governor.md §11.2).
fn parse(bytes: &[u8]) -> (Option<Format>, Parsed) {
    if let Some(v) = whole_json(bytes) {
        let is_mini = v.get("messages").is_some_and(Value::is_array)
            && (v
                .get("trajectory_format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("mini-swe-agent"))
                || v.get("info").is_some_and(Value::is_object));
        let is_alisio = v.get("schemaVersion").is_some_and(Value::is_number)
            && v.get("session").and_then(|s| s.get("id")).is_some();
        if is_mini {
            return (Some(Format::MiniSweAgent), Parsed::Whole(v));
        }
        if is_alisio {
            return (Some(Format::Alisio), Parsed::Whole(v));
        }
    }
    let (lines, total) = jsonl(bytes);
    (lines_format(&lines), Parsed::Lines(lines, total))
}

/// Codex or Claude Code by the shape of the first 200 object lines; `None` when mostly malformed
/// or undecided.
fn lines_format(lines: &[Line]) -> Option<Format> {
    let malformed = lines.iter().filter(|l| l.value.is_none()).count();
    if lines.is_empty() || malformed * 2 > lines.len() {
        return None;
    }
    let (mut codex, mut claude) = (0, 0);
    for v in lines
        .iter()
        .filter_map(|l| l.value.as_ref())
        .filter(|v| v.is_object())
        .take(200)
    {
        codex += usize::from(is_codex_line(v));
        claude += usize::from(is_claude_line(v));
    }
    match codex.cmp(&claude) {
        std::cmp::Ordering::Greater => Some(Format::Codex),
        std::cmp::Ordering::Less => Some(Format::ClaudeCode),
        std::cmp::Ordering::Equal => None,
    }
}

/// Reads a transcript: its main session, then one per sidechain. `file` is how it is shown.
///
/// # Errors
/// [`Unsupported`] when the format is not detected (or not the forced one's shape).
pub fn read(
    bytes: &[u8],
    format: Option<Format>,
    file: &str,
) -> Result<(Format, Vec<Session>), Unsupported> {
    // Parsed once: detection's parse is the reader's (a forced format parses what it reads).
    let (format, parsed) = match format {
        Some(f @ (Format::Alisio | Format::MiniSweAgent)) => {
            (f, Parsed::Whole(whole_json(bytes).ok_or(Unsupported)?))
        }
        Some(f) => {
            let (lines, total) = jsonl(bytes);
            (f, Parsed::Lines(lines, total))
        }
        None => match parse(bytes) {
            (Some(f), parsed) => (f, parsed),
            (None, _) => return Err(Unsupported),
        },
    };
    // A whole-file format always has its value, a line format its lines (above).
    let mut sessions = match (format, parsed) {
        (Format::Alisio, Parsed::Whole(v)) => alisio::read(v),
        (Format::MiniSweAgent, Parsed::Whole(v)) => mini::read(v),
        (Format::ClaudeCode | Format::Codex, Parsed::Lines(lines, total)) => {
            let malformed = lines.iter().filter(|l| l.value.is_none()).count();
            if lines.is_empty() || malformed * 2 > lines.len() {
                if lines.is_empty() && bytes.iter().all(u8::is_ascii_whitespace) {
                    return Err(Unsupported);
                }
                return Err(Unsupported);
            }
            let mut s = if format == Format::Codex {
                codex::read(&lines)
            } else {
                claude::read(&lines)
            };
            for sess in &mut s {
                sess.source.lines = total;
            }
            s
        }
        _ => return Err(Unsupported),
    };
    if matches!(format, Format::Alisio | Format::MiniSweAgent) {
        let lines = std::str::from_utf8(strip_bom(bytes))
            .map(|s| s.lines().count())
            .unwrap_or(0);
        for s in &mut sessions {
            s.source.lines = lines;
        }
    }
    for s in &mut sessions {
        s.source.file = file.to_owned();
        s.source.format = format.as_str();
        finish(s);
    }
    Ok((format, sessions))
}

/// Counts every string value that is entirely a redacted token.
pub(crate) fn count_redacted(v: &Value) -> usize {
    match v {
        Value::String(s) => usize::from(redacted_token(s).is_some()),
        Value::Array(a) => a.iter().map(count_redacted).sum(),
        Value::Object(m) => m.values().map(count_redacted).sum(),
        _ => 0,
    }
}

/// Whether any string inside `v` is a redacted token (such arguments make a call unclassified).
pub(crate) fn has_redacted(v: &Value) -> bool {
    count_redacted(v) > 0
}

/// Orphans and unclassified repeats over the final H (spec/governor.md §11.1).
fn finish(s: &mut Session) {
    let mut calls: HashMap<&str, (&str, &str, bool)> = HashMap::new();
    let mut answered: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut orphan_results = 0;
    let mut repeats: Vec<(String, String, String)> = Vec::new();
    for m in &s.history {
        match m {
            Message::Assistant { calls: cs, .. } => {
                for c in cs {
                    let unclassified = c
                        .foreign
                        .as_ref()
                        .is_none_or(|f| matches!(f.class, Class::Other));
                    calls.insert(
                        c.id.as_str(),
                        (c.name.as_str(), c.arguments.as_str(), unclassified),
                    );
                }
            }
            Message::Tool(r) => match calls.get(r.call_id.as_str()) {
                Some((name, args, unclassified)) => {
                    answered.insert(r.call_id.as_str());
                    if *unclassified {
                        repeats.push(((*name).to_owned(), (*args).to_owned(), result_text(r)));
                    }
                }
                None => orphan_results += 1,
            },
            Message::User { .. } => {}
        }
    }
    let web = |name: &str| name == "web_search_call";
    s.source.orphan_calls = calls
        .iter()
        .filter(|(id, (name, _, _))| !answered.contains(*id) && !web(name))
        .count();
    s.source.orphan_results = orphan_results;
    let mut later: HashMap<&(String, String, String), usize> = HashMap::new();
    let mut count = 0;
    for r in repeats.iter().rev() {
        if later.contains_key(r) {
            count += 1;
        }
        *later.entry(r).or_default() += 1;
    }
    s.source.unclassified_repeats = count;
}

/// The content fingerprint of spec/governor.md §11.3.
pub(crate) fn fingerprint(exit: Option<i64>, text: &str) -> String {
    let mut h = Sha256::new();
    if let Some(e) = exit {
        h.update(format!("{e}\n").as_bytes());
    }
    h.update(text.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// What a foreign shell-like call's result looked like.
pub(crate) struct Outcome<'a> {
    pub is_error: bool,
    pub exit: Option<i64>,
    /// The comparison text; `None` when the output is redacted (unknown).
    pub comparison: Option<&'a str>,
}

impl<'a> Outcome<'a> {
    pub(crate) fn new(is_error: bool, exit: Option<i64>, comparison: &'a str) -> Self {
        let comparison = if redacted_token(comparison).is_some() {
            None
        } else {
            Some(comparison)
        };
        Self {
            is_error,
            exit: if comparison.is_none() { None } else { exit },
            comparison,
        }
    }
}

/// Named paths of a foreign shell command: every whole word as written and as its key.
pub(crate) fn shell_named(text: &str, base: &Base) -> Vec<String> {
    let mut out = Vec::new();
    for w in command_words(text) {
        if let Some(k) = shell::key(base, &w)
            && k != w
        {
            out.push(k);
        }
        out.push(w);
    }
    out
}

/// Annotates a foreign shell command (spec/governor.md §11.3, §11.7).
pub(crate) fn shell_foreign(command: &str, base: &Base, outcome: Option<&Outcome<'_>>) -> Foreign {
    let sh = shell::classify(command, base);
    let mut f = Foreign {
        named: shell_named(command, base),
        ephemeral: shell::ephemeral(command)
            .map(|t| format!("sh\u{0}{}\u{0}{t}", base.signature())),
        ..Foreign::default()
    };
    let Some(o) = outcome else { return f };
    f.exit = o.exit;
    let ok_exit = |allowed: &[i64]| o.exit.is_none_or(|e| allowed.contains(&e));
    if !sh.written.is_empty() {
        f.canonical = Some("edit_file".into());
        f.origin = sh.written_raw.first().cloned();
        if !o.is_error && ok_exit(&[0]) {
            f.class = Class::Write { keys: sh.written };
        }
        return f;
    }
    match sh.kind {
        CommandKind::Read { key, path } => {
            f.canonical = Some("read_file".into());
            f.origin = Some(path.clone());
            f.reads = key.clone();
            if !o.is_error && ok_exit(&[0]) {
                let compare = key.as_ref().zip(o.comparison).map(|(_, c)| {
                    (
                        format!("sh\u{0}{}\u{0}{}", sh.base.signature(), sh.text),
                        fingerprint(o.exit, c),
                    )
                });
                f.attributable = key.clone().map(|k| vec![k]);
                f.class = Class::Read {
                    shown: key.clone().unwrap_or(path),
                    key,
                    lines: None,
                    sha256: None,
                    compare,
                };
            }
        }
        CommandKind::Search { files } => {
            f.canonical = Some("search_text".into());
            if !o.is_error && ok_exit(&[0, 1]) {
                f.attributable = o
                    .comparison
                    .map(|c| shell::search_output_paths(c, files, &sh.base));
                f.class = Class::Search {
                    signature: format!("sh\u{0}{}\u{0}{}", sh.base.signature(), sh.text),
                    shown: sh.text.clone(),
                    records: o.comparison.map(|c| fingerprint(o.exit, c)),
                };
            }
        }
        CommandKind::Process => {}
    }
    f
}

/// A cursor poll (spec/governor.md §11.3): only the empty rule applies.
pub(crate) fn cursor_poll(task: String, empty: bool, ok: bool) -> Foreign {
    Foreign {
        canonical: Some("bg_output".into()),
        class: if ok {
            Class::Bg {
                task,
                offset: 0,
                limit: 16384,
                cursor: true,
                next_offset: None,
                empty,
            }
        } else {
            Class::Other
        },
        ..Foreign::default()
    }
}

/// A result's text as `&ToolResult` helper for readers.
pub(crate) fn text_of(r: &ToolResult) -> String {
    result_text(r)
}

#[cfg(test)]
mod tests;
