//! Sub-agents through the `task` tool (spec/sessions.md §9; spec/sessions.md §11 case 53).

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

// 53
#[test]
fn a_task_runs_a_child_session_in_the_same_run_and_returns_its_answer() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"t1","name":"task","arguments":{"description":"Read a","prompt":"Read a.txt and report"}}]}"#,
            r#"{"expect":{"contains":["You are a sub-agent started by another agent for one task."],"notContains":["\"name\":\"task\""],"lastRole":"user"},"toolCalls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}"#,
            r#"{"text":"a.txt says alpha"}"#,
            r#"{"expect":{"contains":["a.txt says alpha"]},"text":"The child found alpha."}"#,
        ],
    );
    let (r, ev) = run(&ws, "delegate", &[]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    for (i, e) in ev.iter().enumerate() {
        assert_eq!(
            e["seq"],
            json!(i + 1),
            "one sequence across parent and child"
        );
    }
    let root = sid(&ev);
    let starts = of_type(&ev, "run_started");
    assert_eq!(starts.len(), 2);
    let child = starts[1]["sessionId"].as_str().unwrap().to_string();
    assert_ne!(child, root);
    assert_eq!(starts[1]["parentSessionId"], json!(root));
    assert!(
        ev.iter()
            .filter(|e| e["sessionId"] == child.as_str())
            .all(|e| e["parentSessionId"] == root.as_str())
    );
    assert!(
        ev.iter()
            .filter(|e| e["sessionId"] == root.as_str())
            .all(|e| e.get("parentSessionId").is_none())
    );
    let terminals: Vec<&Value> = ev.iter().filter(|e| e["type"] == "run_completed").collect();
    assert_eq!(terminals.len(), 2);
    assert_eq!(
        ev.last().unwrap()["sessionId"],
        json!(root),
        "the root's terminal event is last"
    );
    let c = db(&ws);
    let (pid, pcall, title): (String, String, String) = c
        .query_row(
            "SELECT parent_id,parent_call_id,title FROM sessions WHERE id=?1",
            [&child],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (pid.as_str(), pcall.as_str(), title.as_str()),
        (root.as_str(), "t1", "Read a")
    );
    let t = tool_results(&ws, &root);
    let out: Value = serde_json::from_str(&result_text(&t[0])).unwrap();
    assert_eq!(
        out,
        json!({"sessionId":child,"status":"completed","text":"a.txt says alpha","turns":2})
    );
    let done = of_type(&ev, "tool_completed")
        .into_iter()
        .find(|e| e["data"]["id"] == "t1")
        .unwrap()
        .clone();
    assert_eq!(done["data"]["childSessionId"], json!(child));
    let list = ws.run(&["sessions", "list", "--json"]).json();
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "children are not listed without --all"
    );
}

#[test]
fn a_failed_child_gives_an_error_result() {
    let ws = Ws::new();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"t1","name":"task","arguments":{"description":"d","prompt":"p"}}]}"#,
            r#"{"error":{"status":400,"message":"bad"}}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "delegate", &[]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let t = tool_results(&ws, &sid(&ev));
    assert_eq!(
        result_text(&t[0]),
        "Sub-agent failed: Provider request failed with HTTP 400: bad"
    );
    assert_eq!(of_type(&ev, "run_failed").len(), 1);
}
