//! spec/hosts.md §5: the diagnostics of the copilot, gemini and cursor files, for every host in use
//! (H9, H11), through `check`.

use crate::common::{Ws, triples};
use crate::hosts_util::{check, d, run};

#[test]
fn copilot_codes_are_reported_when_copilot_files_exist() {
    let ws = Ws::new();
    ws.files(&[
        ("src/a.ts", "code"),
        (
            ".github/instructions/list.instructions.md",
            "---\napplyTo: [\"**/*.ts\", \"**/*.tsx\"]\n---\nUse strict mode.\n",
        ),
        (
            ".github/instructions/py.instructions.md",
            "---\napplyTo: \"**/*.py, src/**\"\n---\nUse type hints.\n",
        ),
        (".github/instructions/X.Instructions.md", "case"),
        ("docs/stray.instructions.md", "outside"),
    ]);
    // Default host alisio: copilot is in use because .github/instructions exists.
    assert_eq!(
        check(&ws, "alisio", ""),
        [
            d(
                ".github/instructions/X.Instructions.md",
                "instructions-name-case",
                "not read: copilot reads \"X.instructions.md\" (names are case-sensitive)"
            ),
            d(
                ".github/instructions/list.instructions.md",
                "instructions-apply-to-list",
                "applyTo is a list; Copilot reads only a string, so this file is never attached (write \"**/*.ts, **/*.tsx\")"
            ),
            d(
                ".github/instructions/py.instructions.md",
                "instructions-glob-unmatched",
                "applyTo pattern \"**/*.py\" matches no file in the workspace"
            ),
            d(
                "docs/stray.instructions.md",
                "instructions-outside-location",
                "not read: Copilot reads .instructions.md files only from .claude/rules, .github/instructions"
            ),
        ]
    );
    // With hosts.enabled not naming copilot, and the active host alisio, nothing is reported.
    assert_eq!(
        check(&ws, "alisio", r#"{"hosts":{"enabled":["alisio"]}}"#),
        []
    );
}

#[test]
fn cursor_codes_with_ranges() {
    let ws = Ws::new();
    ws.files(&[
        ("src/a.ts", "code"),
        (".cursor/rules/style.md", "plain"),
        (".cursor/rules/manual.mdc", "no header"),
        (".cursor/rules/py.mdc", "---\nglobs: **/*.py, src/**\n---\n"),
        ("pkg/agents.md", "lowercase"),
    ]);
    let r = run(&ws, "", &["check", "--format", "json"]);
    let v = r.json();
    let diags = v["diagnostics"].as_array().unwrap();
    let got = triples(&v["diagnostics"], ["file", "code", "severity"]);
    let t = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(
        got,
        [
            t(
                ".cursor/rules/manual.mdc",
                "instructions-rule-manual-only",
                "information"
            ),
            t(
                ".cursor/rules/py.mdc",
                "instructions-glob-unmatched",
                "warning"
            ),
            t(
                ".cursor/rules/style.md",
                "instructions-rule-ignored",
                "warning"
            ),
            // alisio's own near-miss code comes first (code order), then cursor's.
            t("pkg/agents.md", "instructions-unread-name", "warning"),
            t("pkg/agents.md", "instructions-name-case", "warning"),
        ]
    );
    assert_eq!(
        diags[1]["range"],
        serde_json::json!({"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 22}})
    );
    assert_eq!(
        diags[2]["message"],
        "not read: Cursor reads only .mdc files in .cursor/rules; rename it to style.mdc"
    );
}

#[test]
fn gemini_import_and_case_codes() {
    let ws = Ws::new();
    ws.file("GEMINI.md", "Read @docs/missing.md first.\n");
    ws.file("sub/gemini.md", "wrong case");
    assert_eq!(
        check(&ws, "gemini", ""),
        [
            d(
                "GEMINI.md",
                "instructions-import-failed",
                "import not found: docs/missing.md"
            ),
            d(
                "sub/gemini.md",
                "instructions-name-case",
                "not read: gemini reads \"GEMINI.md\" (names are case-sensitive)"
            ),
        ]
    );
}

#[test]
fn gemini_import_of_a_directory_cannot_be_read() {
    // hosts.md GM13a/GM14: Gemini CLI 0.61.0 reads the directory and fails with EISDIR.
    let ws = Ws::new();
    ws.file("GEMINI.md", "@docs\n");
    ws.file("docs/x.md", "x\n");
    assert_eq!(
        check(&ws, "gemini", ""),
        [d(
            "GEMINI.md",
            "instructions-import-failed",
            "import cannot be read: docs (EISDIR: illegal operation on a directory, read)"
        )]
    );
}
