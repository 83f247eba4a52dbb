//! The opt-in real VS Code smoke test (code-server in headless Chromium, driven by
//! playwright-core): `tests/clients/code-server/smoke.sh`. It installs Node 24, code-server and
//! Chromium (minutes), so it runs only with `ALISIO_HEAVY_TESTS=1`. Its phases: the bundled server's
//! diagnostics, an agent session with the real server's `script` provider, the agent phase
//! (a coordinator session and its relay chain, review of a write hunk by hunk, the Changes
//! view's undo, Rewind to here), the scripted stand-in's chat/explain/catalog/toggle views,
//! workspace trust, and ground (the Audit Sessions view over a Claude Code session file, reached
//! from the AGENTS.md lens; the Skill Triggers view). `ALISIO_SMOKE_FULL=1` adds the
//! checks of server features still being wired (SKILL.md diagnostic, code lenses).

use std::process::Command;
use std::time::Duration;

use crate::{repo_root, run_with_timeout, server_bin};

#[test]
fn code_server_smoke_test_shows_diagnostics_chat_approvals_and_context_report_in_real_vscode() {
    if std::env::var("ALISIO_HEAVY_TESTS").as_deref() != Ok("1") {
        eprintln!("skipped: set ALISIO_HEAVY_TESTS=1 to run the code-server + Chromium smoke test");
        return;
    }
    let script = repo_root().join("tests/clients/code-server/smoke.sh");
    let o = run_with_timeout(
        Command::new("bash")
            .arg(&script)
            .env("ALISIO_LS_BIN", server_bin())
            .current_dir(repo_root()),
        Duration::from_secs(1500),
    );
    o.assert_success("smoke test");
    assert!(o.stdout.contains("SMOKE OK"), "{}", o.stdout);
    // What each phase checked (visible with --nocapture).
    eprintln!("{}", o.stdout);
}
