//! Thousands of mixed valid and invalid messages; the server must still answer at the end.

use serde_json::{Value, json};

use crate::common::{Rng, Ws};
use crate::harness::uri;

const SNIPPETS: &[&str] = &[
    "",
    "x",
    "---\n",
    "name: a\n",
    "😀",
    "\r\n",
    "é",
    "description: \"",
    "\u{feff}",
    "# Title\n",
    "*&a [*a, *a]\n",
];

fn random_text(rng: &mut Rng) -> String {
    (0..rng.below(6)).map(|_| *rng.pick(SNIPPETS)).collect()
}

#[test]
fn thousands_of_mixed_messages_leave_the_server_answering() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root\nUse tabs.\n");
    ws.file(
        ".agents/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: PDF tools\n---\nBody\n",
    );
    let docs = [
        ws.root.join("AGENTS.md"),
        ws.root.join(".agents/skills/pdf/SKILL.md"),
        ws.root.join("src/main.rs"),
        ws.root.join(".alisio/config.json"),
    ];
    let mut lsp = crate::harness::start(
        &ws,
        json!({"general": {"positionEncodings": ["utf-16"]}}),
        json!({"trusted": true}),
    );
    let seed = 0x5EED_1234_u64;
    let mut rng = Rng(seed);
    let mut versions = [0i32; 4];
    let mut request_ids = Vec::new();
    for _ in 0..3000 {
        let d = rng.below(docs.len());
        let u = uri(&docs[d]);
        let pos =
            |rng: &mut Rng| json!({"line": rng.below(8) as i64 - 1, "character": rng.below(40)});
        match rng.below(12) {
            0 => {
                versions[d] += 1;
                lsp.notify("textDocument/didOpen", json!({"textDocument": {"uri": u, "languageId": "markdown", "version": versions[d], "text": random_text(&mut rng)}}));
            }
            1..=3 => {
                versions[d] += 1;
                let (a, b) = (pos(&mut rng), pos(&mut rng));
                lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": u, "version": versions[d]},
                    "contentChanges": [{"range": {"start": a, "end": b}, "text": random_text(&mut rng)}]}));
            }
            4 => lsp.notify("textDocument/didClose", json!({"textDocument": {"uri": u}})),
            5 => {
                let method = *rng.pick(&["textDocument/hover", "textDocument/codeLens", "textDocument/completion", "textDocument/documentSymbol", "textDocument/definition", "textDocument/codeAction"]);
                let params = json!({"textDocument": {"uri": u}, "position": pos(&mut rng),
                    "range": {"start": pos(&mut rng), "end": pos(&mut rng)}, "context": {"diagnostics": []}});
                request_ids.push(lsp.send_request(method, params));
            }
            6 => lsp.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":"),
            7 => lsp.send_raw(&(0..rng.below(64)).map(|_| rng.below(256) as u8).collect::<Vec<u8>>()),
            8 => request_ids.push(lsp.send_request("alisio/unknown", json!({"x": 1}))),
            9 => lsp.notify("workspace/didChangeConfiguration", json!({"settings": {"alisio": {"context": {"maxBytes": rng.below(5000)}, "trusted": rng.below(2) == 0}}})),
            10 => lsp.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": u, "type": 1 + rng.below(3)}]})),
            _ => request_ids.push(lsp.send_request("textDocument/hover", json!({"textDocument": {"uri": "file:///nonexistent/x.md"}, "position": pos(&mut rng)}))),
        }
    }
    for id in request_ids {
        // Every request gets an answer: a result or a JSON-RPC error.
        let _ = lsp.response(id);
    }
    let r = lsp.request("shutdown", Value::Null);
    assert_eq!(r, Ok(Value::Null), "seed {seed:#x}");
    lsp.notify("exit", Value::Null);
    assert_eq!(lsp.wait_exit(), 0);
}
