//! The rules of alisio-ls over the files that steer agents: how each host loads instruction
//! files (`instructions`) and Agent Skills discovery, validation and the catalog (`skills`).
//!
//! Plain Rust over `alisio-base`: no protocol, async runtime or command-line types.

pub mod instructions;
pub mod skills;
