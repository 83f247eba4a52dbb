//! Subagents, slash commands and `.mcp.json` in the editor (docs/spec/instructions.md §10.4,
//! §10.5): their diagnostics after the first scan and after a change on disk, the hover of a
//! frontmatter key, the keys to complete.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::harness::{codes, field_of, start, uri};

fn range(d: &Value) -> (u64, u64, u64, u64) {
    let r = &d["range"];
    let n = |v: &Value| v.as_u64().unwrap();
    (
        n(&r["start"]["line"]),
        n(&r["start"]["character"]),
        n(&r["end"]["line"]),
        n(&r["end"]["character"]),
    )
}

#[test]
fn an_agent_without_description_is_reported_and_an_edit_clears_it() {
    let ws = Ws::new();
    let text = "---\nname: reviewer\n---\nYou review code.\n";
    let f = ws.file(".claude/agents/reviewer.md", text);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["agent-field-missing"]);
    assert_eq!(range(&diags[0]), (0, 0, 0, 3));
    assert_eq!(
        diags[0]["message"],
        "no `description`: Claude Code does not load this agent"
    );
    assert_eq!(diags[0]["severity"], 1);
    let fixed = "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review code.\n";
    lsp.open(&f, text);
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&f), "version": 2},
               "contentChanges": [{"text": fixed}]}),
    );
    lsp.diagnostics_for(&f, <[Value]>::is_empty);
}

#[test]
fn an_mcp_json_changed_on_disk_gets_its_diagnostics() {
    let ws = Ws::new();
    let f = ws.file(
        ".mcp.json",
        "{\"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}}}\n",
    );
    let mut lsp = start(&ws, json!({}), json!({"trusted": true, "watcher": "off"}));
    lsp.open(&ws.file("AGENTS.md", "# x\n"), "# x\n");
    std::fs::write(
        &f,
        "{\"mcpServers\": {\"docs\": {\"args\": [\"--stdio\"]}}}\n",
    )
    .unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&f), "type": 2}]}),
    );
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["mcp-server-invalid"]);
    assert_eq!(range(&diags[0]), (0, 16, 0, 22));
    assert_eq!(
        diags[0]["message"],
        "MCP server `docs`: a stdio server needs `command` (or give `type` and `url`); Claude Code drops this server silently"
    );
    std::fs::write(
        &f,
        "{\"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}}}\n",
    )
    .unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&f), "type": 2}]}),
    );
    lsp.diagnostics_for(&f, <[Value]>::is_empty);
}

#[test]
fn hover_and_completion_in_an_agent_and_a_command() {
    let ws = Ws::new();
    let text = "---\nname: reviewer\ndescription: Reviews code.\n\n---\nBody\n";
    let f = ws.file(".claude/agents/reviewer.md", text);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    lsp.open(&f, text);
    let h = lsp.at("textDocument/hover", &f, 1, 2);
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(
        v.starts_with("**name** (agent frontmatter, Claude Code)\n\nThe agent's name"),
        "{v}"
    );
    assert!(
        v.ends_with("```\n- reviewer: Reviews code. (Tools: …)\n```"),
        "{v}"
    );
    let items = lsp.at("textDocument/completion", &f, 3, 0);
    let labels = field_of(&items, "label");
    assert!(
        labels.contains(&"tools") && labels.contains(&"model"),
        "{labels:?}"
    );
    assert!(
        !labels.contains(&"name"),
        "present keys are not offered: {labels:?}"
    );
    assert_eq!(items[0]["insertText"], format!("{}: ", labels[0]));
    let ctext = "---\nd\n---\nDeploy.\n";
    let c = ws.file(".claude/commands/deploy.md", ctext);
    lsp.open(&c, ctext);
    let items = lsp.at("textDocument/completion", &c, 1, 1);
    assert_eq!(
        field_of(&items, "label"),
        ["description", "disable-model-invocation"]
    );
}
