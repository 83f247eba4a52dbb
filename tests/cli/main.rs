//! The CLI as a user runs it: the built binary, its stdout, stderr and exit code.

#[path = "../common/mod.rs"]
mod common;

mod config;
mod skills_discovery;
mod skills_validate;
mod skills_hostile;
mod skills_corpus;
