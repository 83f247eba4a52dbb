//! Leftovers of disconnections (spec/sessions.md §12.6): a failed attempt stores nothing and is
//! never sent again; a result an interruption left is a neutral note with its call kept.

use serde_json::json;

use crate::common::Ws;
use crate::sess::*;

#[test]
fn a_retried_provider_error_is_never_stored_nor_sent_again() {
    let ws = Ws::new();
    script(
        &ws,
        &[
            r#"{"error":{"status":500,"message":"upstream boom"}}"#,
            r#"{"expect":{"notContains":["upstream boom"],"lastRole":"user"},"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "hi", &[]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(of_type(&ev, "request_retry").len(), 1);
    let id = sid(&ev);
    let roles: Vec<String> = active(&ws, &id).into_iter().map(|m| m.2).collect();
    assert_eq!(roles, ["user", "assistant"]);
    script(
        &ws,
        &[
            r#"{"expect":{"notContains":["upstream boom"],"contains":["\"text\":\"ok\""]},"text":"again"}"#,
        ],
    );
    let (r, _) = run(&ws, "more", &["--session", &id]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn an_interrupted_result_is_sent_as_a_neutral_note_with_its_call() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    script(
        &ws,
        &[r#"{"toolCalls":[{"id":"c1","name":"read_file","arguments":{"path":"a.txt"}}]}"#],
    );
    let r = crate::common::run_cmd(
        ws.cmd()
            .env("ALISIO_FAULT", "after_call_started")
            .args(["run", "--json", "--script", "s.jsonl", "p"]),
    );
    assert_ne!(r.code, 0);
    let id = events(&r)[0]["sessionId"].as_str().unwrap().to_string();
    // The resumed request carries the call and, as its result, the interruption note.
    script(
        &ws,
        &[
            r#"{"expect":{"contains":["\"name\":\"read_file\"","\"callId\":\"c1\"","Interrupted: the session stopped while this call was running; its effects are unknown. Inspect the workspace before retrying."]},"text":"ok"}"#,
        ],
    );
    let (r, _) = run(&ws, "go on", &["--session", &id]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let t = tool_results(&ws, &id);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["outcome"], json!("interrupted"));
    assert_paired(&ws, &id);
}
