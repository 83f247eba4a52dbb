//! Reader conformance cases of spec/governor.md §12 (51–59) and hostile input, with exact values.

use serde_json::{Value, json};

use super::*;
use crate::report::{ContextReport, Measured, Segment};
use crate::testkit::request;
use crate::{GovSettings, Ledger, govern};
use alisio_base::config::GovernorMode;

fn settings() -> GovSettings {
    GovSettings {
        mode: GovernorMode::Shadow,
        min_age_turns: 2,
        epoch_messages: 0,
        policy_version: 1,
        max_chars: 4000,
        policy2: crate::policy2::Policy2::default(),
    }
}

fn analyze(bytes: &[u8]) -> Vec<(Session, Measured)> {
    let (_, sessions) = read(bytes, None, "t").expect("readable");
    sessions
        .into_iter()
        .map(|s| {
            let g = govern(
                &settings(),
                request(
                    &s.source.session,
                    &s.history,
                    &s.parts,
                    &s.sources,
                    None,
                    Ledger::All,
                ),
            );
            let ContextReport::Measured(m) = g.report else {
                panic!("off")
            };
            let m = *m;
            (s, m)
        })
        .collect()
}

fn jsonl(lines: &[Value]) -> Vec<u8> {
    lines
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
        .into_bytes()
}

fn seg<'m>(m: &'m Measured, id: &str) -> &'m Segment {
    m.segments
        .iter()
        .find(|s| s.kind == "tool_result" && s.call_id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no result {id}"))
}

// ---- Claude Code ----

fn cc_user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    json!({"type":"user","uuid":uuid,"parentUuid":parent,"sessionId":"S","isSidechain":false,"cwd":"/p","message":{"role":"user","content":content}})
}
fn cc_asst(uuid: &str, parent: Option<&str>, msg_id: &str, blocks: Value) -> Value {
    json!({"type":"assistant","uuid":uuid,"parentUuid":parent,"sessionId":"S","isSidechain":false,"cwd":"/p","message":{"id":msg_id,"role":"assistant","content":blocks}})
}
/// An assistant line whose one block is `call` (a [`tool_use`]).
fn cc_call(uuid: &str, parent: &str, msg_id: &str, call: Value) -> Value {
    cc_asst(uuid, Some(parent), msg_id, json!([call]))
}
fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type":"tool_use","id":id,"name":name,"input":input})
}
fn tool_result(id: &str, content: &str) -> Value {
    json!([{"type":"tool_result","tool_use_id":id,"content":content}])
}
fn text(t: &str) -> Value {
    json!([{"type":"text","text":t}])
}

#[test]
fn claude_code_edit_supersedes_a_read_and_tokens_come_from_the_tool_result() {
    let body = "x".repeat(4000);
    let mut read_result = cc_user("u2", Some("a1"), tool_result("t1", &body));
    read_result["toolUseResult"] = json!({"file": {"content": "y".repeat(40000)}});
    let lines = [
        cc_user("u1", None, json!("fix a.c")),
        cc_call(
            "a1",
            "u1",
            "m1",
            tool_use("t1", "Read", json!({"file_path":"/p/a.c"})),
        ),
        read_result,
        cc_call(
            "a2",
            "u2",
            "m2",
            tool_use(
                "t2",
                "Edit",
                json!({"file_path":"/p/a.c","old_string":"a","new_string":"b"}),
            ),
        ),
        cc_user("u3", Some("a2"), tool_result("t2", "ok")),
        cc_asst("a3", Some("u3"), "m3", text("done")),
        cc_asst("a4", Some("a3"), "m4", text("really")),
    ];
    let r = analyze(&jsonl(&lines));
    assert_eq!(r.len(), 1);
    let (s, m) = &r[0];
    assert_eq!(s.source.session, "S");
    let t1 = seg(m, "t1");
    assert_eq!(t1.tokens, 1000);
    assert_eq!(
        (t1.as_tool.as_deref(), t1.origin.as_str()),
        (Some("read_file"), "/p/a.c")
    );
    let e = t1.elided.as_ref().unwrap();
    let stub = "[elided: read_file \"/p/a.c\"@unknown; re-read to view]";
    assert_eq!(stub.len(), 53);
    assert_eq!(
        (e.reason, e.by.as_str(), e.tokens_saved),
        ("superseded_read", "t2", 1000 - 14)
    );
}

#[test]
fn claude_code_sidechains_summaries_and_compaction() {
    let mut side1 = cc_user("s1", Some("a1"), json!("sub task"));
    side1["isSidechain"] = json!(true);
    let mut side2 = cc_asst("s2", Some("s1"), "ms", text("sub answer"));
    side2["isSidechain"] = json!(true);
    let mut compact = cc_user("u9", Some("a2"), json!("summary of it all"));
    compact["isCompactSummary"] = json!(true);
    let lines = [
        json!({"type":"summary","summary":"title","leafUuid":"zz"}),
        cc_user("u1", None, json!("start")),
        cc_asst("a1", Some("u1"), "m1", text("hi")),
        side1,
        side2,
        cc_user("u2", Some("a1"), json!("more")),
        cc_asst("a2", Some("u2"), "m2", text("ok")),
        compact,
        cc_asst("a3", Some("u9"), "m3", text("after")),
    ];
    let r = analyze(&jsonl(&lines));
    assert_eq!(r.len(), 2);
    let (main, mm) = &r[0];
    let (side, sm) = &r[1];
    assert_eq!(
        (main.source.session.as_str(), main.source.sidechain),
        ("S", false)
    );
    assert_eq!(
        (side.source.session.as_str(), side.source.sidechain),
        ("S/sidechain-1", true)
    );
    assert_eq!(
        (main.source.compactions, main.source.compacted_messages),
        (1, 4)
    );
    assert_eq!(mm.messages, 2);
    assert!(mm.compacted);
    assert_eq!(
        (mm.segments[0].kind, mm.segments[0].reason),
        ("checkpoint", "compaction_checkpoint")
    );
    assert_eq!(sm.messages, 2);
    assert_eq!(main.source.problems, Vec::<Problem>::new());
    assert_eq!(main.source.lines, 9);
}

#[test]
fn claude_code_orphans_merged_lines_and_read_ranges() {
    let a = "a".repeat(3000);
    let b = "b".repeat(3000);
    let lines = [
        cc_user("u1", None, json!("go")),
        cc_asst(
            "a1",
            Some("u1"),
            "m1",
            json!([{"type":"thinking","thinking":"hmm","signature":"sig"}]),
        ),
        cc_call(
            "a1b",
            "a1",
            "m1",
            tool_use(
                "t1",
                "Read",
                json!({"file_path":"/p/x","offset":1,"limit":10}),
            ),
        ),
        cc_user("u2", Some("a1b"), tool_result("t1", &a)),
        cc_call(
            "a2",
            "u2",
            "m2",
            tool_use(
                "t2",
                "Read",
                json!({"file_path":"/p/x","offset":20,"limit":10}),
            ),
        ),
        cc_user("u3", Some("a2"), tool_result("t2", &b)),
        cc_call(
            "a3",
            "u3",
            "m3",
            tool_use("t3", "Bash", json!({"command":"ls"})),
        ),
        cc_asst("a4", Some("a3"), "m4", text("x")),
        cc_asst("a5", Some("a4"), "m5", text("y")),
    ];
    let r = analyze(&jsonl(&lines));
    let (s, m) = &r[0];
    assert_eq!(s.source.orphan_calls, 1);
    assert!(
        m.segments
            .iter()
            .all(|x| !(x.kind == "tool_result" && x.call_id.as_deref() == Some("t3")))
    );
    assert_eq!(s.history.iter().filter(|x| x.is_assistant()).count(), 5);
    let Message::Assistant { parts, calls } = &s.history[1] else {
        panic!()
    };
    assert_eq!((parts.len(), calls.len()), (1, 1));
    assert_eq!(m.totals.elided, 0);
}

#[test]
fn claude_code_polls_and_searches_map_onto_the_rules() {
    let out = "src/a.rs\nsrc/b.rs\n".repeat(20);
    let running = format!(
        "<status>running</status>\n<timestamp>{}</timestamp>",
        "2025-01-01T00:00:00Z ".repeat(4)
    );
    let mut r1 = cc_user("u2", Some("a1"), tool_result("t1", &running));
    r1["toolUseResult"] = json!({"stdout":"","stderr":""});
    let mut r3 = cc_user("u4", Some("a3"), tool_result("t3", &out));
    r3["toolUseResult"] = json!({"filenames":["src/a.rs","src/b.rs"]});
    let lines = [
        cc_user("u1", None, json!("go")),
        cc_call(
            "a1",
            "u1",
            "m1",
            tool_use("t1", "BashOutput", json!({"bash_id":"b1"})),
        ),
        r1,
        cc_call(
            "a2",
            "u2",
            "m2",
            tool_use("t2", "BashOutput", json!({"bash_id":"b1"})),
        ),
        cc_user("u3", Some("a2"), tool_result("t2", "more")),
        cc_call(
            "a3",
            "u3",
            "m3",
            tool_use("t3", "Grep", json!({"pattern":"TODO"})),
        ),
        r3,
        cc_call(
            "a4",
            "u4",
            "m4",
            tool_use("t4", "Grep", json!({"pattern":"TODO"})),
        ),
        cc_user("u5", Some("a4"), tool_result("t4", &out)),
        cc_asst("a5", Some("u5"), "m5", text("x")),
        cc_asst("a6", Some("a5"), "m6", text("y")),
    ];
    let r = analyze(&jsonl(&lines));
    let (_, m) = &r[0];
    let e1 = seg(m, "t1").elided.as_ref().unwrap();
    assert_eq!((e1.reason, e1.by.as_str()), ("stale_bg_output", "t2"));
    let e3 = seg(m, "t3").elided.as_ref().unwrap();
    assert_eq!((e3.reason, e3.by.as_str()), ("duplicate_search", "t4"));
    assert!(seg(m, "t2").elided.is_none());
}

// ---- Codex ----

fn cx(ty: &str, payload: Value) -> Value {
    json!({"timestamp":"t","type":ty,"payload":payload})
}
fn fc(id: &str, name: &str, args: Value) -> Value {
    let args = args
        .as_str()
        .map_or_else(|| args.to_string(), str::to_owned);
    cx(
        "response_item",
        json!({"type":"function_call","name":name,"arguments":args,"call_id":id}),
    )
}
fn fco(id: &str, output: &str) -> Value {
    cx(
        "response_item",
        json!({"type":"function_call_output","call_id":id,"output":output}),
    )
}
fn cx_user(t: &str) -> Value {
    cx(
        "response_item",
        json!({"type":"message","role":"user","content":[{"type":"input_text","text":t}]}),
    )
}
fn cx_say(t: &str) -> Value {
    cx(
        "response_item",
        json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":t}]}),
    )
}
fn exec_out(code: i64, chunk: &str, wall: &str, body: &str) -> String {
    format!(
        "Chunk ID: {chunk}\nWall time: {wall} seconds\nProcess exited with code {code}\nOriginal token count: 9\nOutput:\n{body}"
    )
}

fn codex_head() -> Vec<Value> {
    vec![
        cx(
            "session_meta",
            json!({"id":"CX","cwd":"/r","base_instructions":{"text":"be good"}}),
        ),
        cx("turn_context", json!({"cwd":"/r"})),
        cx_user("go"),
    ]
}

#[test]
fn codex_polls_are_cursor_polls() {
    let mut l = codex_head();
    l.push(fc("c1", "write_stdin", json!({"session_id":7,"chars":""})));
    l.push(fco("c1", &exec_out(0, "a", "0.1", "")));
    l.push(cx_user("next"));
    l.push(fc("c2", "write_stdin", json!({"session_id":7})));
    l.push(fco("c2", &exec_out(0, "b", "0.2", "done")));
    l.push(cx_user("next"));
    l.push(fc(
        "c3",
        "write_stdin",
        json!({"session_id":7,"chars":"y\n"}),
    ));
    l.push(fco("c3", &exec_out(0, "c", "0.2", "")));
    l.push(cx_user("next"));
    l.push(fc("c4", "write_stdin", json!({"session_id":7})));
    l.push(fco("c4", &exec_out(0, "d", "0.2", "")));
    l.push(cx_say("a"));
    l.push(cx_user("u"));
    l.push(cx_say("b"));
    let r = analyze(&jsonl(&l));
    let (s, m) = &r[0];
    assert_eq!(s.source.session, "CX");
    assert_eq!(m.segments[0].kind, "system");
    let e = seg(m, "c1").elided.as_ref().unwrap();
    assert_eq!((e.reason, e.by.as_str()), ("stale_bg_output", "c2"));
    assert!(seg(m, "c3").elided.is_none());
}

#[test]
fn codex_patch_supersedes_reads_and_duplicate_shell_searches_collapse() {
    let file = "fn main() {}\n".repeat(100);
    let hits = "src/a.rs:1:foo\n".repeat(30);
    let mut l = codex_head();
    l.push(fc(
        "c1",
        "exec_command",
        json!({"cmd":"cat src/a.rs","workdir":"/r"}),
    ));
    l.push(fco("c1", &exec_out(0, "a", "0.1", &file)));
    l.push(cx("response_item", json!({"type":"custom_tool_call","name":"apply_patch","call_id":"c2","input":"*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** End Patch"})));
    l.push(cx("response_item", json!({"type":"custom_tool_call_output","call_id":"c2","output":"Success. Updated the following files:\nM src/a.rs\n"})));
    l.push(fc("c3", "exec_command", json!({"cmd":"rg -n foo"})));
    l.push(fco("c3", &exec_out(0, "x1", "0.01", &hits)));
    l.push(fc("c4", "exec_command", json!({"cmd":"rg -n foo"})));
    l.push(fco("c4", &exec_out(0, "x2", "0.09", &hits)));
    for t in ["a", "b"] {
        l.push(cx_say(t));
        l.push(cx_user("u"));
    }
    let r = analyze(&jsonl(&l));
    let (_, m) = &r[0];
    let e = seg(m, "c1").elided.as_ref().unwrap();
    assert_eq!((e.reason, e.by.as_str()), ("superseded_read", "c2"));
    let e = seg(m, "c3").elided.as_ref().unwrap();
    assert_eq!((e.reason, e.by.as_str()), ("duplicate_search", "c4"));
}

#[test]
fn codex_redacted_arguments_are_unclassified_and_tokens_use_len() {
    let mut l = codex_head();
    for id in ["c1", "c2"] {
        l.push(fc(
            id,
            "exec_command",
            json!("[REDACTED_ARGUMENTS len=456 sha=df6be51a]"),
        ));
        l.push(fco(id, "[REDACTED_OUTPUT len=4000 sha=0123abcd]"));
        l.push(cx_say("x"));
        l.push(cx_user("u"));
    }
    l[2] = cx_user("[REDACTED_TEXT len=13131 sha=036b7e47]");
    l.push(fc(
        "c3",
        "exec_command",
        json!({"cmd":"[REDACTED_TEXT len=12 sha=aaaaaaaa]"}),
    ));
    l.push(fco("c3", "[REDACTED_OUTPUT len=4000 sha=0123abcd]"));
    let r = analyze(&jsonl(&l));
    let (s, m) = &r[0];
    assert_eq!(m.totals.elided, 0);
    assert_eq!(seg(m, "c3").as_tool, None);
    // The token inside the arguments string is not a record value: 6, not 7.
    assert_eq!(s.source.redacted_values, 6);
    assert_eq!(s.source.unclassified_repeats, 1);
    assert_eq!(seg(m, "c1").tokens, 1000);
    let user = m.segments.iter().find(|x| x.kind == "user").unwrap();
    assert_eq!(user.tokens, 3283);
}

#[test]
fn codex_compaction_replaces_the_history() {
    let mut l = codex_head();
    l.push(cx_say("x"));
    l.push(cx("compacted", json!({"message":"summary","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"kept"}]}]})));
    l.push(cx_say("y"));
    let r = analyze(&jsonl(&l));
    let (s, m) = &r[0];
    assert_eq!((s.source.compactions, s.source.compacted_messages), (1, 2));
    let kinds: Vec<&str> = m.segments.iter().map(|x| x.kind).collect();
    assert_eq!(kinds, vec!["system", "checkpoint", "user", "assistant"]);
}

// ---- mini-swe-agent ----

fn traj(steps: &[(&str, &str)]) -> Vec<u8> {
    let mut msgs = vec![
        json!({"role":"system","content":"sys"}),
        json!({"role":"user","content":"task"}),
    ];
    for (i, (cmd, out)) in steps.iter().enumerate() {
        let id = format!("c{}", i + 1);
        msgs.push(json!({"role":"assistant","content":"step","tool_calls":[{"id":id,"type":"function","function":{"name":"bash","arguments":json!({"command":cmd}).to_string()}}]}));
        msgs.push(json!({"role":"tool","tool_call_id":id,"content":format!("<returncode>0</returncode>\n<output>\n{out}</output>")}));
    }
    msgs.push(json!({"role":"assistant","content":"a"}));
    msgs.push(json!({"role":"assistant","content":"b"}));
    msgs.push(json!({"role":"exit","content":"diff"}));
    json!({"trajectory_format":"mini-swe-agent-1.1","instance_id":"inst-1","info":{},"messages":msgs}).to_string().into_bytes()
}

#[test]
fn mini_swe_agent_shell_reads_edits_and_searches() {
    let code = "def f():\n    return 1\n".repeat(60);
    let hits = "./x.py:1:foo\n".repeat(40);
    let r = analyze(&traj(&[
        ("cd /testbed && cat x.py", &code),
        ("sed -i 's/a/b/' /testbed/x.py", ""),
        ("grep -rn foo .", &hits),
        ("grep -rn foo .", &hits),
        ("cd /a && cat x", &code),
        ("cd /b && cat x", &format!("{code}#")),
    ]));
    let (s, m) = &r[0];
    assert_eq!(s.source.session, "inst-1");
    let e = seg(m, "c1").elided.as_ref().unwrap();
    assert_eq!((e.reason, e.by.as_str()), ("superseded_read", "c2"));
    assert_eq!(seg(m, "c1").origin, "x.py");
    let e = seg(m, "c3").elided.as_ref().unwrap();
    assert_eq!((e.reason, e.by.as_str()), ("duplicate_search", "c4"));
    assert!(seg(m, "c5").elided.is_none());
    assert_eq!(m.totals.elided, 2);
    assert_eq!(
        (m.segments[0].kind, m.segments[0].origin.as_str()),
        ("system", "system")
    );
}

#[test]
fn mini_swe_agent_errors_are_flagged() {
    let mut v: Value = serde_json::from_slice(&traj(&[("cat a", "x")])).unwrap();
    v["messages"][3]["content"] = json!("The command timed out");
    let r = analyze(v.to_string().as_bytes());
    let (_, m) = &r[0];
    assert_eq!(
        (seg(m, "c1").criticality.as_str(), seg(m, "c1").reason),
        ("high", "error_result")
    );
}

// ---- detection and hostile input ----

#[test]
fn detection_picks_the_majority_format_and_rejects_the_rest() {
    assert_eq!(detect(&jsonl(&codex_head())), Some(Format::Codex));
    assert_eq!(
        detect(&jsonl(&[cc_user("u", None, json!("x"))])),
        Some(Format::ClaudeCode)
    );
    assert_eq!(detect(&traj(&[])), Some(Format::MiniSweAgent));
    assert_eq!(
        detect(br#"{"schemaVersion":1,"session":{"id":"s"},"messages":[]}"#),
        Some(Format::Alisio)
    );
    assert_eq!(detect(br#"{"trajectory":[],"info":{}}"#), None);
    assert_eq!(detect(b""), None);
    assert_eq!(detect(b"not json\nnor this\n{}"), None);
    assert_eq!(detect(b"\xEF\xBB\xBF{\"type\":\"user\",\"uuid\":\"u\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}"), Some(Format::ClaudeCode));
    assert_eq!(read(b"", None, "f").err(), Some(Unsupported));
    assert_eq!(Unsupported.to_string(), "unsupported transcript format");
}

#[test]
fn hostile_lines_become_located_problems() {
    let mut bytes = jsonl(&[
        cc_user("u1", None, json!("go")),
        json!({"type":"mystery","uuid":"q"}),
        cc_asst("a1", Some("u1"), "m1", text("ok")),
    ]);
    bytes.extend_from_slice(b"\n{\"type\":\"user\",\"uuid\":\"cut");
    bytes.extend_from_slice(b"\n\xff\xfe{\"type\":\"user\"}\n");
    bytes.extend_from_slice(b"[1,2]\n");
    let r = analyze(&bytes);
    let (s, m) = &r[0];
    assert_eq!(s.source.skipped_lines, 3);
    let lines: Vec<(Option<usize>, &str)> = s
        .source
        .problems
        .iter()
        .map(|p| (p.line, p.message.as_str()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (Some(2), "unknown record type"),
            (Some(4), "malformed JSON line"),
            (Some(5), "malformed JSON line"),
            (Some(6), "malformed JSON line")
        ]
    );
    assert_eq!(m.messages, 2);
}

#[test]
fn a_huge_tool_result_is_measured_without_trouble() {
    let big = "z".repeat(4 * 1024 * 1024);
    let lines = [
        cc_user("u1", None, json!("go")),
        cc_call(
            "a1",
            "u1",
            "m1",
            tool_use("t1", "Read", json!({"file_path":"/p/big"})),
        ),
        cc_user("u2", Some("a1"), tool_result("t1", &big)),
        cc_call(
            "a2",
            "u2",
            "m2",
            tool_use("t2", "Write", json!({"file_path":"/p/big","content":"x"})),
        ),
        cc_user("u3", Some("a2"), tool_result("t2", "ok")),
        cc_asst("a3", Some("u3"), "m3", text("x")),
        cc_asst("a4", Some("a3"), "m4", text("y")),
    ];
    let r = analyze(&jsonl(&lines));
    let (_, m) = &r[0];
    assert_eq!(seg(m, "t1").tokens, 1024 * 1024);
    assert_eq!(
        seg(m, "t1").elided.as_ref().unwrap().tokens_saved,
        1024 * 1024 - 14
    );
}

#[test]
fn broken_whole_json_formats_are_unsupported_not_panics() {
    assert_eq!(
        read(b"{\"messages\": [", Some(Format::MiniSweAgent), "f").err(),
        Some(Unsupported)
    );
    assert_eq!(
        read(b"\xff", Some(Format::Alisio), "f").err(),
        Some(Unsupported)
    );
    let (_, s) = read(br#"{"trajectory_format":"mini-swe-agent-1","messages":[{"role":"wizard"},7,{"role":"tool"}]}"#, None, "f").unwrap();
    assert_eq!(s[0].source.problems.len(), 2);
    assert_eq!(s[0].source.orphan_results, 1);
}

#[test]
fn our_own_export_keeps_active_rows_in_pos_order() {
    let v = json!({"schemaVersion":1,"session":{"id":"s-1","options":{"contextInvariants":{"version":1,"instructions":["q1"]},"goal":{"objective":"ship","status":"active"}}},
    "messages":[
        {"seq":1,"pos":1,"role":"user","kind":"message","compacted":true,"message":{"role":"user","content":[{"type":"text","text":"old"}]}},
        {"seq":3,"pos":1,"role":"user","kind":"checkpoint","compacted":false,"message":{"role":"user","content":[{"type":"text","text":"sum"}],"checkpoint":{}}},
        {"seq":2,"pos":2,"role":"assistant","kind":"message","compacted":false,"message":{"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"read_file","arguments":"{\"path\":\"a\"}"}]}},
        {"seq":4,"pos":4,"role":"tool","kind":"message","compacted":false,"message":{"role":"tool","callId":"c1","name":"read_file","isError":false,"content":[{"type":"text","text":"{}"}]}}
    ]});
    let (f, s) = read(v.to_string().as_bytes(), None, "x").unwrap();
    assert_eq!(f, Format::Alisio);
    let s = &s[0];
    assert_eq!(
        (
            s.source.session.as_str(),
            s.source.compactions,
            s.source.compacted_messages
        ),
        ("s-1", 1, 1)
    );
    assert_eq!(s.history.len(), 3);
    assert!(matches!(
        s.history[0],
        Message::User {
            kind: crate::model::UserKind::Checkpoint,
            ..
        }
    ));
    assert_eq!(s.sources.quotes, vec!["q1".to_owned()]);
    assert_eq!(
        s.sources.goal.as_ref().map(|g| g.objective.as_str()),
        Some("ship")
    );
    assert!(s.recorded.is_empty(), "no stored usage");
}

/// An export's assistant messages carry the usage the provider reported (spec/governor.md §11.11):
/// `input` the whole prompt, so the uncached part is what the cache read and write leave; an
/// estimated usage is none; a compacted answer's usage goes with it. The cache is reported when
/// some request read from it or wrote to it, and then a request that read under half of the
/// previous prompt was cold.
#[test]
fn our_own_export_records_each_answers_reported_usage() {
    let row = |seq: i64, role: &str, compacted: bool, message: Value| json!({"seq":seq,"pos":seq,"role":role,"kind":"message","compacted":compacted,"message":message});
    let answer = |text: &str, usage: Value| json!({"role":"assistant","content":[{"type":"text","text":text}],"usage":usage});
    let user = |text: &str| json!({"role":"user","content":[{"type":"text","text":text}]});
    let usage = |input: u64, read: u64, write: u64, estimated: bool| json!({"input":input,"output":7,"cacheRead":read,"cacheWrite":write,"estimated":estimated});
    let v = json!({"schemaVersion":1,"session":{"id":"s-2"},"messages":[
        row(1, "user", true, user("old")),
        row(2, "assistant", true, answer("old", usage(900, 0, 900, false))),
        row(3, "user", false, user("a")),
        row(4, "assistant", false, answer("a", usage(1000, 0, 1000, false))),
        row(5, "user", false, user("b")),
        row(6, "assistant", false, answer("b", usage(1100, 1000, 100, false))),
        row(7, "user", false, user("c")),
        row(8, "assistant", false, answer("c", usage(1300, 0, 1300, false))),
        row(9, "user", false, user("d")),
        row(10, "assistant", false, answer("d", usage(1400, 0, 0, true))),
    ]});
    let (_, s) = read(v.to_string().as_bytes(), None, "x").unwrap();
    let r = &s[0].recorded;
    let got: Vec<(usize, u64, u64, u64, bool)> = r
        .iter()
        .map(|x| {
            (
                x.message,
                x.usage.input,
                x.usage.cache_read,
                x.usage.cache_write,
                x.cache_reported,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, 0, 0, 1000, true),
            (3, 0, 1000, 100, true),
            (5, 0, 0, 1300, true)
        ]
    );
    assert_eq!(crate::recorded::cold_answers(r), vec![5]);
    // Without any cache read or write the usage says nothing of the cache: no cold request.
    let plain = json!({"schemaVersion":1,"session":{"id":"s-3"},"messages":[
        row(1, "user", false, user("a")),
        row(2, "assistant", false, answer("a", usage(1000, 0, 0, false))),
        row(3, "user", false, user("b")),
        row(4, "assistant", false, answer("b", usage(1100, 0, 0, false))),
    ]});
    let (_, s) = read(plain.to_string().as_bytes(), None, "x").unwrap();
    assert_eq!(s[0].recorded.len(), 2);
    assert!(s[0].recorded.iter().all(|x| !x.cache_reported));
    assert!(crate::recorded::cold_answers(&s[0].recorded).is_empty());
}

#[test]
fn claude_code_meta_lines_are_injected() {
    let mut meta = cc_user("u0", None, json!("<command-name>/clear</command-name>"));
    meta["isMeta"] = json!(true);
    let lines = [
        meta,
        cc_user("u1", Some("u0"), json!("go")),
        cc_asst("a1", Some("u1"), "m1", text("ok")),
        cc_asst("a2", Some("a1"), "m2", text("ok")),
    ];
    let r = analyze(&jsonl(&lines));
    let (_, m) = &r[0];
    let s0 = &m.segments[0];
    assert_eq!(
        (s0.kind, s0.criticality.as_str(), s0.reason),
        ("injected", "normal", "default")
    );
    assert_eq!(
        (m.segments[1].kind, m.segments[1].reason),
        ("user", "user_message")
    );
}

#[test]
fn codex_message_roles_map_to_segment_kinds() {
    let mut l = codex_head();
    l.push(cx("response_item", json!({"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]})));
    l.push(cx_user("<environment_context>cwd</environment_context>"));
    l.push(cx_user("# AGENTS.md instructions for /r\nbe nice"));
    l.push(cx("response_item", json!({"type":"reasoning","summary":[{"type":"summary_text","text":"abcd"}],"content":null,"encrypted_content":"opaque-bytes"})));
    l.push(cx_say("efgh"));
    l.push(cx_user("more"));
    let r = analyze(&jsonl(&l));
    let (_, m) = &r[0];
    let kinds: Vec<(&str, &str, &str)> = m
        .segments
        .iter()
        .map(|s| (s.kind, s.origin.as_str(), s.reason))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("system", "system", "system_prompt"),
            ("user", "user", "user_message"),
            ("system", "developer", "system_prompt"),
            ("injected", "user", "default"),
            ("instructions", "user", "instruction_file"),
            ("assistant", "assistant", "last_turn"),
            ("user", "user", "last_turn"),
        ]
    );
    // Reasoning summary and assistant text count; encrypted content counts 0: 8 units, 2 tokens.
    assert_eq!(m.segments[5].tokens, 2);
}

#[test]
fn codex_shell_argv_and_running_processes() {
    let file = "x".repeat(400);
    let mut l = codex_head();
    l.push(fc(
        "c1",
        "shell",
        json!({"command":["bash","-lc","cat src/a.rs"],"workdir":"/r"}),
    ));
    l.push(fco(
        "c1",
        &json!({"output": file, "metadata": {"exit_code": 0}}).to_string(),
    ));
    l.push(fc("c2", "exec_command", json!({"cmd":"cat src/a.rs"})));
    l.push(fco(
        "c2",
        &format!(
            "Chunk ID: 1\nWall time: 1 seconds\nProcess running with session ID 9\nOutput:\n{}",
            "y".repeat(400)
        ),
    ));
    l.push(fc(
        "c3",
        "shell",
        json!({"command":["sed","-i","s/a/b/","src/a.rs"]}),
    ));
    l.push(fco(
        "c3",
        &json!({"output": "", "metadata": {"exit_code": 0}}).to_string(),
    ));
    for t in ["a", "b"] {
        l.push(cx_say(t));
        l.push(cx_user("u"));
    }
    let r = analyze(&jsonl(&l));
    let (_, m) = &r[0];
    assert_eq!(seg(m, "c1").as_tool.as_deref(), Some("read_file"));
    assert_eq!(seg(m, "c1").origin, "src/a.rs");
    assert_eq!(
        seg(m, "c1").elided.as_ref().map(|e| e.by.as_str()),
        Some("c3")
    );
    assert_eq!(seg(m, "c2").as_tool, None);
    assert!(seg(m, "c2").elided.is_none());
}

// ---- the recorded usage (spec/governor.md §11.11) ----

fn recorded(bytes: &[u8]) -> Vec<(usize, [u64; 4])> {
    let (_, sessions) = read(bytes, None, "t").expect("readable");
    sessions[0]
        .recorded
        .iter()
        .map(|r| {
            let u = r.usage;
            (r.message, [u.input, u.cache_write, u.cache_read, u.output])
        })
        .collect()
}

fn with_usage(mut line: Value, input: u64, write: u64, read: u64, output: u64) -> Value {
    line["message"]["usage"] = json!({"input_tokens":input,"cache_creation_input_tokens":write,
        "cache_read_input_tokens":read,"output_tokens":output});
    line
}

/// Claude Code: the lines of one response carry its usage (the last line's output count is the
/// response's); a compaction drops the usage of the messages it drops; a line without usage
/// records nothing.
#[test]
fn claude_code_usage_is_recorded_per_response_and_dropped_by_a_compaction() {
    let l = vec![
        cc_user("u1", None, json!("go")),
        with_usage(
            cc_call(
                "a1",
                "u1",
                "m1",
                tool_use("t1", "Read", json!({"file_path":"/p/x"})),
            ),
            4,
            3675,
            10491,
            5,
        ),
        with_usage(
            cc_asst("a2", Some("a1"), "m1", text("and")),
            4,
            3675,
            10491,
            25,
        ),
        cc_user("u2", Some("a2"), tool_result("t1", "body")),
        with_usage(
            cc_asst("a3", Some("u2"), "m2", text("done")),
            6,
            286,
            14166,
            9,
        ),
        cc_user("u3", Some("a3"), json!("more")),
        cc_asst("a4", Some("u3"), "m3", text("no usage")),
    ];
    assert_eq!(
        recorded(&jsonl(&l)),
        vec![(1, [4, 3675, 10491, 25]), (3, [6, 286, 14166, 9])]
    );
    let mut c = l.clone();
    c.push(
        json!({"type":"user","uuid":"s","parentUuid":"a4","sessionId":"S","isSidechain":false,
        "isCompactSummary":true,"message":{"role":"user","content":"summary"}}),
    );
    c.push(with_usage(
        cc_asst("a5", Some("s"), "m4", text("after")),
        3,
        900,
        0,
        2,
    ));
    // H after the compaction: the summary (0), the answer (1).
    assert_eq!(recorded(&jsonl(&c)), vec![(1, [3, 900, 0, 2])]);
}

fn token_count(total: u64, input: u64, cached: u64, output: u64) -> Value {
    cx(
        "event_msg",
        json!({"type":"token_count","info":{"total_token_usage":{"total_tokens":total},
            "last_token_usage":{"input_tokens":input,"cached_input_tokens":cached,"output_tokens":output}}}),
    )
}

/// Codex: a `token_count` with a new total after an assistant message is that request's usage
/// (input less its cached part, no cache write); the repeated total Codex sends after the tool
/// outputs, and an event with no `info`, record nothing.
#[test]
fn codex_token_counts_are_recorded_once_per_answer() {
    let mut l = codex_head();
    l.push(cx("event_msg", json!({"type":"token_count","info":null})));
    l.push(fc("c1", "shell", json!({"command":["ls"]})));
    l.push(token_count(120, 100, 60, 20));
    l.push(fco("c1", "a\nb"));
    l.push(token_count(120, 100, 60, 20));
    l.push(cx_say("done"));
    l.push(token_count(260, 130, 100, 10));
    // H (the base instructions are a request-level part): user (0), the call (1), its output
    // (2), the answer (3).
    assert_eq!(
        recorded(&jsonl(&l)),
        vec![(1, [40, 0, 60, 20]), (3, [30, 0, 100, 10])]
    );
}

/// mini-swe-agent: an assistant message's `extra.response.usage` (a chat completion's: the
/// prompt includes its cached part; DeepSeek's `prompt_cache_hit_tokens` when the details lack
/// it); a message without one records nothing.
#[test]
fn mini_swe_agent_completion_usage_is_recorded() {
    let v = json!({"trajectory_format":"mini-swe-agent-1.1","instance_id":"i","info":{},"messages":[
        {"role":"system","content":"sys"},
        {"role":"user","content":"task"},
        {"role":"assistant","content":"a","extra":{"response":{"usage":{"prompt_tokens":1835,
            "completion_tokens":97,"prompt_tokens_details":{"cached_tokens":320},
            "prompt_cache_hit_tokens":320,"prompt_cache_miss_tokens":1515}}}},
        {"role":"user","content":"next"},
        {"role":"assistant","content":"b","extra":{"response":{"usage":{"prompt_tokens":2000,
            "completion_tokens":5,"prompt_cache_hit_tokens":1800}}}},
        {"role":"user","content":"again"},
        {"role":"assistant","content":"c"}
    ]});
    assert_eq!(
        recorded(v.to_string().as_bytes()),
        vec![(2, [1515, 0, 320, 97]), (4, [200, 0, 1800, 5])]
    );
}
