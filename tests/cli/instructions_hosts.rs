//! Diagnostics of the `codex` and `claude-code` simulations beyond the checklist.

use serde_json::Value;

use crate::common::{Ws, triples, write};

fn check(ws: &Ws, host: &str) -> Value {
    let mut c = ws.cmd();
    c.env(
        "ALISIO_CLAUDE_MANAGED_FILE",
        ws.tmp.path().join("managed/CLAUDE.md"),
    );
    let r = crate::common::run_cmd(c.args(["check", "--format", "json", "--host", host]));
    assert!(r.code == 0 || r.code == 1, "{r:?}");
    r.json()
}

fn diags(v: &Value) -> Vec<(String, String, String)> {
    triples(&v["diagnostics"], ["file", "code", "message"])
}

fn t(f: &str, c: &str, m: &str) -> (String, String, String) {
    (f.to_string(), c.to_string(), m.to_string())
}

#[test]
fn codex_fallback_losers_are_hidden_and_near_misses_name_codex() {
    let ws = Ws::new();
    write(
        &ws.home.join(".codex/config.toml"),
        "project_doc_fallback_filenames = [\"CLAUDE.md\", \"GUIDE.md\"]\n",
    );
    ws.files(&[
        ("AGENTS.md", "root"),
        ("CLAUDE.md", "claude"),
        ("GUIDE.md", "guide"),
        ("sub/CLAUDE.md", "claude"),
        ("sub/GUIDE.md", "guide"),
        ("sub/agents.override.md", "near"),
        ("sub/AGENT.md", "not a codex name"),
    ]);
    let v = check(&ws, "codex");
    assert_eq!(
        diags(&v),
        [
            t(
                "CLAUDE.md",
                "instructions-claude-ignored",
                "not read: AGENTS.md in the same directory wins"
            ),
            t(
                "GUIDE.md",
                "instructions-hidden",
                "never read: AGENTS.md in the same directory wins"
            ),
            t(
                "sub/GUIDE.md",
                "instructions-hidden",
                "never read: CLAUDE.md in the same directory wins"
            ),
            t(
                "sub/agents.override.md",
                "instructions-unread-name",
                "not read: codex reads \"AGENTS.override.md\" (names are case-sensitive)"
            ),
        ]
    );
}

#[test]
fn codex_dropped_files_name_the_files_above() {
    let ws = Ws::new();
    write(
        &ws.home.join(".codex/config.toml"),
        "project_doc_max_bytes = 1024\n",
    );
    ws.file("AGENTS.md", "a".repeat(1024));
    ws.file("x/AGENTS.md", "b".repeat(10));
    let v = check(&ws, "codex");
    assert_eq!(
        diags(&v),
        [t(
            "x/AGENTS.md",
            "instructions-dropped",
            "Codex does not read this file for 1 directory (e.g. x): the files above it (AGENTS.md) use the whole project_doc_max_bytes budget (1024)"
        )]
    );
    assert_eq!(v["diagnostics"][0]["related"][0]["file"], "AGENTS.md");
}

#[cfg(unix)]
#[test]
fn codex_and_claude_follow_symlinked_files() {
    let ws = Ws::new();
    ws.file("docs/guide.md", "shared rules");
    std::os::unix::fs::symlink("docs/guide.md", ws.root.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("docs/guide.md", ws.root.join("CLAUDE.md")).unwrap();
    for host in ["codex", "claude-code"] {
        let r = ws.run(&["context", "explain", "--json", "--host", host, "."]);
        let files = r.json()["files"].clone();
        assert_eq!(files.as_array().unwrap().len(), 1, "{host}: {files}");
        assert_eq!(files[0]["bytes"], 12, "{host}: {files}");
    }
    assert_eq!(
        diags(&check(&ws, "codex")),
        [t(
            "CLAUDE.md",
            "instructions-claude-ignored",
            "not read: project_doc_fallback_filenames does not list CLAUDE.md"
        )]
    );
    // spec/instructions.md §5.2: AGENTS.md's text is delivered (CLAUDE.md is a link to the
    // same file), so it is not "not read".
    assert_eq!(diags(&check(&ws, "claude-code")), []);
}

#[test]
fn claude_code_reports_near_misses_invalid_utf8_and_empty_files() {
    let ws = Ws::new();
    ws.file("claude.md", "lower");
    ws.file("CLAUDE.md", b"ok \xFE\n");
    ws.file("sub/CLAUDE.local.md", "\n\n");
    ws.file(".gitignore", "CLAUDE.local.md\n");
    let v = check(&ws, "claude-code");
    assert_eq!(
        diags(&v),
        [
            t(
                "CLAUDE.md",
                "instructions-invalid-utf8",
                "1 invalid UTF-8 sequence(s) reach the model as U+FFFD (first at line 1)"
            ),
            t(
                "claude.md",
                "instructions-unread-name",
                "not read: claude-code reads \"CLAUDE.md\" (names are case-sensitive)"
            ),
            t(
                "sub/CLAUDE.local.md",
                "instructions-empty",
                "empty instruction file: it adds nothing"
            ),
        ]
    );
}

#[test]
fn codex_target_outside_the_workspace_lists_only_the_global_file() {
    let ws = Ws::new();
    write(&ws.home.join(".codex/AGENTS.md"), "global");
    let outside = ws.tmp.path().join("elsewhere");
    write(&outside.join("AGENTS.md"), "outside");
    std::fs::create_dir_all(outside.join(".git")).unwrap();
    let r = ws.run(&[
        "context",
        "explain",
        "--json",
        "--host",
        "codex",
        outside.join("x").to_str().unwrap(),
    ]);
    let v = r.json();
    assert_eq!(v["outsideWorkspace"], true);
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(v["files"][0]["scope"], "global");
}

#[test]
fn config_home_inside_the_workspace_lists_its_file_once_as_global() {
    let ws = Ws::new();
    ws.file("cfg/AGENTS.md", "global and chain");
    ws.file("AGENTS.md", "root");
    let mut c = ws.cmd();
    c.env("ALISIO_CONFIG_HOME", ws.root.join("cfg"));
    let r = crate::common::run_cmd(c.args(["context", "explain", "--json", "cfg/x"]));
    let v = r.json();
    let got: Vec<(&str, &str)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["scope"].as_str().unwrap()))
        .collect();
    assert_eq!(got, [("cfg/AGENTS.md", "global"), ("AGENTS.md", "project")]);
}

#[test]
fn claude_explain_from_a_session_dir_leaves_nested_agents_md_out() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    ws.file("pkg/AGENTS.md", "pkg agents");
    ws.file("pkg/CLAUDE.md", "pkg claude");
    ws.file("pkg/x.txt", "x");
    let paths = |v: &serde_json::Value| -> Vec<String> {
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    };
    let own = ws
        .run(&[
            "context",
            "explain",
            "--json",
            "--host",
            "claude-code",
            "--trust-project",
            "pkg/x.txt",
        ])
        .json();
    assert_eq!(paths(&own), ["pkg/CLAUDE.md"]);
    let ws2 = Ws::new();
    ws2.file("AGENTS.md", "root");
    ws2.file("pkg/AGENTS.md", "pkg agents");
    ws2.file("pkg/x.txt", "x");
    let own = ws2
        .run(&[
            "context",
            "explain",
            "--json",
            "--host",
            "claude-code",
            "pkg/x.txt",
        ])
        .json();
    assert_eq!(paths(&own), ["AGENTS.md", "pkg/AGENTS.md"]);
    let from_root = ws2
        .run(&[
            "context",
            "explain",
            "--json",
            "--host",
            "claude-code",
            "--session-dir",
            ".",
            "pkg/x.txt",
        ])
        .json();
    assert_eq!(paths(&from_root), ["AGENTS.md"]);
}
