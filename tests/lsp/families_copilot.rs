//! GitHub Copilot in VS Code's custom agents and prompt files in the editor
//! (docs/spec/instructions.md §10.9): VS Code's validator findings after the first scan and
//! after an edit, the hover of a header attribute with the `<agents>` entry VS Code sends, the
//! attributes to complete.

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
fn families_copilot_agent_attribute_reported_and_an_edit_clears_it() {
    let ws = Ws::new();
    let text = "---\ndescription: Reviews code.\ntools: search, read\n---\nYou review code.\n";
    let f = ws.file(".github/agents/reviewer.agent.md", text);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["copilot-attribute-invalid"]);
    assert_eq!(range(&diags[0]), (2, 7, 2, 19));
    assert_eq!(
        diags[0]["message"],
        "The 'tools' attribute must be an array."
    );
    assert_eq!(diags[0]["severity"], 1);
    lsp.open(&f, text);
    let bad = "---\ndescription: Reviews code.\ntools: ['search']\ninfer: true\n---\n";
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&f), "version": 2},
               "contentChanges": [{"text": bad}]}),
    );
    let diags = lsp.diagnostics_for(&f, |d| codes(d) == ["copilot-attribute-deprecated"]);
    assert_eq!(range(&diags[0]), (3, 7, 3, 11));
    let fixed = "---\ndescription: Reviews code.\ntools: ['search']\n---\nYou review code.\n";
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&f), "version": 3},
               "contentChanges": [{"text": fixed}]}),
    );
    lsp.diagnostics_for(&f, <[Value]>::is_empty);
}

#[test]
fn families_copilot_prompt_file_changed_on_disk_gets_its_diagnostics() {
    let ws = Ws::new();
    let f = ws.file(
        ".github/prompts/review.prompt.md",
        "---\ndescription: Review\n---\nReview it.\n",
    );
    let mut lsp = start(&ws, json!({}), json!({"trusted": true, "watcher": "off"}));
    lsp.open(&ws.file("AGENTS.md", "# x\n"), "# x\n");
    std::fs::write(
        &f,
        "---\ndescription: Review\napplyTo: '**'\n---\nReview it.\n",
    )
    .unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&f), "type": 2}]}),
    );
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["copilot-attribute-unknown"]);
    assert_eq!(range(&diags[0]), (2, 0, 2, 13));
    assert_eq!(diags[0]["severity"], 2);
    assert_eq!(
        diags[0]["message"],
        "Attribute 'applyTo' is not supported in prompt files. Supported: agent, argument-hint, description, model, name, tools."
    );
}

#[test]
fn families_copilot_hover_and_completion() {
    let ws = Ws::new();
    let text =
        "---\nname: reviewer\ndescription: Reviews code.\nargument-hint: a diff\n\n---\nBody\n";
    let f = ws.file(".github/agents/reviewer.agent.md", text);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    lsp.open(&f, text);
    let h = lsp.at("textDocument/hover", &f, 2, 3);
    assert_eq!(
        h["contents"]["value"],
        "**description** (custom agent header, GitHub Copilot in VS Code)\n\nThe description of the custom agent, what it does and when to use it.\n\nVS Code lists this agent in the `<agents>` block of every request as:\n\n```\n<agent>\n<name>reviewer</name>\n<description>Reviews code.</description>\n<argumentHint>a diff</argumentHint>\n</agent>\n```"
    );
    let items = lsp.at("textDocument/completion", &f, 4, 0);
    assert_eq!(
        field_of(&items, "label"),
        [
            "model",
            "tools",
            "handoffs",
            "target",
            "agents",
            "user-invokable",
            "disable-model-invocation"
        ]
    );
    assert_eq!(items[0]["insertText"], "model: ");
    let ptext = "---\nd\n---\nReview.\n";
    let p = ws.file(".github/prompts/review.prompt.md", ptext);
    lsp.open(&p, ptext);
    let items = lsp.at("textDocument/completion", &p, 1, 1);
    assert_eq!(field_of(&items, "label"), ["description"]);
}
