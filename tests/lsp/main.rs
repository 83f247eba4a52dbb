//! The language server driven over stdio by a scripted client, the way editors drive it.

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
#[path = "../cli/fake.rs"]
mod fake;
mod harness;
mod hosts;

mod audit;
mod chat;
mod families;
mod families_copilot;
mod init;
mod instructions;
mod lifecycle;
mod real_clients;
mod report;
mod review;
mod robustness;
mod sandbox;
mod sessions;
mod skills;
mod startup;
mod suppress;
