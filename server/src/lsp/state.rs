//! Server state behind one `std::sync::Mutex`: open documents, workspace folders, the
//! negotiated encoding, client capabilities and options. Handlers mutate it synchronously
//! (never across an `.await`) and take [`Snapshot`]s for work done elsewhere.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::documents::Document;
use alisio_base::config::{self, Host, Profile};
use alisio_base::text::Encoding;

/// `watcher` option (spec/interfaces.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WatcherMode {
    #[default]
    Auto,
    Client,
    Server,
    Off,
}

/// Options that are not configuration keys of `config.json`: they come from the client only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    pub trusted: bool,
    pub host: Host,
    pub profile: Profile,
    pub watcher: WatcherMode,
    pub lens_on_every_file: bool,
    /// `audit.enabled`: audit the workspace's recent sessions (spec/interfaces.md §4.6).
    pub audit_enabled: bool,
    /// `audit.sessions`: how many recent session files per client.
    pub audit_sessions: usize,
}

/// The default of `audit.sessions`.
pub const AUDIT_SESSIONS: usize = 5;

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            trusted: false,
            host: Host::default(),
            profile: Profile::default(),
            watcher: WatcherMode::default(),
            lens_on_every_file: false,
            audit_enabled: true,
            audit_sessions: AUDIT_SESSIONS,
        }
    }
}

impl ClientOptions {
    /// Reads the client-only options from initialization options or the `alisio` section of
    /// `didChangeConfiguration`; absent keys keep `base`. Returns the problems found.
    pub fn update(&mut self, v: &Value) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(t) = v.get("trusted") {
            match t {
                Value::Bool(b) => self.trusted = *b,
                Value::Null => {}
                other => problems.push(format!("trusted must be true or false; got {other}")),
            }
        }
        if let Some(h) = v.get("host").filter(|h| !h.is_null()) {
            match serde_json::from_value::<Host>(h.clone()) {
                Ok(h) => self.host = h,
                Err(_) => problems.push(format!(
                    "host must be \"alisio\", \"codex\", \"claude-code\", \"copilot\", \"gemini\" or \"cursor\"; got {h}"
                )),
            }
        }
        if let Some(p) = v.get("profile").filter(|p| !p.is_null()) {
            match serde_json::from_value::<Profile>(p.clone()) {
                Ok(p) => self.profile = p,
                Err(_) => problems.push(format!(
                    "profile must be \"alisio\", \"spec\", \"codex\" or \"claude-code\"; got {p}"
                )),
            }
        }
        if let Some(w) = v.get("watcher").filter(|w| !w.is_null()) {
            match w.as_str() {
                Some("auto") => self.watcher = WatcherMode::Auto,
                Some("client") => self.watcher = WatcherMode::Client,
                Some("server") => self.watcher = WatcherMode::Server,
                Some("off") => self.watcher = WatcherMode::Off,
                _ => problems.push(format!(
                    "watcher must be \"auto\", \"client\", \"server\" or \"off\"; got {w}"
                )),
            }
        }
        if let Some(b) =
            config::lookup(v, "codeLens.instructionsOnEveryFile").filter(|b| !b.is_null())
        {
            match b {
                Value::Bool(b) => self.lens_on_every_file = *b,
                other => problems.push(format!(
                    "codeLens.instructionsOnEveryFile must be true or false; got {other}"
                )),
            }
        }
        if let Some(b) = config::lookup(v, "audit.enabled").filter(|b| !b.is_null()) {
            match b {
                Value::Bool(b) => self.audit_enabled = *b,
                other => problems.push(format!("audit.enabled must be true or false; got {other}")),
            }
        }
        if let Some(n) = config::lookup(v, "audit.sessions").filter(|n| !n.is_null()) {
            match n.as_u64().filter(|n| (1..=50).contains(n)) {
                Some(n) => self.audit_sessions = usize::try_from(n).unwrap_or(AUDIT_SESSIONS),
                None => problems.push(format!(
                    "audit.sessions must be an integer from 1 to 50; got {n}"
                )),
            }
        }
        problems
    }
}

/// What the client can do.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientCaps {
    pub dynamic_watch: bool,
    pub rename_files: bool,
    pub work_done_progress: bool,
    /// `workspace.codeLens.refreshSupport`.
    pub lens_refresh: bool,
}

#[derive(Default)]
pub struct State {
    pub docs: HashMap<PathBuf, Document>,
    pub folders: Vec<PathBuf>,
    pub encoding: Encoding,
    pub caps: ClientCaps,
    pub options: ClientOptions,
    /// The client's configuration JSON (initialization options merged with
    /// `didChangeConfiguration`), as a configuration layer.
    pub client_config: Value,
    /// `--config FILE` given to `serve`.
    pub extra_config: Option<PathBuf>,
    /// Files whose last published diagnostics were non-empty.
    pub published: BTreeSet<PathBuf>,
    /// Set once the first workspace scan has ended: diagnostics of unopened files are
    /// published only from then on.
    pub scanned: bool,
    /// A pass was asked for before the first scan ended (a watcher event, the watcher being
    /// armed): one more pass runs when it ends, so nothing changed meanwhile is missed.
    pub rescan: bool,
    pub env: alisio_base::workspace::Env,
    /// Directories whose skill scan limit was already shown (once per discovery, spec/skills.md §6.1).
    pub shown_scan_limits: BTreeSet<PathBuf>,
    /// The per-folder results of the last pass (lenses, hovers and actions read them).
    pub results: Arc<HashMap<PathBuf, Arc<super::results::FolderResult>>>,
    /// Disk changes published on their own (`lsp::disk`): the last number taken, the number of
    /// each file's publication a pass has not yet covered, and the highest number a published
    /// pass covered.
    pub disk_seq: u64,
    pub disk_published: HashMap<PathBuf, u64>,
    pub passed_seq: u64,
    /// When `initialize` arrived: files modified since then are swept once the watcher is
    /// armed.
    pub started: Option<std::time::SystemTime>,
    /// The last audit of recent sessions, per folder (`lsp::audit`), whether one is running, and
    /// whether another was asked for meanwhile.
    pub audit: Audits,
    pub audit_running: bool,
    pub audit_again: bool,
    /// Whether an audit has ended since the server started (until then a request audits).
    pub audit_done: bool,
}

/// The last audit of each workspace folder.
pub type Audits = Arc<HashMap<PathBuf, Arc<super::results::FolderAudit>>>;

/// An immutable view for work done off the lock.
#[derive(Clone)]
pub struct Snapshot {
    pub buffers: alisio_base::workspace::Buffers,
    /// Versions of the open documents when the snapshot was taken.
    pub versions: Arc<HashMap<PathBuf, i32>>,
    pub folders: Vec<PathBuf>,
    pub encoding: Encoding,
    pub options: ClientOptions,
    pub client_config: Value,
    pub extra_config: Option<PathBuf>,
    pub env: alisio_base::workspace::Env,
    pub caps: ClientCaps,
    pub results: Arc<HashMap<PathBuf, Arc<super::results::FolderResult>>>,
    /// `State::disk_seq` when the snapshot was taken.
    pub disk_seq: u64,
    pub audit: Audits,
}

impl State {
    pub fn snapshot(&mut self) -> Snapshot {
        let mut buffers = HashMap::with_capacity(self.docs.len());
        let mut versions = HashMap::with_capacity(self.docs.len());
        for (p, d) in &self.docs {
            let b: Arc<dyn alisio_base::workspace::Buffer> = Arc::new(d.buffer());
            buffers.insert(p.clone(), b);
            versions.insert(p.clone(), d.version);
        }
        Snapshot {
            buffers: Arc::new(buffers),
            versions: Arc::new(versions),
            folders: self.folders.clone(),
            encoding: self.encoding,
            options: self.options.clone(),
            client_config: self.client_config.clone(),
            extra_config: self.extra_config.clone(),
            env: self.env.clone(),
            caps: self.caps,
            results: self.results.clone(),
            disk_seq: self.disk_seq,
            audit: self.audit.clone(),
        }
    }
}

impl Snapshot {
    /// The innermost workspace folder containing `path`; for a file outside every folder, its
    /// directory (spec/instructions.md §1, "cwd").
    #[must_use]
    pub fn folder_of(&self, path: &Path) -> PathBuf {
        self.folders
            .iter()
            .filter(|f| path.starts_with(f))
            .max_by_key(|f| f.components().count())
            .cloned()
            .unwrap_or_else(|| {
                path.parent()
                    .map_or_else(|| path.to_path_buf(), Path::to_path_buf)
            })
    }

    /// The text of a file: the open buffer, else the first 4 MiB on disk (lossy) unless the path
    /// is a symlink, else `None`.
    #[must_use]
    pub fn text_of(&self, path: &Path) -> Option<Arc<str>> {
        if let Some(t) = self.buffers.get(path) {
            let bytes = alisio_base::workspace::buffer_prefix(t.as_ref(), u64::MAX);
            let text = String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            return Some(Arc::from(text));
        }
        // A file that is not open is read only when it is itself a regular file: a symlink may
        // point out of the workspace (the rules never follow one for host alisio either).
        if std::fs::symlink_metadata(path)
            .ok()?
            .file_type()
            .is_symlink()
        {
            return None;
        }
        // Headings of a file that is not open: the part the rules read is enough.
        let bytes = alisio_base::workspace::Fs::read_prefix(
            &alisio_base::workspace::DiskFs,
            path,
            alisio_rules::instructions::CLAUDE_SKIP_LIMIT,
        )
        .ok()?;
        Some(Arc::from(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// A file system that sees open buffers.
    #[must_use]
    pub fn fs(&self) -> alisio_base::workspace::OverlayFs<alisio_base::workspace::DiskFs> {
        alisio_base::workspace::OverlayFs {
            inner: alisio_base::workspace::DiskFs,
            buffers: self.buffers.clone(),
        }
    }
}
