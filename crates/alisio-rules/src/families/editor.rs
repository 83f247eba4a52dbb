//! Editor features of the family files as plain data (spec/instructions.md §10.5): the hover
//! of a key and the keys to complete, for each host's agent, command and MCP files.

use std::path::Path;

use alisio_base::config::Host;

use super::markdown;
use super::{
    Family, HostFamily, claude, codex, codex_mcp, copilot, gemini, gemini_commands, gemini_mcp,
};
use super::{kind_of, toml_doc};

type Keys = &'static [(&'static str, &'static str)];

/// The keys of a file kind and the words of its hover title.
fn keys(k: HostFamily) -> Option<(Keys, &'static str)> {
    Some(match (k.host, k.family) {
        (Host::ClaudeCode, Family::Agent) => {
            (&claude::AGENT_KEYS, "agent frontmatter, Claude Code")
        }
        (Host::ClaudeCode, Family::Command) => {
            (&claude::COMMAND_KEYS, "command frontmatter, Claude Code")
        }
        (Host::Gemini, Family::Agent) => (&gemini::AGENT_KEYS, "agent frontmatter, Gemini CLI"),
        (Host::Gemini, Family::Command) => {
            (&gemini_commands::COMMAND_KEYS, "command file, Gemini CLI")
        }
        (Host::Gemini, Family::Mcp) => (&gemini_mcp::SERVER_KEYS, "MCP server, Gemini CLI"),
        (Host::Codex, Family::Agent) => (&codex::AGENT_KEYS, "agent file, Codex CLI"),
        (Host::Codex, Family::Mcp) => (&codex_mcp::SERVER_KEYS, "MCP server, Codex CLI"),
        _ => return None,
    })
}

/// A key to complete: its name, meaning and the text inserted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyCompletion {
    pub key: &'static str,
    pub doc: &'static str,
    pub insert: String,
}

/// The key under `offset` with its value as text, for a Markdown frontmatter or a TOML file's
/// top level; an MCP file: a key of one server.
fn key_at(k: HostFamily, text: &str, offset: usize) -> Option<(String, Option<(String, String)>)> {
    let inside = |r: alisio_base::text::TextRange| r.start <= offset && offset <= r.end;
    match (k.family, k.host) {
        (Family::Mcp, Host::Codex) => {
            let doc = toml_doc::parse(text).ok()?;
            let servers = doc.get("mcp_servers").and_then(toml_doc::table)?;
            let zero = alisio_base::text::TextRange::new(0, 0);
            servers.iter().find_map(|(_, v)| {
                let t = toml_doc::table(v)?;
                t.iter().find_map(|(key, _)| {
                    let (kk, _) = t.get_key_value(key)?;
                    let r = toml_doc::key_range(kk, zero);
                    (r != zero && inside(r)).then(|| (key.to_string(), None))
                })
            })
        }
        (Family::Mcp, _) => gemini_mcp::server_key_at(text, offset).map(|k| (k, None)),
        (_, Host::Codex) | (Family::Command, Host::Gemini) => {
            let doc = toml_doc::parse(text).ok()?;
            let t = doc.as_table();
            let zero = alisio_base::text::TextRange::new(0, 0);
            let key = t.iter().find_map(|(key, _)| {
                let (kk, _) = t.get_key_value(key)?;
                let r = toml_doc::key_range(kk, zero);
                (r != zero && inside(r)).then(|| key.to_string())
            })?;
            let s = |k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_string);
            Some((key, s("name").zip(s("description"))))
        }
        _ => {
            let doc = markdown::read(text);
            let f = doc.fields.iter().find(|f| inside(f.key_span))?;
            let nd = doc
                .text("name")
                .map(|n| n.trim().to_string())
                .zip(doc.text("description").map(str::to_string));
            Some((f.key.clone(), nd))
        }
    }
}

/// The hover at byte `offset` of `text` (the file at `path`): a key's meaning, and on an
/// agent's `name` or `description` the line its host sends for it.
#[must_use]
pub fn hover(path: &Path, text: &str, offset: usize) -> Option<String> {
    if copilot::kind_of(path).is_some() {
        return copilot::hover(path, text, offset);
    }
    let kind = kind_of(path)?;
    let (table, title) = keys(kind)?;
    let (key, nd) = key_at(kind, text, offset)?;
    let (_, what) = table.iter().find(|(k, _)| *k == key)?;
    let mut out = format!("**{key}** ({title})\n\n{what}");
    if kind.family == Family::Agent
        && matches!(key.as_str(), "name" | "description")
        && let Some((n, d)) = nd
    {
        let (host, line) = match kind.host {
            Host::Gemini => ("Gemini CLI", format!("- {n} -> {d}")),
            Host::Codex => ("Codex CLI", format!("{n}: {{\n{d}\n}}")),
            _ => ("Claude Code", format!("- {n}: {d} (Tools: …)")),
        };
        out.push_str(&format!(
            "\n\nAt startup {host} lists this agent as:\n\n```\n{line}\n```"
        ));
    }
    Some(out)
}

/// The keys to offer at byte `offset`: at the start of a line, inside a Markdown frontmatter
/// block or at the top of a TOML agent or command file (before any `[table]`), the keys of the
/// file's kind not yet written, each with its meaning.
#[must_use]
pub fn completions(path: &Path, text: &str, offset: usize) -> Vec<KeyCompletion> {
    if copilot::kind_of(path).is_some() {
        return copilot::completions(path, text, offset)
            .into_iter()
            .map(|(key, doc)| KeyCompletion {
                key,
                doc,
                insert: format!("{key}: "),
            })
            .collect();
    }
    let Some(kind) = kind_of(path).filter(|k| k.family != Family::Mcp) else {
        return Vec::new();
    };
    let Some((table, _)) = keys(kind) else {
        return Vec::new();
    };
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return Vec::new();
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[line_start..offset];
    if !prefix
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Vec::new();
    }
    let toml =
        kind.host == Host::Codex || kind.family == Family::Command && kind.host == Host::Gemini;
    let present: Vec<String> = if toml {
        // Top-level keys only: before the first table header.
        if text[..line_start]
            .lines()
            .any(|l| l.trim_start().starts_with('['))
        {
            return Vec::new();
        }
        text.lines()
            .take_while(|l| !l.trim_start().starts_with('['))
            .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim().to_string()))
            .collect()
    } else {
        let doc = markdown::read(text);
        let Some(block) = doc.block else {
            return Vec::new();
        };
        // After the opening `---` line, before the closing one.
        if !(offset > block.start + 3 && offset < block.end.saturating_sub(3)) {
            return Vec::new();
        }
        doc.fields.iter().map(|f| f.key.clone()).collect()
    };
    table
        .iter()
        .filter(|(k, _)| !present.iter().any(|p| p == k) && k.starts_with(prefix))
        .map(|(k, doc)| KeyCompletion {
            key: k,
            doc,
            insert: if toml {
                format!("{k} = ")
            } else {
                format!("{k}: ")
            },
        })
        .collect()
}
