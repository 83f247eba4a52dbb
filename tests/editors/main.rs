//! Real editor clients against the built server: the headless Neovim probe of
//! `tests/clients/neovim/collect.lua` loading the shipped `editors/neovim` plugin, the VS Code
//! extension's unit tests (plain Node, `vscode` stubbed), and the opt-in code-server smoke test.
//! Each test skips cleanly, with the reason on stderr, when its client is not installed
//! (`.ci/setup-editors.sh` installs them).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test crate: a failed unwrap is a failed test"
)]
// A skipped test says why on stderr, by design.
#![allow(clippy::print_stderr)]

#[path = "../common/mod.rs"]
mod common;

mod code_server;
mod neovim;
mod neovim_ship;
mod vscode;

use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The repository root (the parent of `server/`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("server/ has a parent")
        .to_path_buf()
}

/// The server binary the clients start: `ALISIO_LS_BIN` when set, else the one cargo built.
pub fn server_bin() -> PathBuf {
    match std::env::var_os("ALISIO_LS_BIN") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_alisio-ls")),
    }
}

/// The target directory (where `.ci/setup-editors.sh` puts the Neovim venv).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => repo_root().join("target"),
    }
}

pub struct Output {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// Fails with the status and both outputs unless the command succeeded (`what`: its name).
    pub fn assert_success(&self, what: &str) {
        assert!(
            self.status.success(),
            "{what} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
    }
}

/// Runs `cmd` to completion with piped output, killing it after `limit`.
pub fn run_with_timeout(cmd: &mut Command, limit: Duration) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child: Child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: t_out.join().unwrap_or_default(),
        stderr: t_err.join().unwrap_or_default(),
    }
}
