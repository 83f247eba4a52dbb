//! `governor analyze`'s recorded bill (spec/governor.md §11.11): the provider's reported usage of
//! the replayed requests, against the replay's saving; exact values on a written transcript and
//! the corpus sums pinned with docs/governor.md.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::governor_policy2::{analyze, format_files};

fn line(v: &Value) -> String {
    v.to_string()
}

fn usage(input: u64, write: u64, read: u64, output: u64) -> Value {
    json!({"input_tokens":input,"cache_creation_input_tokens":write,"cache_read_input_tokens":read,"output_tokens":output})
}

/// A Claude Code session: a prompt, a `Read` whose 10,000-character result policy 2 spills at
/// entry, an answer; two responses carry their usage.
pub(crate) fn transcript() -> String {
    let big = "x".repeat(10_000);
    let user = |uuid: &str, parent: Option<&str>, content: Value| {
        json!({"type":"user","uuid":uuid,"parentUuid":parent,"sessionId":"S","isSidechain":false,
            "cwd":"/p","message":{"role":"user","content":content}})
    };
    let asst = |uuid: &str, parent: &str, id: &str, blocks: Value, u: Value| {
        json!({"type":"assistant","uuid":uuid,"parentUuid":parent,"sessionId":"S","isSidechain":false,
            "cwd":"/p","message":{"id":id,"role":"assistant","content":blocks,"usage":u}})
    };
    [
        user("u1", None, json!("read x")),
        asst(
            "a1",
            "u1",
            "m1",
            json!([{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/p/x"}}]),
            usage(4, 3675, 10491, 5),
        ),
        user(
            "u2",
            Some("a1"),
            json!([{"type":"tool_result","tool_use_id":"t1","content":big}]),
        ),
        asst(
            "a2",
            "u2",
            "m2",
            json!([{"type":"text","text":"done"}]),
            usage(6, 286, 14166, 9),
        ),
    ]
    .iter()
    .map(line)
    .collect::<Vec<_>>()
    .join("\n")
}

/// Request r's cost from a stream's `perRequest` columns at the default prices (§11.8).
fn cost_at(columns: &Value, r: usize) -> f64 {
    let input = columns["inputTokens"][r].as_f64().unwrap();
    let cached = columns["cachedTokens"][r].as_f64().unwrap();
    0.1 * cached + 1.25 * (input - cached)
}

#[test]
fn the_recorded_bill_sums_the_reported_usage_and_puts_the_saving_against_it() {
    let ws = Ws::new();
    ws.file("s.jsonl", transcript());
    let r = ws.run(&["--json", "governor", "analyze", "s.jsonl"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v = r.json();
    let rp = &v[0]["replay"];
    // Three requests (before each answer, then the final one); the first two were recorded.
    assert_eq!(rp["requests"], 3);
    let b = &rp["recorded"];
    assert_eq!(b["requests"], 2);
    assert_eq!(b["inputTokens"], 4 + 3675 + 10491 + 6 + 286 + 14166);
    assert_eq!(b["cachedTokens"], 10491 + 14166);
    // 1.25 × (4 + 3,675) + 0.1 × 10,491 + 1.25 × (6 + 286) + 0.1 × 14,166 = 7,429.45.
    let cost = b["cost"].as_f64().unwrap();
    assert!((cost - 7429.45).abs() < 1e-9, "{cost}");
    let per = &rp["perRequest"];
    let off = cost_at(&per["off"], 0) + cost_at(&per["off"], 1);
    let governed = cost_at(&per["governed"], 0) + cost_at(&per["governed"], 1);
    assert!((b["offCost"].as_f64().unwrap() - off).abs() < 1e-9);
    assert!((b["governedCost"].as_f64().unwrap() - governed).abs() < 1e-9);
    // The spill at entry makes the second request smaller: governing saves.
    assert!(governed < off, "{governed} {off}");
    let recovery = rp["recovery"]["governed"]["recoveryCost"].as_f64().unwrap();
    assert_eq!(b["recoveryCost"].as_f64(), Some(recovery));
    let saved = off - governed - recovery;
    assert!((b["saved"].as_f64().unwrap() - saved).abs() < 1e-9);
    assert!((b["savedShare"].as_f64().unwrap() - saved / 7429.45).abs() < 1e-12);
    // The human form: one line per session and one for all, the same figures.
    let h = ws.run(&["governor", "analyze", "s.jsonl"]);
    let want = format!(
        "recorded (as the provider reported it): 2 requests, 28628 input tokens (24657 cached), cost 7429.5; replay off {off:.1} ({:.3} of it); saved with recovery {saved:.1} ({:.3} of it)",
        off / 7429.45,
        saved / 7429.45
    );
    assert!(
        h.stdout.contains(&format!("  replay {want}\n")),
        "{}",
        h.stdout
    );
    assert!(
        h.stdout.contains(&format!("  all {want}\n")),
        "{}",
        h.stdout
    );
}

#[test]
fn a_transcript_without_usage_has_no_recorded_bill() {
    let ws = Ws::new();
    let t = transcript().replace(",\"usage\":", ",\"unused\":");
    ws.file("s.jsonl", t);
    let r = ws.run(&["--json", "governor", "analyze", "s.jsonl"]);
    assert_eq!(r.code, 0);
    let v = r.json();
    assert!(
        v[0]["replay"].get("recorded").is_none(),
        "{}",
        v[0]["replay"]
    );
    let h = ws.run(&["governor", "analyze", "s.jsonl"]);
    assert!(!h.stdout.contains("recorded"), "{}", h.stdout);
}

/// The corpus, per format (docs/governor.md, "The recorded bill"): requests with a recorded
/// usage, their input tokens and cached part, the share of the recorded bill the replay's `off`
/// sees, and the share governing saves with recovery, to 3 decimals.
#[test]
#[allow(clippy::print_stderr)]
fn the_corpus_recorded_bills_are_pinned() {
    let mut got = Vec::new();
    for fmt in ["claude-code", "codex", "mini-swe-agent"] {
        let Some(files) = format_files(fmt) else {
            eprintln!("corpus absent: skipped");
            return;
        };
        let (mut n, mut input, mut cached, mut cost, mut off, mut saved) = (0, 0, 0, 0.0, 0.0, 0.0);
        for s in analyze(&files, &[]) {
            let b = &s["replay"]["recorded"];
            if b.is_null() {
                continue;
            }
            n += b["requests"].as_u64().unwrap();
            input += b["inputTokens"].as_u64().unwrap();
            cached += b["cachedTokens"].as_u64().unwrap();
            cost += b["cost"].as_f64().unwrap();
            off += b["offCost"].as_f64().unwrap();
            saved += b["saved"].as_f64().unwrap();
        }
        let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
        got.push((fmt, n, input, cached, r3(off / cost), r3(saved / cost)));
    }
    assert_eq!(
        got,
        [
            ("claude-code", 697, 31_460_594, 29_841_948, 0.415, 0.208),
            ("codex", 301, 27_384_760, 25_557_248, 0.649, 0.251),
            ("mini-swe-agent", 1742, 65_641_525, 65_075_712, 0.924, 0.18),
        ]
    );
}

/// Our own export (`sessions show ID --json`) carries each answer's usage, and `governor analyze`
/// puts its replay against it like any transcript's (spec/governor.md §11.11): a scripted session
/// with two reported usages, 5,000 written (6,250) then 200 written and 5,000 read (750).
#[test]
fn an_alisio_export_has_its_recorded_bill() {
    let ws = Ws::new();
    crate::sess::script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}],"usage":{"input":5000,"output":10,"cacheWrite":5000}}"#,
            r#"{"text":"ok","usage":{"input":5200,"output":5,"cacheRead":5000,"cacheWrite":200}}"#,
        ],
    );
    let (r, ev) = crate::sess::run(&ws, "hello", &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = crate::sess::sid(&ev);
    let export = ws.run(&["sessions", "show", &id, "--json"]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    ws.file("export.json", &export.stdout);
    let v = ws
        .run(&["--json", "governor", "analyze", "export.json"])
        .json();
    let b = &v[0]["replay"]["recorded"];
    assert_eq!(b["requests"], 2, "{b}");
    assert_eq!(b["inputTokens"], 10_200);
    assert_eq!(b["cachedTokens"], 5000);
    assert_eq!(b["cost"], json!(7000.0));
}
