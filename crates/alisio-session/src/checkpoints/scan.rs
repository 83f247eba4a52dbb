//! Snapshots of a workspace's files (spec/sessions.md §13.1): a walk of the files `list_files`
//! would list (`.gitignore`d output, `.git` and `node_modules` left out, symlinks not
//! followed), each file's size, modification time and inode, and its bytes in a
//! content-addressed blob store outside the workspace and outside git's history.
//!
//! A file whose size, time and inode equal the previous snapshot's is not read again, unless
//! it was modified less than [`RACY_NS`] before that snapshot began (a change within the same
//! clock tick would otherwise go unseen, git's "racy" case).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::util::sha256_hex;

/// Files larger than this are listed by size and time but their bytes are not kept: a rewind
/// reports them as not restorable (spec/sessions.md §13.1).
pub const FILE_CAP: u64 = 4 * 1_048_576;
/// A snapshot keeps at most this many new bytes; files past it are listed without bytes.
pub const SNAPSHOT_CAP: u64 = 256 * 1_048_576;
/// See the module documentation.
pub const RACY_NS: i64 = 2_000_000_000;

/// One file of a snapshot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The sha256 of its bytes, kept in the blob store; `None`: over a cap, not kept.
    pub sha: Option<String>,
    pub size: u64,
    pub mtime_ns: i64,
    pub ino: u64,
}

/// The files of a workspace at one moment, by workspace-relative path (`/` separators).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// When the walk began (ns since the Unix epoch).
    pub started_ns: i64,
    pub files: BTreeMap<String, Entry>,
}

impl Manifest {
    /// Whether `path` holds the same bytes in both (an unkept file compares by size and time).
    #[must_use]
    pub fn same(a: Option<&Entry>, b: Option<&Entry>) -> bool {
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

/// What one snapshot cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub files: usize,
    /// Files read and hashed (not found unchanged in the previous snapshot).
    pub hashed: usize,
    /// Bytes of new blobs written.
    pub stored: u64,
}

/// The content-addressed blob store: `<dir>/<first two hex digits>/<sha256>`.
#[derive(Clone, Debug)]
pub struct Blobs {
    pub dir: PathBuf,
}

impl Blobs {
    /// The store of the state dir (`<state dir>/snapshots`), shared by the sessions of every
    /// workspace, so a file's bytes are kept once.
    #[must_use]
    pub fn of_state(state_dir: &Path) -> Self {
        Self {
            dir: state_dir.join("snapshots"),
        }
    }

    fn path(&self, sha: &str) -> PathBuf {
        self.dir.join(&sha[..2.min(sha.len())]).join(sha)
    }

    /// Keeps `bytes`; returns their sha256 and how many bytes were newly written (0 when the
    /// blob was already there). A temporary file renamed into place: a blob is whole or absent.
    ///
    /// # Errors
    /// I/O errors.
    pub fn put(&self, bytes: &[u8]) -> Result<(String, u64), String> {
        let sha = sha256_hex(bytes);
        let p = self.path(&sha);
        if p.exists() {
            return Ok((sha, 0));
        }
        let dir = p.parent().unwrap_or(&self.dir);
        crate::store::ensure_dir(dir)?;
        let tmp = dir.join(format!(".{}.tmp", crate::util::uuid7()));
        let res = (|| -> std::io::Result<()> {
            let mut f = std::fs::File::create_new(&tmp)?;
            f.write_all(bytes)?;
            std::fs::rename(&tmp, &p)
        })();
        if let Err(e) = res {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!(
                "Cannot keep a snapshot blob in {}: {e}",
                dir.display()
            ));
        }
        Ok((sha, bytes.len() as u64))
    }

    /// The bytes of a kept blob, checked against their sha256.
    ///
    /// # Errors
    /// A missing or damaged blob.
    pub fn get(&self, sha: &str) -> Result<Vec<u8>, String> {
        let b = std::fs::read(self.path(sha))
            .map_err(|e| format!("Snapshot blob {sha} is missing: {e}"))?;
        if sha256_hex(&b) != sha {
            return Err(format!("Snapshot blob {sha} is damaged"));
        }
        Ok(b)
    }

    /// Keeps a manifest as a blob; returns its sha256.
    ///
    /// # Errors
    /// I/O errors.
    pub fn put_manifest(&self, m: &Manifest) -> Result<String, String> {
        let text = serde_json::to_vec(m).map_err(|e| e.to_string())?;
        Ok(self.put(&text)?.0)
    }

    /// A manifest kept by [`Blobs::put_manifest`].
    ///
    /// # Errors
    /// A missing, damaged or unreadable manifest.
    pub fn manifest(&self, sha: &str) -> Result<Manifest, String> {
        let b = self.get(sha)?;
        serde_json::from_slice(&b).map_err(|e| format!("Snapshot manifest {sha} is invalid: {e}"))
    }
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

fn stat_of(m: &std::fs::Metadata) -> (u64, i64, u64) {
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(m);
    #[cfg(not(unix))]
    let ino = 0;
    (m.len(), mtime, ino)
}

/// Snapshots the files under `root` (minus the directories in `skip`), reusing `prev`'s
/// hashes for unchanged files and keeping new bytes in `blobs`.
///
/// # Errors
/// A blob that cannot be written (a file that cannot be read is left out: it cannot be
/// restored either).
pub fn scan(
    root: &Path,
    skip: &[PathBuf],
    blobs: &Blobs,
    prev: &Manifest,
) -> Result<(Manifest, ScanStats), String> {
    let started_ns = now_ns();
    let mut files = BTreeMap::new();
    let mut stats = ScanStats::default();
    let walk = crate::tools::files::walker(root);
    for e in walk.flatten() {
        if !e.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let p = e.path();
        if skip.iter().any(|s| p.starts_with(s)) {
            continue;
        }
        let Ok(rel) = p.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let Ok(meta) = e.metadata() else { continue };
        let (size, mtime_ns, ino) = stat_of(&meta);
        stats.files += 1;
        if let Some(old) = prev.files.get(&rel)
            && old.size == size
            && old.mtime_ns == mtime_ns
            && old.ino == ino
            && mtime_ns.saturating_add(RACY_NS) < prev.started_ns
        {
            files.insert(rel, old.clone());
            continue;
        }
        let mut entry = Entry {
            sha: None,
            size,
            mtime_ns,
            ino,
        };
        if size <= FILE_CAP && stats.stored.saturating_add(size) <= SNAPSHOT_CAP {
            let Ok(bytes) = std::fs::read(p) else {
                continue;
            };
            stats.hashed += 1;
            let (sha, written) = blobs.put(&bytes)?;
            stats.stored += written;
            entry.sha = Some(sha);
            entry.size = bytes.len() as u64;
        }
        files.insert(rel, entry);
    }
    Ok((Manifest { started_ns, files }, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_keeps_each_file_once_skips_ignored_output_and_reuses_unchanged_hashes() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("ws");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join("src/b.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join("target/out.bin"), "built").unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref").unwrap();
        let blobs = Blobs::of_state(&t.path().join("state"));
        let (m, s) = scan(&root, &[], &blobs, &Manifest::default()).unwrap();
        let names: Vec<&str> = m.files.keys().map(String::as_str).collect();
        assert_eq!(names, [".gitignore", "src/a.rs", "src/b.rs"]);
        // Two files with the same bytes are one blob.
        assert_eq!((s.files, s.hashed, s.stored), (3, 3, 8 + 10));
        let sha = m.files["src/a.rs"].sha.clone().unwrap();
        assert_eq!(blobs.get(&sha).unwrap(), b"fn a() {}\n");
        // Unchanged and old enough: not read again.
        let mut old = m.clone();
        old.started_ns += 2 * RACY_NS;
        let (again, s2) = scan(&root, &[], &blobs, &old).unwrap();
        assert_eq!((s2.hashed, s2.stored), (0, 0));
        assert_eq!(again.files, m.files);
        // Within the racy window: read again, and a changed file is seen.
        std::fs::write(root.join("src/a.rs"), "fn b() {}\n").unwrap();
        let (m3, s3) = scan(&root, &[], &blobs, &m).unwrap();
        assert_eq!(s3.hashed, 3);
        assert_ne!(m3.files["src/a.rs"].sha, m.files["src/a.rs"].sha);
        let sk = scan(&root, &[root.join("src")], &blobs, &m).unwrap().0;
        assert_eq!(sk.files.keys().collect::<Vec<_>>(), [".gitignore"]);
    }

    #[test]
    fn a_manifest_round_trips_through_the_blob_store_and_a_damaged_blob_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        let blobs = Blobs::of_state(t.path());
        let mut m = Manifest::default();
        m.files.insert(
            "a".into(),
            Entry {
                sha: None,
                size: 5,
                mtime_ns: 7,
                ino: 9,
            },
        );
        let sha = blobs.put_manifest(&m).unwrap();
        assert_eq!(blobs.manifest(&sha).unwrap(), m);
        std::fs::write(blobs.path(&sha), b"x").unwrap();
        assert_eq!(
            blobs.manifest(&sha).unwrap_err(),
            format!("Snapshot blob {sha} is damaged")
        );
    }
}
