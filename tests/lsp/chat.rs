//! The editor chat's server side (issue 17): approval previews, resumed sessions, attachments
//! from the editor's buffers, the transcript read request.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::Ws;
use crate::harness::Lsp;

/// A trusted server over stdio (also the review tests').
pub(crate) fn start(ws: &Ws) -> Lsp {
    let mut cmd = ws.cmd();
    cmd.arg("serve");
    let mut lsp = Lsp::spawn(cmd);
    lsp.initialize(&ws.root, json!({}), json!({"trusted": true}));
    lsp
}

/// SHA-256 in hex, as the server reports it.
pub(crate) fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `alisio/approve` requests the server sent, in order.
fn approvals(lsp: &Lsp) -> Vec<Value> {
    let asked = lsp.server_requests_of("alisio/approve");
    asked.into_iter().map(|q| q["params"].clone()).collect()
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
        json!({"path": "src/main.rs", "before": before, "after": after,
               "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1}]})
    );
    assert_eq!(asked[1]["callId"], "w1");
    assert_eq!(
        asked[1]["preview"],
        json!({"path": "notes/new.md", "before": null, "after": "# New\n",
               "hunks": [{"oldStart": 0, "oldLines": 0, "newStart": 0, "newLines": 1}]})
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

const OPENAI_TEXT: &str = include_str!("../fixtures/sse/openai_text.sse");

fn start_with_key(ws: &Ws) -> Lsp {
    let mut cmd = ws.cmd();
    cmd.arg("serve").env("FAKE_KEY", "k-1");
    let mut lsp = Lsp::spawn(cmd);
    lsp.initialize(&ws.root, json!({}), json!({"trusted": true}));
    lsp
}

fn openai(url: &str) -> Value {
    json!({"kind": "openai", "baseUrl": url, "model": "m1", "apiKeyEnv": "FAKE_KEY"})
}

/// `(role, content)` of each message of a recorded chat-completions request.
fn roles_and_texts(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let c = match &m["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (m["role"].as_str().unwrap_or_default().to_string(), c)
        })
        .collect()
}

#[test]
fn a_session_resumed_from_the_list_sends_its_earlier_messages_and_its_transcript_is_the_cli_export()
{
    let ws = Ws::new();
    let fake = crate::fake::Fake::start(vec![
        crate::fake::Reply::sse(OPENAI_TEXT, 5),
        crate::fake::Reply::sse(OPENAI_TEXT, 5),
    ]);
    let mut lsp = start_with_key(&ws);
    let first = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "First question", "provider": openai(&fake.url)}),
        )
        .unwrap();
    assert_eq!(first["status"], "completed", "{first}");
    // The chat lists it (title, time, message count) and resumes it by id.
    let list = lsp.request("alisio/listSessions", json!({})).unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    assert_eq!(list[0]["sessionId"], first["sessionId"]);
    assert_eq!(list[0]["title"], "First question");
    assert_eq!(list[0]["messages"], 2);
    let sid = first["sessionId"].as_str().unwrap().to_string();
    let second = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "And then?", "sessionId": sid, "provider": openai(&fake.url)}),
        )
        .unwrap();
    assert_eq!(second["sessionId"], sid.as_str());
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    let sent: Vec<(String, String)> = roles_and_texts(&reqs[1].body)
        .into_iter()
        .filter(|(r, _)| r != "system")
        .collect();
    assert_eq!(
        sent,
        vec![
            ("user".to_string(), "First question".to_string()),
            ("assistant".to_string(), "done".to_string()),
            ("user".to_string(), "And then?".to_string()),
        ]
    );
    // The transcript read request has the shape of `sessions show --json`: the same object.
    let t = lsp
        .request("alisio/sessionTranscript", json!({"sessionId": sid}))
        .unwrap();
    let cli = crate::common::run_cmd(ws.cmd().args(["sessions", "show", &sid, "--json"]));
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    assert_eq!(t, cli);
    assert_eq!(t["messages"].as_array().map(Vec::len), Some(4));
    let e = lsp
        .request("alisio/sessionTranscript", json!({"sessionId": "nope"}))
        .unwrap_err();
    assert_eq!(e["code"], -32602);
    assert_eq!(e["message"], "Session not found: nope");
}

#[test]
fn attachments_with_unsaved_buffer_text_reach_the_provider_and_are_segments_of_the_report() {
    let ws = Ws::new();
    let on_disk = "fn a() {}\n";
    let f = ws.file("src/lib.rs", on_disk);
    let notes = ws.file("notes.md", "# Notes\nline 2\nline 3\nline 4\n");
    let fake = crate::fake::Fake::start(vec![crate::fake::Reply::sse(OPENAI_TEXT, 5)]);
    let mut lsp = start_with_key(&ws);
    // The buffer differs from the disk: the unsaved text is what is attached.
    let unsaved = "fn a() {}\nfn unsaved() {}\n";
    lsp.open(&f, unsaved);
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "Explain these.", "governor": "shadow", "provider": openai(&fake.url),
                   "attachments": [
                       {"uri": crate::harness::uri(&f)},
                       {"uri": crate::harness::uri(&notes),
                        "range": {"start": {"line": 1, "character": 2}, "end": {"line": 3, "character": 0}}}
                   ]}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    let sent = roles_and_texts(&fake.requests()[0].body);
    let (role, text) = sent.last().unwrap();
    assert_eq!(role, "user");
    assert_eq!(
        text,
        "<attachment path=\"src/lib.rs\">\nfn a() {}\nfn unsaved() {}\n</attachment>\n\n\
         <attachment path=\"notes.md\" lines=\"2-3\">\nline 2\nline 3\n</attachment>\n\n\
         Explain these."
    );
    // The report: each attachment its own segment, kind `attachment`, origin its path.
    let segs = r["report"]["segments"].as_array().unwrap();
    let attached: Vec<(&str, &str)> = segs
        .iter()
        .filter(|s| s["kind"] == "attachment")
        .map(|s| (s["origin"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        attached,
        vec![("src/lib.rs", "user_message"), ("notes.md", "user_message")]
    );
    // The prompt stays a user segment of its own, and the title is the prompt.
    assert!(
        segs.iter().any(|s| s["kind"] == "user" && s["tokens"] == 4),
        "{segs:#?}"
    );
    let list = lsp.request("alisio/listSessions", json!({})).unwrap();
    assert_eq!(list[0]["title"], "Explain these.");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), on_disk);
}

#[test]
fn an_attachment_outside_its_file_is_a_located_invalid_params_error() {
    let ws = Ws::new();
    let f = ws.file("a.md", "one\n");
    let mut lsp = start(&ws);
    let e = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "x", "attachments": [{"uri": crate::harness::uri(&f),
                   "range": {"start": {"line": 5, "character": 0}, "end": {"line": 6, "character": 0}}}]}),
        )
        .unwrap_err();
    assert_eq!(e["code"], -32602);
    assert_eq!(
        e["message"],
        "attachments[0]: lines 6-6 are outside a.md (1 lines)"
    );
}

#[test]
fn a_pending_approval_does_not_block_the_server() {
    let ws = Ws::new();
    let s = script(
        &ws,
        &[
            call(
                "w1",
                "write_file",
                json!({"path": "a.txt", "content": "x", "expectedHash": null}),
            ),
            json!({"text": "Done."}),
        ],
    );
    let mut cmd = ws.cmd();
    cmd.arg("serve");
    // An editor that never answers alisio/approve.
    let mut lsp = Lsp::spawn_silent(cmd);
    lsp.initialize(&ws.root, json!({}), json!({"trusted": true}));
    let id = lsp.send_request(
        "alisio/runSession",
        json!({"prompt": "write", "provider": {"kind": "script", "script": s}}),
    );
    lsp.wait_notification("alisio/sessionEvent", |e| {
        e["event"]["type"] == "approval_requested"
    });
    // While the question is open, the server answers other requests.
    let list = lsp.request("alisio/listSessions", json!({})).unwrap();
    assert_eq!(list[0]["title"], "write");
    let f = ws.file("AGENTS.md", "# Rules\n");
    lsp.open(&f, "# Rules\n");
    let explain = lsp
        .request(
            "alisio/contextExplain",
            json!({"uri": crate::harness::uri(&f)}),
        )
        .unwrap();
    assert_eq!(explain["files"][0]["path"], "AGENTS.md");
    lsp.notify("$/cancelRequest", json!({"id": id}));
    assert_eq!(lsp.response(id).unwrap_err()["code"], -32800);
    assert!(!ws.root.join("a.txt").exists());
}
