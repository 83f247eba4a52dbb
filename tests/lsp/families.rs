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
                          "shadowedBy": null, "hidden": null, "bytes": 38}],
             "notLoaded": [], "bytes": 38, "tokens": 10},
            {"family": "commands", "channel": "skill listing",
             "entries": [{"name": "y", "file": ".claude/commands/y.md", "scope": "project",
                          "description": "Deploy the app", "detail": "",
                          "text": "- y: Deploy the app", "loaded": true,
                          "shadowedBy": null, "hidden": null, "bytes": 19}],
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

/// Gemini CLI and Codex CLI agent files and Gemini command files (spec/instructions.md §10.5):
/// the hover of a key, with the line the host lists on `name` and `description`, and the keys
/// not yet written at the start of a line (`key: ` in a frontmatter, `key = ` in TOML).
#[test]
fn gemini_and_codex_agent_and_command_files_have_hovers_and_completions() {
    let ws = Ws::new();
    let g = "---\nname: rev\ndescription: Reviews code.\n\n---\nBody\n";
    let gf = ws.file(".gemini/agents/rev.md", g);
    let c = "name = \"rev\"\ndescription = \"Reviews code.\"\n\n";
    let cf = ws.file(".codex/agents/rev.toml", c);
    let m = "description = \"Review\"\n\n";
    let mf = ws.file(".gemini/commands/git/review.toml", m);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    for (f, t) in [(&gf, g), (&cf, c), (&mf, m)] {
        lsp.open(f, t);
    }
    let h = lsp.at("textDocument/hover", &gf, 1, 2);
    assert_eq!(
        h["contents"]["value"],
        "**name** (agent frontmatter, Gemini CLI)\n\nThe agent's name: lowercase letters, digits, `-` and `_`. Required: without it (or with another character) Gemini CLI skips the file.\n\nAt startup Gemini CLI lists this agent as:\n\n```\n- rev -> Reviews code.\n```"
    );
    let items = lsp.at("textDocument/completion", &gf, 3, 0);
    assert_eq!(
        field_of(&items, "label"),
        [
            "kind",
            "display_name",
            "tools",
            "mcp_servers",
            "model",
            "temperature",
            "max_turns",
            "timeout_mins"
        ]
    );
    assert_eq!(items[0]["insertText"], "kind: ");
    let h = lsp.at("textDocument/hover", &cf, 1, 3);
    assert_eq!(
        h["contents"]["value"],
        "**description** (agent file, Codex CLI)\n\nWhen the model should use this role: sent in `spawn_agent`'s `agent_type` description. Required: without it Codex ignores the file.\n\nAt startup Codex CLI lists this agent as:\n\n```\nrev: {\nReviews code.\n}\n```"
    );
    let items = lsp.at("textDocument/completion", &cf, 2, 0);
    assert_eq!(
        field_of(&items, "label"),
        [
            "developer_instructions",
            "nickname_candidates",
            "model",
            "model_reasoning_effort",
            "sandbox_mode",
            "mcp_servers"
        ]
    );
    assert_eq!(items[0]["insertText"], "developer_instructions = ");
    let items = lsp.at("textDocument/completion", &mf, 1, 0);
    assert_eq!(field_of(&items, "label"), ["prompt"]);
    assert_eq!(items[0]["insertText"], "prompt = ");
    let h = lsp.at("textDocument/hover", &mf, 0, 1);
    assert_eq!(
        h["contents"]["value"],
        "**description** (command file, Gemini CLI)\n\nShown in the `/help` menu; absent: `Custom command from <file>`."
    );
}

/// Codex `config.toml` and Gemini `settings.json` MCP servers (spec/instructions.md §10.7):
/// their problems after the first scan, with exact ranges, and the hover of a server's key.
#[test]
fn codex_and_gemini_mcp_files_get_located_diagnostics_and_key_hovers() {
    let ws = Ws::new();
    let c = "[mcp_servers.docs]\nargs = [\"x\"]\n";
    let cf = ws.file(".codex/config.toml", c);
    let g = "{\"mcpServers\": {\"d\": {\"command\": \"/x\", \"foo\": 1}}}\n";
    let gf = ws.file(".gemini/settings.json", g);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    let diags = lsp.diagnostics_for(&cf, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["mcp-server-invalid"]);
    assert_eq!(range(&diags[0]), (0, 13, 0, 17));
    assert_eq!(
        diags[0]["message"],
        "MCP server `docs`: no `command` (stdio) or `url` (streamable HTTP): \"invalid transport\"; Codex CLI does not start with this configuration (\"Error loading config.toml\")"
    );
    let diags = lsp.diagnostics_for(&gf, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["mcp-server-key-unknown"]);
    assert_eq!(range(&diags[0]), (0, 39, 0, 44));
    assert_eq!(diags[0]["severity"], 2);
    lsp.open(&cf, c);
    let h = lsp.at("textDocument/hover", &cf, 1, 1);
    assert_eq!(
        h["contents"]["value"],
        "**args** (MCP server, Codex CLI)\n\nArguments of `command` (an array of strings)."
    );
    lsp.open(&gf, g);
    let h = lsp.at("textDocument/hover", &gf, 0, 24);
    assert_eq!(
        h["contents"]["value"],
        "**command** (MCP server, Gemini CLI)\n\nExecutable invoked for stdio transport."
    );
}
