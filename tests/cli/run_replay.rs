//! The live replay figures (spec/governor.md §7.1, §11.8): every `context_governed` event of a
//! run carries its request's cache-aware figures, and the session's report (`sessions report`,
//! `alisio/contextReport`, the run's own report) sums them into `replay` with the per-request
//! columns the Context Report view charts, across runs and processes.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

const LIST_FILES: &str = r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#;

fn report(ws: &Ws, id: &str) -> Value {
    let r = ws.run(&["sessions", "report", id, "--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.json()
}

fn column(evs: &[&Value], stream: &str, k: &str) -> Value {
    json!(
        evs.iter()
            .map(|e| e["data"]["replay"][stream][k].clone())
            .collect::<Vec<_>>()
    )
}

#[test]
fn every_request_stores_its_replay_figures_and_the_session_report_sums_them_across_runs() {
    let ws = Ws::new();
    // Two requests: a tool call, then the answer.
    script(&ws, &[LIST_FILES, r#"{"text":"ok"}"#]);
    let (r, ev) = run(&ws, "hello", &["--governor", "on"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = sid(&ev);
    let first = of_type(&ev, "context_governed");
    assert_eq!(first.len(), 2);
    for e in &first {
        let d = &e["data"];
        // Off is the history as sent: the event's tokensBefore.
        assert_eq!(d["replay"]["off"]["inputTokens"], d["tokensBefore"]);
        assert_eq!(d["replay"]["off"]["cacheBreaks"], 0);
    }
    let (a, b) = (&first[0]["data"]["replay"], &first[1]["data"]["replay"]);
    // Nothing is cached at the first request; the second appends to it: all of it is cached.
    assert_eq!(a["off"]["cachedTokens"], 0);
    assert_eq!(b["off"]["cachedTokens"], a["off"]["inputTokens"]);
    assert_eq!(b["governed"]["cachedTokens"], a["governed"]["inputTokens"]);
    let input = |f: &Value| f["inputTokens"].as_f64().unwrap();
    let cached = |f: &Value| f["cachedTokens"].as_f64().unwrap();
    let cost = 0.1 * cached(&b["off"]) + 1.25 * (input(&b["off"]) - cached(&b["off"]));
    assert!((b["off"]["cost"].as_f64().unwrap() - cost).abs() < 1e-9);

    // A fresh process (the CLI) reports the stored figures, summed, and their columns.
    let rep = report(&ws, &id);
    let rp = &rep["replay"];
    assert_eq!(rp["requests"], 2);
    assert_eq!(rp["baselines"], json!([]));
    for s in ["off", "governed"] {
        for k in ["inputTokens", "cachedTokens"] {
            let col = column(&first, s, k);
            assert_eq!(rp["perRequest"][s][k], col, "{s} {k}");
            let sum: u64 = col
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .sum();
            assert_eq!(rp[s][k], sum, "{s} {k}");
        }
    }
    // A resumed run (a new process) adds its requests: the report covers the whole session.
    // Its first request is compared with the session's last one (request 2, projected again):
    // the history only grew, so all of request 2 is cached.
    script(&ws, &[r#"{"text":"again"}"#]);
    // Plain output: the run's own report is printed on stderr.
    let r2 = ws.run(&[
        "run",
        "--script",
        "s.jsonl",
        "--session",
        &id,
        "--governor",
        "on",
        "more",
    ]);
    assert_eq!(r2.code, 0, "{}", r2.stderr);
    assert!(
        r2.stderr.contains("\n  replay: 3 requests; "),
        "the resumed run's report covers the session: {}",
        r2.stderr
    );
    let rp = report(&ws, &id)["replay"].clone();
    assert_eq!(rp["requests"], 3);
    let col = |s: &str, k: &str| rp["perRequest"][s][k].as_array().unwrap().clone();
    assert_eq!(
        col("off", "inputTokens")[..2],
        column(&first, "off", "inputTokens").as_array().unwrap()[..]
    );
    assert_eq!(
        col("governed", "cachedTokens")[..2],
        column(&first, "governed", "cachedTokens")
            .as_array()
            .unwrap()[..]
    );
    assert_eq!(col("off", "cachedTokens")[2], b["off"]["inputTokens"]);
    assert_eq!(
        col("governed", "cachedTokens")[2],
        b["governed"]["inputTokens"]
    );
    assert_eq!(rp["off"]["cacheBreaks"], 0);
    assert!(
        col("off", "inputTokens")[2].as_u64().unwrap() > b["off"]["inputTokens"].as_u64().unwrap()
    );
}

#[test]
fn a_session_in_mode_off_has_no_replay() {
    let ws = Ws::new();
    script(&ws, &[r#"{"text":"hi"}"#]);
    let (_, ev) = run(&ws, "hello", &["--governor", "off"]);
    assert!(of_type(&ev, "context_governed").is_empty());
    assert!(report(&ws, &sid(&ev)).get("replay").is_none());
}

/// `provider.promptCacheTtlSeconds` (spec/sessions.md §5.1): a resumed run whose session's last
/// request is older than the provider's cache lifetime sends its first request cold, and its live
/// replay figures say so in both streams; the next run, right after, reads from the cache again.
/// Without a lifetime (the script provider's default) the same pause is not taken as cold.
#[test]
fn a_request_after_the_providers_cache_lifetime_is_cold_in_the_live_replay() {
    for (ttl, cold) in [(Some(300), true), (None, false)] {
        let ws = Ws::new();
        let cfg = ttl.map_or_else(
            || json!({}),
            |t| json!({"provider": {"promptCacheTtlSeconds": t}}),
        );
        ws.file("cfg.json", cfg.to_string());
        script(&ws, &[LIST_FILES, r#"{"text":"ok"}"#]);
        let args = ["--governor", "on", "--config", "cfg.json"];
        let (r, ev) = run(&ws, "hello", &args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let id = sid(&ev);
        // The session's requests were built ten minutes and more ago.
        db(&ws)
            .execute(
                "UPDATE events SET timestamp='2020-01-01T00:00:00.000Z' WHERE type='context_governed'",
                [],
            )
            .unwrap();
        let resumed = |ws: &Ws, text: &str| {
            script(ws, &[&format!(r#"{{"text":"{text}"}}"#)]);
            let mut a = vec!["--session", id.as_str()];
            a.extend(args);
            let (r, ev) = run(ws, text, &a);
            assert_eq!(r.code, 0, "{}", r.stderr);
            let g = of_type(&ev, "context_governed");
            assert_eq!(g.len(), 1);
            g[0]["data"].clone()
        };
        let first = resumed(&ws, "again");
        assert_eq!(first["cacheCold"], cold);
        for s in ["off", "governed"] {
            let cached = first["replay"][s]["cachedTokens"].as_u64().unwrap();
            assert_eq!(
                cached == 0,
                cold,
                "{s} after the pause, ttl {ttl:?}: {first}"
            );
        }
        let next = resumed(&ws, "more");
        assert_eq!(next["cacheCold"], false);
        for s in ["off", "governed"] {
            let cached = next["replay"][s]["cachedTokens"].as_u64().unwrap();
            assert!(cached > 0, "{s}: {next}");
        }
    }
}

/// The recorded bill of a live session (spec/governor.md §11.11, "Live sessions"): the usage the
/// provider reported for each request (`turn_completed`; a script line's `usage`, whose `input` is
/// the whole prompt, spec/sessions.md §5.5), priced at the replay's prices, against the live
/// replay's figures of the same request. A request without a reported usage (`estimated`) is left
/// out. In `on` the bill is the governed stream's, so the bill `off` would have run up adds the
/// saving; in `shadow` it is `off`'s own, and the saving there is not sent (`shadowSaved`).
#[test]
fn a_live_session_reports_its_recorded_bill_against_its_live_replay() {
    let ws = Ws::new();
    // A read that policy 2 spills at entry (10,000 characters): governing saves from the start.
    ws.file("big.txt", "word ".repeat(2000));
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"big.txt"}}],"usage":{"input":5000,"output":10,"cacheWrite":5000}}"#,
            LIST_FILES,
            r#"{"text":"ok","usage":{"input":5200,"output":5,"cacheRead":5000,"cacheWrite":200}}"#,
        ],
    );
    let (r, ev) = run(&ws, "hello", &["--governor", "on"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = sid(&ev);
    let governed = of_type(&ev, "context_governed");
    assert_eq!(governed.len(), 3);
    // Requests 1 and 3 reported their usage: 5,000 written (6,250), then 200 written and 5,000
    // read (250 + 500). Their live replay costs depend on the workspace's path (the system text
    // names it), so they are read from those two events; the spilled read saves 225.6 of them.
    let cost = |i: usize, s: &str| governed[i]["data"]["replay"][s]["cost"].as_f64().unwrap();
    let (off, gov) = (
        cost(0, "off") + cost(2, "off"),
        cost(0, "governed") + cost(2, "governed"),
    );
    let b = report(&ws, &id)["replay"]["recorded"].clone();
    assert_eq!(
        round_all(&b),
        round_all(
            &json!({"requests": 2, "inputTokens": 10_200, "cachedTokens": 5000,
            "cost": 7000.0, "offCost": off, "governedCost": gov, "recoveryCost": 0.0,
            "saved": 225.6, "sentCost": gov, "otherRequests": 0, "otherCost": 0.0,
            "shadowSaved": 0.0, "offBill": 7225.6,
            "savedShare": 225.6 / 7225.6})
        ),
        "{b}"
    );

    // A run in `shadow` on the same session: its request's bill is `off`'s own (6,750 for 5,400
    // written), and its saving (225.6) was not sent.
    let r2 = resume(
        &ws,
        &id,
        "shadow",
        r#"{"text":"again","usage":{"input":5400,"output":3,"cacheWrite":5400}}"#,
    );
    assert_eq!(r2.code, 0, "{}", r2.stderr);
    let rep = report(&ws, &id);
    let per = &rep["replay"]["perRequest"];
    let at = |s: &str| {
        let (i, c) = (
            per[s]["inputTokens"][3].as_f64().unwrap(),
            per[s]["cachedTokens"][3].as_f64().unwrap(),
        );
        0.1 * c + 1.25 * (i - c)
    };
    let (off2, gov2) = (off + at("off"), gov + at("governed"));
    assert_eq!(
        round_all(&rep["replay"]["recorded"]),
        round_all(
            &json!({"requests": 3, "inputTokens": 15_600, "cachedTokens": 5000,
            "cost": 13_750.0, "offCost": off2, "governedCost": gov2, "recoveryCost": 0.0,
            "saved": 451.2, "sentCost": gov + at("off"), "otherRequests": 0, "otherCost": 0.0,
            "shadowSaved": 225.6,
            "offBill": 13_975.6, "savedShare": 451.2 / 13_975.6})
        )
    );
    // The human report says it (`sessions report`), and the run's own report on stderr.
    let sent = gov + at("off");
    let line = format!(
        "  bill (tokens as the provider reported them, at the replay's prices): 3 requests, \
         15600 input tokens (5000 cached), cost 13750.0; the replay covers {sent:.1} of it \
         ({:.3}); saved 451.2 of the 13975.6 off would have been billed (0.032), 225.6 of it in \
         shadow requests (not sent, no recovery charged)\n",
        sent / 13_750.0
    );
    let h = ws.run(&["sessions", "report", &id]);
    assert!(h.stdout.contains(&line), "{}\n{line}", h.stdout);
    assert!(r2.stderr.contains(line.trim_end()), "{}\n{line}", r2.stderr);
}

/// A request of a run that failed is never answered: the turn of a later run in mode `off` (no
/// `context_governed` event) is not paired with it, and only the requests with both a live replay
/// and a reported usage are billed (spec/governor.md §11.11).
#[test]
fn a_failed_request_of_an_earlier_run_answers_no_turn_of_a_later_one() {
    let ws = Ws::new();
    script(&ws, &[r#"{"error":{"status":400,"message":"bad"}}"#]);
    let (r, ev) = run(&ws, "hello", &["--governor", "on"]);
    assert_ne!(r.code, 0);
    let id = sid(&ev);
    assert_eq!(of_type(&ev, "context_governed").len(), 1);
    let r2 = resume(
        &ws,
        &id,
        "off",
        r#"{"text":"off","usage":{"input":5000,"output":1,"cacheRead":4000}}"#,
    );
    assert_eq!(r2.code, 0, "{}", r2.stderr);
    let r3 = resume(
        &ws,
        &id,
        "on",
        r#"{"text":"on","usage":{"input":6000,"output":1,"cacheRead":5000}}"#,
    );
    assert_eq!(r3.code, 0, "{}", r3.stderr);
    let rp = report(&ws, &id)["replay"].clone();
    assert_eq!(rp["requests"], 2, "the failed request and the last one");
    let b = &rp["recorded"];
    // Only the last run's request: 1,000 uncached (1,250) and 5,000 read (500).
    assert_eq!(b["requests"], 1, "{b}");
    assert_eq!(b["inputTokens"], 6000);
    assert_eq!(b["cachedTokens"], 5000);
    assert_eq!(b["cost"], json!(1750.0));
}

/// A run of session `id` in governor `mode` whose script answers with `line`.
fn resume(ws: &Ws, id: &str, mode: &str, line: &str) -> crate::common::Run {
    script(ws, &[line]);
    ws.run(&[
        "run",
        "--script",
        "s.jsonl",
        "--session",
        id,
        "--governor",
        mode,
        "more",
    ])
}

/// Numbers rounded to 6 decimals (sums of prices are not exact in binary).
fn round(v: &Value) -> Value {
    v.as_f64()
        .filter(|_| v.is_f64())
        .map_or_else(|| v.clone(), |x| json!((x * 1e6).round() / 1e6))
}

fn round_all(v: &Value) -> Value {
    v.as_object().map_or_else(
        || v.clone(),
        |o| Value::Object(o.iter().map(|(k, x)| (k.clone(), round(x))).collect()),
    )
}

/// The answers the provider billed beyond the turns (spec/governor.md §11.11): a cut-off answer
/// the runner discarded (`truncation_recovery` carries its usage; it answered the request before
/// it) and a compaction's summary (`compaction_completed` carries its usage; the replay does not
/// see that request). Prices 0.1 / 1.25: run 1's two turns 1,500 and 1,690 uncached (1,875 +
/// 2,112.5); run 2's summary 3,000 (3,750), its cut-off answer 1,200 (1,500) and its answer, 300
/// uncached and 1,000 read (475).
#[test]
fn a_discarded_answer_and_a_compaction_summary_are_in_the_live_bill() {
    let ws = Ws::new();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}],"usage":{"input":1500,"output":10}}"#,
            r#"{"text":"listed","usage":{"input":1690,"output":20}}"#,
        ],
    );
    let (r, ev) = run(&ws, "list the files", &["--governor", "on"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = sid(&ev);
    script(
        &ws,
        &[
            r#"{"alisioScript":1,"contextWindow":2000}"#,
            r#"{"for":"summary","text":"We listed files.","usage":{"input":3000,"output":50}}"#,
            r#"{"stop":"max_tokens","text":"","usage":{"input":1200,"output":8}}"#,
            r#"{"text":"done","usage":{"input":1300,"output":5,"cacheRead":1000}}"#,
        ],
    );
    let r2 = ws.run(&[
        "run",
        "--json",
        "--script",
        "s.jsonl",
        "--session",
        &id,
        "--governor",
        "on",
        "now",
    ]);
    assert_eq!(r2.code, 0, "{}", r2.stderr);
    let ev2 = events(&r2);
    let done = &of_type(&ev2, "compaction_completed")[0]["data"];
    assert_eq!(
        done["usage"],
        json!({"input":3000,"output":50,"cacheRead":0,"cacheWrite":0,"estimated":false})
    );
    assert_eq!(
        of_type(&ev2, "truncation_recovery")[0]["data"]["usage"],
        json!({"input":1200,"output":8,"cacheRead":0,"cacheWrite":0,"estimated":false})
    );
    let rp = report(&ws, &id)["replay"].clone();
    // Four governed requests (the cut-off one included); five billed (and the summary).
    assert_eq!(rp["requests"], 4);
    let b = &rp["recorded"];
    assert_eq!(b["requests"], 5, "{b}");
    assert_eq!(b["otherRequests"], 1);
    assert_eq!(b["otherCost"], json!(3750.0));
    assert_eq!(b["inputTokens"], 8690);
    assert_eq!(b["cachedTokens"], 1000);
    assert_eq!(b["cost"], json!(9712.5));
    // What `off` would have been billed: the bill, plus the governed requests' saving.
    let (cost, saved) = (9712.5, b["saved"].as_f64().unwrap());
    assert!(
        (b["offBill"].as_f64().unwrap() - (cost + saved)).abs() < 1e-9,
        "{b}"
    );
}

/// The answer that ends a run is billed too (spec/governor.md §11.11): the third cut-off answer
/// fails the run with `output_truncated`, and `run_failed` carries its usage, so the live bill has
/// all three requests (1,000 + 1,100 + 1,200 input tokens, uncached: 4,125 at 1.25). A second
/// invalid turn ends the run the same way (`invalid_turn`), its usage on `run_failed` too; a run
/// that fails without an answer (`max_turns`) carries none.
#[test]
fn the_answer_that_ends_a_run_is_in_the_live_bill() {
    let ws = Ws::new();
    let cut = |input: u64| {
        format!(r#"{{"stop":"max_tokens","text":"","usage":{{"input":{input},"output":5}}}}"#)
    };
    script(&ws, &[&cut(1000), &cut(1100), &cut(1200)]);
    let (r, ev) = run(&ws, "go", &["--governor", "on"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(of_type(&ev, "truncation_recovery").len(), 2);
    let failed = &of_type(&ev, "run_failed")[0]["data"];
    assert_eq!(failed["code"], "output_truncated");
    assert_eq!(
        failed["usage"],
        json!({"input":1200,"output":5,"cacheRead":0,"cacheWrite":0,"estimated":false})
    );
    let rp = report(&ws, &sid(&ev))["replay"].clone();
    assert_eq!(rp["requests"], 3);
    let b = &rp["recorded"];
    assert_eq!(
        (
            &b["requests"],
            &b["inputTokens"],
            &b["cachedTokens"],
            &b["cost"]
        ),
        (&json!(3), &json!(3300), &json!(0), &json!(4125.0)),
        "{b}"
    );

    let dup = |input: u64| {
        format!(
            r#"{{"toolCalls":[{{"id":"x","name":"list_files","arguments":{{}}}},{{"id":"x","name":"list_files","arguments":{{}}}}],"usage":{{"input":{input},"output":3}}}}"#
        )
    };
    script(&ws, &[&dup(700), &dup(800)]);
    let (r, ev) = run(&ws, "go", &["--governor", "on"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let failed = &of_type(&ev, "run_failed")[0]["data"];
    assert_eq!(failed["code"], "invalid_turn");
    assert_eq!(failed["usage"]["input"], 800);
    let b = &report(&ws, &sid(&ev))["replay"]["recorded"];
    assert_eq!(
        (&b["requests"], &b["inputTokens"]),
        (&json!(2), &json!(1500)),
        "{b}"
    );

    script(
        &ws,
        &[r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#],
    );
    let (r, ev) = run(&ws, "go", &["--max-turns", "1"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let failed = &of_type(&ev, "run_failed")[0]["data"];
    assert_eq!(failed["code"], "max_turns");
    assert!(failed.get("usage").is_none(), "{failed}");
}
