//! `governor analyze --html FILE` (docs/governor.md "The HTML report"): one self-contained page
//! whose chart has one series per mode, with the figures of the replay; opened in headless
//! Chromium with no network when Chromium is installed.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Ws, run_cmd};

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/transcripts/refactor.claude.jsonl")
}

/// The JSON of the page's `<script id="data">`.
fn page_data(html: &str) -> Value {
    let start = html
        .find(r#"<script id="data" type="application/json">"#)
        .unwrap();
    let rest = &html[start..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    serde_json::from_str(body).unwrap()
}

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_owned)
}

#[test]
fn the_page_is_self_contained_and_charts_one_series_per_mode_per_request() {
    let ws = Ws::new();
    let t = example();
    let t = t.to_str().unwrap();
    let r = ws.run(&["governor", "analyze", t, "--html", "out/report.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let plain = ws.run(&["governor", "analyze", t]);
    assert_eq!(r.stdout, plain.stdout, "--html leaves stdout as it was");
    let html = std::fs::read_to_string(ws.root.join("out/report.html")).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains(
        r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">"#
    ));
    for external in ["<script src", "<link", "<img", "@import", "url(http"] {
        assert!(!html.contains(external), "{external}");
    }
    assert!(
        html.contains("The MIT License (MIT)"),
        "uPlot's licence is in the page"
    );

    let data = page_data(&html);
    let s = &data["sessions"][0];
    assert_eq!(data["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(s["session"], "demo-refactor");
    let modes: Vec<&str> = s["chart"]["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["mode"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["off", "governed"]);
    // The figures are the replay's: one point per `--events` payload, the last one the report's.
    let events: Vec<Value> = ws
        .run(&["governor", "analyze", t, "--events"])
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let req: Vec<Value> = events.iter().map(|e| e["request"].clone()).collect();
    assert_eq!(s["chart"]["requests"], json!(req));
    let before: Vec<Value> = events.iter().map(|e| e["tokensBefore"].clone()).collect();
    let after: Vec<Value> = events.iter().map(|e| e["tokensAfter"].clone()).collect();
    assert_eq!(s["chart"]["series"][0]["tokens"], json!(before));
    assert_eq!(s["chart"]["series"][1]["tokens"], json!(after));
    let report = ws.run(&["governor", "analyze", t, "--json"]).json();
    assert_eq!(s["totals"], report[0]["totals"]);
    assert_eq!(
        s["elided"].as_array().unwrap().len() as u64,
        report[0]["totals"]["elided"].as_u64().unwrap()
    );
}

#[test]
fn headless_chromium_without_network_draws_one_series_per_mode() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let ws = Ws::new();
    let t = example();
    let page = ws.root.join("report.html");
    let r = ws.run(&[
        "governor",
        "analyze",
        t.to_str().unwrap(),
        "--html",
        "report.html",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let profile = ws.tmp.path().join("chromium-profile");
    let out = run_cmd(
        Command::new("timeout")
            .arg("120")
            .arg(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--proxy-server=127.0.0.1:9",
                &format!("--user-data-dir={}", profile.display()),
                "--dump-dom",
            ])
            .arg(format!("file://{}", page.display()))
            .env("HOME", &ws.home),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dom = out.stdout;
    assert!(
        dom.contains(r#"data-rendered="true""#),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    assert!(
        dom.contains(r#"data-charts="[[&quot;off&quot;,&quot;governed&quot;]]""#),
        "the chart's series are the modes"
    );
    // uPlot's legend: one row for x, one per series.
    assert_eq!(dom.matches(r#"class="u-series""#).count(), 3);
    assert_eq!(dom.matches("<canvas").count(), 1);
}
