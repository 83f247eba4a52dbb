//! Instruction files (AGENTS.md and friends): which files apply to a path for each host
//! (spec/instructions.md §1–§4), what the model receives (spec/instructions.md §2.7), the explain object (spec/instructions.md §2.9), the
//! diagnostics of spec/instructions.md §5 and the editor strings of spec/instructions.md §6.
//!
//! Everything here is plain data in, plain data out: an [`Fs`](alisio_base::workspace::Fs) for the
//! disk and the resolved [`Settings`](alisio_base::config::Settings); no printing, no protocol types.
//! The entry points are [`explain::explain`], [`diagnostics::analyze`], [`model_text::section`],
//! [`attach::attachment`] and the functions of [`lens`].

pub mod attach;
pub mod budget;
pub mod chain;
pub mod claude;
pub mod claude_text;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod diagnostics;
pub mod explain;
pub mod fixes;
pub mod gemini;
pub mod host_files;
pub mod host_lens;
pub mod hover_hosts;
pub mod init;
pub mod lens;
pub mod model_text;
pub mod read;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use alisio_base::config::{Host, Settings};
use alisio_base::workspace::{Env, Fs};

pub use read::FileText;

/// spec/instructions.md §2.5 step 2: the per-file limit of host `alisio`, in bytes.
pub const PER_FILE_LIMIT: usize = 262_144;
/// spec/instructions.md §4: Claude Code skips a file larger than this (4 MiB).
pub const CLAUDE_SKIP_LIMIT: u64 = 4_194_304;

/// The client version whose behaviour a host's simulation reproduces, measured with the real
/// client by the conformance suite (`tests/real`, spec/hosts.md §0); `None` for the hosts
/// that follow source code or documentation only. `explain --json` reports it as `hostVersion`.
#[must_use]
pub const fn host_version(host: Host) -> Option<&'static str> {
    match host {
        Host::ClaudeCode => Some("2.1.332"),
        Host::Codex => Some("0.171.0"),
        Host::Gemini => Some("0.61.0"),
        Host::Alisio | Host::Copilot | Host::Cursor => None,
    }
}

/// The `kind` of a listed file (spec/interfaces.md §1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    Override,
    Agents,
    Legacy,
    Claude,
    Fallback,
    ClaudeLocal,
    Rule,
    CopilotInstructions,
    Instructions,
    Gemini,
    CursorRule,
    Cursorrules,
}

impl FileKind {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Override => "override",
            Self::Agents => "agents",
            Self::Legacy => "legacy",
            Self::Claude => "claude",
            Self::Fallback => "fallback",
            Self::ClaudeLocal => "claude-local",
            Self::Rule => "rule",
            Self::CopilotInstructions => "copilot-instructions",
            Self::Instructions => "instructions",
            Self::Gemini => "gemini",
            Self::CursorRule => "cursor-rule",
            Self::Cursorrules => "cursorrules",
        }
    }
}

/// The `scope` of a listed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileScope {
    Managed,
    Global,
    Ancestor,
    Project,
}

impl FileScope {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Managed => "managed",
            Self::Global => "global",
            Self::Ancestor => "ancestor",
            Self::Project => "project",
        }
    }
}

/// What the budget did to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Truncation {
    None,
    Beginning,
    End,
    Dropped,
}

impl Truncation {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Beginning => "beginning",
            Self::End => "end",
            Self::Dropped => "dropped",
        }
    }
}

/// When a file is loaded (claude-code path rules load on read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Load {
    Startup,
    OnRead,
}

impl Load {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Startup => "startup",
            Self::OnRead => "on-read",
        }
    }
}

/// How a listed file reaches the model (hosts.md H3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeliveryMode {
    Always,
    Attached,
    OnAccess,
    Listed,
    AgentRequested,
    Manual,
}

impl DeliveryMode {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Always => "always",
            Self::Attached => "attached",
            Self::OnAccess => "on-access",
            Self::Listed => "listed",
            Self::AgentRequested => "agent-requested",
            Self::Manual => "manual",
        }
    }
}

/// A file a host found but does not deliver (hosts.md H4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLoaded {
    pub path: PathBuf,
    pub reason: String,
}

/// One `@import` of a claude-code file (spec/instructions.md §4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Import {
    pub path: PathBuf,
    pub depth: u32,
    pub bytes: u64,
    pub approval: bool,
    /// claude-code: SHA-256 of the text delivered for the import (`None` when it is not
    /// delivered: it waits for an approval).
    pub sha256: Option<String>,
}

/// One file of a startup list L, with the budget applied.
#[derive(Clone, Debug)]
pub struct ListedFile {
    /// Absolute path (as found: canonical below the workspace root).
    pub path: PathBuf,
    pub scope: FileScope,
    pub kind: FileKind,
    pub file: Arc<FileText>,
    /// Size charged (spec/instructions.md §2.5 step 6; raw bytes for codex).
    pub bytes: usize,
    pub kept_bytes: usize,
    pub truncation: Truncation,
    pub load: Load,
    /// `false` for the codex global file (never charged).
    pub charged: bool,
    pub imports: Vec<Import>,
    /// claude-code only.
    pub stripped_bytes: Option<usize>,
    /// hosts.md H3.
    pub delivery: DeliveryMode,
    /// Why a `listed` file is not attached (hosts.md CP14).
    pub reason: Option<String>,
    /// gemini: the text Gemini CLI delivers for the file (imports expanded, trimmed; hosts.md
    /// GM14), set by the host's list.
    pub delivered: Option<String>,
}

impl ListedFile {
    /// A fresh entry, not yet budgeted (kept in full).
    #[must_use]
    pub fn new(path: PathBuf, scope: FileScope, kind: FileKind, file: Arc<FileText>) -> Self {
        let bytes = file.size();
        Self {
            path,
            scope,
            kind,
            file,
            bytes,
            kept_bytes: bytes,
            truncation: Truncation::None,
            load: Load::Startup,
            charged: true,
            imports: Vec::new(),
            stripped_bytes: None,
            delivery: DeliveryMode::Always,
            reason: None,
            delivered: None,
        }
    }

    /// The text that reaches the model (host `alisio`: the end of the text when cut at the
    /// beginning; codex: the raw prefix, decoded lossily).
    #[must_use]
    pub fn kept_text(&self) -> String {
        if self.file.empty {
            return String::new();
        }
        match self.truncation {
            Truncation::Dropped => String::new(),
            Truncation::None => self.file.text.clone(),
            Truncation::Beginning => {
                let start = self.bytes.saturating_sub(self.kept_bytes);
                self.file.text.get(start..).unwrap_or_default().to_string()
            }
            Truncation::End => {
                let raw = if self.file.raw.is_empty() {
                    self.file.text.as_bytes()
                } else {
                    &self.file.raw
                };
                String::from_utf8_lossy(raw.get(..self.kept_bytes).unwrap_or(raw)).into_owned()
            }
        }
    }
}

/// A chain directory excluded by spec/instructions.md §2.4 (reason `symlink`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: &'static str,
}

/// Everything resolution needs besides the target: the disk, the environment, the workspace
/// root, the effective settings and the host.
#[derive(Clone, Copy)]
pub struct Setup<'a> {
    pub fs: &'a dyn Fs,
    pub env: &'a Env,
    /// Canonical workspace root.
    pub root: &'a Path,
    pub settings: &'a Settings,
    pub host: Host,
    /// The Claude Code managed file (spec/instructions.md §4). `None`: no managed file. Injectable so tests never
    /// read `/etc`.
    pub claude_managed: Option<&'a Path>,
    /// claude-code: the directory the session started in, when explain is asked what a session
    /// started there attaches on reading the target (`context explain --session-dir`); `None`:
    /// the session starts in the target's directory.
    pub claude_session: Option<&'a Path>,
}

#[cfg(test)]
impl<'a> Setup<'a> {
    /// A setup for tests: no Claude Code managed file.
    pub fn for_test(
        fs: &'a dyn Fs,
        env: &'a Env,
        root: &'a Path,
        settings: &'a Settings,
        host: Host,
    ) -> Self {
        Self {
            fs,
            env,
            root,
            settings,
            host,
            claude_managed: None,
            claude_session: None,
        }
    }
}

/// The platform's Claude Code managed file (spec/instructions.md §4).
#[must_use]
pub fn default_claude_managed_file() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode/CLAUDE.md")
    } else if cfg!(windows) {
        PathBuf::from(r"C:\Program Files\ClaudeCode\CLAUDE.md")
    } else {
        PathBuf::from("/etc/claude-code/CLAUDE.md")
    }
}

/// A directory listing error that is not "not found" or "permission denied": explain and check
/// fail with exit 2 (spec/instructions.md §2.9).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListError {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for ListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: cannot list directory: {}",
            self.path.display(),
            self.message
        )
    }
}

/// Tokens as the editor shows them: `ceil(bytes / 4)` (spec/instructions.md §6).
#[must_use]
pub const fn tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// `directory` or `directories`.
#[must_use]
pub fn directories(n: usize) -> String {
    if n == 1 {
        format!("{n} directory")
    } else {
        format!("{n} directories")
    }
}
