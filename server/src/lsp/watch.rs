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
/// directory of the workspace (and the debouncer's file-id cache stats every file), which on a
/// large monorepo takes tens of milliseconds that must not delay `initialized` and the
/// notifications queued behind it (house rule: heavy work off the handlers).
fn spawn_server_watcher(folders: Vec<PathBuf>, tx: UnboundedSender<Job>, disk: Disk) {
    let spawned = std::thread::Builder::new()
        .name("alisio-watch-setup".into())
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

fn start_server_watcher(folders: &[PathBuf], tx: UnboundedSender<Job>, disk: &Disk) {
    use notify::RecursiveMode;
    use notify_debouncer_full::{NoCache, new_debouncer_opt};
    let tx2 = tx.clone();
    let disk2 = disk.clone();
    // No file-id cache: it stats every file of the workspace when a watch is added (seconds and
    // megabytes on a large tree) to track renames, and a pass recomputes everything anyway.
    let debouncer = new_debouncer_opt::<_, notify::RecommendedWatcher, NoCache>(
        Duration::from_millis(150),
        None,
        move |res: notify_debouncer_full::DebounceEventResult| {
            if let Ok(events) = res {
                // Reads (the passes' own listings and reads are reported as access events)
                // change nothing.
                let paths: Vec<PathBuf> = events
                    .iter()
                    .filter(|e| !matches!(e.kind, notify::EventKind::Access(_)))
                    .flat_map(|e| e.paths.iter())
                    .filter(|p| {
                        !p.components()
                            .any(|c| c.as_os_str() == "node_modules" || c.as_os_str() == "target")
                            && relevant(p)
                    })
                    .cloned()
                    .collect();
                if !paths.is_empty() {
                    disk2.changed(&paths);
                    let _ = tx2.send(Job::Recompute);
                }
            }
        },
        NoCache::new(),
        notify::Config::default(),
    );
    let mut debouncer = match debouncer {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!("cannot start the file watcher: {e}");
            return;
        }
    };
    for f in folders {
        if let Err(e) = debouncer.watch(f, RecursiveMode::Recursive) {
            tracing::warn!("cannot watch {}: {e}", f.display());
        }
    }
    // The debouncer stops when dropped: keep it for the life of the process.
    std::mem::forget(debouncer);
    // Changes made before the watches were in place were never reported: the skills modified
    // since the start at once, and one more pass now (issue 14, "no file is missed at start");
    // the worker merges it with a pass under way.
    disk.missed(folders);
    let _ = tx.send(Job::Recompute);
}
