//! What the checkpoints' snapshots, blob store and rewinds fail with (`Display` is the message
//! users see; the texts are those the module reported before it was typed).

use std::path::PathBuf;

use crate::store::StoreError;

/// A snapshot, blob or manifest that could not be taken, kept or read, or one file a rewind
/// could not restore.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The store, or the state directory that cannot be created.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A blob or pack that cannot be written.
    #[error("Cannot keep a snapshot blob in {}: {source}", dir.display())]
    Keep {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// Neither loose nor in a readable pack.
    #[error("Snapshot blob {sha} is missing: {source}")]
    Missing { sha: String, source: std::io::Error },
    /// Not loose, and a pack that might have held it cannot be read.
    #[error("Snapshot blob {sha} is missing: it is not kept loose, and the snapshot pack {} that may hold it is damaged ({why})", pack.display())]
    MissingPacked {
        sha: String,
        pack: PathBuf,
        why: String,
    },
    /// Its bytes (loose or packed) are not those of its sha256, or cannot be read whole.
    #[error("Snapshot blob {sha} is damaged")]
    Damaged { sha: String },
    #[error("Snapshot manifest {sha} is invalid: {source}")]
    InvalidManifest {
        sha: String,
        source: serde_json::Error,
    },
    #[error("{0}")]
    Encode(serde_json::Error),
    /// A rewind's path that is no longer a regular file.
    #[error("not a file")]
    NotAFile,
    /// A rewind's path whose bytes changed after the rewind's scan.
    #[error("changed during the rewind")]
    ChangedDuringRewind,
    /// A rewind's path whose bytes were not kept (over a size cap).
    #[error("not kept")]
    NotKept,
    /// Reading or removing a workspace file.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Writing a workspace file (the atomic replace of the base crate).
    #[error(transparent)]
    Write(alisio_base::workspace::write::WriteError),
}
