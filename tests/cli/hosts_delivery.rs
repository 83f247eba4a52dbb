//! hosts.md H3/H4 for the existing hosts, the `hosts.*` messages, and `--host` values.

use crate::common::Ws;
use crate::hosts_util::{explain, f, files, run};

#[test]
fn h3_existing_hosts_deliver_always_and_claude_path_rules_on_access() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    ws.file("src/AGENTS.md", "src");
    let v = explain(&ws, "alisio", "src/a.rs", "");
    assert_eq!(
        files(&v),
        [
            f("AGENTS.md", "agents", "always"),
            f("src/AGENTS.md", "agents", "always")
        ]
    );
    assert_eq!(v["notLoaded"], serde_json::json!([]));
    let v = explain(&ws, "codex", "src/a.rs", "");
    assert_eq!(files(&v)[1], f("src/AGENTS.md", "agents", "always"));
    ws.file("CLAUDE.md", "claude");
    ws.file(
        ".claude/rules/rust.md",
        "---\npaths: [\"src/**/*.rs\"]\n---\nrust",
    );
    let mut c = ws.cmd();
    c.env("ALISIO_CLAUDE_MANAGED_FILE", ws.tmp.path().join("none"));
    let r = crate::common::run_cmd(c.args([
        "context",
        "explain",
        "--json",
        "--host",
        "claude-code",
        "src/a.rs",
    ]));
    assert_eq!(
        files(&r.json()),
        [
            f("CLAUDE.md", "claude", "always"),
            f(".claude/rules/rust.md", "rule", "on-access")
        ]
    );
}

#[test]
fn host_settings_have_exact_messages_and_exit_2() {
    let ws = Ws::new();
    for (cfg, msg) in [
        (
            r#"{"hosts":{"gemini":{"folderTrust":"yes"}}}"#,
            r#"hosts.gemini.folderTrust must be "off", "trusted" or "untrusted"; got "yes""#,
        ),
        (
            r#"{"hosts":{"copilot":{"useNestedAgentsMdFiles":1}}}"#,
            "hosts.copilot.useNestedAgentsMdFiles must be true or false; got 1",
        ),
        (
            r#"{"hosts":{"enabled":["cursor","emacs"]}}"#,
            r#"hosts.enabled must be an array of host names ("alisio", "codex", "claude-code", "copilot", "gemini" or "cursor"); got "emacs""#,
        ),
    ] {
        let r = run(
            &ws,
            cfg,
            &["context", "explain", "--host", "gemini", "a.ts"],
        );
        assert_eq!(r.code, 2, "{r:?}");
        let p = ws.tmp.path().join("cfg.json");
        assert_eq!(
            r.stderr.trim_end(),
            format!("error: {}: {msg}", p.display())
        );
    }
}

#[test]
fn every_host_is_accepted_by_check_and_explain() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    for h in [
        "alisio",
        "codex",
        "claude-code",
        "copilot",
        "gemini",
        "cursor",
    ] {
        let r = run(&ws, "", &["check", "--host", h]);
        assert_eq!(r.code, 0, "{h}: {r:?}");
    }
    let r = run(&ws, "", &["context", "explain", "--host", "zed", "a"]);
    assert_eq!(r.code, 2);
}

#[test]
fn h2_a_file_over_4_mib_is_not_read() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "a".repeat(4 * 1024 * 1024 + 1));
    ws.file("CLAUDE.md", "small");
    let v = explain(&ws, "copilot", "x.ts", "");
    assert_eq!(files(&v), [f("CLAUDE.md", "claude", "always")]);
    assert_eq!(
        v["notLoaded"],
        serde_json::json!([{"path": "AGENTS.md", "reason": "over 4 MiB; not read by alisio-ls"}])
    );
}
