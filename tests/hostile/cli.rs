//! Hostile workspaces through the command line.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{Ws, write};
use crate::util::{is_root, no_escape, rm_rf, run, run_limited, sane};

const MARKER: &str = "OUTSIDE-SECRET-7c1e";

/// A workspace with a sibling directory `outside/` holding instruction files and a skill whose
/// text is [`MARKER`].
fn with_outside() -> (Ws, PathBuf) {
    let ws = Ws::new();
    let outside = ws.root.parent().unwrap().join("outside");
    write(&outside.join("AGENTS.md"), format!("# {MARKER}\n"));
    write(&outside.join("CLAUDE.md"), format!("# {MARKER}\n"));
    write(&outside.join("secret.md"), format!("{MARKER}\n"));
    write(
        &outside.join("skills/evil/SKILL.md"),
        format!("---\nname: evil\ndescription: {MARKER}\n---\nbody\n"),
    );
    (ws, outside)
}

fn files_of(explain: &Value) -> Vec<String> {
    explain["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

/// `check --format json --host <host> --trust-project`: sane, and its output is JSON.
fn check_json(ws: &Ws, host: &str) {
    let check = run(
        ws,
        &[
            "check",
            "--format",
            "json",
            "--host",
            host,
            "--trust-project",
        ],
    );
    sane(&check);
    let _ = check.json();
}

#[test]
fn symlinks_out_of_the_workspace_never_bring_outside_content_in() {
    let (ws, outside) = with_outside();
    ws.file("AGENTS.md", "# Root\n");
    symlink(outside.join("secret.md"), ws.root.join("sub-agents.md")).unwrap();
    std::fs::create_dir_all(ws.root.join("a")).unwrap();
    symlink(outside.join("AGENTS.md"), ws.root.join("a/AGENTS.md")).unwrap();
    symlink(&outside, ws.root.join("linked")).unwrap();
    symlink(outside.join("skills"), ws.root.join(".agents")).unwrap();
    for host in ["alisio", "codex"] {
        let check = run(&ws, &["check", "--format", "json", "--host", host]);
        sane(&check);
        // A symlink's target may be named (that is what the repository says), its content never.
        assert!(
            !check.stdout.contains(MARKER) && !check.stderr.contains(MARKER),
            "{check:?}"
        );
        for target in [".", "a/x.rs", "linked/x.rs", "linked/"] {
            let ex = run(
                &ws,
                &["context", "explain", "--json", "--host", host, target],
            );
            sane(&ex);
            assert_eq!(ex.code, 0, "{ex:?}");
            no_escape(&ex, MARKER, &outside);
            let files = files_of(&ex.json());
            if host == "alisio" {
                // Host alisio never follows a symlinked candidate or chain directory (spec/instructions.md §2.4).
                assert_eq!(files, ["AGENTS.md"], "{host} {target}: {ex:?}");
            } else {
                // The Codex simulation reads links as Codex does, but names them by their path
                // inside the workspace, never by where they point.
                assert!(
                    files
                        .iter()
                        .all(|f| !f.starts_with('/') && !f.starts_with("..")),
                    "{files:?}"
                );
                assert_eq!(files[0], "AGENTS.md");
            }
        }
    }
    // The symlinked candidate is reported, not followed (spec/instructions.md §2.4 rule 1).
    let check = run(&ws, &["check", "--format", "json"]);
    let v = check.json();
    let codes: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["file"].as_str().unwrap(), d["code"].as_str().unwrap()))
        .collect();
    assert!(
        codes.contains(&("a/AGENTS.md", "instructions-symlink")),
        "{codes:?}"
    );
    let skills = run(&ws, &["skills", "list", "--json", "--trust-project"]);
    sane(&skills);
    no_escape(&skills, MARKER, &outside);
}

#[test]
fn symlink_loops_end_for_every_host() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root\n@loop/AGENTS.md @self.md\n");
    ws.file("CLAUDE.md", "# Claude\n@a/up/CLAUDE.md\n@x.md\n");
    std::fs::create_dir_all(ws.root.join("a")).unwrap();
    symlink("..", ws.root.join("a/up")).unwrap();
    symlink("self.md", ws.root.join("self.md")).unwrap();
    symlink("y.md", ws.root.join("x.md")).unwrap();
    symlink("x.md", ws.root.join("y.md")).unwrap();
    symlink(".", ws.root.join("loop")).unwrap();
    std::fs::create_dir_all(ws.root.join(".claude/rules")).unwrap();
    symlink(".", ws.root.join(".claude/rules/again")).unwrap();
    symlink("..", ws.root.join(".claude/rules/parent")).unwrap();
    ws.file(".claude/rules/style.md", "Use tabs.\n");
    std::fs::create_dir_all(ws.root.join(".agents/skills/s")).unwrap();
    symlink("..", ws.root.join(".agents/skills/s/back")).unwrap();
    symlink(".", ws.root.join(".agents/skills/here")).unwrap();
    for host in ["alisio", "codex", "claude-code"] {
        check_json(&ws, host);
        let ex = run(
            &ws,
            &[
                "context",
                "explain",
                "--json",
                "--host",
                host,
                "a/up/a/up/loop/x.rs",
            ],
        );
        sane(&ex);
        assert_eq!(ex.code, 0, "{ex:?}");
    }
    // Claude Code follows the rules directory's links; each directory is walked once.
    let ex = run(
        &ws,
        &["context", "explain", "--json", "--host", "claude-code", "."],
    );
    let rules: Vec<String> = files_of(&ex.json())
        .into_iter()
        .filter(|p| p.contains("rules"))
        .collect();
    assert_eq!(rules, [".claude/rules/style.md"], "{ex:?}");
    let skills = run(&ws, &["skills", "list", "--json", "--trust-project"]);
    sane(&skills);
}

#[test]
fn dotdot_and_absolute_targets_do_not_list_outside_project_files() {
    let (ws, outside) = with_outside();
    ws.file("AGENTS.md", "# Root\n");
    for target in [
        "../outside/x.rs",
        "../outside/",
        "../../../../../../../../x",
        "/",
        outside.to_str().unwrap(),
        "a/../../outside/x",
    ] {
        for host in ["alisio", "codex"] {
            let ex = run(
                &ws,
                &["context", "explain", "--json", "--host", host, target],
            );
            sane(&ex);
            assert_eq!(ex.code, 0, "{ex:?}");
            let v = ex.json();
            assert_eq!(v["outsideWorkspace"], true, "{target}: {v:#}");
            assert_eq!(files_of(&v), Vec::<String>::new(), "{host} {target}");
            assert!(!ex.stdout.contains(MARKER));
        }
    }
}

#[test]
fn a_100_mb_agents_md_is_judged_from_a_bounded_read() {
    let ws = Ws::new();
    let big = ws.file("AGENTS.md", "# Big\n");
    // Sparse: 100 MiB on paper, almost nothing on disk. NUL bytes are valid UTF-8.
    crate::common::grow_sparse(&big, 100 * 1024 * 1024);
    // A data limit below the file's size: reading it whole would abort the process.
    let limited = |args: &[&str]| {
        let c = ws.cmd();
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c")
            .arg(format!("ulimit -d {} && exec \"$0\" \"$@\"", 96 * 1024))
            .arg(crate::common::bin())
            .args(args);
        sh.env_clear()
            .envs(
                c.get_envs()
                    .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
            )
            .current_dir(&ws.root);
        run_limited(&mut sh)
    };
    let ex = limited(&["context", "explain", "--json", "."]);
    sane(&ex);
    assert_eq!(ex.code, 0, "{ex:?}");
    let f = &ex.json()["files"][0];
    assert_eq!(f["fileBytes"], 104_857_600);
    assert_eq!(f["bytes"], 262_144);
    assert_eq!(f["fileCut"], true);
    let check = limited(&["check", "--format", "json"]);
    sane(&check);
    let v = check.json();
    let d = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "instructions-file-cut")
        .expect("file-cut diagnostic");
    assert_eq!(
        d["message"],
        "only the first 262144 of 104857600 bytes are read (per-file limit 262144 bytes); the rest never reaches the model"
    );
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 1, "character": 262_138})
    );
    assert_eq!(
        d["range"]["end"],
        serde_json::json!({"line": 1, "character": 104_857_594})
    );
    for host in ["codex", "claude-code"] {
        let ex = limited(&["context", "explain", "--json", "--host", host, "."]);
        sane(&ex);
        assert_eq!(ex.code, 0, "{host}: {ex:?}");
    }
}

#[test]
fn devices_and_fifos_where_files_are_expected_give_errors_not_hangs() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root\n@/dev/zero\n");
    std::fs::create_dir_all(ws.root.join(".git/info")).unwrap();
    symlink("/dev/zero", ws.root.join(".git/info/exclude")).unwrap();
    symlink("/dev/zero", ws.root.join(".ignore")).unwrap();
    std::fs::create_dir_all(ws.root.join("d/.claude")).unwrap();
    symlink("/dev/zero", ws.root.join("d/CLAUDE.md")).unwrap();
    let fifo = ws.root.join("d/.claude/CLAUDE.md");
    let have_fifo = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    std::fs::create_dir_all(ws.root.join(".alisio")).unwrap();
    symlink("/dev/zero", ws.root.join(".alisio/config.json")).unwrap();
    for host in ["alisio", "codex", "claude-code"] {
        let check = run(&ws, &["check", "--format", "json", "--host", host]);
        sane(&check);
        assert_eq!(check.code, 0, "{host}: {check:?}");
        let ex = run(
            &ws,
            &["context", "explain", "--json", "--host", host, "d/x.rs"],
        );
        sane(&ex);
        assert_eq!(ex.code, 0, "{host}: {ex:?}");
    }
    // Trusted, the project configuration is read, and refused with a clear error.
    let trusted = run(&ws, &["check", "--trust-project"]);
    assert_eq!(trusted.code, 2, "{trusted:?}");
    assert!(
        trusted
            .stderr
            .contains(".alisio/config.json: cannot read: not a regular file"),
        "{trusted:?}"
    );
    std::fs::remove_file(ws.root.join(".alisio/config.json")).unwrap();
    let config = run(&ws, &["check", "--config", "/dev/zero"]);
    assert_eq!(config.code, 2, "{config:?}");
    assert_eq!(
        config.stderr,
        "error: /dev/zero: cannot read: not a regular file\n"
    );
    if have_fifo {
        let config = run(&ws, &["check", "--config", fifo.to_str().unwrap()]);
        assert_eq!(config.code, 2, "{config:?}");
    }
}

#[test]
fn an_oversized_configuration_file_is_refused_with_its_size_limit() {
    let ws = Ws::new();
    let mut big = String::from("{\"x\": \"");
    big.push_str(&"a".repeat(1024 * 1024));
    big.push_str("\"}");
    ws.file(".alisio/config.json", &big);
    let r = run(&ws, &["check", "--trust-project"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert_eq!(
        r.stderr,
        format!(
            "error: {}: larger than 1048576 bytes; not read\n",
            ws.root.join(".alisio/config.json").display()
        )
    );
}

#[test]
fn invalid_utf8_names_are_reported_lossily() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root\n");
    let bad_dir = ws.root.join(std::ffi::OsStr::from_bytes(b"bad\xff\xfedir"));
    std::fs::create_dir_all(&bad_dir).unwrap();
    std::fs::write(bad_dir.join("AGENTS.md"), "# Bad dir\n").unwrap();
    std::fs::write(
        bad_dir.join(std::ffi::OsStr::from_bytes(b"AGENTS\xff.md")),
        "x",
    )
    .unwrap();
    std::fs::write(
        ws.root.join(std::ffi::OsStr::from_bytes(b"agents.md\xc3")),
        "near",
    )
    .unwrap();
    std::fs::create_dir_all(
        ws.root
            .join(std::ffi::OsStr::from_bytes(b".agents/skills/\xffskill")),
    )
    .unwrap();
    std::fs::write(
        ws.root.join(std::ffi::OsStr::from_bytes(
            b".agents/skills/\xffskill/SKILL.md",
        )),
        "---\nname: x\ndescription: y\n---\n",
    )
    .unwrap();
    for host in ["alisio", "codex", "claude-code"] {
        check_json(&ws, host);
        let human = run(&ws, &["check", "--host", host]);
        sane(&human);
    }
    let mut c = ws.cmd();
    c.args(["context", "explain", "--json"])
        .arg(bad_dir.join("x.rs"));
    let ex = run_limited(&mut c);
    sane(&ex);
    assert_eq!(
        files_of(&ex.json()),
        ["AGENTS.md", "bad\u{FFFD}\u{FFFD}dir/AGENTS.md"]
    );
    let skills = run(&ws, &["skills", "list", "--json", "--trust-project"]);
    sane(&skills);
}

#[test]
fn a_ten_thousand_deep_directory_chain_ends_without_overflowing_the_stack() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root\n");
    crate::util::deep_chain(&ws.root, 10_000);
    ws.file(&format!("{}AGENTS.md", "d/".repeat(50)), "# Level 50\n");
    for host in ["alisio", "codex", "claude-code"] {
        check_json(&ws, host);
    }
    let deep = "d/".repeat(60);
    let ex = run(
        &ws,
        &["context", "explain", "--json", &format!("{deep}x.rs")],
    );
    sane(&ex);
    assert_eq!(files_of(&ex.json()).len(), 2, "{ex:?}");
    let too_deep = "d/".repeat(3000);
    let ex = run(
        &ws,
        &["context", "explain", "--json", &format!("{too_deep}x.rs")],
    );
    sane(&ex);
    let skills = run(&ws, &["skills", "list", "--json", "--trust-project"]);
    sane(&skills);
    rm_rf(&ws.root.join("d"));
}

#[test]
fn permission_denied_directories_are_skipped_with_a_message_even_for_root() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root\n");
    ws.file("locked/AGENTS.md", "# Locked\n");
    ws.file("locked/deeper/AGENTS.md", "# Deeper\n");
    ws.file("open/AGENTS.md", "# Open\n");
    ws.file("unreadable/AGENTS.md", "# Unreadable\n");
    let mut cmd = ws.cmd();
    if is_root() {
        // Root ignores permission bits: run the binary as `nobody` instead, when possible.
        let ok = std::process::Command::new("setpriv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("running as root without setpriv: permission-denied part skipped");
            return;
        }
        let mut p = ws.tmp.path().to_path_buf();
        loop {
            let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755));
            if !p.pop() || p == std::env::temp_dir() || p.as_os_str().len() <= 1 {
                break;
            }
        }
        let program = cmd.get_program().to_owned();
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(program);
        c.env_clear()
            .envs(
                cmd.get_envs()
                    .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
            )
            .current_dir(&ws.root);
        cmd = c;
    }
    std::fs::set_permissions(
        ws.root.join("locked"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    std::fs::set_permissions(
        ws.root.join("unreadable/AGENTS.md"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let as_user = |args: &[&str]| {
        let mut c = std::process::Command::new(cmd.get_program());
        c.args(cmd.get_args()).args(args);
        c.env_clear()
            .envs(
                cmd.get_envs()
                    .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
            )
            .current_dir(&ws.root);
        run_limited(&mut c)
    };
    let ex = as_user(&["context", "explain", "--json", "locked/deeper/x.rs"]);
    let unreadable = as_user(&["context", "explain", "--json", "unreadable/x.rs"]);
    let ck = as_user(&["check", "--format", "json"]);
    std::fs::set_permissions(
        ws.root.join("locked"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    for r in [&ex, &unreadable, &ck] {
        sane(r);
        assert_eq!(r.code, 0, "{r:?}");
    }
    assert_eq!(files_of(&ex.json()), ["AGENTS.md"], "{ex:?}");
    assert!(
        ex.stderr.contains(&format!(
            "{}: cannot list directory: permission denied",
            ws.root.join("locked").display()
        )),
        "{ex:?}"
    );
    // An unreadable winner still wins and carries its error (spec/instructions.md §2.1, §2.9).
    let v = unreadable.json();
    assert_eq!(files_of(&v), ["AGENTS.md", "unreadable/AGENTS.md"], "{v:#}");
    assert_eq!(v["files"][1]["error"], "permission denied", "{v:#}");
    assert!(
        ck.stderr
            .contains(&ws.root.join("locked").display().to_string()),
        "{ck:?}"
    );
}

#[test]
fn an_untrusted_project_configuration_is_never_read() {
    let (ws, outside) = with_outside();
    ws.file("AGENTS.md", "# Root\n");
    // Relative skill roots resolve against the file's directory (`.alisio/`).
    ws.file(
        ".alisio/config.json",
        "{\"skills\": [\"../../outside/skills\", \"/\"], \"context\": {\"maxBytes\": 1}}",
    );
    let skills = run(&ws, &["skills", "list", "--json"]);
    sane(&skills);
    assert_eq!(skills.code, 0, "{skills:?}");
    no_escape(&skills, MARKER, &outside);
    let check = run(&ws, &["check", "--format", "json"]);
    sane(&check);
    assert_eq!(check.code, 0, "{check:?}");
    assert!(!check.stdout.contains("config-invalid"), "{check:?}");
    // The same file when the user trusts the workspace: it is read (so the test above can fail).
    let trusted = run(&ws, &["check", "--format", "json", "--trust-project"]);
    assert_eq!(trusted.code, 2, "{trusted:?}");
    assert!(
        trusted
            .stderr
            .contains("context.maxBytes must be an integer from 1024 to 1048576; got 1"),
        "{trusted:?}"
    );
    ws.file(
        ".alisio/config.json",
        "{\"skills\": [\"../../outside/skills\"]}",
    );
    let skills = run(&ws, &["skills", "list", "--json", "--trust-project"]);
    assert!(skills.stdout.contains("evil"), "{skills:?}");
    // A broken file is not even parsed while untrusted.
    ws.file(".alisio/config.json", "{ not json");
    let check = run(&ws, &["check", "--format", "json"]);
    assert_eq!(check.code, 0, "{check:?}");
}
