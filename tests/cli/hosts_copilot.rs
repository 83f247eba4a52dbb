//! Host `copilot` (spec/hosts.md §2), rule by rule, through the built binary.

use crate::common::{Ws, write};
use crate::hosts_util::{explain, f, files, n, not_loaded, run};

#[test]
fn cp3_to_cp6_always_set_is_case_insensitive_and_locale_sorted() {
    let ws = Ws::new();
    ws.files(&[
        (".github/Copilot-Instructions.md", "repo wide"),
        ("agents.md", "agents in lowercase"),
        ("CLAUDE.md", "claude"),
        ("CLAUDE.local.md", "local"),
        (".claude/CLAUDE.md", "dot claude"),
        (".claude/CLAUDE.local.md", "never"),
    ]);
    let home_claude = write(&ws.home.join(".claude/CLAUDE.md"), "user");
    let v = explain(&ws, "copilot", "src/a.ts", "");
    let home = home_claude.to_string_lossy().into_owned();
    // The home directory sorts before `ws` (both live in the same temporary directory).
    assert_eq!(
        files(&v),
        [
            f(&home, "claude", "always"),
            f(".claude/CLAUDE.md", "claude", "always"),
            f(
                ".github/Copilot-Instructions.md",
                "copilot-instructions",
                "always"
            ),
            f("agents.md", "agents", "always"),
            f("CLAUDE.local.md", "claude-local", "always"),
            f("CLAUDE.md", "claude", "always"),
        ]
    );
    assert_eq!(v["files"][0]["scope"], "global");
    assert_eq!(
        not_loaded(&v),
        [n(
            ".claude/CLAUDE.local.md",
            "Copilot does not read .claude/CLAUDE.local.md"
        )]
    );
    assert_eq!(v["maxBytes"], serde_json::Value::Null);
    assert_eq!(v["files"][0]["keptBytes"], 4);
    assert_eq!(v["files"][0]["truncation"], "none");
}

#[test]
fn cp1_settings_switch_the_always_set_off() {
    let ws = Ws::new();
    ws.files(&[
        (".github/copilot-instructions.md", "repo"),
        ("AGENTS.md", "agents"),
        ("CLAUDE.md", "claude"),
    ]);
    let v = explain(
        &ws,
        "copilot",
        "a.ts",
        r#"{"hosts":{"copilot":{"useInstructionFiles":false,"useAgentsMdFile":false,"useClaudeMdFile":false}}}"#,
    );
    assert_eq!(files(&v), []);
    assert_eq!(
        not_loaded(&v),
        [
            n(
                ".github/copilot-instructions.md",
                "hosts.copilot.useInstructionFiles is off"
            ),
            n("AGENTS.md", "hosts.copilot.useAgentsMdFile is off"),
            n("CLAUDE.md", "hosts.copilot.useClaudeMdFile is off"),
        ]
    );
}

#[cfg(unix)]
#[test]
fn cp6_a_symlink_to_a_loaded_file_is_dropped() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "shared");
    std::os::unix::fs::symlink("AGENTS.md", ws.root.join("CLAUDE.md")).unwrap();
    let v = explain(&ws, "copilot", "a.ts", "");
    assert_eq!(files(&v), [f("AGENTS.md", "agents", "always")]);
    assert_eq!(
        not_loaded(&v),
        [n(
            "CLAUDE.md",
            "symbolic link to AGENTS.md, which is already loaded"
        )]
    );
}

#[test]
fn cp3_cp5_cp7_files_below_the_root_are_not_loaded() {
    let ws = Ws::new();
    ws.files(&[
        ("AGENTS.md", "root"),
        ("pkg/.github/copilot-instructions.md", "nested copilot"),
        ("pkg/CLAUDE.md", "nested claude"),
        ("pkg/AGENTS.md", "nested agents"),
    ]);
    let v = explain(&ws, "copilot", "pkg/src/a.ts", "");
    assert_eq!(files(&v), [f("AGENTS.md", "agents", "always")]);
    assert_eq!(
        not_loaded(&v),
        [
            n(
                "pkg/.github/copilot-instructions.md",
                "only .github/copilot-instructions.md of the workspace root is read"
            ),
            n(
                "pkg/CLAUDE.md",
                "Copilot reads CLAUDE.md only at the workspace root"
            ),
            n(
                "pkg/AGENTS.md",
                "hosts.copilot.useNestedAgentsMdFiles is off"
            ),
        ]
    );
}

#[test]
fn cp7_nested_agents_files_are_listed_only_and_the_root_is_listed_again() {
    let ws = Ws::new();
    ws.files(&[
        ("AGENTS.md", "root"),
        ("pkg/AGENTS.md", "pkg"),
        ("docs/deep/AGENTS.md", "docs"),
        (".gitignore", "build/\n"),
        ("build/AGENTS.md", "ignored"),
        ("other/agents.md", "not the exact name"),
    ]);
    let v = explain(
        &ws,
        "copilot",
        "pkg/a.ts",
        r#"{"hosts":{"copilot":{"useNestedAgentsMdFiles":true}}}"#,
    );
    assert_eq!(
        files(&v),
        [
            f("AGENTS.md", "agents", "always"),
            f("AGENTS.md", "agents", "listed"),
            f("docs/deep/AGENTS.md", "agents", "listed"),
            f("pkg/AGENTS.md", "agents", "listed"),
        ]
    );
    assert_eq!(not_loaded(&v), []);
}

#[test]
fn cp9_locations_are_read_five_levels_deep() {
    let ws = Ws::new();
    ws.file(
        ".github/instructions/a/b/c/d/e/x.instructions.md",
        "---\napplyTo: '**'\n---\nfive",
    );
    ws.file(
        ".github/instructions/a/b/c/d/e/f/y.instructions.md",
        "---\napplyTo: '**'\n---\nsix",
    );
    let v = explain(&ws, "copilot", "a.ts", "");
    assert_eq!(
        files(&v),
        [f(
            ".github/instructions/a/b/c/d/e/x.instructions.md",
            "instructions",
            "attached"
        )]
    );
    assert_eq!(
        not_loaded(&v),
        [n(
            ".github/instructions/a/b/c/d/e/f/y.instructions.md",
            "deeper than 5 folders below the location .github/instructions"
        )]
    );
}

fn apply_to_workspace() -> Ws {
    let ws = Ws::new();
    let i = |name: &str, header: &str| {
        ws.file(
            &format!(".github/instructions/{name}"),
            format!("---\n{header}\n---\n{name} body"),
        );
    };
    i("all.instructions.md", "applyTo: \"**\"");
    i(
        "braces.instructions.md",
        "applyTo: \"**/*.{ts,tsx}, docs/**\"",
    );
    i("dot.instructions.md", "applyTo: \"./src/**/*.ts\"");
    i(
        "list.instructions.md",
        "applyTo: [\"**/*.ts\", \"**/*.tsx\"]",
    );
    i("md.instructions.md", "applyTo: \"**/*.md\"");
    i("none.instructions.md", "description: no pattern");
    i("py.instructions.md", "applyTo: \"*.py\"");
    i("Wrong.Instructions.md", "applyTo: \"**\"");
    ws.files(&[
        (".github/instructions/notes.md", "not an instructions file"),
        (
            ".github/instructions/open.instructions.md",
            "---\napplyTo: '**/*.py'\nnever closed",
        ),
        (".claude/rules/always.md", "no paths: always applies"),
        (".claude/rules/README.md", "never an instruction"),
        (
            ".claude/rules/rs.md",
            "---\npaths:\n  - \"src/**/*.rs\"\n---\nrust",
        ),
    ]);
    ws
}

#[test]
fn cp10_to_cp15_apply_to_is_matched_like_vs_code() {
    let ws = apply_to_workspace();
    let v = explain(&ws, "copilot", "a/b/c.py", "");
    let gi = ".github/instructions/";
    let p = |s: &str| format!("{gi}{s}");
    assert_eq!(
        files(&v),
        [
            f(".claude/rules/always.md", "rule", "attached"),
            f(&p("all.instructions.md"), "instructions", "attached"),
            f(&p("open.instructions.md"), "instructions", "attached"),
            f(&p("py.instructions.md"), "instructions", "attached"),
            f(".claude/rules/rs.md", "rule", "listed"),
            f(&p("braces.instructions.md"), "instructions", "listed"),
            f(&p("dot.instructions.md"), "instructions", "listed"),
            f(&p("list.instructions.md"), "instructions", "listed"),
            f(&p("md.instructions.md"), "instructions", "listed"),
            f(&p("none.instructions.md"), "instructions", "listed"),
        ]
    );
    let reasons: Vec<_> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["reason"].as_str())
        .collect();
    assert_eq!(
        reasons,
        [
            "paths \"src/**/*.rs\" does not match a/b/c.py",
            "applyTo \"**/*.{ts,tsx}, docs/**\" does not match a/b/c.py",
            "applyTo \"./src/**/*.ts\" does not match a/b/c.py",
            "applyTo is a list; Copilot reads only a string",
            "applyTo \"**/*.md\" does not match a/b/c.py",
            "no applyTo",
        ]
    );
    assert_eq!(
        not_loaded(&v),
        [n(
            &p("Wrong.Instructions.md"),
            "the name must end in .instructions.md (case-sensitive)"
        )]
    );
    // The comma inside braces does not split; `./src/**` never matches, even for src/.
    let v = explain(&ws, "copilot", "src/x.tsx", "");
    let attached: Vec<_> = files(&v)
        .into_iter()
        .filter(|e| e.2 == "attached")
        .map(|e| e.0)
        .collect();
    assert_eq!(
        attached,
        [
            ".claude/rules/always.md".to_string(),
            p("all.instructions.md"),
            p("braces.instructions.md"),
        ]
    );
    let v = explain(&ws, "copilot", "docs/guide.md", "");
    assert!(files(&v).contains(&f(&p("braces.instructions.md"), "instructions", "attached")));
    assert!(files(&v).contains(&f(&p("md.instructions.md"), "instructions", "attached")));
}

#[test]
fn cp13_a_directory_matches_only_unconditional_patterns() {
    let ws = apply_to_workspace();
    std::fs::create_dir_all(ws.root.join("docs")).unwrap();
    let v = explain(&ws, "copilot", "docs", "");
    let attached: Vec<_> = files(&v)
        .into_iter()
        .filter(|e| e.2 == "attached")
        .map(|e| e.0)
        .collect();
    assert_eq!(
        attached,
        [
            ".claude/rules/always.md",
            ".github/instructions/all.instructions.md"
        ]
    );
}

#[test]
fn cp13_src_glob_matches_every_file_of_a_workspace_below_a_src_folder() {
    let ws = Ws::new();
    let app = ws.tmp.path().join("src/app");
    std::fs::create_dir_all(app.join(".git")).unwrap();
    write(
        &app.join(".github/instructions/src.instructions.md"),
        "---\napplyTo: \"src/**\"\n---\nsrc",
    );
    let cwd = app.to_str().unwrap();
    let args = [
        "context", "explain", "--json", "--host", "copilot", "--cwd", cwd, "lib/a.ts",
    ];
    let r = run(&ws, "", &args);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        files(&r.json()),
        [f(
            ".github/instructions/src.instructions.md",
            "instructions",
            "attached"
        )]
    );
}

#[test]
fn cp14_settings_for_applying_instructions_and_the_read_tool() {
    let ws = apply_to_workspace();
    let v = explain(
        &ws,
        "copilot",
        "a.py",
        r#"{"hosts":{"copilot":{"includeApplyingInstructions":false,"readFileTool":false,"instructionsFilesLocations":{".claude/rules":false}}}}"#,
    );
    assert_eq!(files(&v), []);
    let nl = not_loaded(&v);
    assert_eq!(nl.len(), 9, "{nl:?}");
    assert_eq!(
        nl[1],
        n(
            ".github/instructions/all.instructions.md",
            "hosts.copilot.includeApplyingInstructions is off"
        )
    );
}

#[test]
fn cp8_user_locations_come_first() {
    let ws = Ws::new();
    let user = write(
        &ws.home.join(".copilot/instructions/me.instructions.md"),
        "---\napplyTo: '**'\n---\nmine",
    );
    ws.file(
        ".github/instructions/team.instructions.md",
        "---\napplyTo: '**'\n---\nteam",
    );
    ws.file(
        "docs/ai/x.instructions.md",
        "---\napplyTo: '**'\n---\ncustom",
    );
    let v = explain(
        &ws,
        "copilot",
        "a.ts",
        r#"{"hosts":{"copilot":{"instructionsFilesLocations":{"docs/ai":true}}}}"#,
    );
    assert_eq!(
        files(&v),
        [
            f(user.to_str().unwrap(), "instructions", "attached"),
            f(
                ".github/instructions/team.instructions.md",
                "instructions",
                "attached"
            ),
            f("docs/ai/x.instructions.md", "instructions", "attached"),
        ]
    );
    assert_eq!(v["files"][0]["scope"], "global");
}

#[test]
fn cp16_duplicate_content_and_empty_files() {
    let ws = Ws::new();
    ws.files(&[
        (".github/copilot-instructions.md", "  same text\n"),
        ("AGENTS.md", "same text"),
        ("CLAUDE.md", " \n"),
    ]);
    let v = explain(&ws, "copilot", "a.ts", "");
    assert_eq!(
        files(&v),
        [
            f(
                ".github/copilot-instructions.md",
                "copilot-instructions",
                "always"
            ),
            f("CLAUDE.md", "claude", "always"),
        ]
    );
    assert_eq!(v["files"][1]["empty"], true);
    assert_eq!(
        not_loaded(&v),
        [n(
            "AGENTS.md",
            "same content as .github/copilot-instructions.md"
        )]
    );
}

#[test]
fn h6_outside_the_workspace_only_user_files_apply() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root");
    let user = write(&ws.home.join(".claude/CLAUDE.md"), "user");
    let v = explain(&ws, "copilot", "/tmp/elsewhere/x.ts", "");
    assert_eq!(files(&v), [f(user.to_str().unwrap(), "claude", "always")]);
    assert_eq!(v["outsideWorkspace"], true);
}

#[test]
fn check_counts_the_one_instructions_file_it_warns_about() {
    let ws = Ws::new();
    ws.files(&[(
        ".github/instructions/style.instructions.md",
        "---\napplyTo: \"**/*.zz\"\n---\nUse tabs.\n",
    )]);
    let r = run(&ws, "", &["check", "--host", "copilot", "."]);
    assert_eq!(
        r.stdout,
        ".github/instructions/style.instructions.md:2:10: warning[instructions-glob-unmatched]: applyTo pattern \"**/*.zz\" matches no file in the workspace\n1 file checked: 0 error(s), 1 warning(s), 0 info, 0 hint(s)\n",
        "{r:?}"
    );
}
