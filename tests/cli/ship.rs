//! The GitHub action's script (scripts/github-action.sh, action.yml) run locally as the runner
//! runs it, with the built binary instead of an install (ALISIO_LS_BIN; the install itself is
//! .ci/install-smoke.sh), and the release files the crate and the hooks declare.

use std::path::Path;
use std::process::Command;

use crate::common::{Ws, bin, run_cmd};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn action(ws: &Ws, args: &str, cwd: &str) -> crate::common::Run {
    run_cmd(
        Command::new("bash")
            .arg(repo().join("scripts/github-action.sh"))
            .env("ALISIO_LS_BIN", bin())
            .env("ALISIO_ACTION_ARGS", args)
            .env("ALISIO_ACTION_CWD", cwd)
            .env("HOME", &ws.home)
            .env("ALISIO_CONFIG_HOME", &ws.config_home)
            .current_dir(&ws.root),
    )
}

#[test]
fn the_action_script_annotates_a_bad_skill_and_passes_a_fixed_one() {
    let ws = Ws::new();
    let skill = ws.file(
        "pkg/.agents/skills/pdf-tools/SKILL.md",
        "---\nname: PDF_Tools\ndescription: Fill PDF forms.\n---\n\nUse pdftk.\n",
    );
    let r = action(&ws, "--trust-project", "pkg");
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let mut lines = r.stdout.lines();
    assert_eq!(
        lines.next(),
        Some(format!("alisio-ls {}", env!("CARGO_PKG_VERSION")).as_str())
    );
    let errors: Vec<&str> = lines.filter(|l| l.starts_with("::error ")).collect();
    assert!(
        !errors.is_empty()
            && errors
                .iter()
                .all(|l| l.contains("file=pkg/.agents/skills/pdf-tools/SKILL.md,line=2")),
        "{}",
        r.stdout
    );
    std::fs::write(
        &skill,
        "---\nname: pdf-tools\ndescription: Fill PDF forms.\n---\n\nUse pdftk.\n",
    )
    .unwrap();
    let r = action(&ws, "--trust-project --strict", "pkg");
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("::error"), "{}", r.stdout);
}

#[test]
fn the_action_and_the_hook_call_what_the_repository_has() {
    let action = std::fs::read_to_string(repo().join("action.yml")).unwrap();
    assert!(action.contains("using: composite"));
    assert!(action.contains(r#"run: bash "$GITHUB_ACTION_PATH/scripts/github-action.sh""#));
    let hooks = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    assert!(hooks.contains("- id: alisio-ls-check\n"));
    assert!(hooks.contains("  language: rust\n"));
    assert!(hooks.contains("  entry: alisio-ls-hook check --trust-project\n"));
    // The binary the hook's entry names is what `cargo install --path .` builds at the root.
    let root = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    assert!(root.contains("[[bin]]\nname = \"alisio-ls-hook\"\npath = \"server/src/main.rs\""));
    for f in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "server/LICENSE-MIT",
        "server/LICENSE-APACHE",
    ] {
        assert!(repo().join(f).is_file(), "{f}");
    }
}
