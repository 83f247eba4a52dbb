//! Crash safety (spec/sessions.md §1.5, §1.7; spec/sessions.md §11 cases 7–10, 19): aborts at every fault point,
//! SIGKILL mid-tool, SIGINT; afterwards the store loads, nothing committed is lost, the
//! transcript is paired and the session resumes.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

fn resume(ws: &Ws, id: &str) -> Vec<Value> {
    script(ws, &[r#"{"text":"resumed"}"#]);
    let (r, ev) = run(ws, "go on", &["--session", id, "--allow", "write"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    ev
}

fn integrity(ws: &Ws) -> String {
    db(ws)
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

fn first_session(ws: &Ws) -> String {
    db(ws)
        .query_row("SELECT id FROM sessions", [], |r| r.get(0))
        .unwrap()
}

// 7
#[test]
fn every_fault_point_leaves_a_store_that_resumes_paired() {
    for point in [
        "after_user_commit",
        "before_assistant_commit",
        "after_assistant_commit",
        "after_call_started",
        "after_call_done",
        "after_result_commit",
        "after_temp_write",
    ] {
        let ws = Ws::new();
        ws.file("a.txt", "alpha");
        script(
            &ws,
            &[
                r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}"#,
                r#"{"toolCalls":[{"name":"write_file","arguments":{"path":"b.txt","content":"B","expectedHash":null}}]}"#,
                r#"{"text":"done"}"#,
            ],
        );
        let r = crate::common::run_cmd(ws.cmd().env("ALISIO_FAULT", point).args([
            "run", "--json", "--allow", "write", "--script", "s.jsonl", "p",
        ]));
        assert_ne!(r.code, 0, "{point}: the process must abort");
        let id = first_session(&ws);
        let before = active(&ws, &id);
        match point {
            "after_user_commit" => assert_eq!(before.len(), 1, "{point}"),
            "before_assistant_commit" => {
                assert!(before.iter().all(|m| m.2 != "assistant"), "{point}")
            }
            "after_assistant_commit" => {
                assert_eq!(before.last().unwrap().2, "assistant", "{point}")
            }
            "after_result_commit" => assert_eq!(before.last().unwrap().2, "tool", "{point}"),
            _ => {}
        }
        let ev = resume(&ws, &id);
        assert_eq!(integrity(&ws), "ok", "{point}");
        assert_paired(&ws, &id);
        // Nothing committed was lost: the rows from before the crash are a prefix.
        let after = active(&ws, &id);
        assert_eq!(&after[..before.len()], &before[..], "{point}");
        let show = ws.run(&["sessions", "show", &id, "--json"]);
        assert_eq!(show.code, 0, "{point}");
        assert_eq!(ev.last().unwrap()["type"], "run_completed");
        if point == "after_temp_write" {
            assert!(!ws.root.join("b.txt").exists());
            let tmps: Vec<_> = std::fs::read_dir(&ws.root)
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".alisio-"))
                .collect();
            assert!(tmps.is_empty(), "temporary files are removed on resume");
        }
    }
}

// 9
#[test]
fn a_finished_call_of_a_crashed_batch_keeps_its_journaled_result() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"slow","name":"test_sleep","arguments":{"ms":3000}},{"id":"fast","name":"read_file","arguments":{"path":"a.txt"}}]}"#,
            r#"{"text":"x"}"#,
        ],
    );
    let r = crate::common::run_cmd(
        ws.cmd()
            .env("ALISIO_FAULT", "after_call_done")
            .env("ALISIO_TEST_TOOLS", "1")
            .args(["run", "--json", "--script", "s.jsonl", "p"]),
    );
    assert_ne!(r.code, 0);
    let id = first_session(&ws);
    resume(&ws, &id);
    let t = tool_results(&ws, &id);
    let by: std::collections::HashMap<String, Value> = t
        .into_iter()
        .map(|m| (m["callId"].as_str().unwrap().to_string(), m))
        .collect();
    assert_eq!(by["fast"]["outcome"], "ok");
    assert!(result_text(&by["fast"]).contains("1: alpha"));
    assert_eq!(by["slow"]["outcome"], "interrupted");
    assert_paired(&ws, &id);
}

fn spawn_until(
    ws: &Ws,
    args: &[&str],
    env: &[(&str, &str)],
    until: impl Fn(&Value) -> bool,
) -> (std::process::Child, Vec<Value>) {
    let mut cmd = ws.cmd();
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let out = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut lines = BufReader::new(out).lines();
    for l in lines.by_ref() {
        let v: Value = serde_json::from_str(&l.unwrap()).unwrap();
        let stop = until(&v);
        seen.push(v);
        if stop {
            break;
        }
    }
    // Keep draining so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, seen)
}

// 8
#[cfg(unix)]
#[test]
fn sigkill_during_a_process_call_is_reconciled_as_interrupted_while_running() {
    let ws = Ws::new();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"p1","name":"run_process","arguments":{"command":"sleep","args":["5"]}}]}"#,
            r#"{"text":"x"}"#,
        ],
    );
    let (mut child, _) = spawn_until(
        &ws,
        &[
            "run", "--json", "--allow", "process", "--script", "s.jsonl", "p",
        ],
        &[],
        |v| v["type"] == "tool_started",
    );
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let id = first_session(&ws);
    let ev = resume(&ws, &id);
    assert_eq!(types(&ev)[..2], ["run_started", "session_reconciled"]);
    assert_eq!(
        ev[1]["data"]["calls"],
        json!([{"id":"p1","name":"run_process","outcome":"interrupted"}])
    );
    assert_eq!(ev[1]["data"]["interruptedRuns"], json!(1));
    let t = tool_results(&ws, &id);
    assert_eq!(
        result_text(&t[0]),
        "Interrupted: the session stopped while this call was running; its effects are unknown. Inspect the workspace before retrying."
    );
    let statuses: Vec<String> = db(&ws)
        .prepare("SELECT status FROM runs ORDER BY started_at")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(statuses, ["interrupted", "completed"]);
    assert_paired(&ws, &id);
}

/// Runs a script whose one call is the shell `command` (which writes `pid` and `gpid`), waits
/// until the call started and `gpid` is written, then sends SIGINT to the CLI.
#[cfg(unix)]
fn interrupt_shell(ws: &Ws, command: &str) -> (std::process::Child, Vec<Value>, nix::unistd::Pid) {
    let call = json!({"toolCalls":[{"id":"sh","name":"shell","arguments":{"command":command}}]});
    script(ws, &[&call.to_string(), r#"{"text":"x"}"#]);
    let (child, seen) = spawn_until(
        ws,
        &[
            "run", "--json", "--allow", "process", "--script", "s.jsonl", "p",
        ],
        &[],
        |v| v["type"] == "tool_started",
    );
    let t0 = Instant::now();
    let written =
        |f: &str| std::fs::read_to_string(ws.root.join(f)).is_ok_and(|s| !s.trim().is_empty());
    while !written("gpid") && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    (child, seen, pid)
}

/// The process id written in the workspace file `f`.
#[cfg(unix)]
fn pid_in(ws: &Ws, f: &str) -> i32 {
    std::fs::read_to_string(ws.root.join(f))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

// 19
#[cfg(unix)]
#[test]
fn sigint_kills_the_process_group_answers_cancelled_and_exits_130() {
    let ws = Ws::new();
    let (mut child, mut seen, _) =
        interrupt_shell(&ws, "echo $$ > pid; sleep 600 & echo $! > gpid; wait");
    let started = Instant::now();
    let status = child.wait().unwrap();
    // Not a measurement: it tells "ended the tool" (seconds) from "waited for it" (600 s).
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(status.code(), Some(130));
    let alive = |f: &str| {
        let p = pid_in(&ws, f);
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), None).is_ok()
    };
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !alive("pid") && !alive("gpid"),
        "the shell and its grandchild are gone"
    );
    let id = first_session(&ws);
    let evs = ws
        .run(&["sessions", "show", &id, "--events", "--json"])
        .json()["events"]
        .as_array()
        .unwrap()
        .clone();
    let last = evs.last().unwrap();
    assert_eq!(last["type"], "run_cancelled");
    assert_eq!(last["data"], json!({"reason":"signal","error":"Cancelled"}));
    let t = tool_results(&ws, &id);
    assert_eq!(t[0]["outcome"], "cancelled");
    assert_paired(&ws, &id);
    seen.clear();
    resume(&ws, &id);
}

// 10 is covered by `every_fault_point_leaves_a_store_that_resumes_paired` (after_temp_write).

// 7 (compaction and reduction points)
#[test]
fn faults_around_compaction_and_reduction_commits_leave_a_resumable_store() {
    for point in ["before_compaction_commit", "after_compaction_commit"] {
        let ws = Ws::new();
        script(
            &ws,
            &[
                r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
                r#"{"text":"listed","usage":{"input":1690,"output":20}}"#,
            ],
        );
        let (_, ev) = run(&ws, "first", &[]);
        let id = sid(&ev);
        script(
            &ws,
            &[
                r#"{"alisioScript":1,"contextWindow":2000}"#,
                r#"{"for":"summary","text":"summary"}"#,
                r#"{"text":"x"}"#,
            ],
        );
        let r = crate::common::run_cmd(ws.cmd().env("ALISIO_FAULT", point).args([
            "run",
            "--json",
            "--script",
            "s.jsonl",
            "--session",
            &id,
            "second",
        ]));
        assert_ne!(r.code, 0, "{point}");
        let checkpoints: i64 = db(&ws)
            .query_row(
                "SELECT count(*) FROM messages WHERE kind='checkpoint'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            checkpoints,
            i64::from(point == "after_compaction_commit"),
            "{point}"
        );
        let compacted: i64 = db(&ws)
            .query_row("SELECT count(*) FROM messages WHERE compacted=1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(
            compacted,
            if point == "after_compaction_commit" {
                4
            } else {
                0
            },
            "{point}"
        );
        resume(&ws, &id);
        assert_eq!(integrity(&ws), "ok");
        assert_paired(&ws, &id);
    }
    let ws = Ws::new();
    ws.file(
        "cfg.json",
        r#"{"limits":{"maxContextChars":10000},"compaction":{"auto":false}}"#,
    );
    ws.file("big.txt", "y".repeat(20_000));
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"big.txt"}}]}"#,
            r#"{"text":"x"}"#,
        ],
    );
    let r = crate::common::run_cmd(
        ws.cmd()
            .env("ALISIO_FAULT", "before_reduction_commit")
            .args([
                "run", "--json", "--config", "cfg.json", "--script", "s.jsonl", "p",
            ]),
    );
    assert_ne!(r.code, 0);
    let id = first_session(&ws);
    let reduced: i64 = db(&ws)
        .query_row(
            "SELECT count(*) FROM messages WHERE kind='reduced'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(reduced, 0);
    script(&ws, &[r#"{"text":"resumed"}"#]);
    let (r, _) = run(&ws, "go on", &["--session", &id, "--config", "cfg.json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_paired(&ws, &id);
}

// spec/sessions.md §2.10 step 6: a second SIGINT within 2 s kills the process groups and exits 130.
#[cfg(unix)]
#[test]
fn a_second_sigint_kills_the_process_groups_and_exits_130_at_once() {
    let ws = Ws::new();
    // The shell ignores SIGTERM, so only a SIGKILL of its group ends it quickly.
    let (mut child, _, pid) = interrupt_shell(
        &ws,
        "trap '' TERM; echo $$ > pid; sleep 30 & echo $! > gpid; wait",
    );
    std::thread::sleep(Duration::from_millis(100));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    // Alive and not a zombie (an orphaned zombie waits for a reaper that may not exist here).
    let alive = |f: &str| {
        let p = pid_in(&ws, f);
        std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|st| {
            st.rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'))
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !alive("pid") && !alive("gpid"),
        "the shell and its grandchild are gone"
    );
    // Committed state is intact: the session loads and resumes paired.
    let id = first_session(&ws);
    resume(&ws, &id);
    assert_paired(&ws, &id);
}
