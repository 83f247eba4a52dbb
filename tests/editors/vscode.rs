//! The VS Code extension's unit tests (`npm test` in editors/vscode: node:test, `vscode`
//! stubbed): server discovery, trust handling, settings mapping, views. Skips when
//! `editors/vscode/node_modules` is absent (`.ci/setup-editors.sh` runs `npm ci`).

use std::process::Command;
use std::time::Duration;

use crate::{repo_root, run_with_timeout};

#[test]
fn vscode_extension_unit_tests_pass() {
    let dir = repo_root().join("editors").join("vscode");
    if !dir.join("node_modules").is_dir() {
        eprintln!(
            "skipped: {} is absent (run .ci/setup-editors.sh)",
            dir.join("node_modules").display()
        );
        return;
    }
    for tool in ["node", "npm"] {
        if Command::new(tool).arg("--version").output().is_err() {
            eprintln!("skipped: {tool} is not on PATH");
            return;
        }
    }
    let o = run_with_timeout(
        Command::new("npm")
            .args(["test", "--silent"])
            .current_dir(&dir),
        Duration::from_secs(180),
    );
    o.assert_success("npm test");
    // node:test's TAP summary (stdout is a pipe): at least one test ran and none failed.
    let count = |label: &str| -> Option<usize> {
        o.stdout.lines().find_map(|l| {
            l.trim()
                .strip_prefix(label)
                .and_then(|n| n.trim().parse().ok())
        })
    };
    assert!(
        count("# pass").is_some_and(|n| n > 0),
        "no passing test reported:\n{}",
        o.stdout
    );
    assert_eq!(count("# fail"), Some(0), "{}", o.stdout);
}
