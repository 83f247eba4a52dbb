//! The files beside skills that cost startup context (spec/instructions.md §10): subagent
//! definitions, slash commands and MCP server configurations, as each host discovers them, what
//! the host sends for them at startup, and the diagnostics of their format.
//!
//! Claude Code 2.1.332 is simulated (measured offline, tests/real `families`): `.claude/agents`,
//! `.claude/commands` and `.mcp.json` (`claude`, `mcp`); GitHub Copilot in VS Code's custom
//! agents and prompt files follow VS Code's source (`copilot`). Plain data in, plain data out:
//! files are read through [`Fs`], nothing is printed.

pub mod claude;
pub mod codex;
pub mod codex_mcp;
pub mod copilot;
pub mod cost;
pub mod editor;
pub mod gemini;
pub mod gemini_commands;
pub mod gemini_mcp;
mod markdown;
pub mod mcp;
mod skill_agent;
mod toml_doc;

use std::path::{Path, PathBuf};

use serde_json::Value;

use alisio_base::config::Host;
use alisio_base::diagnostic::Diagnostic;
use alisio_base::workspace::walk::DirSet;
use alisio_base::workspace::{FileType, Fs};

use crate::skills::catalog::{self, Input};

pub use cost::StartupObject;

/// Agent and command files are read up to this size (the rest is not looked at).
pub const FILE_LIMIT: u64 = 256 * 1024;

/// A family of startup files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Agent,
    Command,
    Mcp,
}

impl Family {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agents",
            Self::Command => "commands",
            Self::Mcp => "mcp",
        }
    }

    /// Where `host` sends the family's entries (the startup cost table's column).
    #[must_use]
    pub const fn channel(self, host: Host) -> &'static str {
        match (self, host) {
            (Self::Agent, Host::Copilot) => "<agents> block",
            (Self::Agent, _) => "agent listing",
            (Self::Command, Host::Gemini) => "slash commands",
            (Self::Command, Host::Copilot) => "not sent at startup",
            (Self::Command, _) => "skill listing",
            (Self::Mcp, _) => "MCP servers",
        }
    }
}

/// Whose file an entry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FamilyScope {
    User,
    Project,
}

impl FamilyScope {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
        }
    }
}

/// One agent, command or MCP server as a host discovered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamilyEntry {
    pub family: Family,
    /// The name the host lists (a command in a subdirectory: `sub:name`).
    pub name: String,
    pub file: PathBuf,
    pub scope: FamilyScope,
    /// The description as the host lists it (commands: after the fallbacks of §10.2).
    pub description: String,
    /// The line the host sends for this entry; `None` when the host sends nothing the files
    /// decide (an MCP server's tools come from the server when it connects).
    pub text: Option<String>,
    /// Agents: the tools summary (`Read, Grep`, `All tools`); MCP servers: the transport.
    pub detail: String,
    /// The file of the entry that wins over this one (then this one is not sent).
    pub shadowed_by: Option<PathBuf>,
    /// Why the host loads this entry but sends the model nothing for it (a Claude Code command
    /// with `disable-model-invocation: true`, a Gemini CLI command the user types).
    pub hidden: Option<String>,
}

impl FamilyEntry {
    /// Sent to the model at startup.
    #[must_use]
    pub fn loaded(&self) -> bool {
        self.shadowed_by.is_none() && self.hidden.is_none()
    }

    /// The bytes of what is sent for this entry (0 when nothing is).
    #[must_use]
    pub fn bytes(&self) -> u64 {
        if self.loaded() {
            self.text.as_deref().map_or(0, |t| t.len() as u64)
        } else {
            0
        }
    }
}

/// A file the host finds but does not load, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLoadedFamilyFile {
    pub family: Family,
    pub file: PathBuf,
    pub reason: String,
}

/// What one host loads at startup from one vantage (its working directory).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Startup {
    pub entries: Vec<FamilyEntry>,
    pub not_loaded: Vec<NotLoadedFamilyFile>,
    /// Problems of the files read, located (the diagnostics of §10.4).
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read.
    pub files: Vec<PathBuf>,
}

impl Startup {
    /// The entries of one family, in the host's order.
    pub fn of(&self, f: Family) -> impl Iterator<Item = &FamilyEntry> {
        self.entries.iter().filter(move |e| e.family == f)
    }
}

/// The hosts whose families are simulated.
pub const HOSTS: [Host; 4] = [Host::ClaudeCode, Host::Codex, Host::Gemini, Host::Copilot];

/// The names and files of the skills Claude Code lists from `vantage` (a command of the same name is not
/// listed).
#[must_use]
pub fn claude_skill_names(fs: &dyn Fs, input: Input<'_>, vantage: &Path) -> Vec<(String, PathBuf)> {
    let d = catalog::discover_host(fs, input, vantage, Host::ClaudeCode);
    catalog::listed(&d.entries)
        .into_iter()
        .map(|e| (e.name.clone(), e.file.clone()))
        .collect()
}

/// What `host` loads at startup in a session started in `vantage` (`None`: not simulated).
#[must_use]
pub fn startup(fs: &dyn Fs, input: Input<'_>, vantage: &Path, host: Host) -> Option<Startup> {
    match host {
        Host::ClaudeCode => Some(claude::startup(
            fs,
            input.env,
            input.workspace_root,
            vantage,
            &claude_skill_names(fs, input, vantage),
        )),
        Host::Gemini => Some(gemini::startup(fs, input.env, vantage)),
        Host::Codex => Some(codex::startup(fs, input.env, input.workspace_root, vantage)),
        Host::Copilot => Some(copilot::startup(fs, input.workspace_root)),
        _ => None,
    }
}

/// Every directory of `set` that holds a family's files: the vantages `check` judges from, so
/// a file below the root is judged as a session started beside it sees it.
#[must_use]
pub fn vantages(set: &DirSet, root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    for node in &set.dirs {
        let has = node.entries.iter().any(|e| {
            ([".claude", ".gemini", ".codex"]
                .iter()
                .any(|d| e.name == *d)
                && e.file_type == FileType::Dir)
                || (e.name == ".mcp.json" && e.file_type == FileType::File)
        });
        if has && node.path != root {
            out.push(node.path.clone());
        }
    }
    out
}

/// The diagnostics `check` reports for the family files of a workspace (spec/instructions.md
/// §10.4): the files are judged by the host that reads them, whatever `--host` says, from
/// every vantage of [`vantages`]; and every file read. Files outside the workspace (the user's)
/// are left out.
#[must_use]
pub fn check(fs: &dyn Fs, input: Input<'_>, set: &DirSet) -> (Vec<Diagnostic>, Vec<PathBuf>) {
    let root = input.workspace_root;
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut agents = std::collections::BTreeSet::new();
    let mut skills = std::collections::BTreeSet::new();
    for v in vantages(set, root) {
        let all: Vec<Startup> = HOSTS
            .iter()
            .filter_map(|h| {
                let s = startup(fs, input, &v, *h)?;
                if *h == Host::ClaudeCode {
                    skill_agent::agent_names(&s, &mut agents);
                    skills.extend(
                        claude_skill_names(fs, input, &v)
                            .into_iter()
                            .map(|(_, f)| f),
                    );
                }
                Some(s)
            })
            .collect();
        let (d, f): (Vec<_>, Vec<_>) = all.into_iter().map(|s| (s.diagnostics, s.files)).unzip();
        let s = Startup {
            diagnostics: d.concat(),
            files: f.concat(),
            ..Startup::default()
        };
        for d in s.diagnostics {
            if alisio_base::workspace::is_inside(&d.file, root) && !diags.contains(&d) {
                diags.push(d);
            }
        }
        for f in s.files {
            if alisio_base::workspace::is_inside(&f, root) && !files.contains(&f) {
                files.push(f);
            }
        }
    }
    for d in skill_agent::check(fs, root, &skills, &agents) {
        if !diags.contains(&d) {
            diags.push(d);
        }
    }
    (diags, files)
}

/// The `startup` object of `context explain --json` (spec/interfaces.md §1.1).
#[must_use]
pub fn startup_json(host: Host, s: &Startup, show: &dyn Fn(&Path) -> String) -> Value {
    serde_json::to_value(StartupObject::new(host, s, show)).unwrap_or(Value::Null)
}

/// The startup cost table of `context explain` (human form): one row per entry sent or not,
/// then the total.
#[must_use]
pub fn startup_human(host: Host, s: &Startup, show: &dyn Fn(&Path) -> String) -> String {
    use std::fmt::Write as _;
    let mut out = format!(
        "\nStartup cost (host {}, bytes the host sends before the first prompt)\n",
        host.as_str()
    );
    let mut rows: Vec<[String; 5]> =
        vec![["family", "name", "bytes", "sent in", "file"].map(str::to_string)];
    for e in &s.entries {
        let bytes = if e.text.is_none() && e.loaded() {
            "tools at connect".to_string()
        } else if e.loaded() {
            e.bytes().to_string()
        } else {
            "not sent".to_string()
        };
        let mut file = show(&e.file);
        if let Some(w) = &e.shadowed_by {
            let _ = write!(file, " (shadowed by {})", show(w));
        } else if let Some(why) = &e.hidden {
            let _ = write!(file, " ({why})");
        }
        rows.push([
            e.family.as_str().to_string(),
            e.name.clone(),
            bytes,
            e.family.channel(host).to_string(),
            file,
        ]);
    }
    for n in &s.not_loaded {
        rows.push([
            n.family.as_str().to_string(),
            "-".into(),
            "not loaded".into(),
            n.reason.clone(),
            show(&n.file),
        ]);
    }
    if rows.len() == 1 {
        out.push_str("no subagents, commands or MCP servers\n");
        return out;
    }
    let widths: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let line: Vec<String> = (0..5)
            .map(|i| format!("{:<w$}", r[i], w = widths[i]))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    let bytes: u64 = s.entries.iter().map(FamilyEntry::bytes).sum();
    let _ = writeln!(
        out,
        "total: {bytes} bytes (~{} tokens); MCP tool definitions come from each server when it connects and are not counted",
        bytes.div_ceil(4)
    );
    out
}

/// A family file and the host that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostFamily {
    pub host: Host,
    pub family: Family,
}

/// The host and family of a path (the language server's file filter): `.mcp.json`,
/// `.claude/agents/**/*.md`, `.claude/commands/**/*.md` (Claude Code); `.gemini/agents/*.md`,
/// `.gemini/commands/**/*.toml`, `.gemini/settings.json` (Gemini CLI);
/// `.codex/agents/**/*.toml`, `.codex/config.toml` (Codex CLI).
#[must_use]
pub fn kind_of(path: &Path) -> Option<HostFamily> {
    let name = path.file_name()?.to_str()?;
    let parent = path.parent()?;
    let pname = parent.file_name().and_then(|n| n.to_str());
    let kind = |host, family| Some(HostFamily { host, family });
    match (name, pname) {
        (".mcp.json", _) => return kind(Host::ClaudeCode, Family::Mcp),
        ("settings.json", Some(".gemini")) => return kind(Host::Gemini, Family::Mcp),
        ("config.toml", Some(".codex")) => return kind(Host::Codex, Family::Mcp),
        _ => {}
    }
    if let Some(k) = copilot::kind_of(path) {
        let family = if k == copilot::CopilotKind::Prompt {
            Family::Command
        } else {
            Family::Agent
        };
        return kind(Host::Copilot, family);
    }
    let ext = if name.ends_with(".md") {
        "md"
    } else if name.ends_with(".toml") {
        "toml"
    } else {
        return None;
    };
    for dir in path.ancestors().skip(1) {
        let n = dir.file_name().and_then(|n| n.to_str());
        let top = dir
            .parent()
            .and_then(Path::file_name)
            .and_then(|n| n.to_str());
        let direct = dir == parent;
        let hit = match (top, n, ext) {
            (Some(".claude"), Some("agents"), "md") => kind(Host::ClaudeCode, Family::Agent),
            (Some(".claude"), Some("commands"), "md") => kind(Host::ClaudeCode, Family::Command),
            (Some(".gemini"), Some("agents"), "md") if direct => kind(Host::Gemini, Family::Agent),
            (Some(".gemini"), Some("commands"), "toml") => kind(Host::Gemini, Family::Command),
            (Some(".codex"), Some("agents"), "toml") => kind(Host::Codex, Family::Agent),
            _ => None,
        };
        if hit.is_some() {
            return hit;
        }
        if matches!(n, Some(".claude" | ".gemini" | ".codex")) {
            return None;
        }
    }
    None
}

/// The family a path belongs to (see [`kind_of`]).
#[must_use]
pub fn family_of(path: &Path) -> Option<Family> {
    kind_of(path).map(|k| k.family)
}

/// The directory a session that reads `path` starts in: the `.mcp.json`'s own, else the one
/// holding the `.claude`, `.gemini` or `.codex` directory (Copilot: the one holding `.github`).
#[must_use]
pub fn vantage_of(path: &Path) -> Option<PathBuf> {
    if path.file_name().is_some_and(|n| n == ".mcp.json") {
        return path.parent().map(Path::to_path_buf);
    }
    if copilot::kind_of(path).is_some() {
        return path
            .ancestors()
            .find(|d| d.file_name().is_some_and(|n| n == ".github"))
            .and_then(Path::parent)
            .map(Path::to_path_buf);
    }
    path.ancestors()
        .find(|d| {
            d.file_name()
                .is_some_and(|n| n == ".claude" || n == ".gemini" || n == ".codex")
        })
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod copilot_tests;
#[cfg(test)]
mod tests;

#[cfg(test)]
mod host_tests;
