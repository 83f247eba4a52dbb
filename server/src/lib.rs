//! alisio-ls: a language server and command-line tool for the files that steer coding agents,
//! `AGENTS.md` instruction files and Agent Skills (`SKILL.md`).
//!
//! This crate is the top layer: the language server (`lsp`) and the command line (`cli`), over
//! the workspace's other crates (ARCHITECTURE.md): `alisio-base` (text, diagnostic, config,
//! suppress, workspace), `alisio-rules` (instructions, skills), `alisio-governor`,
//! `alisio-sandbox` and `alisio-session`. It re-exports them under their module names, so
//! `alisio_ls::governor::…` keeps naming what it named before the split (the fuzz targets and
//! the library tests use these paths).

pub mod cli;
pub mod lsp;
#[cfg(test)]
mod testing;

pub use alisio_base::{config, diagnostic, suppress, text, workspace};
pub use alisio_governor as governor;
pub use alisio_rules::{instructions, skills};
pub use alisio_sandbox as sandbox;
pub use alisio_session as session;
