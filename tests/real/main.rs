//! The real-client conformance suite (docs/spec/hosts.md §0): Claude Code, Codex CLI and
//! Gemini CLI, installed by `.ci/setup-clients.sh` at the versions of `tests/real/pins.txt`,
//! run offline in a network namespace against a fake model server on 127.0.0.1; what each one
//! delivered is compared exactly with `alisio-ls context explain --json` (and, for the
//! monorepo cases, with `check`'s diagnostics).
//!
//! `harness = false`: this binary is also the runner inside the namespace
//! (`harness::netns::INNER_ENV`). A missing client or a machine that cannot make a network
//! namespace skips the cases concerned (`ignored`, with the reason).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the suite's own runner prints libtest-style results"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test crate: a failed unwrap is a failed test"
)]

mod harness;

mod audit;
mod claude;
mod codex;
mod families;
mod gemini;
mod mcp;
mod monorepo;
mod skills;
mod skills_matrix;

fn main() {
    if let Some(plan) = std::env::var_os(harness::netns::INNER_ENV) {
        std::process::exit(harness::netns::inner_main(std::path::Path::new(&plan)));
    }
    let mut cases = Vec::new();
    cases.extend(claude::cases());
    cases.extend(monorepo::cases());
    cases.extend(codex::cases());
    cases.extend(gemini::cases());
    cases.extend(audit::cases());
    cases.extend(skills_matrix::cases());
    cases.extend(skills::cases());
    cases.extend(families::cases());
    cases.extend(mcp::cases());
    std::process::exit(harness::runner::main(cases));
}
