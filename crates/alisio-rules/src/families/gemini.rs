//! Gemini CLI's subagents (spec/instructions.md §10.6), as 0.61.0 loads them, measured offline
//! (tests/real `families`): `*.md` directly in `~/.gemini/agents/` (not in subdirectories,
//! not starting with `_`), in file-name order after the client's own three; `name` must match
//! `^[a-z0-9-_]+$` and `description` is required, else the file is skipped with a
//! `Validation failed` message; listed in the system instruction as `- <name> -> <description>`.
//! Project agents (`.gemini/agents/` of the directory Gemini starts in) load only in a trusted
//! folder and once acknowledged in the interactive CLI, so a headless session has none.

use std::path::{Path, PathBuf};

use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange};
use alisio_base::workspace::{Env, FileType, Fs};

use super::markdown;
use super::{FILE_LIMIT, Family, FamilyEntry, FamilyScope, NotLoadedFamilyFile, Startup};

/// Why a project agent is not loaded by a headless session.
pub const PROJECT_REASON: &str = "Gemini CLI 0.61.0 loads a project agent only in a trusted folder and once it is acknowledged in the interactive CLI";

/// The frontmatter keys of a local agent (`localAgentSchema` of
/// packages/core/src/agents/agentLoader.ts in the 0.61.0 bundle; a strict schema).
pub const AGENT_KEYS: [(&str, &str); 10] = [
    (
        "name",
        "The agent's name: lowercase letters, digits, `-` and `_`. Required: without it (or with another character) Gemini CLI skips the file.",
    ),
    (
        "description",
        "When the model should use this agent: sent at startup in the sub-agent list of the system instruction. Required.",
    ),
    (
        "kind",
        "`local` (the default): an agent that runs in this CLI.",
    ),
    ("display_name", "The name shown in the interface."),
    (
        "tools",
        "The tools the agent may use (a list of tool names; wildcards allowed).",
    ),
    (
        "mcp_servers",
        "MCP servers of the agent only (`command`, `url`, `http_url`, …).",
    ),
    ("model", "The model the agent runs with."),
    (
        "temperature",
        "The sampling temperature of the agent's model.",
    ),
    (
        "max_turns",
        "The most turns the agent may take (a positive integer).",
    ),
    (
        "timeout_mins",
        "The most minutes the agent may run (a positive integer).",
    ),
];

fn slug(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// The `*.md` files Gemini CLI reads in `dir`, in name order.
fn files(fs: &dyn Fs, dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs.read_dir(dir) else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter(|e| e.file_type == FileType::File)
        .filter_map(|e| e.name.to_str().map(str::to_string))
        .filter(|n| !n.starts_with('_') && n.ends_with(".md"))
        .map(|n| dir.join(n))
        .collect()
}

/// One agent file judged: the entry, or why it is skipped (with a diagnostic).
fn judge(fs: &dyn Fs, p: &Path, scope: FamilyScope, s: &mut Startup) -> Option<FamilyEntry> {
    let text = String::from_utf8_lossy(&fs.read_prefix(p, FILE_LIMIT).ok()?).into_owned();
    s.files.push(p.to_path_buf());
    let doc = markdown::read(&text);
    let first = TextRange::new(0, text.find(['\r', '\n']).unwrap_or(text.len()));
    let mut skip = |r: TextRange, code: Code, msg: String, why: &str| {
        s.diagnostics.push(Diagnostic::new(
            p,
            LineIndex::new(&text).span(r),
            Severity::Error,
            code,
            msg,
        ));
        s.not_loaded.push(NotLoadedFamilyFile {
            family: Family::Agent,
            file: p.to_path_buf(),
            reason: why.to_string(),
        });
        None
    };
    let Some(block) = doc.block else {
        return skip(first, Code::AgentFrontmatterMissing, "no frontmatter: Gemini CLI loads an agent only from a file that starts with a `---` block holding `name` and `description`".into(), "no frontmatter");
    };
    let open = TextRange::new(block.start, block.start + 3);
    let Some(name) = doc.text("name").map(str::to_string) else {
        return skip(
            open,
            Code::AgentFieldMissing,
            "no `name`: Gemini CLI does not load this agent".into(),
            "no `name`",
        );
    };
    if !slug(&name) {
        let r = doc.get("name").map_or(open, |f| f.value_span);
        return skip(
            r,
            Code::AgentFieldMissing,
            format!(
                "`name` must be lowercase letters, digits, `-` and `_` (Gemini CLI: \"Name must be a valid slug\"), not `{name}`: Gemini CLI does not load this agent"
            ),
            "`name` is not a slug",
        );
    }
    let Some(description) = doc.text("description").map(str::to_string) else {
        return skip(
            open,
            Code::AgentFieldMissing,
            "no `description`: Gemini CLI does not load this agent".into(),
            "no `description`",
        );
    };
    Some(FamilyEntry {
        family: Family::Agent,
        text: Some(format!("- {name} -> {description}")),
        name,
        file: p.to_path_buf(),
        scope,
        description,
        detail: String::new(),
        shadowed_by: None,
        hidden: None,
    })
}

/// What Gemini CLI loads at startup in a session started in `cwd`.
#[must_use]
pub fn startup(fs: &dyn Fs, env: &Env, cwd: &Path) -> Startup {
    let mut s = Startup::default();
    if let Some(h) = super::gemini_mcp::home(env) {
        for p in files(fs, &h.join(".gemini").join("agents")) {
            if let Some(e) = judge(fs, &p, FamilyScope::User, &mut s) {
                s.entries.push(e);
            }
        }
    }
    for p in files(fs, &cwd.join(".gemini").join("agents")) {
        // Judged (its problems are reported) but not loaded: no acknowledgement headless.
        if judge(fs, &p, FamilyScope::Project, &mut s).is_some() {
            s.not_loaded.push(NotLoadedFamilyFile {
                family: Family::Agent,
                file: p.clone(),
                reason: PROJECT_REASON.into(),
            });
        }
    }
    let trusted = super::gemini_mcp::trusted(fs, env, cwd);
    super::gemini_commands::commands(fs, env, cwd, trusted, &mut s);
    super::gemini_mcp::servers(fs, env, cwd, &mut s);
    s
}
