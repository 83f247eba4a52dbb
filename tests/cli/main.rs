//! The CLI as a user runs it: the built binary, its stdout, stderr and exit code.

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

mod agnix;
mod audit;
mod completions;
mod config;
mod crash;
mod fake;
mod families;
mod families_copilot;
mod fix;
mod governor;
mod governor_delegation;
mod governor_html;
mod governor_policy2;
mod governor_recorded;
mod hosts_copilot;
mod hosts_cursor;
mod hosts_delivery;
mod hosts_diagnostics;
mod hosts_gemini;
mod hosts_util;
mod init;
mod instructions;
mod instructions_corpus;
mod instructions_hosts;
mod instructions_robustness;
mod rules;
mod run;
mod run_compaction;
mod run_coordinator;
mod run_example;
mod run_governor;
mod run_honest;
mod run_leftovers;
mod run_nested;
mod run_providers;
mod run_relay;
mod run_replay;
mod run_report;
mod run_result_read;
mod run_skills;
mod run_subagents;
mod run_tools;
mod sess;
mod sessions;
mod sessions_human;
mod ship;
mod skills_corpus;
mod skills_discovery;
mod skills_hostile;
mod skills_listing;
mod skills_listing_real;
mod skills_live;
mod skills_matrix;
mod skills_quality;
mod skills_trigger_lab;
mod skills_validate;
mod suppress;
