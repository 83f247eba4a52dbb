//! A snapshot's manifest (spec/sessions.md §13.1): the files of a workspace at one moment, each
//! by its sha256 in the blob store and the size, times and inode a later snapshot compares.
//! Its own file so that the blob store, which keeps manifests, and the walk, which writes them,
//! both depend on it and not on each other.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One file of a snapshot (a manifest's entry).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotFile {
    /// The sha256 of its bytes, kept in the blob store; `None`: over a cap, not kept.
    pub sha: Option<String>,
    pub size: u64,
    pub mtime_ns: i64,
    /// The inode's change time (0 in manifests written before it was kept, and where the
    /// platform has none).
    #[serde(default)]
    pub ctime_ns: i64,
    pub ino: u64,
}

/// The file system's clock as a probe file created before a walk saw it: the device, and the
/// later of the probe's modification and change times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    pub dev: u64,
    pub ns: i64,
}

/// The files of a workspace at one moment, by workspace-relative path (`/` separators).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// When the walk began (ns since the Unix epoch).
    pub started_ns: i64,
    /// The file system's time when the walk began (`None`: no probe could be written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Probe>,
    pub files: BTreeMap<String, SnapshotFile>,
}

impl Manifest {
    /// Whether `path` holds the same bytes in both (an unkept file compares by size and time).
    #[must_use]
    pub fn same(a: Option<&SnapshotFile>, b: Option<&SnapshotFile>) -> bool {
        match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => match (&x.sha, &y.sha) {
                (Some(p), Some(q)) => p == q,
                _ => x.size == y.size && x.mtime_ns == y.mtime_ns && x.ino == y.ino,
            },
            _ => false,
        }
    }
}
