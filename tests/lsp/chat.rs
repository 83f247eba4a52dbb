//! The editor chat's server side (issue 17): approval previews, resumed sessions, attachments
//! from the editor's buffers, the transcript read request.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::Ws;
use crate::harness::Lsp;

fn start(ws: &Ws) -> Lsp {
    let mut cmd = ws.cmd();
    cmd.arg("serve");
    let mut lsp = Lsp::spawn(cmd);
    lsp.initialize(&ws.root, json!({}), json!({"trusted": true}));
    lsp
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `alisio/approve` requests the server sent, in order.
fn approvals(lsp: &Lsp) -> Vec<Value> {
    lsp.server_requests
        .lock()
        .unwrap()
        .iter()
        .filter(|q| q["method"] == "alisio/approve")
        .map(|q| q["params"].clone())
        .collect()
}

fn script(ws: &Ws, lines: &[Value]) -> std::path::PathBuf {
    let mut s = String::from("{\"alisioScript\": 1}\n");
    for l in lines {
        s.push_str(&l.to_string());
        s.push('\n');
    }
    ws.file("script.jsonl", s)
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"text": "Working.", "toolCalls": [{"id": id, "name": name, "arguments": arguments}]})
}

#[test]
fn the_approval_of_an_edit_and_of_a_new_file_previews_exact_before_and_after() {
    let ws = Ws::new();
    let before = "fn main() {\n    println!(\"hi\");\n}\n";
    ws.file("src/main.rs", before);
    let s = script(
        &ws,
        &[
            call(
                "e1",
                "edit_file",
                json!({"path": "src/main.rs", "oldText": "\"hi\"", "newText": "\"hello\"", "expectedHash": sha(before.as_bytes())}),
            ),
            call(
                "w1",
                "write_file",
                json!({"path": "notes/new.md", "content": "# New\n", "expectedHash": null}),
            ),
            json!({"text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    *lsp.approve_decision.lock().unwrap() = "allow-once".into();
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "edit", "provider": {"kind": "script", "script": s}}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    let asked = approvals(&lsp);
    assert_eq!(asked.len(), 2, "{asked:#?}");
    let after = "fn main() {\n    println!(\"hello\");\n}\n";
    assert_eq!(asked[0]["callId"], "e1");
    assert_eq!(
        asked[0]["preview"],
        json!({"path": "src/main.rs", "before": before, "after": after})
    );
    assert_eq!(asked[1]["callId"], "w1");
    assert_eq!(
        asked[1]["preview"],
        json!({"path": "notes/new.md", "before": null, "after": "# New\n"})
    );
    // `after` is exactly what the calls wrote.
    assert_eq!(
        std::fs::read_to_string(ws.root.join("src/main.rs")).unwrap(),
        after
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("notes/new.md")).unwrap(),
        "# New\n"
    );
}

#[test]
fn the_preview_of_a_write_over_a_2_mib_file_is_truncated_and_carries_no_text() {
    let ws = Ws::new();
    let big = "0123456789abcdef".repeat(2 * 1_048_576 / 16);
    ws.file("big.txt", &big);
    let s = script(
        &ws,
        &[
            call(
                "w1",
                "write_file",
                json!({"path": "big.txt", "content": "small\n", "expectedHash": sha(big.as_bytes())}),
            ),
            json!({"text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "shrink", "provider": {"kind": "script", "script": s}}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    let asked = approvals(&lsp);
    assert_eq!(
        asked[0]["preview"],
        json!({"path": "big.txt", "before": null, "after": null, "truncated": true, "newFile": false})
    );
    // Denied (the harness's default answer): the file is untouched.
    assert_eq!(
        std::fs::read_to_string(ws.root.join("big.txt"))
            .unwrap()
            .len(),
        big.len()
    );
}

#[test]
fn the_approval_of_a_process_call_previews_its_command_and_directory() {
    let ws = Ws::new();
    ws.dir("sub");
    let s = script(
        &ws,
        &[
            call(
                "p1",
                "run_process",
                json!({"command": "echo", "args": ["a b", "c"], "cwd": "sub"}),
            ),
            json!({"text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "run", "provider": {"kind": "script", "script": s}}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(
        approvals(&lsp)[0]["preview"],
        json!({"command": "echo", "args": ["a b", "c"], "cwd": "sub"})
    );
}
