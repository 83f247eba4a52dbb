//! `alisio-ls completions SHELL` (docs/install.md): the scripts parse in their shell, and bash's
//! completion function, driven as bash drives it on <TAB>, completes subcommands and flags.

use std::path::Path;
use std::process::Command;

use crate::common::{Ws, run_cmd};

fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn script(ws: &Ws, shell: &str) -> std::path::PathBuf {
    let r = ws.run(&["completions", shell]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    assert!(r.stdout.contains("alisio-ls"), "{shell}: {}", r.stdout);
    ws.file(&format!("alisio-ls.{shell}"), r.stdout)
}

/// Sources the bash script, sets COMP_WORDS/COMP_CWORD for `line` (the cursor at its end) and
/// calls the registered completion function; returns COMPREPLY, one word a line.
fn bash_complete(file: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let prog = format!(
        r#"source '{}'
fn=$(complete -p alisio-ls | sed -E 's/.*-F ([^ ]+).*/\1/')
COMP_WORDS=({})
COMP_CWORD={}
COMP_LINE="${{COMP_WORDS[*]}}"
COMP_POINT=${{#COMP_LINE}}
"$fn" alisio-ls "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        file.display(),
        quoted.join(" "),
        words.len() - 1
    );
    let r = run_cmd(Command::new("bash").args(["--noprofile", "--norc", "-c", &prog]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout.lines().map(str::to_owned).collect()
}

#[test]
fn bash_completes_gov_to_governor_and_subcommands_flags() {
    if !has("bash") {
        eprintln!("skipped: bash is not installed");
        return;
    }
    let ws = Ws::new();
    let file = script(&ws, "bash");
    let n = run_cmd(Command::new("bash").arg("-n").arg(&file));
    assert_eq!(n.code, 0, "bash -n: {}", n.stderr);
    assert_eq!(bash_complete(&file, &["alisio-ls", "gov"]), ["governor"]);
    assert_eq!(
        bash_complete(&file, &["alisio-ls", "governor", "an"]),
        ["analyze"]
    );
    let flags = bash_complete(&file, &["alisio-ls", "check", "--for"]);
    assert_eq!(flags, ["--format"]);
    let shells = bash_complete(&file, &["alisio-ls", "completions", "p"]);
    assert_eq!(shells, ["powershell"]);
}

#[test]
fn zsh_script_parses() {
    if !has("zsh") {
        eprintln!("skipped: zsh is not installed (the zsh script is generated but not parsed)");
        let ws = Ws::new();
        let r = ws.run(&["completions", "zsh"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.starts_with("#compdef alisio-ls"), "{}", r.stdout);
        return;
    }
    let ws = Ws::new();
    let file = script(&ws, "zsh");
    let n = run_cmd(Command::new("zsh").arg("-n").arg(&file));
    assert_eq!(n.code, 0, "zsh -n: {}", n.stderr);
}

#[test]
fn fish_and_powershell_scripts_name_every_subcommand() {
    let ws = Ws::new();
    let fish = ws.run(&["completions", "fish"]);
    assert_eq!(fish.code, 0, "{}", fish.stderr);
    let ps = ws.run(&["completions", "powershell"]);
    assert_eq!(ps.code, 0, "{}", ps.stderr);
    for sub in [
        "serve",
        "check",
        "context",
        "skills",
        "run",
        "sessions",
        "governor",
        "completions",
    ] {
        assert!(
            fish.stdout.contains(&format!("-a \"{sub}\"")),
            "fish lacks {sub}"
        );
        assert!(
            ps.stdout.contains(&format!("'{sub}'")),
            "powershell lacks {sub}"
        );
    }
    if has("fish") {
        let file = ws.file("alisio-ls.fish", &fish.stdout);
        let n = run_cmd(Command::new("fish").arg("--no-execute").arg(&file));
        assert_eq!(n.code, 0, "fish --no-execute: {}", n.stderr);
    } else {
        eprintln!("note: fish is not installed; its script is not parsed");
    }
    let bad = ws.run(&["completions", "tcsh"]);
    assert_eq!(bad.code, 2);
}
