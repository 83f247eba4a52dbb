//! Shared test harness: a temporary workspace with an isolated environment, and the built
//! `alisio-ls` binary run as a user runs it (stdout, stderr, exit code).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A temporary workspace `ws/` (with `.git/`) beside an empty config home and an empty `HOME`.
pub struct Ws {
    pub tmp: tempfile::TempDir,
    /// Canonical path of the workspace root.
    pub root: PathBuf,
    pub config_home: PathBuf,
    pub home: PathBuf,
}

/// What a run of the binary printed.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

impl Ws {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = tmp.path().canonicalize().expect("canonical tempdir");
        let root = base.join("ws");
        let config_home = base.join("config-home");
        let home = base.join("home");
        for d in [&root, &config_home, &home] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::create_dir(root.join(".git")).expect("mkdir .git");
        Self {
            tmp,
            root,
            config_home,
            home,
        }
    }

    /// Writes a file below the workspace (parents created).
    pub fn file(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        write(&self.root.join(rel), content)
    }

    pub fn dir(&self, rel: &str) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(&p).expect("mkdir");
        p
    }

    /// The binary with a clean environment: config home, HOME and state home are this
    /// workspace's, never the machine's.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(bin());
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("ALISIO_CONFIG_HOME", &self.config_home)
            .env("ALISIO_STATE_HOME", self.tmp.path().join("state"))
            .env("CODEX_HOME", self.home.join(".codex"))
            .current_dir(&self.root);
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        run_cmd(self.cmd().args(args))
    }
}

pub fn write(path: &Path, content: impl AsRef<[u8]>) -> PathBuf {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).expect("mkdir parents");
    }
    std::fs::write(path, content).expect("write");
    path.to_path_buf()
}

pub fn run_cmd(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("run alisio-ls");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_alisio-ls"))
}

/// `../shared/corpus` beside the project, when present (tests that need it skip otherwise).
pub fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    p.is_dir()
        .then(|| p.canonicalize().expect("canonical corpus"))
}

/// Copies a directory tree (a bundled example into a test workspace).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

/// xorshift64*: a tiny deterministic generator for randomized tests, so a failure is
/// reproducible from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}
