//! Skill tools and `/skill:` prompts in sessions (spec/sessions.md §3.4 "Skills", spec/skills.md §4;
//! spec/sessions.md §11 case 38).

use serde_json::{Value, json};

use crate::common::Ws;
use crate::sess::*;

fn skills(ws: &Ws) {
    ws.file(".agents/skills/pdf-tools/SKILL.md", "---\nname: pdf-tools\ndescription: Extract text from PDF files. Use when reading PDFs.\n---\n# PDF\nSee ref/big.txt\n");
    ws.file(".agents/skills/pdf-tools/ref/big.txt", "z".repeat(40_000));
    ws.file(
        ".agents/skills/off/SKILL.md",
        "---\nname: off\ndescription: A disabled skill.\n---\nbody\n",
    );
    ws.file(
        ".alisio/config.json",
        r#"{"skillOverrides":{"off":{"enabled":false}}}"#,
    );
}

// 38
#[test]
fn skill_tools_report_the_skills_errors_and_page_resources() {
    let ws = Ws::new();
    skills(&ws);
    let calls = json!([
        {"name":"skill_load","arguments":{"name":"off"}},
        {"name":"skill_resource","arguments":{"name":"pdf-tools","path":"../x"}},
        {"name":"skill_resource","arguments":{"name":"pdf-tools","path":"ref/big.txt"}},
        {"name":"skill_resource","arguments":{"name":"pdf-tools","path":"ref/big.txt","offset":32000}},
        {"name":"skill_search","arguments":{"query":"pdf"}},
        {"name":"skill_load","arguments":{"name":"pdf-tools"}}
    ]);
    script(
        &ws,
        &[
            &json!({"expect":{"contains":["Available skills (load instructions with skill_load):","pdf-tools"],"tools":["read_file","list_files","search_text","context_explain","skill_load","skill_search","skill_resource","skill_run","result_read","task"]},"toolCalls":calls}).to_string(),
            r#"{"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "p", &["--trust-project"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let t = tool_results(&ws, &sid(&ev));
    assert_eq!(result_text(&t[0]), "Skill \"off\" is disabled");
    assert_eq!(result_text(&t[1]), "Path escapes the skill directory: ../x");
    let p1: Value = serde_json::from_str(&result_text(&t[2])).unwrap();
    assert_eq!(p1["nextOffset"], json!(32000));
    assert_eq!(p1["content"].as_str().unwrap().len(), 32000);
    let p2: Value = serde_json::from_str(&result_text(&t[3])).unwrap();
    assert_eq!(p2["nextOffset"], Value::Null);
    assert_eq!(p2["content"].as_str().unwrap().len(), 8000);
    let search = result_text(&t[4]);
    assert!(search.contains("pdf-tools"));
    assert!(
        !search.contains(ws.root.to_str().unwrap()),
        "no absolute path: {search}"
    );
    assert!(result_text(&t[5]).contains("# PDF"));
    assert_eq!(t[5]["isError"], json!(false));
}

#[test]
fn without_listed_skills_the_skill_tools_are_not_offered() {
    let ws = Ws::new();
    skills(&ws);
    script(
        &ws,
        &[
            r#"{"expect":{"tools":["read_file","list_files","search_text","context_explain","result_read","task"],"notContains":["Available skills"]},"text":"ok"}"#,
        ],
    );
    let (r, _) = run(&ws, "p", &[]);
    assert_eq!(
        r.code, 0,
        "untrusted: project skills are not loaded\n{}",
        r.stdout
    );
}

#[test]
fn a_skill_prompt_is_expanded_and_an_unknown_one_fails_before_the_run() {
    let ws = Ws::new();
    skills(&ws);
    script(&ws, &[r#"{"text":"ok"}"#]);
    let (r, ev) = run(
        &ws,
        "/skill:pdf-tools summarise a.pdf",
        &["--trust-project"],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let m = active(&ws, &sid(&ev));
    assert_eq!(m[0].3["skill"], "pdf-tools");
    let text = result_text(&m[0].3);
    assert!(
        text.contains("# PDF") && text.ends_with("\n\nUser request: summarise a.pdf"),
        "{text}"
    );
    let (r, _) = run(&ws, "/skill:off go", &["--trust-project"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "");
    assert_eq!(r.stderr.trim(), "error: Skill \"off\" is disabled");
}

/// spec/sessions.md §12.7: a `context: fork` skill runs in a sub-session with its allowed
/// tools; only its final answer comes back.
#[test]
fn a_forked_skill_runs_in_a_sub_session_and_returns_only_its_answer() {
    let ws = Ws::new();
    ws.file(
        ".agents/skills/audit/SKILL.md",
        "---\nname: audit\ndescription: Audit a file. Use when asked to audit.\ncontext: fork\nallowed-tools: Read Grep\n---\n# Audit\nRead the file and report its first word.\n",
    );
    ws.file("a.txt", "alpha beta");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"id":"l1","name":"skill_load","arguments":{"name":"audit"}},{"id":"k1","name":"skill_run","arguments":{"name":"audit","prompt":"audit a.txt"}}]}"#,
            r#"{"expect":{"tools":["read_file","search_text","result_read"],"contains":["Read the file and report its first word.","User request: audit a.txt"]},"toolCalls":[{"id":"c1","name":"read_file","arguments":{"path":"a.txt"}}]}"#,
            r#"{"text":"The first word is alpha."}"#,
            r#"{"expect":{"notContains":["1: alpha beta"],"contains":["The first word is alpha."]},"text":"done"}"#,
        ],
    );
    let (r, ev) = run(&ws, "audit a.txt", &["--allow", "write", "--trust-project"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let root = sid(&ev);
    let t = tool_results(&ws, &root);
    assert_eq!(
        result_text(&t[0]),
        "Skill \"audit\" runs in a sub-session (context: fork): call skill_run with its name and the request"
    );
    let out: Value = serde_json::from_str(&result_text(&t[1])).unwrap();
    assert_eq!(out["text"], json!("The first word is alpha."));
    assert_eq!(out["status"], json!("completed"));
    let child = out["sessionId"].as_str().unwrap();
    let c = db(&ws);
    let title: String = c
        .query_row("SELECT title FROM sessions WHERE id=?1", [child], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(title, "Skill audit");
}
