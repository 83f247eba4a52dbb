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

/// The words of `line` between backquotes (or double quotes).
fn quoted(line: &str, q: char) -> Vec<String> {
    line.split(q)
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The paragraph of the README that starts with `start` (up to the next blank line).
fn readme_paragraph(start: &str) -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let from = readme
        .find(start)
        .unwrap_or_else(|| panic!("README has no {start:?}"));
    let rest = &readme[from..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].replace('\n', " ")
}

#[test]
fn the_readmes_command_lists_match_the_plugin_the_extension_and_the_cli() {
    // Neovim: every user command plugin/alisio.lua defines, in the README's order.
    let plugin = std::fs::read_to_string(repo().join("editors/neovim/plugin/alisio.lua")).unwrap();
    let defined: Vec<String> = plugin
        .lines()
        .filter_map(|l| l.strip_prefix("cmd('"))
        .map(|l| format!(":{}", &l[..l.find('\'').unwrap()]))
        .collect();
    let nvim = readme_paragraph("Commands: `:Alisio");
    let listed: Vec<String> = quoted(&nvim, '`')
        .into_iter()
        .filter(|c| c.starts_with(":Alisio"))
        .collect();
    let mut a = defined.clone();
    a.sort();
    let mut b = listed.clone();
    b.sort();
    assert_eq!(b, a, "README's Neovim commands vs plugin/alisio.lua");
    assert!(nvim.contains("`:checkhealth alisio`"));
    assert!(
        repo()
            .join("editors/neovim/lua/alisio/health.lua")
            .is_file()
    );

    // VS Code: every contributed command title.
    let pkg: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("editors/vscode/package.json")).unwrap(),
    )
    .unwrap();
    let mut titles: Vec<String> = pkg["contributes"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap().to_owned())
        .collect();
    let mut listed = quoted(
        &readme_paragraph("Commands (palette, category Alisio):"),
        '"',
    );
    titles.sort();
    listed.sort();
    assert_eq!(listed, titles, "README's VS Code commands vs package.json");

    // The CLI: every subcommand of `alisio-ls --help` has a line in the README's usage block.
    let help = run_cmd(Command::new(bin()).arg("--help")).stdout;
    let subs: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(subs.len() >= 9, "{help}");
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    for sub in subs {
        let shown = if sub == "context" {
            "context explain"
        } else {
            sub
        };
        assert!(
            readme.contains(&format!("\nalisio-ls {shown} ")),
            "README's usage block lacks `alisio-ls {shown}`"
        );
    }
}

/// `governor analyze` over several files shows a bar on a terminal's stderr only; `--json` and
/// a piped stderr never get one (cli/progress.rs).
#[test]
fn progress_is_drawn_on_a_terminal_only_and_never_with_json() {
    let t = repo().join("examples/transcripts/refactor.claude.jsonl");
    let t = t.display();
    let piped =
        run_cmd(Command::new(bin()).args(["governor", "analyze", &t.to_string(), &t.to_string()]));
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert_eq!(piped.stderr, "", "no progress when stderr is a pipe");
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped the terminal half: `script` (util-linux) is not installed");
        return;
    }
    // `script` gives the command a pseudo-terminal; stdout goes to /dev/null, so what comes
    // back is stderr.
    let tty = |extra: &str| {
        run_cmd(Command::new("script").args([
            "-qec",
            &format!(
                "'{}' governor analyze {extra} '{t}' '{t}' >/dev/null",
                bin().display()
            ),
            "/dev/null",
        ]))
    };
    let human = tty("");
    assert_eq!(human.code, 0);
    assert!(human.stdout.contains("analyzing ["), "{:?}", human.stdout);
    assert!(human.stdout.contains("/2"), "{:?}", human.stdout);
    let json = tty("--json");
    assert_eq!(json.code, 0);
    assert_eq!(json.stdout, "", "no progress with --json");
}

/// scripts/release.sh (binary archive only, with the test build instead of a release build):
/// the archive holds exactly the binary, the README and the licences under one directory (the
/// process sandbox needs no helper binary beside it), and `SHA256SUMS` checks it.
#[test]
fn the_release_archive_holds_the_binary_the_readme_and_the_licences() {
    let ws = Ws::new();
    let dist = ws.tmp.path().join("dist");
    let r = run_cmd(
        Command::new("bash")
            .arg(repo().join("scripts/release.sh"))
            .env("ALISIO_LS_BIN", bin())
            .env("ALISIO_SKIP_VSIX", "1")
            .env("ALISIO_DIST", &dist),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let archives: Vec<String> = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tar.gz"))
        .collect();
    assert_eq!(archives.len(), 1, "{archives:?}");
    let name = archives[0].trim_end_matches(".tar.gz");
    let version = env!("CARGO_PKG_VERSION");
    assert!(name.starts_with(&format!("alisio-ls-{version}-")), "{name}");
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(dist.join(&archives[0]))
        .output()
        .unwrap();
    let mut files: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(String::from)
        .collect();
    files.sort();
    let want: Vec<String> = [
        "",
        "LICENSE-APACHE",
        "LICENSE-MIT",
        "README.md",
        "alisio-ls",
    ]
    .iter()
    .map(|f| format!("{name}/{f}"))
    .collect();
    assert_eq!(files, want);
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap();
    assert_eq!(sums.lines().count(), 1, "{sums}");
    let check = run_cmd(
        Command::new("sha256sum")
            .args(["-c", "SHA256SUMS"])
            .current_dir(&dist),
    );
    assert_eq!(check.code, 0, "{}\n{}", check.stdout, check.stderr);
}
