//! File watching: client-side through dynamic registration of `workspace/didChangeWatchedFiles`
//! when the client offers it, else a server-side notify watcher (Neovim on Linux offers none).
//! This module only reports that something changed; `server` decides what to recompute.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::jobs::{Job, lock};
use super::state::{State, WatcherMode};

/// Glob patterns of the files whose changes matter: instruction files, near misses, skills and
/// configuration. Directories are watched too (`**/` creations and deletions).
pub const GLOBS: &[&str] = &[
    "**/*.md",
    "**/*.MD",
    "**/*.mdc",
    "**/.cursorrules",
    "**/.alisio/config.json",
    "**/SKILL.md",
    "**/.mcp.json",
    "**/.gemini/settings.json",
    "**/*.toml",
    "**/.git",
];

/// Starts watching according to the `watcher` option and the client's capabilities.
pub fn start(client: Client, state: Arc<Mutex<State>>, tx: UnboundedSender<Job>) {
    let (mode, dynamic, folders) = {
        let st = lock(&state);
        (
            st.options.watcher,
            st.caps.dynamic_watch,
            st.folders.clone(),
        )
    };
    let disk = Disk {
        client: client.clone(),
        state: state.clone(),
        runtime: tokio::runtime::Handle::current(),
    };
    let use_client = match mode {
        WatcherMode::Off => return,
        WatcherMode::Client => true,
        WatcherMode::Server => false,
        WatcherMode::Auto => dynamic,
    };
    if use_client {
        let fallback = mode == WatcherMode::Auto;
        tokio::spawn(async move {
            let watchers = GLOBS
                .iter()
                .map(|g| FileSystemWatcher {
                    glob_pattern: GlobPattern::String((*g).to_string()),
                    kind: None,
                })
                .collect();
            let reg = Registration {
                id: "alisio-ls/watch".to_string(),
                method: "workspace/didChangeWatchedFiles".to_string(),
                register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                    watchers,
                })
                .ok(),
            };
            match tokio::time::timeout(
                Duration::from_secs(10),
                client.register_capability(vec![reg]),
            )
            .await
            {
                // Events before the registration are lost: the skills changed since the start
                // at once, and one pass, once it is in place.
                Ok(Ok(())) => {
                    let f = folders.clone();
                    let d = disk.clone();
                    let _ = tokio::task::spawn_blocking(move || d.missed(&f)).await;
                    let _ = tx.send(Job::Recompute);
                }
                other => {
                    tracing::warn!("client did not accept file watching registration: {other:?}");
                    // `auto` falls back to watching on the server side.
                    if fallback {
                        spawn_server_watcher(folders, tx, disk);
                    }
                }
            }
        });
        return;
    }
    spawn_server_watcher(folders, tx, disk);
}

/// What a watcher needs to publish changed skills on their own (`lsp::disk`) from its thread.
#[derive(Clone)]
struct Disk {
    client: Client,
    state: Arc<Mutex<State>>,
    runtime: tokio::runtime::Handle,
}

impl Disk {
    fn changed(&self, paths: &[PathBuf]) {
        let files = super::disk::skill_files(paths);
        if !files.is_empty() {
            let _guard = self.runtime.enter();
            super::disk::spawn(&self.client, &self.state, files);
        }
    }

    /// Skills modified since `initialize` (with slack for the kernel's coarse file times),
    /// which changed before the watches were in place.
    fn missed(&self, folders: &[PathBuf]) {
        let Some(since) = lock(&self.state).started else {
            return;
        };
        let since = since
            .checked_sub(Duration::from_millis(20))
            .unwrap_or(since);
        let files = super::disk::modified_since(folders, since);
        if !files.is_empty() {
            let _guard = self.runtime.enter();
            super::disk::spawn(&self.client, &self.state, files);
        }
    }
}

/// Sets the server-side watcher up on a thread of its own: adding recursive watches lists every
/// directory of the workspace, which on a large monorepo takes tens of milliseconds that must
/// not delay `initialized` and the notifications queued behind it (house rule: heavy work off
/// the handlers). The same thread then gathers the watcher's changes into batches.
fn spawn_server_watcher(folders: Vec<PathBuf>, tx: UnboundedSender<Job>, disk: Disk) {
    let spawned = std::thread::Builder::new()
        .name("alisio-watch".into())
        .spawn(move || start_server_watcher(&folders, tx, &disk));
    if let Err(e) = spawned {
        tracing::warn!("cannot start the file watcher: {e}");
    }
}

fn relevant(path: &std::path::Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".md")
        || lower.ends_with(".mdc")
        || name == ".cursorrules"
        || name == "config.json"
        || name == ".mcp.json"
        || lower.ends_with(".toml")
        || name == "settings.json"
        || name == ".claude.json"
        || name == ".git"
        || !name.contains('.')
}

/// How long the server-side watcher waits after a change for more (the editor's save, a tool
/// writing several files): a batch ends after this much quiet.
const QUIET: Duration = Duration::from_millis(150);
/// A batch ends this long after its first change even if changes keep coming, so a steady
/// stream of writes (a build) cannot hold the publication back for ever.
const BATCH_MAX: Duration = Duration::from_secs(1);
/// Changed paths queued between the watcher's event thread and this module's thread. When the
/// queue is full the paths that do not fit are not published on their own; the pass the batch
/// asks for covers them.
const QUEUE: usize = 1024;

/// What the notify event thread tells the batching thread.
enum Change {
    /// A path whose change matters (not a read, not under `node_modules` or `target`).
    Path(PathBuf),
    /// Something changed that has no usable path: the kernel's queue overflowed, or changes
    /// did not fit in ours. Only a pass can tell what.
    Unknown,
}

/// A notify event's paths that matter, or `None` for an event that changes nothing.
fn changes(e: &notify::Event) -> Option<Vec<Change>> {
    // Reads (the passes' own listings and reads are reported as access events) change nothing.
    if matches!(e.kind, notify::EventKind::Access(_)) {
        return None;
    }
    if e.need_rescan() {
        return Some(vec![Change::Unknown]);
    }
    let paths: Vec<Change> = e
        .paths
        .iter()
        .filter(|p| {
            !p.components()
                .any(|c| c.as_os_str() == "node_modules" || c.as_os_str() == "target")
                && relevant(p)
        })
        .map(|p| Change::Path(p.clone()))
        .collect();
    (!paths.is_empty()).then_some(paths)
}

/// The server-side watcher: notify's raw watcher, whose callback (on notify's event thread) keeps
/// only the changes that matter, and this thread, which gathers them into batches (150 ms of
/// quiet) and publishes each batch. Issue 25: notify's inotify backend watches `IN_OPEN`, so
/// every directory listing and file read of a pass is an event; the debouncer crate used before
/// queued each of them (tens of thousands per pass, several megabytes held by two threads'
/// allocator arenas) only for this module to drop them as reads.
fn start_server_watcher(folders: &[PathBuf], tx: UnboundedSender<Job>, disk: &Disk) {
    use notify::{RecursiveMode, Watcher as _};
    use std::sync::mpsc::{RecvTimeoutError, TrySendError, sync_channel};
    let (ctx, crx) = sync_channel::<Change>(QUEUE);
    let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let Some(changes) = res.ok().as_ref().and_then(changes) else {
            return;
        };
        for c in changes {
            match ctx.try_send(c) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => {
                    // The batching thread is behind: it has changes to read and will ask for a
                    // pass, which sees this one too.
                    break;
                }
                Err(TrySendError::Disconnected(_)) => return,
            }
        }
    });
    let mut watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!("cannot start the file watcher: {e}");
            return;
        }
    };
    for f in folders {
        if let Err(e) = watcher.watch(f, RecursiveMode::Recursive) {
            tracing::warn!("cannot watch {}: {e}", f.display());
        }
    }
    // Changes made before the watches were in place were never reported: the skills modified
    // since the start at once, and one more pass now (issue 14, "no file is missed at start");
    // the worker merges it with a pass under way.
    disk.missed(folders);
    if tx.send(Job::Recompute).is_err() {
        return;
    }
    // This thread owns the watcher (dropping it stops the watches) for the life of the server.
    let mut batch: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
    while let Ok(first) = crx.recv() {
        let started = std::time::Instant::now();
        let add = |c: Change, batch: &mut std::collections::BTreeSet<PathBuf>| {
            if let Change::Path(p) = c {
                batch.insert(p);
            }
        };
        add(first, &mut batch);
        loop {
            let left = BATCH_MAX.saturating_sub(started.elapsed());
            if left.is_zero() {
                break;
            }
            match crx.recv_timeout(QUIET.min(left)) {
                Ok(c) => add(c, &mut batch),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        let paths: Vec<PathBuf> = std::mem::take(&mut batch).into_iter().collect();
        disk.changed(&paths);
        if tx.send(Job::Recompute).is_err() {
            break;
        }
    }
    drop(watcher);
}
