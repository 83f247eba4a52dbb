//! The base of alisio-ls: what every layer shares. Text positions and measures (`text`), the
//! diagnostic value (`diagnostic`) and its rule catalogue (`rules`), configuration (`config`), suppressions (`suppress`) and the
//! workspace (`Fs`, `Env`, root detection, the walk, the one atomic write: `workspace`).
//!
//! Plain Rust: no protocol, async runtime or command-line types (ARCHITECTURE.md; the crate's
//! dependencies are the proof).

pub mod config;
pub mod diagnostic;
pub mod rules;
pub mod suppress;
#[doc(hidden)]
pub mod testing;
pub mod text;
pub mod workspace;
