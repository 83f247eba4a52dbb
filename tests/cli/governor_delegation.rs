//! `governor analyze --delegation` (spec/governor.md §11.9): the main-thread share of
//! transcripts with sub-agents.

use serde_json::json;

use crate::common::{Ws, corpus};
use crate::sess::*;

#[test]
fn the_corpus_claude_code_transcripts_with_subagents_give_their_main_thread_share() {
    let Some(c) = corpus() else {
        eprintln!("skipped: ../shared/corpus is not present");
        return;
    };
    let dir = c.join("transcripts/claude-code/moredip__session-share/samples/claude-code-projects");
    let a = dir.join("0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl");
    let b = dir.join("4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl");
    if !a.exists() || !b.exists() {
        eprintln!("skipped: the session-share samples are not in the corpus");
        return;
    }
    let ws = Ws::new();
    let r = ws.run(&[
        "governor",
        "analyze",
        "--delegation",
        "--json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    assert_eq!(v[0]["subagents"], json!(5));
    assert_eq!(
        v[0]["mainShare"],
        json!({"turns":0.524,"toolCalls":0.583,"chars":0.399})
    );
    assert_eq!(v[0]["briefs"]["count"], json!(5));
    assert_eq!(v[0]["briefs"]["chars"], json!(1345));
    assert_eq!(v[1]["subagents"], json!(1));
    assert_eq!(
        v[1]["mainShare"],
        json!({"turns":0.5,"toolCalls":0.5,"chars":0.379})
    );
}

#[test]
fn alisio_exports_count_their_children_with_the_root() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"t1","name":"task","arguments":{"description":"Read a","prompt":"Read a.txt"}}]}"#,
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}"#,
            r#"{"text":"alpha"}"#,
            r#"{"text":"done"}"#,
        ],
    );
    let (r, ev) = run(&ws, "delegate", &[]);
    assert_eq!(r.code, 0);
    let root = sid(&ev);
    let child = of_type(&ev, "run_started")[1]["sessionId"]
        .as_str()
        .unwrap()
        .to_string();
    for (id, f) in [(&root, "root.json"), (&child, "child.json")] {
        let s = ws.run(&["sessions", "show", id, "--json"]).stdout;
        ws.file(f, s);
    }
    let v = ws
        .run(&[
            "governor",
            "analyze",
            "--delegation",
            "--json",
            "root.json",
            "child.json",
        ])
        .json();
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v[0]["subagents"], json!(1));
    assert_eq!(v[0]["main"]["turns"], json!(2));
    assert_eq!(v[0]["subagent"]["turns"], json!(2));
    assert_eq!(v[0]["subagent"]["toolCalls"], json!(1));
    assert_eq!(
        v[0]["briefs"],
        json!({"count":1,"chars":10,"min":10,"max":10})
    );
}
