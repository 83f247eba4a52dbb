//! What a real run's requests and ContextReport get right (issue 13 §4): attached nested
//! instructions pin their result, attachments keep the prompt cache, the invariants block
//! counts in the budget, real segments, usage, and the `skill_load` name enum.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

fn sha(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

fn report(ws: &Ws, id: &str, extra: &[&str]) -> Value {
    let mut a = vec!["sessions", "report", id, "--json"];
    a.extend_from_slice(extra);
    let r = ws.run(&a);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.json()
}

/// A read that carried an attached nested file is pinned: a later edit of the same file would
/// make policy 1 elide it (superseded_read), but the attachment keeps it whole.
#[test]
fn a_read_carrying_nested_instructions_is_pinned_not_elided() {
    let ws = Ws::new();
    ws.file("gov.json", r#"{"context":{"elide":{"epochMessages":0}}}"#);
    ws.file("pkg/AGENTS.md", "pkg rules");
    ws.file("pkg/a.txt", "a");
    ws.file("b.txt", "b");
    let edit = json!({"toolCalls":[{"name":"edit_file","arguments":{"path":"pkg/a.txt","oldText":"a","newText":"A","expectedHash":sha(b"a")}}]}).to_string();
    let last = r#"{"expect":{"contains":["Instructions from: pkg/AGENTS.md\\npkg rules"],"notContains":["[elided: read_file"]},"text":"done"}"#;
    // The same script with the other read (no attachment) shows the rule would elide it.
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"pkg/a.txt"}}]}"#,
            &edit,
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"toolCalls":[{"name":"list_files","arguments":{"path":"pkg"}}]}"#,
            last,
        ],
    );
    let (r, ev) = run(&ws, "p", &["--governor", "on", "--allow", "write", "--config", "gov.json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let id = sid(&ev);
    let t = tool_results(&ws, &id);
    assert!(result_text(&t[0]).ends_with("pkg rules\n</instructions>"));
    let rep = report(&ws, &id, &["--config", "gov.json"]);
    let read: Vec<&Value> = rep["segments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "tool_result" && s["tool"] == "read_file")
        .collect();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0]["criticality"], "pinned");
    assert_eq!(read[0]["reason"], "attached_instructions");
    assert!(read[0].get("elided").is_none());
    assert_eq!(rep["totals"]["elided"], json!(0));

    // Control: the same sequence on a file without a nested AGENTS.md is elided.
    let edit = json!({"toolCalls":[{"name":"edit_file","arguments":{"path":"b.txt","oldText":"b","newText":"B","expectedHash":sha(b"b")}}]}).to_string();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"b.txt"}}]}"#,
            &edit,
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"toolCalls":[{"name":"list_files","arguments":{"path":"pkg"}}]}"#,
            r#"{"expect":{"contains":["[elided: read_file"]},"text":"done"}"#,
        ],
    );
    let (r, _) = run(&ws, "p", &["--governor", "on", "--allow", "write", "--config", "gov.json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
}
