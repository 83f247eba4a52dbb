//! The real-client conformance harness (docs/spec/hosts.md §0): a case is a workspace, a cwd,
//! optional user files and settings, a model script and a client; [`run_case`] lays the tree
//! out in a temporary directory, runs the client offline in a network namespace against the
//! fake model server ([`netns`], [`model`]), and hands the recorded requests to the case's
//! check (by default [`expect::instructions`]: what the client delivered against
//! `alisio-ls context explain --json`).
//!
//! Reusable by other suites: build [`Case`]s (with [`Case::check`] for a custom comparison)
//! and pass them to [`runner::main`].

#![allow(
    dead_code,
    reason = "a shared module: not every suite uses every helper"
)]

pub mod clients;
pub mod expect;
pub mod extract;
pub mod http;
pub mod model;
pub mod netns;
pub mod runner;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use clients::Client;
pub use model::{Script, Turn};

/// What a check gets: the laid-out tree and what the run produced.
pub struct Ctx<'a> {
    pub case: &'a Case,
    /// Canonical temporary directory holding `ws/` and `home/`.
    pub base: PathBuf,
    pub ws: PathBuf,
    pub home: PathBuf,
    /// The client's working directory (absolute).
    pub cwd: PathBuf,
    pub client_version: String,
    pub outcome: netns::Outcome,
}

impl Ctx<'_> {
    /// An absolute path from a case path (`ws/…`, `home/…`).
    #[must_use]
    pub fn abs(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
}

/// A custom comparison.
pub type Check = Arc<dyn Fn(&Ctx<'_>) -> Result<(), String> + Send + Sync>;

/// One conformance case.
#[derive(Clone)]
pub struct Case {
    pub name: String,
    pub client: Client,
    /// `(path, content)`: paths start with `ws/` (the workspace, which has `.git/` unless
    /// [`Case::no_git`]) or `home/` (the temporary `HOME`). `{base}`, `{ws}` and `{home}` in a
    /// content are replaced by the absolute directories.
    pub files: Vec<(String, String)>,
    /// `(link, target)`: a symbolic link (the target as written, placeholders replaced).
    pub links: Vec<(String, String)>,
    pub dirs: Vec<String>,
    /// The client's working directory, a case path (`ws`, `ws/pkg`).
    pub cwd: String,
    pub prompt: String,
    pub script: Script,
    /// A file the scripted model reads with the client's read tool (a case path); the nested
    /// files the client then attaches are compared with explain for that file.
    pub read: Option<String>,
    pub git: bool,
    /// Extra lines of Codex's `config.toml` (the fake provider is appended).
    pub codex_config: String,
    /// Gemini `settings.json` keys (API-key auth is added).
    pub gemini_settings: serde_json::Value,
    /// Claude Code `~/.claude/settings.json`, when set.
    pub claude_settings: Option<serde_json::Value>,
    /// `.alisio/config.json` of the workspace (the same settings in alisio-ls's keys), when set.
    pub alisio_config: Option<serde_json::Value>,
    pub check: Option<Check>,
    pub timeout_ms: u64,
    /// The client is expected to stop before any request (a configuration it rejects).
    pub no_request: bool,
}

impl Case {
    #[must_use]
    pub fn new(client: Client, name: &str) -> Self {
        Self {
            name: name.to_string(),
            client,
            files: Vec::new(),
            links: Vec::new(),
            dirs: Vec::new(),
            cwd: "ws".into(),
            prompt: "hello".into(),
            script: Script::text("OK"),
            read: None,
            git: true,
            codex_config: String::new(),
            gemini_settings: serde_json::json!({}),
            claude_settings: None,
            alisio_config: None,
            check: None,
            timeout_ms: 60_000,
            no_request: false,
        }
    }

    #[must_use]
    pub fn file(mut self, path: &str, content: &str) -> Self {
        self.files.push((path.into(), content.into()));
        self
    }

    #[must_use]
    pub fn link(mut self, link: &str, target: &str) -> Self {
        self.links.push((link.into(), target.into()));
        self
    }

    #[must_use]
    pub fn dir(mut self, path: &str) -> Self {
        self.dirs.push(path.into());
        self
    }

    #[must_use]
    pub fn cwd(mut self, cwd: &str) -> Self {
        self.cwd = cwd.into();
        self
    }

    /// The model reads `path` (a case path) with the client's read tool, then answers.
    #[must_use]
    pub fn read(mut self, path: &str) -> Self {
        self.read = Some(path.into());
        self
    }

    #[must_use]
    pub fn no_git(mut self) -> Self {
        self.git = false;
        self
    }

    #[must_use]
    pub fn codex_config(mut self, toml: &str) -> Self {
        self.codex_config = toml.into();
        self
    }

    #[must_use]
    pub fn gemini_settings(mut self, v: serde_json::Value) -> Self {
        self.gemini_settings = v;
        self
    }

    #[must_use]
    pub fn claude_settings(mut self, v: serde_json::Value) -> Self {
        self.claude_settings = Some(v);
        self
    }

    #[must_use]
    pub fn alisio_config(mut self, v: serde_json::Value) -> Self {
        self.alisio_config = Some(v);
        self
    }

    #[must_use]
    pub fn script(mut self, s: Script) -> Self {
        self.script = s;
        self
    }

    /// The client stops before sending a request: the check runs on its exit and output.
    #[must_use]
    pub fn no_request(mut self) -> Self {
        self.no_request = true;
        self
    }

    /// The prompt given to the client (default `hello`).
    #[must_use]
    pub fn prompt(mut self, p: &str) -> Self {
        self.prompt = p.to_string();
        self
    }

    #[must_use]
    pub fn check(mut self, c: Check) -> Self {
        self.check = Some(c);
        self
    }

    /// The full test name (`claude_code::name`).
    #[must_use]
    pub fn full_name(&self) -> String {
        format!("{}::{}", self.client.host().replace('-', "_"), self.name)
    }
}

/// Replaces the placeholders of a case text.
#[must_use]
pub fn fill(text: &str, base: &Path) -> String {
    text.replace("{ws}", &base.join("ws").display().to_string())
        .replace("{home}", &base.join("home").display().to_string())
        .replace("{base}", &base.display().to_string())
}

/// Why a case did not run (a skip) or what failed.
pub enum Verdict {
    Pass,
    Skip(String),
    Fail(String),
}

/// Lays out `case`, runs its client and its check.
#[must_use]
pub fn run_case(case: &Case) -> Verdict {
    let inst = match clients::find(case.client) {
        Ok(i) => i,
        Err(reason) => return Verdict::Skip(reason),
    };
    if let Err(reason) = netns::unshare_args() {
        return Verdict::Skip(format!("no network namespace: {reason}"));
    }
    let tmp = match tempfile::tempdir() {
        Ok(t) => t,
        Err(e) => return Verdict::Fail(format!("tempdir: {e}")),
    };
    let base = match tmp.path().canonicalize() {
        Ok(b) => b,
        Err(e) => return Verdict::Fail(format!("canonicalize: {e}")),
    };
    match runner::lay_out(case, &base) {
        Ok(()) => {}
        Err(e) => return Verdict::Fail(e),
    }
    let ctx = match runner::run_client(case, &inst, &base) {
        Ok(c) => c,
        Err(e) => return Verdict::Fail(e),
    };
    let result = match &case.check {
        Some(check) => check(&ctx),
        None => expect::instructions(&ctx),
    };
    match result {
        Ok(()) => Verdict::Pass,
        Err(e) => {
            if std::env::var_os("ALISIO_REAL_KEEP").is_some() {
                let kept = tmp.keep();
                Verdict::Fail(format!("{e}\n(tree kept in {})", kept.display()))
            } else {
                Verdict::Fail(e)
            }
        }
    }
}
