//! The README's first command: the bundled demo plays a scripted session without an API key.

use std::path::Path;

use serde_json::Value;

use crate::common::{Run, Ws, copy_dir};
use crate::sess::*;

/// `run <flags>` of the demo's script in `examples/demo`, with the README's prompt.
fn demo(ws: &Ws, flags: &[&str]) -> Run {
    let mut args = vec!["run"];
    args.extend(flags);
    args.extend([
        "--cwd",
        "examples/demo",
        "--script",
        "session.jsonl",
        "Where is the greeting built?",
    ]);
    ws.run(&args)
}

#[test]
fn the_demo_session_runs_offline_and_attaches_nested_instructions() {
    let ws = Ws::new();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo"),
        &ws.root.join("examples/demo"),
    );
    let r = demo(&ws, &["--json", "--governor", "on"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let ev = events(&r);
    assert_eq!(of_type(&ev, "turn_completed").len(), 19);
    let governed = of_type(&ev, "context_governed");
    assert_eq!(governed.len(), 19, "one per request");
    // Policy 2's cache gate (the default `expected+bank`, spec/governor.md §2.7) spends only what
    // governing has saved: this short session spills nothing at entry and never finds the cache
    // cold, so every rewrite its boundaries offer is refused and every request costs what `off`
    // costs, never more.
    for g in &governed {
        let replay = &g["data"]["replay"];
        assert_eq!(replay["governed"], replay["off"], "{g}");
    }
    let last = &governed.last().unwrap()["data"];
    assert_eq!(last["elided"], 0, "{last}");
    // Without batching (`epochMessages` 0, not gated) the repeated searches are elided.
    ws.file(
        "examples/demo/e0.json",
        r#"{"context":{"elide":{"epochMessages":0}}}"#,
    );
    let e0 = events(&demo(
        &ws,
        &["--json", "--governor", "on", "--config", "e0.json"],
    ));
    let e0 = &of_type(&e0, "context_governed").last().unwrap()["data"].clone();
    assert_eq!(
        e0["byReason"],
        serde_json::json!({"superseded_read": 0, "stale_bg_output": 0, "duplicate_search": 7,
            "oversized": 0, "aged_output": 4, "expired": 2, "denied": 0})
    );
    assert_eq!(e0["elided"], 13);
    // ... and each request that elides anew rewrites the cached prefix: the last one sends 2,780
    // tokens instead of 5,793 and costs more than `off`'s (what the gate is there to prevent).
    assert_eq!(e0["replay"]["governed"]["inputTokens"], 2780);
    assert_eq!(e0["replay"]["governed"]["cacheBreaks"], 1);
    assert!(
        e0["replay"]["governed"]["cost"].as_f64() > e0["replay"]["off"]["cost"].as_f64(),
        "{e0}"
    );
    let done = &of_type(&ev, "run_completed")[0]["data"];
    assert!(
        done["text"]
            .as_str()
            .unwrap()
            .starts_with("The greeting is built by `greeting()`")
    );
    let t = tool_results(&ws, &sid(&ev));
    assert!(
        result_text(&t[2]).contains("Instructions from: examples/demo/src/AGENTS.md"),
        "the nested file reaches the first read below it"
    );
    let human = demo(&ws, &[]);
    assert_eq!(human.code, 0);
    assert!(human.stdout.contains("The greeting is built by"));
    assert!(human.stderr.contains("→ search_text"));
    assert!(human.stderr.contains("Session: "));
    // The figures below are policy 1's (policy 2 also trims aged outputs).
    ws.file(
        "examples/demo/p1.json",
        r#"{"context":{"policyVersion":1}}"#,
    );
    let on = demo(&ws, &["--config", "p1.json", "--governor", "on"]);
    assert!(
        on.stderr
            .contains("Context report (governor on): 38 messages"),
        "{}",
        on.stderr
    );
    assert!(on.stderr.contains("duplicate_search 4"), "{}", on.stderr);
    // Under policy 2 (the default) the run's report names all seven reasons, in the report's order
    // (issue 21 §6; spec/governor.md §6.4).
    let p2 = demo(&ws, &["--governor", "on"]);
    let line = p2
        .stderr
        .lines()
        .find_map(|l| l.split("byReason (").nth(1))
        .unwrap_or_else(|| panic!("no byReason in {}", p2.stderr));
    let names: Vec<&str> = line
        .split(')')
        .next()
        .unwrap_or_default()
        .split(", ")
        .filter_map(|kv| kv.split(' ').next())
        .collect();
    assert_eq!(
        names,
        [
            "superseded_read",
            "stale_bg_output",
            "duplicate_search",
            "oversized",
            "aged_output",
            "expired",
            "denied"
        ]
    );
    let rep = ws
        .run(&[
            "sessions",
            "report",
            &sid(&ev),
            "--json",
            "--config",
            "examples/demo/p1.json",
        ])
        .json();
    assert_eq!(rep["mode"], "on");
    assert_eq!(rep["measured"], serde_json::json!(true));
    assert_eq!(rep["messages"], serde_json::json!(38));
    assert_eq!(rep["totals"]["elided"], serde_json::json!(4));
    assert_eq!(
        rep["usage"], last["usage"],
        "a fresh process reports the ledger of the run's last request"
    );
    let read = &rep["usage"]["perTool"]["read_file"];
    assert_eq!(
        read["unused"].as_u64().unwrap(),
        read["seen"].as_u64().unwrap()
            - read["used"].as_u64().unwrap()
            - read["reread"].as_u64().unwrap()
    );
}

/// The README's coordinator command (spec/sessions.md §12): offline, the root glances, its edit
/// is refused with the delegation message, and a sub-session does the reading.
#[test]
fn the_coordinator_demo_delegates_offline() {
    let ws = Ws::new();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo"),
        &ws.root.join("examples/demo"),
    );
    let r = ws.run(&[
        "run",
        "--json",
        "--cwd",
        "examples/demo",
        "--mode",
        "coordinator",
        "--script",
        "coordinator.jsonl",
        "Where is the greeting built?",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let ev = events(&r);
    let root = sid(&ev);
    let t = tool_results(&ws, &root);
    let g: Value = serde_json::from_str(&result_text(&t[0])).unwrap();
    assert_eq!(g["stdout"], "AGENTS.md\ngreet.rs\nmain.rs\n");
    assert_eq!(t[1]["denial"], "coordinator");
    let out: Value = serde_json::from_str(&result_text(&t[2])).unwrap();
    assert_eq!(
        out["text"],
        "examples/demo/src/greet.rs: `greeting()` builds it."
    );
    assert_eq!(
        of_type(&ev, "run_started").len(),
        2,
        "root and one sub-session"
    );
}
