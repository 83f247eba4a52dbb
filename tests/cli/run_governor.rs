//! The runner and the governor (spec/sessions.md §7, §6.10; spec/sessions.md §11 cases 50, 52).

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

// 50
#[test]
fn mode_on_sends_the_invariants_block_only_after_the_first_checkpoint() {
    let ws = Ws::new();
    script(
        &ws,
        &[
            r#"{"expect":{"notContains":["<invariants"]},"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"expect":{"notContains":["<invariants"]},"text":"listed","usage":{"input":1690,"output":20}}"#,
        ],
    );
    let (r, ev) = run(
        &ws,
        "list the files and never use semicolons",
        &["--governor", "on", "--goal", "Ship the release"],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let id = sid(&ev);
    script(
        &ws,
        &[
            r#"{"alisioScript":1,"contextWindow":2000}"#,
            r#"{"for":"summary","expect":{"notContains":["<invariants"],"contains":["instructionQuotes"]},"text":"{\"checkpoint\":{\"goal\":\"list\"},\"instructionQuotes\":[\"never use semicolons\",\"made up\"]}"}"#,
            r#"{"expect":{"contains":["<invariants policy=","Ship the release","never use semicolons","Active grants"],"lastRole":"user"},"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"expect":{"contains":["<invariants policy="],"lastRole":"user"},"text":"done"}"#,
        ],
    );
    let (r, ev) = run(
        &ws,
        "continue",
        &[
            "--session",
            &id,
            "--governor",
            "on",
            "--goal",
            "Ship the release",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(of_type(&ev, "compaction_completed").len(), 1);
    let c = db(&ws);
    let n: i64 = c
        .query_row(
            "SELECT count(*) FROM messages WHERE json LIKE '%<invariants%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 0, "the block is never stored");
    let o: Value = serde_json::from_str(
        &c.query_row("SELECT options FROM sessions WHERE id=?1", [&id], |r| {
            r.get::<_, String>(0)
        })
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        o["contextInvariants"],
        json!({"version":1,"instructions":["never use semicolons"]})
    );
    let governed = of_type(&ev, "context_governed");
    assert_eq!(
        governed.last().unwrap()["data"]["invariants"]["sent"],
        json!(true)
    );
}

// 52
#[test]
fn context_governed_is_emitted_once_per_built_request_in_shadow_and_on() {
    let ws = Ws::new();
    ws.file("a.txt", "x");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (_, ev) = run(&ws, "p", &[]);
    assert!(
        of_type(&ev, "context_governed").is_empty(),
        "mode off emits nothing"
    );
    for mode in ["shadow", "on"] {
        let (r, ev) = run(&ws, "p", &["--governor", mode]);
        assert_eq!(r.code, 0);
        let t = types(&ev);
        assert_eq!(
            t.iter().filter(|x| *x == "context_governed").count(),
            2,
            "{mode}"
        );
        let first_delta = t.iter().position(|x| x == "text_delta").unwrap();
        assert_eq!(
            t[first_delta - 1],
            "context_governed",
            "{mode}: before the request's deltas"
        );
        assert_eq!(of_type(&ev, "context_governed")[0]["data"]["mode"], mode);
    }
    let cut =
        r#"{"text":"","toolCalls":[{"name":"read_file","arguments":"{\"pa"}],"stop":"max_tokens"}"#;
    script(
        &ws,
        &[
            cut,
            r#"{"error":{"status":500,"message":"x"}}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "p", &["--governor", "shadow"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let g = of_type(&ev, "context_governed");
    assert_eq!(
        g.len(),
        2,
        "one more for the recovery, none for the HTTP retry"
    );
    assert_eq!(g[1]["data"]["recovery"], json!(true));
    assert_eq!(g[1]["data"]["request"], json!(2));
}
