//! What the handlers, the watcher and the worker share: the worker's [`Job`]s and the one way
//! to take the state's lock. Its own module so that `server` and `watch` do not import each
//! other.

use std::sync::{Mutex, MutexGuard};

use super::state::State;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::request;

/// Work for the background worker.
#[derive(Debug)]
pub enum Job {
    /// Recompute every diagnostic and publish what changed.
    Recompute,
}

/// Locks the state; a poisoned lock (a panic elsewhere) still yields the data.
pub fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Asks the client to request its code lenses again, on a task of its own (never awaited by a
/// handler), and only when the client said it can (`workspace.codeLens.refreshSupport`: Neovim
/// 0.11 does not, and an unknown server request is an error to it).
pub fn refresh_code_lenses(client: &Client, state: &Mutex<State>) {
    if !lock(state).caps.lens_refresh {
        return;
    }
    let client = client.clone();
    tokio::spawn(async move {
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            client.send_request::<request::CodeLensRefresh>(()),
        )
        .await;
    });
}
