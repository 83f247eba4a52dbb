//! Agent sessions from the editor: `alisio/runSession` with the offline script provider,
//! streamed `alisio/sessionEvent`, work-done progress, `alisio/approve`, cancellation,
//! `alisio/listSessions` and `alisio/contextReport`.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Ws, copy_dir};
use crate::harness::Lsp;

fn demo_ws() -> Ws {
    let ws = Ws::new();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo"),
        &ws.root.join("examples/demo"),
    );
    ws
}

fn start(ws: &Ws, silent: bool) -> Lsp {
    let caps = json!({"window": {"workDoneProgress": true}});
    let options = json!({"trusted": true});
    if silent {
        crate::harness::start_silent(ws, caps, options)
    } else {
        crate::harness::start(ws, caps, options)
    }
}

/// Every `alisio/sessionEvent` received so far, in order.
fn events(lsp: &mut Lsp) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(e) = lsp.try_wait_notification(
        "alisio/sessionEvent",
        &|_| true,
        std::time::Duration::from_millis(200),
    ) {
        out.push(e);
    }
    out
}

#[test]
fn run_session_streams_events_and_returns_a_report_with_elisions() {
    let ws = demo_ws();
    // Without batching (not gated, spec/governor.md §2.7): the demo's short session saves nothing
    // before its one boundary, so under the default gate it would elide nothing.
    ws.file(
        ".alisio/config.json",
        r#"{"context":{"elide":{"epochMessages":0}}}"#,
    );
    let script = ws.root.join("examples/demo/session.jsonl");
    let mut lsp = start(&ws, false);
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "Where is the greeting built?", "governor": "on",
            "provider": {"kind": "script", "script": script}, "workDoneToken": "run-1"}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed");
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .starts_with("The greeting is built by `greeting()`"),
        "{r}"
    );
    let sid = r["sessionId"].as_str().unwrap().to_string();
    assert_eq!(r["report"]["totals"]["elided"], 12, "{:#}", r["report"]);
    // Events: in order (seq 1, 2, 3 …), first run_started, last run_completed, all for this session.
    let evs = events(&mut lsp);
    assert!(!evs.is_empty());
    let seqs: Vec<u64> = evs
        .iter()
        .map(|e| e["event"]["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert_eq!(evs[0]["event"]["type"], "run_started");
    assert_eq!(evs.last().unwrap()["event"]["type"], "run_completed");
    assert!(evs.iter().all(|e| e["sessionId"] == sid.as_str()));
    assert!(evs.iter().any(|e| e["event"]["type"] == "context_governed"));
    // Work-done progress on the client's token.
    let begin = lsp.wait_notification("$/progress", |p| {
        p["token"] == "run-1" && p["value"]["kind"] == "begin"
    });
    assert_eq!(begin["value"]["title"], "Agent session");
    assert_eq!(begin["value"]["cancellable"], true);
    let end = lsp.wait_notification("$/progress", |p| {
        p["token"] == "run-1" && p["value"]["kind"] == "end"
    });
    assert_eq!(end["value"]["message"], "completed");
    // The read side.
    let list = lsp.request("alisio/listSessions", json!({})).unwrap();
    assert_eq!(list[0]["sessionId"], sid.as_str());
    assert_eq!(list[0]["title"], "Where is the greeting built?");
    let report = lsp
        .request("alisio/contextReport", json!({"sessionId": sid}))
        .unwrap();
    assert_eq!(report["sessionId"], sid.as_str());
    // The editor's next request offers what its runs offer (write and process tools can be
    // asked for): the same report as the run returned, tools segment included.
    let tools_of = |rep: &Value| {
        rep["segments"]
            .as_array()
            .and_then(|ss| ss.iter().find(|s| s["kind"] == "tools"))
            .map(|s| s["tokens"].clone())
            .expect("a tools segment")
    };
    assert_eq!(tools_of(&report), tools_of(&r["report"]));
    assert_eq!(report["totals"], r["report"]["totals"]);
    let cmd = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "alisio.showContextReport", "arguments": [sid]}),
        )
        .unwrap();
    assert_eq!(cmd, report);
}

#[test]
fn a_write_asks_the_editor_and_a_denial_leaves_the_file_untouched() {
    let ws = Ws::new();
    let script = ws.file("script.jsonl", concat!(
        "{\"alisioScript\": 1}\n",
        "{\"text\": \"Writing.\", \"toolCalls\": [{\"id\": \"w1\", \"name\": \"write_file\", \"arguments\": {\"path\": \"out.txt\", \"content\": \"x\", \"expectedHash\": null}}]}\n",
        "{\"text\": \"Done.\"}\n"));
    let mut lsp = start(&ws, false);
    let r = run_script(&mut lsp, "write it", &script);
    assert_eq!(r["status"], "completed");
    assert!(!ws.root.join("out.txt").exists());
    let asked = lsp.server_requests_of("alisio/approve");
    let asked = asked.first().expect("alisio/approve sent");
    assert_eq!(asked["params"]["callId"], "w1");
    assert_eq!(asked["params"]["tool"], "write_file");
    assert_eq!(asked["params"]["effect"], "write");
    assert_eq!(asked["params"]["summary"], "Write out.txt (1 bytes)");
    assert_eq!(
        first_resolution(&mut lsp),
        json!({"callId": "w1", "decision": "deny", "source": "user"})
    );
}

/// A script whose first model answer is delayed long enough to cancel it.
fn slow_script(ws: &Ws) -> std::path::PathBuf {
    ws.file(
        "script.jsonl",
        "{\"alisioScript\": 1}\n{\"delayMs\": 20000, \"text\": \"late\"}\n",
    )
}

#[test]
fn cancel_request_ends_the_run_cancelled_and_the_store_stays_consistent() {
    let ws = Ws::new();
    let script = slow_script(&ws);
    let mut lsp = start(&ws, false);
    let id = lsp.send_request(
        "alisio/runSession",
        json!({"prompt": "slow", "provider": {"kind": "script", "script": script}}),
    );
    lsp.wait_notification("alisio/sessionEvent", |e| {
        e["event"]["type"] == "run_started"
    });
    lsp.notify("$/cancelRequest", json!({"id": id}));
    let e = lsp.response(id).unwrap_err();
    assert_eq!(e["code"], -32800);
    let cancelled = lsp.wait_notification("alisio/sessionEvent", |e| {
        e["event"]["type"] == "run_cancelled"
    });
    assert_eq!(
        cancelled["event"]["data"],
        json!({"reason": "client", "error": "Cancelled"})
    );
    let list = lsp.request("alisio/listSessions", json!({})).unwrap();
    let sid = cancelled["sessionId"].as_str().unwrap();
    assert_eq!(list[0]["sessionId"], sid);
    assert!(
        lsp.request("alisio/contextReport", json!({"sessionId": sid}))
            .is_ok()
    );
}

#[test]
fn cancel_through_the_progress_token_answers_status_cancelled() {
    let ws = Ws::new();
    let script = slow_script(&ws);
    let mut lsp = start(&ws, false);
    let id = lsp.send_request("alisio/runSession", json!({"prompt": "slow", "provider": {"kind": "script", "script": script}, "workDoneToken": 7}));
    lsp.wait_notification("alisio/sessionEvent", |e| {
        e["event"]["type"] == "run_started"
    });
    lsp.notify("window/workDoneProgress/cancel", json!({"token": 7}));
    let r = lsp.response(id).unwrap();
    assert_eq!(r["status"], "cancelled");
    let end = lsp.wait_notification("$/progress", |p| {
        p["token"] == 7 && p["value"]["kind"] == "end"
    });
    assert_eq!(end["value"]["message"], "cancelled");
}

fn write_script(ws: &Ws, writes: &[&str]) -> std::path::PathBuf {
    let mut s = String::from("{\"alisioScript\": 1}\n");
    for (i, w) in writes.iter().enumerate() {
        s.push_str(&format!(
            "{{\"text\": \"Writing.\", \"toolCalls\": [{{\"id\": \"w{i}\", \"name\": \"write_file\", \"arguments\": {{\"path\": \"{w}\", \"content\": \"x\", \"expectedHash\": null}}}}]}}\n"
        ));
    }
    s.push_str("{\"text\": \"Done.\"}\n");
    ws.file("script.jsonl", s)
}

/// `alisio/runSession` of `prompt` with the script provider reading `script`; the result.
fn run_script(lsp: &mut Lsp, prompt: &str, script: &Path) -> Value {
    lsp.request(
        "alisio/runSession",
        json!({"prompt": prompt, "provider": {"kind": "script", "script": script}}),
    )
    .unwrap()
}

/// Runs the script that writes `a.txt` then `b.txt`, the client answering `decision`; both
/// files are written.
fn two_writes(ws: &Ws, decision: &str) -> Lsp {
    let script = write_script(ws, &["a.txt", "b.txt"]);
    let mut lsp = start(ws, false);
    *lsp.approve_decision.lock().unwrap() = decision.into();
    let r = run_script(&mut lsp, "write", &script);
    assert_eq!(r["status"], "completed");
    assert!(ws.root.join("a.txt").exists() && ws.root.join("b.txt").exists());
    lsp
}

/// The data of the run's first `approval_resolved` event.
fn first_resolution(lsp: &mut Lsp) -> Value {
    let evs = events(lsp);
    let resolved = evs
        .iter()
        .find(|e| e["event"]["type"] == "approval_resolved")
        .expect("approval_resolved");
    resolved["event"]["data"].clone()
}

fn approvals_asked(lsp: &Lsp) -> usize {
    lsp.server_requests_of("alisio/approve").len()
}

#[test]
fn case_25_allow_once_writes_and_the_next_write_asks_again() {
    let ws = Ws::new();
    let mut lsp = two_writes(&ws, "allow-once");
    assert_eq!(approvals_asked(&lsp), 2);
    assert_eq!(
        first_resolution(&mut lsp),
        json!({"callId": "w0", "decision": "allow-once", "source": "user"})
    );
}

#[test]
fn case_26_allow_session_does_not_ask_for_the_next_write() {
    let ws = Ws::new();
    let lsp = two_writes(&ws, "allow-session");
    assert_eq!(approvals_asked(&lsp), 1);
}

#[test]
fn case_28_read_only_sends_no_approval_and_offers_no_write_tools() {
    let ws = Ws::new();
    let script = ws.file("script.jsonl", concat!(
        "{\"alisioScript\": 1}\n",
        "{\"text\": \"Only reading.\", \"expect\": {\"notContains\": [\"\\\"write_file\\\"\", \"\\\"shell\\\"\"]}}\n"));
    let mut lsp = start(&ws, false);
    let r = lsp.request("alisio/runSession", json!({"prompt": "look", "readOnly": true, "provider": {"kind": "script", "script": script}})).unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    assert_eq!(approvals_asked(&lsp), 0);
}

/// Removes what differs between two runs of the same script (ids, times, durations).
fn normalized(ev: &Value) -> Value {
    let mut e = ev.clone();
    if let Some(o) = e.as_object_mut() {
        for k in [
            "runId",
            "sessionId",
            "timestamp",
            "eventId",
            "parentSessionId",
        ] {
            o.remove(k);
        }
    }
    fn scrub(v: &mut Value) {
        match v {
            Value::Object(m) => {
                // Token estimates count the search results' elapsed-time fields, which vary by a
                // digit between runs; everything else must be equal.
                for k in [
                    "durationMs",
                    "ttftMs",
                    "sessionId",
                    "timestamp",
                    "cwd",
                    "generatedAt",
                    "usage",
                    "tokens",
                    "tokensBefore",
                    "tokensAfter",
                    "tokensSaved",
                    // the replay's figures are token estimates too (cache breaks stay compared)
                    "inputTokens",
                    "cachedTokens",
                    "cost",
                ] {
                    m.remove(k);
                }
                m.values_mut().for_each(scrub);
            }
            Value::Array(a) => a.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    scrub(&mut e);
    // search_text previews carry ripgrep-style elapsed times.
    if e["data"]["name"] == "search_text"
        && let Some(d) = e["data"].as_object_mut()
    {
        d.remove("preview");
    }
    e
}

#[test]
fn case_51_run_session_streams_the_same_events_as_run_json() {
    let ws = demo_ws();
    let script = ws.root.join("examples/demo/session.jsonl");
    // The editor offers write and process tools (asking for them); the CLI offers them when allowed.
    let cli = ws.run(&[
        "run",
        "--json",
        "--allow",
        "write,process",
        "--governor",
        "on",
        "--script",
        script.to_str().unwrap(),
        "Where is the greeting built?",
    ]);
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let from_cli: Vec<Value> = cli
        .stdout
        .lines()
        .map(|l| normalized(&serde_json::from_str(l).unwrap()))
        .collect();
    let mut lsp = start(&ws, false);
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "Where is the greeting built?", "governor": "on",
        "provider": {"kind": "script", "script": script}}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed");
    let from_lsp: Vec<Value> = events(&mut lsp)
        .iter()
        .map(|e| normalized(&e["event"]))
        .collect();
    let types = |v: &[Value]| {
        v.iter()
            .map(|e| e["type"].as_str().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(types(&from_lsp), types(&from_cli));
    for (i, (a, b)) in from_lsp.iter().zip(&from_cli).enumerate() {
        assert_eq!(a, b, "event {i} differs");
    }
}

/// spec/sessions.md §4.4: a malformed approval reply (not one of the three decisions) is a denial
/// with source `client-error`; nothing is written and the run goes on.
#[test]
fn a_malformed_approval_reply_is_a_client_error_denial_and_nothing_is_written() {
    for junk in ["yes", "ALLOW-ONCE", ""] {
        let ws = Ws::new();
        // The model's next request must carry the denial text as the call's result.
        let script = write_script(&ws, &["out.txt"]);
        let text = std::fs::read_to_string(&script).unwrap().replace(
            "{\"text\": \"Done.\"}",
            "{\"text\": \"Done.\", \"expect\": {\"contains\": [\"Denied: the approval request failed (invalid reply).\"]}}",
        );
        std::fs::write(&script, text).unwrap();
        let mut lsp = start(&ws, false);
        *lsp.approve_decision.lock().unwrap() = junk.into();
        let r = run_script(&mut lsp, "write it", &script);
        assert_eq!(r["status"], "completed", "{junk:?}: {r}");
        assert!(!ws.root.join("out.txt").exists());
        assert_eq!(
            first_resolution(&mut lsp),
            json!({"callId": "w0", "decision": "deny", "source": "client-error"}),
            "{junk:?}"
        );
    }
}
