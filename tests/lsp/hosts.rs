//! hosts.md over the language server: the hover with every host in use side by side (H10), the
//! `host` option for the new hosts, and the quick fixes of the host diagnostics (spec/hosts.md §5).

use serde_json::{Value, json};

use crate::common::Ws;
use crate::harness::{codes, start, uri};

#[test]
fn hover_shows_every_host_in_use_side_by_side() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root rules");
    ws.file(".github/copilot-instructions.md", "copilot rules");
    ws.file(".cursor/rules/ts.mdc", "---\nglobs: src/**\n---\nts");
    ws.file(".cursor/rules/notes.md", "plain");
    let a = ws.file("src/a.ts", "let x = 1;\n");
    let mut lsp = start(&ws, json!({}), Value::Null);
    // The first pass publishes the cursor diagnostic: the workspace is analysed.
    let diags = lsp.diagnostics_for(&ws.root.join(".cursor/rules/notes.md"), |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-rule-ignored"]);
    lsp.open(&a, "let x = 1;\n");
    let h = lsp
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(&a)}, "position": {"line": 0, "character": 1}}),
        )
        .unwrap();
    assert_eq!(
        h["contents"]["value"],
        "**Instructions for src/a.ts** (hosts alisio, copilot, cursor)\n\n\
         | file | alisio | copilot | cursor |\n|---|---|---|---|\n\
         | `AGENTS.md` | in full (10 bytes) | always | always |\n\
         | `.github/copilot-instructions.md` | — | always | — |\n\
         | `.cursor/rules/ts.mdc` | — | — | attached |\n\n\
         cursor does not load `.cursor/rules/notes.md`: Cursor reads only .mdc files in .cursor/rules\n\
         cursor: documented behaviour, not verified against Cursor\n"
    );
    let none = lsp
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(&a)}, "position": {"line": 1, "character": 0}}),
        )
        .unwrap();
    assert_eq!(none, Value::Null);
    // H12: one lens per newer host in use that reads the file, after alisio's own lens.
    let lens_titles = |lsp: &mut crate::harness::Lsp, p: &std::path::Path| -> Vec<String> {
        lsp.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri(p)}}),
        )
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap().to_string())
        .collect()
    };
    let titles = lens_titles(&mut lsp, &ws.root.join("AGENTS.md"));
    assert_eq!(titles.len(), 3, "{titles:?}");
    assert_eq!(
        titles[1..],
        ["copilot: always · ~3 tokens", "cursor: always · ~3 tokens"]
    );
    assert_eq!(
        lens_titles(&mut lsp, &ws.root.join(".cursor/rules/ts.mdc")),
        ["cursor: attached for \"src/**\" · ~6 tokens"]
    );
    let ex = lsp
        .request(
            "alisio/contextExplain",
            json!({"uri": uri(&a), "host": "gemini"}),
        )
        .unwrap();
    assert_eq!(ex["host"], "gemini");
    assert_eq!(ex["notLoaded"], json!([]));
}

#[test]
fn host_option_selects_a_new_host_and_quick_fixes_rename_and_rewrite() {
    let ws = Ws::new();
    let md = ws.file(".cursor/rules/style.md", "plain\n");
    let list = ws.file(
        ".github/instructions/ts.instructions.md",
        "---\napplyTo: [\"**/*.ts\", \"**/*.tsx\"]\n---\nts\n",
    );
    let caps = json!({"workspace": {"workspaceEdit": {"documentChanges": true, "resourceOperations": ["rename"]}}});
    let mut lsp = start(&ws, caps, json!({"host": "copilot"}));
    let diags = lsp.diagnostics_for(&md, |d| !d.is_empty());
    let actions = lsp
        .request("textDocument/codeAction", json!({"textDocument": {"uri": uri(&md)}, "range": diags[0]["range"], "context": {"diagnostics": diags}}))
        .unwrap();
    assert_eq!(actions[0]["title"], "Rename to style.mdc");
    assert_eq!(
        actions[0]["edit"]["documentChanges"][0]["newUri"],
        uri(&ws.root.join(".cursor/rules/style.mdc"))
    );
    let diags = lsp.diagnostics_for(&list, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-apply-to-list"]);
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 1, "character": 9}, "end": {"line": 1, "character": 32}})
    );
    let actions = lsp
        .request("textDocument/codeAction", json!({"textDocument": {"uri": uri(&list)}, "range": diags[0]["range"], "context": {"diagnostics": diags}}))
        .unwrap();
    assert_eq!(
        actions[0]["title"],
        "Write applyTo as \"**/*.ts, **/*.tsx\""
    );
    assert_eq!(
        actions[0]["edit"]["changes"][uri(&list)],
        json!([{"range": diags[0]["range"], "newText": "\"**/*.ts, **/*.tsx\""}])
    );
    // With host copilot, the hover of a file is the side-by-side form.
    let a = ws.file("src/a.ts", "x\n");
    lsp.open(&a, "x\n");
    let h = lsp
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(&a)}, "position": {"line": 0, "character": 0}}),
        )
        .unwrap();
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(
        md.starts_with("**Instructions for src/a.ts** (hosts copilot, cursor)"),
        "{md}"
    );
    assert!(
        md.contains("| `.github/instructions/ts.instructions.md` | listed | — |"),
        "{md}"
    );
}

#[test]
fn an_mdc_rule_written_after_start_gets_its_diagnostic() {
    let ws = Ws::new();
    let keep = ws.file(".cursor/rules/keep.md", "plain");
    // Client-side watching: the change arrives as a notification, so the test does not race a
    // server-side watcher.
    let caps = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut lsp = start(&ws, caps, Value::Null);
    lsp.diagnostics_for(&keep, |d| !d.is_empty());
    let m = ws.file(".cursor/rules/manual.mdc", "no header\n");
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&m), "type": 1}]}),
    );
    let diags = lsp.diagnostics_for(&m, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-rule-manual-only"]);
    assert_eq!(diags[0]["severity"], 3);
}
