//! Snapshots of a workspace's files (spec/sessions.md §13.1): a walk of the files `list_files`
//! would list (`.gitignore`d output, `.git` and `node_modules` left out, symlinks not
//! followed), each file's size, modification and change times and inode, and its bytes in a
//! content-addressed blob store outside the workspace and outside git's history.
//!
//! A file whose size, times and inode equal the previous snapshot's is not read again, unless
//! it was changed so shortly before that snapshot read it that a later change could have left
//! the same times (git's "racy" case: a change within the same clock tick). "Shortly before" is
//! measured two ways, and either clears a file ([`reusable`]):
//! - by the system clock: changed more than [`RACY_NS`] (2 s, the coarsest timestamp a file
//!   system keeps, FAT's) before the snapshot began;
//! - by the file system's own clock: each snapshot first creates a probe file in the blob
//!   store and reads back the change time the file system gave it. A file on the same device
//!   that was changed more than [`FINE_NS`] before the probe (when its change time has a
//!   sub-second part, so the file system keeps sub-second times) or [`RACY_NS`] before (whole
//!   seconds: maybe a coarse file system) cannot be changed again after the snapshot without
//!   its change time moving. The probe needs no agreement between the clocks of the machine
//!   and of a network file system, and no guess of the kernel's clock tick.
//!
//! The change time (`ctime`) is part of the key and is what the racy rule looks at: unlike
//! the modification time it cannot be set back by a program (`touch -d`, `cp -p`, `tar x`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::blobs::Blobs;
use super::error::CheckpointError;
use super::manifest::{Manifest, Probe, SnapshotFile};

/// Files larger than this are listed by size and time but their bytes are not kept: a rewind
/// reports them as not restorable (spec/sessions.md §13.1).
pub const FILE_CAP: u64 = 4 * 1_048_576;
/// A snapshot keeps at most this many new bytes; files past it are listed without bytes.
pub const SNAPSHOT_CAP: u64 = 256 * 1_048_576;
/// See the module documentation.
pub const RACY_NS: i64 = 2_000_000_000;
/// See the module documentation: above the coarsest sub-second timestamp of a file system
/// (exFAT's 10 ms).
pub const FINE_NS: i64 = 100_000_000;

/// What one snapshot cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanStats {
    pub files: usize,
    /// Files read and hashed (not found unchanged in the previous snapshot).
    pub hashed: usize,
    /// Bytes of new blobs written.
    pub stored: u64,
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// What a walk learns of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    pub dev: u64,
}

fn ns_of(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

fn stat_of(m: &std::fs::Metadata) -> Stat {
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    #[cfg(unix)]
    let (ctime_ns, ino, dev) = {
        use std::os::unix::fs::MetadataExt;
        (ns_of(m.ctime(), m.ctime_nsec()), m.ino(), m.dev())
    };
    #[cfg(not(unix))]
    let (ctime_ns, ino, dev) = (0, 0, 0);
    Stat {
        size: m.len(),
        mtime_ns,
        ctime_ns,
        ino,
        dev,
    }
}

/// The file system's clock now, read from a probe file created (and removed) in `dir`.
fn probe(dir: &Path) -> Option<Probe> {
    if !cfg!(unix) {
        return None;
    }
    crate::store::ensure_dir(dir).ok()?;
    let p = dir.join(format!(".probe-{}.tmp", crate::util::uuid7()));
    let meta = std::fs::File::create_new(&p).and_then(|f| f.metadata());
    let _ = std::fs::remove_file(&p);
    let s = stat_of(&meta.ok()?);
    Some(Probe {
        dev: s.dev,
        ns: s.mtime_ns.max(s.ctime_ns),
    })
}

/// Whether `old`, kept by the snapshot `prev`, still holds the bytes of a file that the walk
/// now finds as `now` without reading it (see the module documentation): the same size, times
/// and inode, and its last change old enough, when `prev` read it, that any later change
/// would have moved its change time.
#[must_use]
pub fn reusable(old: &SnapshotFile, now: &Stat, prev: &Manifest) -> bool {
    if (old.size, old.mtime_ns, old.ctime_ns, old.ino)
        != (now.size, now.mtime_ns, now.ctime_ns, now.ino)
    {
        return false;
    }
    let changed = now.mtime_ns.max(now.ctime_ns);
    if changed.saturating_add(RACY_NS) < prev.started_ns {
        return true;
    }
    let window = if changed.rem_euclid(1_000_000_000) == 0 {
        RACY_NS
    } else {
        FINE_NS
    };
    prev.probe
        .is_some_and(|p| p.dev == now.dev && changed.saturating_add(window) < p.ns)
}

/// Snapshots the files under `root` (minus the directories in `skip`), reusing `prev`'s
/// hashes for unchanged files and keeping new bytes in `blobs` (one [`super::blobs::Batch`]:
/// a pack when there are many).
///
/// # Errors
/// A blob that cannot be written (a file that cannot be read is left out: it cannot be
/// restored either).
pub fn scan(
    root: &Path,
    skip: &[PathBuf],
    blobs: &Blobs,
    prev: &Manifest,
) -> Result<(Manifest, ScanStats), CheckpointError> {
    let started_ns = now_ns();
    let probe = probe(&blobs.dir);
    let mut files = BTreeMap::new();
    let mut stats = ScanStats::default();
    let mut batch = blobs.batch();
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
        let now = stat_of(&meta);
        stats.files += 1;
        if let Some(old) = prev.files.get(&rel)
            && reusable(old, &now, prev)
        {
            files.insert(rel, old.clone());
            continue;
        }
        let mut entry = SnapshotFile {
            sha: None,
            size: now.size,
            mtime_ns: now.mtime_ns,
            ctime_ns: now.ctime_ns,
            ino: now.ino,
        };
        if now.size <= FILE_CAP && stats.stored.saturating_add(now.size) <= SNAPSHOT_CAP {
            let Ok(bytes) = std::fs::read(p) else {
                continue;
            };
            stats.hashed += 1;
            let (sha, written) = batch.put(&bytes)?;
            stats.stored += written;
            entry.sha = Some(sha);
            entry.size = bytes.len() as u64;
        }
        files.insert(rel, entry);
    }
    batch.finish()?;
    Ok((
        Manifest {
            started_ns,
            probe,
            files,
        },
        stats,
    ))
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
        // Unchanged and old enough by the system clock: not read again.
        let mut old = m.clone();
        old.started_ns += 2 * RACY_NS;
        old.probe = None;
        let (again, s2) = scan(&root, &[], &blobs, &old).unwrap();
        assert_eq!((s2.hashed, s2.stored), (0, 0));
        assert_eq!(again.files, m.files);
        // Within the racy window (the probe as old as the newest change, as when the files were
        // written in the clock tick of the probe): read again, and a changed file is seen,
        // whether or not the change moved its times.
        let mut racy = m.clone();
        let newest = m
            .files
            .values()
            .map(|e| e.mtime_ns.max(e.ctime_ns))
            .max()
            .unwrap();
        racy.started_ns = newest;
        racy.probe = Some(Probe {
            dev: m.probe.map_or(0, |p| p.dev),
            ns: newest,
        });
        std::fs::write(root.join("src/a.rs"), "fn b() {}\n").unwrap();
        let (m3, s3) = scan(&root, &[], &blobs, &racy).unwrap();
        assert_eq!(s3.hashed, 3);
        assert_ne!(m3.files["src/a.rs"].sha, m.files["src/a.rs"].sha);
        let sk = scan(&root, &[root.join("src")], &blobs, &m).unwrap().0;
        assert_eq!(sk.files.keys().collect::<Vec<_>>(), [".gitignore"]);
    }

    fn entry(size: u64, mtime_ns: i64, ctime_ns: i64, ino: u64) -> SnapshotFile {
        SnapshotFile {
            sha: Some("s".into()),
            size,
            mtime_ns,
            ctime_ns,
            ino,
        }
    }

    fn stat(e: &SnapshotFile, dev: u64) -> Stat {
        Stat {
            size: e.size,
            mtime_ns: e.mtime_ns,
            ctime_ns: e.ctime_ns,
            ino: e.ino,
            dev,
        }
    }

    #[test]
    fn the_racy_rule_trusts_a_file_only_when_a_later_change_would_move_its_change_time() {
        const S: i64 = 1_000_000_000;
        // Changed at 100.5 s (sub-second: a file system with fine timestamps), read by a
        // snapshot whose probe (same device 7) saw the file system's clock at `p`.
        let e = entry(10, 100 * S + S / 2, 100 * S + S / 2, 3);
        let prev = |started: i64, p: Option<(u64, i64)>| Manifest {
            started_ns: started,
            probe: p.map(|(dev, ns)| Probe { dev, ns }),
            files: BTreeMap::new(),
        };
        let now = stat(&e, 7);
        let changed = 100 * S + S / 2;
        // In the probe's tick, or less than FINE_NS before it: a change after the read could
        // have left the same times. Read again.
        assert!(!reusable(&e, &now, &prev(changed, Some((7, changed)))));
        assert!(!reusable(
            &e,
            &now,
            &prev(changed, Some((7, changed + FINE_NS)))
        ));
        // More than FINE_NS before the probe: any later change moves the change time.
        assert!(reusable(
            &e,
            &now,
            &prev(changed, Some((7, changed + FINE_NS + 1)))
        ));
        // A probe on another device says nothing of this file: the system clock's 2 s rule.
        assert!(!reusable(
            &e,
            &now,
            &prev(changed + FINE_NS + 1, Some((8, changed + S)))
        ));
        assert!(!reusable(&e, &now, &prev(changed + RACY_NS, None)));
        assert!(reusable(&e, &now, &prev(changed + RACY_NS + 1, None)));
        // Whole seconds (maybe a file system that keeps seconds, or FAT's 2 s): 2 s by the probe too.
        let w = entry(10, 100 * S, 100 * S, 3);
        let wn = stat(&w, 7);
        assert!(!reusable(&w, &wn, &prev(0, Some((7, 100 * S + S)))));
        assert!(!reusable(&w, &wn, &prev(0, Some((7, 100 * S + RACY_NS)))));
        assert!(reusable(
            &w,
            &wn,
            &prev(0, Some((7, 100 * S + RACY_NS + 1)))
        ));
        // The change time is the later of the two: a modification time set into the future
        // keeps the file racy until then.
        let f = entry(10, 200 * S + 1, 100 * S + 1, 3);
        assert!(!reusable(&f, &stat(&f, 7), &prev(0, Some((7, 150 * S)))));
        // Any difference in the key is a change, however old: size, times, inode (a file
        // replaced), and the change time alone (`cp -p` or `touch -r` put the old
        // modification time back on new bytes).
        let old = prev(1000 * S, Some((7, 1000 * S)));
        for other in [
            entry(11, e.mtime_ns, e.ctime_ns, 3),
            entry(10, e.mtime_ns + 1, e.ctime_ns, 3),
            entry(10, e.mtime_ns, e.ctime_ns + 1, 3),
            entry(10, e.mtime_ns, e.ctime_ns, 4),
        ] {
            assert!(!reusable(&e, &stat(&other, 7), &old), "{other:?}");
        }
        assert!(reusable(&e, &now, &old));
        // A manifest written before the change time was kept (ctime 0) is read again once.
        let legacy = entry(10, e.mtime_ns, 0, 3);
        assert!(!reusable(&legacy, &now, &old));
    }

    /// Rewrites `path` with `bytes` until the file system gives it a change time other than
    /// `old` (the next tick of its clock), then puts `mtime` back, as `cp -p` would.
    #[cfg(unix)]
    fn rewrite_keeping_mtime(path: &Path, bytes: &[u8], old: i64, mtime: std::time::SystemTime) {
        for _ in 0..10_000 {
            std::fs::write(path, bytes).unwrap();
            let f = std::fs::File::options().write(true).open(path).unwrap();
            f.set_modified(mtime).unwrap();
            drop(f);
            if stat_of(&std::fs::metadata(path).unwrap()).ctime_ns != old {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        panic!("the change time of {} never moved", path.display());
    }

    #[cfg(unix)]
    #[test]
    fn new_bytes_under_the_old_modification_time_are_read_again() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let f = root.join("a.txt");
        std::fs::write(&f, "one\n").unwrap();
        let blobs = Blobs::of_state(&t.path().join("state"));
        let (m, _) = scan(&root, &[], &blobs, &Manifest::default()).unwrap();
        let before = m.files["a.txt"].clone();
        let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
        rewrite_keeping_mtime(&f, b"two\n", before.ctime_ns, mtime);
        // Same size, modification time and inode as the snapshot, which is old by both
        // clocks: only the change time tells.
        let mut old = m.clone();
        old.started_ns = i64::MAX;
        old.probe = old.probe.map(|p| Probe { ns: i64::MAX, ..p });
        let (m2, s2) = scan(&root, &[], &blobs, &old).unwrap();
        let after = &m2.files["a.txt"];
        assert_eq!(
            (after.size, after.mtime_ns, after.ino),
            (before.size, before.mtime_ns, before.ino)
        );
        assert_eq!(s2.hashed, 1);
        assert_eq!(blobs.get(after.sha.as_ref().unwrap()).unwrap(), b"two\n");
    }

    #[cfg(unix)]
    #[test]
    fn the_probe_reads_the_file_systems_clock_between_the_changes_before_and_after_it() {
        // What makes the probe rule sound: on one device, a file changed before the probe has
        // a change time at or before the probe's, and a file changed after it one at or after.
        let t = tempfile::tempdir().unwrap();
        let before = t.path().join("before");
        std::fs::write(&before, "x").unwrap();
        let p = probe(&t.path().join("snapshots")).unwrap();
        let after = t.path().join("after");
        std::fs::write(&after, "x").unwrap();
        let b = stat_of(&std::fs::metadata(&before).unwrap());
        let a = stat_of(&std::fs::metadata(&after).unwrap());
        assert_eq!((b.dev, a.dev), (p.dev, p.dev));
        assert!(
            b.ctime_ns <= p.ns && p.ns <= a.ctime_ns,
            "{b:?} {p:?} {a:?}"
        );
        // The probe leaves nothing behind.
        assert_eq!(
            std::fs::read_dir(t.path().join("snapshots"))
                .unwrap()
                .count(),
            0
        );
    }

    #[test]
    fn a_scan_of_many_new_files_keeps_them_in_one_pack_and_reads_them_back() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let n = super::super::blobs::LOOSE_MAX + 24;
        for i in 0..n {
            std::fs::write(root.join(format!("f{i:02}.txt")), format!("file {i}\n")).unwrap();
        }
        let blobs = Blobs::of_state(&t.path().join("state"));
        let (m, s) = scan(&root, &[], &blobs, &Manifest::default()).unwrap();
        assert_eq!((s.files, s.hashed), (n, n));
        let packs = std::fs::read_dir(blobs.dir.join("packs")).unwrap().count();
        assert_eq!(packs, 1);
        // Another process (a rewind) reads every file's bytes, loose or packed.
        let other = Blobs::of_state(&t.path().join("state"));
        for (i, (path, e)) in m.files.iter().enumerate() {
            assert_eq!(path, &format!("f{i:02}.txt"));
            let got = other.get(e.sha.as_ref().unwrap()).unwrap();
            assert_eq!(got, format!("file {i}\n").into_bytes());
        }
        // A second snapshot of the same bytes keeps nothing new.
        let (_, s2) = scan(&root, &[], &other, &Manifest::default()).unwrap();
        assert_eq!((s2.hashed, s2.stored), (n, 0));
    }
}
