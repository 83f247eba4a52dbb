//! The rules of alisio-ls over the files that steer agents: how each host loads instruction
//! files (`instructions`), Agent Skills discovery, validation and the catalog (`skills`), and
//! the fixes `check --fix` applies (`fix`).
//!
//! Plain Rust over `alisio-base`: no protocol, async runtime or command-line types.

pub mod families;
pub mod fix;
pub mod instructions;
pub mod skills;
