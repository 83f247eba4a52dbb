//! alisio-ls: a language server and command-line tool for the files that steer coding agents,
//! `AGENTS.md` instruction files and Agent Skills (`SKILL.md`).
//!
//! See `ARCHITECTURE.md` for the module map. Core modules (`text`, `diagnostic`, `config`,
//! `workspace`, `instructions`, `skills`, `governor`) are plain Rust with no protocol or async
//! types; `cli` and `lsp` adapt them to the terminal and to the Language Server Protocol.

pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod governor;
pub mod instructions;
pub mod lsp;
pub mod session;
pub mod skills;
#[cfg(test)]
mod testing;
pub mod text;
pub mod workspace;
