//! `alisio-ls skills test --live` (spec/skills.md §10.3) against the fake OpenAI and Anthropic
//! servers on 127.0.0.1: repeats and their tallies, the caps enforced mid-run, and the
//! same-name installed copy moved aside for the run and put back, also when the run is
//! interrupted (SIGTERM) or killed (the next run puts it back).

use std::process::Stdio;

use serde_json::{Value, json};

use crate::common::{Ws, run_cmd, write};
use crate::fake::{Fake, Reply};

const NEW: &str = "Extract text and tables from PDF files.";
const OLD: &str = "---\nname: pdf-tools\ndescription: The installed, older copy.\n---\nOld body\n";

/// A candidate `dev/pdf-tools` with its eval file, an installed older copy of the same name and
/// a sibling in `~/.claude/skills`, and the provider configuration.
fn setup(ws: &Ws, provider: Value) {
    ws.file(
        "dev/pdf-tools/SKILL.md",
        format!("---\nname: pdf-tools\ndescription: {NEW}\n---\nNew body\n"),
    );
    ws.file(
        "dev/pdf-tools/evals/triggers.json",
        r#"{"trigger": ["extract tables from this pdf", "read the pdf"],
            "noTrigger": [{"prompt": "draw a plot", "winner": "chart-maker"}]}"#,
    );
    write(&ws.home.join(".claude/skills/pdf-tools/SKILL.md"), OLD);
    write(
        &ws.home.join(".claude/skills/chart-maker/SKILL.md"),
        "---\nname: chart-maker\ndescription: Draw charts and plots.\n---\nB\n",
    );
    ws.file("cfg.json", json!({ "provider": provider }).to_string());
}

fn openai_call(name: &str, args: &Value, prompt_tokens: u64) -> Reply {
    let call = json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":name,"arguments":args.to_string()}}]}}]});
    Reply::sse(
        &format!(
            "data: {call}\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
            json!({"choices":[],"usage":{"prompt_tokens":prompt_tokens,"completion_tokens":10}})
        ),
        9,
    )
}

fn openai_text() -> Reply {
    Reply::sse(
        &format!(
            "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
            json!({"choices":[{"index":0,"delta":{"role":"assistant","content":"No skill."}}]}),
            json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":3}})
        ),
        7,
    )
}

fn anthropic_call(skill: &str) -> Reply {
    let ev = |e: &str, d: Value| format!("event: {e}\ndata: {d}\n\n");
    let body = [
        ev("message_start", json!({"type":"message_start","message":{"model":"claude-x","usage":{"input_tokens":40,"output_tokens":1}}})),
        ev("content_block_start", json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"Skill","input":{}}})),
        ev("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":json!({"skill": skill}).to_string()}})),
        ev("content_block_stop", json!({"type":"content_block_stop","index":0})),
        ev("message_delta", json!({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}})),
        ev("message_stop", json!({"type":"message_stop"})),
    ]
    .concat();
    Reply::sse(&body, 13)
}

fn live(ws: &Ws, extra: &[&str]) -> crate::common::Run {
    let mut args = vec![
        "skills",
        "test",
        "--live",
        "--host",
        "claude-code",
        "--json",
        "--config",
        "cfg.json",
    ];
    args.extend_from_slice(extra);
    args.push("dev/pdf-tools");
    let mut c = ws.cmd();
    c.env("MY_KEY", "k-1");
    run_cmd(c.args(args))
}

fn assert_restored(ws: &Ws) {
    let dir = ws.home.join(".claude/skills");
    assert_eq!(
        std::fs::read_to_string(dir.join("pdf-tools/SKILL.md")).unwrap(),
        OLD
    );
    assert!(!ws.home.join(".claude/.alisio-moved").exists());
    assert!(!ws.tmp.path().join("state/skills-live-moved.json").exists());
}

#[test]
fn openai_repeats_are_tallied_with_wilson_intervals() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        openai_call("Skill", &json!({"skill": "pdf-tools"}), 100),
        openai_call("Skill", &json!({"skill": "pdf-tools"}), 100),
        openai_call("Skill", &json!({"skill": "pdf-tools"}), 100),
        openai_text(),
        openai_call("Skill", &json!({"skill": "chart-maker"}), 100),
        // Another tool's call is not a skill load.
        openai_call("Read", &json!({"file_path": "x"}), 100),
    ]);
    setup(
        &ws,
        json!({"kind": "openai", "baseUrl": fake.url, "model": "m1"}),
    );
    let r = live(&ws, &["--repeats", "2"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.starts_with(
            "skills test --live: 3 prompts × 2 repeats = 6 requests to the provider as claude-code; cap: 6 requests and 200000 tokens\n"
        ),
        "{}",
        r.stderr
    );
    let req = fake.requests();
    assert_eq!(req.len(), 6);
    let b = &req[0].body;
    assert_eq!(b["tools"][0]["function"]["name"], "Skill");
    let user = b["messages"].to_string();
    assert!(user.contains("The following skills are available for use with the Skill tool:"));
    assert!(user.contains(&format!("- pdf-tools: {NEW}")), "{user}");
    assert!(user.contains("- chart-maker: Draw charts and plots."));
    assert!(
        !user.contains("older copy"),
        "the installed copy is moved aside"
    );
    let j = r.json();
    assert_eq!(j["requests"], 6);
    assert_eq!(j["tokens"], 5 * 110 + 53);
    assert_eq!(j["stopped"], Value::Null);
    let s = &j["skills"][0];
    assert_eq!(s["name"], "pdf-tools");
    assert_eq!(
        s["trigger"],
        json!({"hits": 3, "trials": 4, "rate": 0.75, "ci95": [0.3006, 0.9544]})
    );
    assert_eq!(
        s["noTrigger"],
        json!({"hits": 0, "trials": 2, "rate": 0.0, "ci95": [0.0, 0.6576]})
    );
    let routed: Vec<&Value> = j["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["routed"])
        .collect();
    assert_eq!(
        routed,
        [
            &json!({"pdf-tools": 2}),
            &json!({"(none)": 1, "pdf-tools": 1}),
            &json!({"(none)": 1, "chart-maker": 1})
        ]
    );
    assert_restored(&ws);
}

#[test]
fn anthropic_request_cap_stops_mid_run() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        anthropic_call("pdf-tools"),
        anthropic_call("pdf-tools"),
        anthropic_call("pdf-tools"),
    ]);
    setup(
        &ws,
        json!({"kind": "anthropic", "baseUrl": fake.url, "model": "claude-x", "apiKeyEnv": "MY_KEY"}),
    );
    let r = live(&ws, &["--repeats", "3", "--max-requests", "2"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("cap: 2 requests and 200000 tokens"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .ends_with("skills test --live stopped: the request cap (2) was reached\n")
    );
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(fake.requests()[0].path, "/v1/messages");
    let j = r.json();
    assert_eq!(j["requests"], 2);
    assert_eq!(j["tokens"], 2 * 52);
    assert_eq!(j["stopped"], "the request cap (2) was reached");
    assert_eq!(
        j["skills"][0]["trigger"],
        json!({"hits": 2, "trials": 2, "rate": 1.0, "ci95": [0.3424, 1.0]})
    );
    assert_restored(&ws);
}

#[test]
fn token_cap_stops_mid_run() {
    let ws = Ws::new();
    // The first answer reports 60,000 input tokens: past the 50,000 cap, nothing more is sent.
    let fake = Fake::start(vec![
        openai_call("Skill", &json!({"skill": "pdf-tools"}), 60_000),
        openai_call("Skill", &json!({"skill": "pdf-tools"}), 100),
    ]);
    setup(
        &ws,
        json!({"kind": "openai", "baseUrl": fake.url, "model": "m1"}),
    );
    let r = live(&ws, &["--max-tokens", "50000"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(fake.requests().len(), 1);
    let j = r.json();
    assert_eq!(j["requests"], 1);
    assert_eq!(j["tokens"], 60_010);
    assert!(
        j["stopped"].as_str().unwrap().starts_with(
            "the token cap (50000) was reached: 60010 spent, the next request may take "
        ),
        "{}",
        j["stopped"]
    );
    assert_restored(&ws);
}

fn spawn_live(ws: &Ws) -> std::process::Child {
    let mut c = ws.cmd();
    c.args([
        "skills",
        "test",
        "--live",
        "--host",
        "claude-code",
        "--json",
        "--config",
        "cfg.json",
        "dev/pdf-tools",
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    c.spawn().unwrap()
}

/// Waits (bounded) until the fake server has a request: the run is mid-request.
fn wait_for_request(fake: &Fake) {
    for _ in 0..6000 {
        if !fake.requests().is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the live run sent no request");
}

/// An answer that never comes (the server holds the connection).
fn hanging() -> Reply {
    Reply {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunks: vec![(600_000, b"data: [DONE]\n\n".to_vec())],
        stall_ms: 0,
    }
}

fn moved_aside(ws: &Ws) -> bool {
    let dir = ws.home.join(".claude/skills");
    !dir.join("pdf-tools").exists()
        && ws
            .home
            .join(".claude/.alisio-moved/skills/pdf-tools/SKILL.md")
            .is_file()
}

#[test]
fn sigterm_mid_request_restores_the_moved_copy() {
    let ws = Ws::new();
    let fake = Fake::start(vec![hanging()]);
    setup(
        &ws,
        json!({"kind": "openai", "baseUrl": fake.url, "model": "m1", "idleTimeoutMs": 600000}),
    );
    let mut child = spawn_live(&ws);
    wait_for_request(&fake);
    assert!(
        moved_aside(&ws),
        "the installed copy is moved aside during the run"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_restored(&ws);
    assert!(
        !ws.tmp
            .path()
            .join("state/skills-live")
            .join(child.id().to_string())
            .join("ws")
            .exists()
    );
}

#[test]
fn a_killed_run_is_put_back_by_the_next_run() {
    let ws = Ws::new();
    let fake = Fake::start(vec![hanging()]);
    setup(
        &ws,
        json!({"kind": "openai", "baseUrl": fake.url, "model": "m1", "idleTimeoutMs": 600000}),
    );
    let mut child = spawn_live(&ws);
    wait_for_request(&fake);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(moved_aside(&ws), "SIGKILL leaves the copy moved aside");
    assert!(ws.tmp.path().join("state/skills-live-moved.json").is_file());
    // The next run puts it back first; with no reply it stops at its provider error.
    let next = Fake::start(vec![Reply::status(
        400,
        r#"{"error":{"message":"bad"}}"#,
        &[],
    )]);
    ws.file(
        "cfg.json",
        json!({"provider": {"kind": "openai", "baseUrl": next.url, "model": "m1"}}).to_string(),
    );
    let r = live(&ws, &["--repeats", "1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_restored(&ws);
}

#[test]
fn human_output_gives_rates_with_their_intervals() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        openai_call("Skill", &json!({"skill": "pdf-tools"}), 100),
        openai_text(),
        openai_text(),
    ]);
    setup(
        &ws,
        json!({"kind": "openai", "baseUrl": fake.url, "model": "m1"}),
    );
    let mut c = ws.cmd();
    let r = run_cmd(c.args([
        "skills",
        "test",
        "--live",
        "--host",
        "claude-code",
        "--repeats",
        "1",
        "--config",
        "cfg.json",
        "dev/pdf-tools",
    ]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "claude-code (live, 1 repeats; 3 requests, 216 tokens):\n  pdf-tools                    triggered 1/2 (50.0%, 95% CI 9.5–90.5%); on prompts that should not: 0/1 (0.0%, 95% CI 0.0–79.3%)\n"
    );
}
