//! The language server driven over stdio by a scripted client, the way editors drive it.

#![allow(
    clippy::print_stderr,
    reason = "tests print why they skip and what they measured"
)]

#[path = "../common/mod.rs"]
mod common;
mod harness;
mod hosts;

mod init;
mod instructions;
mod lifecycle;
mod real_clients;
mod robustness;
mod sessions;
mod skills;
