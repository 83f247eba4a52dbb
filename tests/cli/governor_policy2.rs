//! Policy 2 and the cache-aware replay through the built binary (spec/governor.md §3.3, §9, §11.8,
//! spec/governor.md §12 cases 61–65), on fixtures and on the real mini-swe-agent trajectories of the corpus.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{Ws, corpus};

fn mini_files() -> Option<Vec<PathBuf>> {
    let c = corpus()?;
    let mut out = Vec::new();
    let mut stack = vec![c.join("transcripts/mini-swe-agent")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(".traj.json") {
                out.push(p);
            }
        }
    }
    out.sort();
    (!out.is_empty()).then_some(out)
}

fn analyze(files: &[PathBuf], extra: &[&str]) -> Vec<Value> {
    let ws = Ws::new();
    let mut args: Vec<String> = vec!["--json".into(), "governor".into(), "analyze".into()];
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args.extend(files.iter().map(|p| p.display().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = ws.run(&argv);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    r.json().as_array().cloned().unwrap_or_default()
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(f64::NAN)
}

#[test]
#[allow(clippy::print_stderr)]
fn policy_two_defaults_meet_the_replay_gates_on_mini_swe_agent() {
    let Some(files) = mini_files() else {
        eprintln!("corpus absent: skipped");
        return;
    };
    let reports = analyze(&files, &["--baseline", "mask:5", "--baseline", "mask:10"]);
    assert_eq!(reports.len(), files.len());
    let (mut off_t, mut gov_t, mut off_c, mut gov_c) = (0.0, 0.0, 0.0, 0.0);
    let mut base_c = [0.0, 0.0];
    for r in &reports {
        assert_eq!(r["policyVersion"], 2);
        let rp = &r["replay"];
        let (off, gov) = (&rp["off"], &rp["governed"]);
        off_t += f(off, "inputTokens");
        gov_t += f(gov, "inputTokens");
        off_c += f(off, "cost");
        gov_c += f(gov, "cost");
        assert!(
            f(gov, "cost") <= f(off, "cost"),
            "{}: governed cost above off",
            r["sessionId"]
        );
        assert_eq!(rp["baselines"][0]["name"], "mask:5");
        assert_eq!(rp["baselines"][1]["name"], "mask:10");
        for (k, b) in base_c.iter_mut().enumerate() {
            *b += f(&rp["baselines"][k], "cost");
        }
        // The events' sums are the replay's input tokens (the same requests).
        assert!(f(off, "cachedTokens") <= f(off, "inputTokens"));
    }
    eprintln!(
        "mini-swe-agent: tokens governed/off {:.4}, cost governed/off {:.4}, mask:5 {:.4}, mask:10 {:.4}",
        gov_t / off_t,
        gov_c / off_c,
        base_c[0] / off_c,
        base_c[1] / off_c
    );
    assert!(gov_t <= 0.55 * off_t, "tokens {gov_t} vs off {off_t}");
    assert!(gov_c <= 0.65 * off_c, "cost {gov_c} vs off {off_c}");
    assert!(
        gov_c < base_c[0] && gov_c < base_c[1],
        "{gov_c} vs {base_c:?}"
    );
}

#[test]
#[allow(clippy::print_stderr)]
fn the_recent_results_of_every_final_request_are_untouched() {
    let Some(files) = mini_files() else {
        eprintln!("corpus absent: skipped");
        return;
    };
    let keep = 5;
    let reports = analyze(&files, &["--mode", "on"]);
    let mut aged = 0;
    for r in &reports {
        let results: Vec<&Value> = r["segments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| s["kind"] == "tool_result")
            .collect();
        assert!(results.len() > keep);
        for s in &results[results.len() - keep..] {
            let reason = s["elided"]["reason"].as_str().unwrap_or_default();
            assert!(
                reason != "aged_output" && reason != "expired",
                "{}: {} is {reason}",
                r["sessionId"],
                s["callId"]
            );
        }
        aged += r["totals"]["byReason"]["aged_output"].as_u64().unwrap_or(0);
    }
    assert!(aged > 0, "the rule is exercised");
}

#[test]
fn policy_one_stays_selectable_and_reports_its_own_reasons() {
    let ws = Ws::new();
    let big = "x".repeat(5000);
    let traj = serde_json::json!({
        "instance_id": "t",
        "info": {"exit_status": "Submitted"},
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "fix"},
            {"role": "assistant", "content": "look", "tool_calls": [{"id": "c1", "type": "function",
              "function": {"name": "bash", "arguments": "{\"command\":\"python run.py\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": format!("<returncode>1</returncode>\n<output>\n{big}\n</output>")},
            {"role": "assistant", "content": "done"}
        ]
    });
    ws.file("t.traj.json", traj.to_string());
    let r = ws.run(&["--json", "governor", "analyze", "t.traj.json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = r.json();
    let by = &v[0]["totals"]["byReason"];
    assert_eq!(by["oversized"], 1);
    assert_eq!(by["aged_output"], 0);
    assert_eq!(v[0]["settings"]["spill"]["thresholdChars"], 600);
    assert_eq!(v[0]["settings"]["trim"]["keepRecent"], 5);
    assert_eq!(v[0]["settings"]["epochMessages"], 36);
    let seg = v[0]["segments"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|s| s["callId"] == "c1" && s["kind"] == "tool_result")
        })
        .cloned()
        .unwrap_or_default();
    assert_eq!(seg["elided"]["reason"], "oversized");
    assert_eq!(seg["elided"]["by"], "c1");
    let r = ws.run(&[
        "--json",
        "governor",
        "analyze",
        "--policy-version",
        "1",
        "t.traj.json",
    ]);
    let v = r.json();
    assert_eq!(
        v[0]["totals"]["byReason"],
        serde_json::json!({"superseded_read": 0, "stale_bg_output": 0, "duplicate_search": 0})
    );
    assert_eq!(v[0]["settings"]["epochMessages"], 32);
    assert!(v[0]["settings"].get("spill").is_none());
    // Human output: one replay line per session and a summary line.
    let r = ws.run(&["governor", "analyze", "--baseline", "mask:1", "t.traj.json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("governed/off"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(
        lines[0].starts_with("  replay: 3 requests; tokens governed/off "),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains(", mask:1/off "), "{}", lines[0]);
    assert!(lines[1].starts_with("  all: 1 sessions; "), "{}", lines[1]);
}

#[test]
fn policy_two_flags_are_validated_with_the_settings_messages() {
    let ws = Ws::new();
    ws.file("t.jsonl", "{}\n");
    for (flag, v, msg) in [
        (
            "--trim-keep-recent",
            "4",
            "--trim-keep-recent must be an integer from 5 to 1000; got 4",
        ),
        (
            "--spill-head-chars",
            "199",
            "--spill-head-chars must be an integer from 200 to 100000; got 199",
        ),
        (
            "--spill-tail-chars",
            "2.0",
            "--spill-tail-chars must be an integer from 200 to 100000; got 2.0",
        ),
        (
            "--spill-threshold-chars",
            "big",
            "--spill-threshold-chars must be an integer from 500 to 1000000; got \"big\"",
        ),
        (
            "--trim-min-chars",
            "99",
            "--trim-min-chars must be an integer from 100 to 1000000; got 99",
        ),
        (
            "--cache-read",
            "x",
            "--cache-read must be a number from 0 to 100; got \"x\"",
        ),
        (
            "--baseline",
            "mask5",
            "--baseline must be mask:N with N an integer from 1 to 1000; got \"mask5\"",
        ),
    ] {
        let r = ws.run(&["governor", "analyze", flag, v, "t.jsonl"]);
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (2, format!("error: {msg}\n").as_str())
        );
    }
    #[rustfmt::skip]
    let cases = [
        (r#"{"context":{"trim":{"keepRecent":4}}}"#, "context.trim.keepRecent must be an integer from 5 to 1000; got 4"),
        (r#"{"context":{"spill":{"headChars":100}}}"#, "context.spill.headChars must be an integer from 200 to 100000; got 100"),
        (r#"{"context":{"policyVersion":3}}"#, "context.policyVersion must be an integer from 1 to 2; got 3"),
    ];
    for (cfg, msg) in cases {
        ws.file("cfg.json", cfg);
        let r = ws.run(&["governor", "analyze", "--config", "cfg.json", "t.jsonl"]);
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (2, format!("error: cfg.json: {msg}\n").as_str())
        );
    }
}
