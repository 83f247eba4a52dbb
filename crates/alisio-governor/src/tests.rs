//! Conformance cases of spec/governor.md §12 that the pure module covers, with exact values.

use super::model::{Call, Message, Part};
use super::policy2::GateStart;
use super::report::{ContextReport, Measured, Segment};
use super::testkit::{request, turn};
use super::*;

fn sha(prefix: &str) -> String {
    format!("{prefix:0<64}")
}

/// A result text of exactly `len` characters: a JSON object with the given fields and padding.
fn padded(fields: serde_json::Value, len: usize) -> String {
    let mut m = fields.as_object().cloned().unwrap();
    m.insert("content".into(), serde_json::Value::String(String::new()));
    let base = serde_json::to_string(&m).unwrap().len();
    m.insert(
        "content".into(),
        serde_json::Value::String("x".repeat(len - base)),
    );
    let s = serde_json::to_string(&m).unwrap();
    assert_eq!(s.len(), len);
    s
}

fn a(calls: Vec<Call>) -> Message {
    Message::assistant("", calls)
}
fn a0() -> Message {
    a(vec![])
}
fn u() -> Message {
    Message::user("do it")
}
fn call(id: &str, name: &str, args: serde_json::Value) -> Call {
    Call::new(id, name, args.to_string())
}
fn read(id: &str, path: &str) -> Call {
    call(id, "read_file", serde_json::json!({"path": path}))
}
fn edit(id: &str, path: &str) -> Call {
    call(id, "edit_file", serde_json::json!({"path": path}))
}
fn write(id: &str, path: &str) -> Call {
    call(id, "write_file", serde_json::json!({"path": path}))
}
fn t_read(id: &str, sha_prefix: Option<&str>) -> Message {
    let s = sha_prefix.map_or(serde_json::Value::Null, |p| {
        serde_json::Value::String(sha(p))
    });
    Message::tool(id, padded(serde_json::json!({"sha256": s}), 4000), false)
}
fn t_read_small(id: &str, sha_prefix: &str) -> Message {
    Message::tool(
        id,
        padded(serde_json::json!({"sha256": sha(sha_prefix)}), 600),
        false,
    )
}
fn t_ok(id: &str) -> Message {
    Message::tool(id, r#"{"ok":true}"#, false)
}
fn t_err(id: &str) -> Message {
    Message::tool(id, "error: nope", true)
}

fn settings(min_age: u32, epoch: u32) -> GovSettings {
    GovSettings {
        mode: GovernorMode::Shadow,
        min_age_turns: min_age,
        epoch_messages: epoch,
        policy_version: 1,
        max_chars: 4000,
        policy2: crate::policy2::Policy2::default(),
    }
}

fn run_with(s: &GovSettings, h: &[Message]) -> (Measured, Vec<String>) {
    let parts = RequestParts::default();
    let src = Sources::default();
    let g = govern(s, request("s1", h, &parts, &src, Some(1), Ledger::None));
    match g.report {
        ContextReport::Measured(m) => (*m, g.elided),
        ContextReport::Off(_) => panic!("off"),
    }
}

fn run(h: &[Message]) -> Measured {
    run_with(&settings(2, 0), h).0
}

fn seg<'r>(m: &'r Measured, call_id: &str) -> &'r Segment {
    m.segments
        .iter()
        .find(|s| s.kind == "tool_result" && s.call_id.as_deref() == Some(call_id))
        .unwrap()
}

fn elided_by(m: &Measured, id: &str) -> Option<(&'static str, String, u64)> {
    seg(m, id)
        .elided
        .as_ref()
        .map(|e| (e.reason, e.by.clone(), e.tokens_saved))
}

fn case3() -> Vec<Message> {
    vec![
        u(),
        a(vec![read("c1", "a.ts")]),
        t_read("c1", Some("1a2b3c4d")),
        a(vec![edit("c2", "a.ts")]),
        t_ok("c2"),
        a(vec![read("c3", "b.ts")]),
        t_read("c3", None),
        a0(),
    ]
}

#[test]
fn off_is_inert_and_reports_only_off() {
    let h = case3();
    let s = GovSettings {
        mode: GovernorMode::Off,
        ..settings(2, 0)
    };
    let parts = RequestParts::default();
    let src = Sources::default();
    let mut sg = SessionGovernor::new();
    let turn = turn("s1", &h, &parts, &src, 1, false);
    let sent = sg.request(&s, turn);
    assert!(matches!(sent.messages(&h), std::borrow::Cow::Borrowed(_)));
    assert!(sent.event.is_none() && sent.invariants.is_none());
    assert_eq!(
        sg.report(&s, turn, None).to_json().to_string(),
        r#"{"mode":"off","measured":false,"sessionId":"s1"}"#
    );
}

#[test]
fn shadow_sends_the_history_and_reports_the_would_be_elision() {
    let h = case3();
    let parts = RequestParts::default();
    let src = Sources::default();
    let mut sg = SessionGovernor::new();
    let turn = turn("s1", &h, &parts, &src, 1, false);
    let sent = sg.request(&settings(2, 0), turn);
    assert_eq!(
        serde_json::to_string(&*sent.messages(&h)).unwrap(),
        serde_json::to_string(&h).unwrap()
    );
    assert!(sent.invariants.is_none());
    assert_eq!(sent.event.unwrap().elided, 1);
    let ContextReport::Measured(m) = sg.report(&settings(2, 0), turn, Some(2)) else {
        panic!()
    };
    assert!(seg(&m, "c1").elided.is_some());
}

#[test]
fn edit_supersedes_an_earlier_read() {
    let m = run(&case3());
    let s = seg(&m, "c1");
    assert_eq!(s.tokens, 1000);
    assert_eq!(
        elided_by(&m, "c1"),
        Some(("superseded_read", "c2".into(), 987))
    );
    assert_eq!((s.criticality.as_str(), s.reason), ("low", "elided"));
    let stub = "[elided: read_file \"a.ts\"@1a2b3c4d; re-read to view]";
    assert_eq!(stub.len(), 52);
    let on = GovSettings {
        mode: GovernorMode::On,
        ..settings(2, 0)
    };
    let parts = RequestParts::default();
    let src = Sources::default();
    let h = case3();
    let g = govern(&on, request("s1", &h, &parts, &src, None, Ledger::None));
    assert_eq!(g.messages[2], Message::tool("c1", stub, false));
    assert_eq!(m.totals.tokens_saved, 987);
    assert_eq!(m.totals.tokens_after, m.totals.tokens_before - 987);
    assert_eq!(m.totals.by_reason.superseded_read, 1);
}

#[test]
fn a_read_with_a_different_sha_supersedes_and_the_latest_read_stays() {
    let h = vec![
        u(),
        a(vec![read("c1", "a.ts")]),
        t_read("c1", Some("aaaa")),
        a(vec![read("c2", "a.ts")]),
        t_read("c2", Some("bbbb")),
        a0(),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert_eq!(
        elided_by(&m, "c1"),
        Some(("superseded_read", "c2".into(), 987))
    );
    assert_eq!(elided_by(&m, "c2"), None);
    assert_eq!(seg(&m, "c2").reason, "default");
}

#[test]
fn same_sha_never_justifies() {
    let h = vec![
        u(),
        a(vec![read("c1", "a.ts")]),
        t_read("c1", Some("aaaa")),
        a(vec![read("c2", "a.ts")]),
        t_read("c2", Some("aaaa")),
        a0(),
        a0(),
    ];
    assert_eq!(run(&h).totals.elided, 0);
}

#[test]
fn paths_spelled_two_ways_do_not_match() {
    let h = vec![
        u(),
        a(vec![read("c1", "./a.ts")]),
        t_read("c1", Some("aaaa")),
        a(vec![edit("c2", "a.ts")]),
        t_ok("c2"),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert_eq!(m.totals.elided, 0);
    assert_eq!(seg(&m, "c1").reason, "default");
}

#[test]
fn a_read_without_sha_is_elided_only_by_a_write() {
    let h = vec![
        u(),
        a(vec![read("c1", "big.log")]),
        t_read("c1", None),
        a(vec![read("c2", "big.log")]),
        t_read("c2", Some("ffff")),
        a0(),
        a0(),
    ];
    assert_eq!(run(&h).totals.elided, 0);
    let h = vec![
        u(),
        a(vec![read("c1", "big.log")]),
        t_read("c1", None),
        a(vec![write("c2", "big.log")]),
        t_ok("c2"),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert_eq!(elided_by(&m, "c1").unwrap().1, "c2");
    let on = GovSettings {
        mode: GovernorMode::On,
        ..settings(2, 0)
    };
    let parts = RequestParts::default();
    let src = Sources::default();
    let g = govern(&on, request("s", &h, &parts, &src, None, Ledger::None));
    assert_eq!(
        g.messages[2],
        Message::tool(
            "c1",
            "[elided: read_file \"big.log\"@unknown; re-read to view]",
            false
        )
    );
}

#[test]
fn a_later_read_without_sha_does_not_justify() {
    let h = vec![
        u(),
        a(vec![read("c1", "a")]),
        t_read("c1", Some("aaaa")),
        a(vec![read("c2", "a")]),
        t_read("c2", None),
        a0(),
        a0(),
    ];
    assert_eq!(run(&h).totals.elided, 0);
}

#[test]
fn errors_stay_and_never_justify() {
    let h = vec![
        u(),
        a(vec![read("c1", "a")]),
        t_err("c1"),
        a(vec![edit("c2", "a")]),
        t_ok("c2"),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert_eq!(
        (seg(&m, "c1").criticality.as_str(), seg(&m, "c1").reason),
        ("high", "error_result")
    );
    let h = vec![
        u(),
        a(vec![read("c1", "a")]),
        t_read("c1", Some("aaaa")),
        a(vec![read("c2", "a")]),
        t_err("c2"),
        a(vec![edit("c3", "a")]),
        t_err("c3"),
        a0(),
        a0(),
    ];
    assert_eq!(run(&h).totals.elided, 0);
}

#[test]
fn min_age_turns_holds_results_back() {
    let h = vec![
        u(),
        a(vec![read("c1", "a.ts")]),
        t_read("c1", Some("aaaa")),
        a(vec![read("c2", "a.ts")]),
        t_read("c2", Some("bbbb")),
        a0(),
    ];
    // c1's age is 2 (two assistant messages after it).
    assert_eq!(
        elided_by(&run_with(&settings(2, 0), &h).0, "c1").unwrap().1,
        "c2"
    );
    let (m, _) = run_with(&settings(3, 0), &h);
    assert_eq!(
        (seg(&m, "c1").criticality.as_str(), seg(&m, "c1").reason),
        ("low", "redundant_min_age")
    );
    assert!(seg(&m, "c1").elided.is_none());
}

#[test]
fn last_turn_is_never_elided() {
    let mut h = vec![
        u(),
        a(vec![read("c1", "a"), read("c2", "a")]),
        t_read("c1", Some("aaaa")),
        t_read("c2", Some("bbbb")),
    ];
    let (m, _) = run_with(&settings(1, 0), &h);
    assert_eq!(m.totals.elided, 0);
    assert_eq!(
        (seg(&m, "c1").criticality.as_str(), seg(&m, "c1").reason),
        ("high", "last_turn")
    );
    h.push(a0());
    let (m, _) = run_with(&settings(1, 0), &h);
    assert_eq!(elided_by(&m, "c1").unwrap().1, "c2");
}

#[test]
fn epoch_boundary_holds_back_then_elides() {
    let mut h = vec![
        u(),
        a(vec![read("c1", "a")]),
        t_read("c1", Some("aaaa")),
        a(vec![write("c2", "a")]),
        t_ok("c2"),
        a(vec![read("c3", "b")]),
        t_read("c3", Some("cccc")),
    ];
    let (m, _) = run_with(&settings(1, 4), &h);
    assert_eq!(
        (m.messages, m.eligible_messages, m.totals.elided),
        (7, 4, 0)
    );
    assert_eq!(
        (seg(&m, "c1").criticality.as_str(), seg(&m, "c1").reason),
        ("low", "redundant_epoch")
    );
    h.push(a0());
    let (m, _) = run_with(&settings(1, 4), &h);
    assert_eq!((m.messages, m.eligible_messages), (8, 8));
    assert_eq!(elided_by(&m, "c1").unwrap().1, "c2");
}

fn project_on(s: &GovSettings, h: &[Message]) -> Vec<Message> {
    let parts = RequestParts::default();
    let src = Sources::default();
    govern(s, request("s", h, &parts, &src, None, Ledger::None))
        .messages
        .into_owned()
}

#[test]
fn requests_between_epoch_boundaries_only_append() {
    let on = GovSettings {
        mode: GovernorMode::On,
        ..settings(1, 4)
    };
    let mut h = vec![u()];
    for k in 0..6 {
        let id = format!("r{k}");
        let sh = format!("{k:x}");
        h.push(a(vec![read(&id, "a")]));
        h.push(t_read(&id, Some(&sh)));
    }
    // n = 13 here; build n = 8..=12 as prefixes.
    let p8 = project_on(&on, &h[..8]);
    for n in 9..=11 {
        let p = project_on(&on, &h[..n]);
        assert_eq!(
            serde_json::to_string(&p[..8]).unwrap(),
            serde_json::to_string(&p8).unwrap(),
            "n = {n}"
        );
        assert_eq!(&p[8..], &h[8..n]);
    }
    let p12 = project_on(&on, &h[..12]);
    let newly: Vec<usize> = (0..12).filter(|i| p12[*i] != h[*i]).collect();
    let before: Vec<usize> = (0..8).filter(|i| p8[*i] != h[*i]).collect();
    assert_eq!(before, vec![2, 4]);
    assert_eq!(newly, vec![2, 4, 6, 8]);
}

#[test]
fn short_histories_have_no_eligible_prefix() {
    let mut h = vec![u()];
    for k in 0..15 {
        let id = format!("r{k}");
        h.push(a(vec![read(&id, "a")]));
        h.push(t_read(&id, Some(&format!("{k:x}"))));
    }
    assert_eq!(h.len(), 31);
    let (m, _) = run_with(&settings(2, 32), &h);
    assert_eq!((m.eligible_messages, m.totals.elided), (0, 0));
    let (m, _) = run_with(&settings(2, 0), &h);
    assert_eq!(m.eligible_messages, 31);
    assert_eq!(m.totals.elided, 13);
}

fn bg(id: &str, args: serde_json::Value) -> Call {
    call(id, "bg_output", args)
}
fn t_bg(id: &str, text: &str, next: u64) -> Message {
    let body = serde_json::json!({"id":"t1","status":"running","text":text,"next_offset":next,"eof":false});
    Message::tool(id, body.to_string(), false)
}

#[test]
fn bg_output_defaults_count_as_written() {
    let big = "y".repeat(300);
    let h = vec![
        u(),
        a(vec![bg("c1", serde_json::json!({"id":"t1"}))]),
        t_bg("c1", &big, 300),
        a(vec![bg(
            "c2",
            serde_json::json!({"id":"t1","offset":0,"limit":16384}),
        )]),
        t_bg("c2", &big, 300),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert_eq!(
        elided_by(&m, "c1").map(|e| (e.0, e.1)),
        Some(("stale_bg_output", "c2".into()))
    );
    let g = project_on(
        &GovSettings {
            mode: GovernorMode::On,
            ..settings(2, 0)
        },
        &h,
    );
    assert_eq!(
        g[2],
        Message::tool(
            "c1",
            "[elided: bg_output \"t1\" offset 0; a later bg_output covers it]",
            false
        )
    );
}

#[test]
fn continuations_are_never_elided() {
    let big = "y".repeat(300);
    let h = vec![
        u(),
        a(vec![bg("c1", serde_json::json!({"id":"t1"}))]),
        t_bg("c1", &big, 120),
        a(vec![bg("c2", serde_json::json!({"id":"t1","offset":120}))]),
        t_bg("c2", &big, 300),
        a(vec![bg("c3", serde_json::json!({"id":"t1","offset":120}))]),
        t_bg("c3", &big, 300),
        a0(),
        a0(),
    ];
    assert_eq!(run(&h).totals.elided, 0);
}

#[test]
fn an_empty_poll_is_elided_by_any_later_poll() {
    let text = r#"{"id":"t1","status":"running","text":"","next_offset":0,"eof":false}"#;
    assert_eq!(text.len(), 68);
    let h = vec![
        u(),
        a(vec![bg("c1", serde_json::json!({"id":"t1","limit":100}))]),
        Message::tool("c1", text, false),
        a(vec![bg("c2", serde_json::json!({"id":"t1","limit":200}))]),
        t_bg("c2", "", 0),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert_eq!(elided_by(&m, "c1").map(|e| e.1), Some("c2".into()));
    let g = project_on(
        &GovSettings {
            mode: GovernorMode::On,
            ..settings(2, 0)
        },
        &h,
    );
    let Message::Tool(r) = &g[2] else { panic!() };
    assert_eq!(r.parts[0].text.len(), 62);
}

#[test]
fn an_empty_continuation_stays() {
    let h = vec![
        u(),
        a(vec![bg("c1", serde_json::json!({"id":"t1"}))]),
        t_bg("c1", "ab", 2),
        a(vec![bg("c2", serde_json::json!({"id":"t1","offset":2}))]),
        t_bg("c2", "", 2),
        a(vec![bg("c3", serde_json::json!({"id":"t1","offset":2}))]),
        t_bg("c3", "", 2),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert!(seg(&m, "c2").elided.is_none());
}

#[test]
fn polls_of_different_tasks_never_match() {
    let big = "y".repeat(300);
    let h = vec![
        u(),
        a(vec![bg("c1", serde_json::json!({"id":"t1"}))]),
        t_bg("c1", &big, 300),
        a(vec![bg("c2", serde_json::json!({"id":"t2"}))]),
        t_bg("c2", &big, 300),
        a0(),
        a0(),
    ];
    assert_eq!(run(&h).totals.elided, 0);
}

fn search(id: &str, args: serde_json::Value) -> Call {
    call(id, "search_text", args)
}
fn t_search(id: &str, stdout: &str, code: i64) -> Message {
    Message::tool(
        id,
        serde_json::json!({"stdout":stdout,"stderr":"","exitCode":code,"truncated":false})
            .to_string(),
        false,
    )
}
const MATCH: &str = r#"{"type":"match","data":{"path":{"text":"src/a.rs"},"lines":{"text":"// TODO: one\n"},"line_number":3}}"#;

fn rg_out(elapsed: &str, ctx: &str) -> String {
    format!(
        "{{\"type\":\"begin\",\"data\":{{\"path\":{{\"text\":\"src/a.rs\"}}}}}}\n{MATCH}\n{{\"type\":\"context\",\"data\":{{\"path\":{{\"text\":\"src/a.rs\"}},\"lines\":{{\"text\":\"{ctx}\"}}}}}}\n{{\"type\":\"end\",\"data\":{{\"elapsed\":\"{elapsed}\"}}}}\n{{\"type\":\"summary\",\"data\":{{\"elapsed_total\":\"{elapsed}\"}}}}\n"
    )
}

fn two_searches(
    a1: serde_json::Value,
    o1: (&str, i64),
    a2: serde_json::Value,
    o2: (&str, i64),
) -> Measured {
    let h = vec![
        u(),
        a(vec![search("c1", a1)]),
        t_search("c1", o1.0, o1.1),
        a(vec![search("c2", a2)]),
        t_search("c2", o2.0, o2.1),
        a0(),
        a0(),
    ];
    run(&h)
}

#[test]
fn elapsed_time_lines_are_ignored() {
    let p = serde_json::json!({"pattern":"TODO"});
    let m = two_searches(
        p.clone(),
        (&rg_out("1.5ms", "x"), 0),
        p,
        (&rg_out("9.1ms", "x"), 0),
    );
    assert_eq!(
        elided_by(&m, "c1").map(|e| (e.0, e.1)),
        Some(("duplicate_search", "c2".into()))
    );
    let g = project_on(
        &GovSettings {
            mode: GovernorMode::On,
            ..settings(2, 0)
        },
        &[
            u(),
            a(vec![search("c1", serde_json::json!({"pattern":"TODO"}))]),
            t_search("c1", &rg_out("1", "x"), 0),
            a(vec![search("c2", serde_json::json!({"pattern":"TODO"}))]),
            t_search("c2", &rg_out("2", "x"), 0),
            a0(),
            a0(),
        ],
    );
    assert_eq!(
        g[2],
        Message::tool(
            "c1",
            "[elided: search_text \"TODO\"; identical to a later result]",
            false
        )
    );
}

#[test]
fn searches_that_differ_are_not_duplicates() {
    let p = serde_json::json!({"pattern":"TODO"});
    let out = rg_out("1", "x");
    assert_eq!(
        two_searches(p.clone(), (&out, 0), p.clone(), (&out, 2))
            .totals
            .elided,
        0
    );
    assert_eq!(
        two_searches(p.clone(), (&out, 0), p.clone(), (&rg_out("1", "y"), 0))
            .totals
            .elided,
        0
    );
    assert_eq!(
        two_searches(
            serde_json::json!({"pattern":"TODO","path":"src"}),
            (&out, 0),
            serde_json::json!({"pattern":"TODO","path":"./src"}),
            (&out, 0)
        )
        .totals
        .elided,
        0
    );
    assert_eq!(
        two_searches(
            serde_json::json!({"pattern":"TODO","glob":"*.rs"}),
            (&out, 0),
            p,
            (&out, 0)
        )
        .totals
        .elided,
        0
    );
    let m = two_searches(
        serde_json::json!({"pattern":"x"}),
        (&out, 0),
        serde_json::json!({"pattern":"x","path":".","literal":false}),
        (&out, 0),
    );
    assert_eq!(m.totals.elided, 1);
}

#[test]
fn the_stub_must_be_shorter_than_the_result() {
    let text = r#"{"stdout":"","stderr":"","exitCode":1,"truncated":false}"#;
    assert_eq!(text.len(), 56);
    let h = |p: &str| {
        vec![
            u(),
            a(vec![search("c1", serde_json::json!({"pattern":p}))]),
            t_search("c1", "", 1),
            a(vec![search("c2", serde_json::json!({"pattern":p}))]),
            t_search("c2", "", 1),
            a0(),
            a0(),
        ]
    };
    let m = run(&h("ab"));
    assert_eq!(m.totals.elided, 1);
    let m = run(&h("abc"));
    assert_eq!(m.totals.elided, 0);
    assert_eq!(
        (seg(&m, "c1").criticality.as_str(), seg(&m, "c1").reason),
        ("normal", "stub_not_shorter")
    );
}

#[test]
fn lines_form_appears_exactly_when_range_arguments_are_written() {
    let stub_of = |args: serde_json::Value| {
        let h = vec![
            u(),
            a(vec![call("c1", "read_file", args)]),
            t_read("c1", Some("abcdef12")),
            a(vec![write("c2", "x")]),
            t_ok("c2"),
            a0(),
            a0(),
        ];
        let g = project_on(
            &GovSettings {
                mode: GovernorMode::On,
                ..settings(2, 0)
            },
            &h,
        );
        let Message::Tool(r) = &g[2] else { panic!() };
        r.parts[0].text.clone()
    };
    assert_eq!(
        stub_of(serde_json::json!({"path":"x","limit":50})),
        "[elided: read_file \"x\"@abcdef12 lines 1+50; re-read to view]"
    );
    assert_eq!(
        stub_of(serde_json::json!({"path":"x","startLine":1})),
        "[elided: read_file \"x\"@abcdef12 lines 1+200; re-read to view]"
    );
    assert_eq!(
        stub_of(serde_json::json!({"path":"x"})),
        "[elided: read_file \"x\"@abcdef12; re-read to view]"
    );
}

#[test]
fn stubs_do_not_depend_on_the_justification_and_replays_are_identical() {
    let on = GovSettings {
        mode: GovernorMode::On,
        ..settings(2, 0)
    };
    let by_write = vec![
        u(),
        a(vec![read("c1", "a")]),
        t_read("c1", Some("aaaa")),
        a(vec![write("c2", "a")]),
        t_ok("c2"),
        a0(),
        a0(),
    ];
    let by_read = vec![
        u(),
        a(vec![read("c1", "a")]),
        t_read("c1", Some("aaaa")),
        a(vec![read("c2", "a")]),
        t_read("c2", Some("bbbb")),
        a0(),
        a0(),
    ];
    let p1 = project_on(&on, &by_write);
    let p2 = project_on(&on, &by_read);
    assert_eq!(p1[2], p2[2]);
    assert_ne!(p1[2], by_write[2]);
    assert_eq!(
        serde_json::to_string(&project_on(&on, &by_read)).unwrap(),
        serde_json::to_string(&p2).unwrap()
    );
}

#[test]
fn results_with_attached_instructions_are_pinned() {
    let mut r = t_read("c1", Some("aaaa"));
    if let Message::Tool(t) = &mut r {
        t.parts.push(Part::text(
            "<instructions path=\"sub/AGENTS.md\">be nice</instructions>",
        ));
    }
    let h = vec![
        u(),
        a(vec![read("c1", "a")]),
        r,
        a(vec![edit("c2", "a")]),
        t_ok("c2"),
        a0(),
        a0(),
    ];
    let m = run(&h);
    assert_eq!(m.totals.elided, 0);
    assert_eq!(
        (seg(&m, "c1").criticality.as_str(), seg(&m, "c1").reason),
        ("pinned", "attached_instructions")
    );
}

#[test]
fn skill_bodies_are_pinned() {
    let body = "S".repeat(2000);
    let h = vec![
        u(),
        a(vec![call(
            "c1",
            "skill_load",
            serde_json::json!({"name":"pdf"}),
        )]),
        Message::tool("c1", body.clone(), false),
        a(vec![call(
            "c2",
            "skill_load",
            serde_json::json!({"name":"pdf"}),
        )]),
        Message::tool("c2", body, false),
        a0(),
        a0(),
        Message::User {
            kind: model::UserKind::Plain,
            parts: vec![Part::text("/skill:pdf body")],
            skill: Some("pdf".into()),
            origin: None,
        },
    ];
    let m = run(&h);
    assert_eq!(m.totals.elided, 0);
    for id in ["c1", "c2"] {
        assert_eq!(
            (seg(&m, id).criticality.as_str(), seg(&m, id).reason),
            ("pinned", "skill_body")
        );
    }
    let last = m.segments.last().unwrap();
    assert_eq!((last.kind, last.reason), ("user", "skill_body"));
}

#[test]
fn only_the_text_of_elided_results_changes_in_on() {
    let mut h = case3();
    if let Message::Assistant { parts, .. } = &mut h[1] {
        parts.push(Part::opaque("{\"signature\":\"sig\"}"));
    }
    if let Message::Tool(t) = &mut h[2] {
        t.parts.push(Part {
            kind: model::PartKind::Image,
            text: "img".into(),
        });
    }
    let p = project_on(
        &GovSettings {
            mode: GovernorMode::On,
            ..settings(2, 0)
        },
        &h,
    );
    assert_eq!(p.len(), h.len());
    for (i, (x, y)) in p.iter().zip(&h).enumerate() {
        if i == 2 {
            let (Message::Tool(a), Message::Tool(b)) = (x, y) else {
                panic!()
            };
            assert_eq!(
                (a.call_id.as_str(), a.is_error),
                (b.call_id.as_str(), b.is_error)
            );
            assert_eq!(a.parts.len(), 2);
            assert_eq!(a.parts[1], b.parts[2 - 1]);
        } else {
            assert_eq!(x, y);
        }
    }
}

#[test]
fn clipping_the_justifying_result_re_exposes_the_elided_one() {
    let out = rg_out("1", "x");
    let mut h = vec![
        u(),
        a(vec![search("c1", serde_json::json!({"pattern":"TODO"}))]),
        t_search("c1", &out, 0),
        a(vec![search("c2", serde_json::json!({"pattern":"TODO"}))]),
        t_search("c2", &out, 0),
        a0(),
        a0(),
    ];
    assert_eq!(run(&h).totals.elided, 1);
    let before = h[4].clone();
    h[4] = Message::tool("c2", "[clipped]", false);
    assert_eq!(run(&h).totals.elided, 0);
    let ev = events::context_reduced(&[before], &[h[4].clone()]);
    assert_eq!(ev.messages, 1);
    assert!(ev.tokens_saved > 0);
    assert_eq!(
        serde_json::to_value(ev).unwrap(),
        serde_json::json!({"messages":1,"reason":"budget","tokensSaved":ev.tokens_saved})
    );
}

#[test]
fn compaction_recomputes_e_and_forgets_the_replaced_prefix() {
    let h = vec![
        Message::checkpoint("summary"),
        u(),
        a(vec![read("c9", "a")]),
        t_read("c9", Some("aaaa")),
        a0(),
    ];
    let (m, _) = run_with(&settings(2, 4), &h);
    assert_eq!((m.messages, m.eligible_messages, m.compacted), (5, 4, true));
    assert!(!serde_json::to_string(&m).unwrap().contains("\"c1\""));
    assert_eq!(
        (m.segments[0].kind, m.segments[0].reason),
        ("checkpoint", "compaction_checkpoint")
    );
}

fn on_request(h: &[Message], src: &Sources, mode: GovernorMode) -> Governed<'static> {
    let parts = Box::leak(Box::new(RequestParts::default()));
    let h: &'static [Message] = Box::leak(h.to_vec().into_boxed_slice());
    let src: &'static Sources = Box::leak(Box::new(src.clone()));
    govern(
        &GovSettings {
            mode,
            ..settings(2, 0)
        },
        Request {
            session_id: "s",
            history: h,
            parts,
            sources: src,
            request: None,
            ledger: Ledger::None,
        },
    )
}

#[test]
fn no_block_before_a_compaction() {
    let src = Sources {
        quotes: vec!["x".into()],
        ..Sources::default()
    };
    let g = on_request(&case3(), &src, GovernorMode::On);
    assert!(g.invariants.is_none());
    let ContextReport::Measured(m) = g.report else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(m.invariants).unwrap(),
        serde_json::json!({"sent":false,"total":0,"byKind":{"instruction":0,"goal":0,"plan":0,"criterion":0,"grant":0},"omitted":0})
    );
}

#[test]
fn the_block_is_sent_last_after_a_compaction_in_on() {
    let stored = invariants::accept_quotes(
        &[],
        &serde_json::json!(["Never use semicolons in generated code"]),
        &[Message::user(
            "Please: Never use semicolons in generated code.",
        )],
    );
    let src = Sources {
        quotes: stored,
        ..Sources::default()
    };
    let h = vec![Message::checkpoint("summary"), u(), a0()];
    let g = on_request(&h, &src, GovernorMode::On);
    let b = g.invariants.clone().unwrap();
    assert_eq!(b.len(), 372);
    assert_eq!(&*g.messages, &h[..]);
    let ContextReport::Measured(m) = g.report else {
        panic!()
    };
    let last = m.segments.last().unwrap();
    assert_eq!(
        (last.kind, last.tokens, last.criticality.as_str()),
        ("invariants", 93, "pinned")
    );
    assert!(m.invariants.sent);
    let rejected = invariants::accept_quotes(
        &[],
        &serde_json::json!(["never use semicolons"]),
        &[Message::user(
            "Please: Never use semicolons in generated code.",
        )],
    );
    assert!(rejected.is_empty());
    let g = on_request(
        &h,
        &Sources {
            quotes: rejected,
            ..Sources::default()
        },
        GovernorMode::On,
    );
    assert!(g.invariants.is_none());
}

#[test]
fn shadow_builds_the_invariants_counts_but_sends_nothing() {
    let src = Sources {
        quotes: vec!["q1".into(), "q2".into()],
        goal: Some(invariants::Goal {
            objective: "ship".into(),
            status: "active".into(),
        }),
        ..Sources::default()
    };
    let h = vec![Message::checkpoint("summary"), u(), a0()];
    let g = on_request(&h, &src, GovernorMode::Shadow);
    assert!(g.invariants.is_none());
    let ContextReport::Measured(m) = g.report else {
        panic!()
    };
    assert_eq!(
        (
            m.invariants.sent,
            m.invariants.total,
            m.invariants.by_kind.goal
        ),
        (false, 3, 1)
    );
    assert!(m.segments.iter().all(|s| s.kind != "invariants"));
}

#[test]
fn no_text_leaks_into_reports_or_events() {
    let mk = "ZQXMARKER";
    let mut h = vec![
        Message::user(format!("{mk} user")),
        a(vec![call(
            "c1",
            "read_file",
            serde_json::json!({"path": "src/a.ts", "note": mk}),
        )]),
        Message::tool(
            "c1",
            padded(serde_json::json!({"sha256": sha("aa"), "m": mk}), 4000),
            false,
        ),
        a(vec![call(
            "c2",
            "search_text",
            serde_json::json!({"pattern": mk}),
        )]),
        t_search("c2", &format!("{mk}:1:x"), 0),
        a(vec![call(
            "c3",
            "search_text",
            serde_json::json!({"pattern": mk}),
        )]),
        t_search("c3", &format!("{mk}:1:x"), 0),
        a(vec![call(
            "c4",
            "shell",
            serde_json::json!({"command": format!("echo {mk}")}),
        )]),
        Message::tool("c4", mk, false),
        a(vec![call(
            "c5",
            "edit_file",
            serde_json::json!({"path": "src/a.ts", "text": mk}),
        )]),
        t_ok("c5"),
        a0(),
        a0(),
    ];
    h.insert(0, Message::checkpoint(format!("{mk} checkpoint")));
    let src = Sources {
        quotes: vec![format!("{mk} quote")],
        ..Sources::default()
    };
    let parts = RequestParts {
        system: Some(mk.into()),
        instructions: vec![("AGENTS.md".into(), mk.into())],
        skills: Some(mk.into()),
        tools: Some(mk.into()),
    };
    let mut sg = SessionGovernor::new();
    for mode in [GovernorMode::Shadow, GovernorMode::On] {
        let s = GovSettings {
            mode,
            ..settings(2, 0)
        };
        let turn = turn("s", &h, &parts, &src, 1, false);
        let ev = sg.request(&s, turn).event.unwrap();
        assert!(ev.elided >= 2);
        assert!(
            !serde_json::to_string(&sg.report(&s, turn, Some(1)))
                .unwrap()
                .contains(mk)
        );
        assert!(!serde_json::to_string(&ev).unwrap().contains(mk));
    }
}

#[test]
fn newly_elided_is_capped_at_32_and_reported_once() {
    let mut h = vec![u()];
    for k in 0..41 {
        let id = format!("r{k:02}");
        h.push(a(vec![read(&id, "a")]));
        h.push(t_read(&id, Some(&format!("{:x}", k + 1))));
    }
    h.push(a0());
    h.push(a0());
    let parts = RequestParts::default();
    let src = Sources::default();
    let mut sg = SessionGovernor::new();
    let s = settings(2, 0);
    let ev = sg
        .request(&s, turn("s", &h, &parts, &src, 1, false))
        .event
        .unwrap();
    assert_eq!(ev.elided, 40);
    assert_eq!(ev.newly_elided.len(), 32);
    assert_eq!(ev.newly_elided[0], "r00");
    assert_eq!(ev.newly_elided[31], "r31");
    assert_eq!(ev.newly_elided_more, 8);
    let ev = sg
        .request(&s, turn("s", &h, &parts, &src, 2, true))
        .event
        .unwrap();
    assert_eq!(
        (
            ev.newly_elided.len(),
            ev.newly_elided_more,
            ev.elided,
            ev.request,
            ev.recovery
        ),
        (0, 0, 40, 2, true)
    );
}

#[test]
fn child_sessions_have_their_own_memory() {
    let h = case3();
    let parts = RequestParts::default();
    let src = Sources::default();
    let mut parent = SessionGovernor::new();
    let mut child = SessionGovernor::new();
    let s = settings(2, 0);
    let pe = parent
        .request(&s, turn("p", &h, &parts, &src, 1, false))
        .event
        .unwrap();
    let ce = child
        .request(&s, turn("p/child", &h, &parts, &src, 1, false))
        .event
        .unwrap();
    assert_eq!(pe.newly_elided, vec!["c1".to_owned()]);
    assert_eq!(ce.newly_elided, vec!["c1".to_owned()]);
    // A second parent request reports nothing new; the child's memory is untouched by it.
    let pe = parent
        .request(&s, turn("p", &h, &parts, &src, 2, false))
        .event
        .unwrap();
    assert!(pe.newly_elided.is_empty());
}

#[test]
fn usage_counts_follow_section_8() {
    let sh = |id: &str, cmd: &str| call(id, "shell", serde_json::json!({"command": cmd}));
    let h = vec![
        u(),
        a(vec![read("c1", "a.ts")]),
        t_read("c1", Some("aa")),
        a(vec![sh("c2", "npm test a.ts")]),
        t_ok("c2"),
        a(vec![read("c3", "b.ts")]),
        t_read("c3", Some("bb")),
        a(vec![read("c4", "b.ts")]),
        t_read("c4", Some("bb")),
        a(vec![sh("c5", "grep x b.ts:10")]),
        t_ok("c5"),
    ];
    let parts = RequestParts::default();
    let src = Sources::default();
    let g = govern(
        &settings(2, 0),
        request("s", &h, &parts, &src, None, Ledger::All),
    );
    let ContextReport::Measured(m) = g.report else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(&m.usage).unwrap(),
        serde_json::json!({"perTool":{"read_file":{"seen":3,"used":1,"reread":1,"unused":1}},"notAttributable":2})
    );
    assert_eq!(seg(&m, "c1").used, Some("used"));
    assert_eq!(seg(&m, "c3").used, Some("reread"));
    assert_eq!(seg(&m, "c4").used, Some("unused"));
    assert_eq!(seg(&m, "c2").used, Some("not_attributable"));
}

#[test]
fn no_ledger_means_usage_null_and_no_used_fields() {
    let m = run(&case3());
    let v = serde_json::to_value(&m).unwrap();
    assert_eq!(v["usage"], serde_json::Value::Null);
    assert!(!v.to_string().contains("\"used\""));
}

#[test]
fn report_json_has_the_documented_shape() {
    let parts = RequestParts {
        system: Some("x".repeat(8)),
        ..RequestParts::default()
    };
    let src = Sources::default();
    let h = case3();
    let g = govern(
        &settings(2, 0),
        request("s-41", &h, &parts, &src, Some(5), Ledger::None),
    );
    let v = g.report.to_json();
    assert_eq!(
        v["segments"][0],
        serde_json::json!({"index":0,"kind":"system","origin":"system","tokens":2,"criticality":"pinned","reason":"system_prompt"})
    );
    assert_eq!(
        v["segments"][4],
        serde_json::json!({"index":4,"kind":"tool_result","origin":"a.ts","message":2,"tool":"read_file","callId":"c1","tokens":1000,"criticality":"low","reason":"elided","elided":{"reason":"superseded_read","by":"c2","tokensSaved":987}})
    );
    assert_eq!(
        v["settings"],
        serde_json::json!({"minAgeTurns":2,"epochMessages":0,"maxChars":4000})
    );
    assert_eq!(
        (
            v["messages"].as_u64(),
            v["request"].as_u64(),
            v["segmentsOmitted"].as_u64()
        ),
        (Some(8), Some(5), Some(0))
    );
    let t = &v["totals"];
    assert_eq!(t["segments"], 12);
    assert_eq!(
        t["byCriticality"],
        serde_json::json!({"pinned":1,"high":2,"normal":8,"low":1})
    );
}

/// A deterministic generator of histories for the property checks below.
fn generated(seed: u64, len: usize) -> Vec<Message> {
    let mut rng = alisio_base::testing::Rng(seed);
    let mut next = move |m: u64| rng.next() % m;
    let mut h = vec![u()];
    let mut k = 0;
    while h.len() < len {
        let path = ["a", "b", "./a"][next(3) as usize];
        let id = format!("g{k}");
        k += 1;
        let (c, r) = match next(6) {
            0 | 1 => (
                read(&id, path),
                t_read_small(&id, &format!("{:x}", next(3) + 1)),
            ),
            2 => (
                edit(&id, path),
                if next(5) == 0 { t_err(&id) } else { t_ok(&id) },
            ),
            3 => (
                bg(&id, serde_json::json!({"id":"t1"})),
                t_bg(
                    &id,
                    if next(2) == 0 {
                        ""
                    } else {
                        "some output here that is long enough"
                    },
                    next(3) * 10,
                ),
            ),
            4 => (
                search(&id, serde_json::json!({"pattern":"TODO"})),
                t_search(&id, &rg_out("1", if next(2) == 0 { "x" } else { "y" }), 0),
            ),
            _ => (
                call(&id, "shell", serde_json::json!({"command":"ls"})),
                t_ok(&id),
            ),
        };
        h.push(a(vec![c]));
        h.push(r);
        if next(4) == 0 {
            h.push(u());
        }
    }
    h
}

#[test]
fn generated_histories_keep_the_guarantees() {
    for seed in 0..12 {
        let h = generated(seed, 70);
        let before = serde_json::to_string(&h).unwrap();
        for epoch in [0, 4, 7] {
            let on = GovSettings {
                mode: GovernorMode::On,
                ..settings(1 + (seed % 3) as u32, epoch)
            };
            let p = project_on(&on, &h);
            // G1: the history itself is untouched; G7: same input, same bytes.
            assert_eq!(serde_json::to_string(&h).unwrap(), before);
            assert_eq!(
                serde_json::to_string(&project_on(&on, &h)).unwrap(),
                serde_json::to_string(&p).unwrap()
            );
            // G4: shadow is byte-identical to off.
            let shadow = project_on(
                &GovSettings {
                    mode: GovernorMode::Shadow,
                    ..on
                },
                &h,
            );
            assert_eq!(serde_json::to_string(&shadow).unwrap(), before);
            // G2: ids, roles and order are kept; every change is a shorter one-line ASCII stub.
            assert_eq!(p.len(), h.len());
            for (x, y) in p.iter().zip(&h) {
                match (x, y) {
                    (Message::Tool(a), Message::Tool(b)) => {
                        assert_eq!((&a.call_id, a.is_error), (&b.call_id, b.is_error));
                        if a != b {
                            let s = &a.parts[0].text;
                            assert!(
                                s.bytes().all(|c| (0x20..=0x7e).contains(&c))
                                    && s.starts_with("[elided: ")
                            );
                            assert!(s.len() < classify::result_text(b).len());
                        }
                    }
                    _ => assert_eq!(x, y),
                }
            }
            // G8: between boundaries, requests only append.
            if epoch > 0 {
                for n in 1..h.len() {
                    if rules::eligible(n, epoch) == rules::eligible(n + 1, epoch) {
                        let a1 = project_on(&on, &h[..n]);
                        let a2 = project_on(&on, &h[..=n]);
                        assert_eq!(&a2[..n], &a1[..], "seed {seed} epoch {epoch} n {n}");
                    }
                }
            }
            // Report totals add up.
            let (m, _) = run_with(&on, &h);
            let t = m.totals;
            assert_eq!(t.tokens_after + t.tokens_saved, t.tokens_before);
            assert_eq!(t.by_reason.sum(), t.elided);
            let c = t.by_criticality;
            assert_eq!(c.pinned + c.high + c.normal + c.low, t.segments);
        }
    }
}

#[test]
fn under_the_cache_gate_requests_between_boundaries_only_append() {
    // G8 and G2 under policy 2's gate, whole boundaries and the best start: a boundary's changes
    // before its start wait, but nothing changes between boundaries.
    for seed in 0..8 {
        let h = generated(seed, 70);
        for (epoch, start) in [
            (5, GateStart::Whole),
            (5, GateStart::Best),
            (8, GateStart::Best),
        ] {
            let mut on = GovSettings {
                mode: GovernorMode::On,
                policy_version: 2,
                ..settings(2, epoch)
            };
            on.policy2.gate_start = start;
            let mut previous = project_on(&on, &h[..1]);
            for n in 2..=h.len() {
                let now = project_on(&on, &h[..n]);
                if rules::eligible(n - 1, epoch) == rules::eligible(n, epoch) {
                    assert_eq!(
                        &now[..n - 1],
                        &previous[..],
                        "seed {seed} epoch {epoch} n {n}"
                    );
                }
                for (x, y) in now.iter().zip(&h[..n]) {
                    if let (Message::Tool(a), Message::Tool(b)) = (x, y)
                        && a != b
                    {
                        assert_eq!((&a.call_id, a.is_error), (&b.call_id, b.is_error));
                        assert!(a.parts[0].text.len() < classify::result_text(b).len());
                    }
                }
                previous = now;
            }
        }
    }
}

#[test]
fn incremental_requests_match_a_full_projection() {
    let parts = RequestParts {
        system: Some("sys".into()),
        ..RequestParts::default()
    };
    let src = Sources::default();
    for seed in 0..5 {
        let h = generated(seed, 60);
        for mode in [GovernorMode::Shadow, GovernorMode::On] {
            // Policy 1 ungated and at epoch 5; policy 2 under the cache gate, whole boundaries and
            // the best start (which differs from whole boundaries on these histories).
            for (policy_version, epoch, start) in [
                (1, 0, GateStart::Whole),
                (1, 5, GateStart::Whole),
                (2, 5, GateStart::Whole),
                (2, 5, GateStart::Best),
            ] {
                let mut s = GovSettings {
                    mode,
                    policy_version,
                    ..settings(1 + (seed % 2) as u32, epoch)
                };
                s.policy2.gate_start = start;
                let mut sg = SessionGovernor::new();
                let mut full_ledger = std::collections::HashSet::new();
                for n in 1..=h.len() {
                    let turn = turn("s", &h[..n], &parts, &src, n as u64, false);
                    let sent = sg.request(&s, turn);
                    let ev = sent.event.clone().unwrap();
                    let g = govern(
                        &s,
                        request(
                            "s",
                            &h[..n],
                            &parts,
                            &src,
                            None,
                            Ledger::Session(&mut full_ledger),
                        ),
                    );
                    let ContextReport::Measured(m) = &g.report else {
                        panic!()
                    };
                    let t = m.totals;
                    assert_eq!(
                        (
                            ev.segments,
                            ev.tokens_before,
                            ev.tokens_saved,
                            ev.elided,
                            ev.by_reason
                        ),
                        (
                            t.segments,
                            t.tokens_before,
                            t.tokens_saved,
                            t.elided,
                            t.by_reason
                        ),
                        "seed {seed} n {n}"
                    );
                    assert_eq!(ev.usage, m.usage, "seed {seed} n {n} {mode:?}");
                    assert_eq!(&*sent.messages(&h[..n]), &*g.messages, "seed {seed} n {n}");
                }
                // A rewritten history (shorter) is detected and recomputed.
                let turn = turn("s", &h[..10], &parts, &src, 99, false);
                let ev = sg.request(&s, turn).event.unwrap();
                assert_eq!(ev.messages, 10);
            }
        }
    }
}

/// 90 reads (3,000 characters), edits and searches over 7 files, then a closing answer: 182
/// messages, whose epoch boundaries are taken and skipped under the policy-2 defaults.
fn long_history() -> Vec<Message> {
    let mut h = vec![u()];
    for k in 0..90 {
        let id = format!("c{k}");
        let path = format!("src/f{}.rs", k % 7);
        let (call, result) = match k % 3 {
            0 => (
                read(&id, &path),
                Message::tool(
                    &id,
                    format!(
                        r#"{{"sha256":"{:064x}","content":"{}"}}"#,
                        k % 5,
                        "x".repeat(3000)
                    ),
                    false,
                ),
            ),
            1 => (edit(&id, &path), t_ok(&id)),
            _ => (
                call(&id, "search_text", serde_json::json!({"pattern": "TODO"})),
                Message::tool(
                    &id,
                    r#"{"stdout":"a:1:TODO\n","stderr":"","exitCode":0}"#,
                    false,
                ),
            ),
        };
        h.push(a(vec![call]));
        h.push(result);
    }
    h.push(a0());
    h
}

fn policy_two_shadow(epoch: u32) -> GovSettings {
    GovSettings {
        mode: GovernorMode::Shadow,
        min_age_turns: 2,
        epoch_messages: epoch,
        policy_version: 2,
        max_chars: 4000,
        policy2: crate::policy2::Policy2::default(),
    }
}

/// Every request of `h` (one per assistant message, sending the messages before it), the 40th
/// found cold; the number of requests.
fn play(sg: &mut SessionGovernor, s: &GovSettings, h: &[Message]) -> u64 {
    let parts = RequestParts::default();
    let src = Sources::default();
    let mut r = 0;
    for (i, m) in h.iter().enumerate() {
        if m.is_assistant() {
            r += 1;
            if r == 40 {
                sg.cache_cold();
            }
            let _ = sg.request(s, turn("s1", &h[..i], &parts, &src, r, false));
        }
    }
    r
}

/// The long history played under the policy-2 defaults: (history, settings, governor, requests).
fn played() -> (Vec<Message>, GovSettings, SessionGovernor, u64) {
    let h = long_history();
    let s = policy_two_shadow(alisio_base::config::EPOCH_MESSAGES_V2);
    let mut sg = SessionGovernor::new();
    let r = play(&mut sg, &s, &h);
    (h, s, sg, r)
}

/// The report of `h` with the kept gate and with a fresh one, as JSON.
fn kept_and_fresh(
    sg: &SessionGovernor,
    s: &GovSettings,
    h: &[Message],
    r: u64,
) -> (String, String) {
    let parts = RequestParts::default();
    let src = Sources::default();
    let t = turn("s1", h, &parts, &src, r, false);
    (
        sg.report(s, t, Some(r)).to_json().to_string(),
        sg.report_fresh(s, t, Some(r)).to_json().to_string(),
    )
}

/// A session's report continues the cache gate its requests kept instead of evaluating every
/// boundary again (O(n / E) passes over P saved): it equals the report with a fresh gate, over a
/// long history whose boundaries are taken and skipped, with a cold request among them.
#[test]
fn a_sessions_report_with_its_kept_gate_equals_one_with_a_fresh_gate() {
    let (h, s, sg, r) = played();
    // The report of the next request, on the whole history (the last boundaries not yet seen).
    let parts = RequestParts::default();
    let src = Sources::default();
    let kept = sg.report(&s, turn("s1", &h, &parts, &src, r + 1, false), Some(r + 1));
    let ContextReport::Measured(m) = &kept else {
        panic!("measured")
    };
    assert_eq!(m.messages, 182);
    assert!(
        m.eligible_messages > 0 && m.totals.elided > 0,
        "{}",
        kept.to_json()
    );
    let (kept, fresh) = kept_and_fresh(&sg, &s, &h, r + 1);
    assert_eq!(kept, fresh);
}

/// The kept gate is used only for a history this session's requests saw a prefix of, under the
/// same settings; otherwise the report takes a fresh gate. Either way the report equals a fresh
/// gate's: on the history of the last request itself, with a cold request pending (announced, not
/// yet sent), after a rewrite (a compaction's summary in place of the first 100 messages) with no
/// request in between, and under other settings.
#[test]
fn a_report_after_a_rewrite_or_on_the_same_history_equals_a_fresh_one() {
    let (h, s, mut sg, r) = played();
    // The last request sent h[..181]; its own history, then a cold request announced.
    let (kept, fresh) = kept_and_fresh(&sg, &s, &h[..181], r);
    assert_eq!(kept, fresh);
    sg.cache_cold();
    let (kept, fresh) = kept_and_fresh(&sg, &s, &h, r + 1);
    assert_eq!(kept, fresh);
    // A rewrite: the first message kept, a summary, then the last 81 messages.
    let mut rewritten = vec![h[0].clone(), Message::user("summary of the work so far")];
    rewritten.extend(h[101..].iter().cloned());
    let (kept, fresh) = kept_and_fresh(&sg, &s, &rewritten, r + 1);
    assert_eq!(kept, fresh);
    // Other settings: a larger epoch.
    let other = policy_two_shadow(36);
    let (kept, fresh) = kept_and_fresh(&sg, &other, &h, r + 1);
    assert_eq!(kept, fresh);
    // And the reports differ where they should: the epoch changes what is elided.
    assert_ne!(
        kept_and_fresh(&sg, &s, &h, r + 1).0,
        kept_and_fresh(&sg, &other, &h, r + 1).0
    );
}
