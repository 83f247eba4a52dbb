//! Coordinator mode (spec/sessions.md §12): the root delegates, glance runs only what the
//! ephemeral table holds, sub-sessions keep their tools, the workbench index is in the
//! coordinator's system text only.

use serde_json::{Value, json};

use crate::common::{Run, Ws, run_cmd};
use crate::fake::{Fake, Reply};
use crate::sess::*;

const DELEGATE: &str = "Refused: this session is a coordinator; it does not write, edit or run processes itself. Delegate instead: start a sub-session with task, state the goal and the acceptance criteria in its prompt, have it write long output under .alisio/workbench/artifacts/ and answer with paths and conclusions.";

fn message(m: &Value) -> Value {
    m.clone()
}

#[test]
fn the_root_delegates_and_glances_and_the_sub_session_writes_into_the_workbench() {
    let ws = Ws::new();
    ws.file("keep.txt", "keep");
    script(
        &ws,
        &[
            r##"{"expect":{"tools":["read_file","result_read","task","glance"],"contains":["You are the coordinator of this session","# Workbench index","(empty)"]},"toolCalls":[{"id":"w1","name":"write_file","arguments":{"path":"a.txt","content":"x","expectedHash":null}},{"id":"p1","name":"shell","arguments":{"command":"echo hi > b.txt"}},{"id":"l1","name":"list_files","arguments":{}}]}"##,
            r##"{"toolCalls":[{"id":"g1","name":"glance","arguments":{"command":"ls && rm -rf keep.txt"}},{"id":"g2","name":"glance","arguments":{"command":"ls -a | head -50"}}]}"##,
            r##"{"toolCalls":[{"id":"t1","name":"task","arguments":{"description":"Count","prompt":"Write a script that counts the lines of data/. Workbench: .alisio/workbench/."}}]}"##,
            r##"{"expect":{"contains":["Standing discipline: write long output","\"name\":\"write_file\"","\"name\":\"shell\""],"notContains":["# Workbench index","You are the coordinator"]},"toolCalls":[{"id":"c1","name":"write_file","arguments":{"path":".alisio/workbench/scripts/count.sh","content":"#!/bin/sh\n# Count the lines of data/\nwc -l data/*\n","expectedHash":null}}]}"##,
            r##"{"text":"Wrote the script; path in the workbench."}"##,
            r##"{"expect":{"contains":["- scripts/count.sh: Count the lines of data/ (50 bytes, never run)"]},"text":"done"}"##,
        ],
    );
    let (r, ev) = run(
        &ws,
        "count data",
        &[
            "--mode",
            "coordinator",
            "--allow",
            "write,process",
            "--governor",
            "shadow",
        ],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let root = sid(&ev);
    let t = tool_results(&ws, &root);
    let by_id = |id: &str| -> Value {
        message(
            t.iter()
                .find(|m| m["callId"] == id)
                .unwrap_or_else(|| panic!("{id}")),
        )
    };
    for id in ["w1", "p1"] {
        let m = by_id(id);
        assert_eq!(
            (&m["outcome"], &m["denial"], &m["isError"]),
            (&json!("refused"), &json!("coordinator"), &json!(true)),
            "{m}"
        );
        assert_eq!(result_text(&m), DELEGATE);
    }
    assert!(!ws.root.join("a.txt").exists() && !ws.root.join("b.txt").exists());
    assert_eq!(
        result_text(&by_id("l1")),
        "Tool \"list_files\" is not available in this session"
    );
    let g1 = by_id("g1");
    assert_eq!(
        (&g1["outcome"], &g1["denial"]),
        (&json!("refused"), &json!("glance"))
    );
    assert_eq!(
        result_text(&g1),
        "Refused: glance runs only status and listing commands (\"rm -rf keep.txt\" is not a status or listing command). Delegate anything else: start a sub-session with task."
    );
    assert!(ws.root.join("keep.txt").exists());
    let g2: Value = serde_json::from_str(&result_text(&by_id("g2"))).unwrap();
    assert!(
        g2["stdout"].as_str().unwrap().contains("keep.txt\n"),
        "{g2}"
    );
    assert_eq!(g2["exitCode"], json!(0));
    // The sub-session's write went through with the same approvals.
    let script_path = ws.root.join(".alisio/workbench/scripts/count.sh");
    assert!(script_path.exists());
    let index = std::fs::read_to_string(ws.root.join(".alisio/workbench/INDEX.md")).unwrap();
    assert!(
        index.contains("- scripts/count.sh: Count the lines of data/ (50 bytes, never run)"),
        "{index}"
    );
    // The index is system text: no stored message of any session carries it.
    let c = db(&ws);
    let n: i64 = c
        .query_row(
            "SELECT count(*) FROM messages WHERE json LIKE '%# Workbench index%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 0);
    let mode: String = c
        .query_row(
            "SELECT json_extract(options,'$.mode') FROM sessions WHERE id=?1",
            [&root],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(mode, "coordinator");
    // The report counts the index as a segment of its own.
    let rep = ws.run(&["sessions", "report", &root, "--json"]).json();
    let seg = rep["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["origin"] == ".alisio/workbench/INDEX.md")
        .unwrap_or_else(|| panic!("{rep}"));
    assert_eq!(seg["kind"], "instructions");
    // spec/sessions.md §12.2: the brief is all task-specific (no worker rule copied).
    assert_eq!(
        rep["delegation"],
        json!({"briefs":[{"callId":"t1","chars":77,"words":12,"repeatedWords":0,"repeatedShare":0.0}]})
    );
    assert_eq!(
        seg["tokens"],
        json!(index.encode_utf16().count().div_ceil(4))
    );
}

#[test]
fn a_resumed_coordinator_session_stays_a_coordinator() {
    let ws = Ws::new();
    script(&ws, &[r##"{"text":"ok"}"##]);
    let (r, ev) = run(&ws, "first", &["--mode", "coordinator"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let root = sid(&ev);
    script(
        &ws,
        &[r##"{"expect":{"tools":["read_file","result_read","task","glance"]},"text":"still"}"##],
    );
    let (r, _) = run(&ws, "second", &["--session", &root]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    script(
        &ws,
        &[
            r##"{"expect":{"notContains":["\"name\":\"glance\"","You are the coordinator"]},"text":"plain"}"##,
        ],
    );
    let (r, _) = run(&ws, "third", &["--session", &root, "--mode", "default"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
}

#[test]
fn the_openai_wire_carries_the_refusal_and_the_coordinator_tools() {
    let ws = Ws::new();
    let call = r#"data: {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_w","type":"function","function":{"name":"edit_file","arguments":"{\"path\":\"a.txt\",\"oldText\":\"a\",\"newText\":\"b\",\"expectedHash\":\"00\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

"#;
    let text = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let fake = Fake::start(vec![Reply::sse(call, 9), Reply::sse(text, 9)]);
    ws.file(
        "cfg.json",
        json!({"provider":{"kind":"openai","baseUrl":fake.url,"model":"m1"},"session":{"mode":"coordinator"}})
            .to_string(),
    );
    ws.file("a.txt", "a");
    let r: Run = run_cmd(ws.cmd().args([
        "run", "--json", "--config", "cfg.json", "--allow", "write", "p",
    ]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let req = fake.requests();
    assert_eq!(req.len(), 2);
    let names: Vec<&str> = req[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_file", "result_read", "task", "glance"]);
    let msgs = req[1].body["messages"].as_array().unwrap();
    let tool = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], "call_w");
    assert_eq!(tool["content"], json!(format!("Error: {DELEGATE}")));
    assert_eq!(std::fs::read_to_string(ws.root.join("a.txt")).unwrap(), "a");
}
