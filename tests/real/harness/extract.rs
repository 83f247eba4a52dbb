//! What each client delivered, read back from the requests the fake server recorded.
//!
//! - Claude Code: every `Contents of <absolute path> (<scope>):` block of its user messages
//!   (the startup blocks in the first user message; a nested file as `Contents of <path>:` in
//!   a later message, after the tool result that triggered it).
//! - Codex: the text between `<INSTRUCTIONS>` and `</INSTRUCTIONS>` of the
//!   `# AGENTS.md instructions for <cwd>` user message.
//! - Gemini CLI: every `--- Context from: <path> ---` … `--- End of Context from: <path> ---`
//!   block of the conversation it sends.

use serde_json::Value;

use super::http::Request;

/// One instruction file as a client delivered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub path: String,
    /// Claude Code's scope label (`project instructions, checked into the codebase`); `None`
    /// for a nested file, which has no label.
    pub label: Option<String>,
    /// The delivered text, trimmed as the client trims it.
    pub content: String,
    /// The index of the message that carried it (0 = the first user message).
    pub message: usize,
}

/// Claude Code's scope labels (the `(…)` after the path).
pub const CLAUDE_LABELS: [&str; 5] = [
    "project instructions, checked into the codebase",
    "user's private project instructions, not checked in",
    "user's private global instructions for all projects",
    "organization-managed policy instructions",
    "user's auto-memory, persists across conversations",
];

/// The main-conversation requests (those offering tools), in order.
#[must_use]
pub fn main_requests(requests: &[Request]) -> Vec<Value> {
    requests
        .iter()
        .filter(|r| r.method == "POST")
        .map(Request::json)
        .filter(|b| b["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .collect()
}

/// The text parts of a message's content (a string or an array of parts; tool results'
/// inner text included).
fn texts(content: &Value) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(parts) => parts
            .iter()
            .flat_map(|p| match p["type"].as_str() {
                Some("text") => vec![p["text"].as_str().unwrap_or_default().to_string()],
                Some("tool_result") => texts(&p["content"]),
                _ => Vec::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Claude Code: the blocks of the last main request (it carries the whole conversation).
#[must_use]
pub fn claude_blocks(requests: &[Request]) -> Vec<Block> {
    let Some(last) = main_requests(requests).pop() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, m) in last["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if m["role"] != "user" {
            continue;
        }
        for t in texts(&m["content"]) {
            out.extend(claude_blocks_of(&t, i));
        }
    }
    out
}

/// The `Contents of` blocks of one text.
#[must_use]
pub fn claude_blocks_of(text: &str, message: usize) -> Vec<Block> {
    let mut starts: Vec<usize> = text
        .match_indices("Contents of ")
        .map(|(i, _)| i)
        .filter(|i| *i == 0 || text[..*i].ends_with('\n'))
        .collect();
    starts.retain(|i| {
        text[*i..]
            .lines()
            .next()
            .is_some_and(|l| l.ends_with(':') && l.contains('/'))
    });
    let mut out = Vec::new();
    for (k, &s) in starts.iter().enumerate() {
        let header_end = text[s..].find('\n').map_or(text.len(), |e| s + e);
        let header = &text[s + "Contents of ".len()..header_end - 1];
        let mut end = starts.get(k + 1).copied().unwrap_or(text.len());
        if let Some(close) = text[header_end..end].find("</system-reminder>") {
            end = header_end + close;
        }
        let (path, label) = CLAUDE_LABELS
            .iter()
            .find_map(|l| {
                header
                    .strip_suffix(&format!(" ({l})"))
                    .map(|p| (p.to_string(), Some((*l).to_string())))
            })
            .unwrap_or_else(|| (header.to_string(), None));
        out.push(Block {
            path,
            label,
            content: text[header_end..end].trim().to_string(),
            message,
        });
    }
    out
}

/// Codex: the instruction text of its first main request (`None` when it sent none).
#[must_use]
pub fn codex_instructions(requests: &[Request]) -> Option<String> {
    let first = main_requests(requests).into_iter().next()?;
    for item in first["input"].as_array()? {
        for part in item["content"].as_array().into_iter().flatten() {
            let t = part["text"].as_str().unwrap_or_default();
            if let Some(rest) = t.strip_prefix("# AGENTS.md instructions for ") {
                let open = rest.find("<INSTRUCTIONS>\n")? + "<INSTRUCTIONS>\n".len();
                let close = rest.rfind("\n</INSTRUCTIONS>")?;
                return Some(rest.get(open..close)?.to_string());
            }
        }
    }
    None
}

/// Gemini CLI: the context blocks of its last main request, in order.
#[must_use]
pub fn gemini_blocks(requests: &[Request]) -> Vec<Block> {
    let Some(last) = main_requests(requests).pop() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut all = vec![last["systemInstruction"].clone()];
    all.extend(last["contents"].as_array().cloned().unwrap_or_default());
    for (i, c) in all.iter().enumerate() {
        for part in c["parts"].as_array().into_iter().flatten() {
            let mut t = part["text"].as_str().unwrap_or_default().to_string();
            if let Some(r) = part.get("functionResponse") {
                t = r["response"].to_string();
                t = serde_json::from_str::<String>(&format!("\"{}\"", t.trim_matches('"')))
                    .unwrap_or(t);
            }
            out.extend(gemini_blocks_of(&t, i));
        }
    }
    out
}

fn gemini_blocks_of(text: &str, message: usize) -> Vec<Block> {
    const OPEN: &str = "--- Context from: ";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(s) = rest.find(OPEN) {
        let after = &rest[s + OPEN.len()..];
        let Some(h) = after.find(" ---\n") else { break };
        let path = after[..h].to_string();
        let body = &after[h + " ---\n".len()..];
        let close = format!("--- End of Context from: {path} ---");
        let Some(e) = body.find(&close) else { break };
        out.push(Block {
            path,
            label: None,
            content: body[..e].trim().to_string(),
            message,
        });
        rest = &body[e + close.len()..];
    }
    out
}

/// Codex: the AGENTS.md message of its first main request, `# AGENTS.md instructions for
/// <dir>` (with project files) or `# AGENTS.md instructions` (the global file alone): the
/// directory it names, if any, and the text between `<INSTRUCTIONS>\n` and `\n</INSTRUCTIONS>`.
#[must_use]
pub fn codex_agents_message(requests: &[Request]) -> Option<(Option<String>, String)> {
    const HEAD: &str = "# AGENTS.md instructions";
    let first = main_requests(requests).into_iter().next()?;
    for item in first["input"].as_array()? {
        for part in item["content"].as_array().into_iter().flatten() {
            let t = part["text"].as_str().unwrap_or_default();
            let Some(rest) = t.strip_prefix(HEAD) else {
                continue;
            };
            let (dir, body) = rest.split_once("\n\n<INSTRUCTIONS>\n")?;
            let dir = match dir.strip_prefix(" for ") {
                Some(d) => Some(d.to_string()),
                None if dir.is_empty() => None,
                None => continue,
            };
            let text = body.strip_suffix("\n</INSTRUCTIONS>")?;
            return Some((dir, text.to_string()));
        }
    }
    None
}

/// Every string inside a JSON value, in document order.
fn strings_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings_in(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings_in(x, out)),
        _ => {}
    }
}

/// Gemini CLI: the context blocks of one request body, in order (system instruction = message
/// 0, then `contents[i]` = message `i + 1`), reading text parts and the strings of
/// `functionResponse.response` (where a tool result carries the files discovered on access).
#[must_use]
pub fn gemini_blocks_in(body: &Value) -> Vec<Block> {
    let mut all = vec![body["systemInstruction"].clone()];
    all.extend(body["contents"].as_array().cloned().unwrap_or_default());
    let mut out = Vec::new();
    for (i, c) in all.iter().enumerate() {
        for part in c["parts"].as_array().into_iter().flatten() {
            let mut texts = Vec::new();
            if let Some(t) = part["text"].as_str() {
                texts.push(t.to_string());
            }
            if let Some(r) = part.get("functionResponse") {
                strings_in(&r["response"], &mut texts);
            }
            for t in texts {
                out.extend(gemini_blocks_of(&t, i));
            }
        }
    }
    out
}
