//! The honest governor on live runs (issue 21 §2 and §4, spec/governor.md §3.5 and §4.1): a
//! sub-agent's answer reaches its parent whole, and results spilled at entry count as their
//! stubs toward the context budget.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

/// A 10,000-character sub-agent answer reaches the parent whole, in mode `on` (no spill, no cut).
#[test]
fn a_10000_char_sub_agent_answer_reaches_the_parent_whole() {
    let ws = Ws::new();
    let answer: String = (0..600)
        .map(|i| format!("finding {i:04} ok.\n"))
        .collect::<String>();
    let answer = &answer[..10_000];
    assert_eq!(answer.chars().count(), 10_000);
    let child_done = json!({"text": answer}).to_string();
    // The task result is the child's JSON (`{sessionId, status, text, turns}`): the answer is in
    // it whole, JSON-escaped, and escaped again in the request JSON the expectation reads.
    let once = serde_json::to_string(answer).unwrap();
    let twice = serde_json::to_string(&once[1..once.len() - 1]).unwrap();
    let escaped = &twice[1..twice.len() - 1];
    let parent_sees =
        json!({"expect":{"contains":[escaped]},"text":"The child reported."}).to_string();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"t1","name":"task","arguments":{"description":"Survey","prompt":"Survey the repo"}}]}"#,
            &child_done,
            &parent_sees,
        ],
    );
    let (r, ev) = run(&ws, "delegate", &["--governor", "on"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let t = tool_results(&ws, &sid(&ev));
    let out: Value = serde_json::from_str(&result_text(&t[0])).unwrap();
    assert_eq!(out["text"], json!(answer));
    let governed = of_type(&ev, "context_governed");
    assert!(
        governed
            .iter()
            .all(|e| e["data"]["byReason"]["oversized"].is_null()
                || e["data"]["byReason"]["oversized"] == json!(0)),
        "{governed:?}"
    );
}

/// Two spilled outputs of about 229 KB each (`seq 1 40000`), in requests of a few KB, trigger no
/// compaction and no reduction under a 100,000-character budget: they count as their stubs, the
/// stored results stay whole, and each stub reports the real 40,000 lines.
#[cfg(unix)]
#[test]
fn two_spilled_200kb_outputs_do_not_trigger_a_compaction() {
    let ws = Ws::new();
    ws.file(
        "cfg.json",
        r#"{"limits":{"maxContextChars":100000},"compaction":{"auto":true}}"#,
    );
    let stub_line = "stdout 228894 chars, 40000 lines, exit 0; head and tail shown; result_read";
    let second = json!({"expect":{"contains":[stub_line]},"toolCalls":[{"id":"s2","name":"shell","arguments":{"command":"seq 1 40000"}}]}).to_string();
    let done = json!({"expect":{"contains":[stub_line]},"text":"done"}).to_string();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"s1","name":"shell","arguments":{"command":"seq 1 40000"}}]}"#,
            &second,
            &done,
        ],
    );
    let (r, ev) = run(
        &ws,
        "count",
        &[
            "--config",
            "cfg.json",
            "--allow",
            "process",
            "--governor",
            "on",
        ],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let kinds: Vec<&str> = ev.iter().filter_map(|e| e["type"].as_str()).collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k.starts_with("compaction_") || *k == "context_reduced"),
        "{kinds:?}"
    );
    let t = tool_results(&ws, &sid(&ev));
    assert_eq!(t.len(), 2);
    // The counterfactual: in `shadow` the same results count as stored, and the budget clips.
    let ws2 = Ws::new();
    ws2.file(
        "cfg.json",
        r#"{"limits":{"maxContextChars":100000},"compaction":{"auto":true}}"#,
    );
    script(
        &ws2,
        &[
            r#"{"toolCalls":[{"id":"s1","name":"shell","arguments":{"command":"seq 1 40000"}}]}"#,
            r#"{"toolCalls":[{"id":"s2","name":"shell","arguments":{"command":"seq 1 40000"}}]}"#,
            r#"{"text":"done"}"#,
        ],
    );
    let (_, ev2) = run(
        &ws2,
        "count",
        &[
            "--config",
            "cfg.json",
            "--allow",
            "process",
            "--governor",
            "shadow",
        ],
    );
    assert!(
        ev2.iter().any(|e| e["type"] == "context_reduced"
            || e["type"]
                .as_str()
                .is_some_and(|k| k.starts_with("compaction_"))),
        "shadow counts the stored results"
    );
    let want: String = (1..=40_000).map(|i| format!("{i}\n")).collect();
    for x in &t {
        let v: Value = serde_json::from_str(&result_text(x)).unwrap();
        assert_eq!(v["stdout"].as_str(), Some(want.as_str()), "stored whole");
    }
}
