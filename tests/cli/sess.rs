//! Helpers for the session tests: scripts, event streams, the database.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{Run, Ws};

/// Writes `s.jsonl` (lines joined by `\n`).
pub fn script(ws: &Ws, lines: &[&str]) {
    ws.file("s.jsonl", lines.join("\n") + "\n");
}

/// The JSON lines of stdout.
pub fn events(r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}\nstderr: {}", r.stderr))
        })
        .collect()
}

pub fn types(ev: &[Value]) -> Vec<String> {
    ev.iter()
        .map(|e| e["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

pub fn of_type<'a>(ev: &'a [Value], t: &str) -> Vec<&'a Value> {
    ev.iter().filter(|e| e["type"] == t).collect()
}

/// `run --json --script s.jsonl PROMPT` plus extra args.
pub fn run(ws: &Ws, prompt: &str, extra: &[&str]) -> (Run, Vec<Value>) {
    let mut a = vec!["run", "--json", "--script", "s.jsonl"];
    a.extend_from_slice(extra);
    a.push(prompt);
    let r = ws.run(&a);
    let ev = events(&r);
    (r, ev)
}

pub fn state(ws: &Ws) -> PathBuf {
    ws.tmp.path().join("state")
}

pub fn db(ws: &Ws) -> rusqlite::Connection {
    rusqlite::Connection::open(state(ws).join("sessions.db")).expect("open db")
}

/// Active messages `(seq, pos, role, json)` in pos order.
pub fn active(ws: &Ws, sid: &str) -> Vec<(i64, i64, String, Value)> {
    let c = db(ws);
    let mut st = c.prepare("SELECT seq,pos,role,json FROM messages WHERE session_id=?1 AND compacted=0 ORDER BY pos").unwrap();
    st.query_map([sid], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            serde_json::from_str::<Value>(&r.get::<_, String>(3)?).unwrap(),
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Every active call has exactly one tool message after its assistant message and before the
/// next assistant message.
pub fn assert_paired(ws: &Ws, sid: &str) {
    let msgs = active(ws, sid);
    let mut open: Vec<String> = Vec::new();
    for (_, _, role, m) in &msgs {
        match role.as_str() {
            "assistant" => {
                assert!(
                    open.is_empty(),
                    "calls without results before the next assistant message: {open:?}"
                );
                for p in m["content"].as_array().unwrap() {
                    if p["type"] == "tool_call" {
                        open.push(p["id"].as_str().unwrap().to_string());
                    }
                }
            }
            "tool" => {
                let id = m["callId"].as_str().unwrap();
                let at = open
                    .iter()
                    .position(|x| x == id)
                    .unwrap_or_else(|| panic!("result {id} without an open call"));
                open.remove(at);
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "calls without results: {open:?}");
}

pub fn sid(ev: &[Value]) -> String {
    ev[0]["sessionId"].as_str().unwrap().to_string()
}

/// The tool messages of a session, in order.
pub fn tool_results(ws: &Ws, sid: &str) -> Vec<Value> {
    active(ws, sid)
        .into_iter()
        .filter(|m| m.2 == "tool")
        .map(|m| m.3)
        .collect()
}

pub fn result_text(m: &Value) -> String {
    m["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join("")
}
