//! Human output of `run` and `sessions report` (docs/install.md "Terminal output"): the model's
//! text ends its line before a tool line; the report is a table like `governor analyze`'s
//! with the usage per tool, and `--json` keeps the JSON.

use std::process::Command;

use crate::common::{Ws, bin, run_cmd};
use crate::sess::*;

const STEPS: &[&str] = &[
    r#"{"text":"Let me look.","toolCalls":[{"id":"r1","name":"read_file","arguments":{"path":"a.txt"}}]}"#,
    r#"{"toolCalls":[{"id":"l1","name":"list_files","arguments":{}}]}"#,
    r#"{"toolCalls":[{"id":"r2","name":"read_file","arguments":{"path":"a.txt"}}]}"#,
    r#"{"text":"Done."}"#,
];

#[test]
fn run_puts_the_tool_line_on_its_own_line_after_the_models_text() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    script(&ws, STEPS);
    // stdout and stderr into one pipe, as on a terminal.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "'{}' run --script s.jsonl hello 2>&1",
            bin().display()
        ))
        .env("HOME", &ws.home)
        .env("ALISIO_CONFIG_HOME", &ws.config_home)
        .env("ALISIO_STATE_HOME", state(&ws))
        .current_dir(&ws.root);
    let r = run_cmd(&mut cmd);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.starts_with(
            "Let me look.\n→ read_file {\"path\":\"a.txt\"}\n→ list_files {}\n→ read_file {\"path\":\"a.txt\"}\nDone.\n"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn sessions_report_prints_the_summary_the_tools_and_the_segment_table() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    script(&ws, STEPS);
    let (r, ev) = run(&ws, "hello", &["--governor", "on"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = sid(&ev);
    let json = ws.run(&["sessions", "report", &id, "--json"]).json();
    let human = ws.run(&["sessions", "report", &id]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    let lines: Vec<&str> = human.stdout.lines().collect();
    assert_eq!(lines[0], format!("session {id}"));
    let t = &json["totals"];
    assert_eq!(
        lines[1],
        format!(
            "  {} messages, 0 elided (superseded_read 0, stale_bg_output 0, duplicate_search 0, oversized 0, aged_output 0, expired 0, denied 0); tokens {} -> {} (saved 0, 0.0%)",
            json["messages"], t["tokensBefore"], t["tokensAfter"]
        )
    );
    let tokens = |tool: &str| -> u64 {
        json["segments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["tool"] == tool && s["kind"] == "tool_result")
            .map(|s| s["tokens"].as_u64().unwrap())
            .sum()
    };
    // The ledger's figures per tool, as the report JSON carries them ("-" where it has none).
    let usage = |tool: &str, k: &str| -> String {
        json["usage"]["perTool"][tool][k]
            .as_u64()
            .map_or_else(|| "-".to_string(), |n| n.to_string())
    };
    assert!(
        json["usage"]["perTool"]["list_files"]["seen"].is_u64(),
        "{json}"
    );
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("tool "))
        .unwrap();
    assert_eq!(
        lines[header],
        "  tool             calls result tokens elided   saved  seen  used reread"
    );
    assert_eq!(
        lines[header + 1],
        format!(
            "  {:<16} {:>5} {:>13} {:>6} {:>7} {:>5} {:>5} {:>6}",
            "list_files",
            1,
            tokens("list_files"),
            0,
            0,
            usage("list_files", "seen"),
            usage("list_files", "used"),
            usage("list_files", "reread")
        )
    );
    assert_eq!(
        lines[header + 2],
        format!(
            "  {:<16} {:>5} {:>13} {:>6} {:>7} {:>5} {:>5} {:>6}",
            "read_file",
            2,
            tokens("read_file"),
            0,
            0,
            usage("read_file", "seen"),
            usage("read_file", "used"),
            usage("read_file", "reread")
        )
    );
    assert!(
        human
            .stdout
            .contains("       0  system       pinned   system_prompt"),
        "{}",
        human.stdout
    );
    assert!(!human.stdout.contains('{'), "no JSON in the human output");
}
