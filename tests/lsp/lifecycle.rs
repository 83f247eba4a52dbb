//! Start-up, negotiation, configuration, robustness and shutdown.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::harness::Lsp;

fn start(ws: &Ws) -> Lsp {
    crate::harness::serve(ws, &["--stdio"])
}

#[test]
fn shutdown_then_exit_ends_with_code_0_even_with_stdin_open() {
    let ws = Ws::new();
    let mut lsp = start(&ws);
    let init = lsp.initialize(&ws.root, json!({}), Value::Null);
    assert_eq!(init["serverInfo"]["name"], "alisio-ls");
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["capabilities"]["textDocumentSync"]["change"], 2);
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

#[test]
fn exit_without_shutdown_ends_with_code_1() {
    let ws = Ws::new();
    let mut lsp = crate::harness::start(&ws, json!({}), Value::Null);
    lsp.notify("exit", Value::Null);
    assert_eq!(lsp.wait_exit(), 1);
}

#[test]
fn end_of_input_ends_the_server() {
    let ws = Ws::new();
    let mut lsp = crate::harness::start(&ws, json!({}), Value::Null);
    lsp.close_stdin();
    assert_eq!(lsp.wait_exit(), 1);
}

#[test]
fn utf8_is_negotiated_when_the_client_offers_it_first() {
    let ws = Ws::new();
    let mut lsp = start(&ws);
    let init = lsp.initialize(
        &ws.root,
        json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}),
        Value::Null,
    );
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    let mut lsp2 = start(&ws);
    let init = lsp2.initialize(
        &ws.root,
        json!({"general": {"positionEncodings": ["utf-16", "utf-8"]}}),
        Value::Null,
    );
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
}

#[test]
fn malformed_messages_and_unknown_methods_never_end_the_server() {
    let ws = Ws::new();
    let mut lsp = crate::harness::start(&ws, json!({}), Value::Null);
    lsp.send_raw(b"{this is not json");
    assert_eq!(lsp.null_id_error()["code"], -32700);
    lsp.write_unframed(b"garbage without any header\r\n\r\n");
    assert_eq!(lsp.null_id_error()["code"], -32700);
    lsp.send_raw(br#"{"jsonrpc":"2.0","id":41}"#);
    assert_eq!(lsp.response(41).unwrap_err()["code"], -32600);
    let e = lsp.request("alisio/noSuchMethod", json!({})).unwrap_err();
    assert_eq!(e["code"], -32601);
    lsp.notify("alisio/noSuchNotification", json!({}));
    let e = lsp
        .request("textDocument/hover", json!({"nonsense": 1}))
        .unwrap_err();
    assert_eq!(e["code"], -32602);
    assert!(lsp.is_running());
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

#[test]
fn server_exits_when_its_parent_process_dies() {
    let ws = Ws::new();
    let mut parent = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("spawn sleep");
    let mut lsp = start(&ws);
    lsp.request(
        "initialize",
        json!({"processId": parent.id(), "rootUri": crate::harness::uri(&ws.root), "capabilities": {}}),
    )
    .expect("initialize");
    lsp.notify("initialized", json!({}));
    assert!(lsp.is_running());
    parent.kill().expect("kill parent");
    parent.wait().expect("reap parent");
    // The server polls every few seconds; wait_exit allows 20 s.
    assert_eq!(lsp.wait_exit(), 1);
}

#[test]
fn invalid_project_config_value_is_published_on_its_span_when_trusted() {
    let ws = Ws::new();
    let text = "{\n  \"context\": {\"maxBytes\": 1023}\n}\n";
    let cfg = ws.file(".alisio/config.json", text);
    let mut lsp = crate::harness::start(&ws, json!({}), json!({"trusted": true}));
    let diags = lsp.diagnostics_for(&cfg, |d| !d.is_empty());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0]["code"], "config-invalid");
    assert_eq!(diags[0]["severity"], 1);
    assert_eq!(
        diags[0]["message"],
        "context.maxBytes must be an integer from 1024 to 1048576; got 1023"
    );
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 1, "character": 26}, "end": {"line": 1, "character": 30}})
    );
}

#[test]
fn invalid_initialization_option_shows_a_warning_with_the_value_in_effect() {
    let ws = Ws::new();
    let mut lsp = crate::harness::start(&ws, json!({}), json!({"context": {"maxBytes": 10}}));
    let m = lsp.wait_notification("window/showMessage", |_| true);
    assert_eq!(m["type"], 2);
    assert_eq!(
        m["message"],
        "context.maxBytes must be an integer from 1024 to 1048576; got 10 (using 32768)"
    );
}

#[test]
fn fixing_a_config_value_in_the_editor_clears_its_diagnostic() {
    let ws = Ws::new();
    let text = "{\"context\": {\"maxBytes\": 1023}}";
    let cfg = ws.file(".alisio/config.json", text);
    let mut lsp = crate::harness::start(&ws, json!({}), json!({"trusted": true}));
    lsp.diagnostics_for(&cfg, |d| d.len() == 1);
    lsp.open(&cfg, text);
    lsp.notify("textDocument/didChange", json!({
        "textDocument": {"uri": crate::harness::uri(&cfg), "version": 2},
        "contentChanges": [{"range": {"start": {"line": 0, "character": 25}, "end": {"line": 0, "character": 29}}, "text": "2048"}]
    }));
    let p = lsp.wait_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == crate::harness::uri(&cfg).as_str()
            && p["diagnostics"].as_array().is_some_and(Vec::is_empty)
    });
    assert_eq!(p["version"], 2);
}

#[test]
fn a_client_that_never_answers_server_requests_does_not_stall_the_server() {
    let ws = Ws::new();
    let f = ws.file("Agente.md", "x\n");
    let caps = json!({"window": {"workDoneProgress": true}, "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut lsp = crate::harness::start_silent(&ws, caps, Value::Null);
    // Diagnostics still arrive, and requests are still answered, many times over.
    let d = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(d[0]["code"], "instructions-unread-name");
    for _ in 0..50 {
        let h = lsp.request("textDocument/hover", json!({"textDocument": {"uri": crate::harness::uri(&f)}, "position": {"line": 0, "character": 0}}));
        assert!(h.is_ok());
    }
    let asked: Vec<String> = lsp
        .server_requests
        .lock()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        asked.contains(&"client/registerCapability".to_string()),
        "{asked:?}"
    );
    assert!(
        asked.contains(&"window/workDoneProgress/create".to_string()),
        "{asked:?}"
    );
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

#[test]
fn first_scan_reports_work_done_progress() {
    let ws = Ws::new();
    let f = ws.file("Agente.md", "x\n");
    let mut lsp = crate::harness::start(
        &ws,
        json!({"window": {"workDoneProgress": true}}),
        Value::Null,
    );
    let begin = lsp.wait_notification("$/progress", |p| p["value"]["kind"] == "begin");
    assert_eq!(begin["token"], "alisio-ls/scan");
    assert_eq!(begin["value"]["title"], "alisio-ls: scanning workspace");
    lsp.wait_notification("$/progress", |p| p["value"]["kind"] == "end");
    lsp.diagnostics_for(&f, |d| !d.is_empty());
}

/// Issue 25 §6: an invalid session value is a `config-invalid` diagnostic on its span, like
/// every other key (the session then runs with the lower layer's value).
#[test]
fn invalid_session_values_are_config_invalid_on_their_spans() {
    let ws = Ws::new();
    let text = "{\n  \"limits\": {\"maxTurns\": 0},\n  \"session\": {\"mode\": \"boss\"}\n}\n";
    let cfg = ws.file(".alisio/config.json", text);
    let mut lsp = crate::harness::start(&ws, json!({}), json!({"trusted": true}));
    let diags = lsp.diagnostics_for(&cfg, |d| d.len() == 2);
    let got: Vec<(String, &str, u64, u64, u64)> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["character"].as_u64().unwrap(),
                d["range"]["end"]["character"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "config-invalid".to_string(),
                "limits.maxTurns must be an integer from 1 to 1000; got 0",
                1,
                25,
                26
            ),
            (
                "config-invalid".to_string(),
                r#"session.mode must be "default" or "coordinator"; got "boss""#,
                2,
                22,
                28
            ),
        ]
    );
}

#[test]
fn case_36_invalid_max_bytes_in_project_config_falls_back_to_the_default() {
    let ws = Ws::new();
    ws.file(".alisio/config.json", r#"{"context": {"maxBytes": 1023}}"#);
    let src = ws.file("src/a.rs", "");
    let mut lsp = crate::harness::start(&ws, json!({}), json!({"trusted": true}));
    let d = lsp.diagnostics_for(&ws.root.join(".alisio/config.json"), |d| !d.is_empty());
    assert_eq!(d[0]["code"], "config-invalid");
    let ex = lsp
        .request(
            "alisio/contextExplain",
            json!({"uri": crate::harness::uri(&src)}),
        )
        .unwrap();
    assert_eq!(ex["maxBytes"], 32768);
}

#[test]
fn every_workspace_folder_is_scanned() {
    let ws = Ws::new();
    let a = ws.file("a/Agente.md", "x\n");
    let b = ws.file("b/agents.md", "y\n");
    let mut lsp = start(&ws);
    let folders = json!([{"uri": crate::harness::uri(&ws.root.join("a")), "name": "a"}, {"uri": crate::harness::uri(&ws.root.join("b")), "name": "b"}]);
    lsp.request(
        "initialize",
        json!({"processId": null, "capabilities": {}, "workspaceFolders": folders}),
    )
    .unwrap();
    lsp.notify("initialized", json!({}));
    assert_eq!(
        lsp.diagnostics_for(&a, |d| !d.is_empty())[0]["code"],
        "instructions-unread-name"
    );
    assert_eq!(
        lsp.diagnostics_for(&b, |d| !d.is_empty())[0]["code"],
        "instructions-unread-name"
    );
}

#[test]
fn governor_case_49_invalid_governor_settings_are_config_invalid_in_the_editor() {
    let ws = Ws::new();
    let text = r#"{"context": {"governor": "ON", "elide": {"minAgeTurns": 0, "epochMessages": 1001}, "invariants": {"maxChars": 999}, "policyVersion": 3}}"#;
    let cfg = ws.file(".alisio/config.json", text);
    let mut lsp = crate::harness::start(&ws, json!({}), json!({"trusted": true}));
    let diags = lsp.diagnostics_for(&cfg, |d| d.len() == 5);
    let mut msgs: Vec<&str> = diags
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    msgs.sort_unstable();
    assert_eq!(
        msgs,
        [
            "context.elide.epochMessages must be an integer from 0 to 1000; got 1001",
            "context.elide.minAgeTurns must be an integer from 1 to 20; got 0",
            r#"context.governor must be "off", "shadow" or "on"; got "ON""#,
            "context.invariants.maxChars must be an integer from 1000 to 20000; got 999",
            "context.policyVersion must be an integer from 1 to 2; got 3",
        ]
    );
    assert!(
        diags
            .iter()
            .all(|d| d["code"] == "config-invalid" && d["severity"] == 1)
    );
    // The range is the value itself.
    let governor_range = diags
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .starts_with("context.governor")
        })
        .unwrap()["range"]
        .clone();
    assert_eq!(
        governor_range,
        json!({"start": {"line": 0, "character": 25}, "end": {"line": 0, "character": 29}})
    );
}

/// `workspace/codeLens/refresh` goes only to a client that offers `refreshSupport` (Neovim 0.11
/// does not; an unknown server request is an error to it). The background audit ends with one.
#[test]
fn code_lens_refresh_is_asked_only_of_clients_that_offer_it() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Rules\n");
    let caps = json!({"workspace": {"codeLens": {"refreshSupport": true}}});
    let mut yes = crate::harness::start(&ws, caps, json!({"trusted": true}));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while yes
        .server_requests_of("workspace/codeLens/refresh")
        .is_empty()
    {
        assert!(std::time::Instant::now() < deadline, "no codeLens/refresh");
        let _ = yes.request("alisio/auditSessions", json!({}));
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(yes.shutdown_and_exit(), 0);
    let mut no = crate::harness::start(&ws, json!({}), json!({"trusted": true}));
    let _ = no.request("alisio/auditSessions", json!({"refresh": true}));
    no.open(&ws.root.join("AGENTS.md"), "# Rules\n");
    let _ = no.request("alisio/auditSessions", json!({}));
    assert!(
        no.server_requests_of("workspace/codeLens/refresh")
            .is_empty()
    );
    assert_eq!(no.shutdown_and_exit(), 0);
}
