//! Nothing is lost (issue 13 §1, spec/governor.md §3.3): a process printing about 200 KB through a
//! local OpenAI-compatible fake server; what each mode shows the model, and `result_read`
//! giving the stored bytes back exactly.

use serde_json::{Value, json};

use crate::common::{Run, Ws, run_cmd};
use crate::fake::{Fake, Reply};
use crate::sess::*;

fn sse(chunks: &[Value]) -> String {
    let mut s = String::new();
    for c in chunks {
        s.push_str(&format!("data: {c}\n\n"));
    }
    s.push_str("data: [DONE]\n\n");
    s
}

fn tool_call(id: &str, name: &str, args: &Value) -> Reply {
    Reply::sse(
        &sse(&[
            json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":id,"type":"function","function":{"name":name,"arguments":args.to_string()}}]}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20}}),
        ]),
        5,
    )
}

fn text(t: &str) -> Reply {
    Reply::sse(
        &sse(&[
            json!({"choices":[{"index":0,"delta":{"role":"assistant","content":t}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5}}),
        ]),
        3,
    )
}

/// `run <flags> p` with the provider of `cfg.json` the fake.
fn run_on(ws: &Ws, fake: &Fake, flags: &[&str]) -> Run {
    ws.file(
        "cfg.json",
        json!({"provider":{"kind":"openai","baseUrl":fake.url,"model":"m1"}}).to_string(),
    );
    let mut args = vec!["run", "--config", "cfg.json"];
    args.extend(flags);
    args.push("p");
    run_cmd(ws.cmd().args(args))
}

const OFFSET: u64 = 100_000;
const LIMIT: u64 = 5_000;

/// One run in `mode`: `seq 1 40000` (228,894 bytes), then `result_read` at [`OFFSET`], then done.
fn go(ws: &Ws, mode: &str) -> (Run, Vec<Value>, Vec<crate::fake::Recorded>) {
    let fake = Fake::start(vec![
        tool_call("call_1", "shell", &json!({"command":"seq 1 40000"})),
        tool_call(
            "call_2",
            "result_read",
            &json!({"callId":"call_1","offset":OFFSET,"limit":LIMIT}),
        ),
        text("done"),
    ]);
    let r = run_on(
        ws,
        &fake,
        &["--json", "--allow", "process", "--governor", mode],
    );
    let ev = events(&r);
    (r, ev, fake.requests())
}

fn last_tool(req: &crate::fake::Recorded) -> String {
    let m = req.body["messages"].as_array().cloned().unwrap_or_default();
    let t = m
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .cloned()
        .unwrap_or_default();
    t["content"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| t["content"].to_string())
}

fn expected_stdout() -> String {
    (1..=40_000).map(|i| format!("{i}\n")).collect()
}

/// The stored text of the first tool result, checked whole.
fn stored(ws: &Ws, ev: &[Value]) -> String {
    let t = tool_results(ws, &sid(ev));
    let s = result_text(&t[0]);
    let v: Value = serde_json::from_str(&s).expect("process result JSON");
    assert_eq!(
        v["stdout"].as_str(),
        Some(expected_stdout().as_str()),
        "kept whole"
    );
    assert_eq!(v["truncated"], json!(false));
    s
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// `result_read` returned the exact substring of the stored stdout (the field it reads by
/// default, issue 21 §2), offsets in characters of that text.
fn read_back_is_exact(req: &crate::fake::Recorded, stored: &str) {
    let r: Value = serde_json::from_str(&last_tool(req)).expect("result_read JSON");
    let v: Value = serde_json::from_str(stored).expect("stored JSON");
    let u = units(v["stdout"].as_str().unwrap_or_default());
    let (o, l) = (OFFSET as usize, LIMIT as usize);
    assert_eq!(r["callId"], "call_1");
    assert_eq!(r["field"], "stdout");
    assert_eq!(r["offset"], json!(OFFSET));
    assert_eq!(r["nextOffset"], json!(OFFSET + LIMIT));
    assert_eq!(r["totalChars"], json!(228_894));
    assert_eq!(r["totalLines"], json!(40_000));
    assert_eq!(u.len(), 228_894);
    assert_eq!(
        r["text"].as_str(),
        Some(String::from_utf16_lossy(&u[o..o + l]).as_str())
    );
}

#[cfg(unix)]
#[test]
fn on_sends_the_spill_stub_and_result_read_returns_the_exact_bytes() {
    let ws = Ws::new();
    let (r, ev, req) = go(&ws, "on");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(req.len(), 3);
    let stored = stored(&ws, &ev);
    let stub = last_tool(&req[1]);
    assert!(stub.len() <= 4000, "{} chars: {stub}", stub.len());
    let first = stub.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "[oversized: shell \"seq 1 40000\" stdout 228894 chars, 40000 lines, exit 0; head and tail shown; result_read \"call_1\" field \"stdout\" offset 400 reads the rest]"
    );
    // The envelope is kept: the rest is the result's JSON, its stdout cut.
    let env: Value = serde_json::from_str(&stub[first.len() + 1..]).expect("the envelope");
    assert_eq!(env["exitCode"], json!(0));
    assert_eq!(env["truncated"], json!(false));
    let out = env["stdout"].as_str().unwrap_or_default();
    assert!(out.starts_with("1\n2\n3\n"), "the head: {out}");
    assert!(out.ends_with("39999\n40000\n"), "the tail: {out}");
    read_back_is_exact(&req[2], &stored);
    // result_read's own result is never cut or replaced.
    let offered: Vec<&str> = req[0].body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"result_read"));
}

#[cfg(unix)]
#[test]
fn off_sends_the_32k_cut_with_a_note_and_shadow_sends_exactly_the_same() {
    let ws = Ws::new();
    let (r, ev, off) = go(&ws, "off");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let stored = stored(&ws, &ev);
    let shown = last_tool(&off[1]);
    let u = units(&stored);
    let want = format!(
        "{}\n[output cut at 32000 of {} characters; result_read {{\"callId\":\"call_1\",\"offset\":32000}} returns the rest]",
        String::from_utf16_lossy(&u[..32_000]),
        u.len()
    );
    assert_eq!(shown, want);
    read_back_is_exact(&off[2], &stored);
    let (r, ev2, shadow) = go(&ws, "shadow");
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(!of_type(&ev2, "context_governed").is_empty());
    assert_eq!(shadow.len(), off.len());
    for (a, b) in off.iter().zip(&shadow) {
        assert_eq!(
            a.body["messages"], b.body["messages"],
            "shadow sends what off sends"
        );
        assert_eq!(a.body["tools"], b.body["tools"]);
    }
}

#[cfg(unix)]
#[test]
fn an_unknown_call_id_is_a_clear_tool_error() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        tool_call("call_9", "result_read", &json!({"callId":"call_404"})),
        text("done"),
    ]);
    let r = run_on(&ws, &fake, &["--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let req = fake.requests();
    let t = last_tool(&req[1]);
    assert!(
        t.contains("result_read: no result with callId \"call_404\" in this session"),
        "{t}"
    );
}

#[cfg(unix)]
#[test]
fn the_live_context_report_carries_the_replay_figures() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        tool_call("call_1", "shell", &json!({"command":"seq 1 40000"})),
        text("done"),
    ]);
    let r = run_on(&ws, &fake, &["--allow", "process", "--governor", "shadow"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("  replay: "))
        .unwrap_or_else(|| panic!("{}", r.stderr));
    // Two requests: the spilled result makes the governed projection smaller, without a break.
    assert!(
        line.starts_with("  replay: 2 requests; tokens governed/off 0."),
        "{line}"
    );
    assert!(line.ends_with("; 0 cache breaks"), "{line}");
}
