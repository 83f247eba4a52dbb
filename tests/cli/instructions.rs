//! Conformance checklist of spec/instructions.md §8 (cases 1–39 and 45–49) through the built binary.

use serde_json::Value;

use crate::common::{Run, Ws, pairs, range, write};

type Row = (String, String, u64, u64, String);

fn run_in(ws: &Ws, args: &[&str]) -> Run {
    let mut c = ws.cmd();
    c.env(
        "ALISIO_CLAUDE_MANAGED_FILE",
        ws.tmp.path().join("managed/CLAUDE.md"),
    );
    crate::common::run_cmd(c.args(args))
}

fn explain(ws: &Ws, path: &str, extra: &[&str]) -> Value {
    let mut a = vec!["context", "explain", "--json", path];
    a.extend(extra);
    let r = run_in(ws, &a);
    assert_eq!(r.code, 0, "{r:?}");
    r.json()
}

fn rows(v: &Value) -> Vec<Row> {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["kind"].as_str().unwrap().to_string(),
                f["bytes"].as_u64().unwrap(),
                f["keptBytes"].as_u64().unwrap(),
                f["truncation"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn row(p: &str, k: &str, b: u64, kept: u64, t: &str) -> Row {
    (p.to_string(), k.to_string(), b, kept, t.to_string())
}

fn check(ws: &Ws, extra: &[&str]) -> Value {
    let mut a = vec!["check", "--format", "json"];
    a.extend(extra);
    let r = run_in(ws, &a);
    assert!(r.code == 0 || r.code == 1, "{r:?}");
    r.json()
}

/// `(code, severity, message)` of every diagnostic of `file`.
fn diags(v: &Value, file: &str) -> Vec<(String, String, String)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == file)
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn diag<'v>(v: &'v Value, file: &str, code: &str) -> &'v Value {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file"] == file && d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} on {file}: {v:#}"))
}

fn d3(code: &str, sev: &str, msg: &str) -> (String, String, String) {
    (code.to_string(), sev.to_string(), msg.to_string())
}

/// `file` has exactly this one diagnostic in the `check` output `c`.
fn only(c: &Value, file: &str, code: &str, sev: &str, msg: &str) {
    assert_eq!(diags(c, file), [d3(code, sev, msg)], "{file}");
}

fn a(n: usize) -> String {
    "a".repeat(n)
}

fn config(ws: &Ws, json: &str) -> &'static [&'static str] {
    ws.file("cfg.json", json);
    &["--config", "cfg.json"]
}

#[cfg(unix)]
fn symlink(target: impl AsRef<std::path::Path>, link: impl AsRef<std::path::Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn case_01_root_file_applies_to_an_absent_path() {
    let ws = Ws::new();
    ws.file("AGENTS.md", a(100));
    let v = explain(&ws, "src/a.rs", &[]);
    assert_eq!(rows(&v), [row("AGENTS.md", "agents", 100, 100, "none")]);
    assert_eq!(v["omittedBytes"], 0);
    assert_eq!(v["notice"], Value::Null);
    assert_eq!(v["path"], "src/a.rs");
    assert_eq!(v["host"], "alisio");
    assert_eq!(v["maxBytes"], 32768);
    assert_eq!(v["workspace"], ws.root.to_str().unwrap());
    assert_eq!(v["files"][0]["scope"], "project");
    assert_eq!(v["files"][0]["fileBytes"], 100);
    assert_eq!(v["outsideWorkspace"], false);
}

#[test]
fn case_02_override_hides_agents_md_in_same_directory() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    ws.file("src/AGENTS.override.md", "over\nmore");
    ws.file("src/AGENTS.md", "plain");
    let v = explain(&ws, "src/x", &[]);
    assert_eq!(
        rows(&v),
        [
            row("AGENTS.md", "agents", 4, 4, "none"),
            row("src/AGENTS.override.md", "override", 9, 9, "none")
        ]
    );
    let c = check(&ws, &[]);
    only(
        &c,
        "src/AGENTS.md",
        "instructions-hidden-by-override",
        "warning",
        "never read: AGENTS.override.md in the same directory replaces it",
    );
    let d = diag(&c, "src/AGENTS.md", "instructions-hidden-by-override");
    assert_eq!(range(d), (0, 0, 0, 5));
    assert_eq!(d["related"][0]["file"], "src/AGENTS.override.md");
    assert_eq!(range(&d["related"][0]), (0, 0, 0, 4));
}

#[test]
fn case_03_agent_md_alone_is_a_legacy_winner() {
    let ws = Ws::new();
    ws.file("AGENT.md", "legacy");
    assert_eq!(
        rows(&explain(&ws, ".", &[])),
        [row("AGENT.md", "legacy", 6, 6, "none")]
    );
    let c = check(&ws, &[]);
    only(
        &c,
        "AGENT.md",
        "instructions-legacy-name",
        "information",
        "AGENT.md is read as a legacy alias; rename it to AGENTS.md",
    );
    assert_eq!(
        range(diag(&c, "AGENT.md", "instructions-legacy-name")),
        (0, 0, 0, 6)
    );
}

#[test]
fn case_04_agent_md_beside_agents_md_is_hidden() {
    let ws = Ws::new();
    ws.file("AGENT.md", "old");
    ws.file("AGENTS.md", "new");
    assert_eq!(
        rows(&explain(&ws, ".", &[])),
        [row("AGENTS.md", "agents", 3, 3, "none")]
    );
    let c = check(&ws, &[]);
    only(
        &c,
        "AGENT.md",
        "instructions-hidden",
        "warning",
        "never read: AGENTS.md in the same directory wins",
    );
    assert_eq!(
        diag(&c, "AGENT.md", "instructions-hidden")["related"][0]["file"],
        "AGENTS.md"
    );
}

#[test]
fn case_05_claude_md_is_ignored_with_the_fallback_off() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "claude");
    assert_eq!(rows(&explain(&ws, ".", &[])), []);
    let c = check(&ws, &[]);
    only(
        &c,
        "CLAUDE.md",
        "instructions-claude-ignored",
        "hint",
        "not read: context.claudeMdFallback is off",
    );
}

#[test]
fn case_06_claude_md_is_read_with_the_fallback_on() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "claude");
    let cfg = config(&ws, r#"{"context": {"claudeMdFallback": true}}"#);
    assert_eq!(
        rows(&explain(&ws, ".", cfg)),
        [row("CLAUDE.md", "claude", 6, 6, "none")]
    );
}

#[test]
fn case_07_agents_md_beats_claude_md_with_the_fallback_on() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "claude");
    ws.file("AGENTS.md", "agents");
    let cfg = config(&ws, r#"{"context": {"claudeMdFallback": true}}"#);
    assert_eq!(
        rows(&explain(&ws, ".", cfg)),
        [row("AGENTS.md", "agents", 6, 6, "none")]
    );
    let c = check(&ws, cfg);
    only(
        &c,
        "CLAUDE.md",
        "instructions-claude-ignored",
        "hint",
        "not read: AGENTS.md in the same directory wins",
    );
}

#[test]
fn case_08_agente_md_is_never_read() {
    let ws = Ws::new();
    ws.file("Agente.md", "viejo");
    assert_eq!(rows(&explain(&ws, ".", &[])), []);
    let c = check(&ws, &[]);
    only(
        &c,
        "Agente.md",
        "instructions-unread-name",
        "warning",
        "not read: Agente.md is no longer read; rename it to AGENTS.md",
    );
}

#[test]
fn case_09_lowercase_agents_md_is_a_near_miss() {
    let ws = Ws::new();
    ws.file("agents.md", "lower");
    ws.file("sub/AGENTS.MD", "upper");
    assert_eq!(rows(&explain(&ws, "sub/x", &[])), []);
    let c = check(&ws, &[]);
    let msg = "not read: alisio reads \"AGENTS.md\" (names are case-sensitive)";
    assert_eq!(
        diags(&c, "agents.md"),
        [d3("instructions-unread-name", "warning", msg)]
    );
    assert_eq!(
        diags(&c, "sub/AGENTS.MD"),
        [d3("instructions-unread-name", "warning", msg)]
    );
}

#[test]
fn case_10_directory_named_agents_md_is_not_a_candidate() {
    let ws = Ws::new();
    ws.dir("AGENTS.md");
    ws.file("AGENTS.md/inner.txt", "x");
    ws.file("AGENT.md", "legacy");
    assert_eq!(
        rows(&explain(&ws, ".", &[])),
        [row("AGENT.md", "legacy", 6, 6, "none")]
    );
    let c = check(&ws, &[]);
    let all: Vec<String> = c["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {}", d["file"], d["code"]))
        .collect();
    assert_eq!(all, ["\"AGENT.md\" \"instructions-legacy-name\""]);
}

#[cfg(unix)]
#[test]
fn case_11_symlinked_agents_md_is_skipped_and_reported() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "claude text");
    symlink("CLAUDE.md", ws.root.join("AGENTS.md"));
    let v = explain(&ws, ".", &[]);
    assert_eq!(rows(&v), []);
    assert_eq!(
        v["skipped"],
        serde_json::json!([{"path": "AGENTS.md", "reason": "symlink"}])
    );
    let c = check(&ws, &[]);
    only(
        &c,
        "AGENTS.md",
        "instructions-symlink",
        "error",
        "not read: AGENTS.md is a symbolic link to CLAUDE.md",
    );
    assert_eq!(
        range(diag(&c, "AGENTS.md", "instructions-symlink")),
        (0, 0, 0, 0)
    );
    only(
        &c,
        "CLAUDE.md",
        "instructions-claude-ignored",
        "hint",
        "not read: context.claudeMdFallback is off",
    );
    let r = run_in(&ws, &["check"]);
    assert_eq!(r.code, 1, "an error-level diagnostic fails check: {r:?}");
    let cfg = config(&ws, r#"{"context": {"claudeMdFallback": true}}"#);
    assert_eq!(
        rows(&explain(&ws, ".", cfg)),
        [row("CLAUDE.md", "claude", 11, 11, "none")]
    );
}

#[cfg(unix)]
#[test]
fn case_12_symlink_to_a_file_outside_never_leaks_its_bytes() {
    let ws = Ws::new();
    let secret = write(
        &ws.tmp.path().join("outside/secret.txt"),
        "SECRET-MARKER-1234",
    );
    symlink(&secret, ws.root.join("AGENTS.md"));
    let r = run_in(&ws, &["context", "explain", "--json", "."]);
    assert_eq!(r.code, 0);
    assert!(!r.stdout.contains("SECRET-MARKER"));
    assert_eq!(rows(&r.json()), []);
    std::fs::remove_file(ws.root.join("AGENTS.md")).unwrap();
    symlink("/etc/hostname", ws.root.join("AGENTS.md"));
    let r = run_in(&ws, &["context", "explain", "."]);
    assert_eq!(r.code, 0);
    // The whole output, exactly: nothing of the symlink's target (/etc/hostname) is shown.
    assert_eq!(
        r.stdout,
        "Instructions for . (host alisio, max 32768 bytes)\n\
         no instruction file applies\n\
         skipped AGENTS.md: symlink\n"
    );
}

#[cfg(unix)]
#[test]
fn case_13_symlinked_chain_directory_ends_the_walk() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    ws.file("real/AGENTS.md", "real");
    symlink(ws.root.join("real"), ws.root.join("src"));
    let v = explain(&ws, "src/x.rs", &[]);
    assert_eq!(rows(&v), [row("AGENTS.md", "agents", 4, 4, "none")]);
    assert_eq!(
        v["skipped"],
        serde_json::json!([{"path": "src", "reason": "symlink"}])
    );
    let v = explain(&ws, "real/x.rs", &[]);
    assert_eq!(
        rows(&v),
        [
            row("AGENTS.md", "agents", 4, 4, "none"),
            row("real/AGENTS.md", "agents", 4, 4, "none")
        ]
    );
    assert_eq!(v["skipped"], serde_json::json!([]));
}

#[test]
fn case_14_global_override_replaces_the_global_agents_md() {
    let ws = Ws::new();
    write(&ws.config_home.join("AGENTS.override.md"), a(50));
    write(&ws.config_home.join("AGENTS.md"), a(60));
    let v = explain(&ws, ".", &[]);
    let g = ws.config_home.join("AGENTS.override.md");
    assert_eq!(
        rows(&v),
        [row(g.to_str().unwrap(), "override", 50, 50, "none")]
    );
    assert_eq!(v["files"][0]["scope"], "global");
    let plain = ws.config_home.join("AGENTS.md");
    let c = check(&ws, &[plain.to_str().unwrap()]);
    assert_eq!(
        diags(&c, plain.to_str().unwrap()),
        [d3(
            "instructions-hidden-by-override",
            "warning",
            "never read: AGENTS.override.md in the same directory replaces it"
        )]
    );
    // Without naming it, check stays inside the workspace.
    let c = check(&ws, &[]);
    assert_eq!(c["diagnostics"], serde_json::json!([]));
}

#[test]
fn case_15_global_agent_md_is_never_read() {
    let ws = Ws::new();
    write(&ws.config_home.join("AGENT.md"), "x");
    write(&ws.config_home.join("CLAUDE.md"), "x");
    assert_eq!(rows(&explain(&ws, ".", &[])), []);
}

#[cfg(unix)]
#[test]
fn case_16_global_file_follows_symlinks() {
    let ws = Ws::new();
    let dot = write(&ws.tmp.path().join("dotfiles/agents.md"), "from dotfiles");
    symlink(&dot, ws.config_home.join("AGENTS.md"));
    let v = explain(&ws, ".", &[]);
    let g = ws.config_home.join("AGENTS.md");
    assert_eq!(
        rows(&v),
        [row(g.to_str().unwrap(), "agents", 13, 13, "none")]
    );
}

fn case_17_layout(ws: &Ws) {
    write(&ws.config_home.join("AGENTS.md"), "g".repeat(900));
    ws.file("AGENTS.md", "r".repeat(30000));
    ws.file("src/AGENTS.override.md", "o".repeat(10000));
}

#[test]
fn case_17_interfaces_example_budget() {
    let ws = Ws::new();
    case_17_layout(&ws);
    let v = explain(&ws, "src/lsp/handlers.rs", &[]);
    let g = ws.config_home.join("AGENTS.md");
    assert_eq!(
        rows(&v),
        [
            row(g.to_str().unwrap(), "agents", 900, 0, "dropped"),
            row("AGENTS.md", "agents", 30000, 22768, "beginning"),
            row("src/AGENTS.override.md", "override", 10000, 10000, "none")
        ]
    );
    assert_eq!(v["omittedBytes"], 8132);
    assert_eq!(
        v["notice"],
        "[truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]"
    );
    let scopes: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["scope"].as_str().unwrap())
        .collect();
    assert_eq!(scopes, ["global", "project", "project"]);
}

#[test]
fn case_17_human_output_is_the_documented_table() {
    let ws = Ws::new();
    case_17_layout(&ws);
    let r = run_in(&ws, &["context", "explain", "src/lsp/handlers.rs"]);
    assert_eq!(r.code, 0);
    let g = ws.config_home.join("AGENTS.md");
    let expected = format!(
        "Instructions for src/lsp/handlers.rs (host alisio, max 32768 bytes)\n\
         #  scope    kind      kept/bytes   truncation  file\n\
         1  global   agents    0/900        dropped     {}\n\
         2  project  agents    22768/30000  beginning   AGENTS.md\n\
         3  project  override  10000/10000  none        src/AGENTS.override.md\n\
         [truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]\n",
        g.display()
    );
    assert_eq!(r.stdout, expected);
}

#[test]
fn case_18_budget_exactly_equal_keeps_everything() {
    let ws = Ws::new();
    ws.file("AGENTS.md", a(22768));
    ws.file("src/AGENTS.md", a(10000));
    let v = explain(&ws, "src/x", &[]);
    assert_eq!(
        rows(&v),
        [
            row("AGENTS.md", "agents", 22768, 22768, "none"),
            row("src/AGENTS.md", "agents", 10000, 10000, "none")
        ]
    );
    assert_eq!(v["omittedBytes"], 0);
    assert_eq!(v["notice"], Value::Null);
}

#[test]
fn case_19_budget_exhausted_by_a_whole_file() {
    let ws = Ws::new();
    ws.file("AGENTS.md", a(100));
    ws.file("src/AGENTS.md", a(32768));
    let v = explain(&ws, "src/x", &[]);
    assert_eq!(
        rows(&v),
        [
            row("AGENTS.md", "agents", 100, 0, "dropped"),
            row("src/AGENTS.md", "agents", 32768, 32768, "none")
        ]
    );
    assert_eq!(
        v["notice"],
        "[truncated: 100 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]"
    );
    let c = check(&ws, &[]);
    only(
        &c,
        "AGENTS.md",
        "instructions-dropped",
        "warning",
        "not loaded for 1 directory (e.g. src): the closer files src/AGENTS.md use the whole context.maxBytes budget (32768)",
    );
    let d = diag(&c, "AGENTS.md", "instructions-dropped");
    assert_eq!(range(d), (0, 0, 0, 100));
    assert_eq!(d["related"][0]["file"], "src/AGENTS.md");
}

#[test]
fn case_20_four_byte_character_at_the_cut() {
    let ws = Ws::new();
    ws.file("sub/AGENTS.md", a(1000));
    ws.file("AGENTS.md", format!("😀{}", a(22)));
    let cfg = config(&ws, r#"{"context": {"maxBytes": 1024}}"#);
    let v = explain(&ws, "sub/x", cfg);
    assert_eq!(
        rows(&v),
        [
            row("AGENTS.md", "agents", 26, 22, "beginning"),
            row("sub/AGENTS.md", "agents", 1000, 1000, "none")
        ]
    );
    assert_eq!(v["omittedBytes"], 4);
    assert_eq!(
        v["notice"],
        "[truncated: 4 bytes of farther instruction files omitted to stay within 1024 bytes; closest files kept]"
    );
}

fn codex_config(ws: &Ws, toml: &str) {
    write(&ws.home.join(".codex/config.toml"), toml);
}

#[test]
fn case_21_codex_cuts_the_end_and_reports_the_split_character() {
    let ws = Ws::new();
    codex_config(&ws, "project_doc_max_bytes = 1024\n");
    ws.file("AGENTS.md", a(1000));
    ws.file("sub/AGENTS.md", format!("{}😀{}", a(21), "b".repeat(9)));
    let v = explain(&ws, "sub/x", &["--host", "codex"]);
    assert_eq!(
        rows(&v),
        [
            row("AGENTS.md", "agents", 1000, 1000, "none"),
            row("sub/AGENTS.md", "agents", 34, 24, "end")
        ]
    );
    assert_eq!(v["notice"], Value::Null);
    assert_eq!(v["maxBytes"], 1024);
    assert_eq!(v["omittedBytes"], 10);
    let c = check(&ws, &["--host", "codex"]);
    let d = diag(&c, "sub/AGENTS.md", "instructions-truncated");
    assert_eq!(
        d["message"],
        "Codex loads only the first 24 of 34 bytes for 1 directory (e.g. sub): the files above it use the rest of project_doc_max_bytes (1024); the cut splits a character, which Codex shows as U+FFFD"
    );
    assert_eq!(range(d), (0, 21, 0, 32));
    assert_eq!(d["related"][0]["file"], "AGENTS.md");
}

#[test]
fn case_22_codex_spends_the_budget_root_first() {
    let ws = Ws::new();
    ws.file("AGENTS.md", a(30000));
    ws.file("src/AGENTS.md", a(10000));
    let v = explain(&ws, "src/x", &["--host", "codex"]);
    assert_eq!(
        rows(&v),
        [
            row("AGENTS.md", "agents", 30000, 30000, "none"),
            row("src/AGENTS.md", "agents", 10000, 2768, "end")
        ]
    );
    assert_eq!(v["maxBytes"], 32768);
}

#[test]
fn case_23_codex_fallback_filenames() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "claude");
    let v = explain(&ws, ".", &["--host", "codex"]);
    assert_eq!(rows(&v), []);
    let c = check(&ws, &["--host", "codex"]);
    only(
        &c,
        "CLAUDE.md",
        "instructions-claude-ignored",
        "hint",
        "not read: project_doc_fallback_filenames does not list CLAUDE.md",
    );
    codex_config(&ws, "project_doc_fallback_filenames = [\"CLAUDE.md\"]\n");
    let v = explain(&ws, ".", &["--host", "codex"]);
    assert_eq!(rows(&v), [row("CLAUDE.md", "fallback", 6, 6, "none")]);
}

#[test]
fn case_24_codex_empty_override_wins_without_budget() {
    let ws = Ws::new();
    ws.file("AGENTS.override.md", "");
    ws.file("AGENTS.md", a(500));
    let v = explain(&ws, ".", &["--host", "codex"]);
    assert_eq!(
        rows(&v),
        [row("AGENTS.override.md", "override", 0, 0, "none")]
    );
    assert_eq!(v["files"][0]["empty"], true);
    assert_eq!(v["omittedBytes"], 0);
    let c = check(&ws, &["--host", "codex"]);
    only(
        &c,
        "AGENTS.md",
        "instructions-hidden-by-override",
        "warning",
        "never read: AGENTS.override.md in the same directory replaces it",
    );
    only(
        &c,
        "AGENTS.override.md",
        "instructions-empty",
        "information",
        "empty instruction file: it adds nothing and hides AGENTS.md in this directory",
    );
}

#[test]
fn case_25_codex_global_file_is_not_charged() {
    let ws = Ws::new();
    write(&ws.home.join(".codex/AGENTS.md"), "g".repeat(40000));
    ws.file("AGENTS.md", a(32768));
    let v = explain(&ws, ".", &["--host", "codex"]);
    let g = ws.home.join(".codex/AGENTS.md");
    assert_eq!(
        rows(&v),
        [
            row(g.to_str().unwrap(), "agents", 40000, 40000, "none"),
            row("AGENTS.md", "agents", 32768, 32768, "none")
        ]
    );
    assert_eq!(v["files"][0]["scope"], "global");
}

#[test]
fn case_26_codex_project_root_markers() {
    let ws = Ws::new();
    codex_config(&ws, "project_root_markers = [\"package.json\"]\n");
    ws.file("pkg/package.json", "{}");
    ws.file("pkg/AGENTS.md", "pkg");
    ws.file("AGENTS.md", "root");
    let v = explain(&ws, "pkg/a.ts", &["--host", "codex"]);
    assert_eq!(rows(&v), [row("pkg/AGENTS.md", "agents", 3, 3, "none")]);
}

#[test]
fn case_27_per_file_cut() {
    let ws = Ws::new();
    ws.file("AGENTS.md", format!("{}\n", a(99)).repeat(3000));
    let cfg = config(&ws, r#"{"context": {"maxBytes": 1048576}}"#);
    let v = explain(&ws, ".", cfg);
    assert_eq!(
        rows(&v),
        [row("AGENTS.md", "agents", 262144, 262144, "none")]
    );
    assert_eq!(v["files"][0]["fileBytes"], 300000);
    assert_eq!(v["files"][0]["fileCut"], true);
    let c = check(&ws, cfg);
    let d = diag(&c, "AGENTS.md", "instructions-file-cut");
    assert_eq!(range(d), (2621, 44, 3000, 0));
    assert_eq!(
        d["message"],
        "only the first 262144 of 300000 bytes are read (per-file limit 262144 bytes); the rest never reaches the model"
    );
    assert_eq!(d["severity"], "warning");
}

#[test]
fn case_28_invalid_utf8() {
    let ws = Ws::new();
    ws.file("AGENTS.md", b"ab\xFFcd\n");
    let v = explain(&ws, ".", &[]);
    assert_eq!(v["files"][0]["fileBytes"], 6);
    assert_eq!(v["files"][0]["bytes"], 8);
    let c = check(&ws, &[]);
    only(
        &c,
        "AGENTS.md",
        "instructions-invalid-utf8",
        "warning",
        "1 invalid UTF-8 sequence(s) reach the model as U+FFFD (first at line 1)",
    );
    assert_eq!(
        range(diag(&c, "AGENTS.md", "instructions-invalid-utf8")),
        (0, 2, 0, 3)
    );
}

#[test]
fn case_29_bom_is_not_counted() {
    let ws = Ws::new();
    ws.file("AGENTS.md", b"\xEF\xBB\xBFhello");
    let v = explain(&ws, ".", &[]);
    assert_eq!(rows(&v), [row("AGENTS.md", "agents", 5, 5, "none")]);
    assert_eq!(v["files"][0]["fileBytes"], 8);
}

#[test]
fn case_30_crlf_counts_two_bytes() {
    let ws = Ws::new();
    ws.file("sub/AGENTS.md", a(1021));
    ws.file("AGENTS.md", "a\r\nb\r\n");
    let cfg = config(&ws, r#"{"context": {"maxBytes": 1024}}"#);
    let v = explain(&ws, "sub/x", cfg);
    assert_eq!(rows(&v)[0], row("AGENTS.md", "agents", 6, 3, "beginning"));
    let c = check(&ws, cfg);
    assert_eq!(
        range(diag(&c, "AGENTS.md", "instructions-truncated")),
        (0, 0, 1, 0)
    );
}

#[test]
fn case_31_whitespace_only_file_is_listed_empty() {
    let ws = Ws::new();
    ws.file("src/AGENTS.md", "  \n\n");
    let v = explain(&ws, "src/x", &[]);
    assert_eq!(rows(&v), [row("src/AGENTS.md", "agents", 0, 0, "none")]);
    assert_eq!(v["files"][0]["empty"], true);
    let c = check(&ws, &[]);
    only(
        &c,
        "src/AGENTS.md",
        "instructions-empty",
        "information",
        "empty instruction file: it adds nothing",
    );
}

#[test]
fn case_32_target_outside_the_workspace_gets_only_the_global_file() {
    let ws = Ws::new();
    write(&ws.config_home.join("AGENTS.md"), "global");
    ws.file("AGENTS.md", "root");
    let elsewhere = ws.tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let target = elsewhere.join("x");
    let v = explain(&ws, target.to_str().unwrap(), &[]);
    let g = ws.config_home.join("AGENTS.md");
    assert_eq!(rows(&v), [row(g.to_str().unwrap(), "agents", 6, 6, "none")]);
    assert_eq!(v["outsideWorkspace"], true);
    assert_eq!(
        v["path"],
        target
            .canonicalize()
            .unwrap_or(target.clone())
            .to_str()
            .unwrap()
    );
    let r = run_in(&ws, &["context", "explain", target.to_str().unwrap()]);
    assert_eq!(r.code, 0);
    let line = format!(
        "{} is outside the workspace {}; only the global file applies",
        v["path"].as_str().unwrap(),
        ws.root.display()
    );
    assert_eq!(r.stdout.lines().nth(1), Some(line.as_str()), "{}", r.stdout);
}

#[test]
fn case_33_absent_target_is_explained_lexically() {
    let ws = Ws::new();
    ws.file("sub/AGENTS.md", "sub");
    let v = explain(&ws, "sub/new/dir/file.rs", &[]);
    assert_eq!(rows(&v), [row("sub/AGENTS.md", "agents", 3, 3, "none")]);
}

#[test]
fn case_34_without_git_the_cwd_is_the_workspace() {
    let ws = Ws::new();
    let p = ws.tmp.path().canonicalize().unwrap().join("p");
    write(&p.join("AGENTS.md"), "parent");
    std::fs::create_dir_all(p.join("q")).unwrap();
    let q = p.join("q");
    let v = explain(&ws, ".", &["--cwd", q.to_str().unwrap()]);
    if std::path::Path::new("/.git").exists()
        || ws.tmp.path().ancestors().any(|a| a.join(".git").exists())
    {
        eprintln!("a .git above the temp directory; skipping the workspace assertion");
        return;
    }
    assert_eq!(v["workspace"], q.to_str().unwrap());
    assert_eq!(rows(&v), []);
}

#[test]
fn case_35_git_file_marks_the_workspace_root() {
    let ws = Ws::new();
    std::fs::remove_dir(ws.root.join(".git")).unwrap();
    ws.file(".git", "gitdir: /elsewhere/.git/worktrees/ws");
    ws.file("AGENTS.md", "root");
    ws.dir("sub");
    let r = run_in(&ws, &["context", "explain", "--json", "--cwd", "sub", "."]);
    assert_eq!(r.code, 0, "{r:?}");
    let v = r.json();
    assert_eq!(v["workspace"], ws.root.to_str().unwrap());
    assert_eq!(v["path"], "sub");
    assert_eq!(rows(&v), [row("AGENTS.md", "agents", 4, 4, "none")]);
}

#[test]
fn case_36_max_bytes_bounds_are_accepted_and_reported() {
    let ws = Ws::new();
    for ok in ["1024", "1048576"] {
        let cfg = config(&ws, &format!(r#"{{"context": {{"maxBytes": {ok}}}}}"#));
        let v = explain(&ws, ".", cfg);
        assert_eq!(v["maxBytes"].to_string(), ok);
    }
    let cfg = config(&ws, r#"{"context": {"maxBytes": 1023}}"#);
    let mut args = vec!["context", "explain", "."];
    args.extend(cfg);
    let r = run_in(&ws, &args);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        "error: cfg.json: context.maxBytes must be an integer from 1024 to 1048576; got 1023"
    );
}

#[test]
fn case_37_single_file_over_the_budget_loses_its_beginning() {
    let ws = Ws::new();
    ws.file("AGENTS.md", a(2000));
    let cfg = config(&ws, r#"{"context": {"maxBytes": 1024}}"#);
    let v = explain(&ws, ".", cfg);
    assert_eq!(
        rows(&v),
        [row("AGENTS.md", "agents", 2000, 1024, "beginning")]
    );
    assert_eq!(v["omittedBytes"], 976);
}

#[test]
fn case_38_truncated_range_counts_utf16_units() {
    let ws = Ws::new();
    ws.file("sub/AGENTS.md", a(1000));
    ws.file("AGENTS.md", format!("😀😀{}", a(30)));
    let cfg = config(&ws, r#"{"context": {"maxBytes": 1024}}"#);
    let v = explain(&ws, "sub/x", cfg);
    assert_eq!(rows(&v)[0], row("AGENTS.md", "agents", 38, 24, "beginning"));
    let c = check(&ws, cfg);
    assert_eq!(
        range(diag(&c, "AGENTS.md", "instructions-truncated")),
        (0, 0, 0, 10)
    );
}

#[test]
fn case_39_truncation_message_over_several_directories() {
    let ws = Ws::new();
    ws.file("AGENTS.md", a(30000));
    ws.file("a/AGENTS.md", a(5000));
    ws.file("b/AGENTS.md", a(8000));
    ws.dir("b/c");
    ws.dir("b/d");
    let c = check(&ws, &[]);
    let root: Vec<_> = diags(&c, "AGENTS.md");
    assert_eq!(
        root,
        [d3(
            "instructions-truncated",
            "warning",
            "only the last 24768 of 30000 bytes are loaded for 4 directories (e.g. b): the closer files use the rest of context.maxBytes (32768)"
        )]
    );
    let d = diag(&c, "AGENTS.md", "instructions-truncated");
    assert_eq!(range(d), (0, 0, 0, 5232));
    let related: Vec<&str> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(related, ["b/AGENTS.md"]);
    assert_eq!(c["summary"]["files"], 3);
}

#[test]
fn case_45_claude_code_agents_mode() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "claude");
    ws.file("sub/AGENTS.md", "agents");
    let v = explain(&ws, "sub/x", &["--host", "claude-code"]);
    assert_eq!(rows(&v), [row("CLAUDE.md", "claude", 6, 6, "none")]);
    assert_eq!(v["maxBytes"], Value::Null);
    let c = check(&ws, &["--host", "claude-code"]);
    only(
        &c,
        "sub/AGENTS.md",
        "instructions-dropped",
        "warning",
        "Claude Code does not read this file: CLAUDE.md exists (project instructions mode claude-md-or-agents-md)",
    );
    std::fs::remove_file(ws.root.join("CLAUDE.md")).unwrap();
    let v = explain(&ws, "sub/x", &["--host", "claude-code"]);
    assert_eq!(rows(&v), [row("sub/AGENTS.md", "agents", 6, 6, "none")]);
    let cfg = config(
        &ws,
        r#"{"hosts": {"claudeCode": {"instructionFiles": "claude-md"}}}"#,
    );
    let mut extra = vec!["--host", "claude-code"];
    extra.extend(cfg);
    assert_eq!(rows(&explain(&ws, "sub/x", &extra)), []);
}

#[test]
fn case_46_claude_code_lists_several_files_per_directory() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "main");
    ws.file("CLAUDE.local.md", "local!");
    let v = explain(&ws, ".", &["--host", "claude-code"]);
    assert_eq!(
        rows(&v),
        [
            row("CLAUDE.md", "claude", 4, 4, "none"),
            row("CLAUDE.local.md", "claude-local", 6, 6, "none")
        ]
    );
    assert_eq!(v["maxBytes"], Value::Null);
    assert_eq!(v["notice"], Value::Null);
}

#[test]
fn case_47_claude_code_path_rules_load_on_read() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "main");
    ws.file(
        ".claude/rules/rust.md",
        "---\npaths: [\"src/**/*.rs\"]\n---\nUse rustfmt.\n",
    );
    ws.file(".claude/rules/style.md", "Always be kind.\n");
    let v = explain(&ws, "src/a/b.rs", &["--host", "claude-code"]);
    let r = rows(&v);
    assert_eq!(r.len(), 3, "{r:?}");
    assert_eq!(
        (r[1].0.as_str(), r[1].1.as_str()),
        (".claude/rules/style.md", "rule")
    );
    assert_eq!(
        (r[2].0.as_str(), r[2].1.as_str()),
        (".claude/rules/rust.md", "rule")
    );
    assert_eq!(v["files"][2]["load"], "on-read");
    assert_eq!(v["files"][1]["load"], "startup");
    let v = explain(&ws, "docs/a.md", &["--host", "claude-code"]);
    assert!(rows(&v).iter().all(|r| r.0 != ".claude/rules/rust.md"));
}

#[test]
fn case_48_claude_code_imports_stop_after_four_hops_and_at_cycles() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "Read @a.md first.\n");
    for (f, next) in [
        ("a.md", "b.md"),
        ("b.md", "c.md"),
        ("c.md", "d.md"),
        ("d.md", "e.md"),
    ] {
        ws.file(f, format!("see @{next}\n"));
    }
    ws.file("e.md", "end\n");
    let v = explain(&ws, ".", &["--host", "claude-code"]);
    let imports: Vec<(String, u64)> = v["files"][0]["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["path"].as_str().unwrap().to_string(),
                i["depth"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("a.md".into(), 1),
            ("b.md".into(), 2),
            ("c.md".into(), 3),
            ("d.md".into(), 4)
        ]
    );
    assert_eq!(v["files"][0]["imports"][0]["approval"], false);
    ws.file("a.md", "back to @CLAUDE.md\n");
    let v = explain(&ws, ".", &["--host", "claude-code"]);
    let imports: Vec<&str> = v["files"][0]["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(imports, ["a.md"]);
}

#[test]
fn case_49_claude_code_reads_claude_md_above_the_workspace() {
    let ws = Ws::new();
    let parent = ws.tmp.path().canonicalize().unwrap();
    // `ws.tmp` is the parent of `ws/`.
    write(&parent.join("CLAUDE.md"), "parent");
    ws.file("CLAUDE.md", "ws");
    let v = explain(&ws, ".", &["--host", "claude-code"]);
    let files = v["files"].as_array().unwrap();
    let first = files
        .iter()
        .position(|f| f["path"] == parent.join("CLAUDE.md").to_str().unwrap())
        .unwrap();
    assert_eq!(files[first]["scope"], "ancestor");
    let ws_pos = files.iter().position(|f| f["path"] == "CLAUDE.md").unwrap();
    assert!(first < ws_pos);
    assert_eq!(files[ws_pos]["scope"], "project");
}

#[test]
fn claude_code_strips_block_comments_and_skips_huge_files() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "<!-- note -->\ntext\n");
    let v = explain(&ws, ".", &["--host", "claude-code"]);
    assert_eq!(v["files"][0]["strippedBytes"], 13);
    ws.file("CLAUDE.local.md", vec![b'x'; 4_194_305]);
    // Ignored by git, as Claude Code's docs ask (else instructions-local-not-ignored).
    ws.file(".gitignore", "CLAUDE.local.md\n");
    let v = explain(&ws, ".", &["--host", "claude-code"]);
    assert_eq!(
        rows(&v)[1],
        row("CLAUDE.local.md", "claude-local", 4_194_305, 0, "dropped")
    );
    assert_eq!(v["omittedBytes"], 4_194_305);
    let c = check(&ws, &["--host", "claude-code"]);
    only(
        &c,
        "CLAUDE.local.md",
        "instructions-dropped",
        "warning",
        "Claude Code skips this file: it is over 4 MiB",
    );
}

#[test]
fn claude_code_managed_file_comes_first() {
    let ws = Ws::new();
    let managed = write(&ws.tmp.path().join("managed/CLAUDE.md"), "policy");
    write(&ws.home.join(".claude/CLAUDE.md"), "user");
    ws.file("CLAUDE.md", "proj");
    let v = explain(&ws, ".", &["--host", "claude-code"]);
    let scopes: Vec<(String, String)> = pairs(&v["files"], ["path", "scope"]);
    assert_eq!(
        scopes[0],
        (managed.to_str().unwrap().to_string(), "managed".to_string())
    );
    assert_eq!(
        scopes[1],
        (
            ws.home
                .join(".claude/CLAUDE.md")
                .to_str()
                .unwrap()
                .to_string(),
            "global".to_string()
        )
    );
    assert_eq!(
        scopes.last().unwrap(),
        &("CLAUDE.md".to_string(), "project".to_string())
    );
    let cfg = config(
        &ws,
        r#"{"hosts": {"claudeCode": {"instructionFiles": "managed-only"}}}"#,
    );
    let mut extra = vec!["--host", "claude-code"];
    extra.extend(cfg);
    assert_eq!(rows(&explain(&ws, ".", &extra)).len(), 1);
}
