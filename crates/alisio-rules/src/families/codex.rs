//! Codex CLI's subagents (spec/instructions.md §10.6), as 0.171.0 loads them, measured offline
//! (tests/real `families`): every `*.toml` below `$CODEX_HOME/agents/` (subdirectories too)
//! holding `name`, `description` and `developer_instructions`; a file without `description` is
//! ignored ("Ignoring malformed agent role definition"); listed in the `spawn_agent` tool's
//! `agent_type` description as `<name>: {\n<description>\n}`, sorted by name, before the
//! client's own roles. Project agents (`.codex/agents/`) are read only in a trusted project.

use std::path::{Path, PathBuf};

use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange};
use alisio_base::workspace::{Env, FileType, Fs};

use super::{FILE_LIMIT, Family, FamilyEntry, FamilyScope, NotLoadedFamilyFile, Startup};
use crate::skills::discover::project_dirs;

/// Why a project agent is not counted.
pub const PROJECT_REASON: &str =
    "Codex CLI 0.171.0 reads project agents only in a trusted project (`codex exec --trust`)";

/// The keys of an agent role file: the three Codex requires (measured) and the config.toml
/// keys a role sets for its session (`ConfigToml` of Codex CLI 0.171.0).
pub const AGENT_KEYS: [(&str, &str); 8] = [
    (
        "name",
        "The role's name, the `agent_type` the model passes to `spawn_agent` (default: the file name).",
    ),
    (
        "description",
        "When the model should use this role: sent in `spawn_agent`'s `agent_type` description. Required: without it Codex ignores the file.",
    ),
    (
        "developer_instructions",
        "The instructions of the spawned agent (its developer message).",
    ),
    (
        "nickname_candidates",
        "Names Codex gives the spawned agents of this role.",
    ),
    ("model", "The model the role runs with."),
    (
        "model_reasoning_effort",
        "The reasoning effort of the role's model (`low`, `medium`, `high`, …).",
    ),
    (
        "sandbox_mode",
        "`read-only`, `workspace-write` or `danger-full-access` for the role's commands.",
    ),
    (
        "mcp_servers",
        "MCP servers of the role (`[mcp_servers.NAME]`).",
    ),
];

fn codex_home(env: &Env) -> Option<PathBuf> {
    env.codex_home
        .clone()
        .or_else(|| env.home.as_ref().map(|h| h.join(".codex")))
}

fn toml_files(fs: &dyn Fs, dir: &Path, out: &mut Vec<PathBuf>) {
    let mut stack = vec![dir.to_path_buf()];
    let mut n = 0;
    while let Some(d) = stack.pop() {
        n += 1;
        if n > 1000 {
            break;
        }
        let Ok(entries) = fs.read_dir(&d) else {
            continue;
        };
        let mut subs = Vec::new();
        for e in entries {
            let Some(name) = e.name.to_str() else {
                continue;
            };
            match e.file_type {
                FileType::Dir => subs.push(d.join(name)),
                FileType::File if name.ends_with(".toml") => out.push(d.join(name)),
                _ => {}
            }
        }
        stack.extend(subs.into_iter().rev());
    }
}

fn judge(fs: &dyn Fs, p: &Path, scope: FamilyScope, s: &mut Startup) -> Option<FamilyEntry> {
    let text = String::from_utf8_lossy(&fs.read_prefix(p, FILE_LIMIT).ok()?).into_owned();
    s.files.push(p.to_path_buf());
    let whole = TextRange::new(0, text.find(['\r', '\n']).unwrap_or(text.len()));
    let mut skip = |r: TextRange, code: Code, msg: String, why: String| {
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
            reason: why,
        });
        None
    };
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => {
            let r = e.span().map_or(whole, |r| TextRange::new(r.start, r.end));
            return skip(
                r,
                Code::AgentFrontmatterMissing,
                format!(
                    "invalid TOML: {}: Codex does not load this agent",
                    e.message()
                ),
                "invalid TOML".into(),
            );
        }
    };
    let field = |k: &str| {
        table
            .get(k)
            .and_then(toml::Value::as_str)
            .filter(|v| !v.trim().is_empty())
    };
    let stem = p
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let name = field("name").map_or(stem, str::to_string);
    let Some(description) = field("description").map(str::to_string) else {
        return skip(
            whole,
            Code::AgentFieldMissing,
            format!(
                "no `description`: Codex ignores agent role `{name}` (\"must define a description\")"
            ),
            "no `description`".into(),
        );
    };
    Some(FamilyEntry {
        family: Family::Agent,
        text: Some(format!("{name}: {{\n{description}\n}}")),
        name,
        file: p.to_path_buf(),
        scope,
        description,
        detail: String::new(),
        shadowed_by: None,
        hidden: None,
    })
}

/// What Codex CLI loads at startup in a session started in `vantage`.
#[must_use]
pub fn startup(fs: &dyn Fs, env: &Env, root: &Path, vantage: &Path) -> Startup {
    let mut s = Startup::default();
    let mut user = Vec::new();
    if let Some(h) = codex_home(env) {
        toml_files(fs, &h.join("agents"), &mut user);
    }
    let mut entries: Vec<FamilyEntry> = user
        .iter()
        .filter_map(|p| judge(fs, p, FamilyScope::User, &mut s))
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    s.entries.extend(entries);
    for d in project_dirs(root, vantage) {
        let mut files = Vec::new();
        toml_files(fs, &d.join(".codex").join("agents"), &mut files);
        for p in files {
            // Judged (its problems are reported) but not counted: trust is Codex's own.
            if judge(fs, &p, FamilyScope::Project, &mut s).is_some() {
                s.not_loaded.push(NotLoadedFamilyFile {
                    family: Family::Agent,
                    file: p.clone(),
                    reason: PROJECT_REASON.into(),
                });
            }
        }
    }
    super::codex_mcp::servers(fs, env, root, vantage, &mut s);
    s
}
