//! `alisio-ls audit` on sessions the real Claude Code wrote (issue 20 §2, spec/interfaces.md §4):
//! a scripted three-run session through the fake server (a prompt whose model reads a file in
//! a subdirectory and invokes a skill; `--continue -p /compact`; `--continue -p again`). The
//! session file Claude Code leaves under the temporary `HOME` is audited, and the audit must
//! equal what the fake server received: the instruction blocks of each request (startup, nested
//! after the `Read`, re-sent after the compaction) with the SHA-256 of their text, the skill
//! listing's names, the skill body, what the compaction lost, and for every request whether it
//! kept the previous request's prefix.

use serde_json::{Value, json};

use crate::harness::extract::{self, claude_blocks_of};
use crate::harness::http::Request;
use crate::harness::netns::{self, Plan};
use crate::harness::{Case, Client, Ctx, Script, Turn, clients, expect};

/// Every audit case.
pub fn cases() -> Vec<Case> {
    vec![
        Case::new(Client::ClaudeCode, "audit_read_skill_compact_session")
            .file("ws/CLAUDE.md", "# Top\n@AGENTS.md\n")
            .file("ws/AGENTS.md", "agents text\n")
            .file("ws/sub/CLAUDE.md", "sub rules\n")
            .file("ws/sub/x.txt", "hello\n")
            .file(
                "ws/.claude/skills/greet/SKILL.md",
                "---\nname: greet\ndescription: Greets the user politely.\n---\nSay hello. See ref.md.\n",
            )
            .claude_settings(json!({"permissions": {"allow": ["Read", "Skill"]}}))
            .script(Script {
                turns: vec![
                    Turn::Tool {
                        name: "Read".into(),
                        input: json!({"file_path": "{ws}/sub/x.txt"}),
                    },
                    Turn::Tool {
                        name: "Skill".into(),
                        input: json!({"skill": "greet"}),
                    },
                    Turn::Text("done".into()),
                ],
                compact_summary: Some("<summary>Read a file, greeted.</summary>".into()),
            })
            .check(std::sync::Arc::new(check)),
        Case::new(Client::ClaudeCode, "audit_session_that_ran_an_older_copy")
            .file("ws/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/AGENTS.md", "first text\n")
            .check(std::sync::Arc::new(check_older_copy)),
        Case::new(Client::ClaudeCode, "audit_a_file_the_session_never_received")
            .file("ws/CLAUDE.md", "rules\n")
            .check(std::sync::Arc::new(check_not_received)),
    ]
}

/// The session ran with CLAUDE.md alone. A rule file appears afterwards with a modification
/// time before the session's start (as a file the client failed to send would have): the audit
/// must report it, and only it, as predicted but never received, and the fake server must
/// indeed not have received it.
fn check_not_received(ctx: &Ctx<'_>) -> Result<(), String> {
    let rule = ctx.ws.join(".claude/rules/style.md");
    std::fs::create_dir_all(rule.parent().ok_or("no parent")?).map_err(|e| e.to_string())?;
    std::fs::write(&rule, "tabs\n").map_err(|e| e.to_string())?;
    std::fs::File::options()
        .write(true)
        .open(&rule)
        .and_then(|f| {
            f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_735_689_600))
        })
        .map_err(|e| e.to_string())?;
    let wire: Vec<Value> = extract::main_requests(&ctx.outcome.requests);
    let ws = ctx.ws.display().to_string();
    let first = wire.first().ok_or("no main request")?;
    eq(
        "files the client sent",
        blocks(first, false)
            .into_iter()
            .map(|b| b.0)
            .collect::<Vec<_>>(),
        vec![format!("{ws}/CLAUDE.md")],
    )?;
    let v = expect::alisio(ctx, &["audit", "--json"])?;
    let audit = &v["sessions"][0];
    eq(
        "not received",
        &audit["notReceived"],
        &json!([{"path": format!("{ws}/.claude/rules/style.md"), "sha256": expect::sha256_hex("tabs")}]),
    )
    .map_err(|e| format!("{e}\naudit:\n{audit:#}"))
}

/// The session's first prompt ran with `first text`; AGENTS.md is edited, then the session is
/// continued. The audit must say the first delivery ran an older copy, the second the file on
/// disk now, and classify the continued request's prefix as the fake server saw it.
fn check_older_copy(ctx: &Ctx<'_>) -> Result<(), String> {
    let run1 = ctx.outcome.requests.clone();
    std::fs::write(ctx.ws.join("AGENTS.md"), "second text\n").map_err(|e| e.to_string())?;
    let run2 = again(ctx, "again", 2, Script::text("OK"))?;
    let wire: Vec<Value> = [run1, run2]
        .iter()
        .flat_map(|r| extract::main_requests(r))
        .collect();
    let v = expect::alisio(ctx, &["audit", "--json"])?;
    let audit = &v["sessions"][0];
    let ws = ctx.ws.display().to_string();
    let got: Vec<(String, String, String)> = audit["deliveries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["path"] == format!("{ws}/AGENTS.md"))
        .map(|d| {
            let f = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (f("how"), f("sha256"), f("onDisk"))
        })
        .collect();
    let sha = expect::sha256_hex;
    eq(
        "AGENTS.md deliveries",
        got,
        vec![
            ("startup".into(), sha("first text"), "older-copy".into()),
            ("prompt".into(), sha("second text"), "same".into()),
        ],
    )
    .map_err(|e| format!("{e}\naudit:\n{audit:#}"))?;
    let reqs = audit["requests"].as_array().cloned().unwrap_or_default();
    eq("requests", reqs.len(), wire.len())?;
    for k in 1..wire.len() {
        let w = kept(&wire[k - 1], &wire[k]);
        eq(
            &format!("request {} prefix kept", k + 1),
            &reqs[k]["prefixKept"],
            &json!(w),
        )
        .map_err(|e| format!("{e}\naudit:\n{audit:#}"))?;
        let want = if w {
            json!(["hit", null])
        } else {
            json!(["broken", "instruction-changed"])
        };
        eq(
            &format!("request {} class", k + 1),
            json!([reqs[k]["class"], reqs[k]["cause"]]),
            want,
        )
        .map_err(|e| format!("{e}\naudit:\n{audit:#}"))?;
    }
    Ok(())
}

/// Claude Code's compaction request (the harness's fake model answers it with the summary).
fn is_compaction(body: &Value) -> bool {
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    last.contains("summary of the conversation") || last.contains("create a detailed summary")
}

/// Runs the client again in the same `HOME` and cwd with `--continue -p PROMPT`.
fn again(ctx: &Ctx<'_>, prompt: &str, n: usize, script: Script) -> Result<Vec<Request>, String> {
    let inst = clients::find(Client::ClaudeCode)?;
    let (mut argv, env) = clients::command(&inst, &ctx.home, prompt);
    argv.insert(inst.program.len(), "--continue".into());
    let plan = Plan {
        argv,
        env,
        cwd: ctx.cwd.clone(),
        api: Client::ClaudeCode.api(),
        script,
        timeout_ms: 60_000,
        templated: Vec::new(),
    };
    let out = netns::run(&plan, &ctx.base.join(format!("run{n}")))?;
    if out.timed_out || out.exit_code != Some(0) {
        return Err(format!(
            "run {n} ({prompt}) failed: exit {:?}\n{}\n{}",
            out.exit_code, out.stdout, out.stderr
        ));
    }
    Ok(out.requests)
}

/// The request as the model reads it: `cache_control` markers removed (they move from request to
/// request; they are not content), and a message's string content written as the one text
/// block it is shorthand for (Claude Code sends the last message as blocks, to mark it, and the
/// same message as a string once it is no longer last).
fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "cache_control")
                .map(|(k, x)| match x {
                    Value::String(t) if k == "content" && m.contains_key("role") => {
                        (k.clone(), json!([{"type": "text", "text": t}]))
                    }
                    _ => (k.clone(), strip(x)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        x => x.clone(),
    }
}

/// Whether `cur` kept `prev`'s whole prefix: model, system, tools and every earlier message.
fn kept(prev: &Value, cur: &Value) -> bool {
    let (pm, cm) = (strip(&prev["messages"]), strip(&cur["messages"]));
    let (Some(pm), Some(cm)) = (pm.as_array(), cm.as_array()) else {
        return false;
    };
    prev["model"] == cur["model"]
        && strip(&prev["system"]) == strip(&cur["system"])
        && strip(&prev["tools"]) == strip(&cur["tools"])
        && cm.len() >= pm.len()
        && cm[..pm.len()] == pm[..]
}

/// Every text of a request's messages, with the message index.
fn texts(body: &Value) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, m) in body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        match &m["content"] {
            Value::String(s) => out.push((i, s.clone())),
            Value::Array(parts) => {
                for p in parts {
                    if let Some(t) = p["text"].as_str() {
                        out.push((i, t.to_string()));
                    }
                    if let Some(t) = p["content"].as_str() {
                        out.push((i, t.to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `(path, sha256)` of the `Contents of` blocks of a request, startup (labelled) or nested.
fn blocks(body: &Value, nested: bool) -> Vec<(String, String)> {
    texts(body)
        .iter()
        .flat_map(|(i, t)| claude_blocks_of(t, *i))
        .filter(|b| b.label.is_none() == nested)
        .map(|b| (b.path, expect::sha256_hex(&b.content)))
        .collect()
}

fn deliveries(audit: &Value, how: &str) -> Vec<(String, String)> {
    audit["deliveries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["how"] == how)
        .map(|d| {
            (
                d["path"].as_str().unwrap_or_default().to_string(),
                d["sha256"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn eq<T: PartialEq + std::fmt::Debug>(what: &str, audit: T, wire: T) -> Result<(), String> {
    if audit == wire {
        Ok(())
    } else {
        Err(format!(
            "{what}: audit says {audit:?}, the client sent {wire:?}"
        ))
    }
}

/// The skill body the client sent (`Base directory for this skill: DIR\n\nBODY`).
fn skill_body(body: &Value) -> Option<String> {
    texts(body).into_iter().find_map(|(_, t)| {
        let rest = t.strip_prefix("Base directory for this skill: ")?;
        Some(rest.split_once("\n\n")?.1.trim().to_string())
    })
}

/// The text after "The following skills are available for use with the Skill tool:" in the
/// request (the listing, then whatever the client put after it).
fn listing_text(body: &Value) -> Option<String> {
    const HEAD: &str = "The following skills are available for use with the Skill tool:\n\n";
    texts(body)
        .into_iter()
        .find_map(|(_, t)| Some(t[t.find(HEAD)? + HEAD.len()..].to_string()))
}

fn check(ctx: &Ctx<'_>) -> Result<(), String> {
    let run1 = ctx.outcome.requests.clone();
    let run2 = again(ctx, "/compact", 2, Script::default())?;
    let run3 = again(ctx, "again", 3, Script::text("OK"))?;
    let wire: Vec<Value> = [run1, run2, run3]
        .iter()
        .flat_map(|r| extract::main_requests(r))
        .filter(|b| !is_compaction(b))
        .collect();
    let projects = ctx.home.join(".claude/projects");
    let sessions: Vec<_> = std::fs::read_dir(&projects)
        .map_err(|e| format!("{}: {e}", projects.display()))?
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .filter(|f| f.path().extension().is_some_and(|x| x == "jsonl"))
        .collect();
    if sessions.len() != 1 {
        return Err(format!(
            "expected one session file, found {}",
            sessions.len()
        ));
    }
    let v = expect::alisio(ctx, &["audit", "--json"])?;
    let all = v["sessions"].as_array().cloned().unwrap_or_default();
    let [audit] = all.as_slice() else {
        return Err(format!("audit found {} sessions:\n{v:#}", all.len()));
    };
    compare(ctx, audit, &wire).map_err(|e| format!("{e}\naudit:\n{audit:#}"))
}

fn compare(ctx: &Ctx<'_>, audit: &Value, wire: &[Value]) -> Result<(), String> {
    let ws = ctx.ws.display().to_string();
    eq("workspace match", &audit["workspaceMatch"], &json!(true))?;
    eq("skipped lines", &audit["skippedLines"], &json!(0))?;
    // Everything explain predicts at start, the real client sent.
    eq("not received", &audit["notReceived"], &json!([]))?;
    let first = wire.first().ok_or("no main request")?;
    let post = wire
        .iter()
        .position(|b| {
            texts(b)
                .iter()
                .any(|(_, t)| t.contains("This session is being continued"))
        })
        .ok_or("no request after the compaction")?;
    let before = &wire[post - 1];
    eq(
        "startup files",
        deliveries(audit, "startup"),
        blocks(first, false),
    )?;
    eq(
        "nested files",
        deliveries(audit, "nested"),
        blocks(before, true),
    )?;
    eq(
        "files re-sent after the compaction",
        deliveries(audit, "after-compaction"),
        blocks(&wire[post], false),
    )?;
    let nested = &audit["deliveries"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["how"] == "nested"))
        .cloned()
        .unwrap_or_default();
    eq(
        "nested trigger",
        &nested["afterTool"]["target"],
        &json!(format!("{ws}/sub/x.txt")),
    )?;
    for d in audit["deliveries"].as_array().into_iter().flatten() {
        eq(
            "on disk",
            (&d["path"], &d["onDisk"]),
            (&d["path"], &json!("same")),
        )?;
        eq(
            "predicted by explain",
            (&d["path"], &d["predicted"]),
            (&d["path"], &json!(true)),
        )?;
    }
    // The listing audit reports is exactly the block the client sent, up to a blank line.
    let l = &audit["skillListings"][0];
    let rest = listing_text(first).ok_or("no skill listing was sent")?;
    let bytes = usize::try_from(l["bytes"].as_u64().unwrap_or(u64::MAX)).unwrap_or(usize::MAX);
    let block = rest
        .get(..bytes)
        .ok_or("the listing audit reports is longer than the one sent")?;
    eq(
        "skill listing sha256",
        &l["sha256"],
        &json!(expect::sha256_hex(block)),
    )?;
    eq(
        "skill listing ends",
        rest[bytes..].starts_with("\n\n"),
        true,
    )?;
    let names: Vec<&str> = block
        .lines()
        .filter_map(|x| x.strip_prefix("- ")?.split_once(": ").map(|(n, _)| n))
        .collect();
    let got: Vec<&str> = l["skills"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x["name"].as_str())
        .collect();
    eq("skill listing names", got, names)?;
    let body = wire
        .iter()
        .find_map(skill_body)
        .ok_or("no skill body was sent")?;
    let u = &audit["skillsInvoked"][0];
    eq(
        "skill invoked",
        (&u["name"], &u["bodySha256"]),
        (&json!("greet"), &json!(expect::sha256_hex(&body))),
    )?;
    eq(
        "unread references",
        &u["unreadReferences"],
        &json!(["ref.md"]),
    )?;
    let had: Vec<String> = blocks(before, false)
        .into_iter()
        .chain(blocks(before, true))
        .map(|(p, _)| p)
        .collect();
    let has: Vec<String> = blocks(&wire[post], false)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let lost: Vec<String> = had.into_iter().filter(|p| !has.contains(p)).collect();
    let c = &audit["compactions"];
    eq("compactions", c.as_array().map_or(0, Vec::len), 1)?;
    eq(
        "instruction files lost",
        &c[0]["lost"]["instructionFiles"],
        &json!(lost),
    )?;
    let body_after = skill_body(&wire[post]).is_some();
    eq(
        "skill bodies lost",
        &c[0]["lost"]["skillBodies"],
        &json!(if body_after { vec![] } else { vec!["greet"] }),
    )?;
    let reqs = audit["requests"].as_array().cloned().unwrap_or_default();
    eq("requests", reqs.len(), wire.len())?;
    for k in 1..wire.len() {
        let w = kept(&wire[k - 1], &wire[k]);
        eq(
            &format!("request {} prefix kept", k + 1),
            &reqs[k]["prefixKept"],
            &json!(w),
        )?;
        let want = if w { "hit" } else { "expected-rebuild" };
        eq(
            &format!("request {} class", k + 1),
            &reqs[k]["class"],
            &json!(want),
        )?;
    }
    eq("request 1 class", &reqs[0]["class"], &json!("cold"))?;
    eq(
        "request after the compaction",
        &reqs[post]["cause"],
        &json!("compaction"),
    )?;
    Ok(())
}
