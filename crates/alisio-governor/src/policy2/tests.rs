use super::*;
use crate::invariants::Sources;
use crate::model::{Call, Message};
use crate::report::ContextReport;
use crate::testkit::{request, shell_call as shell};
use crate::{GovSettings, Ledger, RequestParts, govern};
use alisio_base::config::GovernorMode;

fn settings(epoch: u32) -> GovSettings {
    GovSettings {
        mode: GovernorMode::On,
        min_age_turns: 2,
        epoch_messages: epoch,
        policy_version: 2,
        max_chars: 4000,
        policy2: Policy2 {
            threshold_chars: 1000,
            head_chars: 200,
            tail_chars: 200,
            min_chars: 300,
            keep_recent: 5,
            keep_denials: 1,
            gate: GateRule::Expected,
            gate_start: GateStart::Best,
            aging: Aging::Entry,
        },
    }
}

/// An assistant message calling `tool` on `a.rs`.
fn on_a_rs(id: &str, tool: &str) -> Message {
    Message::assistant("", vec![Call::new(id, tool, r#"{"path":"a.rs"}"#)])
}

/// Appends `python x.py` calls `c<k>` answering `ok`, for every `k` of `ks`.
fn push_runs(h: &mut Vec<Message>, ks: std::ops::RangeInclusive<u32>) {
    for k in ks {
        let id = format!("c{k}");
        h.push(shell(&id, "python x.py"));
        h.push(out(&id, "ok", 0));
    }
}

fn out(id: &str, stdout: &str, code: i64) -> Message {
    Message::tool(
        id,
        serde_json::json!({"stdout": stdout, "stderr": "", "exitCode": code}).to_string(),
        false,
    )
}

fn texts(h: &[Message], s: &GovSettings) -> (Vec<String>, Vec<(String, String)>) {
    let parts = RequestParts::default();
    let src = Sources::default();
    let g = govern(s, request("s", h, &parts, &src, None, Ledger::None));
    let sent = g
        .messages
        .iter()
        .map(|m| match m {
            Message::Tool(r) => crate::classify::result_text(r),
            _ => String::new(),
        })
        .collect();
    let ContextReport::Measured(m) = g.report else {
        panic!("measured")
    };
    let reasons = m
        .segments
        .iter()
        .filter_map(|s| {
            s.elided
                .as_ref()
                .map(|e| (s.call_id.clone().unwrap_or_default(), e.reason.to_owned()))
        })
        .collect();
    (sent, reasons)
}

#[test]
fn oversized_is_a_pointer_head_and_tail_from_the_first_request() {
    let big: String = (0..400).map(|i| format!("line {i:03}\n")).collect();
    let h = vec![
        Message::user("go"),
        shell("c1", "cargo test"),
        out("c1", &big, 101),
    ];
    let (sent, reasons) = texts(&h, &settings(32));
    assert_eq!(reasons, [("c1".to_owned(), "oversized".to_owned())]);
    let stub = &sent[2];
    let total =
        utf16_len(&serde_json::json!({"stdout": big, "stderr": "", "exitCode": 101}).to_string());
    let first = stub.lines().next().unwrap_or_default();
    // The counts are the stdout's own: 400 lines of 9 characters, 3600 characters.
    assert_eq!(
        first,
        "[oversized: shell \"cargo test\" stdout 3600 chars, 400 lines, exit 101; head and tail shown; result_read \"c1\" field \"stdout\" offset 198 reads the rest]"
    );
    // The envelope is kept: the rest of the stub is the result's JSON with stdout cut.
    let rest: serde_json::Value = serde_json::from_str(&stub[first.len() + 1..]).unwrap();
    assert_eq!(rest["exitCode"], 101);
    assert_eq!(rest["stderr"], "");
    let cut = rest["stdout"].as_str().unwrap();
    assert!(cut.starts_with("line 000\n"), "head kept");
    assert!(cut.ends_with("line 399\n"), "tail kept");
    assert!(cut.contains("\n[... 3204 chars omitted ...]\n"), "{cut}");
    assert!(!cut.contains("line 200"), "middle gone");
    assert!(stub.len() < total && stub.len() <= 1000 + 300);
    // Exempt tools keep their text.
    let h = vec![
        Message::user("go"),
        Message::assistant(
            "",
            vec![Call::new("r1", "result_read", r#"{"callId":"c0"}"#)],
        ),
        Message::tool("r1", big.clone(), false),
    ];
    assert!(texts(&h, &settings(32)).1.is_empty());
}

#[test]
fn aged_output_and_expired_spare_the_recent_results() {
    let mut h = vec![Message::user("go")];
    h.push(shell("s0", "git status"));
    h.push(out("s0", "On branch main\nnothing to commit", 0));
    for k in 1..=7 {
        let id = format!("c{k}");
        h.push(shell(&id, &format!("python run{k}.py")));
        h.push(out(&id, &"x".repeat(500), 0));
    }
    let (sent, reasons) = texts(&h, &settings(0));
    // 8 results; the 5 most recent (c3..c7) are untouched.
    assert_eq!(
        reasons,
        [
            ("s0".to_owned(), "expired".to_owned()),
            ("c1".to_owned(), "aged_output".to_owned()),
            ("c2".to_owned(), "aged_output".to_owned()),
        ]
    );
    assert_eq!(
        sent[2],
        "[expired shell \"git status\": stale, run it again]"
    );
    let len = utf16_len(
        &serde_json::json!({"stdout": "x".repeat(500), "stderr": "", "exitCode": 0}).to_string(),
    );
    assert_eq!(
        sent[4],
        format!("[trimmed shell \"python run1....\" {len} chars, result_read \"c1\"]")
    );
    assert!(sent[8].contains(&"x".repeat(500)));
}

#[test]
fn stubs_never_change_between_epochs_and_the_first_rule_keeps_its_stub() {
    // A read, aged at one boundary, then superseded by an edit much later: the aged stub stays
    // (rewriting it would break the cache for everything after it). The chat before the read
    // gives the session enough requests for the cache gate to take the boundary (§2.7).
    let mut h = vec![Message::user("go")];
    for _ in 0..20 {
        h.push(Message::assistant("noted", vec![]));
        h.push(Message::user("more"));
    }
    let at = h.len() + 1;
    h.push(on_a_rs("r1", "read_file"));
    h.push(Message::tool(
        "r1",
        format!(
            "{{\"path\":\"a.rs\",\"sha256\":\"{}\",\"text\":\"{}\"}}",
            "a".repeat(64),
            "y".repeat(600)
        ),
        false,
    ));
    push_runs(&mut h, 1..=8);
    let s = settings(4);
    let (sent_before, reasons) = texts(&h, &s);
    assert_eq!(reasons, [("r1".to_owned(), "aged_output".to_owned())]);
    h.push(on_a_rs("e1", "edit_file"));
    h.push(Message::tool("e1", r#"{"ok":true}"#, false));
    push_runs(&mut h, 9..=14);
    let (sent_after, reasons) = texts(&h, &s);
    assert_eq!(reasons, [("r1".to_owned(), "aged_output".to_owned())]);
    assert_eq!(sent_before[at], sent_after[at]);
    assert!(sent_after[at].starts_with("[trimmed"), "{}", sent_after[at]);
    // Under policy 1 the same history elides the read as superseded.
    let v1 = GovSettings {
        policy_version: 1,
        ..s
    };
    assert_eq!(
        texts(&h, &v1).1,
        [("r1".to_owned(), "superseded_read".to_owned())]
    );
}

#[test]
fn an_edit_soon_after_a_read_keeps_the_policy_one_stub() {
    let mut h = vec![Message::user("go")];
    h.push(on_a_rs("r1", "read_file"));
    h.push(Message::tool(
        "r1",
        format!("{{\"text\":\"{}\"}}", "y".repeat(600)),
        false,
    ));
    h.push(on_a_rs("e1", "edit_file"));
    h.push(Message::tool("e1", r#"{"ok":true}"#, false));
    push_runs(&mut h, 1..=6);
    let (sent, reasons) = texts(&h, &settings(0));
    assert_eq!(reasons, [("r1".to_owned(), "superseded_read".to_owned())]);
    assert_eq!(
        sent[2],
        "[elided: read_file \"a.rs\"@unknown; re-read to view]"
    );
}

#[test]
fn pinned_skill_and_orphan_results_are_never_replaced() {
    let big = "z".repeat(3000);
    let h = vec![
        Message::user("go"),
        Message::assistant("", vec![Call::new("k1", "skill_load", r#"{"name":"pdf"}"#)]),
        Message::tool("k1", big.clone(), false),
        Message::tool("orphan", big.clone(), false),
        Message::assistant("", vec![Call::new("r1", "read_file", r#"{"path":"a"}"#)]),
        Message::Tool(crate::model::ToolResult {
            call_id: "r1".into(),
            parts: vec![
                crate::model::Part::text(big.clone()),
                crate::model::Part::text("<instructions>x</instructions>"),
            ],
            is_error: false,
            denial: None,
        }),
        Message::assistant("done", vec![]),
    ];
    assert!(texts(&h, &settings(0)).1.is_empty());
}

#[test]
fn errors_are_eligible_and_stubs_are_deterministic() {
    let big = "E".repeat(5000);
    let h = vec![
        Message::user("go"),
        shell("c1", "make"),
        Message::tool("c1", big, true),
    ];
    let a = texts(&h, &settings(0));
    let b = texts(&h, &settings(0));
    assert_eq!(a, b);
    assert_eq!(a.1, [("c1".to_owned(), "oversized".to_owned())]);
}

#[test]
fn head_and_tail_cut_on_lines_and_char_boundaries() {
    let s = "ab\ncdé\nfgh";
    assert_eq!(&s[..head_end(s, 5)], "ab\n");
    assert_eq!(&s[..head_end(s, 100)], s);
    assert_eq!(&s[tail_start(s, 4)..], "fgh");
    assert_eq!(&s[tail_start(s, 5)..], "é\nfgh");
    assert_eq!(&s[tail_start(s, 8)..], "cdé\nfgh");
    let e = "ééé";
    assert_eq!(&e[..head_end(e, 2)], "éé");
}

/// A refusal of `shell "git push"` with the structural mark `kind` (spec/sessions.md §1.4).
fn refusal(id: &str, kind: &str) -> Message {
    Message::Tool(crate::model::ToolResult {
        call_id: id.into(),
        parts: vec![crate::model::Part::text(
            "Denied: pushing is not allowed in this session; ask the user to push, or delegate it to a worker with the permission.",
        )],
        is_error: true,
        denial: Some(kind.into()),
    })
}

/// `n` refusals of `git push`, each answered by an assistant message, then `tail` more.
fn refusals(n: u32, kind: impl Fn(u32) -> &'static str) -> Vec<Message> {
    let mut h = vec![Message::user("go")];
    for k in 1..=n {
        let id = format!("d{k}");
        h.push(shell(&id, "git push"));
        h.push(refusal(&id, kind(k)));
    }
    h.push(Message::assistant("ok", vec![]));
    h
}

fn denial_settings(keep: u32) -> GovSettings {
    let mut s = settings(0);
    s.policy2.keep_denials = keep;
    s
}

const PRUNED: &str = "[refused: shell \"git push\"; a later refusal of the same kind is kept]";

#[test]
fn denial_pruning_keeps_the_latest_refusal_of_a_kind() {
    // Two refusals: the first is pruned, the latest kept whole.
    let h = refusals(2, |_| "approval");
    let (sent, reasons) = texts(&h, &denial_settings(1));
    assert_eq!(reasons, [("d1".to_owned(), "denied".to_owned())]);
    assert_eq!(sent[2], PRUNED);
    assert!(sent[4].starts_with("Denied: pushing"));
    // Three: the two older ones.
    let h = refusals(3, |_| "approval");
    let (sent, reasons) = texts(&h, &denial_settings(1));
    let ids: Vec<&str> = reasons.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, ["d1", "d2"]);
    assert!(reasons.iter().all(|r| r.1 == "denied"));
    assert_eq!((sent[2].as_str(), sent[4].as_str()), (PRUNED, PRUNED));
    assert!(sent[6].starts_with("Denied: pushing"));
}

#[test]
fn denial_pruning_with_keep_zero_and_by_kind() {
    // keepDenials 0: every refusal answered by an assistant message, the latest included.
    let h = refusals(2, |_| "approval");
    let (sent, reasons) = texts(&h, &denial_settings(0));
    assert_eq!(reasons.len(), 2);
    assert_eq!(sent[2], "[refused: shell \"git push\"]");
    assert_eq!(sent[4], "[refused: shell \"git push\"]");
    // Not before the next assistant turn: the last refusal, unanswered, stays.
    let mut h = refusals(2, |_| "approval");
    h.pop();
    assert_eq!(texts(&h, &denial_settings(0)).1.len(), 1);
    // Different kinds are counted apart: nothing is pruned with keep 1.
    let h = refusals(2, |k| if k == 1 { "approval" } else { "confinement" });
    assert!(texts(&h, &denial_settings(1)).1.is_empty());
    // Unmarked errors with the same text are never pruned (the mark, not the text).
    let mut h = refusals(2, |_| "approval");
    for m in &mut h {
        if let Message::Tool(r) = m {
            r.denial = None;
        }
    }
    assert!(texts(&h, &denial_settings(0)).1.is_empty());
}

/// spec/sessions.md §12.3: the glance shell and `expired` ask one function. For every pinned
/// command, a `glance` call's result (and a `shell` call's) is ephemeral exactly when glance
/// runs the command.
#[test]
fn glance_and_expiry_are_the_same_decision() {
    for (command, runs) in crate::shell::glance_tests::CASES {
        for tool in ["glance", "shell"] {
            let args = serde_json::json!({ "command": command }).to_string();
            let call = Call::new("c1", tool, args);
            let expires = info(Some(&call), "{\"stdout\":\"\",\"exitCode\":0}", None, 1)
                .unwrap()
                .ephemeral
                .is_some();
            assert_eq!(
                expires,
                crate::shell::ephemeral_check(command).is_ok(),
                "{tool} {command:?}"
            );
            assert_eq!(expires, *runs, "{tool} {command:?}");
        }
    }
}

/// Issue 21 §2: a spilled process result keeps its envelope and reports the real counts of its
/// stdout: `seq 1 40000` is 40,000 lines and 228,894 characters.
#[test]
fn a_spilled_process_result_keeps_its_envelope_and_reports_40000_lines() {
    let stdout: String = (1..=40_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(stdout.len(), 228_894);
    let h = vec![
        Message::user("go"),
        shell("c1", "seq 1 40000"),
        out("c1", &stdout, 0),
    ];
    let mut s = settings(32);
    s.policy2 = Policy2 {
        threshold_chars: 4000,
        head_chars: 400,
        tail_chars: 400,
        min_chars: 2000,
        keep_recent: 5,
        keep_denials: 1,
        gate: GateRule::Expected,
        gate_start: GateStart::Best,
        aging: Aging::Entry,
    };
    let (sent, reasons) = texts(&h, &s);
    assert_eq!(reasons, [("c1".to_owned(), "oversized".to_owned())]);
    let first = sent[2].lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "[oversized: shell \"seq 1 40000\" stdout 228894 chars, 40000 lines, exit 0; head and tail shown; result_read \"c1\" field \"stdout\" offset 400 reads the rest]"
    );
    let rest: serde_json::Value = serde_json::from_str(&sent[2][first.len() + 1..]).unwrap();
    let keys: Vec<&String> = rest.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["stdout", "stderr", "exitCode"]);
    let cut = rest["stdout"].as_str().unwrap();
    assert!(cut.starts_with("1\n2\n3\n"), "{cut}");
    assert!(cut.ends_with("39999\n40000\n"), "{cut}");
    // The hidden range the recovery model charges is inside the stdout value, on its middle.
    let text = serde_json::json!({"stdout": stdout, "stderr": "", "exitCode": 0}).to_string();
    let hid = spill_hidden(&s.policy2, &text);
    assert_eq!(hid.len(), 1);
    assert!(
        text[hid[0].clone()].starts_with("128\\n129\\n"),
        "{}",
        &text[hid[0].start..hid[0].start + 20]
    );
}

/// Issue 21 §3: a 60-line, 1,360-byte `read_file` is sent whole under the defaults (it is under
/// the spill threshold, and no rule hides it before `keepRecent` later results).
#[test]
fn a_60_line_read_is_sent_whole_under_the_defaults() {
    let content: String = (1..=60_usize)
        .map(|i| {
            format!(
                "line {i:02} {}\n",
                "x".repeat(if i <= 40 { 14 } else { 13 })
            )
        })
        .collect();
    let content = &content[..content.len() - 1];
    let mut s = settings(0);
    s.policy2 = Policy2::default();
    let result = serde_json::json!({"path":"src/a.rs","sha256":"0".repeat(64),"startLine":1,"endLine":60,"content":content,"truncated":false}).to_string();
    assert_eq!(content.len() + 1, 1_360);
    let mut h = vec![
        Message::user("go"),
        on_a_rs("r1", "read_file"),
        Message::tool("r1", result.clone(), false),
    ];
    // Four more results (keepRecent - 1 under the default 5... and the read stays whole).
    for k in 1..s.policy2.keep_recent {
        let id = format!("c{k}");
        h.push(shell(&id, "python x.py"));
        h.push(out(&id, &"y".repeat(2500), 0));
    }
    h.push(Message::assistant("ok", vec![]));
    let (sent, reasons) = texts(&h, &s);
    assert_eq!(sent[2], result, "the read reaches the model whole");
    assert!(reasons.iter().all(|r| r.0 != "r1"), "{reasons:?}");
}

#[test]
fn string_fields_give_the_value_spans_and_real_lines() {
    let t = r#"{"a":"x\ny","n":[1,{"b":"}"}],"c":"\u00e9\"q"}"#;
    let f = fields::string_fields(t).unwrap();
    let spans: Vec<(&str, &str)> = f.iter().map(|(k, r)| (k.as_str(), &t[r.clone()])).collect();
    assert_eq!(spans, [("a", "x\\ny"), ("c", "\\u00e9\\\"q")]);
    assert_eq!(fields::string_fields("[1]"), None);
    assert_eq!(fields::string_fields("{\"a\":1} x"), None);
    assert_eq!(
        [
            fields::lines(""),
            fields::lines("a"),
            fields::lines("a\n"),
            fields::lines("a\nb"),
            fields::lines("\n\n")
        ],
        [0, 1, 1, 2, 2]
    );
    assert_eq!(
        fields::default_field(r#"{"stdout":"ab","stderr":"abc","x":5}"#).as_deref(),
        Some("stderr")
    );
}

/// The reasons and `by` of every replaced result under `s` (a full `govern`).
fn elided_by(h: &[Message], s: &GovSettings) -> Vec<(String, String, String)> {
    let parts = RequestParts::default();
    let src = Sources::default();
    let g = govern(s, request("s", h, &parts, &src, None, Ledger::None));
    let ContextReport::Measured(m) = g.report else {
        panic!("measured")
    };
    m.segments
        .iter()
        .filter_map(|x| {
            x.elided.as_ref().map(|e| {
                (
                    x.call_id.clone().unwrap_or_default(),
                    e.reason.to_owned(),
                    e.by.clone(),
                )
            })
        })
        .collect()
}

/// H: c1 (a 331-character stdout holding `Result_Key_77` and `Other_Key_88`), c2..c4, then c5
/// whose call writes `Result_Key_77` for the first time (message 9), then c6, c7.
fn working_set_history() -> Vec<Message> {
    let stdout = format!("Result_Key_77 and Other_Key_88 {}", "x".repeat(300));
    let mut h = vec![
        Message::user("go"),
        shell("c1", "python x.py"),
        out("c1", &stdout, 0),
    ];
    push_runs(&mut h, 2..=4);
    h.push(shell("c5", "grep -n Result_Key_77 x.py"));
    h.push(out("c5", "12: ok", 0));
    push_runs(&mut h, 6..=7);
    h
}

#[test]
fn the_uses_of_a_result_are_first_writes_of_its_tokens() {
    let mut h = working_set_history();
    // Written again (message 15): not a first write; `Other_Key_88` (message 17): a use.
    h.push(shell("c8", "grep Result_Key_77 y.py"));
    h.push(out("c8", "ok", 0));
    h.push(shell("c9", "grep Other_Key_88 y.py"));
    h.push(out("c9", "ok", 0));
    let s = settings(0);
    let facts = crate::rules::facts(&h, Some(&s.policy2));
    let u = uses(&h, &facts, h.len());
    assert_eq!(u[2], [9, 17]);
    assert!(u.iter().enumerate().all(|(i, v)| i == 2 || v.is_empty()));
    // A token a user message wrote first is never a use.
    h[0] = Message::user("look for Result_Key_77 and Other_Key_88");
    let facts = crate::rules::facts(&h, Some(&s.policy2));
    assert!(uses(&h, &facts, h.len()).iter().all(Vec::is_empty));
}

#[test]
fn last_use_aging_counts_keep_recent_from_the_last_use_and_an_aged_result_stays_aged() {
    let mut s = settings(0);
    // From entry: c1 has six later results, the fifth (c6) is `by`.
    s.policy2.aging = Aging::Entry;
    let h = working_set_history();
    assert_eq!(
        elided_by(&h, &s),
        [("c1".into(), "aged_output".into(), "c6".into())]
    );
    // From the last use (message 9): c5, c6, c7 are three later results, so c1 stays.
    s.policy2.aging = Aging::LastUse;
    assert_eq!(elided_by(&h, &s), []);
    // Two more: five after the use, the fifth (c9) is `by`.
    let mut h = h;
    push_runs(&mut h, 8..=9);
    assert_eq!(
        elided_by(&h, &s),
        [("c1".into(), "aged_output".into(), "c9".into())]
    );
    // A use after the boundary at which c1 aged (message 19 writes `Other_Key_88`) does not
    // bring it back.
    h.push(shell("c10", "grep Other_Key_88 y.py"));
    h.push(out("c10", "ok", 0));
    assert_eq!(
        elided_by(&h, &s),
        [("c1".into(), "aged_output".into(), "c9".into())]
    );
}
