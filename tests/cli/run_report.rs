//! What a real run's requests and ContextReport get right (issue 13 §4): attached nested
//! instructions pin their result, attachments keep the prompt cache, the invariants block
//! counts in the budget, real segments, usage, and the `skill_load` name enum.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::fake::{Fake, Reply};
use crate::sess::*;

fn sha(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// The flags of a governed run that may write, configured by `gov.json`.
const GOVERNED: &[&str] = &[
    "--governor",
    "on",
    "--allow",
    "write",
    "--config",
    "gov.json",
];

fn report(ws: &Ws, id: &str, extra: &[&str]) -> Value {
    let mut a = vec!["sessions", "report", id, "--json"];
    a.extend_from_slice(extra);
    let r = ws.run(&a);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    r.json()
}

/// A read that carried an attached nested file is pinned: a later edit of the same file would
/// make policy 1 elide it (superseded_read), but the attachment keeps it whole.
#[test]
fn a_read_carrying_nested_instructions_is_pinned_not_elided() {
    let ws = Ws::new();
    ws.file("gov.json", r#"{"context":{"elide":{"epochMessages":0}}}"#);
    ws.file("pkg/AGENTS.md", "pkg rules");
    ws.file("pkg/a.txt", "a");
    ws.file("b.txt", "b");
    let edit = json!({"toolCalls":[{"name":"edit_file","arguments":{"path":"pkg/a.txt","oldText":"a","newText":"A","expectedHash":sha(b"a")}}]}).to_string();
    let last = r#"{"expect":{"contains":["Instructions from: pkg/AGENTS.md\\npkg rules"],"notContains":["[elided: read_file"]},"text":"done"}"#;
    // The same script with the other read (no attachment) shows the rule would elide it.
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"pkg/a.txt"}}]}"#,
            &edit,
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"toolCalls":[{"name":"list_files","arguments":{"path":"pkg"}}]}"#,
            last,
        ],
    );
    let (r, ev) = run(&ws, "p", GOVERNED);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let id = sid(&ev);
    let t = tool_results(&ws, &id);
    assert!(result_text(&t[0]).ends_with("pkg rules\n</instructions>"));
    let rep = report(&ws, &id, &["--config", "gov.json"]);
    let read: Vec<&Value> = rep["segments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "tool_result" && s["tool"] == "read_file")
        .collect();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0]["criticality"], "pinned");
    assert_eq!(read[0]["reason"], "attached_instructions");
    assert!(read[0].get("elided").is_none());
    assert_eq!(rep["totals"]["elided"], json!(0));

    // Control: the same sequence on a file without a nested AGENTS.md is elided.
    let edit = json!({"toolCalls":[{"name":"edit_file","arguments":{"path":"b.txt","oldText":"b","newText":"B","expectedHash":sha(b"b")}}]}).to_string();
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"b.txt"}}]}"#,
            &edit,
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"toolCalls":[{"name":"list_files","arguments":{"path":"pkg"}}]}"#,
            r#"{"expect":{"contains":["[elided: read_file"]},"text":"done"}"#,
        ],
    );
    let (r, _) = run(&ws, "p", GOVERNED);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
}

fn tool_sse(id: &str, name: &str, args: &Value) -> Reply {
    let call = json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":id,"type":"function","function":{"name":name,"arguments":args.to_string()}}]}}]});
    let end = json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]});
    Reply::sse(
        &format!("data: {call}\n\ndata: {end}\n\ndata: [DONE]\n\n"),
        64,
    )
}

fn text_sse(text: &str) -> Reply {
    let c = json!({"choices":[{"index":0,"delta":{"content":text},"finish_reason":"stop"}]});
    Reply::sse(&format!("data: {c}\n\ndata: [DONE]\n\n"), 64)
}

fn openai(ws: &Ws, file: &str, fake: &Fake, extra: &Value) {
    let mut p = json!({"kind":"openai","baseUrl":fake.url,"model":"m"});
    if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    ws.file(file, json!({"provider":p}).to_string());
}

fn options(ws: &Ws, id: &str) -> Value {
    serde_json::from_str(
        &db(ws)
            .query_row("SELECT options FROM sessions WHERE id=?1", [id], |r| {
                r.get::<_, String>(0)
            })
            .unwrap(),
    )
    .unwrap()
}

/// Root and `pkg/` instructions, and a fake that reads `pkg/a.txt`, then `pkg/b.txt`, then
/// answers `done`; `one.json` points at it.
fn two_reads_below_a_nested_file(ws: &Ws) -> Fake {
    ws.file("AGENTS.md", "root rules");
    ws.file("pkg/AGENTS.md", "pkg rules");
    ws.file("pkg/a.txt", "a");
    ws.file("pkg/b.txt", "b");
    let fake = Fake::start(vec![
        tool_sse("c1", "read_file", &json!({"path":"pkg/a.txt"})),
        tool_sse("c2", "read_file", &json!({"path":"pkg/b.txt"})),
        text_sse("done"),
    ]);
    openai(ws, "one.json", &fake, &json!({}));
    fake
}

/// An attachment goes to the tool result only: the system prompt of every later request is
/// byte-identical (the provider's cached prefix holds) until a compaction rewrites the start,
/// and from then on the file is in the instruction section.
#[test]
fn an_attachment_keeps_the_system_prompt_until_the_next_compaction() {
    let ws = Ws::new();
    let fake = two_reads_below_a_nested_file(&ws);
    let r = ws.run(&["run", "--json", "--config", "one.json", "read them"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let id = sid(&events(&r));
    let req = fake.requests();
    assert_eq!(req.len(), 3);
    let system = |b: &Value| b["messages"][0]["content"].as_str().unwrap().to_string();
    let first = system(&req[0].body);
    assert!(first.contains("Source: AGENTS.md\nroot rules"));
    assert!(!first.contains("pkg rules"));
    for r in &req[1..] {
        assert_eq!(
            system(&r.body),
            first,
            "the system prompt is byte-identical"
        );
    }
    let tool = &req[1].body["messages"][3];
    assert_eq!(tool["role"], "tool");
    assert!(
        tool["content"].as_str().unwrap().ends_with(
            "\n<instructions>\nInstructions from: pkg/AGENTS.md\npkg rules\n</instructions>"
        ),
        "{tool}"
    );
    let o = options(&ws, &id);
    assert_eq!(o["attachedInstructions"][0]["pending"], json!(true));

    // The next run compacts first (a 300-token window): the file joins the section.
    let fake = Fake::start(vec![text_sse("Summary: read two files."), text_sse("ok")]);
    openai(&ws, "two.json", &fake, &json!({"contextWindow":300}));
    let r = ws.run(&[
        "run",
        "--json",
        "--config",
        "two.json",
        "--session",
        &id,
        "go on",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(of_type(&events(&r), "compaction_completed").len(), 1);
    let req = fake.requests();
    assert_eq!(req.len(), 2);
    let after = system(&req[1].body);
    assert_eq!(
        after,
        format!("{first}\n\nSource: pkg/AGENTS.md\npkg rules"),
        "the attached file joins the section after the chain"
    );
    let o = options(&ws, &id);
    assert!(o["attachedInstructions"][0].get("pending").is_none(), "{o}");
}

/// Issue 13 §4: an attachment causes no cache break in the live replay figures (the run's
/// human report line counts the requests whose cached prefix is shorter than the whole
/// previous request).
#[test]
fn an_attachment_causes_no_cache_break_in_the_live_replay() {
    let ws = Ws::new();
    let fake = two_reads_below_a_nested_file(&ws);
    let r = ws.run(&[
        "run",
        "--config",
        "one.json",
        "--governor",
        "shadow",
        "read them",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(fake.requests().len(), 3);
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("  replay: "))
        .unwrap_or_else(|| panic!("{}", r.stderr));
    assert!(line.starts_with("  replay: 3 requests; "), "{line}");
    assert!(line.ends_with("; 0 cache breaks"), "{line}");
}

/// Characters of the session's active rows as stored (what the runner counts per message).
fn conversation(ws: &Ws, id: &str) -> u64 {
    let c = db(ws);
    let mut st = c
        .prepare("SELECT json FROM messages WHERE session_id=?1 AND compacted=0")
        .unwrap();
    st.query_map([id], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|j| j.unwrap().chars().count() as u64)
        .sum()
}

/// The `N` of `Context budget exceeded (about N characters of conversation; …`.
fn budget_chars(ev: &[Value]) -> u64 {
    let f = &of_type(ev, "run_failed")[0]["data"];
    assert_eq!(f["code"], "context_budget", "{f}");
    let m = f["error"].as_str().unwrap();
    m.split("about ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// G5: once the invariants block is sent (`on`, after a checkpoint), its length counts as
/// instruction length for the context budget and the compaction triggers.
#[test]
fn the_invariants_block_counts_in_the_context_budget() {
    let ws = Ws::new();
    let goal = ["--goal", "Ship the release"];
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"list_files","arguments":{}}]}"#,
            r#"{"text":"listed","usage":{"input":1690,"output":20}}"#,
        ],
    );
    let (r, ev) = run(
        &ws,
        "list the files",
        &["--governor", "on", goal[0], goal[1]],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let id = sid(&ev);
    script(
        &ws,
        &[
            r#"{"alisioScript":1,"contextWindow":2000}"#,
            r#"{"for":"summary","text":"{\"checkpoint\":{\"goal\":\"list\"},\"instructionQuotes\":[]}"}"#,
            r#"{"expect":{"contains":["<invariants policy=","Ship the release"]},"text":"done"}"#,
        ],
    );
    let on = ["--session", &id, "--governor", "on", goal[0], goal[1]];
    let (r, ev) = run(&ws, "continue", &on);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(of_type(&ev, "compaction_completed").len(), 1);

    // With no room at all, both modes fail; `on` counts the block on top of the system text.
    ws.file(
        "tight.json",
        r#"{"limits":{"maxContextChars":1000},"compaction":{"auto":false}}"#,
    );
    script(&ws, &[r#"{"text":"unused"}"#]);
    let shadow = ["--session", &id, "--governor", "shadow", goal[0], goal[1]];
    let (_, ev) = run(
        &ws,
        "x",
        &[&shadow[..], &["--config", "tight.json"]].concat(),
    );
    let n_shadow = budget_chars(&ev);
    let instructions_shadow = n_shadow - conversation(&ws, &id);
    let (_, ev) = run(&ws, "x", &[&on[..], &["--config", "tight.json"]].concat());
    let n_on = budget_chars(&ev);
    let block = n_on - conversation(&ws, &id) - instructions_shadow;
    assert!(block > 0, "the block counts");
    let rep = report(&ws, &id, &[]);
    let inv: Vec<&Value> = rep["segments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "invariants")
        .collect();
    assert_eq!(inv.len(), 1);
    assert_eq!(
        inv[0]["tokens"],
        json!(block.div_ceil(4)),
        "the block as sent"
    );

    // The block tips the budget: with room for everything but the block, `on` fails and
    // `shadow` (which sends no block) runs.
    let row = conversation(&ws, &id);
    let room = |extra: u64| {
        json!({"limits":{"maxContextChars":instructions_shadow + row + extra},"compaction":{"auto":false}})
            .to_string()
    };
    let prompt_row = n_on - n_shadow - block;
    ws.file("room.json", room(prompt_row));
    let (_, ev) = run(&ws, "x", &[&on[..], &["--config", "room.json"]].concat());
    assert_eq!(
        budget_chars(&ev),
        instructions_shadow + row + prompt_row + block
    );
    ws.file("room.json", room(2 * prompt_row));
    let (r, _) = run(
        &ws,
        "x",
        &[&shadow[..], &["--config", "room.json"]].concat(),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
}

fn skill(ws: &Ws, name: &str) {
    ws.file(
        &format!(".agents/skills/{name}/SKILL.md"),
        format!("---\nname: {name}\ndescription: The {name} skill.\n---\nbody\n"),
    );
}

/// spec/governor.md §2.6: one `instructions` segment per instruction file, root first, with its path as origin
/// (the first also carries the section's header), and the skill catalog as `skills`.
#[test]
fn a_real_request_reports_one_segment_per_instruction_file_and_the_catalog() {
    let ws = Ws::new();
    std::fs::write(ws.config_home.join("AGENTS.md"), "global rules").unwrap();
    ws.file("AGENTS.md", "root rules");
    ws.file("sub/AGENTS.md", "sub rules");
    skill(&ws, "pdf-tools");
    ws.file("sub/s.jsonl", "{\"text\":\"ok\"}\n");
    let trust = "--trust-project";
    let (r, ev) = run(&ws, "p", &["--cwd", "sub", "--governor", "shadow", trust]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let rep = report(&ws, &sid(&ev), &[trust]);
    let segs = rep["segments"].as_array().unwrap();
    let head: Vec<(&str, &str)> = segs
        .iter()
        .take(6)
        .map(|s| (s["kind"].as_str().unwrap(), s["origin"].as_str().unwrap()))
        .collect();
    assert_eq!(head[0], ("system", "system"));
    assert_eq!(head[1].0, "instructions");
    assert!(head[1].1.ends_with("config-home/AGENTS.md"), "{head:?}");
    assert_eq!(
        &head[2..],
        &[
            ("instructions", "AGENTS.md"),
            ("instructions", "sub/AGENTS.md"),
            ("skills", "skills"),
            ("tools", "tools")
        ]
    );
    // Each file's segment measures its own block: "Source: AGENTS.md\nroot rules" is 28
    // characters, 7 tokens; "Source: sub/AGENTS.md\nsub rules" 31, 8 tokens.
    assert_eq!(segs[2]["tokens"], json!(7));
    assert_eq!(segs[3]["tokens"], json!(8));
    assert!(
        segs.iter()
            .skip(1)
            .take(3)
            .all(|s| s["reason"] == "instruction_file")
    );
    assert_eq!(segs[4]["reason"], "skill_catalog");
    assert_eq!(segs[4]["criticality"], "pinned");
}

/// The schema of `skill_load` that `run` sends for the skills of `ws`.
fn skill_load_name(ws: &Ws) -> Value {
    let fake = Fake::start(vec![text_sse("ok")]);
    openai(ws, "p.json", &fake, &json!({}));
    let r = ws.run(&[
        "run",
        "--json",
        "--trust-project",
        "--config",
        "p.json",
        "p",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let body = &fake.requests()[0].body;
    let tool = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "skill_load")
        .expect("skill_load is offered")
        .clone();
    tool["function"]["parameters"]["properties"]["name"].clone()
}

/// spec/skills.md §4.2: `skill_load`'s `name` is an enum of the listed names while there are at
/// most 64 of them and at most 4 KiB of names; past the bound it is a plain string.
#[test]
fn skill_load_offers_the_catalog_names_as_an_enum_within_the_bound() {
    let ws = Ws::new();
    skill(&ws, "pdf-tools");
    skill(&ws, "csv-tools");
    let name = skill_load_name(&ws);
    assert_eq!(name["type"], "string");
    assert_eq!(name["enum"], json!(["csv-tools", "pdf-tools"]), "{name}");
    for i in 0..62 {
        skill(&ws, &format!("s{i:02}"));
    }
    let name = skill_load_name(&ws);
    assert_eq!(name["enum"].as_array().unwrap().len(), 64, "64 names fit");
    skill(&ws, "s62");
    let name = skill_load_name(&ws);
    assert!(name.get("enum").is_none(), "65 names do not: {name}");
    assert_eq!(name["type"], "string");
}
