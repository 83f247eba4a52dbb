//! The hostile-workspace suite (docs/security.md): repositories built to hurt the tool —
//! symlinks out of the workspace and in loops, `..` and absolute paths, a 100 MB AGENTS.md,
//! devices where files are expected, invalid UTF-8 names, a 10,000-deep directory chain,
//! permission-denied directories, files that vanish during a scan, an untrusted project
//! configuration pointing outside. Each goes through the CLI (`check`, `context explain`,
//! `skills list`) and the language server over stdio. Every run has a timeout (a hang fails
//! the test, it never blocks the suite); nothing asserts on time.

#![allow(
    clippy::print_stderr,
    reason = "tests print why they skip and what they measured"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test crate: a failed unwrap is a failed test"
)]

#[path = "../common/mod.rs"]
mod common;
#[path = "../lsp/harness.rs"]
mod harness;
#[path = "../cli/sess.rs"]
mod sess;

mod cli;
mod library;
mod sandbox;
mod server;
mod sessions;
mod soak;
mod util;
