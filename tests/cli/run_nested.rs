//! Nested instruction files attached lazily in sessions (spec/sessions.md §2.7; spec/sessions.md §11 cases 21–23).

use serde_json::json;

use crate::common::Ws;
use crate::sess::*;

const ATTACH: &str = "<instructions>\nInstructions from: pkg/AGENTS.md\npkg rules\n</instructions>";

// 21
#[test]
fn a_read_below_a_nested_file_gets_it_once() {
    let ws = Ws::new();
    ws.file("AGENTS.md", "root rules");
    ws.file("pkg/AGENTS.md", "pkg rules");
    ws.file("pkg/a.txt", "a");
    ws.file("pkg/b.txt", "b");
    script(
        &ws,
        &[
            r#"{"expect":{"contains":["Source: AGENTS.md\\nroot rules"],"notContains":["pkg rules"]},"toolCalls":[{"name":"read_file","arguments":{"path":"pkg/a.txt"}},{"name":"read_file","arguments":{"path":"pkg/b.txt"}}]}"#,
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"pkg/b.txt"}}]}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "p", &[]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let t = tool_results(&ws, &sid(&ev));
    let parts = t[0]["content"].as_array().unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[1]["text"], format!("\n{ATTACH}"));
    assert_eq!(t[1]["content"].as_array().unwrap().len(), 1);
    assert_eq!(t[2]["content"].as_array().unwrap().len(), 1);
    let o: serde_json::Value = serde_json::from_str(
        &db(&ws)
            .query_row("SELECT options FROM sessions", [], |r| {
                r.get::<_, String>(0)
            })
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        o["attachedInstructions"][0]["path"],
        json!(ws.root.join("pkg/AGENTS.md").to_string_lossy())
    );
}

// 22
#[test]
fn a_write_in_the_attaching_turn_is_refused_without_asking() {
    let ws = Ws::new();
    ws.file("pkg/AGENTS.md", "pkg rules");
    ws.file("pkg/a.txt", "a");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"write_file","arguments":{"path":"pkg/b.txt","content":"x","expectedHash":null}},{"name":"read_file","arguments":{"path":"pkg/a.txt"}}]}"#,
            // The file reaches the model in the results; it joins the section only at the
            // next compaction (spec/instructions.md §2.8 step 7).
            r#"{"expect":{"contains":["Instructions from: pkg/AGENTS.md\\npkg rules"],"notContains":["Source: pkg/AGENTS.md"]},"text":"ok"}"#,
        ],
    );
    let (r, ev) = run(&ws, "p", &["--allow", "write"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let t = tool_results(&ws, &sid(&ev));
    assert_eq!(
        result_text(&t[0]),
        format!("Context changed; reconsider this call before retrying.\n{ATTACH}")
    );
    assert_eq!(t[0]["outcome"], "refused");
    assert!(of_type(&ev, "approval_requested").is_empty());
    assert!(!ws.root.join("pkg/b.txt").exists());
    assert!(result_text(&t[1]).ends_with(ATTACH));
}

// 23
#[test]
fn an_edited_nested_file_is_attached_again_and_a_resume_keeps_it() {
    let ws = Ws::new();
    ws.file("pkg/AGENTS.md", "pkg rules");
    ws.file("pkg/a.txt", "a");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"read_file","arguments":{"path":"pkg/a.txt"}}]}"#,
            r#"{"text":"ok"}"#,
        ],
    );
    let (_, ev) = run(&ws, "p", &[]);
    let id = sid(&ev);
    script(
        &ws,
        &[
            r#"{"expect":{"contains":["Instructions from: pkg/AGENTS.md\\npkg rules"],"notContains":["Source: pkg/AGENTS.md"]},"text":"ok"}"#,
        ],
    );
    let (r, _) = run(&ws, "again", &["--session", &id]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    ws.file("pkg/AGENTS.md", "new pkg rules");
    script(
        &ws,
        &[
            r#"{"toolCalls":[{"name":"list_files","arguments":{"path":"pkg"}}]}"#,
            r#"{"expect":{"contains":["new pkg rules"]},"text":"ok"}"#,
        ],
    );
    let (r, _) = run(&ws, "third", &["--session", &id]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let t = tool_results(&ws, &id);
    assert!(result_text(t.last().unwrap()).ends_with(
        "<instructions>\nInstructions from: pkg/AGENTS.md\nnew pkg rules\n</instructions>"
    ));
}
