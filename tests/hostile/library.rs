//! Files that change or vanish while a scan runs, simulated deterministically with an `Fs`
//! whose answers disagree with its own listing, plus a real concurrent churn of the disk.

use std::io;
use std::path::{Path, PathBuf};

use alisio_ls::config::{Host, Settings};
use alisio_ls::instructions::{Setup, diagnostics, explain, read::Reader};
use alisio_ls::workspace::{DirEntry, DiskFs, Env, FileType, Fs, Metadata};

use crate::common::Ws;
use crate::util::{run, sane};

/// Lists what is on disk, then behaves as if some of it changed right after the listing.
struct Racy {
    /// Listed, then gone: every later call says "not found".
    vanished: Vec<PathBuf>,
    /// Listed as a file, but a directory by the time it is opened.
    became_dir: Vec<PathBuf>,
    /// Metadata says it is small, then the read returns this many bytes (it grew).
    grew: Vec<(PathBuf, usize)>,
}

impl Racy {
    fn gone(&self, p: &Path) -> bool {
        self.vanished.iter().any(|v| p.starts_with(v))
    }
}

fn not_found() -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, "vanished")
}

impl Fs for Racy {
    fn read_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        DiskFs.read_dir(dir)
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata> {
        if self.gone(path) {
            return Err(not_found());
        }
        if self.became_dir.iter().any(|d| d == path) {
            return Ok(Metadata {
                file_type: FileType::Dir,
                len: 0,
                mtime_ns: None,
            });
        }
        DiskFs.symlink_metadata(path)
    }
    fn metadata(&self, path: &Path) -> io::Result<Metadata> {
        self.symlink_metadata(path)
    }
    fn read_prefix(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        if self.gone(path) {
            return Err(not_found());
        }
        if self.became_dir.iter().any(|d| d == path) {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        if let Some((_, n)) = self.grew.iter().find(|(p, _)| p == path) {
            let n = (*n).min(usize::try_from(limit).unwrap_or(usize::MAX));
            return Ok(vec![b'g'; n]);
        }
        DiskFs.read_prefix(path, limit)
    }
    fn scan(&self, path: &Path, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        let b = self.read_prefix(path, u64::MAX)?;
        f(&b);
        Ok(())
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        if self.gone(path) {
            return Err(not_found());
        }
        DiskFs.canonicalize(path)
    }
    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        DiskFs.read_link(path)
    }
}

#[test]
fn files_that_vanish_change_type_or_grow_after_listing_are_reported_not_fatal() {
    let ws = Ws::new();
    ws.files(&[
        ("AGENTS.md", "# Root\n"),
        ("a/AGENTS.md", "# A\n"),
        ("a/b/AGENTS.md", "# B\n"),
        ("c/CLAUDE.md", "# C\n@AGENTS.md\n"),
        ("c/AGENTS.md", "# C agents\n"),
        ("gone/AGENTS.md", "# Gone\n"),
    ]);
    let fs = Racy {
        vanished: vec![ws.root.join("a/AGENTS.md"), ws.root.join("gone")],
        became_dir: vec![ws.root.join("a/b/AGENTS.md")],
        grew: vec![
            (ws.root.join("AGENTS.md"), 300_000),
            (ws.root.join("c/AGENTS.md"), 5_000_000),
        ],
    };
    let env = Env {
        home: Some(ws.home.clone()),
        alisio_config_home: Some(ws.config_home.clone()),
        ..Env::default()
    };
    let settings = Settings::default();
    for host in [Host::Alisio, Host::Codex, Host::ClaudeCode] {
        let setup = Setup {
            fs: &fs,
            env: &env,
            root: &ws.root,
            settings: &settings,
            host,
            claude_managed: None,
            claude_session: None,
        };
        let reader = Reader::new(&fs);
        for target in ["a/b/x.rs", "gone/x.rs", "c/x.rs"] {
            let ex = explain::explain_path(&setup, &reader, &ws.root, Path::new(target))
                .expect("explain");
            let _ = ex.to_json();
            if host == Host::Alisio && target == "a/b/x.rs" {
                let rows: Vec<(String, Option<String>, usize)> = ex
                    .files
                    .iter()
                    .map(|f| (ex.show(&f.path), f.file.error.clone(), f.file.text.len()))
                    .collect();
                // The root grew past the per-file limit: the read is still cut at 262,144 bytes.
                // a/AGENTS.md vanished: listed with its error. a/b/AGENTS.md became a directory.
                assert_eq!(
                    rows,
                    [
                        ("AGENTS.md".to_string(), None, 262_144),
                        ("a/AGENTS.md".to_string(), Some("not found".to_string()), 0),
                        (
                            "a/b/AGENTS.md".to_string(),
                            Some("is a directory".to_string()),
                            0
                        )
                    ]
                );
            }
        }
        let a = diagnostics::analyze(&setup, false);
        for d in &a.diagnostics {
            assert!(d.span.bytes.start <= d.span.bytes.end, "{d:?}");
        }
    }
}

#[test]
fn check_survives_a_workspace_that_changes_while_it_runs() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root\n");
    let root = ws.root.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && i < 200_000 {
                let d = root.join(format!("churn/{}", i % 7));
                let _ = std::fs::create_dir_all(&d);
                let _ = std::fs::write(d.join("AGENTS.md"), "x".repeat((i % 5000) as usize));
                if i.is_multiple_of(3) {
                    let _ = std::fs::remove_dir_all(&d);
                }
                i += 1;
            }
        })
    };
    for host in ["alisio", "codex", "claude-code", "alisio", "codex"] {
        let r = run(&ws, &["check", "--format", "json", "--host", host]);
        sane(&r);
        let _ = r.json();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    churn.join().unwrap();
}
