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

/// `alisio/contextExplain` carries the `startup` object `context explain --json` prints for
/// the same workspace and host (spec/interfaces.md §1.1, §3.1; spec/instructions.md §10).
#[test]
fn context_explain_carries_the_startup_cost_the_cli_prints() {
    let ws = Ws::new();
    let agents = ws.file("AGENTS.md", "# Rules\n");
    ws.file(
        ".claude/agents/x.md",
        "---\nname: x\ndescription: Reviews code.\ntools: Read, Grep\n---\nYou review code.\n",
    );
    ws.file(
        ".claude/commands/y.md",
        "---\ndescription: Deploy the app\n---\nDeploy.\n",
    );
    let cli = ws
        .run(&[
            "--json",
            "--host",
            "claude-code",
            "context",
            "explain",
            "AGENTS.md",
        ])
        .json();
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    let got = lsp
        .request(
            "alisio/contextExplain",
            json!({"uri": uri(&agents), "host": "claude-code"}),
        )
        .unwrap();
    let expected = json!({
        "host": "claude-code",
        "families": [
            {"family": "agents", "channel": "agent listing",
             "entries": [{"name": "x", "file": ".claude/agents/x.md", "scope": "project",
                          "description": "Reviews code.", "detail": "Read, Grep",
                          "text": "- x: Reviews code. (Tools: Read, Grep)", "loaded": true,
                          "shadowedBy": null, "bytes": 38}],
             "notLoaded": [], "bytes": 38, "tokens": 10},
            {"family": "commands", "channel": "skill listing",
             "entries": [{"name": "y", "file": ".claude/commands/y.md", "scope": "project",
                          "description": "Deploy the app", "detail": "",
                          "text": "- y: Deploy the app", "loaded": true,
                          "shadowedBy": null, "bytes": 19}],
             "notLoaded": [], "bytes": 19, "tokens": 5},
            {"family": "mcp", "channel": "MCP servers", "entries": [], "notLoaded": [],
             "bytes": 0, "tokens": 0}
        ],
        "bytes": 57,
        "tokens": 15
    });
    assert_eq!(cli["startup"], expected, "{cli:#}");
    assert_eq!(got["startup"], expected, "{got:#}");
    assert_eq!(got, cli, "the whole result is what the CLI prints");
    let alisio = lsp
        .request(
            "alisio/contextExplain",
            json!({"uri": uri(&agents), "host": "alisio"}),
        )
        .unwrap();
    assert_eq!(alisio["startup"], Value::Null, "host alisio loads none");
}
