//! The CLI as a user runs it: the built binary, its stdout, stderr and exit code.

#[path = "../common/mod.rs"]
mod common;

mod config;
mod governor;
mod instructions;
mod instructions_corpus;
mod instructions_hosts;
mod instructions_robustness;
mod skills_corpus;
mod skills_discovery;
mod skills_hostile;
mod skills_validate;
