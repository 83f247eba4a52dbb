//! Instruction files in the editor: cross-file diagnostics, lenses, hovers, symbols, quick fixes,
//! `alisio/contextExplain`, and both watcher paths.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Ws, write};
use crate::harness::{codes, field_of, start, uri};

/// The layout of instructions.md case 17 with existing `src/` and `src/lsp/`.
fn case_17(ws: &Ws) {
    write(&ws.config_home.join("AGENTS.md"), "g".repeat(900));
    ws.file("AGENTS.md", "a".repeat(30000));
    ws.file("src/AGENTS.override.md", "o".repeat(10000));
    ws.file("src/lsp/handlers.rs", "fn main() {}\n\n\n\n\n\n");
}

#[test]
fn truncation_of_the_root_file_follows_edits_of_a_nested_file() {
    let ws = Ws::new();
    let root = ws.file("AGENTS.md", "a".repeat(30000));
    let nested = ws.file("sub/AGENTS.md", "small");
    let mut lsp = start(&ws, json!({}), Value::Null);
    // Initially everything fits: nothing on the root file.
    lsp.open(&nested, "small");
    // Grow the nested file in the editor (unsaved): 5000 bytes push the root over 32768.
    lsp.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri(&nested), "version": 2},
            "contentChanges": [{"text": "b".repeat(5000)}]
        }),
    );
    let diags = lsp.diagnostics_for(&root, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-truncated"]);
    assert_eq!(
        diags[0]["message"],
        "only the last 27768 of 30000 bytes are loaded for 1 directory (e.g. sub): the closer files use the rest of context.maxBytes (32768)"
    );
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 2232}})
    );
    assert_eq!(
        diags[0]["relatedInformation"][0]["location"]["uri"],
        uri(&nested)
    );
    // Shrink it again: the diagnostic goes away.
    lsp.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": uri(&nested), "version": 3},
            "contentChanges": [{"text": "tiny"}]
        }),
    );
    lsp.diagnostics_for(&root, <[Value]>::is_empty);
}

#[test]
fn case_50_lens_hover_and_explain_request() {
    let ws = Ws::new();
    case_17(&ws);
    let mut lsp = start(&ws, json!({}), Value::Null);
    // Wait for the first scan to publish.
    lsp.diagnostics_for(&ws.root.join("AGENTS.md"), |d| !d.is_empty());
    let lenses = lsp
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri(&ws.root.join("AGENTS.md"))}}),
        )
        .unwrap();
    assert_eq!(lenses.as_array().unwrap().len(), 1);
    assert_eq!(
        lenses[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
    );
    assert_eq!(
        lenses[0]["command"]["title"],
        "agents · 3 directories · beginning cut in 2 of 3 · ~7500 tokens"
    );
    assert_eq!(lenses[0]["command"]["command"], "alisio.explainContext");
    assert_eq!(
        lenses[0]["command"]["arguments"],
        json!([uri(&ws.root.join("AGENTS.md"))])
    );

    let handlers = ws.root.join("src/lsp/handlers.rs");
    let h = lsp.at("textDocument/hover", &handlers, 0, 3);
    let md = h["contents"]["value"].as_str().unwrap();
    assert!(
        md.starts_with("**Instructions for src/lsp/handlers.rs** (host alisio)"),
        "{md}"
    );
    assert!(md.contains("[truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]"), "{md}");
    assert!(md.contains("The closest file wins on conflicts."), "{md}");
    assert_eq!(md.matches("\n| ").count(), 4, "header + 3 rows:\n{md}");
    let none = lsp.at("textDocument/hover", &handlers, 5, 0);
    assert_eq!(none, Value::Null);

    let ex = lsp
        .request("alisio/contextExplain", json!({"uri": uri(&handlers)}))
        .unwrap();
    assert_eq!(ex["path"], "src/lsp/handlers.rs");
    assert_eq!(ex["omittedBytes"], 8132);
    let rows: Vec<(Value, Value, Value)> = ex["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["bytes"].clone(),
                f["keptBytes"].clone(),
                f["truncation"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (json!(900), json!(0), json!("dropped")),
            (json!(30000), json!(22768), json!("beginning")),
            (json!(10000), json!(10000), json!("none"))
        ]
    );
    let codex = lsp
        .request(
            "alisio/contextExplain",
            json!({"uri": uri(&handlers), "host": "codex"}),
        )
        .unwrap();
    assert_eq!(codex["host"], "codex");
    // The command form answers the same object.
    let cmd = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "alisio.explainContext", "arguments": [uri(&handlers)]}),
        )
        .unwrap();
    assert_eq!(cmd, ex);
    let bad = lsp
        .request(
            "alisio/contextExplain",
            json!({"uri": "untitled:Untitled-1"}),
        )
        .unwrap_err();
    assert_eq!(bad["code"], -32602);
}

#[test]
fn lens_on_every_file_only_when_enabled() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "x".repeat(100));
    let src = ws.file("src/main.rs", "fn main() {}\n");
    let mut lsp = start(&ws, json!({}), Value::Null);
    let l = lsp.on("textDocument/codeLens", &src);
    assert_eq!(l, json!([]));
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"alisio": {"codeLens": {"instructionsOnEveryFile": true}}}}),
    );
    let l = lsp.on("textDocument/codeLens", &src);
    assert_eq!(
        l[0]["command"]["title"],
        "Instructions: 1 file(s) · 100 of 100 bytes"
    );
}

#[test]
fn document_symbols_are_the_nested_headings() {
    let ws = Ws::new();
    let f = ws.file(
        "AGENTS.md",
        "# Top\ntext\n## Build\nrun\n\nTests\n-----\n# Other\n",
    );
    let mut lsp = start(&ws, json!({}), Value::Null);
    let s = lsp.on("textDocument/documentSymbol", &f);
    let names = field_of(&s, "name");
    assert_eq!(names, ["Top", "Other"]);
    let kids: Vec<&str> = s[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(kids, ["Build", "Tests"]);
    assert_eq!(s[0]["kind"], 15);
    assert_eq!(
        s[0]["selectionRange"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}})
    );
}

#[test]
fn lowercase_agents_md_gets_a_rename_quick_fix_only_with_resource_operations() {
    let ws = Ws::new();
    let f = ws.file("agents.md", "hello\n");
    let caps = json!({"workspace": {"workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"]}}});
    let mut lsp = start(&ws, caps, Value::Null);
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-unread-name"]);
    assert_eq!(
        diags[0]["message"],
        "not read: alisio reads \"AGENTS.md\" (names are case-sensitive)"
    );
    let actions = lsp
        .request("textDocument/codeAction", json!({"textDocument": {"uri": uri(&f)}, "range": diags[0]["range"], "context": {"diagnostics": diags}}))
        .unwrap();
    assert_eq!(actions[0]["title"], "Rename to AGENTS.md");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(
        actions[0]["edit"]["documentChanges"][0],
        json!({"kind": "rename", "oldUri": uri(&f), "newUri": uri(&ws.root.join("AGENTS.md")), "options": {"overwrite": false, "ignoreIfExists": false}})
    );

    let mut plain = start(&ws, json!({}), Value::Null);
    let diags = plain.diagnostics_for(&f, |d| !d.is_empty());
    let actions = plain
        .request("textDocument/codeAction", json!({"textDocument": {"uri": uri(&f)}, "range": diags[0]["range"], "context": {"diagnostics": diags}}))
        .unwrap();
    // No rename without resource operations; only the suppressions (spec/suppressions.md §5).
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Ignore instructions-unread-name in this line",
            "Ignore instructions-unread-name in this file"
        ]
    );
}

#[test]
fn client_side_watching_is_registered_and_a_deleted_file_is_cleared() {
    let ws = Ws::new();
    let f = ws.file("Agente.md", "old name\n");
    let caps = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut lsp = start(&ws, caps, Value::Null);
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-unread-name"]);
    // The server registered its watchers with the client.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let regs = lsp.server_requests.lock().unwrap().clone();
        if let Some(r) = regs
            .iter()
            .find(|r| r["method"] == "client/registerCapability")
        {
            assert_eq!(
                r["params"]["registrations"][0]["method"],
                "workspace/didChangeWatchedFiles"
            );
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no registration");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_file(&f).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&f), "type": 3}]}),
    );
    lsp.diagnostics_for(&f, <[Value]>::is_empty);
}

#[test]
fn server_side_watcher_sees_files_created_on_disk() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root\n");
    let mut lsp = start(&ws, json!({}), json!({"watcher": "server"}));
    // Let the first scan finish (AGENTS.md alone reports nothing), then create a near miss.
    std::thread::sleep(Duration::from_millis(300));
    let f = ws.file("AGENTS.MD", "upper\n");
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-unread-name"]);
}

#[test]
fn utf8_positions_when_negotiated() {
    // instructions.md case 38 in the editor.
    let ws = Ws::new();
    let root = ws.file("AGENTS.md", format!("😀😀{}", "a".repeat(30)));
    ws.file("sub/AGENTS.md", "s".repeat(1000));
    let mut lsp = start(
        &ws,
        json!({"general": {"positionEncodings": ["utf-8"]}}),
        json!({"context": {"maxBytes": 1024}}),
    );
    let diags = lsp.diagnostics_for(&root, |d| !d.is_empty());
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 14}})
    );
    let mut lsp16 = start(&ws, json!({}), json!({"context": {"maxBytes": 1024}}));
    let diags = lsp16.diagnostics_for(&root, |d| !d.is_empty());
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 10}})
    );
}

#[test]
fn invalid_utf8_is_reported_from_disk_and_a_cancelled_request_leaves_the_server_answering() {
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", b"ab\xFFcd\n");
    let mut lsp = start(&ws, json!({}), Value::Null);
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["instructions-invalid-utf8"]);
    assert_eq!(
        diags[0]["message"],
        "1 invalid UTF-8 sequence(s) reach the model as U+FFFD (first at line 1)"
    );
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 3}})
    );
    // $/cancelRequest: the request is answered (a result or -32800) and the server goes on.
    let id = lsp.send_request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri(&f)}, "position": {"line": 0, "character": 0}}),
    );
    lsp.notify("$/cancelRequest", json!({"id": id}));
    match lsp.response(id) {
        Ok(_) => {}
        Err(e) => assert_eq!(e["code"], -32800),
    }
    assert!(
        lsp.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(&f)}, "position": {"line": 0, "character": 0}})
        )
        .is_ok()
    );
}
