//! The audit of recent sessions in the language server (spec/interfaces.md §4.6): session files
//! written into the test's HOME and CODEX_HOME become diagnostics with exact ranges and
//! messages, code lenses and the `alisio/auditSessions` result; `audit.sessions` bounds what is
//! read and `audit.enabled: false` turns it all off.

use serde_json::{Value, json};

use crate::common::{Ws, write};
use crate::harness::{Lsp, codes, start, uri};

const AGENTS: &str = "# Rules\n\nSee @docs/style.md first.\n";
const SKILL: &str =
    "---\nname: greet\ndescription: Greets the user.\n---\nSay hello; see ref.md.\n";

fn encoded(root: &std::path::Path) -> String {
    root.display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn lines(v: &[Value]) -> String {
    v.iter().map(|l| format!("{l}\n")).collect()
}

/// A Claude Code v2.x session `id` of `ws` that received AGENTS.md with `agents`, and, with
/// `skill`, listed and invoked the skill `greet` and read nothing after it.
fn claude(ws: &str, id: &str, agents: &str, skill: bool) -> String {
    let rec = |kind: &str, n: u32, extra: Value| {
        let mut v = json!({"type": kind, "sessionId": id, "uuid": format!("{id}-{n}"),
            "timestamp": format!("2026-12-01T10:00:0{n}.000Z"), "cwd": ws, "version": "2.1.332"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let mut v = vec![
        rec(
            "user",
            0,
            json!({"message": {"role": "user", "content": "hello"}}),
        ),
        rec(
            "attachment",
            1,
            json!({"attachment": {"type": "instructions", "files": [
            {"path": format!("{ws}/AGENTS.md"), "type": "Project", "content": agents}]}}),
        ),
    ];
    if skill {
        v.extend([
            rec(
                "attachment",
                2,
                json!({"attachment": {"type": "skill_listing", "content": "- greet: Greets the user.\n"}}),
            ),
            rec(
                "assistant",
                3,
                json!({"message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": "t1", "name": "Skill", "input": {"skill": "greet"}}],
                "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            ),
            rec(
                "user",
                4,
                json!({"isMeta": true, "message": {"role": "user", "content": [{"type": "text",
                "text": format!("Base directory for this skill: {ws}/.claude/skills/greet\n\nSay hello; see ref.md.")}]}}),
            ),
        ]);
    }
    lines(&v)
}

fn codex(ws: &str) -> String {
    lines(&[
        json!({"timestamp": "2026-12-01T00:00:00Z", "type": "session_meta", "payload": {"id": "cx", "cwd": ws, "cli_version": "0.171.0"}}),
        json!({"timestamp": "2026-12-01T00:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": format!("# AGENTS.md instructions for {ws}\n\n<INSTRUCTIONS>\nan older text\n</INSTRUCTIONS>")}]}}),
        json!({"timestamp": "2026-12-01T00:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "do it"}]}}),
    ])
}

fn aged(path: &std::path::Path, secs_ago: u64) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// The workspace, with two Claude Code sessions (s2 the newest) and one Codex session.
fn workspace() -> Ws {
    let ws = Ws::new();
    ws.files(&[
        ("AGENTS.md", AGENTS),
        ("docs/style.md", "Use tabs.\n"),
        (".claude/skills/greet/SKILL.md", SKILL),
    ]);
    let root = ws.root.display().to_string();
    let dir = ws.home.join(".claude/projects").join(encoded(&ws.root));
    let s1 = write(
        &dir.join("s1.jsonl"),
        claude(&root, "s1", "# Rules\n\nold text\n", false),
    );
    let s2 = write(&dir.join("s2.jsonl"), claude(&root, "s2", AGENTS, true));
    aged(&s1, 100);
    aged(&s2, 50);
    write(
        &ws.home.join(".codex/sessions/2026/12/01/rollout-cx.jsonl"),
        codex(&root),
    );
    ws
}

fn audit_only(diags: &[Value]) -> Vec<Value> {
    diags
        .iter()
        .filter(|d| d["code"].as_str().is_some_and(|c| c.starts_with("audit-")))
        .map(|d| json!({"code": d["code"], "range": d["range"], "severity": d["severity"], "message": d["message"]}))
        .collect()
}

fn range(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
    json!({"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}})
}

fn lens_titles(lsp: &mut Lsp, path: &std::path::Path) -> Vec<(String, Value)> {
    lsp.on("textDocument/codeLens", path)
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["command"]["command"] == "alisio.showAuditSessions")
        .map(|l| {
            (
                l["command"]["title"].as_str().unwrap().to_owned(),
                l["command"]["arguments"].clone(),
            )
        })
        .collect()
}

#[test]
fn recent_sessions_become_diagnostics_lenses_and_the_audit_sessions_result() {
    let ws = workspace();
    let agents = ws.root.join("AGENTS.md");
    let skill = ws.root.join(".claude/skills/greet/SKILL.md");
    let mut lsp = start(&ws, json!({}), json!({}));
    let d = lsp.diagnostics_for(&agents, |d| audit_only(d).len() == 2);
    assert_eq!(
        audit_only(&d),
        [
            json!({"code": "audit-not-predicted", "range": range(0, 0, 0, 7), "severity": 2,
                "message": "in 1 of the last 1 Codex session(s) (newest: cx), the instructions Codex sent differ from what `context explain --host codex` predicts now"}),
            json!({"code": "audit-import-not-expanded", "range": range(2, 4, 2, 18), "severity": 2,
                "message": "Claude Code did not expand `@docs/style.md` in 1 of the last 2 Claude Code session(s) (newest: s2): the model got the line, not the file"}),
        ]
    );
    let d = lsp.diagnostics_for(&skill, |d| !audit_only(d).is_empty());
    assert_eq!(
        audit_only(&d),
        [
            json!({"code": "audit-reference-unread", "range": range(4, 15, 4, 21), "severity": 3,
            "message": "skill `greet` was invoked in 1 of the last 2 Claude Code session(s) (newest: s2), and `ref.md` was never read after it"})
        ]
    );
    assert_eq!(
        lens_titles(&mut lsp, &agents),
        [
            (
                "Claude Code, last 2 sessions: delivered 2/2; 1 ran an older copy".to_owned(),
                json!([uri(&agents)])
            ),
            (
                "Codex, last session: delivered 1/1; 1 not as explain predicts".to_owned(),
                json!([uri(&agents)])
            ),
        ]
    );
    let titles: Vec<String> = lens_titles(&mut lsp, &skill)
        .into_iter()
        .map(|t| t.0)
        .collect();
    assert_eq!(
        titles,
        ["Claude Code, last 2 sessions: listed 1/2; 1 invoked it; 1 left a reference unread"]
    );
    let r = lsp.request("alisio/auditSessions", json!({})).unwrap();
    assert_eq!(
        (&r["enabled"], &r["running"]),
        (&json!(true), &json!(false))
    );
    let root = ws.root.display().to_string();
    let a = agents.display().to_string();
    let sessions: Vec<Value> = r["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            json!([
                s["client"],
                s["session"],
                s["prompts"],
                s["deliveries"],
                s["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| json!([f["kind"], f["path"], f["message"]]))
                    .collect::<Vec<_>>()
            ])
        })
        .collect();
    assert_eq!(
        sessions,
        [
            json!([
                "Claude Code",
                "s2",
                1,
                1,
                [
                    [
                        "import-not-expanded",
                        a,
                        format!("{a}: `@docs/style.md` was not expanded")
                    ],
                    [
                        "reference-unread",
                        skill.display().to_string(),
                        "skill `greet`: `ref.md` was never read after it was invoked"
                    ]
                ]
            ]),
            json!([
                "Claude Code",
                "s1",
                1,
                1,
                [["older-copy", a, format!("ran an older copy of {a}")]]
            ]),
            json!([
                "Codex",
                "cx",
                1,
                1,
                [[
                    "not-predicted",
                    a,
                    format!(
                        "the instructions sent for {root} differ from what `context explain --host codex` predicts there now"
                    )
                ]]
            ]),
        ]
    );
    // The lens's command answers with the same result.
    let c = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "alisio.showAuditSessions", "arguments": [uri(&agents)]}),
        )
        .unwrap();
    assert_eq!(c, r);
    // Off: nothing is shown any more.
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"alisio": {"audit": {"enabled": false}}}}),
    );
    let d = lsp.diagnostics_for(&agents, |d| audit_only(d).is_empty());
    assert!(!codes(&d).iter().any(|c| c.starts_with("audit-")));
    assert_eq!(lens_titles(&mut lsp, &agents), []);
    let r = lsp
        .request("alisio/auditSessions", json!({"refresh": true}))
        .unwrap();
    assert_eq!(
        r,
        json!({"enabled": false, "running": false, "sessions": []})
    );
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

#[test]
fn audit_sessions_bounds_what_is_read_and_refresh_reads_new_sessions() {
    let ws = workspace();
    let agents = ws.root.join("AGENTS.md");
    let mut lsp = start(&ws, json!({}), json!({"audit": {"sessions": 1}}));
    // Only the newest session of each client: s2 (no older copy) and the Codex one.
    let d = lsp.diagnostics_for(&agents, |d| audit_only(d).len() == 2);
    assert_eq!(
        audit_only(&d)[1]["message"],
        "Claude Code did not expand `@docs/style.md` in 1 of the last 1 Claude Code session(s) (newest: s2): the model got the line, not the file"
    );
    let titles: Vec<String> = lens_titles(&mut lsp, &agents)
        .into_iter()
        .map(|t| t.0)
        .collect();
    assert_eq!(
        titles,
        [
            "Claude Code, last session: delivered 1/1",
            "Codex, last session: delivered 1/1; 1 not as explain predicts"
        ]
    );
    // A newer session is read on refresh.
    let root = ws.root.display().to_string();
    let dir = ws.home.join(".claude/projects").join(encoded(&ws.root));
    write(
        &dir.join("s3.jsonl"),
        claude(&root, "s3", "# Rules\n\nolder\n", false),
    );
    let r = lsp
        .request("alisio/auditSessions", json!({"refresh": true}))
        .unwrap();
    let ids: Vec<&str> = r["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["s3", "cx"]);
    let d = lsp.diagnostics_for(&agents, |d| audit_only(d).len() == 1);
    assert_eq!(audit_only(&d)[0]["code"], "audit-not-predicted");
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

#[test]
fn a_bad_audit_option_is_reported_and_the_default_kept() {
    let ws = workspace();
    let mut lsp = start(
        &ws,
        json!({}),
        json!({"audit": {"sessions": 0, "enabled": "yes"}}),
    );
    let m = lsp.wait_notification("window/showMessage", |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("audit.enabled"))
    });
    assert_eq!(
        m["message"],
        "audit.enabled must be true or false; got \"yes\""
    );
    let m = lsp.wait_notification("window/showMessage", |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("audit.sessions"))
    });
    assert_eq!(
        m["message"],
        "audit.sessions must be an integer from 1 to 50; got 0"
    );
    let agents = ws.root.join("AGENTS.md");
    let titles: Vec<String> = {
        lsp.diagnostics_for(&agents, |d| audit_only(d).len() == 2);
        lens_titles(&mut lsp, &agents)
            .into_iter()
            .map(|t| t.0)
            .collect()
    };
    assert_eq!(
        titles[0],
        "Claude Code, last 2 sessions: delivered 2/2; 1 ran an older copy"
    );
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

#[test]
fn a_file_a_recent_session_never_received_gets_audit_not_received() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Rules\n\nUse tabs.\n");
    // Older than the session: it was there when the session started.
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_735_689_600);
    std::fs::File::options()
        .write(true)
        .open(ws.root.join("AGENTS.md"))
        .unwrap()
        .set_modified(t)
        .unwrap();
    let root = ws.root.display().to_string();
    write(
        &ws.home.join(".codex/sessions/2026/12/01/rollout-cy.jsonl"),
        lines(&[
            json!({"timestamp": "2026-12-01T00:00:00Z", "type": "session_meta", "payload": {"id": "cy", "cwd": root, "cli_version": "0.171.0"}}),
            json!({"timestamp": "2026-12-01T00:00:00Z", "type": "response_item", "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "do it"}]}}),
        ]),
    );
    let agents = ws.root.join("AGENTS.md");
    let mut lsp = start(&ws, json!({}), json!({}));
    let d = lsp.diagnostics_for(&agents, |d| !audit_only(d).is_empty());
    assert_eq!(
        audit_only(&d),
        [
            json!({"code": "audit-not-received", "range": range(0, 0, 0, 7), "severity": 2,
            "message": "Codex never received this file in 1 of the last 1 Codex session(s) (newest: cy), but `context explain --host codex` predicts it for the session's cwd"})
        ]
    );
    assert_eq!(
        lens_titles(&mut lsp, &agents)
            .into_iter()
            .map(|t| t.0)
            .collect::<Vec<_>>(),
        ["Codex, last session: delivered 0/1; 1 never received it"]
    );
    assert_eq!(lsp.shutdown_and_exit(), 0);
}
