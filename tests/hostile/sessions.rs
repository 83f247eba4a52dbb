//! Agent sessions under hostile input (spec/sessions.md §3.2, §3.4, §2.4–2.5, spec/sessions.md §10): tool calls that
//! try to leave the workspace (`..`, absolute paths, symlinks, dangling symlinks), floods of
//! output, huge files and arguments, processes that ignore SIGTERM or leave grandchildren
//! behind, and malformed model turns. Each drives the real binary through `run --script`
//! (or `alisio/runSession`) and asserts the spec's exact messages.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Run, Ws};
use crate::harness::Lsp;
use crate::sess::{events, of_type, result_text, sid, tool_results};
use crate::util::run_limited;

/// Text of the file outside the workspace; must never reach a result, an event or the store.
const MARKER: &str = "OUTSIDE-SECRET-7f3a";

/// A workspace with a sibling directory `outside/` holding `secret.txt` (the marker).
fn with_outside() -> (Ws, PathBuf) {
    let ws = Ws::new();
    let outside = ws.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), format!("{MARKER}\n")).unwrap();
    (ws, outside)
}

/// Runs one turn with `calls`, then `ok`; returns the run, its events and the tool messages.
fn turn(ws: &Ws, calls: &Value, extra: &[&str]) -> (Run, Vec<Value>, Vec<Value>) {
    turn_with(ws, json!({ "toolCalls": calls }), extra)
}

/// Like [`turn`] with a whole script line (e.g. with `usage`).
fn turn_with(ws: &Ws, line: Value, extra: &[&str]) -> (Run, Vec<Value>, Vec<Value>) {
    let calls = line["toolCalls"].clone();
    ws.file("s.jsonl", format!("{line}\n{{\"text\":\"ok\"}}\n"));
    let mut a = vec!["run", "--json", "--script", "s.jsonl"];
    a.extend_from_slice(extra);
    a.push("p");
    let r = run_limited(ws.cmd().args(&a));
    let tail = |s: &str| {
        s.chars()
            .rev()
            .take(3000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<String>()
    };
    assert_eq!(r.code, 0, "{}\n{}", tail(&r.stdout), tail(&r.stderr));
    let ev = events(&r);
    let t = tool_results(ws, &sid(&ev));
    assert_eq!(t.len(), calls.as_array().unwrap().len());
    (r, ev, t)
}

/// The parsed JSON output of a successful tool message.
fn out(m: &Value) -> Value {
    assert_eq!(m["isError"], json!(false), "{}", result_text(m));
    serde_json::from_str(&result_text(m)).unwrap()
}

/// Every file below `dir` (the state directory: database, WAL, task logs).
fn files_below(dir: &Path, acc: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files_below(&p, acc)
        } else {
            acc.push(p)
        }
    }
}

/// The marker is in no output, event, stored message or task log.
fn never_leaked(ws: &Ws, r: &Run) {
    assert!(
        !r.stdout.contains(MARKER) && !r.stderr.contains(MARKER),
        "leaked into the output: {r:?}"
    );
    let mut fs = Vec::new();
    files_below(&ws.tmp.path().join("state"), &mut fs);
    assert!(!fs.is_empty());
    for f in fs {
        let b = std::fs::read(&f).unwrap_or_default();
        assert!(
            !b.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()),
            "leaked into {}",
            f.display()
        );
    }
}

fn texts(t: &[Value]) -> Vec<String> {
    t.iter().map(result_text).collect()
}

/// A process is gone (or a zombie nobody reaped yet).
fn dead(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
        s.rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
    })
}

/// Waits (a hang guard, not a timing assertion) until `pid` is dead.
fn wait_dead(pid: u32) -> bool {
    let end = Instant::now() + Duration::from_secs(20);
    while Instant::now() < end {
        if dead(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The pid written to `name` in the workspace (waits for it to appear).
fn pid_file(ws: &Ws, name: &str) -> u32 {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(p) = std::fs::read_to_string(ws.root.join(name))
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return p;
        }
        assert!(Instant::now() < end, "{name} was never written");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills a leftover of a failing test so it does not linger on the machine.
fn cleanup(pids: &[u32]) {
    for p in pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", &p.to_string()])
            .status();
    }
}

/// The process ids written in the workspace files `names` (each waited for, see [`pid_file`]).
fn pids_in(ws: &Ws, names: &[&str]) -> Vec<u32> {
    names.iter().map(|f| pid_file(ws, f)).collect()
}

fn assert_dead(pids: &[u32], what: &str) {
    let alive: Vec<u32> = pids.iter().copied().filter(|p| !wait_dead(*p)).collect();
    cleanup(&alive);
    assert!(alive.is_empty(), "{what}: still alive: {alive:?}");
}

fn skill(ws: &Ws) {
    ws.file(
        ".agents/skills/demo/SKILL.md",
        "---\nname: demo\ndescription: A demo skill. Use for demos.\n---\nbody\n",
    );
    ws.file(".agents/skills/demo/ref.md", "inside\n");
}

#[test]
fn dotdot_and_absolute_paths_are_refused_for_every_path_taking_tool() {
    let (ws, outside) = with_outside();
    skill(&ws);
    let secret = outside.join("secret.txt");
    let abs = secret.to_str().unwrap();
    let od = outside.to_str().unwrap();
    let parent = ws.root.parent().unwrap().to_str().unwrap().to_string();
    let calls = json!([
        {"name":"read_file","arguments":{"path":"../outside/secret.txt"}},
        {"name":"read_file","arguments":{"path":abs}},
        {"name":"read_file","arguments":{"path":"a/../../outside/./secret.txt"}},
        {"name":"write_file","arguments":{"path":"../outside/secret.txt","content":"pwned","expectedHash":null}},
        {"name":"write_file","arguments":{"path":format!("{od}/new.txt"),"content":"pwned","expectedHash":null}},
        {"name":"edit_file","arguments":{"path":"../outside/secret.txt","oldText":"O","newText":"X","expectedHash":"0"}},
        {"name":"edit_file","arguments":{"path":abs,"oldText":"O","newText":"X","expectedHash":"0"}},
        {"name":"list_files","arguments":{"path":".."}},
        {"name":"list_files","arguments":{"path":od}},
        {"name":"search_text","arguments":{"pattern":"S[E]CRET","path":"../outside"}},
        {"name":"search_text","arguments":{"pattern":"S[E]CRET","path":abs}},
        {"name":"run_process","arguments":{"command":"cat","args":["secret.txt"],"cwd":"../outside"}},
        {"name":"shell","arguments":{"command":"cat secret.txt > ../ws/stolen.txt","cwd":od}},
        {"name":"bg_run","arguments":{"command":"cat secret.txt","cwd":"../outside"}},
        {"name":"context_explain","arguments":{"path":"../outside/secret.txt"}},
        {"name":"context_explain","arguments":{"path":abs}},
        {"name":"skill_resource","arguments":{"name":"demo","path":"../../../../outside/secret.txt"}},
        {"name":"skill_resource","arguments":{"name":"demo","path":abs}},
        {"name":"skill_resource","arguments":{"name":"demo","path":"ref.md"}}
    ]);
    let (r, _, t) = turn(
        &ws,
        &calls,
        &["--allow", "write,process", "--trust-project"],
    );
    let outside_msg = |p: &str| format!("Path is outside the workspace: {p}");
    let want = [
        outside_msg(abs),
        outside_msg(abs),
        outside_msg(abs),
        outside_msg(abs),
        outside_msg(&format!("{od}/new.txt")),
        outside_msg(abs),
        outside_msg(abs),
        outside_msg(&parent),
        outside_msg(od),
        outside_msg(od),
        outside_msg(abs),
        outside_msg(od),
        outside_msg(od),
        outside_msg(od),
        outside_msg(abs),
        outside_msg(abs),
        "Path escapes the skill directory: ../../../../outside/secret.txt".to_string(),
        format!("Path must be relative to the skill directory: {abs}"),
    ];
    assert_eq!(texts(&t[..want.len()]), want);
    for m in &t[..16] {
        assert_eq!(m["outcome"], "refused", "{m}");
    }
    // The one call inside the skill works, so the refusals above are not a broken tool.
    assert_eq!(out(&t[18])["content"], "inside\n");
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        format!("{MARKER}\n")
    );
    assert!(!outside.join("new.txt").exists() && !ws.root.join("stolen.txt").exists());
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    never_leaked(&ws, &r);
}

#[cfg(unix)]
#[test]
fn symlinks_to_an_outside_file_or_directory_are_refused_by_every_tool() {
    let (ws, outside) = with_outside();
    std::os::unix::fs::symlink(outside.join("secret.txt"), ws.root.join("lf")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.root.join("ld")).unwrap();
    ws.file("inside.txt", "in\n");
    let calls = json!([
        {"name":"read_file","arguments":{"path":"lf"}},
        {"name":"read_file","arguments":{"path":"ld/secret.txt"}},
        {"name":"write_file","arguments":{"path":"lf","content":"pwned","expectedHash":null}},
        {"name":"write_file","arguments":{"path":"ld/secret.txt","content":"pwned","expectedHash":null}},
        {"name":"write_file","arguments":{"path":"ld/new/sub.txt","content":"pwned","expectedHash":null}},
        {"name":"edit_file","arguments":{"path":"lf","oldText":"O","newText":"X","expectedHash":"0"}},
        {"name":"edit_file","arguments":{"path":"ld/secret.txt","oldText":"O","newText":"X","expectedHash":"0"}},
        {"name":"list_files","arguments":{"path":"ld"}},
        {"name":"search_text","arguments":{"pattern":"S[E]CRET","path":"ld"}},
        {"name":"search_text","arguments":{"pattern":"S[E]CRET","path":"lf"}},
        {"name":"run_process","arguments":{"command":"cat","args":["secret.txt"],"cwd":"ld"}},
        {"name":"context_explain","arguments":{"path":"ld/secret.txt"}},
        {"name":"list_files","arguments":{}},
        {"name":"search_text","arguments":{"pattern":"S[E]CRET|^in$"}}
    ]);
    let (r, _, t) = turn(&ws, &calls, &["--allow", "write,process"]);
    let esc = |p: &str| format!("Path escapes the workspace through a symlink: {p}");
    let want = [
        esc("lf"),
        esc("ld/secret.txt"),
        esc("lf"),
        esc("ld/secret.txt"),
        esc("ld/new/sub.txt"),
        esc("lf"),
        esc("ld/secret.txt"),
        esc("ld"),
        esc("ld"),
        esc("lf"),
        esc("ld"),
        esc("ld/secret.txt"),
    ];
    assert_eq!(texts(&t[..12]), want);
    // The walkers neither follow the directory link nor list the file link.
    assert_eq!(out(&t[12])["files"], json!(["inside.txt", "s.jsonl"]));
    let s = out(&t[13]);
    assert_eq!(s["exitCode"], json!(0));
    let paths: Vec<String> = s["stdout"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "begin")
        .map(|l| l["data"]["path"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paths, ["inside.txt"]);
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        format!("{MARKER}\n")
    );
    assert!(!outside.join("new").exists());
    never_leaked(&ws, &r);
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_to_a_new_outside_file_is_never_written_through() {
    let (ws, outside) = with_outside();
    std::os::unix::fs::symlink(outside.join("new.txt"), ws.root.join("dl")).unwrap();
    std::os::unix::fs::symlink(outside.join("newdir"), ws.root.join("dd")).unwrap();
    std::os::unix::fs::symlink("../outside/rel.txt", ws.root.join("rl")).unwrap();
    let calls = json!([
        {"name":"write_file","arguments":{"path":"dl","content":"pwned","expectedHash":null}},
        {"name":"edit_file","arguments":{"path":"dl","oldText":"a","newText":"b","expectedHash":"0"}},
        {"name":"write_file","arguments":{"path":"dd/x.txt","content":"pwned","expectedHash":null}},
        {"name":"write_file","arguments":{"path":"rl","content":"pwned","expectedHash":null}},
        {"name":"read_file","arguments":{"path":"dl"}},
        {"name":"list_files","arguments":{"path":"dd"}},
        {"name":"run_process","arguments":{"command":"true","args":[],"cwd":"dd"}}
    ]);
    let (_, _, t) = turn(&ws, &calls, &["--allow", "write,process"]);
    let esc = |p: &str| format!("Path escapes the workspace through a symlink: {p}");
    assert_eq!(
        texts(&t),
        [
            esc("dl"),
            esc("dl"),
            esc("dd/x.txt"),
            esc("rl"),
            esc("dl"),
            esc("dd"),
            esc("dd")
        ]
    );
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        1,
        "something was created outside"
    );
}

#[test]
fn run_process_output_floods_from_grandchildren_are_capped_and_their_groups_killed() {
    let ws = Ws::new();
    let calls = json!([
        {"name":"shell","arguments":{"command":"sh -c 'echo $$ > g1; exec yes 0123456789012345678901234567890123456789' | head -c 50000000"}},
        {"name":"shell","arguments":{"command":"sh -c 'echo $$ > g2; exec yes 0123456789012345678901234567890123456789'; echo after"}},
        {"name":"shell","arguments":{"command":"sh -c 'echo $$ > g3; exec yes 0123456789012345678901234567890123456789 >&2' & echo $! > c3; wait"}},
        {"name":"run_process","arguments":{"command":"yes","args":["0123456789012345678901234567890123456789"]}}
    ]);
    let (_, ev, t) = turn(&ws, &calls, &["--allow", "process"]);
    // The stored results are whole up to the 8 MiB capture bound, which states the cut
    // (issue 13 §1); the model is shown at most 32,000 characters and told how to read the
    // rest (spec/sessions.md §2.8).
    let id = sid(&ev);
    let c = crate::sess::db(&ws);
    let mut st = c
        .prepare("SELECT result FROM calls WHERE session_id=?1 ORDER BY rowid")
        .unwrap();
    let stored: Vec<String> = st
        .query_map([&id], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored.len(), t.len());
    for (m, whole) in t.iter().zip(&stored) {
        let o: Value =
            serde_json::from_str(&result_text(&serde_json::from_str(whole).unwrap())).unwrap();
        assert_eq!(o["truncated"], json!(true), "{}", &whole[..200]);
        let n = o["stdout"].as_str().unwrap().len() + o["stderr"].as_str().unwrap().len();
        assert!(n > 32_000 && n <= 2 * 8 * 1024 * 1024, "{n} bytes kept");
        assert!(!o["stdout"].as_str().unwrap().contains("after"));
        let shown = result_text(m);
        assert!(
            shown.chars().count() <= 32_000 + 500,
            "{} shown",
            shown.len()
        );
        assert!(
            shown.contains("result_read"),
            "{}",
            &shown[shown.len() - 300..]
        );
    }
    let pids = pids_in(&ws, &["g1", "g2", "g3", "c3"]);
    assert_dead(&pids, "flooding grandchildren");
}

#[test]
fn search_text_over_a_file_with_one_huge_line_stays_within_its_output_bound() {
    let ws = Ws::new();
    let mut line = "needle ".repeat(800_000);
    line.push('\n');
    ws.file("huge.txt", line);
    let calls = json!([{"name":"search_text","arguments":{"pattern":"needle"}}]);
    let (_, _, t) = turn(&ws, &calls, &[]);
    let o = out(&t[0]);
    assert_eq!(o["truncated"], json!(true));
    let stdout = o["stdout"].as_str().unwrap();
    assert!(stdout.len() <= 32_000, "{} bytes", stdout.len());
    assert!(!stdout.contains("\"summary\""));
    assert!(result_text(&t[0]).len() <= 48_000);
}

#[cfg(target_os = "linux")]
#[test]
fn read_file_on_a_200_mb_sparse_file_reads_only_the_first_mebibyte_under_a_memory_limit() {
    let ws = Ws::new();
    let p = ws.file("big.txt", "line of text\n".repeat(200_000));
    crate::common::grow_sparse(&p, 200 * 1024 * 1024);
    ws.file("s.jsonl", format!("{}\n{{\"text\":\"ok\"}}\n", json!({"toolCalls":[{"name":"read_file","arguments":{"path":"big.txt","startLine":5,"limit":3}}]})));
    // 96 MiB of data segment: a whole-file read (200 MB) cannot fit.
    let sh = ws.cmd();
    let mut sh2 = std::process::Command::new("/bin/sh");
    sh2.env_clear()
        .env("ALISIO_BIN", crate::common::bin())
        .envs(
            sh.get_envs()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))),
        )
        .current_dir(&ws.root)
        .arg("-c")
        .arg(format!(
            "ulimit -d {} && exec \"$ALISIO_BIN\" run --json --script s.jsonl p",
            96 * 1024
        ));
    let r = run_limited(&mut sh2);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let t = tool_results(&ws, &sid(&events(&r)));
    assert_eq!(
        out(&t[0]),
        json!({"path":"big.txt","sha256":null,"startLine":5,"endLine":7,"content":"5: line of text\n6: line of text\n7: line of text","truncated":true})
    );
}

#[test]
fn oversized_write_and_edit_arguments_are_refused_before_anything_is_written() {
    let ws = Ws::new();
    let small = ws.file("small.txt", "abc\n");
    let sha = {
        use sha2::Digest;
        sha2::Sha256::digest(b"abc\n")
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    let big = "x".repeat(2 * 1024 * 1024);
    let calls = json!([
        {"name":"write_file","arguments":{"path":"big.txt","content":big,"expectedHash":null}},
        {"name":"edit_file","arguments":{"path":"small.txt","oldText":"abc","newText":big,"expectedHash":sha}}
    ]);
    // Reported usage, so the 2 MB of arguments do not spend the run's token budget (spec/sessions.md §2.9) first.
    ws.file(
        "s.jsonl",
        format!(
            "{}\n{{\"text\":\"ok\"}}\n",
            json!({"toolCalls":calls,"usage":{"input":10,"output":10}})
        ),
    );
    let r = run_limited(ws.cmd().args([
        "run", "--json", "--allow", "write", "--script", "s.jsonl", "p",
    ]));
    let ev = events(&r);
    // The 4 MB of history then exceeds maxContextChars with nothing to compact (spec/sessions.md §6.9).
    assert_eq!(r.code, 1);
    assert_eq!(ev.last().unwrap()["data"]["code"], "context_budget");
    let t = tool_results(&ws, &sid(&ev));
    assert_eq!(texts(&t), ["Write exceeds 1 MiB", "Write exceeds 1 MiB"]);
    assert!(!ws.root.join("big.txt").exists());
    assert_eq!(std::fs::read_to_string(small).unwrap(), "abc\n");
    let leftovers = ws.root_entries_ending(".tmp");
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_timeout_kills_the_whole_group_with_sigkill_when_sigterm_is_ignored() {
    let ws = Ws::new();
    let calls = json!([
        {"name":"shell","arguments":{"command":"trap '' TERM; sleep 60 & echo $! > g1; echo $$ > p1; wait","timeoutMs":1500}},
        {"name":"shell","arguments":{"command":"sleep 60 & echo $! > g2; echo $$ > p2; wait","timeoutMs":1500}}
    ]);
    let (_, _, t) = turn(&ws, &calls, &["--allow", "process"]);
    let (a, b) = (out(&t[0]), out(&t[1]));
    assert_eq!(
        (&a["timedOut"], &a["signal"], &a["exitCode"]),
        (&json!(true), &json!("SIGKILL"), &Value::Null),
        "{a}"
    );
    assert_eq!(
        (&b["timedOut"], &b["signal"], &b["exitCode"]),
        (&json!(true), &json!("SIGTERM"), &Value::Null),
        "{b}"
    );
    let pids = pids_in(&ws, &["g1", "p1", "g2", "p2"]);
    assert_dead(&pids, "timed-out groups");
}

#[test]
fn a_detached_grandchild_does_not_outlive_the_run() {
    let ws = Ws::new();
    let calls =
        json!([{"name":"shell","arguments":{"command":"sleep 60 >/dev/null 2>&1 & echo $! > g1"}}]);
    let (_, _, t) = turn(&ws, &calls, &["--allow", "process"]);
    assert_eq!(out(&t[0])["exitCode"], json!(0));
    let g = pid_file(&ws, "g1");
    assert_dead(&[g], "a grandchild that closed its pipes");
}

/// bg_run of a shell that starts a grandchild and writes both pids, then a bg_output that waits
/// until the pids are written, then `ok`.
fn bg_script(ws: &Ws) -> PathBuf {
    let l1 = json!({"toolCalls":[{"id":"b1","name":"bg_run","arguments":{"command":"sleep 60 & echo $! > g1; echo $$ > p1; echo ready; wait"}}]});
    let l2 = json!({"toolCalls":[{"id":"b2","name":"bg_output","arguments":{"id":"bg-1","waitMs":30000}}]});
    ws.file("s.jsonl", format!("{l1}\n{l2}\n{{\"text\":\"ok\"}}\n"))
}

#[test]
fn background_tasks_and_their_grandchildren_die_when_the_cli_run_ends() {
    let ws = Ws::new();
    bg_script(&ws);
    let r = run_limited(ws.cmd().args([
        "run", "--json", "--allow", "process", "--script", "s.jsonl", "p",
    ]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let s = sid(&events(&r));
    let t = tool_results(&ws, &s);
    assert!(
        result_text(&t[1]).contains("ready"),
        "{}",
        result_text(&t[1])
    );
    let pids = pids_in(&ws, &["g1", "p1"]);
    assert_dead(&pids, "a background task after the CLI run");
    let st: String = crate::sess::db(&ws)
        .query_row(
            "SELECT status FROM tasks WHERE session_id=?1 AND id='bg-1'",
            [&s],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(st, "killed");
}

/// Runs `script` (which starts a background task writing `g1` and `p1`) in the server; the
/// task's process ids, which outlive the run (spec/sessions.md §3.4).
fn run_bg_task(l: &mut Lsp, ws: &Ws, script: &Path) -> Vec<u32> {
    let r = l
        .request(
            "alisio/runSession",
            json!({"prompt":"p","provider":{"kind":"script","script":script}}),
        )
        .unwrap();
    assert_eq!(r["status"], "completed", "{r}");
    let pids = pids_in(ws, &["g1", "p1"]);
    assert!(pids.iter().all(|p| !dead(*p)), "the task died with the run");
    pids
}

fn lsp(ws: &Ws) -> Lsp {
    let l = crate::harness::start(ws, json!({}), json!({"trusted": true}));
    *l.approve_decision.lock().unwrap() = "allow-session".into();
    l
}

/// Ends the server by closing its input, or by `shutdown` and `exit` (which must answer 0).
fn end_server(mut l: Lsp, close_stdin: bool) {
    if close_stdin {
        l.close_stdin();
        l.wait_exit();
    } else {
        assert_eq!(l.shutdown_and_exit(), 0);
    }
}

#[test]
fn background_tasks_outlive_the_run_in_the_server_and_die_at_its_exit() {
    for close_stdin in [false, true] {
        let ws = Ws::new();
        let script = bg_script(&ws);
        let mut l = lsp(&ws);
        let pids = run_bg_task(&mut l, &ws, &script);
        end_server(l, close_stdin);
        let after = if close_stdin {
            "a task after the server's input closed"
        } else {
            "a task after shutdown and exit"
        };
        assert_dead(&pids, after);
    }
}

#[test]
fn a_process_tool_running_when_the_server_exits_is_killed_with_its_group() {
    for close_stdin in [true, false] {
        let ws = Ws::new();
        let l1 = json!({"toolCalls":[{"id":"s1","name":"shell","arguments":{"command":"sleep 60 & echo $! > g1; echo $$ > p1; wait","timeoutMs":600000}}]});
        let script = ws.file("s.jsonl", format!("{l1}\n{{\"text\":\"ok\"}}\n"));
        let mut l = lsp(&ws);
        let _id = l.send_request(
            "alisio/runSession",
            json!({"prompt":"p","provider":{"kind":"script","script":script}}),
        );
        let pids = pids_in(&ws, &["g1", "p1"]);
        // wait_exit fails the test when the server outlives its input by 20 s (the call would
        // otherwise run for its 600 s timeout).
        end_server(l, close_stdin);
        let after = if close_stdin {
            "a shell call in flight when the input closed"
        } else {
            "a shell call in flight at shutdown"
        };
        assert_dead(&pids, after);
    }
}

#[test]
fn a_run_requested_right_before_the_input_closes_is_cancelled_and_the_server_exits() {
    // The client writes its request and closes its input at once, so the run may register
    // after the server saw the end of its input; it must still be cancelled, or the server
    // would wait for its ten-minute model reply.
    for round in 0..3 {
        let ws = Ws::new();
        let script = ws.file("s.jsonl", "{\"delayMs\":600000,\"text\":\"late\"}\n");
        let mut l = lsp(&ws);
        let _id = l.send_request(
            "alisio/runSession",
            json!({"prompt":"p","provider":{"kind":"script","script":script},"workDoneToken":"t"}),
        );
        l.close_stdin();
        // A hang guard (20 s), not a timing assertion.
        l.wait_exit();
        let st: Vec<String> = {
            let c = crate::sess::db(&ws);
            let mut q = c.prepare("SELECT status FROM runs").unwrap();
            q.query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(st, vec!["cancelled".to_string()], "round {round}");
    }
}

#[test]
fn background_tasks_die_when_the_servers_parent_process_dies() {
    let ws = Ws::new();
    let script = bg_script(&ws);
    let mut parent = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("spawn sleep");
    let mut l = crate::harness::serve(&ws, &[]);
    l.request("initialize", json!({"processId": parent.id(), "rootUri": crate::harness::uri(&ws.root), "capabilities": {}, "initializationOptions": {"trusted": true}}))
        .expect("initialize");
    l.notify("initialized", json!({}));
    *l.approve_decision.lock().unwrap() = "allow-session".into();
    let pids = run_bg_task(&mut l, &ws, &script);
    parent.kill().expect("kill parent");
    parent.wait().expect("reap parent");
    assert_eq!(l.wait_exit(), 1);
    assert_dead(&pids, "a task after the server's parent died");
}

#[test]
fn malformed_tool_arguments_and_unknown_tools_become_error_results() {
    let ws = Ws::new();
    let junk = "{\"path\":".to_string() + &"[".repeat(100_000);
    let calls = json!([
        {"name":"read_file","arguments":"not json"},
        {"name":"read_file","arguments":"[1,2]"},
        {"name":"read_file","arguments":junk},
        {"name":"read_file","arguments":{"path":"a\u{0}b"}},
        {"name":"rm_rf","arguments":{}},
        {"name":"../read_file","arguments":{"path":"x"}},
        {"name":"read_file","arguments":{"path":"x","startLine":-1}},
        {"name":"read_file","arguments":{"path":"x","limit":1e300}}
    ]);
    let (r, ev, t) = turn(&ws, &calls, &[]);
    assert_eq!(
        texts(&t),
        [
            "Invalid arguments: arguments are not valid JSON",
            "Invalid arguments: arguments must be a JSON object",
            "Invalid arguments: arguments are not valid JSON",
            "File not found: a\u{0}b",
            "Unknown tool: rm_rf",
            "Unknown tool: ../read_file",
            "Invalid arguments: startLine must be at least 1",
            "Invalid arguments: limit must be an integer",
        ]
    );
    assert!(!r.stderr.contains("panicked"));
    assert_eq!(ev.last().unwrap()["type"], "run_completed");
}

#[test]
fn a_reply_with_ten_thousand_tool_calls_is_rejected_without_storing_or_running_any() {
    let ws = Ws::new();
    let calls: Vec<Value> = (0..10_000).map(|i| json!({"id":format!("c{i}"),"name":"shell","arguments":{"command":format!("echo {i} >> ran")}})).collect();
    let line = json!({ "toolCalls": calls }).to_string();
    ws.file("s.jsonl", format!("{line}\n{line}\n"));
    let r = run_limited(ws.cmd().args([
        "run", "--json", "--allow", "process", "--script", "s.jsonl", "p",
    ]));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let ev = events(&r);
    let retry: Vec<&Value> = ev.iter().filter(|e| e["type"] == "request_retry").collect();
    assert_eq!(retry.len(), 1);
    assert_eq!(retry[0]["data"]["reason"], "invalid_turn");
    let f = ev.last().unwrap();
    assert_eq!(f["type"], "run_failed");
    assert_eq!(f["data"]["code"], "invalid_turn");
    assert_eq!(
        f["data"]["error"],
        "Provider turn rejected: more than 64 tool calls (10000)"
    );
    assert!(!ws.root.join("ran").exists());
    let n: i64 = crate::sess::db(&ws)
        .query_row("SELECT count(*) FROM calls", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
}

#[test]
fn process_tools_get_only_the_environment_allowlist_and_never_a_projects_pass_env() {
    let ws = Ws::new();
    std::fs::write(
        ws.config_home.join("config.json"),
        r#"{"process":{"passEnv":["MY_TOOL_HOME"]}}"#,
    )
    .unwrap();
    // `limits.maxTurns` 1 proves the trusted project file is read (the run stops after the
    // first turn's calls with `max_turns`); its `passEnv` must still be ignored.
    ws.file(
        ".alisio/config.json",
        r#"{"process":{"passEnv":["AWS_SECRET_ACCESS_KEY"]},"limits":{"maxTurns":1}}"#,
    );
    ws.file(
        "s.jsonl",
        format!(
            "{}\n{{\"text\":\"ok\"}}\n",
            json!({"toolCalls":[{"name":"run_process","arguments":{"command":"env","args":[]}}]})
        ),
    );
    let r = run_limited(
        ws.cmd()
            .env("MY_TOOL_HOME", "/opt/tool")
            .env("AWS_SECRET_ACCESS_KEY", "sekrit-value")
            .env("BASH_ENV", "/tmp/evil.sh")
            .env("GIT_DIR", "/tmp/elsewhere")
            .env("LANG", "C.UTF-8")
            .args([
                "run",
                "--json",
                "--allow",
                "process",
                "--trust-project",
                "--script",
                "s.jsonl",
                "p",
            ]),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let ev = events(&r);
    assert_eq!(of_type(&ev, "run_failed")[0]["data"]["code"], "max_turns");
    let t = tool_results(&ws, &sid(&ev));
    let o = out(&t[0]);
    let mut vars: Vec<(String, String)> = o["stdout"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    vars.sort();
    let names: Vec<&str> = vars.iter().map(|(k, _)| k.as_str()).collect();
    let mut want = vec![
        "GIT_PAGER",
        "GIT_TERMINAL_PROMPT",
        "HOME",
        "LANG",
        "MY_TOOL_HOME",
        "PAGER",
        "PATH",
    ];
    // Inside the process sandbox (spec/sessions.md §10.4) the private temporary directory is added.
    let sandboxed = o["sandbox"]["mode"] != "off";
    if sandboxed {
        want.extend(["TEMP", "TMP", "TMPDIR"]);
        want.sort_unstable();
    }
    assert_eq!(names, want);
    let get = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    if sandboxed {
        let private = ws.tmp.path().join("state/tmp").join(sid(&ev));
        for k in ["TEMP", "TMP", "TMPDIR"] {
            assert_eq!(get(k), private.to_str(), "{k}");
        }
    }
    assert_eq!(
        (
            get("GIT_TERMINAL_PROMPT"),
            get("GIT_PAGER"),
            get("PAGER"),
            get("MY_TOOL_HOME")
        ),
        (Some("0"), Some("cat"), Some("cat"), Some("/opt/tool"))
    );
    assert!(!r.stdout.contains("sekrit-value"));
}

/// spec/sessions.md §1.8: even a trusted project configuration cannot widen what a session may do:
/// its `externalDirectories` admit nothing outside, its `provider` is never used (a repository
/// could otherwise send the conversation to its own endpoint). `limits.maxTurns` from the same
/// file is read, so the file itself is in effect.
#[test]
fn a_trusted_projects_external_directories_and_provider_are_ignored() {
    let (ws, outside) = with_outside();
    let secret = outside.join("secret.txt");
    ws.file(
        ".alisio/config.json",
        json!({"externalDirectories": [outside], "provider": {"kind": "openai", "baseUrl": "http://127.0.0.1:9", "model": "m"}, "limits": {"maxTurns": 1}}).to_string(),
    );
    ws.file(
        "s.jsonl",
        format!(
            "{}\n{{\"text\":\"ok\"}}\n",
            json!({"toolCalls": [{"name": "read_file", "arguments": {"path": secret}}]})
        ),
    );
    let r = run_limited(ws.cmd().args([
        "run",
        "--json",
        "--trust-project",
        "--script",
        "s.jsonl",
        "p",
    ]));
    let ev = events(&r);
    assert_eq!(
        of_type(&ev, "run_failed")[0]["data"]["code"],
        "max_turns",
        "{}",
        r.stderr
    );
    let t = tool_results(&ws, &sid(&ev));
    assert_eq!(
        result_text(&t[0]),
        format!("Path is outside the workspace: {}", secret.display())
    );
    never_leaked(&ws, &r);

    let r = run_limited(ws.cmd().args(["run", "--json", "--trust-project", "p"]));
    // A failure before the run row exists: one stderr line, exit 1, no events (spec/sessions.md §2.10).
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert_eq!(r.stderr.trim(), "error: Provider model is not configured");
}
