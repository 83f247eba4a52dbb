//! `alisio-ls audit` through the built binary (spec/interfaces.md §4): session files written by
//! the test (Claude Code v2.x and v1, Codex), exact human and JSON output, bad input skipped and
//! counted, and every corpus transcript read without failing.

use serde_json::{Value, json};

use crate::common::{Ws, corpus};

/// Claude Code's project directory name for `root`.
fn encoded(root: &std::path::Path) -> String {
    root.display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn line(v: &Value) -> String {
    format!("{v}\n")
}

fn rec(ws: &str, kind: &str, ts: &str, extra: Value) -> Value {
    let mut v = json!({"type": kind, "sessionId": "s1", "uuid": format!("u-{ts}"),
        "timestamp": ts, "cwd": ws, "version": "2.1.332"});
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        for (k, x) in e {
            o.insert(k.clone(), x.clone());
        }
    }
    v
}

fn api(id: &str, base: Option<&str>, keep: u64, tail: usize, model: &str, ts: &str) -> Value {
    let mut v = json!({"type": "api-request", "sessionId": "s1", "id": id, "timestamp": ts,
        "version": "2.1.332", "shapeHash": "shape-a", "params": {"model": model},
        "keep": keep, "tail": (0..tail).map(|i| format!("{id}-{i}")).collect::<Vec<_>>()});
    if let Some(b) = base {
        v["base"] = json!(b);
    }
    v
}

fn assistant(ws: &str, req: &str, ts: &str, usage: [u64; 4], content: Value) -> Value {
    rec(
        ws,
        "assistant",
        ts,
        json!({"requestRef": req, "promptCacheRequested": "5m", "message": {"id": format!("m-{req}"),
        "role": "assistant", "model": "claude-sonnet-4-5", "content": content, "usage": {
        "input_tokens": usage[0], "cache_creation_input_tokens": usage[1],
        "cache_read_input_tokens": usage[2], "output_tokens": usage[3]}}}),
    )
}

const LISTING: &str = "- greet: Greets the user\n- bare\n- long: A long description\u{2026}\n";

/// A Claude Code v2.x session of `ws`: startup files, a nested read, a skill, a corrupt and an
/// unknown line, a compaction, a TTL expiry and a model switch.
fn claude_session(ws: &str) -> String {
    let instructions = json!({"attachment": {"type": "instructions", "files": [
        {"path": format!("{ws}/CLAUDE.md"), "type": "Project", "content": "@AGENTS.md"},
        {"path": format!("{ws}/AGENTS.md"), "type": "Project", "content": "old agents text"}]}});
    let listing = json!({"attachment": {"type": "skill_listing", "content": LISTING}});
    let read = |p: &str| json!([{"type": "tool_use", "id": format!("t-{p}"), "name": "Read", "input": {"file_path": p}}]);
    let result = json!({"message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}});
    let prompt = |t: &str| json!({"message": {"role": "user", "content": t}});
    let mut s = String::new();
    for v in [
        rec(ws, "user", "2026-01-01T10:00:00.000Z", prompt("hello")),
        rec(
            ws,
            "attachment",
            "2026-01-01T10:00:00.000Z",
            listing.clone(),
        ),
        rec(
            ws,
            "attachment",
            "2026-01-01T10:00:00.000Z",
            instructions.clone(),
        ),
        api(
            "r1",
            None,
            0,
            2,
            "claude-sonnet-4-5",
            "2026-01-01T10:00:00.000Z",
        ),
        assistant(
            ws,
            "r1",
            "2026-01-01T10:00:01.000Z",
            [100, 1000, 0, 10],
            read(&format!("{ws}/sub/x.txt")),
        ),
        rec(ws, "user", "2026-01-01T10:00:02.000Z", result.clone()),
        rec(
            ws,
            "attachment",
            "2026-01-01T10:00:02.000Z",
            json!({"attachment": {"type": "nested_memory",
            "path": format!("{ws}/sub/CLAUDE.md"), "content": {"path": format!("{ws}/sub/CLAUDE.md"),
            "type": "Project", "content": "sub rules\n", "contentDiffersFromDisk": false}}}),
        ),
        api(
            "r2",
            Some("r1"),
            2,
            2,
            "claude-sonnet-4-5",
            "2026-01-01T10:00:05.000Z",
        ),
        assistant(
            ws,
            "r2",
            "2026-01-01T10:00:06.000Z",
            [50, 200, 1000, 10],
            json!([{"type": "tool_use", "id": "t2", "name": "Skill", "input": {"skill": "greet"}}]),
        ),
        rec(ws, "user", "2026-01-01T10:00:07.000Z", result.clone()),
        rec(
            ws,
            "user",
            "2026-01-01T10:00:07.000Z",
            json!({"isMeta": true, "message": {"role": "user",
            "content": [{"type": "text", "text": format!("Base directory for this skill: {ws}/.claude/skills/greet\n\nSay hello. See ref.md and scripts/run.sh.")}]}}),
        ),
    ] {
        s.push_str(&line(&v));
    }
    s.push_str("{\"type\":\"user\",\"message\":\n");
    s.push_str(&line(
        &json!({"type": "mystery", "sessionId": "s1", "uuid": "u-x"}),
    ));
    for v in [
        rec(
            ws,
            "system",
            "2026-01-01T10:01:00.000Z",
            json!({"subtype": "compact_boundary",
            "compactMetadata": {"trigger": "manual", "preTokens": 1234}}),
        ),
        rec(
            ws,
            "user",
            "2026-01-01T10:01:00.000Z",
            json!({"isCompactSummary": true,
            "message": {"role": "user", "content": "Summary"}}),
        ),
        rec(ws, "attachment", "2026-01-01T10:01:00.000Z", listing),
        rec(ws, "user", "2026-01-01T10:01:10.000Z", prompt("again")),
        rec(ws, "attachment", "2026-01-01T10:01:10.000Z", instructions),
        api(
            "r3",
            None,
            0,
            3,
            "claude-sonnet-4-5",
            "2026-01-01T10:01:10.000Z",
        ),
        assistant(
            ws,
            "r3",
            "2026-01-01T10:01:11.000Z",
            [20, 500, 0, 5],
            read(&format!("{ws}/scripts/run.sh")),
        ),
        rec(ws, "user", "2026-01-01T10:01:12.000Z", result),
        api(
            "r4",
            Some("r3"),
            3,
            2,
            "claude-sonnet-4-5",
            "2026-01-01T10:08:00.000Z",
        ),
        assistant(
            ws,
            "r4",
            "2026-01-01T10:08:01.000Z",
            [10, 600, 0, 5],
            json!([{"type": "text", "text": "ok"}]),
        ),
        rec(ws, "user", "2026-01-01T10:08:20.000Z", prompt("switch")),
        api(
            "r5",
            Some("r4"),
            5,
            1,
            "claude-opus-4-5",
            "2026-01-01T10:08:30.000Z",
        ),
        assistant(
            ws,
            "r5",
            "2026-01-01T10:08:31.000Z",
            [10, 700, 0, 5],
            json!([{"type": "text", "text": "ok"}]),
        ),
    ] {
        s.push_str(&line(&v));
    }
    s
}

/// The workspace the session ran in, as it is on disk now (AGENTS.md changed since).
fn claude_ws() -> (Ws, String) {
    let ws = Ws::new();
    ws.files(&[
        ("CLAUDE.md", "@AGENTS.md\n"),
        ("AGENTS.md", "new agents text\n"),
        ("sub/CLAUDE.md", "sub rules\n"),
        ("sub/x.txt", "hello\n"),
        (
            ".claude/skills/greet/SKILL.md",
            "---\nname: greet\ndescription: Greets the user politely.\n---\nSay hello.\n",
        ),
    ]);
    let root = ws.root.display().to_string();
    let file = ws
        .home
        .join(".claude/projects")
        .join(encoded(&ws.root))
        .join("s1.jsonl");
    crate::common::write(&file, claude_session(&root));
    (ws, root)
}

#[test]
fn claude_session_human_report_is_exact() {
    let (ws, root) = claude_ws();
    let r = ws.run(&["audit"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let home = ws.home.display().to_string();
    let enc = encoded(&ws.root);
    let want = format!(
        "{home}/.claude/projects/{enc}/s1.jsonl [s1] claude-code 2.1.332
  cwd {root} (in this workspace)
  26 lines, 2 skipped, 3 prompts
  skipped line 12: not a JSON object (corrupt or truncated line)
  skipped line 13: unknown record type
  instruction files delivered:
    prompt  line  how               sha256        disk        explain     path
    1       3     startup           {c}  same        predicted   {root}/CLAUDE.md
            import @AGENTS.md expanded
    1       3     startup           {a}  OLDER-COPY  NOT-PREDICTED  {root}/AGENTS.md
    1       7     nested after Read (line 5)  {n}  same        predicted   {root}/sub/CLAUDE.md
    2       18    after-compaction  {c}  same        predicted   {root}/CLAUDE.md
            import @AGENTS.md expanded
    2       18    after-compaction  {a}  OLDER-COPY  NOT-PREDICTED  {root}/AGENTS.md
  skill listing (line 2, prompt 1): 3 skills, {lb} bytes, sha256 {l}; shortened: greet, long; dropped: bare
  skill listing (line 16, prompt 1): 3 skills, {lb} bytes, sha256 {l}; shortened: greet, long; dropped: bare
  skill invoked: greet (line 9), body loaded; unread references: ref.md
  compaction (line 14, manual): before: instruction files: {root}/CLAUDE.md, {root}/AGENTS.md, {root}/sub/CLAUDE.md; skill listing: yes; skill bodies: greet; todos: 0
    after: instruction files: {root}/CLAUDE.md, {root}/AGENTS.md; skill listing: yes; skill bodies: -; todos: 0
    lost: instruction files: {root}/sub/CLAUDE.md; skill listing: no; skill bodies: greet; todos: 0
  cache: 5 requests: 1 cold, 1 hits, 1 expected rebuilds, 1 ttl-expired, 1 broken; cost $0.0145, avoidable $0.0035, ttl $0.0018
    #     line  class             cause                     gap s   prompt tokens  cached    cost
    1     4     cold              -                              -           1100       0  0.0042
    2     8     hit               -                              5           1250    1000  0.0014
    3     19    expected-rebuild  compaction                    65            520       0  0.0020
    4     22    ttl-expired       gap                          410            610       0  0.0024
    5     25    broken            model-switch                  30            710       0  0.0046

1 session(s) audited
",
        c = &sha("@AGENTS.md")[..12],
        a = &sha("old agents text")[..12],
        n = &sha("sub rules")[..12],
        l = &sha(LISTING)[..12],
        lb = LISTING.len(),
    );
    assert_eq!(r.stdout, want);
}

fn sha(s: &str) -> String {
    use sha2::{Digest as _, Sha256};
    Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn close(a: &Value, b: f64) -> bool {
    a.as_f64().is_some_and(|x| (x - b).abs() < 1e-12)
}

#[test]
fn claude_session_json_has_the_exact_classes_costs_and_deliveries() {
    let (ws, root) = claude_ws();
    let r = ws.run(&["audit", "--json"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v = r.json();
    assert_eq!(v["version"], 1);
    let s = &v["sessions"][0];
    let classes: Vec<(&str, &str)> = s["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["class"].as_str().unwrap(),
                r["cause"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        classes,
        [
            ("cold", "-"),
            ("hit", "-"),
            ("expected-rebuild", "compaction"),
            ("ttl-expired", "gap"),
            ("broken", "model-switch")
        ]
    );
    let kept: Vec<&Value> = s["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["prefixKept"])
        .collect();
    assert_eq!(
        kept,
        [
            &Value::Null,
            &json!(true),
            &json!(false),
            &json!(true),
            &json!(false)
        ]
    );
    // Sonnet 3 / 3.75 / 0.30 / 15 and Opus 5 / 6.25 / 0.50 / 25 dollars per million tokens.
    let costs = [0.0042, 0.00135, 0.00201, 0.002355, 0.00455];
    for (r, c) in s["requests"].as_array().unwrap().iter().zip(costs) {
        assert!(close(&r["cost"], c), "{r}");
    }
    let t = &s["cache"];
    assert!(close(&t["cost"], costs.iter().sum()), "{t}");
    assert!(close(&t["ttlCost"], 520.0 * (3.75 - 0.3) / 1e6), "{t}");
    assert!(close(&t["avoidable"], 610.0 * (6.25 - 0.5) / 1e6), "{t}");
    assert_eq!(s["skippedLines"], 2);
    assert_eq!(s["workspaceMatch"], true);
    let d = &s["deliveries"][2];
    assert_eq!(d["path"], format!("{root}/sub/CLAUDE.md"));
    assert_eq!(d["how"], "nested");
    assert_eq!(
        d["afterTool"],
        json!({"tool": "Read", "target": format!("{root}/sub/x.txt"), "line": 5})
    );
    assert_eq!(d["sha256"], sha("sub rules"));
    assert_eq!(d["clientSaysDiffers"], false);
    assert_eq!(
        s["deliveries"][0]["imports"],
        json!([{"token": "@AGENTS.md", "path": format!("{root}/AGENTS.md"), "expanded": true}])
    );
    assert_eq!(s["compactions"][0]["preTokens"], 1234);
    assert_eq!(
        s["skillListings"][0]["skills"],
        json!([
            {"name": "greet", "descriptionChars": 15, "description": "shortened"},
            {"name": "bare", "descriptionChars": 0, "description": "dropped"},
            {"name": "long", "descriptionChars": 19, "description": "shortened"}
        ])
    );
}

#[test]
fn claude_v1_blocks_and_a_transcript_without_cwd() {
    let ws = Ws::new();
    ws.file("CLAUDE.md", "v1 rules\n");
    let root = ws.root.display().to_string();
    let text = format!(
        "<system-reminder>\nContents of {root}/CLAUDE.md (project instructions, checked into the codebase):\n\nv1 rules\n</system-reminder>"
    );
    let lines = [
        json!({"type": "user", "sessionId": "v1", "uuid": "a", "cwd": root, "timestamp": "2025-01-01T00:00:00Z",
            "isMeta": true, "message": {"role": "user", "content": [{"type": "text", "text": text}]}}),
        json!({"type": "assistant", "sessionId": "v1", "uuid": "b", "timestamp": "2025-01-01T00:00:01Z",
            "message": {"id": "m1", "model": "claude-haiku-4-5", "content": [], "usage": {"input_tokens": 10,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        json!({"type": "assistant", "sessionId": "v1", "uuid": "c", "timestamp": "2025-01-01T00:00:02Z",
            "message": {"id": "m2", "model": "claude-haiku-4-5", "content": [], "usage": {"input_tokens": 10,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 5, "output_tokens": 1}}}),
    ];
    ws.file("v1.jsonl", lines.iter().map(line).collect::<String>());
    ws.file(
        "nocwd.jsonl",
        line(&json!({"type": "user", "sessionId": "n", "uuid": "a", "message": {"role": "user", "content": "hi"}})),
    );
    let r = ws.run(&["audit", "--json", "v1.jsonl", "nocwd.jsonl"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v = r.json();
    let s = &v["sessions"][0];
    assert_eq!(s["deliveries"][0]["path"], format!("{root}/CLAUDE.md"));
    assert_eq!(
        s["deliveries"][0]["scope"],
        "project instructions, checked into the codebase"
    );
    assert_eq!(s["deliveries"][0]["sha256"], sha("v1 rules"));
    assert_eq!(s["deliveries"][0]["onDisk"], "same");
    assert_eq!(s["deliveries"][0]["predicted"], true);
    let classes: Vec<&Value> = s["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["class"])
        .collect();
    assert_eq!(classes, [&json!("cold"), &json!("hit")]);
    assert_eq!(v["sessions"][1]["workspaceMatch"], Value::Null);
    let human = ws.run(&["audit", "nocwd.jsonl"]);
    assert!(
        human
            .stdout
            .contains("  no cwd recorded: this transcript cannot be matched to a workspace\n"),
        "{}",
        human.stdout
    );
}

#[test]
fn codex_rollout_deliveries_and_cache() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "agents");
    let root = ws.root.display().to_string();
    let tc = |ts: &str, model: &str| json!({"timestamp": ts, "type": "turn_context", "payload": {"cwd": root, "model": model}});
    let tok = |ts: &str, total: u64, input: u64, cached: u64| {
        json!({"timestamp": ts, "type": "event_msg",
        "payload": {"type": "token_count", "info": {"total_token_usage": {"total_tokens": total},
        "last_token_usage": {"input_tokens": input, "cached_input_tokens": cached, "output_tokens": 10}}}})
    };
    let lines = [
        json!({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "cx", "cwd": root, "cli_version": "0.104.0"}}),
        json!({"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": format!("# AGENTS.md instructions for {root}\n\n<INSTRUCTIONS>\nagents\n</INSTRUCTIONS>")}]}}),
        json!({"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "do it"}]}}),
        tc("2026-01-01T00:00:01Z", "gpt-5-codex"),
        tok("2026-01-01T00:00:02Z", 1010, 1000, 0),
        tok("2026-01-01T00:00:02Z", 1010, 1000, 0),
        tok("2026-01-01T00:00:05Z", 2220, 1200, 1000),
        json!({"timestamp": "2026-01-01T00:00:06Z", "type": "compacted", "payload": {"message": "s"}}),
        tok("2026-01-01T00:00:07Z", 2530, 300, 0),
    ];
    ws.file("rollout.jsonl", lines.iter().map(line).collect::<String>());
    let r = ws.run(&["audit", "--json", "rollout.jsonl"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let s = &r.json()["sessions"][0];
    assert_eq!(s["format"], "codex");
    assert_eq!(s["clientVersion"], "0.104.0");
    assert_eq!(s["prompts"], 1);
    assert_eq!(s["deliveries"][0]["path"], root);
    assert_eq!(s["deliveries"][0]["sha256"], sha("agents"));
    assert_eq!(s["deliveries"][0]["predicted"], true);
    ws.file("AGENTS.md", "agents, edited since");
    let later = ws.run(&["audit", "--json", "rollout.jsonl"]);
    assert_eq!(
        later.json()["sessions"][0]["deliveries"][0]["predicted"],
        false
    );
    let classes: Vec<(&str, &str)> = s["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["class"].as_str().unwrap(),
                r["cause"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        classes,
        [
            ("cold", "-"),
            ("hit", "-"),
            ("expected-rebuild", "compaction")
        ]
    );
    // OpenAI: 1.25 input, 0.125 cached input, 10 output per million tokens.
    assert!(close(
        &s["requests"][1]["cost"],
        (200.0 * 1.25 + 1000.0 * 0.125 + 100.0) / 1e6
    ));
}

#[test]
fn bad_input_is_skipped_and_counted_never_fatal() {
    let ws = Ws::new();
    ws.file("garbage.jsonl", "not json\n\u{0}\u{1}\n{\"a\":\n");
    ws.file("empty.jsonl", "");
    let mut bytes = line(&json!({"type": "user", "sessionId": "t", "uuid": "a", "cwd": "/nowhere", "message": {"role": "user", "content": "hi"}}))
        .into_bytes();
    bytes.extend_from_slice(b"\xff\xfe\n{\"type\":\"assistant\",\"mess");
    ws.file("truncated.jsonl", bytes);
    let r = ws.run(&[
        "audit",
        "--json",
        "garbage.jsonl",
        "empty.jsonl",
        "truncated.jsonl",
    ]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v = r.json();
    let got: Vec<(Value, Value, Value)> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["format"].clone(),
                s["lines"].clone(),
                s["skippedLines"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (json!("unknown"), json!(3), json!(3)),
            (json!("unknown"), json!(0), json!(0)),
            (json!("claude-code"), json!(3), json!(2))
        ]
    );
    assert_eq!(
        v["sessions"][2]["problems"],
        json!([{"line": 2, "message": "not UTF-8"}, {"line": 3, "message": "not a JSON object (corrupt or truncated line)"}])
    );
    assert_eq!(v["sessions"][2]["workspaceMatch"], false);
    let missing = ws.run(&["audit", "nope.jsonl"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.starts_with("error: nope.jsonl: "),
        "{}",
        missing.stderr
    );
}

#[test]
fn html_page_carries_the_audit_and_the_chart() {
    let (ws, _) = claude_ws();
    let r = ws.run(&["audit", "--html", "out.html"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let page = std::fs::read_to_string(ws.root.join("out.html")).unwrap();
    assert!(page.contains("<title>alisio-ls audit</title>"));
    let tag = "<script id=\"data\" type=\"application/json\">";
    let start = page.find(tag).unwrap() + tag.len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    let chart = &data["sessions"][0]["chart"];
    assert_eq!(chart["requests"], json!([1, 2, 3, 4, 5]));
    assert_eq!(
        chart["series"][0]["tokens"],
        json!([1100, 1250, 520, 610, 710])
    );
    assert_eq!(chart["series"][0]["cached"], json!([0, 1000, 0, 0, 0]));
    assert_eq!(data["sessions"][0]["audit"]["cache"]["broken"], 1);
}

#[test]
fn every_corpus_transcript_is_audited_without_failing() {
    let Some(corpus) = corpus() else {
        eprintln!("skipped: no ../shared/corpus");
        return;
    };
    let dir = corpus.join("transcripts");
    let ws = Ws::new();
    let r = ws.run(&["audit", "--json", dir.to_str().unwrap()]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v = r.json();
    let sessions = v["sessions"].as_array().unwrap();
    let mut files = Vec::new();
    let mut trajectories = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            } else if p.to_string_lossy().ends_with(".traj.json") {
                trajectories.push(p.display().to_string());
            }
        }
    }
    assert_eq!(sessions.len(), files.len());
    for s in sessions {
        assert_ne!(s["format"], "unknown", "{}", s["file"]);
        assert!(
            s["skippedLines"].as_u64().unwrap() * 2 <= s["lines"].as_u64().unwrap(),
            "{}",
            s["file"]
        );
    }
    assert!(!trajectories.is_empty());
    let mut args = vec!["audit", "--json"];
    args.extend(trajectories.iter().map(String::as_str));
    let r = ws.run(&args);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let v = r.json();
    for s in v["sessions"].as_array().unwrap() {
        assert_eq!(s["format"], "mini-swe-agent", "{}", s["file"]);
    }
}

#[test]
fn without_arguments_the_workspace_sessions_are_found() {
    let ws = Ws::new();
    let root = ws.root.display().to_string();
    let meta = |id: &str, cwd: &str| {
        line(
            &json!({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
            "payload": {"id": id, "cwd": cwd, "cli_version": "0.104.0"}}),
        )
    };
    let sessions = ws.home.join(".codex/sessions/2026/01/01");
    crate::common::write(&sessions.join("rollout-a.jsonl"), meta("mine", &root));
    crate::common::write(
        &sessions.join("rollout-b.jsonl"),
        meta("other", "/elsewhere"),
    );
    let projects = ws.home.join(".claude/projects");
    let user = |cwd: &str| {
        line(
            &json!({"type": "user", "sessionId": cwd, "uuid": "a", "cwd": cwd,
            "message": {"role": "user", "content": "hi"}}),
        )
    };
    let sub = format!("{root}/pkg");
    crate::common::write(
        &projects.join(encoded(&ws.root)).join("a.jsonl"),
        user(&root),
    );
    crate::common::write(
        &projects
            .join(encoded(std::path::Path::new(&sub)))
            .join("b.jsonl"),
        user(&sub),
    );
    crate::common::write(
        &projects.join("-elsewhere").join("c.jsonl"),
        user("/elsewhere"),
    );
    // A sibling repository `<root>-2`: its directory name extends the root's, its files are
    // not this workspace's.
    let sibling = format!("{root}-2");
    crate::common::write(
        &projects
            .join(encoded(std::path::Path::new(&sibling)))
            .join("d.jsonl"),
        user(&sibling),
    );
    let r = ws.run(&["audit", "--json"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let got: Vec<(Value, Value)> = r.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["format"].clone(), s["session"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!("claude-code"), json!(root)),
            (json!("claude-code"), json!(sub)),
            (json!("codex"), json!("mine"))
        ]
    );
    let empty = Ws::new();
    let none = empty.run(&["audit"]);
    assert_eq!(none.code, 0);
    assert_eq!(none.stdout, "0 session(s) audited\n");
    assert_eq!(
        none.stderr,
        "note: no session of this workspace was found in ~/.claude/projects/, $CODEX_HOME/sessions/ or alisio-ls's store\n"
    );
}

/// Sets the modification time of `files` (below the workspace) to 2025-01-01, before the
/// sessions of these tests started.
fn age(ws: &Ws, files: &[&str]) {
    for f in files {
        std::fs::File::options()
            .write(true)
            .open(ws.root.join(f))
            .unwrap()
            .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_735_689_600))
            .unwrap();
    }
}

#[test]
fn a_file_explain_predicts_that_a_claude_session_never_received_is_reported() {
    let ws = Ws::new();
    ws.files(&[
        ("CLAUDE.md", "rules\n"),
        (".claude/rules/style.md", "tabs\n"),
    ]);
    age(&ws, &["CLAUDE.md", ".claude/rules/style.md"]);
    let root = ws.root.display().to_string();
    let instructions = json!({"attachment": {"type": "instructions", "files": [
        {"path": format!("{root}/CLAUDE.md"), "type": "Project", "content": "rules"}]}});
    let lines = [
        rec(
            &root,
            "user",
            "2026-01-01T10:00:00.000Z",
            json!({"message": {"role": "user", "content": "hi"}}),
        ),
        rec(
            &root,
            "attachment",
            "2026-01-01T10:00:00.000Z",
            instructions,
        ),
    ];
    ws.file("s.jsonl", lines.iter().map(line).collect::<String>());
    let r = ws.run(&["audit", "--json", "s.jsonl"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let s = &r.json()["sessions"][0];
    assert_eq!(s["deliveries"][0]["predicted"], true);
    assert_eq!(
        s["notReceived"],
        json!([{"path": format!("{root}/.claude/rules/style.md"), "sha256": sha("tabs")}])
    );
    let human = ws.run(&["audit", "s.jsonl"]);
    assert!(
        human.stdout.contains(&format!(
            "{root}/CLAUDE.md\n  NOT-RECEIVED: {root}/.claude/rules/style.md (explain predicts it for the session's cwd)\n"
        )),
        "{}",
        human.stdout
    );
    // Edited after the session started, the file says nothing about the session.
    ws.file(".claude/rules/style.md", "tabs, edited\n");
    let later = ws.run(&["audit", "--json", "s.jsonl"]);
    assert_eq!(later.json()["sessions"][0]["notReceived"], json!([]));
}

#[test]
fn a_file_explain_predicts_that_a_codex_session_never_received_is_reported() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "agents\n");
    age(&ws, &["AGENTS.md"]);
    let root = ws.root.display().to_string();
    let lines = [
        json!({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "cx", "cwd": root, "cli_version": "0.171.0"}}),
        json!({"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "do it"}]}}),
    ];
    ws.file("rollout.jsonl", lines.iter().map(line).collect::<String>());
    let r = ws.run(&["audit", "--json", "rollout.jsonl"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let s = &r.json()["sessions"][0];
    assert_eq!(s["deliveries"], json!([]));
    assert_eq!(
        s["notReceived"],
        json!([{"path": format!("{root}/AGENTS.md")}])
    );
    let human = ws.run(&["audit", "rollout.jsonl"]);
    assert!(
        human.stdout.contains(&format!(
            "  instruction files delivered: none\n  NOT-RECEIVED: {root}/AGENTS.md (explain predicts it for the session's cwd)\n"
        )),
        "{}",
        human.stdout
    );
}

#[test]
fn alisio_sessions_are_audited_from_the_store_and_a_file_never_received_is_reported() {
    let ws = Ws::new();
    ws.files(&[
        ("AGENTS.md", "root rules\n"),
        ("sub/AGENTS.md", "sub rules\n"),
        ("sub/x.txt", "x\n"),
    ]);
    ws.file(
        "s.jsonl",
        [
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"sub/x.txt"}}]}"#,
            r#"{"text":"done"}"#,
        ]
        .join("\n"),
    );
    let run = ws.run(&["run", "--json", "--script", "s.jsonl", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sid = crate::sess::sid(&crate::sess::events(&run));
    // The stored times of its two requests, fixed so the gap is exact.
    let db = crate::sess::db(&ws);
    for (seq, at) in [
        (2, "2026-01-01T10:00:00.000Z"),
        (4, "2026-01-01T10:00:03.000Z"),
    ] {
        db.execute(
            "UPDATE messages SET created_at=?3 WHERE session_id=?1 AND seq=?2",
            rusqlite::params![sid, seq, at],
        )
        .unwrap();
    }
    drop(db);
    ws.file("AGENTS.md", "root rules, edited\n");
    // A global file older than the session, which that run did not have (it was not there).
    crate::common::write(&ws.config_home.join("AGENTS.md"), "global\n");
    std::fs::File::options()
        .write(true)
        .open(ws.config_home.join("AGENTS.md"))
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_735_689_600))
        .unwrap();
    let r = ws.run(&["audit"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let root = ws.root.display().to_string();
    let db = ws.root.parent().unwrap().join("state/sessions.db");
    let global = ws.config_home.join("AGENTS.md").display().to_string();
    let want = format!(
        "{db} [{sid}] alisio
  cwd {root} (in this workspace)
  2 lines, 0 skipped, 1 prompts
  instruction files delivered:
    prompt  line  how               sha256        disk        explain     path
    1       1     startup           {a}  OLDER-COPY  NOT-PREDICTED  {root}/AGENTS.md
    1       2     nested after read_file (line 3)  {s}  same        predicted   {root}/sub/AGENTS.md
  NOT-RECEIVED: {global} (explain predicts it for the session's cwd)
  cache: 2 requests: 1 cold, 0 hits, 0 expected rebuilds, 0 ttl-expired, 0 broken; cost $0.0000, avoidable $0.0000, ttl $0.0000
    #     line  class             cause                     gap s   prompt tokens  cached    cost
    1     2     cold              -                              -              -       -  0.0000
    2     4     unknown           -                              3              -       -  0.0000

1 session(s) audited
",
        db = db.display(),
        a = &sha("root rules\n")[..12],
        s = &sha("sub rules\n")[..12],
    );
    assert_eq!(r.stdout, want);
    // The store named on the command line: the same session.
    let j = ws.run(&["audit", "--json", &db.display().to_string()]);
    assert_eq!((j.code, j.stderr.as_str()), (0, ""));
    let s = &j.json()["sessions"][0];
    assert_eq!(
        (s["format"].as_str(), s["session"].as_str()),
        (Some("alisio"), Some(sid.as_str()))
    );
    assert_eq!(
        s["notReceived"],
        json!([{"path": global, "sha256": sha("global\n")}])
    );
    // The script reported no usage: the runner's estimate says nothing of the cache, so the
    // requests carry no usage, the second is `unknown`, and nothing is priced. The script
    // provider assumes no cache lifetime (ttlSecs 0: never expired).
    assert_eq!(
        s["requests"],
        json!([
            {"index": 1, "line": 2, "model": "script", "ttlSecs": 0, "class": "cold", "cost": 0.0, "extraCost": 0.0},
            {"index": 2, "line": 4, "model": "script", "gapSecs": 3.0, "ttlSecs": 0, "class": "unknown", "cost": 0.0, "extraCost": 0.0},
        ])
    );
}

/// An Anthropic Messages stream from `model` with `usage` (`input_tokens`,
/// `cache_creation_input_tokens`, `cache_read_input_tokens`, `output_tokens`) whose answer is
/// a `read_file` of `a.txt` by the call `call` or the text `done`.
fn anthropic_reply(model: &str, usage: [u64; 4], call: Option<&str>) -> crate::fake::Reply {
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut s = ev(
        "message_start",
        json!({"type": "message_start", "message": {"model": model, "usage": {
            "input_tokens": usage[0], "cache_creation_input_tokens": usage[1],
            "cache_read_input_tokens": usage[2], "output_tokens": 1}}}),
    );
    let (block, delta, stop) = match call {
        Some(id) => (
            json!({"type": "tool_use", "id": id, "name": "read_file", "input": {}}),
            json!({"type": "input_json_delta", "partial_json": json!({"path": "a.txt"}).to_string()}),
            "tool_use",
        ),
        None => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": "done"}),
            "end_turn",
        ),
    };
    s += &ev(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": block}),
    );
    s += &ev(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
    );
    s += &ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    s += &ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": usage[3]}}),
    );
    s += &ev("message_stop", json!({"type": "message_stop"}));
    crate::fake::Reply::sse(&s, 64)
}

/// A live alisio-ls session against a fake Anthropic server: two runs of two requests, the
/// second after a pause longer than the cache's 5 minutes (the stored times set apart), its last
/// answered by another model. The audit of the store reports each request with the provider's
/// figures, the class and the cause, in JSON, in the human table and in the HTML page.
#[test]
fn an_alisio_sessions_requests_show_the_providers_cache_hit_expiry_and_model_switch() {
    use crate::fake::Fake;
    let ws = Ws::new();
    ws.files(&[("AGENTS.md", "rules\n"), ("a.txt", "a\n")]);
    let sonnet = "claude-sonnet-4-5";
    let fake = Fake::start(vec![
        anthropic_reply(sonnet, [10, 2000, 0, 50], Some("toolu_1")),
        anthropic_reply(sonnet, [20, 100, 2000, 40], None),
        anthropic_reply(sonnet, [30, 2150, 0, 30], Some("toolu_2")),
        anthropic_reply("claude-haiku-4-5", [10, 2200, 0, 20], None),
    ]);
    ws.file(
        "cfg.json",
        json!({"provider": {"kind": "anthropic", "baseUrl": fake.url, "model": sonnet}})
            .to_string(),
    );
    let go = |extra: &[&str]| {
        let mut args = vec!["run", "--json", "--config", "cfg.json"];
        args.extend_from_slice(extra);
        args.push("read a.txt");
        let r = crate::common::run_cmd(ws.cmd().env("ANTHROPIC_API_KEY", "k").args(&args));
        assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
        r
    };
    let first = go(&[]);
    let sid = crate::sess::sid(&crate::sess::events(&first));
    go(&["--session", &sid]);
    assert_eq!(fake.requests().len(), 4);
    // The stored times, as a pause of 10 minutes before the second run would have left them.
    let db = crate::sess::db(&ws);
    for (seq, at) in [
        (2, "2026-01-01T10:00:00.000Z"),
        (4, "2026-01-01T10:00:05.000Z"),
        (6, "2026-01-01T10:10:05.000Z"),
        (8, "2026-01-01T10:10:07.500Z"),
    ] {
        let n = db
            .execute(
                "UPDATE messages SET created_at=?3 WHERE session_id=?1 AND seq=?2 AND role='assistant'",
                rusqlite::params![sid, seq, at],
            )
            .unwrap();
        assert_eq!(n, 1, "seq {seq}");
    }
    drop(db);
    let store = crate::sess::state(&ws).join("sessions.db");
    let store = store.display().to_string();
    let r = ws.run(&["audit", "--json", &store]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let s = &r.json()["sessions"][0];
    assert_eq!(
        (s["format"].as_str(), s["session"].as_str()),
        (Some("alisio"), Some(sid.as_str()))
    );
    let mut reqs = s["requests"].clone();
    let costs: Vec<(f64, f64)> = reqs
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["cost"].as_f64().unwrap(),
                q["extraCost"].as_f64().unwrap(),
            )
        })
        .collect();
    for q in reqs.as_array_mut().unwrap() {
        let q = q.as_object_mut().unwrap();
        q.remove("cost");
        q.remove("extraCost");
    }
    let usage = |i: u64, w: u64, r: u64, o: u64| json!({"input": i, "cacheWrite": w, "cacheRead": r, "output": o});
    assert_eq!(
        reqs,
        json!([
            {"index": 1, "line": 2, "model": sonnet, "ttlSecs": 300, "class": "cold",
             "usage": usage(10, 2000, 0, 50)},
            {"index": 2, "line": 4, "model": sonnet, "gapSecs": 5.0, "ttlSecs": 300, "class": "hit",
             "usage": usage(20, 100, 2000, 40)},
            {"index": 3, "line": 6, "model": sonnet, "gapSecs": 600.0, "ttlSecs": 300,
             "class": "ttl-expired", "cause": "gap", "usage": usage(30, 2150, 0, 30)},
            {"index": 4, "line": 8, "model": "claude-haiku-4-5", "gapSecs": 2.5, "ttlSecs": 300,
             "class": "broken", "cause": "model-switch", "usage": usage(10, 2200, 0, 20)},
        ])
    );
    // List prices per million: Sonnet 3 / 3.75 / 0.30 / 15, Haiku 1 / 1.25 / 0.10 / 5. The
    // expiry re-wrote the reusable prefix min(2120, 2180) at 3.75 − 0.30, the switch
    // min(2180, 2210) at Haiku's 1.25 − 0.10.
    let want = [
        ((10.0 * 3.0 + 2000.0 * 3.75 + 50.0 * 15.0) / 1e6, 0.0),
        (
            (20.0 * 3.0 + 100.0 * 3.75 + 2000.0 * 0.3 + 40.0 * 15.0) / 1e6,
            0.0,
        ),
        (
            (30.0 * 3.0 + 2150.0 * 3.75 + 30.0 * 15.0) / 1e6,
            2120.0 * 3.45 / 1e6,
        ),
        (
            (10.0 + 2200.0 * 1.25 + 20.0 * 5.0) / 1e6,
            2180.0 * 1.15 / 1e6,
        ),
    ];
    for (i, ((c, x), (wc, wx))) in costs.iter().zip(want).enumerate() {
        assert!(
            (c - wc).abs() < 1e-12 && (x - wx).abs() < 1e-12,
            "request {}: {c} {x}",
            i + 1
        );
    }
    let t = &s["cache"];
    assert_eq!(
        [
            &t["requests"],
            &t["hits"],
            &t["cold"],
            &t["expectedRebuilds"],
            &t["ttlExpired"],
            &t["broken"]
        ],
        [
            &json!(4),
            &json!(1),
            &json!(1),
            &json!(0),
            &json!(1),
            &json!(1)
        ]
    );
    assert!(close(&t["avoidable"], 2180.0 * 1.15 / 1e6));
    assert!(close(&t["ttlCost"], 2120.0 * 3.45 / 1e6));
    assert!(close(&t["cost"], want.iter().map(|w| w.0).sum()));

    let human = ws.run(&["audit", &store]);
    assert_eq!((human.code, human.stderr.as_str()), (0, ""));
    let table = "  cache: 4 requests: 1 cold, 1 hits, 0 expected rebuilds, 1 ttl-expired, 1 broken; cost $0.0214, avoidable $0.0025, ttl $0.0073
    #     line  class             cause                     gap s   prompt tokens  cached    cost
    1     2     cold              -                              -           2010       0  0.0083
    2     4     hit               -                              5           2120    2000  0.0016
    3     6     ttl-expired       gap                          600           2180       0  0.0086
    4     8     broken            model-switch                   2           2210       0  0.0029
";
    assert!(human.stdout.contains(table), "{}", human.stdout);

    let page = ws.run(&["audit", "--html", "out.html", &store]);
    assert_eq!((page.code, page.stderr.as_str()), (0, ""));
    let page = std::fs::read_to_string(ws.root.join("out.html")).unwrap();
    let tag = "<script id=\"data\" type=\"application/json\">";
    let start = page.find(tag).unwrap() + tag.len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    let chart = &data["sessions"][0]["chart"];
    assert_eq!(chart["requests"], json!([1, 2, 3, 4]));
    assert_eq!(
        chart["series"][0]["tokens"],
        json!([2010, 2120, 2180, 2210])
    );
    assert_eq!(chart["series"][0]["cached"], json!([0, 2000, 0, 0]));
    assert_eq!(
        data["sessions"][0]["audit"]["requests"][3]["cause"],
        "model-switch"
    );
}

/// The cache lifetime a run assumed is recorded in its `run_started` (spec/sessions.md §8,
/// `promptCacheTtlSeconds`), and the audit of alisio-ls's own sessions judges an expiry by it
/// (interfaces.md §4): a script session configured with 60 s, whose second request came 90 s
/// after the first and read nothing from the cache, is `ttl-expired` (the script kind's default
/// would have assumed no lifetime).
#[test]
fn an_alisio_session_is_audited_with_the_cache_lifetime_its_run_assumed() {
    let ws = Ws::new();
    ws.file(
        "s.jsonl",
        [
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}],"usage":{"input":1000,"output":5,"cacheWrite":1000}}"#,
            r#"{"text":"done","usage":{"input":1100,"output":5,"cacheWrite":1100}}"#,
        ]
        .join("\n"),
    );
    ws.file(
        "cfg.json",
        json!({"provider": {"kind": "script", "script": "s.jsonl", "promptCacheTtlSeconds": 60}})
            .to_string(),
    );
    let run = ws.run(&["run", "--json", "--config", "cfg.json", "go"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ev = crate::sess::events(&run);
    assert_eq!(
        crate::sess::of_type(&ev, "run_started")[0]["data"]["promptCacheTtlSeconds"],
        60
    );
    let sid = crate::sess::sid(&ev);
    let db = crate::sess::db(&ws);
    for (seq, at) in [
        (2, "2026-01-01T10:00:00.000Z"),
        (4, "2026-01-01T10:01:30.000Z"),
    ] {
        db.execute(
            "UPDATE messages SET created_at=?3 WHERE session_id=?1 AND seq=?2",
            rusqlite::params![sid, seq, at],
        )
        .unwrap();
    }
    drop(db);
    let store = crate::sess::state(&ws).join("sessions.db");
    let r = ws.run(&["audit", "--json", &store.display().to_string()]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let reqs = &r.json()["sessions"][0]["requests"];
    let got: Vec<(Value, Value, Value, Value)> = reqs
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["ttlSecs"].clone(),
                q["gapSecs"].clone(),
                q["class"].clone(),
                q["cause"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (json!(60), Value::Null, json!("cold"), Value::Null),
            (json!(60), json!(90.0), json!("ttl-expired"), json!("gap")),
        ]
    );
}
