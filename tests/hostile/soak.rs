//! The soak test: 10,000 randomized edits and file events across 200 files, driven over stdio.
//! At the end every file's published diagnostics must equal what `check --format json` reports
//! for the same files on disk. Correctness only: the latency and memory figures are printed
//! when `ALISIO_SOAK_REPORT` is set (bench/soak.sh), never asserted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Rng, Ws};
use crate::harness::uri;
use crate::util::{proc_kib, run};

const NAMES: &[&str] = &[
    "AGENTS.md",
    "AGENTS.override.md",
    "AGENT.md",
    "agents.md",
    "CLAUDE.md",
    "notes.md",
    "Agents.md",
];
const SNIPPETS: &[&str] = &[
    "# Title\n",
    "Use tabs.\n",
    "é",
    "😀",
    "\r\n",
    "\n",
    "- item\n",
    "```\ncode\n```\n",
    "\u{FFFD}",
    " ",
];

fn snippet(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => "x".repeat(1 + rng.below(6000)),
        1 => String::new(),
        _ => (0..1 + rng.below(4))
            .map(|_| SNIPPETS[rng.below(SNIPPETS.len())])
            .collect(),
    }
}

/// A valid LSP position (line, UTF-16 column on a character boundary) and its byte offset.
fn position(text: &str, rng: &mut Rng) -> (Value, usize) {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = rng.below(lines.len());
    let start: usize = lines[..line].iter().map(|l| l.len() + 1).sum();
    let content = lines[line]
        .strip_suffix('\r')
        .filter(|_| line + 1 < lines.len())
        .unwrap_or(lines[line]);
    let chars: Vec<(usize, char)> = content.char_indices().collect();
    let k = rng.below(chars.len() + 1);
    let byte = chars.get(k).map_or(content.len(), |c| c.0);
    let utf16: usize = content[..byte].encode_utf16().count();
    (json!({"line": line, "character": utf16}), start + byte)
}

type Key = (String, String, String, String);

fn key(file: &str, d: &Value) -> Key {
    (
        file.to_string(),
        d["code"].as_str().unwrap_or("").to_string(),
        d["range"].to_string(),
        d["message"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn ten_thousand_edits_and_file_events_leave_diagnostics_equal_to_check() {
    let report = std::env::var_os("ALISIO_SOAK_REPORT").is_some();
    let ws = Ws::new();
    let mut rng = Rng(0x50A4_2026);
    // 200 files over a tree of 40 directories, 5 names each.
    let mut files: Vec<PathBuf> = Vec::new();
    let mut disk: BTreeMap<PathBuf, Option<String>> = BTreeMap::new();
    for d in 0..40 {
        let dir = match d {
            0 => String::new(),
            d if d < 8 => format!("p{d}/"),
            d => format!("p{}/q{d}/", d % 8),
        };
        for n in 0..5 {
            let name = NAMES[(d + n) % NAMES.len()];
            let p = ws.root.join(format!("{dir}{name}"));
            let text = format!("# {dir}{name}\n{}", snippet(&mut rng));
            crate::common::write(&p, &text);
            disk.insert(p.clone(), Some(text));
            files.push(p);
        }
    }
    assert_eq!(files.len(), 200);
    let caps = json!({"general": {"positionEncodings": ["utf-16"]}, "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    let mut lsp = crate::harness::start(&ws, caps, json!({"trusted": false, "watcher": "client"}));
    let pid = lsp.pid();
    let mut open: BTreeMap<PathBuf, (i32, String)> = BTreeMap::new();
    let mut latencies: Vec<(usize, Duration)> = Vec::new();
    let mut rss: Vec<(usize, u64)> = Vec::new();
    let started = Instant::now();
    for step in 0..10_000 {
        let f = files[rng.below(files.len())].clone();
        let u = uri(&f);
        match rng.below(20) {
            0..=7 => {
                // An incremental edit (the file is opened first when needed).
                if !open.contains_key(&f) {
                    let text = disk[&f].clone().unwrap_or_default();
                    lsp.notify("textDocument/didOpen", json!({"textDocument": {"uri": u, "languageId": "markdown", "version": 1, "text": text}}));
                    open.insert(f.clone(), (1, text));
                }
                let (v, text) = open.get_mut(&f).unwrap();
                let (a, x) = position(text, &mut rng);
                let (b, y) = position(text, &mut rng);
                let ((a, x), (b, y)) = if x <= y {
                    ((a, x), (b, y))
                } else {
                    ((b, y), (a, x))
                };
                let new = snippet(&mut rng);
                text.replace_range(x..y, &new);
                *v += 1;
                lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": u, "version": *v}, "contentChanges": [{"range": {"start": a, "end": b}, "text": new}]}));
            }
            8 => {
                if let Some((v, text)) = open.get_mut(&f) {
                    *text = snippet(&mut rng);
                    *v += 1;
                    lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": u, "version": *v}, "contentChanges": [{"text": text.clone()}]}));
                }
            }
            9 | 10 => {
                if open.remove(&f).is_some() {
                    lsp.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
                }
            }
            11 => {
                if let Some((_, text)) = open.get(&f) {
                    std::fs::write(&f, text).unwrap();
                    disk.insert(f.clone(), Some(text.clone()));
                    lsp.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
                    lsp.notify(
                        "workspace/didChangeWatchedFiles",
                        json!({"changes": [{"uri": u, "type": 2}]}),
                    );
                }
            }
            12..=14 => {
                // Another program rewrites the file on disk.
                let text = format!("# rewritten {step}\n{}", snippet(&mut rng));
                let created = disk[&f].is_none();
                crate::common::write(&f, &text);
                disk.insert(f.clone(), Some(text));
                lsp.notify(
                    "workspace/didChangeWatchedFiles",
                    json!({"changes": [{"uri": u, "type": if created { 1 } else { 2 }}]}),
                );
            }
            15 => {
                if !open.contains_key(&f) && disk[&f].is_some() {
                    std::fs::remove_file(&f).unwrap();
                    disk.insert(f.clone(), None);
                    lsp.notify(
                        "workspace/didChangeWatchedFiles",
                        json!({"changes": [{"uri": u, "type": 3}]}),
                    );
                }
            }
            _ => {
                let method = [
                    "textDocument/hover",
                    "textDocument/codeLens",
                    "textDocument/documentSymbol",
                ][rng.below(3)];
                let t0 = Instant::now();
                let r = lsp.request(
                    method,
                    json!({"textDocument": {"uri": u}, "position": {"line": 0, "character": 0}}),
                );
                assert!(r.is_ok(), "{method}: {r:?}");
                latencies.push((step, t0.elapsed()));
            }
        }
        if step % 500 == 0
            && let Some(k) = proc_kib(pid, "VmRSS:")
        {
            rss.push((step, k));
        }
    }
    // Settle: every open buffer is saved and closed, so the disk is the truth for both sides.
    for (f, (_, text)) in std::mem::take(&mut open) {
        std::fs::write(&f, &text).unwrap();
        disk.insert(f.clone(), Some(text));
        lsp.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri(&f)}}),
        );
        lsp.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri(&f)}}),
        );
    }
    let changes: Vec<Value> = disk
        .iter()
        .map(|(f, t)| json!({"uri": uri(f), "type": if t.is_some() { 2 } else { 3 }}))
        .collect();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": changes}),
    );
    let edits_done = started.elapsed();

    let check = run(&ws, &["check", "--format", "json"]);
    assert!(check.code == 0 || check.code == 1, "{check:?}");
    let expected: BTreeSet<Key> = check.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| key(d["file"].as_str().unwrap(), d))
        .collect();
    assert!(
        !expected.is_empty(),
        "the workspace should have diagnostics to compare"
    );

    // Latest publication per file, until they match (or the harness timeout says they never do).
    let mut published: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let prefix = format!("{}/", uri(&ws.root));
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut got: BTreeSet<Key> = BTreeSet::new();
    while Instant::now() < deadline {
        while let Some(p) = lsp.try_wait_notification(
            "textDocument/publishDiagnostics",
            &|_| true,
            Duration::from_millis(200),
        ) {
            let file = p["uri"]
                .as_str()
                .unwrap()
                .strip_prefix(&prefix)
                .unwrap_or("")
                .replace("%20", " ");
            published.insert(
                file,
                p["diagnostics"].as_array().cloned().unwrap_or_default(),
            );
        }
        got = published
            .iter()
            .flat_map(|(f, ds)| ds.iter().map(move |d| key(f, d)))
            .collect();
        if got == expected {
            break;
        }
    }
    let missing: Vec<&Key> = expected.difference(&got).collect();
    let extra: Vec<&Key> = got.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "published diagnostics differ from check:\nmissing {missing:#?}\nextra {extra:#?}"
    );

    if report {
        let rss_end = proc_kib(pid, "VmRSS:").unwrap_or(0);
        let hwm = proc_kib(pid, "VmHWM:").unwrap_or(0);
        let mut out = format!(
            "soak: 10000 events over 200 files in {:.1} s; {} diagnostics at the end\n",
            edits_done.as_secs_f64(),
            expected.len()
        );
        for chunk in latencies.chunks(latencies.len().div_ceil(5).max(1)) {
            let mut ms: Vec<f64> = chunk
                .iter()
                .map(|(_, d)| d.as_secs_f64() * 1000.0)
                .collect();
            ms.sort_by(f64::total_cmp);
            out.push_str(&format!(
                "requests at steps {:>5}-{:>5}: n={:>4} median {:>7.2} ms  p95 {:>7.2} ms  max {:>7.2} ms\n",
                chunk[0].0,
                chunk[chunk.len() - 1].0,
                ms.len(),
                ms[ms.len() / 2],
                ms[(ms.len() * 95 / 100).min(ms.len() - 1)],
                ms[ms.len() - 1]
            ));
        }
        for (step, k) in &rss {
            out.push_str(&format!(
                "VmRSS at step {step:>5}: {:>7.1} MiB\n",
                *k as f64 / 1024.0
            ));
        }
        out.push_str(&format!(
            "VmRSS at the end: {:.1} MiB, VmHWM {:.1} MiB\n",
            rss_end as f64 / 1024.0,
            hwm as f64 / 1024.0
        ));
        eprint!("{out}");
        if let Some(path) =
            std::env::var_os("ALISIO_SOAK_REPORT").filter(|p| !p.is_empty() && p != "1")
        {
            std::fs::write(path, out).unwrap();
        }
    }
    assert_eq!(lsp.shutdown_and_exit(), 0);
}
