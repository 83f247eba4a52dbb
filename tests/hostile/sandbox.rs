//! The process sandbox under hostile commands (spec/sessions.md §10.4, docs/security.md "The process
//! sandbox"): real processes through `alisio-ls run --script` with the sandbox on. Every escape
//! is refused with the process's own error in the stored result, nothing appears on disk, and a
//! listener the test opens on 127.0.0.1 gets no connection; ordinary work (workspace and TMPDIR
//! writes, git, cargo, python, a test run) succeeds in the same runs. Skips with a printed
//! reason where the kernel has no Landlock.

use std::io::Read as _;
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Run, Ws, bin};
use crate::sess::{events, of_type, result_text, sid, tool_results};
use crate::util::run_limited;

/// The kernel's Landlock ABI through the helper, or why the tests skip.
fn available() -> Option<u64> {
    let out = std::process::Command::new(bin())
        .args(["sandbox-exec", "--probe"])
        .output()
        .ok()?;
    let v: Value = serde_json::from_slice(&out.stdout).ok()?;
    let abi = v["abi"].as_u64();
    if abi.is_none() {
        eprintln!(
            "skipped: the process sandbox is not available here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    abi
}

macro_rules! need_sandbox {
    () => {
        if available().is_none() {
            return;
        }
    };
}

fn has(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A workspace with a sibling `outside/` directory and a user config.
fn setup(config: &Value) -> (Ws, PathBuf) {
    let ws = Ws::new();
    let outside = ws.root.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(ws.config_home.join("config.json"), config.to_string()).unwrap();
    (ws, outside)
}

/// One turn of `shell` calls (then `ok`); the run, its events and the parsed stored results.
fn shells(
    ws: &Ws,
    cmds: &[String],
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Run, Vec<Value>, Vec<Value>) {
    let calls: Vec<Value> = cmds
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"id":format!("c{i}"),"name":"shell","arguments":{"command":c,"timeoutMs":120_000}}))
        .collect();
    ws.file(
        "s.jsonl",
        format!("{}\n{{\"text\":\"ok\"}}\n", json!({"toolCalls":calls})),
    );
    let mut a = vec!["run", "--json", "--script", "s.jsonl"];
    a.extend_from_slice(extra);
    a.push("p");
    let mut cmd = ws.cmd();
    cmd.args(&a);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let r = run_limited(&mut cmd);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let ev = events(&r);
    let t = tool_results(ws, &sid(&ev));
    assert_eq!(t.len(), cmds.len(), "{}", r.stdout);
    (r, ev, t)
}

/// A stored `shell` result as JSON (its text is the tool's output).
fn out(m: &Value) -> Value {
    assert_eq!(m["isError"], json!(false), "{}", result_text(m));
    serde_json::from_str(&result_text(m)).unwrap()
}

/// The result of a refused attempt: non-zero exit, the process's own error text, the label.
fn refused(m: &Value, error: &str, mode: &str) {
    let o = out(m);
    assert_ne!(o["exitCode"], json!(0), "{o}");
    assert!(
        o["stderr"].as_str().unwrap_or_default().contains(error),
        "wanted {error:?} in {o}"
    );
    assert_eq!(o["sandbox"], json!({"mode":mode,"network":false}), "{o}");
}

fn ok_with(m: &Value, stdout: &str) -> Value {
    let o = out(m);
    assert_eq!(o["exitCode"], json!(0), "{o}");
    assert_eq!(o["stdout"], json!(stdout), "{o}");
    o
}

/// Whether anything connected to `l` (non-blocking).
fn connected(l: &TcpListener) -> bool {
    l.set_nonblocking(true).unwrap();
    l.accept().is_ok()
}

fn got_datagram(u: &UdpSocket) -> bool {
    u.set_nonblocking(true).unwrap();
    let mut b = [0u8; 64];
    u.recv(&mut b).is_ok()
}

/// Waits (a hang guard, not a timing assertion) for `p` to exist.
fn wait_for(p: &Path) -> bool {
    let end = Instant::now() + Duration::from_secs(60);
    while Instant::now() < end {
        if p.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn py(code: &str) -> String {
    format!("python3 -c '{code}'")
}

const PY_TCP: &str = "import socket,sys; s=socket.socket(); s.settimeout(5); s.connect((\"127.0.0.1\",int(sys.argv[1]))); print(\"connected\")";
const PY_UDP: &str = "import socket,sys; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.sendto(b\"x\",(\"127.0.0.1\",int(sys.argv[1]))); print(\"sent\")";

#[test]
fn workspace_write_refuses_every_escape_and_allows_ordinary_work() {
    need_sandbox!();
    if !has("python3") || !has("git") {
        eprintln!("skipped: python3 and git are needed");
        return;
    }
    let (ws, outside) = setup(&json!({"process":{"passEnv":["RUSTUP_HOME","CARGO_HOME"]}}));
    let base = ws.root.parent().unwrap().to_path_buf();
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (tp, up) = (
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    let slash_tmp = PathBuf::from(format!(
        "/tmp/alisio-sandbox-test-{}-{}",
        std::process::id(),
        base.file_name().unwrap().to_string_lossy()
    ));
    std::os::unix::fs::symlink(&outside, ws.root.join("link")).unwrap();
    ws.file("inside.txt", "keep\n");
    ws.file(
        "test_sum.py",
        "import unittest\nclass T(unittest.TestCase):\n    def test_sum(self):\n        self.assertEqual(1 + 1, 2)\n",
    );
    let o = outside.to_str().unwrap();
    let cmds = vec![
        "echo x > \"$HOME/pwned\"".to_string(),
        format!("echo x > {}", slash_tmp.display()),
        format!("echo x > {}/pwned-tmp", base.display()),
        "echo x > ../outside/sibling.txt".to_string(),
        "echo x > link/via-link.txt".to_string(),
        "mv inside.txt ../outside/moved.txt".to_string(),
        format!("{} {tp}", py(PY_TCP)),
        format!("{} {up}", py(PY_UDP)),
        // Leaves the process group (and the call's kill), then tries to write outside.
        format!(
            "setsid sh -c 'sleep 1; echo x > {o}/escaped.txt; echo \"rc=$?\" > escaped.done' 2> escaped.err < /dev/null > /dev/null & echo started"
        ),
        // Allowed work.
        "echo in > new.txt && cat new.txt".to_string(),
        "echo t > \"$TMPDIR/t.txt\" && cat \"$TMPDIR/t.txt\" && echo \"$TMPDIR\"".to_string(),
        "git init -q repo && cd repo && echo a > a && git add a && git -c user.name=t -c user.email=t@example.com commit -qm m && git rev-list --count HEAD".to_string(),
        format!("{} && echo done", py("print(6*7)")),
        "python3 -m unittest -q test_sum 2>&1 | tail -n 1".to_string(),
    ];
    let real_home = std::env::var("HOME").unwrap_or_default();
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or_else(|_| format!("{real_home}/.rustup"));
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or_else(|_| format!("{real_home}/.cargo"));
    let (_, ev, t) = shells(
        &ws,
        &cmds,
        &["--allow", "process"],
        &[("RUSTUP_HOME", &rustup), ("CARGO_HOME", &cargo_home)],
    );
    assert_eq!(
        of_type(&ev, "run_started")[0]["data"]["sandbox"],
        json!({"mode":"workspace-write","network":false})
    );
    assert!(of_type(&ev, "sandbox_unavailable").is_empty());
    let w = "workspace-write";
    refused(&t[0], "Permission denied", w);
    refused(&t[1], "Permission denied", w);
    refused(&t[2], "Permission denied", w);
    refused(&t[3], "Permission denied", w);
    refused(&t[4], "Permission denied", w);
    refused(&t[5], "mv: ", w);
    refused(
        &t[6],
        "PermissionError: [Errno 1] Operation not permitted",
        w,
    );
    refused(
        &t[7],
        "PermissionError: [Errno 1] Operation not permitted",
        w,
    );
    ok_with(&t[8], "started\n");
    ok_with(&t[9], "in\n");
    let private = ws.tmp.path().join("state").join("tmp").join(sid(&ev));
    ok_with(&t[10], &format!("t\n{}\n", private.display()));
    ok_with(&t[11], "1\n");
    ok_with(&t[12], "42\ndone\n");
    let tests = out(&t[13]);
    assert_eq!(tests["stdout"], json!("OK\n"), "{tests}");
    // Nothing on disk outside, the file that was to be moved is still here.
    assert!(!ws.home.join("pwned").exists());
    assert!(!slash_tmp.exists());
    assert!(!base.join("pwned-tmp").exists());
    for f in ["sibling.txt", "via-link.txt", "moved.txt"] {
        assert!(!outside.join(f).exists(), "{f} was written");
    }
    assert_eq!(
        std::fs::read_to_string(ws.root.join("inside.txt")).unwrap(),
        "keep\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("new.txt")).unwrap(),
        "in\n"
    );
    // The escaped process ran on after the call and was still confined.
    assert!(
        wait_for(&ws.root.join("escaped.done")),
        "the escaped process never finished"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("escaped.done")).unwrap(),
        "rc=2\n"
    );
    let mut err = String::new();
    std::fs::File::open(ws.root.join("escaped.err"))
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("Permission denied"), "{err}");
    assert!(!outside.join("escaped.txt").exists());
    assert!(!connected(&tcp), "the TCP listener got a connection");
    assert!(!got_datagram(&udp), "the UDP socket got a datagram");
}

#[test]
fn tmpdir_is_private_to_the_session_and_cargo_runs() {
    need_sandbox!();
    let (ws, _) = setup(&json!({"process":{"passEnv":["RUSTUP_HOME","CARGO_HOME"]}}));
    let real_home = std::env::var("HOME").unwrap_or_default();
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or_else(|_| format!("{real_home}/.rustup"));
    let cargo_home = std::env::var("CARGO_HOME").unwrap_or_else(|_| format!("{real_home}/.cargo"));
    let cargo = has("cargo");
    let cmds = vec![
        "echo t > \"$TMPDIR/t.txt\" && cat \"$TMPDIR/t.txt\" && echo \"$TMPDIR\"".to_string(),
        if cargo {
            "cargo --version >/dev/null && echo cargo-ok".into()
        } else {
            "echo cargo-ok".into()
        },
    ];
    let (_, ev, t) = shells(
        &ws,
        &cmds,
        &["--allow", "process"],
        &[("RUSTUP_HOME", &rustup), ("CARGO_HOME", &cargo_home)],
    );
    let sid = sid(&ev);
    let private = ws.tmp.path().join("state").join("tmp").join(&sid);
    ok_with(&t[0], &format!("t\n{}\n", private.display()));
    if !cargo {
        eprintln!("cargo --version skipped: no cargo on PATH");
    }
    ok_with(&t[1], "cargo-ok\n");
    // A CLI run removes its private directory when it ends.
    assert!(!private.exists());
}

#[test]
fn read_only_refuses_workspace_writes_but_not_tmpdir() {
    need_sandbox!();
    let (ws, _) = setup(&json!({}));
    let cmds = vec![
        "echo x > f.txt".to_string(),
        "mkdir d".to_string(),
        "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"".to_string(),
    ];
    let (_, ev, t) = shells(
        &ws,
        &cmds,
        &["--allow", "process", "--sandbox", "read-only"],
        &[],
    );
    assert_eq!(
        of_type(&ev, "run_started")[0]["data"]["sandbox"],
        json!({"mode":"read-only","network":false})
    );
    refused(&t[0], "Permission denied", "read-only");
    refused(&t[1], "Permission denied", "read-only");
    ok_with(&t[2], "t\n");
    assert!(!ws.root.join("f.txt").exists() && !ws.root.join("d").exists());
}

#[test]
fn off_behaves_as_before_the_sandbox() {
    need_sandbox!();
    let (ws, outside) = setup(&json!({"process":{"sandbox":"off"}}));
    let cmds = vec!["echo x > ../outside/written.txt && echo ok".to_string()];
    let (_, ev, t) = shells(&ws, &cmds, &["--allow", "process"], &[]);
    assert_eq!(
        of_type(&ev, "run_started")[0]["data"]["sandbox"],
        json!({"mode":"off","network":true})
    );
    let o = ok_with(&t[0], "ok\n");
    assert_eq!(o["sandbox"], json!({"mode":"off","network":true}));
    assert!(outside.join("written.txt").exists());
}

#[test]
fn process_network_true_allows_the_tcp_connect() {
    need_sandbox!();
    if !has("python3") {
        eprintln!("skipped: python3 is needed");
        return;
    }
    let (ws, _) = setup(&json!({"process":{"network":true}}));
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    let cmds = vec![
        format!("{} {port}", py(PY_TCP)),
        "echo x > ../outside/n.txt".to_string(),
    ];
    let (_, _, t) = shells(&ws, &cmds, &["--allow", "process"], &[]);
    let o = ok_with(&t[0], "connected\n");
    assert_eq!(
        o["sandbox"],
        json!({"mode":"workspace-write","network":true})
    );
    assert!(connected(&tcp));
    // The network opens, the file system stays closed.
    let w = out(&t[1]);
    assert!(
        w["stderr"].as_str().unwrap().contains("Permission denied"),
        "{w}"
    );
}

#[test]
fn a_trusted_project_config_cannot_switch_the_sandbox_off() {
    need_sandbox!();
    let (ws, outside) = setup(&json!({}));
    ws.file(
        ".alisio/config.json",
        r#"{"process":{"sandbox":"off","network":true},"approvals":{"process":"allow"}}"#,
    );
    let cmds = vec!["echo x > ../outside/p.txt".to_string()];
    let (_, _, t) = shells(&ws, &cmds, &["--allow", "process", "--trust-project"], &[]);
    refused(&t[0], "Permission denied", "workspace-write");
    assert!(!outside.join("p.txt").exists());
}

#[test]
fn approvals_process_sandboxed_runs_sandboxed_calls_without_allow() {
    need_sandbox!();
    let (ws, outside) = setup(&json!({"approvals":{"process":"sandboxed"}}));
    let cmds = vec![
        "echo in > a.txt && cat a.txt".to_string(),
        "echo x > ../outside/s.txt".to_string(),
    ];
    let (_, ev, t) = shells(&ws, &cmds, &[], &[]);
    assert!(of_type(&ev, "approval_requested").is_empty());
    ok_with(&t[0], "in\n");
    refused(&t[1], "Permission denied", "workspace-write");
    assert!(!outside.join("s.txt").exists());
}

#[test]
fn the_fallback_says_so_once_and_then_denies_as_ask_does() {
    need_sandbox!();
    let (ws, outside) = setup(&json!({"approvals":{"process":"sandboxed"}}));
    let cmds = vec![
        "echo x > ../outside/f.txt".to_string(),
        "echo y > ../outside/g.txt".to_string(),
    ];
    let (r, ev, t) = shells(&ws, &cmds, &[], &[("ALISIO_SANDBOX_UNAVAILABLE", "1")]);
    let n = of_type(&ev, "sandbox_unavailable");
    assert_eq!(n.len(), 1);
    assert_eq!(
        n[0]["data"],
        json!({"requested":"workspace-write","mode":"off","reason":"simulated by ALISIO_SANDBOX_UNAVAILABLE=1"})
    );
    assert_eq!(
        of_type(&ev, "run_started")[0]["data"]["sandbox"],
        Value::Null,
        "headless: no process tools, so no sandbox"
    );
    assert_eq!(
        r.stderr
            .matches("the process sandbox (workspace-write) is not available: simulated by ALISIO_SANDBOX_UNAVAILABLE=1; process tools run unsandboxed and need approval")
            .count(),
        1,
        "{}",
        r.stderr
    );
    for m in &t {
        assert_eq!(
            result_text(m),
            "Tool \"shell\" is not available in this session"
        );
    }
    assert!(!outside.join("f.txt").exists() && !outside.join("g.txt").exists());
}

#[test]
fn the_fallback_under_allow_runs_unsandboxed_and_labels_it() {
    need_sandbox!();
    let (ws, _) = setup(&json!({}));
    let cmds = vec!["echo in > a.txt && echo ok".to_string()];
    let (_, ev, t) = shells(
        &ws,
        &cmds,
        &["--allow", "process"],
        &[("ALISIO_SANDBOX_UNAVAILABLE", "1")],
    );
    assert_eq!(of_type(&ev, "sandbox_unavailable").len(), 1);
    assert_eq!(
        of_type(&ev, "run_started")[0]["data"]["sandbox"],
        json!({"mode":"off","network":true})
    );
    let o = ok_with(&t[0], "ok\n");
    assert_eq!(o["sandbox"], json!({"mode":"off","network":true}));
}

/// governor.md's "Active grants" names the sandbox the run's processes get.
#[test]
fn active_grants_name_the_sandbox_mode() {
    need_sandbox!();
    let (ws, _) = setup(&json!({}));
    let (_, ev, _) = shells(&ws, &["echo a".to_string()], &["--allow", "process"], &[]);
    let id = sid(&ev);
    let script = [
        r#"{"alisioScript":1,"contextWindow":2000}"#,
        r#"{"for":"summary","text":"{\"checkpoint\":{\"goal\":\"run\"}}"}"#,
        r###"{"expect":{"contains":["## Active grants","- \\\"capability: sandbox: read-only, network\\\""]},"text":"ok"}"###,
    ];
    ws.file("s2.jsonl", script.join("\n") + "\n");
    std::fs::write(
        ws.config_home.join("config.json"),
        json!({"process":{"network":true}}).to_string(),
    )
    .unwrap();
    let r = run_limited(ws.cmd().args([
        "run",
        "--json",
        "--script",
        "s2.jsonl",
        "--session",
        &id,
        "--governor",
        "on",
        "--allow",
        "process",
        "--sandbox",
        "read-only",
        "again",
    ]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let ev = events(&r);
    assert!(
        !of_type(&ev, "compaction_completed").is_empty(),
        "{}",
        r.stdout
    );
}
