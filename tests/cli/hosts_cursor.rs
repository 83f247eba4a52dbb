//! Host `cursor` (spec/hosts.md §4: documented, not verified), rule by rule, through the binary.

use crate::common::Ws;
use crate::hosts_util::{explain, f, files, n, not_loaded, run};

fn rules(ws: &Ws) {
    let r = |name: &str, text: &str| {
        ws.file(&format!(".cursor/rules/{name}"), text);
    };
    r(
        "always.mdc",
        "---\nalwaysApply: true\nglobs: docs/**\n---\nalways",
    );
    r("auto.mdc", "---\nglobs: **/*.ts, **/*.tsx\n---\nts");
    r("auto-list.mdc", "---\nglobs:\n  - src/**\n---\nsrc");
    r(
        "quoted.mdc",
        "---\nalwaysApply: \"true\"\nglobs: lib/**\n---\nquoted",
    );
    r(
        "requested.mdc",
        "---\ndescription: Database conventions\n---\ndb",
    );
    r("manual.mdc", "---\nalwaysApply: false\n---\nmanual");
    r(
        "backend/nested.mdc",
        "---\ndescription: in a sub-folder\n---\nx",
    );
    r("style.md", "---\nalwaysApply: true\n---\nplain md");
    r("open.mdc", "---\nalwaysApply: true\nnever closed");
    r("notes.txt", "ignored");
}

#[test]
fn cu4_the_four_rule_types() {
    let ws = Ws::new();
    rules(&ws);
    let v = explain(&ws, "cursor", "src/a.ts", "");
    let p = |s: &str| format!(".cursor/rules/{s}");
    assert_eq!(
        files(&v),
        [
            f(&p("always.mdc"), "cursor-rule", "always"),
            f(&p("auto-list.mdc"), "cursor-rule", "attached"),
            f(&p("auto.mdc"), "cursor-rule", "attached"),
            f(&p("backend/nested.mdc"), "cursor-rule", "agent-requested"),
            f(&p("manual.mdc"), "cursor-rule", "manual"),
            f(&p("requested.mdc"), "cursor-rule", "agent-requested"),
        ]
    );
    assert_eq!(
        not_loaded(&v),
        [
            n(
                &p("style.md"),
                "Cursor reads only .mdc files in .cursor/rules"
            ),
            n(&p("open.mdc"), "frontmatter is not closed"),
            n(&p("quoted.mdc"), "globs \"lib/**\" do not match src/a.ts"),
        ]
    );
    assert_eq!(v["evidence"], "documented-not-verified");
    assert_eq!(v["maxBytes"], serde_json::Value::Null);
}

#[test]
fn cu4_cu5_globs_are_relative_and_a_quoted_true_is_not_always() {
    let ws = Ws::new();
    rules(&ws);
    let v = explain(&ws, "cursor", "lib/x.rs", "");
    let attached: Vec<_> = files(&v)
        .into_iter()
        .filter(|e| e.2 == "attached")
        .map(|e| e.0)
        .collect();
    assert_eq!(attached, [".cursor/rules/quoted.mdc"]);
    let nl = not_loaded(&v);
    assert!(nl.contains(&n(
        ".cursor/rules/auto.mdc",
        "globs \"**/*.ts, **/*.tsx\" do not match lib/x.rs"
    )));
    assert!(nl.contains(&n(
        ".cursor/rules/auto-list.mdc",
        "globs \"src/**\" do not match lib/x.rs"
    )));
}

#[test]
fn cu2_cu6_cu7_nested_folders_agents_files_and_the_legacy_file() {
    let ws = Ws::new();
    ws.files(&[
        ("AGENTS.md", "root"),
        (".cursorrules", "legacy"),
        (
            ".cursor/rules/root.mdc",
            "---\nalwaysApply: true\n---\nroot",
        ),
        ("packages/api/AGENTS.md", "api"),
        ("packages/api/.cursorrules", "nested legacy"),
        (
            "packages/api/.cursor/rules/db.mdc",
            "---\nglobs: src/**\n---\ndb",
        ),
        (
            "packages/api/.cursor/rules/scoped.mdc",
            "---\nalwaysApply: true\n---\nscoped",
        ),
    ]);
    let v = explain(&ws, "cursor", "packages/api/src/y.ts", "");
    assert_eq!(
        files(&v),
        [
            f("AGENTS.md", "agents", "always"),
            f("packages/api/AGENTS.md", "agents", "attached"),
            f(".cursorrules", "cursorrules", "always"),
            f(".cursor/rules/root.mdc", "cursor-rule", "always"),
            f(
                "packages/api/.cursor/rules/db.mdc",
                "cursor-rule",
                "attached"
            ),
            f(
                "packages/api/.cursor/rules/scoped.mdc",
                "cursor-rule",
                "attached"
            ),
        ]
    );
    assert_eq!(
        not_loaded(&v),
        [n(
            "packages/api/.cursorrules",
            "only the workspace root's .cursorrules is read"
        )]
    );
    // Another package: nothing of packages/api applies.
    let v = explain(&ws, "cursor", "packages/web/x.ts", "");
    assert_eq!(
        files(&v),
        [
            f("AGENTS.md", "agents", "always"),
            f(".cursorrules", "cursorrules", "always"),
            f(".cursor/rules/root.mdc", "cursor-rule", "always"),
        ]
    );
    assert_eq!(not_loaded(&v), []);
}

#[test]
fn h7_human_output_says_documented_not_verified() {
    let ws = Ws::new();
    ws.file(".cursor/rules/x.md", "plain");
    let r = run(&ws, "", &["context", "explain", "--host", "cursor", "a.ts"]);
    assert_eq!(
        r.stdout,
        "Instructions for a.ts (host cursor, no shared budget)\nno instruction file applies\nnot loaded .cursor/rules/x.md: Cursor reads only .mdc files in .cursor/rules\ncursor: documented behaviour, not verified against Cursor\n"
    );
}

#[test]
fn cu6_frontmatter_in_agents_md_is_not_interpreted() {
    let ws = Ws::new();
    let text = "---\nglobs: nothing/**\nalwaysApply: false\n---\nrules";
    ws.file("AGENTS.md", text);
    let v = explain(&ws, "cursor", "src/a.ts", "");
    assert_eq!(files(&v), [f("AGENTS.md", "agents", "always")]);
    assert_eq!(v["files"][0]["bytes"], text.len());
}

#[test]
fn a_quoted_always_apply_is_named_a_quoted_string() {
    let ws = Ws::new();
    ws.files(&[(
        ".cursor/rules/q.mdc",
        "---\nalwaysApply: \"true\"\n---\nbody\n",
    )]);
    let r = run(&ws, "", &["check", "--host", "cursor", "."]);
    assert_eq!(
        r.stdout,
        ".cursor/rules/q.mdc:2:14: info[instructions-rule-manual-only]: alwaysApply is the quoted string \"true\", not the boolean true: Cursor applies this rule only when you mention it with @q (write alwaysApply: true, without quotes)\n1 file checked: 0 error(s), 0 warning(s), 1 info, 0 hint(s)\n",
        "{r:?}"
    );
}

#[test]
fn cu7_the_root_cursorrules_is_reported_as_legacy() {
    let ws = Ws::new();
    ws.files(&[
        (
            ".cursorrules",
            "# Legacy cursor rules\n\nUse strict mode.\n",
        ),
        ("pkg/.cursorrules", "nested: never read\n"),
    ]);
    let r = run(&ws, "", &["check", "--host", "cursor", "."]);
    assert_eq!(
        r.stdout,
        ".cursorrules:1:1: info[instructions-legacy-name]: .cursorrules is Cursor's legacy rules file: still read as an always-applied rule, but deprecated; move it to .cursor/rules/*.mdc (alwaysApply: true) or AGENTS.md\n1 file checked: 0 error(s), 0 warning(s), 1 info, 0 hint(s)\n",
        "{r:?}"
    );
    // The nested one is never read (CU7), so it is not called legacy.
    assert!(!r.stdout.contains("pkg/.cursorrules"), "{r:?}");
}
