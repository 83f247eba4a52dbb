//! The files beside skills that cost startup context (spec/instructions.md §10): subagent
//! definitions, slash commands and MCP server configurations, as each host discovers them, what
//! the host sends for them at startup, and the diagnostics of their format.
//!
//! Claude Code 2.1.332 is simulated (measured offline, tests/real `families`): `.claude/agents`,
//! `.claude/commands` and `.mcp.json` (`claude`, `mcp`). Plain data in, plain data out: files
//! are read through [`Fs`], nothing is printed.

pub mod claude;
pub mod codex;
pub mod cost;
pub mod editor;
pub mod gemini;
mod markdown;
pub mod mcp;
mod skill_agent;

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

    /// Where the host sends the family's entries (the startup cost table's column).
    #[must_use]
    pub const fn channel(self) -> &'static str {
        match self {
            Self::Agent => "agent listing",
            Self::Command => "skill listing",
            Self::Mcp => "MCP servers",
        }
    }
}

/// Whose file an entry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
}

impl Scope {
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
pub struct Entry {
    pub family: Family,
    /// The name the host lists (a command in a subdirectory: `sub:name`).
    pub name: String,
    pub file: PathBuf,
    pub scope: Scope,
    /// The description as the host lists it (commands: after the fallbacks of §10.2).
    pub description: String,
    /// The line the host sends for this entry; `None` when the host sends nothing the files
    /// decide (an MCP server's tools come from the server when it connects).
    pub text: Option<String>,
    /// Agents: the tools summary (`Read, Grep`, `All tools`); MCP servers: the transport.
    pub detail: String,
    /// The file of the entry that wins over this one (then this one is not sent).
    pub shadowed_by: Option<PathBuf>,
    /// Commands: `disable-model-invocation: true` (never in the skill listing).
    pub hidden: bool,
}

impl Entry {
    /// Sent to the model at startup.
    #[must_use]
    pub fn loaded(&self) -> bool {
        self.shadowed_by.is_none() && !self.hidden
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
pub struct NotLoaded {
    pub family: Family,
    pub file: PathBuf,
    pub reason: String,
}

/// What one host loads at startup from one vantage (its working directory).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Startup {
    pub entries: Vec<Entry>,
    pub not_loaded: Vec<NotLoaded>,
    /// Problems of the files read, located (the diagnostics of §10.4).
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read.
    pub files: Vec<PathBuf>,
}

impl Startup {
    /// The entries of one family, in the host's order.
    pub fn of(&self, f: Family) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.family == f)
    }
}

/// The hosts whose families are simulated.
pub const HOSTS: [Host; 3] = [Host::ClaudeCode, Host::Codex, Host::Gemini];

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
        } else if e.hidden {
            file.push_str(" (disable-model-invocation: true)");
        }
        rows.push([
            e.family.as_str().to_string(),
            e.name.clone(),
            bytes,
            e.family.channel().to_string(),
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
    let bytes: u64 = s.entries.iter().map(Entry::bytes).sum();
    let _ = writeln!(
        out,
        "total: {bytes} bytes (~{} tokens); MCP tool definitions come from each server when it connects and are not counted",
        bytes.div_ceil(4)
    );
    out
}

/// The family a path belongs to for `host` (the language server's file filter).
#[must_use]
pub fn family_of(path: &Path) -> Option<Family> {
    let name = path.file_name()?.to_str()?;
    if name == ".mcp.json" {
        return Some(Family::Mcp);
    }
    if !name.ends_with(".md") {
        return None;
    }
    for dir in path.ancestors().skip(1) {
        let n = dir.file_name().and_then(|n| n.to_str());
        if let Some(kind @ ("agents" | "commands")) = n
            && dir.parent().and_then(Path::file_name) == Some(std::ffi::OsStr::new(".claude"))
        {
            return Some(if kind == "agents" {
                Family::Agent
            } else {
                Family::Command
            });
        }
        if n == Some(".claude") {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests;
