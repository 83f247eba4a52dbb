//! `alisio-ls governor analyze` through the built binary (spec/governor.md §11, §12 cases 49, 52,
//! 56, 59, 60), and the real-transcript corpus.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Run, Ws, corpus};

fn fixture(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/governor")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn ws_with_fixtures() -> Ws {
    let ws = Ws::new();
    for f in ["claude.jsonl", "mini.traj.json", "codex.jsonl", "swe.traj"] {
        ws.file(f, fixture(f));
    }
    ws
}

/// `governor analyze --policy-version 1 <args>`: policy 1, whose figures these tests pin.
fn analyze_v1(ws: &Ws, args: &[&str]) -> Run {
    let mut a = vec!["governor", "analyze", "--policy-version", "1"];
    a.extend(args);
    ws.run(&a)
}

#[test]
fn json_lists_the_main_session_then_its_sidechains_with_exact_figures() {
    let ws = ws_with_fixtures();
    let r = analyze_v1(&ws, &["--json", "--epoch-messages", "0", "claude.jsonl"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v = r.json();
    let reports = v.as_array().unwrap();
    assert_eq!(reports.len(), 2);
    let main = &reports[0];
    assert_eq!(main["sessionId"], "5e55-1on");
    assert_eq!(
        (
            main["mode"].as_str(),
            main["request"].as_u64(),
            main["messages"].as_u64(),
            main["eligibleMessages"].as_u64()
        ),
        (Some("shadow"), Some(5), Some(8), Some(8))
    );
    assert_eq!(
        main["segments"][3],
        json!({"index":3,"kind":"tool_result","origin":"/p/a.c","message":2,"tool":"Read","callId":"t1","as":"read_file","tokens":200,
               "criticality":"low","reason":"elided","elided":{"reason":"superseded_read","by":"t2","tokensSaved":186},"used":"used"})
    );
    assert_eq!(
        main["totals"],
        json!({"segments":10,"tokensBefore":248,"tokensAfter":62,"tokensSaved":186,"elided":1,
               "byReason":{"superseded_read":1,"stale_bg_output":0,"duplicate_search":0},
               "byCriticality":{"pinned":0,"high":3,"normal":6,"low":1}})
    );
    assert_eq!(
        main["usage"],
        json!({"perTool":{"read_file":{"seen":1,"used":1,"reread":0,"unused":0}},"notAttributable":1})
    );
    assert_eq!(
        main["source"],
        json!({"file":"claude.jsonl","format":"claude-code","session":"5e55-1on","sidechain":false,"lines":12,"skippedLines":0,"compactions":0,
               "compactedMessages":0,"orphanCalls":0,"orphanResults":0,"redactedValues":0,"unclassifiedRepeats":0,"problems":[]})
    );
    let side = &reports[1];
    assert_eq!(
        (
            side["sessionId"].as_str(),
            side["source"]["sidechain"].as_bool(),
            side["messages"].as_u64()
        ),
        (Some("5e55-1on/sidechain-1"), Some(true), Some(3))
    );
    // The main report holds no sidechain message: its calls are t1 and t2 only.
    let ids: Vec<&str> = main["segments"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["callId"].as_str())
        .collect();
    assert_eq!(ids, vec!["t1", "t1", "t2", "t2"]);
}

#[test]
fn human_output_has_a_header_totals_and_the_low_and_pinned_segments() {
    let ws = ws_with_fixtures();
    let r = analyze_v1(&ws, &["--epoch-messages", "0", "mini.traj.json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let want = "mini.traj.json [demo__x-1] mini-swe-agent
  12 messages, 4 tool results, 2 elided (superseded_read 1, stale_bg_output 0, duplicate_search 1); tokens 309 -> 161 (saved 148, 47.9%)
  mode shadow, eligible 12, compactions 0, compacted messages 0, skipped lines 0, orphan calls 0, orphan results 0, redacted values 0, unclassified repeats 0
   index  kind         crit     reason                  tokens  origin
       0  system       pinned   system_prompt                7  system
       4  tool_result  low      elided                     127  x.py  [superseded_read by c2, saves 112]
      10  tool_result  low      elided                      53  bash  [duplicate_search by c4, saves 36]
  replay: 7 requests; tokens governed/off 0.651; cost governed/off 1.175; off 1490 tokens, cost 504, governed 970 tokens, cost 593, 2 cache breaks
  replay with recovery (a model of recovery, not measured behaviour): governed hidden 2, needed 0, recovered 0 chars, tokens/off 0.651, cost/off 1.175
  all: 1 sessions; tokens governed/off 0.651; cost governed/off 1.175; off 1490 tokens, cost 504, governed 970 tokens, cost 593, 2 cache breaks
  all with recovery (a model of recovery, not measured behaviour): governed hidden 2, needed 0, recovered 0 chars, tokens/off 0.651, cost/off 1.175
";
    // Epoch 0 elides as soon as a result is redundant: two cache breaks make it cost more than
    // `off` although it sends 35% fewer tokens (spec/governor.md §11.8).
    assert_eq!(r.stdout, want);
}

#[test]
fn default_epoch_holds_short_transcripts_back() {
    let ws = ws_with_fixtures();
    let v = analyze_v1(&ws, &["--json", "claude.jsonl"]).json();
    let main = &v[0];
    assert_eq!(
        (
            main["eligibleMessages"].as_u64(),
            main["totals"]["elided"].as_u64()
        ),
        (Some(0), Some(0))
    );
    assert_eq!(
        (
            main["segments"][3]["criticality"].as_str(),
            main["segments"][3]["reason"].as_str()
        ),
        (Some("low"), Some("redundant_epoch"))
    );
}

#[test]
fn unsupported_files_are_reported_and_the_others_still_print() {
    let ws = ws_with_fixtures();
    let r = analyze_v1(
        &ws,
        &["--json", "swe.traj", "mini.traj.json", "missing.jsonl"],
    );
    assert_eq!(r.code, 2);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines[0], "error: swe.traj: unsupported transcript format");
    assert!(
        lines[1].starts_with("error: missing.jsonl: "),
        "{}",
        r.stderr
    );
    assert_eq!(r.json().as_array().unwrap().len(), 1);
    ws.file("empty.jsonl", "");
    let r = analyze_v1(&ws, &["empty.jsonl"]);
    assert_eq!(
        (r.code, r.stderr.as_str(), r.stdout.as_str()),
        (2, "error: empty.jsonl: unsupported transcript format\n", "")
    );
}

#[test]
fn hostile_files_never_panic() {
    let ws = ws_with_fixtures();
    ws.file(
        "binary.jsonl",
        [0xffu8, 0xfe, 0x00, 0x81, b'\n', 0xc3, 0x28],
    );
    let mini = fixture("mini.traj.json");
    ws.file("cut.traj.json", &mini[..mini.len() / 2]);
    let mut claude = fixture("claude.jsonl");
    claude.truncate(claude.len() - 40);
    ws.file("cut.jsonl", &claude);
    let r = analyze_v1(
        &ws,
        &[
            "--json",
            "--epoch-messages",
            "0",
            "binary.jsonl",
            "cut.traj.json",
            "cut.jsonl",
        ],
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "error: binary.jsonl: unsupported transcript format\nerror: cut.traj.json: unsupported transcript format\n"
    );
    let v = r.json();
    assert_eq!(v[0]["source"]["skippedLines"], 1);
    assert_eq!(
        v[0]["source"]["problems"],
        json!([{"line":12,"message":"malformed JSON line"}])
    );
    assert_eq!(v[0]["totals"]["elided"], 1);
}

#[test]
fn input_format_overrides_detection() {
    let ws = ws_with_fixtures();
    let v = analyze_v1(
        &ws,
        &["--json", "--input-format", "claude-code", "codex.jsonl"],
    )
    .json();
    assert_eq!(v[0]["source"]["format"], "claude-code");
    assert_eq!(v[0]["messages"], 0);
    assert_eq!(v[0]["source"]["problems"].as_array().unwrap().len(), 9);
    let r = analyze_v1(&ws, &["--input-format", "mini-swe-agent", "codex.jsonl"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (2, "error: codex.jsonl: unsupported transcript format\n")
    );
    let r = analyze_v1(&ws, &["--input-format", "swe", "codex.jsonl"]);
    assert_eq!(
        r.stderr,
        "error: --input-format must be \"auto\", \"alisio\", \"claude-code\", \"codex\" or \"mini-swe-agent\"; got \"swe\"\n"
    );
}

#[test]
fn analyze_defaults_to_shadow_and_off_reports_only_off() {
    let ws = ws_with_fixtures();
    ws.file(
        "cfg.json",
        r#"{"context":{"governor":"off","elide":{"epochMessages":0}}}"#,
    );
    let v = analyze_v1(&ws, &["--json", "--config", "cfg.json", "claude.jsonl"]).json();
    assert_eq!(
        (v[0]["mode"].as_str(), v[0]["totals"]["elided"].as_u64()),
        (Some("shadow"), Some(1))
    );
    let v = analyze_v1(&ws, &["--json", "--mode", "off", "mini.traj.json"]).json();
    let off = v[0].as_object().unwrap();
    let keys: Vec<&str> = off.keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["mode", "measured", "sessionId", "source"]);
    assert_eq!(
        (
            off["mode"].as_str(),
            off["measured"].as_bool(),
            off["sessionId"].as_str()
        ),
        (Some("off"), Some(false), Some("demo__x-1"))
    );
}

#[test]
fn events_print_one_line_per_replayed_request() {
    let ws = ws_with_fixtures();
    let r = analyze_v1(
        &ws,
        &[
            "--events",
            "--epoch-messages",
            "0",
            "claude.jsonl",
            "mini.traj.json",
        ],
    );
    assert_eq!(r.code, 0);
    let lines: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // main: 4 assistant messages + 1; sidechain: 1 + 1; mini: 6 + 1.
    assert_eq!(lines.len(), 5 + 2 + 7);
    let main: Vec<&Value> = lines
        .iter()
        .filter(|l| l["session"] == "5e55-1on")
        .collect();
    assert_eq!(
        main.iter()
            .map(|l| l["request"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5]
    );
    // t1 is two assistant messages old at request 4: newly elided there, and only there.
    let newly: Vec<Value> = main.iter().map(|l| l["newlyElided"].clone()).collect();
    assert_eq!(
        newly,
        vec![json!([]), json!([]), json!([]), json!(["t1"]), json!([])]
    );
    assert_eq!(main[4]["elided"], 1);
    assert_eq!(main[4]["file"], "claude.jsonl");
    let mini: Vec<&Value> = lines
        .iter()
        .filter(|l| l["session"] == "demo__x-1")
        .collect();
    let newly: Vec<Value> = mini.iter().map(|l| l["newlyElided"].clone()).collect();
    assert_eq!(newly.iter().filter(|n| *n != &json!([])).count(), 2);
    assert!(!r.stdout.contains("x.py"), "events carry no paths");
}

#[test]
fn flag_values_are_validated_with_the_settings_messages() {
    let ws = ws_with_fixtures();
    for (args, msg) in [
        (
            &["--min-age-turns", "0"][..],
            "--min-age-turns must be an integer from 1 to 20; got 0",
        ),
        (
            &["--min-age-turns", "2.0"][..],
            "--min-age-turns must be an integer from 1 to 20; got 2.0",
        ),
        (
            &["--epoch-messages", "1001"][..],
            "--epoch-messages must be an integer from 0 to 1000; got 1001",
        ),
        (
            &["--epoch-messages", "ten"][..],
            "--epoch-messages must be an integer from 0 to 1000; got \"ten\"",
        ),
        (
            &["--policy-version", "3"][..],
            "--policy-version must be an integer from 1 to 2; got 3",
        ),
        (
            &["--mode", "ON"][..],
            "--mode must be \"off\", \"shadow\" or \"on\"; got \"ON\"",
        ),
    ] {
        let mut a = vec!["governor", "analyze", "claude.jsonl"];
        a.extend(args);
        let r = ws.run(&a);
        assert_eq!((r.code, r.stdout.as_str()), (2, ""), "{args:?}");
        assert_eq!(r.stderr, format!("error: {msg}\n"));
    }
}

#[test]
fn invalid_context_settings_in_config_stop_analyze() {
    let ws = ws_with_fixtures();
    #[rustfmt::skip]
    let cases = [
        (r#"{"context":{"elide":{"minAgeTurns":0}}}"#, "context.elide.minAgeTurns must be an integer from 1 to 20; got 0"),
        (r#"{"context":{"elide":{"epochMessages":1001}}}"#, "context.elide.epochMessages must be an integer from 0 to 1000; got 1001"),
        (r#"{"context":{"invariants":{"maxChars":999}}}"#, "context.invariants.maxChars must be an integer from 1000 to 20000; got 999"),
        (r#"{"context":{"invariants":{"maxChars":20001}}}"#, "context.invariants.maxChars must be an integer from 1000 to 20000; got 20001"),
        (r#"{"context":{"governor":"ON"}}"#, "context.governor must be \"off\", \"shadow\" or \"on\"; got \"ON\""),
        (r#"{"context":{"policyVersion":3}}"#, "context.policyVersion must be an integer from 1 to 2; got 3"),
    ];
    for (cfg, msg) in cases {
        ws.file("cfg.json", cfg);
        let r = analyze_v1(&ws, &["--config", "cfg.json", "claude.jsonl"]);
        assert_eq!((r.code, r.stdout.as_str()), (2, ""));
        assert_eq!(r.stderr, format!("error: cfg.json: {msg}\n"));
    }
}

fn corpus_files(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            corpus_files(&p, out);
        } else {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if name.ends_with(".jsonl") || name.ends_with(".traj.json") || name.ends_with(".traj") {
                out.push(p);
            }
        }
    }
}

#[test]
#[allow(clippy::print_stderr)]
fn every_corpus_transcript_is_read_with_consistent_totals() {
    let Some(c) = corpus() else {
        eprintln!("corpus absent: skipped");
        return;
    };
    let mut files = Vec::new();
    corpus_files(&c.join("transcripts"), &mut files);
    let (swe, supported): (Vec<PathBuf>, Vec<PathBuf>) = files
        .into_iter()
        .partition(|p| p.extension().is_some_and(|e| e == "traj"));
    assert!(supported.len() >= 40, "{}", supported.len());
    let ws = Ws::new();
    let mut args: Vec<String> = vec![
        "--json".into(),
        "governor".into(),
        "analyze".into(),
        "--policy-version".into(),
        "1".into(),
    ];
    args.extend(supported.iter().map(|p| p.display().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = ws.run(&argv);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let reports = r.json();
    let reports = reports.as_array().unwrap();
    assert!(reports.len() >= supported.len());
    let mut seen_files = std::collections::BTreeSet::new();
    for rep in reports {
        let src = &rep["source"];
        let file = src["file"].as_str().unwrap();
        seen_files.insert(file.to_owned());
        let want_format = if file.contains("/codex/") {
            "codex"
        } else if file.contains("/mini-swe-agent/") {
            "mini-swe-agent"
        } else {
            "claude-code"
        };
        assert_eq!(src["format"], want_format, "{file}");
        let t = &rep["totals"];
        let n = |v: &Value| v.as_u64().unwrap();
        assert_eq!(
            n(&t["tokensAfter"]) + n(&t["tokensSaved"]),
            n(&t["tokensBefore"]),
            "{file}"
        );
        let br = &t["byReason"];
        assert_eq!(
            n(&br["superseded_read"]) + n(&br["stale_bg_output"]) + n(&br["duplicate_search"]),
            n(&t["elided"]),
            "{file}"
        );
        let bc = &t["byCriticality"];
        assert_eq!(
            n(&bc["pinned"]) + n(&bc["high"]) + n(&bc["normal"]) + n(&bc["low"]),
            n(&t["segments"]),
            "{file}"
        );
        let segs = rep["segments"].as_array().unwrap();
        assert_eq!(
            segs.len() as u64 + n(&rep["segmentsOmitted"]),
            n(&t["segments"]),
            "{file}"
        );
        let elided: Vec<&Value> = segs.iter().filter(|s| s.get("elided").is_some()).collect();
        assert_eq!(elided.len() as u64, n(&t["elided"]), "{file}");
        assert_eq!(
            elided
                .iter()
                .map(|s| n(&s["elided"]["tokensSaved"]))
                .sum::<u64>(),
            n(&t["tokensSaved"]),
            "{file}"
        );
        for s in &elided {
            assert!(n(&s["elided"]["tokensSaved"]) < n(&s["tokens"]), "{file}");
            assert_eq!(
                (s["kind"].as_str(), s["criticality"].as_str()),
                (Some("tool_result"), Some("low"))
            );
        }
        let idx: Vec<u64> = segs.iter().map(|s| n(&s["index"])).collect();
        assert!(
            idx.windows(2).all(|w| w[0] < w[1])
                && idx.last().is_none_or(|l| *l < n(&t["segments"])),
            "{file}"
        );
        assert!(n(&rep["eligibleMessages"]) <= n(&rep["messages"]));
        assert_eq!(n(&rep["eligibleMessages"]) % 32, 0, "{file}");
        if want_format == "codex" {
            // Case 56: sanitized rollouts give no elision; tokens come from `len`.
            assert_eq!(n(&t["elided"]), 0, "{file}");
            assert!(n(&src["redactedValues"]) > 0, "{file}");
            assert!(n(&t["tokensBefore"]) > 1000, "{file}");
        }
    }
    assert_eq!(seen_files.len(), supported.len());
    // SWE-agent .traj files are not supported (spec/governor.md §11.2) and say so.
    for p in swe {
        let r = ws.run(&[
            "governor",
            "analyze",
            "--policy-version",
            "1",
            &p.display().to_string(),
        ]);
        assert_eq!(
            (r.code, r.stderr.clone()),
            (
                2,
                format!("error: {}: unsupported transcript format\n", p.display())
            )
        );
    }
}

/// An independent reading of a Claude Code main chain, straight from spec/governor.md §11.4 and §3, for the
/// Read / Edit / Write / MultiEdit / Grep / Glob tools only.
struct Msg {
    assistant: bool,
    /// For tool messages: (call id, tool name, input, cwd, text, is_error).
    tool: Option<(String, String, Value, String, String, bool)>,
}

fn independent_claude(bytes: &[u8]) -> (Vec<String>, std::collections::HashSet<String>) {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let mut msgs: Vec<Msg> = Vec::new();
    let mut asst_by_id: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut calls: std::collections::HashMap<String, (String, Value, String)> =
        std::collections::HashMap::new();
    for l in &lines {
        let ty = l["type"].as_str().unwrap_or_default();
        if !(ty == "user" || ty == "assistant")
            || l["isSidechain"].as_bool() == Some(true)
            || !l["message"].is_object()
        {
            continue;
        }
        let cwd = l["cwd"].as_str().unwrap_or_default().to_owned();
        if ty == "assistant" {
            for b in l["message"]["content"].as_array().into_iter().flatten() {
                if b["type"] == "tool_use" {
                    calls.insert(
                        b["id"].as_str().unwrap_or_default().to_owned(),
                        (
                            b["name"].as_str().unwrap_or_default().to_owned(),
                            b["input"].clone(),
                            cwd.clone(),
                        ),
                    );
                }
            }
            let id = l["message"]["id"].as_str().unwrap_or_default().to_owned();
            if let std::collections::hash_map::Entry::Vacant(v) = asst_by_id.entry(id) {
                v.insert(msgs.len());
                msgs.push(Msg {
                    assistant: true,
                    tool: None,
                });
            }
            continue;
        }
        if l["isCompactSummary"].as_bool() == Some(true) {
            msgs.clear();
            asst_by_id.clear();
        }
        let mut other =
            l["message"]["content"].is_string() || l["isCompactSummary"].as_bool() == Some(true);
        for b in l["message"]["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_result" {
                let id = b["tool_use_id"].as_str().unwrap_or_default().to_owned();
                let t = match &b["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(a) => a
                        .iter()
                        .filter(|x| x["type"] == "text")
                        .filter_map(|x| x["text"].as_str())
                        .collect(),
                    _ => String::new(),
                };
                let (name, input, cwd) = calls.get(&id).cloned().unwrap_or_default();
                msgs.push(Msg {
                    assistant: false,
                    tool: Some((
                        id,
                        name,
                        input,
                        cwd,
                        t,
                        b["is_error"].as_bool() == Some(true),
                    )),
                });
            } else {
                other = true;
            }
        }
        if other {
            msgs.push(Msg {
                assistant: false,
                tool: None,
            });
        }
    }
    let last_asst = msgs.iter().rposition(|m| m.assistant).unwrap_or(0);
    let mut elided = Vec::new();
    let mut unknown = std::collections::HashSet::new();
    for (i, m) in msgs.iter().enumerate() {
        let Some((id, name, input, cwd, text, err)) = &m.tool else {
            continue;
        };
        let plain = |s: &str| {
            s.bytes()
                .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
        };
        let (stub_len, justified) = match name.as_str() {
            "Read" => {
                let Some(p) = input["file_path"].as_str() else {
                    continue;
                };
                if !p.starts_with('/') || !plain(p) {
                    unknown.insert(id.clone());
                    continue;
                }
                let range = |v: &Value| {
                    (
                        v["offset"].as_u64().unwrap_or(1),
                        v["limit"].as_u64().unwrap_or(2000),
                    )
                };
                let lines = if input.get("offset").is_some() || input.get("limit").is_some() {
                    let (o, l) = range(input);
                    format!(" lines {o}+{l}").len()
                } else {
                    0
                };
                let j = msgs[i + 1..].iter().any(|n| match &n.tool {
                    Some((_, jn, ji, _, jt, false)) => {
                        (matches!(jn.as_str(), "Edit" | "Write" | "MultiEdit")
                            && ji["file_path"].as_str() == Some(p))
                            || (jn == "Read"
                                && ji["file_path"].as_str() == Some(p)
                                && range(ji) == range(input)
                                && jt != text)
                    }
                    _ => false,
                });
                (47 + p.len() + lines, j)
            }
            "Grep" | "Glob" => {
                let Some(p) = input["pattern"].as_str() else {
                    continue;
                };
                if !plain(p) {
                    unknown.insert(id.clone());
                    continue;
                }
                let j = msgs[i + 1..].iter().any(|n| {
                    matches!(&n.tool, Some((_, jn, ji, jc, jt, false)) if matches!(jn.as_str(), "Grep" | "Glob") && ji == input && jc == cwd && jt == text)
                });
                (53 + p.len(), j)
            }
            _ => continue,
        };
        let age = msgs[i + 1..].iter().filter(|n| n.assistant).count();
        if !err && justified && i < last_asst && age >= 2 && stub_len < text.encode_utf16().count()
        {
            elided.push(id.clone());
        }
    }
    (elided, unknown)
}

#[test]
fn sizable_claude_code_transcripts_agree_with_an_independent_count() {
    let Some(c) = corpus() else { return };
    let mut files = Vec::new();
    corpus_files(&c.join("transcripts/claude-code"), &mut files);
    let sizable: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| {
            std::fs::metadata(p)
                .map(|m| m.len() > 300_000)
                .unwrap_or(false)
        })
        .collect();
    assert!(sizable.len() >= 5, "{}", sizable.len());
    let ws = Ws::new();
    let mut total = 0;
    for p in &sizable {
        let (want, unknown) = independent_claude(&std::fs::read(p).unwrap());
        let v = ws
            .run(&[
                "--json",
                "governor",
                "analyze",
                "--policy-version",
                "1",
                "--epoch-messages",
                "0",
                &p.display().to_string(),
            ])
            .json();
        let main = &v[0];
        let segs = main["segments"].as_array().unwrap();
        let by_tool = |id: &str| {
            segs.iter()
                .find(|s| s["kind"] == "tool_call" && s["callId"] == id)
                .and_then(|s| s["tool"].as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let mut got = Vec::new();
        for s in segs.iter().filter(|s| s.get("elided").is_some()) {
            let id = s["callId"].as_str().unwrap().to_owned();
            if !matches!(s["tool"].as_str(), Some("Read" | "Grep" | "Glob"))
                || unknown.contains(&id)
            {
                continue;
            }
            // Justified only by a shell edit: outside the independent count.
            if by_tool(s["elided"]["by"].as_str().unwrap()) == "Bash" && !want.contains(&id) {
                continue;
            }
            got.push(id);
        }
        assert_eq!(got, want, "{}", p.display());
        total += want.len();
    }
    assert!(total >= 20, "{total}");
}
