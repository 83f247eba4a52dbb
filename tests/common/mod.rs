//! Shared test harness: a temporary workspace with an isolated environment, and the built
//! `alisio-ls` binary run as a user runs it (stdout, stderr, exit code).
#![allow(dead_code)]

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    /// Fails with the whole stderr unless it contains `needle`.
    pub fn assert_stderr_has(&self, needle: &str) {
        assert!(self.stderr.contains(needle), "{}", self.stderr);
    }

    /// Exit 2 with `error: cfg.json: invalid JSON: …` located at line 2.
    pub fn assert_invalid_cfg_json(&self) {
        assert_eq!(self.code, 2);
        assert!(
            self.stderr.starts_with("error: cfg.json: invalid JSON: "),
            "{}",
            self.stderr
        );
        assert!(self.stderr.contains("line 2 column"), "{}", self.stderr);
    }

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

    /// Writes every `(rel, content)` of `files`, as [`Ws::file`] does.
    pub fn files(&self, files: &[(&str, &str)]) {
        for (rel, content) in files {
            self.file(rel, content);
        }
    }

    /// The names of the root's entries that end in `suffix` (a write's temporary files left
    /// behind, for `.tmp`).
    pub fn root_entries_ending(&self, suffix: &str) -> Vec<String> {
        std::fs::read_dir(&self.root)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(suffix))
            .collect()
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

/// How long one run of the binary may take before the test fails: `ALISIO_TEST_TIMEOUT_SECS`
/// (whole seconds), else 300 s: long enough for a slow debug build on a loaded machine, far
/// shorter than a hang.
pub fn run_limit() -> Duration {
    std::env::var("ALISIO_TEST_TIMEOUT_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| *s > 0)
        .map_or(Duration::from_secs(300), Duration::from_secs)
}

/// Runs `cmd` with stdin closed and its output captured, killing it (and failing the test) when
/// it outlives [`run_limit`], so a hung CLI fails instead of hanging the suite.
pub fn run_cmd(cmd: &mut Command) -> Run {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn alisio-ls");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let limit = run_limit();
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().expect("try_wait") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("alisio-ls did not finish within {limit:?} (ALISIO_TEST_TIMEOUT_SECS): {cmd:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        stdout: String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned(),
        code: status.code().unwrap_or(-1),
    }
}

/// Grows a file to `len` bytes without writing them (a sparse file: large on paper, almost
/// nothing on disk; the new bytes read as NUL).
pub fn grow_sparse(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open to grow")
        .set_len(len)
        .expect("set_len");
}

/// The LSP-style range of a diagnostic in JSON output: (start line, start character, end line,
/// end character).
pub fn range(d: &serde_json::Value) -> (u64, u64, u64, u64) {
    let r = &d["range"];
    let n = |v: &serde_json::Value| v.as_u64().expect("a position number");
    (
        n(&r["start"]["line"]),
        n(&r["start"]["character"]),
        n(&r["end"]["line"]),
        n(&r["end"]["character"]),
    )
}

/// The string fields `keys` of every object of the array `v`, in order (panics on another shape).
pub fn strings<const N: usize>(v: &serde_json::Value, keys: [&str; N]) -> Vec<[String; N]> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|o| keys.map(|k| o[k].as_str().unwrap().to_string()))
        .collect()
}

/// [`strings`] of two keys, as pairs.
pub fn pairs(v: &serde_json::Value, keys: [&str; 2]) -> Vec<(String, String)> {
    strings(v, keys).into_iter().map(|[a, b]| (a, b)).collect()
}

/// [`strings`] of three keys, as triples.
pub fn triples(v: &serde_json::Value, keys: [&str; 3]) -> Vec<(String, String, String)> {
    strings(v, keys)
        .into_iter()
        .map(|[a, b, c]| (a, b, c))
        .collect()
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

#[path = "../../crates/alisio-base/src/testing.rs"]
mod rng;
/// The one test generator, shared with the unit tests (`crates/alisio-base/src/testing.rs`).
#[allow(unused_imports)]
pub use rng::Rng;
