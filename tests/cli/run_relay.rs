//! The relay (spec/sessions.md §12.5): past `relay.atFraction` of the window the session hands
//! over to a new, linked session; nothing is summarised and nothing is compacted.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

const HANDOFF: &str = "## Goal\nRead big.txt\n## Decisions\n- read it whole because it is small\n## Current state\nread\n## Open items\n- summarise it\n## Paths\n- big.txt";

fn relay_script(ws: &Ws, last: &str) {
    let handoff = json!({"for":"handoff","expect":{"contains":["Stop working now and write the handoff"],"tools":[]},"text":HANDOFF}).to_string();
    script(
        ws,
        &[
            r#"{"alisioScript":1,"contextWindow":3000}"#,
            r#"{"for":"turn","toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"big.txt"}}]}"#,
            &handoff,
            last,
        ],
    );
}

fn options(ws: &Ws, sid: &str) -> Value {
    let c = db(ws);
    let o: String = c
        .query_row("SELECT options FROM sessions WHERE id=?1", [sid], |r| {
            r.get(0)
        })
        .unwrap();
    serde_json::from_str(&o).unwrap()
}

#[test]
fn past_the_threshold_the_session_hands_over_to_a_linked_one() {
    let ws = Ws::new();
    ws.file("big.txt", "x".repeat(6000));
    ws.file("cfg.json", r#"{"session":{"relay":true}}"#);
    relay_script(
        &ws,
        r###"{"for":"turn","expect":{"contains":["[Handoff from session ","## Open items\\n- summarise it"],"notContains":["xxxxxxxxxx","Stop working now"]},"text":"summarised"}"###,
    );
    let (r, ev) = run(
        &ws,
        "read big.txt",
        &["--config", "cfg.json", "--goal", "Summarise big.txt"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let starts = of_type(&ev, "run_started");
    assert_eq!(starts.len(), 2);
    let old = starts[0]["sessionId"].as_str().unwrap().to_string();
    let new = starts[1]["sessionId"].as_str().unwrap().to_string();
    assert_ne!(old, new);
    assert_eq!(starts[1]["data"]["relayOf"], json!(old));
    let relayed = of_type(&ev, "session_relayed");
    assert_eq!(relayed.len(), 1);
    assert_eq!(relayed[0]["data"]["to"], json!(new));
    assert_eq!(relayed[0]["data"]["structured"], json!(true));
    assert!(of_type(&ev, "compaction_started").is_empty());
    assert_eq!(of_type(&ev, "run_completed").len(), 2);
    assert_eq!(ev.last().unwrap()["sessionId"], json!(new));
    // The old session is stored whole: prompt, read, result, note, handoff; nothing compacted.
    let c = db(&ws);
    let (n, compacted): (i64, i64) = c
        .query_row(
            "SELECT count(*), sum(compacted) FROM messages WHERE session_id=?1",
            [&old],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((n, compacted), (5, 0));
    let a = active(&ws, &old);
    assert_eq!(a[4].3["handoff"], json!(true));
    assert_eq!(a[4].3["content"][0]["text"], json!(HANDOFF));
    assert_eq!(options(&ws, &old)["relayedTo"], json!(new));
    let o = options(&ws, &new);
    assert_eq!(o["relayOf"], json!(old));
    assert_eq!(o["goal"]["objective"], json!("Summarise big.txt"));
    // The new session starts with the handoff and the invariants block.
    let b = active(&ws, &new);
    let first = b[0].3["content"][0]["text"].as_str().unwrap().to_string();
    assert!(first.starts_with(&format!("[Handoff from session {old}, which reached the relay threshold; continue its work from here]\n\n## Goal\nRead big.txt")), "{first}");
    assert!(
        first.contains("<invariants") && first.contains("Summarise big.txt"),
        "{first}"
    );
    // The chain shows in the list, and a resume of the old link continues the newest.
    let list = ws.run(&["sessions", "list", "--json"]).json();
    let entry = |id: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|e| e["sessionId"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(entry(&new)["relayOf"], json!(old));
    assert_eq!(entry(&old)["relayedTo"], json!(new));
    let title: (String, String) = c
        .query_row(
            "SELECT (SELECT title FROM sessions WHERE id=?1), (SELECT title FROM sessions WHERE id=?2)",
            [&old, &new],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(title.0, title.1);
    script(&ws, &[r#"{"text":"resumed"}"#]);
    let (r, ev) = run(&ws, "go on", &["--session", &old]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(sid(&ev), new);
    let rep = ws.run(&["sessions", "report", &new, "--json"]).json();
    assert_eq!(rep["relay"], json!({"of": old, "to": null}));
    let human = ws.run(&["sessions", "list"]).stdout;
    assert!(human.contains(&format!("(relay of {old})")), "{human}");
    let shown = ws.run(&["sessions", "show", &new, "--json"]).json();
    assert_eq!(shown["session"]["options"]["relayOf"], json!(old));
}

#[test]
fn coordinator_mode_relays_by_default_and_default_mode_does_not() {
    let ws = Ws::new();
    ws.file("big.txt", "x".repeat(6000));
    relay_script(&ws, r#"{"text":"next"}"#);
    // Default mode: no relay; the second line is not a handoff request, so the script fails.
    let (r, ev) = run(&ws, "read", &[]);
    assert_eq!(r.code, 1);
    assert!(of_type(&ev, "session_relayed").is_empty());
    let ws = Ws::new();
    ws.file("big.txt", "x".repeat(9000));
    relay_script(&ws, r#"{"text":"next"}"#);
    let (r, ev) = run(&ws, "read", &["--mode", "coordinator"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(of_type(&ev, "session_relayed").len(), 1);
}

#[test]
fn with_the_relay_on_the_hard_limit_is_a_clear_error_not_a_summary() {
    let ws = Ws::new();
    ws.file("AGENTS.md", format!("# Rules\n{}", "z".repeat(6000)));
    ws.file(
        "cfg.json",
        r#"{"session":{"relay":true},"limits":{"maxContextChars":5000}}"#,
    );
    script(&ws, &[r#"{"text":"never"}"#]);
    let (r, ev) = run(&ws, "hello", &["--config", "cfg.json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let failed = of_type(&ev, "run_failed");
    let err = failed[0]["data"]["error"].as_str().unwrap();
    assert_eq!(failed[0]["data"]["code"], json!("context_budget"));
    assert!(
        err.contains("Summarising compaction is off while the relay is on (session.relay)"),
        "{err}"
    );
    assert!(of_type(&ev, "compaction_started").is_empty());
}

/// The handoff is a request the provider bills (spec/governor.md §11.11): `session_relayed`
/// carries its usage, and the old session's recorded bill counts it with the request that asked
/// for it (mode `on`): the read's turn, 2,000 written (2,500), and the handoff, 1,000 uncached
/// and 2,000 read (1,250 + 200).
#[test]
fn the_handoff_is_in_the_old_sessions_bill() {
    let ws = Ws::new();
    ws.file("big.txt", "x".repeat(6000));
    ws.file("cfg.json", r#"{"session":{"relay":true}}"#);
    let handoff = json!({"for":"handoff","text":HANDOFF,
        "usage":{"input":3000,"output":40,"cacheRead":2000}})
    .to_string();
    script(
        &ws,
        &[
            r#"{"alisioScript":1,"contextWindow":3000}"#,
            r#"{"for":"turn","toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"big.txt"}}],"usage":{"input":2000,"output":9,"cacheWrite":2000}}"#,
            &handoff,
            r#"{"for":"turn","text":"summarised"}"#,
        ],
    );
    let (r, ev) = run(
        &ws,
        "read big.txt",
        &["--config", "cfg.json", "--governor", "on"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let relayed = &of_type(&ev, "session_relayed")[0];
    assert_eq!(
        relayed["data"]["usage"],
        json!({"input":3000,"output":40,"cacheRead":2000,"cacheWrite":0,"estimated":false})
    );
    let old = relayed["sessionId"].as_str().unwrap().to_owned();
    let rep = ws.run(&["sessions", "report", &old, "--json"]).json();
    let b = &rep["replay"]["recorded"];
    assert_eq!(b["requests"], 2, "{b}");
    assert_eq!(b["otherRequests"], 0);
    assert_eq!(b["inputTokens"], 5000);
    assert_eq!(b["cachedTokens"], 2000);
    assert_eq!(b["cost"], json!(3950.0));
}
