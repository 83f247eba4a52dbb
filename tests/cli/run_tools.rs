//! Tools and confinement through `alisio-ls run` (spec/sessions.md §11 cases 29–37).

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

fn one_call(ws: &Ws, calls: Value, extra: &[&str]) -> Vec<Value> {
    script(
        ws,
        &[&json!({"toolCalls":calls}).to_string(), r#"{"text":"ok"}"#],
    );
    let (r, ev) = run(ws, "p", extra);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    tool_results(ws, &sid(&ev))
}

fn sha(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

// 29
#[test]
fn write_file_checks_its_hash_precondition_and_creates_directories() {
    let ws = Ws::new();
    ws.file("a.txt", "old");
    let t = one_call(
        &ws,
        json!([{"name":"write_file","arguments":{"path":"a.txt","content":"new","expectedHash":"0000"}},
               {"name":"write_file","arguments":{"path":"a.txt","content":"new","expectedHash":null}},
               {"name":"write_file","arguments":{"path":"a/b/c.txt","content":"deep","expectedHash":null}},
               {"name":"write_file","arguments":{"path":"a.txt","content":"new","expectedHash":sha(b"old")}}]),
        &["--allow", "write"],
    );
    assert_eq!(
        result_text(&t[0]),
        "File precondition failed: reread the file and use its current sha256"
    );
    assert_eq!(
        result_text(&t[1]),
        "File precondition failed: reread the file and use its current sha256"
    );
    let out: Value = serde_json::from_str(&result_text(&t[2])).unwrap();
    assert_eq!(
        out,
        json!({"path":"a/b/c.txt","sha256":sha(b"deep"),"bytes":4,"created":true})
    );
    assert_eq!(
        serde_json::from_str::<Value>(&result_text(&t[3])).unwrap()["created"],
        json!(false)
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "new"
    );
    let leftovers = ws.root_entries_ending(".tmp");
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

// 30
#[test]
fn edit_file_needs_one_match_and_keeps_crlf() {
    let ws = Ws::new();
    ws.file("two.txt", "x\nx\n");
    ws.file("crlf.txt", "a\r\nb\r\nc\r\n");
    let t = one_call(
        &ws,
        json!([{"name":"edit_file","arguments":{"path":"two.txt","oldText":"x","newText":"y","expectedHash":sha(b"x\nx\n")}},
               {"name":"edit_file","arguments":{"path":"crlf.txt","oldText":"a\nb","newText":"A\nB","expectedHash":sha(b"a\r\nb\r\nc\r\n")}}]),
        &["--allow", "write"],
    );
    assert_eq!(
        result_text(&t[0]),
        "Edit must match exactly one occurrence (found 2)"
    );
    assert_eq!(t[1]["isError"], json!(false), "{}", result_text(&t[1]));
    assert_eq!(
        std::fs::read(ws.root.join("crlf.txt")).unwrap(),
        b"A\r\nB\r\nc\r\n"
    );
    assert_eq!(std::fs::read(ws.root.join("two.txt")).unwrap(), b"x\nx\n");
}

// 31
#[test]
fn binary_files_and_contents_are_refused() {
    let ws = Ws::new();
    ws.file("bin.dat", b"ab\0cd");
    let t = one_call(
        &ws,
        json!([{"name":"read_file","arguments":{"path":"bin.dat"}},{"name":"write_file","arguments":{"path":"n.txt","content":"a\u{0}b","expectedHash":null}}]),
        &["--allow", "write"],
    );
    assert_eq!(result_text(&t[0]), "Binary file; text reader refused");
    assert_eq!(
        result_text(&t[1]),
        "Binary content; write_file only writes text"
    );
}

// 32
#[cfg(unix)]
#[test]
fn paths_outside_or_escaping_are_refused_unless_the_directory_is_added() {
    let ws = Ws::new();
    let outside = ws.tmp.path().canonicalize().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("o.txt"), "out").unwrap();
    std::fs::write(ws.root.parent().unwrap().join("outside.txt"), "o").unwrap();
    std::os::unix::fs::symlink(&outside, ws.root.join("link")).unwrap();
    let calls = json!([{"name":"read_file","arguments":{"path":"../outside.txt"}},{"name":"read_file","arguments":{"path":"link/o.txt"}}]);
    let t = one_call(&ws, calls.clone(), &[]);
    assert_eq!(
        result_text(&t[0]),
        format!(
            "Path is outside the workspace: {}",
            ws.root.parent().unwrap().join("outside.txt").display()
        )
    );
    assert_eq!(t[0]["outcome"], "refused");
    // The structural refusal mark (spec/sessions.md §1.4, issue 21): denial pruning reads it.
    assert_eq!(
        (&t[0]["denial"], &t[1]["denial"]),
        (&json!("confinement"), &json!("confinement"))
    );
    assert_eq!(
        result_text(&t[1]),
        "Path escapes the workspace through a symlink: link/o.txt"
    );
    let t = one_call(&ws, calls, &["--add-dir", outside.to_str().unwrap()]);
    assert_eq!(t[1]["isError"], json!(false));
    assert!(t[1].get("denial").is_none());
    assert!(result_text(&t[1]).contains("\"content\":\"1: out\""));
}

// 33
#[cfg(unix)]
#[test]
fn writes_through_symlinks_and_into_dot_git_are_refused() {
    let ws = Ws::new();
    ws.file("real.txt", "r");
    std::os::unix::fs::symlink(ws.root.join("real.txt"), ws.root.join("ln.txt")).unwrap();
    let t = one_call(
        &ws,
        json!([{"name":"write_file","arguments":{"path":"ln.txt","content":"x","expectedHash":null}},{"name":"write_file","arguments":{"path":".git/config","content":"x","expectedHash":null}}]),
        &["--allow", "write"],
    );
    assert_eq!(
        result_text(&t[0]),
        "Refusing to write through a symlink: ln.txt"
    );
    assert_eq!(
        result_text(&t[1]),
        "Refusing to write inside .git: .git/config"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("real.txt")).unwrap(),
        "r"
    );
}

// 34
#[test]
fn search_text_prints_ripgrep_json_lines_natively() {
    let ws = Ws::new();
    ws.file(".gitignore", "ignored.txt\n");
    ws.file("b.txt", "needle two\n");
    ws.file("a.txt", "x\nneedle one\n");
    ws.file("ignored.txt", "needle hidden\n");
    ws.file(".git/HEAD", "needle in git\n");
    let calls = json!([{"name":"search_text","arguments":{"pattern":"needle","glob":"*.txt"}},{"name":"search_text","arguments":{"pattern":"abs[e]nt"}},{"name":"search_text","arguments":{"pattern":"("}}]);
    script(
        &ws,
        &[&json!({"toolCalls":calls}).to_string(), r#"{"text":"ok"}"#],
    );
    // No rg on PATH: the search is native.
    let r = crate::common::run_cmd(
        ws.cmd()
            .env("PATH", "/nonexistent")
            .args(["run", "--json", "--script", "s.jsonl", "p"]),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let t = tool_results(&ws, &sid(&events(&r)));
    let out: Value = serde_json::from_str(&result_text(&t[0])).unwrap();
    assert_eq!(out["exitCode"], json!(0));
    let lines: Vec<Value> = out["stdout"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["begin", "match", "end", "begin", "match", "end", "summary"]
    );
    assert_eq!(lines[0]["data"]["path"]["text"], "a.txt");
    assert_eq!(lines[1]["data"]["line_number"], json!(2));
    assert_eq!(lines[1]["data"]["absolute_offset"], json!(2));
    assert_eq!(
        lines[1]["data"]["submatches"],
        json!([{"match":{"text":"needle"},"start":0,"end":6}])
    );
    assert_eq!(lines[3]["data"]["path"]["text"], "b.txt");
    assert_eq!(lines[6]["data"]["stats"]["matches"], json!(2));
    let none: Value = serde_json::from_str(&result_text(&t[1])).unwrap();
    assert_eq!(none["exitCode"], json!(1));
    assert!(result_text(&t[2]).starts_with("Invalid pattern: "));
}

// 35
#[test]
fn list_files_includes_hidden_skills_excludes_git_and_ignored_and_pages() {
    let ws = Ws::new();
    ws.file(".gitignore", "junk/\n");
    ws.file(".agents/skills/x/SKILL.md", "---\nname: x\n---\n");
    ws.file("junk/a.txt", "");
    ws.file("node_modules/m.js", "");
    for i in 0..3 {
        ws.file(&format!("f{i}.txt"), "");
    }
    let t = one_call(
        &ws,
        json!([{"name":"list_files","arguments":{}},{"name":"list_files","arguments":{"limit":2,"offset":1}}]),
        &[],
    );
    let all: Value = serde_json::from_str(&result_text(&t[0])).unwrap();
    let files: Vec<&str> = all["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(files.contains(&".agents/skills/x/SKILL.md"));
    assert!(!files.iter().any(|f| f.starts_with(".git/")
        || f.starts_with("junk/")
        || f.starts_with("node_modules/")));
    assert_eq!(all["nextOffset"], Value::Null);
    let page: Value = serde_json::from_str(&result_text(&t[1])).unwrap();
    assert_eq!(page["files"].as_array().unwrap().len(), 2);
    assert_eq!(page["nextOffset"], json!(3));
}

// 36
#[cfg(unix)]
#[test]
fn run_process_caps_output_times_out_and_filters_the_environment() {
    let ws = Ws::new();
    let calls = json!([
        {"name":"shell","arguments":{"command":"head -c 9000000 /dev/zero | tr '\\0' a"}},
        {"name":"run_process","arguments":{"command":"sleep","args":["5"],"timeoutMs":100}},
        {"name":"run_process","arguments":{"command":"env","args":[]}}
    ]);
    script(
        &ws,
        &[&json!({"toolCalls":calls}).to_string(), r#"{"text":"ok"}"#],
    );
    let r = crate::common::run_cmd(ws.cmd().env("OPENAI_API_KEY", "sk-test-SECRET").args([
        "run", "--json", "--allow", "process", "--script", "s.jsonl", "p",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = sid(&events(&r));
    let t = tool_results(&ws, &id);
    // Kept whole up to 8 MiB per result; past it the cut is stated (issue 13 §1). The call's
    // stored result stays whole (the active message may be clipped by the context budget).
    let whole: String = db(&ws)
        .query_row(
            "SELECT result FROM calls WHERE session_id=?1 ORDER BY rowid LIMIT 1",
            [&id],
            |r| r.get(0),
        )
        .unwrap();
    let big: Value =
        serde_json::from_str(&result_text(&serde_json::from_str(&whole).unwrap())).unwrap();
    assert_eq!(big["truncated"], json!(true));
    assert_eq!(big["stdout"].as_str().unwrap().len(), 8 * 1024 * 1024);
    let slow: Value = serde_json::from_str(&result_text(&t[1])).unwrap();
    assert_eq!(slow["timedOut"], json!(true));
    assert_eq!(slow["exitCode"], Value::Null);
    let env: Value = serde_json::from_str(&result_text(&t[2])).unwrap();
    let out = env["stdout"].as_str().unwrap();
    assert!(out.contains("PATH="));
    assert!(out.contains("GIT_PAGER=cat"));
    assert!(!out.contains("OPENAI_API_KEY"));
    assert!(!out.contains("ALISIO_STATE_HOME"));
}

// 37
#[cfg(unix)]
#[test]
fn background_tasks_stream_every_byte_once_stop_and_die_with_the_run() {
    let ws = Ws::new();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"bg_run","arguments":{"command":"printf 'abc'; sleep 0.3; printf 'def'; sleep 30"}}]}"#,
            r#"{"toolCalls":[{"name":"bg_output","arguments":{"id":"bg-1","waitMs":2000}}]}"#,
            r#"{"toolCalls":[{"name":"bg_output","arguments":{"id":"bg-1","offset":3,"waitMs":3000}}]}"#,
            r#"{"toolCalls":[{"name":"bg_stop","arguments":{"id":"bg-1"}}]}"#,
            r#"{"toolCalls":[{"name":"bg_run","arguments":{"command":"sleep 30","label":"left"}}]}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "p", &["--allow", "process"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let t = tool_results(&ws, &sid(&ev));
    let started: Value = serde_json::from_str(&result_text(&t[0])).unwrap();
    assert_eq!(started["id"], "bg-1");
    assert_eq!(
        started["note"],
        "Poll with bg_output using next_offset; stop with bg_stop."
    );
    let a: Value = serde_json::from_str(&result_text(&t[1])).unwrap();
    assert_eq!(a["text"], "abc");
    assert_eq!(a["next_offset"], json!(3));
    let b: Value = serde_json::from_str(&result_text(&t[2])).unwrap();
    assert_eq!(b["text"], "def");
    let s: Value = serde_json::from_str(&result_text(&t[3])).unwrap();
    assert_eq!(s["status"], "stopped");
    let c = db(&ws);
    let rows: Vec<(String, String)> = c
        .prepare("SELECT id,status FROM tasks ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        rows,
        [
            ("bg-1".to_string(), "stopped".to_string()),
            ("bg-2".to_string(), "killed".to_string())
        ]
    );
}

#[cfg(unix)]
#[test]
fn tool_errors_have_the_documented_texts() {
    let ws = Ws::new();
    ws.dir("d");
    ws.file("f.txt", "abc");
    let t = one_call(
        &ws,
        json!([
            {"name":"read_file","arguments":{"path":"missing.txt"}},
            {"name":"read_file","arguments":{"path":"d"}},
            {"name":"list_files","arguments":{"path":"f.txt"}},
            {"name":"run_process","arguments":{"command":"no-such-command-xyz","args":[]}},
            {"name":"shell","arguments":{"command":"true","cwd":"nowhere"}},
            {"name":"edit_file","arguments":{"path":"f.txt","oldText":"a","newText":"a","expectedHash":sha(b"abc")}},
            {"name":"bg_output","arguments":{"id":"bg-9"}}
        ]),
        &["--allow", "write,process"],
    );
    let texts: Vec<String> = t.iter().map(result_text).collect();
    assert_eq!(
        texts,
        [
            "File not found: missing.txt",
            "Not a file: d",
            "Not a directory: f.txt",
            "Command not found: no-such-command-xyz",
            "Working directory not found: nowhere",
            "Edit changes nothing: oldText equals newText",
            "Unknown background task: bg-9",
        ]
    );
    // Tool errors carry no refusal mark (spec/sessions.md §1.4).
    assert!(t.iter().all(|m| m.get("denial").is_none()));
}

/// The structural refusal mark of spec/sessions.md §1.4 (issue 21) for a tool policy: a tool not
/// offered headless (`write_file` without `--allow write`) and an unknown tool are `unavailable`.
/// (`approval` needs an approver: the LSP tests cover it; `confinement` is asserted above.)
#[test]
fn refused_calls_are_stored_with_their_structural_mark() {
    let ws = Ws::new();
    let t = one_call(
        &ws,
        json!([
            {"name":"write_file","arguments":{"path":"n.txt","content":"x"}},
            {"name":"no_such_tool","arguments":{}}
        ]),
        &[],
    );
    for m in &t[..2] {
        assert_eq!(
            (&m["outcome"], &m["denial"]),
            (&json!("refused"), &json!("unavailable")),
            "{m}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_background_log_keeps_its_head_and_tail_past_the_limit() {
    let ws = Ws::new();
    ws.file("cfg.json", r#"{"tasks":{"maxOutputBytes":100}}"#);
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"bg_run","arguments":{"command":"head -c 150 /dev/zero | tr '\\0' a; head -c 50 /dev/zero | tr '\\0' b"}}]}"#,
            r#"{"toolCalls":[{"name":"bg_output","arguments":{"id":"bg-1","waitMs":3000,"limit":65536}}]}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "p", &["--allow", "process", "--config", "cfg.json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let t = tool_results(&ws, &sid(&ev));
    let out: Value = serde_json::from_str(&result_text(&t[1])).unwrap();
    let text = out["text"].as_str().unwrap();
    assert!(text.starts_with(&"a".repeat(100)), "{text}");
    assert!(text.contains("[output truncated: log limit of 100 bytes reached; the last 32768 bytes follow when the task ends]"), "{text}");
    assert_eq!(out["output_truncated"], json!(true));
}
