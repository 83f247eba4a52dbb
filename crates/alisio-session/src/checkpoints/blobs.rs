//! The content-addressed blob store of the snapshots (spec/sessions.md §13.1), under
//! `<state dir>/snapshots`:
//! - loose blobs, `<2 hex>/<sha256>`, one file each: manifests, and the first [`LOOSE_MAX`]
//!   new blobs of a snapshot;
//! - packs, `packs/<uuid7>.pack`, one per snapshot that keeps more new blobs than that: the
//!   blobs one after the other, then an index (sha256, offset, length of each) and a trailer.
//!
//! A snapshot of a new workspace keeps thousands of new files; as loose blobs they were as many
//! new inodes, and on a busy ext4 file system creating them cost seconds of kernel time (the
//! inode allocator's `recently_deleted` scan, docs/sessions.md "Checkpoints"). A pack is one new
//! file. Both are written under a temporary name and renamed into place: a blob or a pack is
//! whole or absent, and a manifest is written only after the blobs it names. Every read checks
//! the bytes against their sha256, wherever they were kept.
//!
//! Pack layout: [`PACK_MAGIC`], the blobs, the index (per blob: 64 hex digits of its sha256,
//! its offset and its length as little-endian u64), the index's offset (u64 LE), [`PACK_END`].

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::error::CheckpointError;
use super::manifest::Manifest;
use crate::util::sha256_hex;

/// A snapshot keeps up to this many new blobs loose; the rest go to one pack. Few files cost
/// little as loose blobs, and packs, whose indexes are read when the store is first searched,
/// stay few: one per snapshot that keeps many new files (the first of a workspace, a checkout).
pub const LOOSE_MAX: usize = 16;
/// The first bytes of a pack.
pub const PACK_MAGIC: &[u8; 8] = b"ALPACK1\n";
/// The last bytes of a pack.
pub const PACK_END: &[u8; 8] = b"ALPKEND1";
/// One index entry: 64 hex digits, offset, length.
const ENTRY: u64 = 64 + 8 + 8;

/// Where a packed blob is.
#[derive(Clone, Copy, Debug)]
struct Loc {
    pack: usize,
    offset: u64,
    len: u64,
}

/// The indexes of the packs read so far.
#[derive(Debug, Default)]
struct Packs {
    /// The pack files, by the position `Loc::pack` names.
    files: Vec<PathBuf>,
    /// File names read (or found damaged) already.
    seen: BTreeSet<OsString>,
    at: HashMap<String, Loc>,
    /// Packs whose index cannot be read, and why.
    broken: Vec<(PathBuf, String)>,
}

/// The content-addressed blob store (see the module documentation).
#[derive(Clone, Debug)]
pub struct Blobs {
    pub dir: PathBuf,
    packs: Arc<Mutex<Packs>>,
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8)
        .and_then(|s| <[u8; 8]>::try_from(s).ok())
        .map(u64::from_le_bytes)
}

/// The index of the pack at `path`: `(sha, offset, length)` of each blob.
fn read_index(path: &Path) -> Result<Vec<(String, u64, u64)>, String> {
    let mut f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    let head = PACK_MAGIC.len() as u64;
    if len < head + 16 {
        return Err(format!("{len} bytes, too short for a pack"));
    }
    let mut magic = [0u8; 8];
    f.read_exact(&mut magic).map_err(|e| e.to_string())?;
    let mut tail = [0u8; 16];
    f.seek(SeekFrom::Start(len - 16))
        .and_then(|_| f.read_exact(&mut tail))
        .map_err(|e| e.to_string())?;
    if &magic != PACK_MAGIC || &tail[8..] != PACK_END {
        return Err("no pack header or trailer (truncated?)".into());
    }
    let index_at = u64_at(&tail, 0).unwrap_or(0);
    let index_len = (len - 16)
        .checked_sub(index_at)
        .filter(|_| index_at >= head);
    let Some(index_len) = index_len.filter(|n| n % ENTRY == 0) else {
        return Err(format!(
            "index offset {index_at} does not fit its {len} bytes"
        ));
    };
    let mut index = vec![0u8; usize::try_from(index_len).map_err(|e| e.to_string())?];
    f.seek(SeekFrom::Start(index_at))
        .and_then(|_| f.read_exact(&mut index))
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for e in index.chunks_exact(ENTRY as usize) {
        let sha = std::str::from_utf8(&e[..64])
            .ok()
            .filter(|s| s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
        let (Some(sha), Some(offset), Some(n)) = (sha, u64_at(e, 64), u64_at(e, 72)) else {
            return Err("an index entry is not a sha256".into());
        };
        if offset < head || offset.checked_add(n).is_none_or(|end| end > index_at) {
            return Err(format!("blob {sha} lies outside the pack's blobs"));
        }
        out.push((sha.to_string(), offset, n));
    }
    Ok(out)
}

impl Blobs {
    /// The store of the state dir (`<state dir>/snapshots`), shared by the sessions of every
    /// workspace, so a file's bytes are kept once.
    #[must_use]
    pub fn of_state(state_dir: &Path) -> Self {
        Self::at(state_dir.join("snapshots"))
    }

    /// The store in `dir`.
    #[must_use]
    pub fn at(dir: PathBuf) -> Self {
        Self {
            dir,
            packs: Arc::default(),
        }
    }

    pub(crate) fn path(&self, sha: &str) -> PathBuf {
        self.dir.join(&sha[..2.min(sha.len())]).join(sha)
    }

    fn packs_dir(&self) -> PathBuf {
        self.dir.join("packs")
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Packs> {
        self.packs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the indexes of the packs not read yet (another process may have added some).
    fn refresh(&self, p: &mut Packs) {
        let Ok(rd) = std::fs::read_dir(self.packs_dir()) else {
            return;
        };
        let mut names: Vec<OsString> = rd
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| {
                let s = n.to_string_lossy();
                !s.starts_with('.') && s.ends_with(".pack")
            })
            .filter(|n| !p.seen.contains(n))
            .collect();
        names.sort();
        for name in names {
            let path = self.packs_dir().join(&name);
            p.seen.insert(name);
            match read_index(&path) {
                Ok(index) => {
                    let pack = p.files.len();
                    p.files.push(path);
                    for (sha, offset, len) in index {
                        p.at.entry(sha).or_insert(Loc { pack, offset, len });
                    }
                }
                Err(why) => p.broken.push((path, why)),
            }
        }
    }

    /// Where `sha` is packed, reading new packs' indexes when it is not known yet.
    fn packed(&self, sha: &str) -> Option<(PathBuf, Loc)> {
        let mut p = self.lock();
        if !p.at.contains_key(sha) {
            self.refresh(&mut p);
        }
        let loc = *p.at.get(sha)?;
        Some((p.files[loc.pack].clone(), loc))
    }

    /// Whether the blob is kept, loose or packed.
    #[must_use]
    pub fn has(&self, sha: &str) -> bool {
        self.path(sha).exists() || self.packed(sha).is_some()
    }

    /// Keeps `bytes` as a loose blob; returns their sha256 and how many bytes were newly written
    /// (0 when the blob was already kept, loose or packed). A temporary file renamed into place.
    ///
    /// # Errors
    /// I/O errors.
    pub fn put(&self, bytes: &[u8]) -> Result<(String, u64), CheckpointError> {
        let sha = sha256_hex(bytes);
        if self.has(&sha) {
            return Ok((sha, 0));
        }
        self.put_loose(&sha, bytes)?;
        Ok((sha, bytes.len() as u64))
    }

    fn put_loose(&self, sha: &str, bytes: &[u8]) -> Result<(), CheckpointError> {
        let p = self.path(sha);
        let dir = p.parent().unwrap_or(&self.dir);
        crate::store::ensure_dir(dir)?;
        let tmp = dir.join(format!(".{}.tmp", crate::util::uuid7()));
        let res = (|| -> std::io::Result<()> {
            let mut f = std::fs::File::create_new(&tmp)?;
            f.write_all(bytes)?;
            std::fs::rename(&tmp, &p)
        })();
        if let Err(source) = res {
            let _ = std::fs::remove_file(&tmp);
            return Err(CheckpointError::Keep {
                dir: dir.to_path_buf(),
                source,
            });
        }
        Ok(())
    }

    /// The bytes of a kept blob, loose or packed, checked against their sha256.
    ///
    /// # Errors
    /// A missing or damaged blob.
    pub fn get(&self, sha: &str) -> Result<Vec<u8>, CheckpointError> {
        let loose = match std::fs::read(self.path(sha)) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match self.packed(sha) {
                Some((pack, loc)) => Some(
                    read_at(&pack, loc)
                        .map_err(|_| CheckpointError::Damaged { sha: sha.into() })?,
                ),
                None => {
                    if let Some((pack, why)) = self.lock().broken.first().cloned() {
                        return Err(CheckpointError::MissingPacked {
                            sha: sha.into(),
                            pack,
                            why,
                        });
                    }
                    return Err(CheckpointError::Missing {
                        sha: sha.into(),
                        source: e,
                    });
                }
            },
            Err(source) => {
                return Err(CheckpointError::Missing {
                    sha: sha.into(),
                    source,
                });
            }
        };
        let b = loose.unwrap_or_default();
        if sha256_hex(&b) != sha {
            return Err(CheckpointError::Damaged { sha: sha.into() });
        }
        Ok(b)
    }

    /// Keeps a manifest as a (loose) blob; returns its sha256.
    ///
    /// # Errors
    /// I/O errors.
    pub fn put_manifest(&self, m: &Manifest) -> Result<String, CheckpointError> {
        let text = serde_json::to_vec(m).map_err(CheckpointError::Encode)?;
        Ok(self.put(&text)?.0)
    }

    /// A manifest kept by [`Blobs::put_manifest`].
    ///
    /// # Errors
    /// A missing, damaged or unreadable manifest.
    pub fn manifest(&self, sha: &str) -> Result<Manifest, CheckpointError> {
        let b = self.get(sha)?;
        serde_json::from_slice(&b).map_err(|source| CheckpointError::InvalidManifest {
            sha: sha.into(),
            source,
        })
    }

    /// A batch of the new blobs of one snapshot (see [`Batch`]).
    #[must_use]
    pub fn batch(&self) -> Batch<'_> {
        Batch {
            blobs: self,
            loose: 0,
            pack: None,
        }
    }
}

fn read_at(pack: &Path, loc: Loc) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(pack)?;
    f.seek(SeekFrom::Start(loc.offset))?;
    let mut b = vec![0u8; usize::try_from(loc.len).map_err(std::io::Error::other)?];
    f.read_exact(&mut b)?;
    Ok(b)
}

/// A pack being written.
struct PackOut {
    temporary_path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    offset: u64,
    index: Vec<(String, u64, u64)>,
    shas: HashSet<String>,
}

/// The new blobs of one snapshot: the first [`LOOSE_MAX`] loose, the rest in one pack that
/// [`Batch::finish`] puts in place (dropped unfinished, the pack is removed: its blobs were
/// never named by a manifest).
pub struct Batch<'a> {
    blobs: &'a Blobs,
    loose: usize,
    pack: Option<PackOut>,
}

impl Batch<'_> {
    fn keep_err(&self, source: std::io::Error) -> CheckpointError {
        CheckpointError::Keep {
            dir: self.blobs.packs_dir(),
            source,
        }
    }

    /// Keeps `bytes`; returns their sha256 and how many bytes were newly written (0 when the
    /// blob was kept already, loose, packed, or earlier in this batch).
    ///
    /// # Errors
    /// I/O errors.
    pub fn put(&mut self, bytes: &[u8]) -> Result<(String, u64), CheckpointError> {
        let sha = sha256_hex(bytes);
        if self.pack.as_ref().is_some_and(|p| p.shas.contains(&sha)) || self.blobs.has(&sha) {
            return Ok((sha, 0));
        }
        if self.loose < LOOSE_MAX {
            self.blobs.put_loose(&sha, bytes)?;
            self.loose += 1;
            return Ok((sha, bytes.len() as u64));
        }
        if self.pack.is_none() {
            let dir = self.blobs.packs_dir();
            crate::store::ensure_dir(&dir)?;
            let tmp = dir.join(format!(".{}.tmp", crate::util::uuid7()));
            let mut file = std::io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create_new(&tmp).map_err(|e| self.keep_err(e))?,
            );
            let res = file.write_all(PACK_MAGIC);
            self.pack = Some(PackOut {
                temporary_path: tmp,
                file,
                offset: PACK_MAGIC.len() as u64,
                index: Vec::new(),
                shas: HashSet::new(),
            });
            res.map_err(|e| self.keep_err(e))?;
        }
        let res = match self.pack.as_mut() {
            Some(p) => p.file.write_all(bytes).map(|()| {
                p.index.push((sha.clone(), p.offset, bytes.len() as u64));
                p.offset += bytes.len() as u64;
                p.shas.insert(sha.clone());
            }),
            None => Ok(()),
        };
        res.map_err(|e| self.keep_err(e))?;
        Ok((sha, bytes.len() as u64))
    }

    /// Writes the pack's index and puts the pack in place.
    ///
    /// # Errors
    /// I/O errors (the pack is then removed).
    pub fn finish(mut self) -> Result<(), CheckpointError> {
        let Some(mut p) = self.pack.take() else {
            return Ok(());
        };
        let name = format!("{}.pack", crate::util::uuid7());
        let path = self.blobs.packs_dir().join(&name);
        let res = (|| -> std::io::Result<()> {
            for (sha, offset, len) in &p.index {
                p.file.write_all(sha.as_bytes())?;
                p.file.write_all(&offset.to_le_bytes())?;
                p.file.write_all(&len.to_le_bytes())?;
            }
            p.file.write_all(&p.offset.to_le_bytes())?;
            p.file.write_all(PACK_END)?;
            p.file.flush()?;
            std::fs::rename(&p.temporary_path, &path)
        })();
        if let Err(e) = res {
            let _ = std::fs::remove_file(&p.temporary_path);
            return Err(self.keep_err(e));
        }
        let mut packs = self.blobs.lock();
        let pack = packs.files.len();
        packs.files.push(path);
        packs.seen.insert(name.into());
        for (sha, offset, len) in p.index {
            packs.at.entry(sha).or_insert(Loc { pack, offset, len });
        }
        Ok(())
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.pack.take() {
            drop(p.file);
            let _ = std::fs::remove_file(&p.temporary_path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoints::SnapshotFile;

    fn blob(i: usize) -> Vec<u8> {
        format!("blob number {i}\n").into_bytes()
    }

    /// The files under `dir`, relative, sorted.
    fn files(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for e in walkdir(dir) {
            out.push(
                e.strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
        out.sort();
        out
    }

    fn walkdir(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walkdir(&p));
            } else {
                out.push(p);
            }
        }
        out
    }

    fn packs(b: &Blobs) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(b.packs_dir())
            .map(|r| r.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }

    #[test]
    fn a_batch_keeps_its_first_blobs_loose_and_the_rest_in_one_pack_that_reads_back() {
        let t = tempfile::tempdir().unwrap();
        let b = Blobs::of_state(t.path());
        let mut batch = b.batch();
        let mut shas = Vec::new();
        for i in 0..LOOSE_MAX + 4 {
            let (sha, n) = batch.put(&blob(i)).unwrap();
            assert_eq!(n, blob(i).len() as u64);
            shas.push(sha);
        }
        batch.finish().unwrap();
        let all = files(&b.dir);
        assert_eq!(all.iter().filter(|f| f.starts_with("packs/")).count(), 1);
        assert_eq!(all.len(), LOOSE_MAX + 1);
        for (i, sha) in shas.iter().enumerate() {
            assert_eq!(b.get(sha).unwrap(), blob(i));
            assert!(b.path(sha).exists() == (i < LOOSE_MAX), "{i}");
        }
        // A store opened afterwards (another process) finds the packed blobs by the index.
        let fresh = Blobs::of_state(t.path());
        assert_eq!(
            fresh.get(&shas[LOOSE_MAX + 3]).unwrap(),
            blob(LOOSE_MAX + 3)
        );
        // The layout: magic, the 4 packed blobs, 4 index entries, offset, end.
        let pack = std::fs::read(&packs(&b)[0]).unwrap();
        let blobs_len: usize = (LOOSE_MAX..LOOSE_MAX + 4).map(|i| blob(i).len()).sum();
        assert_eq!(pack.len(), 8 + blobs_len + 4 * 80 + 16);
        assert_eq!(&pack[..8], PACK_MAGIC);
        assert_eq!(&pack[pack.len() - 8..], PACK_END);
        assert_eq!(&pack[8..8 + blob(LOOSE_MAX).len()], &blob(LOOSE_MAX)[..]);
        assert_eq!(
            &pack[8 + blobs_len..8 + blobs_len + 64],
            shas[LOOSE_MAX].as_bytes()
        );
    }

    #[test]
    fn blobs_kept_loose_packed_or_earlier_in_the_batch_are_not_written_again() {
        let t = tempfile::tempdir().unwrap();
        let b = Blobs::of_state(t.path());
        let mut batch = b.batch();
        for i in 0..LOOSE_MAX + 2 {
            batch.put(&blob(i)).unwrap();
        }
        // Twice in one batch, once in its pack.
        assert_eq!(batch.put(&blob(LOOSE_MAX + 1)).unwrap().1, 0);
        batch.finish().unwrap();
        // Another store (a later process): every one of them, loose or packed, is kept.
        let later = Blobs::of_state(t.path());
        let mut again = later.batch();
        for i in 0..LOOSE_MAX + 2 {
            assert_eq!(again.put(&blob(i)).unwrap().1, 0, "{i}");
        }
        assert_eq!(later.put(&blob(LOOSE_MAX)).unwrap().1, 0);
        again.finish().unwrap();
        assert_eq!(packs(&b).len(), 1);
        assert_eq!(files(&b.dir).len(), LOOSE_MAX + 1);
    }

    #[test]
    fn a_damaged_or_truncated_pack_is_an_error_for_its_blobs_and_their_bytes_can_be_kept_again() {
        let t = tempfile::tempdir().unwrap();
        let b = Blobs::of_state(t.path());
        let mut batch = b.batch();
        let shas: Vec<String> = (0..LOOSE_MAX + 3)
            .map(|i| batch.put(&blob(i)).unwrap().0)
            .collect();
        batch.finish().unwrap();
        let pack = packs(&b)[0].clone();
        let bytes = std::fs::read(&pack).unwrap();
        // A changed byte inside a packed blob: that blob is damaged, the others read.
        let mut bad = bytes.clone();
        bad[8] ^= 1;
        std::fs::write(&pack, &bad).unwrap();
        let s = Blobs::of_state(t.path());
        let first = &shas[LOOSE_MAX];
        assert_eq!(
            s.get(first).unwrap_err().to_string(),
            format!("Snapshot blob {first} is damaged")
        );
        assert_eq!(s.get(&shas[LOOSE_MAX + 1]).unwrap(), blob(LOOSE_MAX + 1));
        // Truncated (its index lost): its blobs are missing, and the error names the pack.
        std::fs::write(&pack, &bytes[..bytes.len() - 5]).unwrap();
        let s = Blobs::of_state(t.path());
        let e = s.get(first).unwrap_err();
        assert!(matches!(&e, CheckpointError::MissingPacked { pack: p, .. } if *p == pack));
        assert_eq!(
            e.to_string(),
            format!(
                "Snapshot blob {first} is missing: it is not kept loose, and the snapshot pack {} that may hold it is damaged (no pack header or trailer (truncated?))",
                pack.display()
            )
        );
        // Loose blobs still read; the lost bytes are kept again by the next snapshot.
        assert_eq!(s.get(&shas[0]).unwrap(), blob(0));
        let mut heal = s.batch();
        for i in 0..LOOSE_MAX + 3 {
            let written = heal.put(&blob(i)).unwrap().1;
            assert_eq!(written == 0, i < LOOSE_MAX, "{i}");
        }
        heal.finish().unwrap();
        assert_eq!(s.get(first).unwrap(), blob(LOOSE_MAX));
        // An index that points outside the pack, and a file too short to be one.
        let mut off = bytes.clone();
        let n = off.len();
        off[n - 16..n - 8].copy_from_slice(&3u64.to_le_bytes());
        std::fs::write(&pack, &off).unwrap();
        assert!(read_index(&pack).unwrap_err().starts_with("index offset 3"));
        std::fs::write(&pack, b"ALPACK1\n").unwrap();
        assert_eq!(
            read_index(&pack).unwrap_err(),
            "8 bytes, too short for a pack"
        );
    }

    #[test]
    fn a_store_of_loose_blobs_only_as_older_builds_wrote_it_still_reads_and_dedups() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("snapshots");
        // What a build before packs left: `<2 hex>/<sha256>` files, the manifest among them.
        let mut m = Manifest::default();
        let text = b"fn a() {}\n";
        let sha = sha256_hex(text);
        m.files.insert(
            "a.rs".into(),
            SnapshotFile {
                sha: Some(sha.clone()),
                size: text.len() as u64,
                mtime_ns: 1,
                ctime_ns: 0,
                ino: 2,
            },
        );
        let mtext = serde_json::to_vec(&m).unwrap();
        let msha = sha256_hex(&mtext);
        for (s, b) in [(&sha, &text[..]), (&msha, &mtext[..])] {
            std::fs::create_dir_all(dir.join(&s[..2])).unwrap();
            std::fs::write(dir.join(&s[..2]).join(s), b).unwrap();
        }
        let b = Blobs::of_state(t.path());
        assert_eq!(b.manifest(&msha).unwrap(), m);
        assert_eq!(b.get(&sha).unwrap(), text);
        let mut batch = b.batch();
        assert_eq!(batch.put(text).unwrap().1, 0);
        batch.finish().unwrap();
        assert!(!b.packs_dir().exists());
        let gone = sha256_hex(b"gone");
        let e = b.get(&gone).unwrap_err();
        let CheckpointError::Missing { source, .. } = &e else {
            panic!("{e:?}");
        };
        assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            format!("Snapshot blob {gone} is missing: {source}")
        );
    }

    #[test]
    fn an_unfinished_batch_leaves_no_pack_behind() {
        let t = tempfile::tempdir().unwrap();
        let b = Blobs::of_state(t.path());
        let mut batch = b.batch();
        for i in 0..LOOSE_MAX + 2 {
            batch.put(&blob(i)).unwrap();
        }
        drop(batch);
        assert_eq!(packs(&b), Vec::<PathBuf>::new());
        let lost = sha256_hex(blob(LOOSE_MAX));
        assert!(!b.has(&lost));
    }

    #[test]
    fn a_manifest_round_trips_through_the_blob_store_and_a_damaged_blob_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        let blobs = Blobs::of_state(t.path());
        let mut m = Manifest::default();
        m.files.insert(
            "a".into(),
            SnapshotFile {
                sha: None,
                size: 5,
                mtime_ns: 7,
                ctime_ns: 8,
                ino: 9,
            },
        );
        let sha = blobs.put_manifest(&m).unwrap();
        assert_eq!(blobs.manifest(&sha).unwrap(), m);
        std::fs::write(blobs.path(&sha), b"x").unwrap();
        assert_eq!(
            blobs.manifest(&sha).unwrap_err().to_string(),
            format!("Snapshot blob {sha} is damaged")
        );
    }
}
