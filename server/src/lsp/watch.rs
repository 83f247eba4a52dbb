//! File watching: client-side through dynamic registration of `workspace/didChangeWatchedFiles`
//! when the client offers it, else a server-side notify watcher (Neovim on Linux offers none).
//! This module only reports that something changed; `server` decides what to recompute.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::*;

use super::server::{Job, lock};
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
                Ok(Ok(())) => {}
                other => {
                    tracing::warn!("client did not accept file watching registration: {other:?}");
                    // `auto` falls back to watching on the server side.
                    if fallback {
                        spawn_server_watcher(folders, tx);
                    }
                }
            }
        });
        return;
    }
    spawn_server_watcher(folders, tx);
}

/// Sets the server-side watcher up on a thread of its own: adding recursive watches lists every
/// directory of the workspace (and the debouncer's file-id cache stats every file), which on a
/// large monorepo takes tens of milliseconds that must not delay `initialized` and the
/// notifications queued behind it (house rule: heavy work off the handlers).
fn spawn_server_watcher(folders: Vec<std::path::PathBuf>, tx: UnboundedSender<Job>) {
    let spawned = std::thread::Builder::new()
        .name("alisio-watch-setup".into())
        .spawn(move || start_server_watcher(&folders, tx));
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
        || name == ".git"
        || !name.contains('.')
}

fn start_server_watcher(folders: &[std::path::PathBuf], tx: UnboundedSender<Job>) {
    use notify::RecursiveMode;
    use notify_debouncer_full::new_debouncer;
    let tx2 = tx.clone();
    let debouncer = new_debouncer(
        Duration::from_millis(150),
        None,
        move |res: notify_debouncer_full::DebounceEventResult| {
            if let Ok(events) = res {
                let any = events.iter().any(|e| {
                    e.paths.iter().any(|p| {
                        !p.components()
                            .any(|c| c.as_os_str() == "node_modules" || c.as_os_str() == "target")
                            && relevant(p)
                    })
                });
                if any {
                    let _ = tx2.send(Job::Recompute);
                }
            }
        },
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
    let _ = tx;
}
