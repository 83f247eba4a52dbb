//! What the handlers, the watcher and the worker share: the worker's [`Job`]s and the one way
//! to take the state's lock. Its own module so that `server` and `watch` do not import each
//! other.

use std::sync::{Mutex, MutexGuard};

use super::state::State;

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
