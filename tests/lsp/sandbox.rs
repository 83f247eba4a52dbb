//! The process sandbox from the editor (spec/sessions.md §10.4, §4.4): under
//! `approvals.process: sandboxed` a sandboxed `shell` call runs without `alisio/approve`; under
//! the default `ask` the request and its summary say the call will run sandboxed. Skips with a
//! printed reason where the kernel has no Landlock.

use serde_json::{Value, json};

use crate::common::{Ws, bin};
use crate::harness::Lsp;

fn available() -> bool {
    let ok = std::process::Command::new(bin())
        .args(["sandbox-exec", "--probe"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: the process sandbox is not available here");
    }
    ok
}

fn run(ws: &Ws, config: &Value) -> (Lsp, Value, Vec<Value>) {
    std::fs::write(ws.config_home.join("config.json"), config.to_string()).unwrap();
    let script = ws.file("script.jsonl", concat!(
        "{\"alisioScript\": 1}\n",
        "{\"toolCalls\": [{\"id\": \"s1\", \"name\": \"shell\", \"arguments\": {\"command\": \"echo hi > s.txt; echo x > ../outside.txt\"}}]}\n",
        "{\"text\": \"Done.\"}\n"));
    let mut cmd = ws.cmd();
    cmd.arg("serve");
    let mut lsp = Lsp::spawn(cmd);
    lsp.initialize(&ws.root, json!({}), json!({"trusted": true}));
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "run it", "provider": {"kind": "script", "script": script}}),
        )
        .unwrap();
    let mut evs = Vec::new();
    while let Some(e) = lsp.try_wait_notification(
        "alisio/sessionEvent",
        &|_| true,
        std::time::Duration::from_millis(200),
    ) {
        evs.push(e["event"].clone());
    }
    (lsp, r, evs)
}

fn approvals(lsp: &Lsp) -> Vec<Value> {
    lsp.server_requests_of("alisio/approve")
}

#[test]
fn sandboxed_calls_run_without_asking_the_editor() {
    if !available() {
        return;
    }
    let ws = Ws::new();
    let (lsp, r, evs) = run(&ws, &json!({"approvals": {"process": "sandboxed"}}));
    assert_eq!(r["status"], "completed");
    assert!(approvals(&lsp).is_empty());
    let started = evs.iter().find(|e| e["type"] == "run_started").unwrap();
    assert_eq!(
        started["data"]["sandbox"],
        json!({"mode": "workspace-write", "network": false})
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("s.txt")).unwrap(),
        "hi\n"
    );
    assert!(!ws.root.parent().unwrap().join("outside.txt").exists());
}

#[test]
fn an_ask_names_the_sandbox_the_call_will_run_in() {
    if !available() {
        return;
    }
    let ws = Ws::new();
    let (lsp, r, _) = run(&ws, &json!({"process": {"sandbox": "read-only"}}));
    assert_eq!(r["status"], "completed");
    let asked = approvals(&lsp);
    assert_eq!(asked.len(), 1);
    let p = &asked[0]["params"];
    assert_eq!(
        p["summary"],
        "Run shell: echo hi > s.txt; echo x > ../outside.txt [sandbox: read-only]"
    );
    assert_eq!(p["sandbox"], json!({"mode": "read-only", "network": false}));
    // The harness denies: nothing ran.
    assert!(!ws.root.join("s.txt").exists());
}
