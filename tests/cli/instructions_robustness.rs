//! Bad input never panics or hangs and gets a located message; `check` output formats.

use serde_json::Value;

use crate::common::{Run, Ws, pairs};

fn no_panic(r: &Run) {
    assert!(!r.stderr.contains("panicked"), "{r:?}");
}

#[cfg(unix)]
#[test]
fn unreadable_directory_is_reported_and_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    ws.file("locked/AGENTS.md", "locked");
    let locked = ws.root.join("locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let denied = std::fs::read_dir(&locked).is_err();
    let explain = ws.run(&["context", "explain", "--json", "locked/x"]);
    let check = ws.run(&["check", "--format", "json"]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    no_panic(&explain);
    no_panic(&check);
    assert_eq!(explain.code, 0, "{explain:?}");
    assert_eq!(check.code, 0, "{check:?}");
    let files: Vec<String> = explain.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    if denied {
        assert_eq!(files, ["AGENTS.md"]);
        explain.assert_stderr_has(&format!(
            "{}: cannot list directory: permission denied",
            locked.display()
        ));
        check.assert_stderr_has(&locked.display().to_string());
    } else {
        eprintln!(
            "running as root: chmod 000 does not deny reading; only the no-crash part is checked"
        );
        assert_eq!(files, ["AGENTS.md", "locked/AGENTS.md"]);
    }
}

#[test]
fn fifty_megabyte_agents_md_is_cut_by_a_bounded_read() {
    let ws = Ws::new();
    let line = format!("{}\n", "a".repeat(99));
    ws.file("AGENTS.md", line.repeat(524_288));
    let r = ws.run(&["context", "explain", "--json", "."]);
    no_panic(&r);
    assert_eq!(r.code, 0);
    let f = &r.json()["files"][0];
    assert_eq!(f["fileBytes"], 52_428_800);
    assert_eq!(f["bytes"], 262_144);
    assert_eq!(f["keptBytes"], 32_768);
    assert_eq!(f["fileCut"], true);
    let c = ws.run(&["check", "--format", "json"]);
    no_panic(&c);
    let v = c.json();
    let d = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "instructions-file-cut")
        .unwrap();
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 2621, "character": 44})
    );
    assert_eq!(
        d["range"]["end"],
        serde_json::json!({"line": 524_288, "character": 0})
    );
    assert_eq!(
        d["message"],
        "only the first 262144 of 52428800 bytes are read (per-file limit 262144 bytes); the rest never reaches the model"
    );
}

#[test]
fn directory_named_agents_md_everywhere_is_harmless() {
    let ws = Ws::new();
    for d in ["AGENTS.md", "a/AGENTS.override.md", "a/AGENT.md"] {
        ws.dir(d);
    }
    for host in ["alisio", "codex", "claude-code"] {
        let r = ws.run(&["context", "explain", "--json", "--host", host, "a/x"]);
        no_panic(&r);
        assert_eq!(r.code, 0, "{r:?}");
        assert_eq!(r.json()["files"], serde_json::json!([]), "{host}");
        let c = ws.run(&["check", "--host", host, "--format", "json"]);
        assert_eq!(c.json()["diagnostics"], serde_json::json!([]), "{host}");
    }
}

#[cfg(unix)]
#[test]
fn symlink_loops_terminate_for_every_host() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    std::os::unix::fs::symlink(".", ws.root.join("loop")).unwrap();
    std::os::unix::fs::symlink("AGENT.md", ws.root.join("AGENT.md")).unwrap();
    std::os::unix::fs::symlink("b", ws.root.join("sub-a")).unwrap();
    std::fs::create_dir_all(ws.root.join(".claude/rules")).unwrap();
    std::os::unix::fs::symlink("..", ws.root.join(".claude/rules/up")).unwrap();
    ws.dir("d");
    std::os::unix::fs::symlink("AGENTS.override.md", ws.root.join("d/AGENTS.override.md")).unwrap();
    for host in ["alisio", "codex", "claude-code"] {
        let r = ws.run(&[
            "context",
            "explain",
            "--json",
            "--host",
            host,
            "loop/loop/loop/x",
        ]);
        no_panic(&r);
        assert_eq!(r.code, 0, "{host}: {r:?}");
        let c = ws.run(&["check", "--host", host, "--format", "json"]);
        no_panic(&c);
        assert!(c.code == 0 || c.code == 1, "{host}: {c:?}");
    }
    let r = ws.run(&["context", "explain", "--json", "loop/loop/x"]);
    assert_eq!(
        r.json()["skipped"],
        serde_json::json!([{"path": "loop", "reason": "symlink"}])
    );
    let r = ws.run(&["context", "explain", "--json", "d/x"]);
    assert_eq!(
        r.json()["skipped"],
        serde_json::json!([{"path": "d/AGENTS.override.md", "reason": "symlink"}])
    );
    let c = ws.run(&["check", "--format", "json"]).json();
    let msgs: Vec<&str> = c["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "instructions-symlink")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        msgs,
        [
            "not read: AGENT.md is a symbolic link to AGENT.md",
            "not read: AGENTS.override.md is a symbolic link to AGENTS.override.md"
        ]
    );
}

#[test]
fn invalid_config_json_is_located_and_exits_2_for_explain() {
    let ws = Ws::new();
    ws.file("cfg.json", "{\n  \"context\": {\"maxBytes\": }\n}");
    let r = ws.run(&["context", "explain", "--config", "cfg.json", "."]);
    no_panic(&r);
    r.assert_invalid_cfg_json();
    assert_eq!(r.stdout, "");
}

#[test]
fn invalid_codex_config_toml_falls_back_to_defaults() {
    let ws = Ws::new();
    crate::common::write(
        &ws.home.join(".codex/config.toml"),
        "project_doc_max_bytes = [\n",
    );
    ws.file("AGENTS.md", "root");
    let r = ws.run(&["context", "explain", "--json", "--host", "codex", "."]);
    no_panic(&r);
    assert_eq!(r.code, 0);
    assert_eq!(r.json()["maxBytes"], 32768);
}

#[test]
fn missing_path_argument_is_a_usage_error() {
    let ws = Ws::new();
    let r = ws.run(&["context", "explain"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("PATH"), "{}", r.stderr);
}

#[test]
fn check_reports_only_files_under_the_given_paths_but_computes_effects_everywhere() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "r".repeat(30000));
    ws.file("a/AGENTS.md", "a".repeat(5000));
    ws.file("b/AGENT.md", "legacy");
    ws.file("b/AGENTS.md", "b".repeat(8000));
    let v = ws.run(&["check", "--format", "json", "b"]).json();
    let all: Vec<(String, String)> = pairs(&v["diagnostics"], ["file", "code"]);
    assert_eq!(
        all,
        [("b/AGENT.md".to_string(), "instructions-hidden".to_string())]
    );
    assert_eq!(v["summary"]["files"], 2);
    let v = ws.run(&["check", "--format", "json", "AGENTS.md"]).json();
    assert_eq!(
        v["diagnostics"][0]["message"],
        "only the last 24768 of 30000 bytes are loaded for 2 directories (e.g. b): the closer files use the rest of context.maxBytes (32768)"
    );
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 1);
}

fn sarif_layout() -> Ws {
    let ws = Ws::new();
    ws.file("AGENTS.md", "r".repeat(30000));
    ws.file("src/AGENTS.md", "s".repeat(10000));
    ws.file("agents.md", "near miss");
    ws.file("CLAUDE.md", "claude");
    ws
}

#[test]
fn sarif_output_has_the_2_1_0_structure() {
    let ws = sarif_layout();
    let r = ws.run(&["check", "--format", "sarif"]);
    assert_eq!(r.code, 0, "{r:?}");
    let v: Value = r.json();
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(
        v["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "alisio-ls");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "instructions-claude-ignored",
            "instructions-truncated",
            "instructions-unread-name"
        ]
    );
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for res in results {
        let id = res["ruleId"].as_str().unwrap();
        assert_eq!(rules[res["ruleIndex"].as_u64().unwrap() as usize], id);
        assert!(["error", "warning", "note"].contains(&res["level"].as_str().unwrap()));
        assert!(
            res["message"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        let loc = &res["locations"][0]["physicalLocation"];
        assert!(loc["artifactLocation"]["uri"].is_string());
        let region = &loc["region"];
        for k in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[k].as_u64().is_some_and(|n| n >= 1), "{k}: {region}");
        }
    }
    let trunc = results
        .iter()
        .find(|r| r["ruleId"] == "instructions-truncated")
        .unwrap();
    assert_eq!(trunc["level"], "warning");
    assert_eq!(
        trunc["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "AGENTS.md"
    );
    assert_eq!(
        trunc["locations"][0]["physicalLocation"]["region"],
        serde_json::json!({"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 7233})
    );
    assert_eq!(
        trunc["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/AGENTS.md"
    );
    let hint = results
        .iter()
        .find(|r| r["ruleId"] == "instructions-claude-ignored")
        .unwrap();
    assert_eq!(hint["level"], "note");
}

#[test]
fn github_output_is_one_workflow_command_per_diagnostic() {
    let ws = sarif_layout();
    let r = ws.run(&["check", "--format", "github"]);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "::warning title=instructions-truncated,file=AGENTS.md,line=1,col=1,endLine=1,endColumn=7233::only the last 22768 of 30000 bytes are loaded for 1 directory (e.g. src): the closer files use the rest of context.maxBytes (32768)",
            "::notice title=instructions-claude-ignored,file=CLAUDE.md,line=1,col=1,endLine=1,endColumn=7::not read: context.claudeMdFallback is off",
            "::warning title=instructions-unread-name,file=agents.md,line=1,col=1,endLine=1,endColumn=10::not read: alisio reads \"AGENTS.md\" (names are case-sensitive)",
        ]
    );
    let strict = ws.run(&["check", "--strict"]);
    assert_eq!(strict.code, 1);
    assert!(
        strict
            .stdout
            .ends_with("4 files checked: 0 error(s), 2 warning(s), 0 info, 1 hint(s)\n"),
        "{}",
        strict.stdout
    );
}

#[test]
fn bundled_example_reports_each_documented_finding() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/monorepo")
        .canonicalize()
        .unwrap();
    let ws = Ws::new();
    let r = ws.run(&[
        "check",
        "--format",
        "json",
        "--cwd",
        example.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let v = r.json();
    let mut got: Vec<(String, String)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let f = d["file"].as_str().unwrap();
            let rel = f
                .rsplit_once("examples/monorepo/")
                .map_or(f, |(_, r)| r)
                .to_string();
            (rel, d["code"].as_str().unwrap().to_string())
        })
        .filter(|(f, _)| f != "AGENTS.md")
        .collect();
    got.sort();
    let want = [
        (
            ".agents/skills/changelog/SKILL.md",
            "skill-name-directory-mismatch",
        ),
        (".agents/skills/changelog/SKILL.md", "skill-untrusted"),
        (".agents/skills/release-notes/SKILL.md", "skill-untrusted"),
        (".claude/skills/release-notes/SKILL.md", "skill-untrusted"),
        ("docs/AGENTS.md", "instructions-empty"),
        ("libs/core/Agents.md", "instructions-unread-name"),
        ("libs/util/CLAUDE.md", "instructions-claude-ignored"),
        ("services/api/AGENTS.md", "instructions-hidden-by-override"),
        ("services/web/AGENT.md", "instructions-legacy-name"),
        ("tools/Agente.md", "instructions-unread-name"),
    ];
    assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())));
    let e = ws
        .run(&[
            "context",
            "explain",
            "--json",
            "--cwd",
            example.to_str().unwrap(),
            "services/api/src/main.rs",
        ])
        .json();
    let kinds: Vec<&str> = e["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.ends_with(&["agents", "agents", "override", "agents"]),
        "{kinds:?}"
    );
    assert!(e["omittedBytes"].as_u64().unwrap() > 0);
}
