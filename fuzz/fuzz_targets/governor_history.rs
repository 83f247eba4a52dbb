//! The governor over generated histories: the input drives a Claude Code transcript of tool
//! calls on a few paths (reads with and without ranges, writes, edits, shell commands, task
//! polls) and their results, then the governor replays it request by request as a live
//! session does, in every mode. No panic; the governed history keeps every message and every
//! call; stubs replace tool results only, and only in mode `on`.
#![no_main]

use alisio_ls::config::{GovernorMode, Settings};
use alisio_ls::governor::model::Message;
use alisio_ls::governor::readers::{Format, read};
use alisio_ls::governor::{GovSettings, SessionGovernor, Turn};
use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

const PATHS: &[&str] = &["/p/a.c", "/p/b.rs", "/p/dir/c.md", "a.c", "/etc/x"];

fn call(u: &mut Unstructured<'_>, id: &str) -> (Value, Value) {
    let path = *u.choose(PATHS).unwrap_or(&"a.c");
    let n = |u: &mut Unstructured<'_>| u.int_in_range(0..=300u32).unwrap_or(1);
    let (name, input, result) = match u.int_in_range(0..=6).unwrap_or(0) {
        0 => ("Read", json!({"file_path": path}), json!("   1\tint x;\n   2\tint y;\n")),
        1 => ("Read", json!({"file_path": path, "offset": n(u), "limit": n(u)}), json!("   5\tz\n")),
        2 => ("Write", json!({"file_path": path, "content": "x"}), json!("File created")),
        3 => ("Edit", json!({"file_path": path, "old_string": "x", "new_string": "y"}), json!("ok")),
        4 => {
            let cmd = *u.choose(&["cat a.c", "ls -la", "grep -r x .", "cat a.c > b.rs", "sed -i s/x/y/ a.c", "git diff", "echo $(cat /p/a.c)"]).unwrap_or(&"ls");
            ("Bash", json!({"command": cmd}), json!("out\n"))
        }
        5 => ("BashOutput", json!({"bash_id": "t1"}), json!("{\"status\":\"running\"}")),
        _ => ("Glob", json!({"pattern": "**/*.rs"}), json!(["a.rs"])),
    };
    let use_ = json!({"type": "tool_use", "id": id, "name": name, "input": input});
    let res = json!({"type": "tool_result", "tool_use_id": id, "content": result, "is_error": u.ratio(1, 10).unwrap_or(false)});
    (use_, res)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    let mut k = 0;
    let line = |kind: &str, message: Value, parent: &mut Value, k: &mut usize| {
        *k += 1;
        let uuid = format!("u{k}");
        let v = json!({"parentUuid": parent.clone(), "isSidechain": false, "type": kind, "uuid": uuid, "sessionId": "s", "cwd": "/p", "message": message});
        *parent = json!(uuid);
        v.to_string()
    };
    lines.push(line("user", json!({"role": "user", "content": "Fix the bug"}), &mut parent, &mut k));
    for turn in 0..u.int_in_range(0..=40).unwrap_or(0) {
        let calls = u.int_in_range(0..=3).unwrap_or(1);
        let mut uses = vec![json!({"type": "text", "text": "working"})];
        let mut results = Vec::new();
        for c in 0..calls {
            let (a, b) = call(&mut u, &format!("t{turn}_{c}"));
            uses.push(a);
            results.push(b);
        }
        lines.push(line("assistant", json!({"id": format!("m{turn}"), "role": "assistant", "content": uses}), &mut parent, &mut k));
        if !results.is_empty() && !u.ratio(1, 20).unwrap_or(false) {
            lines.push(line("user", json!({"role": "user", "content": results}), &mut parent, &mut k));
        }
        if u.ratio(1, 8).unwrap_or(false) {
            lines.push(line("user", json!({"role": "user", "content": "Also keep tests green"}), &mut parent, &mut k));
        }
    }
    let bytes = lines.join("\n").into_bytes();
    let Ok((_, sessions)) = read(&bytes, Some(Format::ClaudeCode), "gen.jsonl") else { return };
    let mut cfg = Settings::default();
    cfg.elide_min_age_turns = u.int_in_range(0..=4).unwrap_or(2);
    cfg.elide_epoch_messages = Some(*u.choose(&[1u32, 2, 4, 32]).unwrap_or(&32));
    for mode in [GovernorMode::Off, GovernorMode::Shadow, GovernorMode::On] {
        let mut settings = GovSettings::from_config(&cfg);
        settings.mode = mode;
        for s in &sessions {
            let mut gov = SessionGovernor::new();
            let ends: Vec<usize> = s.history.iter().enumerate().filter(|(_, m)| m.is_assistant()).map(|(i, _)| i).chain([s.history.len()]).collect();
            for (n, end) in ends.into_iter().enumerate() {
                let turn = Turn { session_id: &s.source.session, history: &s.history[..end], parts: &s.parts, sources: &s.sources, request: n as u64 + 1, recovery: false };
                let sent = gov.request(&settings, turn);
                let projected = sent.messages(&s.history[..end]);
                assert_eq!(projected.len(), end, "governed history changed length");
                for (i, _) in &sent.stubs {
                    assert!(matches!(s.history.get(*i), Some(Message::Tool(_))), "stub on a message that is not a tool result: {i}");
                    assert!(*i < end);
                }
                if mode != GovernorMode::On {
                    assert!(sent.stubs.is_empty(), "{mode:?} replaced results");
                }
                if let Some(ev) = &sent.event {
                    let _ = serde_json::to_string(ev);
                }
            }
        }
    }
});
