//! The ContextReport over LSP after a real run (issue 13 §4): one segment per instruction
//! file, the skill catalog as `skills`, and the usage ledger's figures per tool.

use serde_json::json;

use crate::common::Ws;
use crate::harness::Lsp;

#[test]
fn context_report_after_a_run_has_file_segments_the_catalog_and_usage() {
    let ws = Ws::new();
    std::fs::write(ws.config_home.join("AGENTS.md"), "global rules").unwrap();
    ws.files(&[
        ("AGENTS.md", "root rules"),
        (
            ".agents/skills/pdf-tools/SKILL.md",
            "---\nname: pdf-tools\ndescription: Extract text from PDF files.\n---\nbody\n",
        ),
        ("a.txt", "alpha"),
        ("b.txt", "beta"),
    ]);
    let lines = [
        json!({"toolCalls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}),
        json!({"toolCalls":[{"name":"read_file","arguments":{"path":"b.txt"}}]}),
        json!({"toolCalls":[{"name":"search_text","arguments":{"pattern":"zzz","path":"a.txt"}}]}),
        json!({"text":"done"}),
    ];
    let script = ws.file(
        "script.jsonl",
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    let mut lsp = Lsp::spawn({
        let mut c = ws.cmd();
        c.arg("serve");
        c
    });
    lsp.initialize(&ws.root, json!({}), json!({"trusted": true}));
    let r = lsp
        .request(
            "alisio/runSession",
            json!({"prompt": "look", "governor": "shadow",
            "provider": {"kind": "script", "script": script}}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    let sid = r["sessionId"].as_str().unwrap().to_string();
    let report = lsp
        .request("alisio/contextReport", json!({"sessionId": sid}))
        .unwrap();
    // a.txt is named by the later search (used); b.txt by nothing (unused); the search found
    // nothing, so it is not attributable.
    let usage = json!({"perTool":{"read_file":{"seen":2,"used":1,"reread":0,"unused":1}},"notAttributable":1});
    assert_eq!(report["usage"], usage, "{report:#}");
    assert_eq!(r["report"]["usage"], usage, "the run's own report");
    let segs = report["segments"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = segs
        .iter()
        .take(5)
        .map(|s| (s["kind"].as_str().unwrap(), s["origin"].as_str().unwrap()))
        .collect();
    assert_eq!(kinds[0], ("system", "system"));
    assert!(kinds[1].1.ends_with("config-home/AGENTS.md"), "{kinds:?}");
    assert_eq!(
        &kinds[2..],
        &[
            ("instructions", "AGENTS.md"),
            ("skills", "skills"),
            ("tools", "tools")
        ]
    );
}
