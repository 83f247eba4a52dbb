//! `alisio-ls sessions list|show|report` (spec/sessions.md §1.9; spec/sessions.md §11 case 11).

use serde_json::json;

use crate::common::Ws;
use crate::sess::*;

// 11
#[test]
fn report_and_show_of_an_unreconciled_session_are_paired_and_write_nothing() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"a.txt"}}]}"#,
            r#"{"text":"x"}"#,
        ],
    );
    let r = crate::common::run_cmd(
        ws.cmd()
            .env("ALISIO_FAULT", "after_assistant_commit")
            .args(["run", "--json", "--script", "s.jsonl", "p"]),
    );
    assert_ne!(r.code, 0);
    let id: String = db(&ws)
        .query_row("SELECT id FROM sessions", [], |r| r.get(0))
        .unwrap();
    let count = || -> (i64, i64, String) {
        let c = db(&ws);
        (
            c.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
                .unwrap(),
            c.query_row("SELECT count(*) FROM events", [], |r| r.get(0))
                .unwrap(),
            c.query_row("SELECT status FROM runs", [], |r| r.get(0))
                .unwrap(),
        )
    };
    let before = count();
    let rep = ws.run(&["sessions", "report", &id, "--json"]);
    assert_eq!(rep.code, 0, "{}", rep.stderr);
    let human = ws.run(&["sessions", "show", &id[..8]]);
    assert_eq!(human.code, 0);
    let lines: Vec<&str> = human.stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[2].starts_with("#3 tool Interrupted: the session stopped before this call ran."),
        "{}",
        lines[2]
    );
    let shown = ws.run(&["sessions", "show", &id, "--json"]).json();
    assert_eq!(shown["schemaVersion"], json!(1));
    assert_eq!(
        shown["messages"].as_array().unwrap().len(),
        2,
        "the export lists stored rows only"
    );
    assert_eq!(count(), before, "read-only commands write nothing");
    assert_eq!(before.2, "running");
}

#[test]
fn show_json_exports_every_row_with_its_message() {
    let ws = Ws::new();
    script(&ws, &[r#"{"text":"hi"}"#]);
    let (_, ev) = run(&ws, "hello", &[]);
    let v = ws.run(&["sessions", "show", &sid(&ev), "--json"]).json();
    assert_eq!(v["session"]["title"], "hello");
    assert_eq!(v["session"]["provider"]["kind"], "script");
    let m = &v["messages"][1];
    assert_eq!(m["seq"], json!(2));
    assert_eq!(m["role"], "assistant");
    assert_eq!(m["compacted"], json!(false));
    assert_eq!(
        m["message"]["content"],
        json!([{"type":"text","text":"hi"}])
    );
    assert_eq!(m["message"]["stopReason"], "end_turn");
}

#[test]
fn unknown_and_ambiguous_ids_are_usage_failures() {
    let ws = Ws::new();
    let r = ws.run(&["sessions", "show", "0190ffff"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.trim(), "error: Session not found: 0190ffff");
}

#[test]
fn the_report_of_an_off_session_is_the_off_object() {
    let ws = Ws::new();
    script(&ws, &[r#"{"text":"hi"}"#]);
    let (_, ev) = run(&ws, "hello", &[]);
    let id = sid(&ev);
    let rep = ws.run(&["sessions", "report", &id, "--json"]).json();
    assert_eq!(rep, json!({"mode":"off","measured":false,"sessionId":id}));
}

/// docs/sessions.md: `sessions report` offers the tools a headless run would under the
/// configuration: read tools only by default, the write and process tools (and the background
/// ones) when the configuration allows them. Everything but the tools segment is the same.
#[test]
fn the_report_offers_the_tools_a_headless_run_would_under_the_configuration() {
    let ws = Ws::new();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (_, ev) = run(&ws, "hello", &["--governor", "on"]);
    let id = sid(&ev);
    let plain = ws.run(&["sessions", "report", &id, "--json"]).json();
    ws.file(
        "allow.json",
        r#"{"approvals": {"write": "allow", "process": "allow"}}"#,
    );
    let allowed = ws
        .run(&[
            "sessions",
            "report",
            &id,
            "--json",
            "--config",
            "allow.json",
        ])
        .json();
    let tools = |r: &serde_json::Value| {
        r["segments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["kind"] == "tools")
            .unwrap()["tokens"]
            .as_u64()
            .unwrap()
    };
    let others = |r: &serde_json::Value| {
        r["segments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["kind"] != "tools")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert!(
        tools(&allowed) > tools(&plain),
        "{} vs {}",
        tools(&allowed),
        tools(&plain)
    );
    assert_eq!(others(&allowed), others(&plain));
    assert_eq!(
        allowed["totals"]["tokensBefore"].as_u64().unwrap()
            - plain["totals"]["tokensBefore"].as_u64().unwrap(),
        tools(&allowed) - tools(&plain)
    );
}

/// `sessions rewind ID --to N` (spec/sessions.md §13.3): a run that could not change files has a
/// conversation-only checkpoint; a rewind asks about a file the user changed, then `--keep`
/// leaves it and rewinds the rest.
#[test]
fn sessions_rewind_restores_a_cli_session_and_asks_about_the_users_changes() {
    let ws = Ws::new();
    ws.file("keep.txt", "v1\n");
    ws.file("s2.jsonl", "{\"text\":\"read only\"}\n");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"p1","name":"shell","arguments":{"command":"echo v2 > keep.txt && echo new > made.txt"}}]}"#,
            r#"{"text":"done"}"#,
        ],
    );
    let (r, ev) = run(&ws, "change", &["--allow", "write,process"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = sid(&ev);
    let r2 = ws.run(&[
        "run",
        "--json",
        "--script",
        "s2.jsonl",
        "--session",
        &id,
        "look",
    ]);
    assert_eq!(r2.code, 0, "{}", r2.stderr);
    // Checkpoint 2 recorded no files (nothing could change them): only the conversation.
    let two = ws.run(&["sessions", "rewind", &id, "--to", "2", "--json"]);
    assert_eq!(two.code, 0, "{}", two.stderr);
    let two = two.json();
    assert_eq!(two["files"], json!([]));
    assert_eq!(two["prompt"], "look");
    assert_eq!(two["messages"], json!({"removed": 2, "restored": 0}));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("keep.txt")).unwrap(),
        "v2\n"
    );
    // The user edits a file the session changed: the rewind asks and changes nothing.
    ws.file("made.txt", "mine\n");
    let asked = ws.run(&["sessions", "rewind", &id[..8], "--to", "1"]);
    assert_eq!(asked.code, 1);
    assert_eq!(
        asked.stdout,
        "You changed these files after checkpoint 1; nothing was rewound:\n  made.txt (delete)\n\
         Run again with --keep to leave them as they are, or --overwrite to rewind them too.\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("keep.txt")).unwrap(),
        "v2\n"
    );
    let kept = ws.run(&["sessions", "rewind", &id, "--to", "1", "--keep"]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    assert_eq!(
        kept.stdout,
        format!(
            "restore keep.txt\ndelete made.txt (kept: changed by you)\n\
             Rewound session {id} to checkpoint 1: 4 messages left the transcript, 0 came back.\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("keep.txt")).unwrap(),
        "v1\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("made.txt")).unwrap(),
        "mine\n"
    );
    assert_eq!(active(&ws, &id), vec![]);
    let busy_or_missing = ws.run(&["sessions", "rewind", &id, "--to", "7"]);
    assert_eq!(busy_or_missing.code, 2);
    assert!(
        busy_or_missing
            .stderr
            .contains(&format!("Checkpoint 7 not found in session {id}")),
        "{}",
        busy_or_missing.stderr
    );
}
