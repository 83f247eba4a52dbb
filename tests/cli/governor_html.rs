//! `governor analyze --html FILE` (docs/governor.md "The HTML report"): one self-contained page
//! whose chart has one series per stream of the cache-aware replay (off, governed, each
//! baseline) with its cached part, the replay's own per-request figures; opened in headless
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

/// `governor analyze refactor.claude.jsonl --baseline mask:2` plus `args`, on a copy of the
/// example in the workspace (the page names the file as given).
fn analyze(ws: &Ws, args: &[&str]) -> crate::common::Run {
    const T: &str = "refactor.claude.jsonl";
    if !ws.root.join(T).exists() {
        ws.file(T, std::fs::read(example()).unwrap());
    }
    let mut a = vec!["governor", "analyze", T, "--baseline", "mask:2"];
    a.extend_from_slice(args);
    ws.run(&a)
}

#[test]
fn the_page_is_self_contained_and_charts_the_replay_per_request_one_series_per_stream() {
    let ws = Ws::new();
    let r = analyze(&ws, &["--html", "out/report.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let plain = analyze(&ws, &[]);
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
    let series = s["chart"]["series"].as_array().unwrap();
    let modes: Vec<&str> = series.iter().map(|x| x["mode"].as_str().unwrap()).collect();
    assert_eq!(modes, ["off", "governed", "mask:2"]);
    // The figures are the replay's (`--json`'s `replay.perRequest`), not derived again: the
    // columns of each stream, whose sums are the stream's inputTokens and cachedTokens.
    let report = analyze(&ws, &["--json"]).json();
    let rp = &report[0]["replay"];
    assert_eq!(rp["requests"], 26);
    assert_eq!(
        s["chart"]["requests"],
        json!((1..=26).collect::<Vec<u64>>())
    );
    let streams = [
        (&rp["perRequest"]["off"], &rp["off"]),
        (&rp["perRequest"]["governed"], &rp["governed"]),
        (&rp["perRequest"]["baselines"][0], &rp["baselines"][0]),
    ];
    let sum = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum::<u64>()
    };
    for (x, (cols, totals)) in series.iter().zip(streams) {
        assert_eq!(x["tokens"], cols["inputTokens"], "{}", x["mode"]);
        assert_eq!(x["cached"], cols["cachedTokens"], "{}", x["mode"]);
        assert_eq!(sum(&x["tokens"]), totals["inputTokens"].as_u64().unwrap());
        assert_eq!(sum(&x["cached"]), totals["cachedTokens"].as_u64().unwrap());
    }
    assert_eq!(rp["baselines"][0]["name"], "mask:2");
    assert_eq!(series[2]["label"], "mask:2");
    // The example's replay line: `off 184704 tokens, …, governed 31770 tokens (policy-2 defaults, epoch 12)`; masking keeps
    // 34751. The first request has nothing cached; off is append-only, so every later request
    // has its predecessor cached: 21 tokens at request 2, 1120 at request 3.
    assert_eq!(sum(&series[0]["tokens"]), 184704);
    assert_eq!(sum(&series[1]["tokens"]), 31770);
    assert_eq!(sum(&series[2]["tokens"]), 34751);
    assert_eq!(sum(&series[0]["cached"]), 171606);
    assert_eq!(
        series[0]["cached"].as_array().unwrap()[..3],
        [json!(0), json!(21), json!(1120)]
    );
    // Cross-check with the per-request payloads (`--events`): off is tokensBefore and, in
    // shadow, governed is tokensAfter, request by request.
    let events: Vec<Value> = analyze(&ws, &["--events"])
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let req: Vec<Value> = events.iter().map(|e| e["request"].clone()).collect();
    assert_eq!(s["chart"]["requests"], json!(req));
    let before: Vec<Value> = events.iter().map(|e| e["tokensBefore"].clone()).collect();
    let after: Vec<Value> = events.iter().map(|e| e["tokensAfter"].clone()).collect();
    assert_eq!(series[0]["tokens"], json!(before));
    assert_eq!(series[1]["tokens"], json!(after));
    assert_eq!(s["totals"], report[0]["totals"]);
    assert_eq!(s["replay"], *rp);
    assert_eq!(
        s["elided"].as_array().unwrap().len() as u64,
        report[0]["totals"]["elided"].as_u64().unwrap()
    );
}

#[test]
fn in_mode_off_the_page_has_no_series() {
    let ws = Ws::new();
    let r = analyze(&ws, &["--mode", "off", "--html", "off.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let data = page_data(&std::fs::read_to_string(ws.root.join("off.html")).unwrap());
    let s = &data["sessions"][0];
    assert_eq!(s["chart"], json!({"requests": [], "series": []}));
    assert_eq!(s["replay"], Value::Null);
}

/// Opens `page` in headless Chromium with no network: `--dump-dom`, or `--screenshot=PATH`.
fn chromium_run(browser: &str, ws: &Ws, page: &Path, mode: &str) -> crate::common::Run {
    let profile = ws.tmp.path().join("chromium-profile");
    run_cmd(
        Command::new("timeout")
            .arg("120")
            .arg(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--window-size=1200,900",
                "--host-resolver-rules=MAP * ~NOTFOUND",
                "--proxy-server=127.0.0.1:9",
                &format!("--user-data-dir={}", profile.display()),
                mode,
            ])
            .arg(format!("file://{}", page.display()))
            .env("HOME", &ws.home),
    )
}

#[test]
fn headless_chromium_without_network_draws_one_series_per_stream_with_the_cached_part() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let ws = Ws::new();
    let page = ws.root.join("report.html");
    let r = analyze(&ws, &["--html", "report.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rp = analyze(&ws, &["--json"]).json()[0]["replay"]["perRequest"].clone();
    let out = chromium_run(&browser, &ws, &page, "--dump-dom");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dom = out.stdout;
    assert!(
        dom.contains(r#"data-rendered="true""#),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    let attr = |v: &Value| serde_json::to_string(v).unwrap().replace('"', "&quot;");
    assert!(
        dom.contains(&format!(
            r#"data-charts="{}""#,
            attr(&json!([["off", "governed", "mask:2"]]))
        )),
        "the chart's series are the streams"
    );
    // The shaded cached parts are the replay's cachedTokens columns.
    let cached = json!({
        "off": rp["off"]["cachedTokens"],
        "governed": rp["governed"]["cachedTokens"],
        "mask:2": rp["baselines"][0]["cachedTokens"],
    });
    assert!(
        dom.contains(&format!(r#"data-cached="{}""#, attr(&cached))),
        "data-cached {cached}"
    );
    // The recovery model's tokens (spec/governor.md §11.9) of each hiding stream: `off` hides
    // nothing and has none.
    let recovery = analyze(&ws, &["--json"]).json()[0]["replay"]["recovery"].clone();
    let rec = json!({
        "governed": recovery["governed"]["perRequest"],
        "mask:2": recovery["baselines"][0]["perRequest"],
    });
    assert!(
        dom.contains(&format!(r#"data-recovery="{}""#, attr(&rec))),
        "data-recovery {rec}"
    );
    // uPlot's legend: one row for x, one per stream, one per stream's cached part and one per
    // hiding stream's line with recovery (governed and mask:2).
    assert_eq!(dom.matches(r#"class="u-series""#).count(), 9);
    assert_eq!(dom.matches("<canvas").count(), 1);
    // ALISIO_SCREENSHOT=DIR keeps a picture of the page (docs/images/governor-html.png).
    if let Ok(dir) = std::env::var("ALISIO_SCREENSHOT") {
        let png = Path::new(&dir).join("governor-html.png");
        let shot = chromium_run(
            &browser,
            &ws,
            &page,
            &format!("--screenshot={}", png.display()),
        );
        assert_eq!(shot.code, 0, "{}", shot.stderr);
        assert!(png.is_file());
    }
}

/// The page's tables and the recorded bill (spec/governor.md §11.10, §11.11), as Chromium renders
/// them: two copies of a Claude Code session whose usage is recorded (governor_recorded.rs's
/// transcript: 2 requests, 28,628 input tokens of which 24,657 cached, 7,429.45 billed; the replay's
/// `off` 3,133.95 and governed 303.95, no recovery), one table per session and one for both.
#[test]
fn the_page_shows_each_stream_with_recovery_and_the_recorded_bill() {
    let ws = Ws::new();
    let t = crate::governor_recorded::transcript();
    ws.file("s.jsonl", &t);
    ws.file("t.jsonl", &t);
    let r = ws.run(&[
        "governor", "analyze", "s.jsonl", "t.jsonl", "--html", "p.html",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let page = ws.root.join("p.html");
    let data = page_data(&std::fs::read_to_string(&page).unwrap());
    assert_eq!(data["sessions"][0]["replay"]["recorded"]["requests"], 2);
    assert_eq!(
        data["sessions"][0]["replay"]["recorded"]["saved"],
        json!(2830.0)
    );
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on PATH (apt-get install chromium)");
        return;
    };
    let out = chromium_run(&browser, &ws, &page, "--dump-dom");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dom = out.stdout;
    let one = "Recorded bill (as the provider reported it): 2 requests, 28628 input tokens (24657 \
               cached), cost 7429; the replay\u{2019}s off sees 0.422 of it; governing would have \
               saved 2830 with recovery, 38.1% of it.";
    let both = "Recorded bill (as the provider reported it): 4 requests, 57256 input tokens (49314 \
                cached), cost 14859; the replay\u{2019}s off sees 0.422 of it; governing would have \
                saved 5660 with recovery, 38.1% of it.";
    assert_eq!(
        dom.matches(&format!(r#"<p class="bill">{one}</p>"#))
            .count(),
        2
    );
    assert_eq!(
        dom.matches(&format!(r#"<p class="bill">{both}</p>"#))
            .count(),
        1
    );
    assert!(dom.contains("<h2>All sessions (2)</h2>"));
    let row = |cells: &[&str]| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    format!("<td>{c}</td>")
                } else {
                    format!(r#"<td class="n">{c}</td>"#)
                }
            })
            .collect::<String>()
    };
    // The governed stream of one session and of both (the replay's three requests: 489 input tokens,
    // 245 cached, cost 329.5 against off's 3,385.9; the spilled read is hidden and no later
    // message needs it), and `off`, which hides nothing.
    let governed = row(&[
        "governed", "489", "245", "330", "0", "1", "0", "489", "330", "0.097",
    ]);
    let off = row(&[
        "off", "5017", "2509", "3386", "0", "0", "0", "5017", "3386", "1.000",
    ]);
    assert_eq!(dom.matches(&governed).count(), 2, "{governed}");
    assert_eq!(dom.matches(&off).count(), 2, "{off}");
    let governed2 = row(&[
        "governed", "978", "490", "659", "0", "2", "0", "978", "659", "0.097",
    ]);
    assert_eq!(dom.matches(&governed2).count(), 1, "{governed2}");
    let rp = analyze_json(&ws)["replay"].clone();
    assert_eq!(rp["governed"]["inputTokens"], 489);
    assert_eq!(rp["governed"]["cost"], json!(329.5));
    assert_eq!(rp["off"]["inputTokens"], 5017);
    assert_eq!(rp["recovery"]["governed"]["hidden"], 1);
}

/// `governor analyze s.jsonl --json`'s first session.
fn analyze_json(ws: &Ws) -> Value {
    let r = ws.run(&["--json", "governor", "analyze", "s.jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.json()[0].clone()
}
