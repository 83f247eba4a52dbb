//! Why a run stops with `run_failed` once it has started (spec/sessions.md §2.9): the store
//! failed, or something the run needs (the provider's request, a checkpoint, the session's
//! files) failed with a message. `Display` is the message the terminal event carries.

use crate::store::StoreError;

/// A started run's failure.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The durable store (`StoreError`: busy, not found, SQL, …).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Any other failure, with its message.
    #[error("{0}")]
    Failed(String),
}

impl From<String> for RunError {
    fn from(message: String) -> Self {
        Self::Failed(message)
    }
}
