//! Review before a write and checkpoints, over the protocol (issue 26; spec/sessions.md §4.4,
//! §13): hunks accepted and rejected, an edited proposal, the model told what the user changed,
//! a stale approval refused; checkpoints listed, a rewind of files and conversation that keeps
//! the rewound branch, and a conflicting user edit reported rather than overwritten.

use std::process::Command;

use serde_json::{Value, json};

use crate::chat::{sha, start};
use crate::common::Ws;
use crate::harness::Lsp;

fn script(ws: &Ws, name: &str, lines: &[Value]) -> std::path::PathBuf {
    let mut s = String::from("{\"alisioScript\": 1}\n");
    for l in lines {
        s.push_str(&l.to_string());
        s.push('\n');
    }
    ws.file(name, s)
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"text": "Working.", "toolCalls": [{"id": id, "name": name, "arguments": arguments}]})
}

fn run(lsp: &mut Lsp, prompt: &str, s: &std::path::Path, sid: Option<&str>) -> Value {
    let mut p = json!({"prompt": prompt, "provider": {"kind": "script", "script": s}});
    if let Some(id) = sid {
        p["sessionId"] = json!(id);
    }
    let r = lsp.request("alisio/runSession", p).unwrap();
    let failed: Vec<Value> = lsp
        .notifications
        .iter()
        .filter(|n| n["params"]["event"]["type"] == "run_failed")
        .cloned()
        .collect();
    assert_eq!(r["status"], "completed", "{r} {failed:?}");
    r
}

/// The stored tool message answering `call_id`.
fn result_of(lsp: &mut Lsp, sid: &str, call_id: &str) -> Value {
    let t = lsp
        .request("alisio/sessionTranscript", json!({"sessionId": sid}))
        .unwrap();
    t["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["message"].clone())
        .find(|m| m["callId"] == call_id)
        .unwrap_or_else(|| panic!("no result for {call_id}: {t:#}"))
}

fn read(ws: &Ws, rel: &str) -> String {
    std::fs::read_to_string(ws.root.join(rel)).unwrap()
}

#[test]
fn hunks_rejected_and_an_edited_proposal_land_exactly_and_the_model_is_told_what_changed() {
    let ws = Ws::new();
    let a = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    ws.file("a.txt", a);
    ws.file("b.rs", "let x = 1;\n");
    let proposed_a = "ONE\ntwo\nthree\nfour\nfive\nSIX\nseven\n";
    let s = script(
        &ws,
        "s.jsonl",
        &[
            call(
                "w1",
                "write_file",
                json!({"path": "a.txt", "content": proposed_a, "expectedHash": sha(a.as_bytes())}),
            ),
            // The next request carries what the user changed.
            json!({"expect": {"contains": ["The user changed your proposal before approving it: a.txt", "-SIX\\n+six\\n"]},
                   "toolCalls": [{"id": "e1", "name": "edit_file", "arguments": {"path": "b.rs", "oldText": "1", "newText": "2", "expectedHash": sha(b"let x = 1;\n")}}]}),
            json!({"expect": {"contains": ["-let x = 2;\\n+let x = 3; // the user's\\n"]}, "text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    lsp.approve_replies.lock().unwrap().extend([
        json!({"decision": "allow-once", "hunks": [true, false]}),
        json!({"decision": "allow-once", "content": "let x = 3; // the user's\n"}),
    ]);
    let r = run(&mut lsp, "edit", &s, None);
    let sid = r["sessionId"].as_str().unwrap().to_string();
    // The preview offers the hunks the reply decides.
    let asked = lsp.server_requests_of("alisio/approve");
    assert_eq!(
        asked[0]["params"]["preview"]["hunks"],
        json!([{"oldStart": 0, "oldLines": 1, "newStart": 0, "newLines": 1},
               {"oldStart": 5, "oldLines": 1, "newStart": 5, "newLines": 1}])
    );
    assert_eq!(
        read(&ws, "a.txt"),
        "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n"
    );
    assert_eq!(read(&ws, "b.rs"), "let x = 3; // the user's\n");
    let w1 = result_of(&mut lsp, &sid, "w1");
    assert_eq!(w1["outcome"], "ok");
    let written = "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    assert_eq!(
        w1["content"][0]["text"],
        json!({"path": "a.txt", "sha256": sha(written.as_bytes()), "bytes": written.len(), "created": false, "userEdited": true}).to_string()
    );
    assert_eq!(
        w1["content"][1]["text"],
        format!(
            "\nThe user changed your proposal before approving it: a.txt now holds the user's version (sha256 {}), not yours. What the user changed, as a unified diff from your proposal to the written text:\n\
             --- proposed/a.txt\n+++ written/a.txt\n@@ -3,5 +3,5 @@\n three\n four\n five\n-SIX\n+six\n seven\n",
            sha(written.as_bytes())
        )
    );
    let e1 = result_of(&mut lsp, &sid, "e1");
    assert_eq!(
        e1["content"][0]["text"],
        json!({"path": "b.rs", "sha256": sha(b"let x = 3; // the user's\n"), "userEdited": true})
            .to_string()
    );
}

#[test]
fn every_hunk_of_a_new_file_rejected_writes_nothing_and_a_wrong_hunk_count_is_refused() {
    let ws = Ws::new();
    let s = script(
        &ws,
        "s.jsonl",
        &[
            call(
                "w1",
                "write_file",
                json!({"path": "new.txt", "content": "x\n", "expectedHash": null}),
            ),
            call(
                "w2",
                "write_file",
                json!({"path": "two.txt", "content": "y\n", "expectedHash": null}),
            ),
            json!({"text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    lsp.approve_replies.lock().unwrap().extend([
        json!({"decision": "allow-once", "hunks": [false]}),
        json!({"decision": "allow-once", "hunks": [true, true]}),
    ]);
    let r = run(&mut lsp, "new", &s, None);
    let sid = r["sessionId"].as_str().unwrap().to_string();
    assert!(!ws.root.join("new.txt").exists());
    let w1 = result_of(&mut lsp, &sid, "w1");
    assert_eq!(
        w1["content"][1]["text"],
        "\nThe user rejected every part of your change to new.txt; the file was not changed."
    );
    let w2 = result_of(&mut lsp, &sid, "w2");
    assert_eq!(w2["outcome"], "refused");
    assert_eq!(
        w2["content"][0]["text"],
        "Approval refused: the change has 1 hunks, the reply decides 2"
    );
    assert!(!ws.root.join("two.txt").exists());
}

#[test]
fn an_approval_of_a_file_that_changed_on_disk_meanwhile_is_refused_as_stale() {
    let ws = Ws::new();
    ws.file("a.txt", "v1\n");
    let s = script(
        &ws,
        "s.jsonl",
        &[
            call(
                "w1",
                "edit_file",
                json!({"path": "a.txt", "oldText": "v1", "newText": "v2", "expectedHash": sha(b"v1\n")}),
            ),
            json!({"expect": {"contains": ["Stale approval: a.txt changed on disk"]}, "text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    // The user (or a tool) changes the file while the approval is open.
    let a = ws.root.join("a.txt").to_string_lossy().into_owned();
    lsp.approve_replies.lock().unwrap().push_back(
        json!({"decision": "allow-once", "_write": {"path": a, "content": "v1\nmine\n"}}),
    );
    let r = run(&mut lsp, "edit", &s, None);
    let sid = r["sessionId"].as_str().unwrap().to_string();
    let w1 = result_of(&mut lsp, &sid, "w1");
    assert_eq!(w1["outcome"], "refused");
    assert_eq!(w1["isError"], true);
    assert_eq!(
        w1["content"][0]["text"],
        "Stale approval: a.txt changed on disk while the change was under review; nothing was written. Read the file again and propose the change again."
    );
    assert_eq!(read(&ws, "a.txt"), "v1\nmine\n");
}

fn git(ws: &Ws, args: &[&str]) -> bool {
    Command::new("git")
        .args(args)
        .current_dir(&ws.root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A workspace that is a real git repository with one tracked file committed and build output
/// ignored, or `None` (printed) when git is missing.
fn repo() -> Option<Ws> {
    let ws = Ws::new();
    std::fs::remove_dir_all(ws.root.join(".git")).unwrap();
    ws.file(".gitignore", "build/\n*.jsonl\n");
    ws.file("tracked.txt", "tracked v1\n");
    ws.file("e.txt", "edit me\n");
    if !(git(&ws, &["init", "-q"]) && git(&ws, &["add", "."]) && git(&ws, &["commit", "-qm", "x"]))
    {
        eprintln!("skipped: git is not available");
        return None;
    }
    Some(ws)
}

#[test]
fn a_rewind_restores_files_of_writes_edits_and_shell_and_the_conversation_and_continues() {
    let Some(ws) = repo() else { return };
    let s1 = script(
        &ws,
        "s1.jsonl",
        &[
            call(
                "w1",
                "write_file",
                json!({"path": "w.txt", "content": "new\n", "expectedHash": null}),
            ),
            call(
                "e1",
                "edit_file",
                json!({"path": "e.txt", "oldText": "edit me", "newText": "edited", "expectedHash": sha(b"edit me\n")}),
            ),
            call(
                "p1",
                "shell",
                json!({"command": "echo tracked v2 > tracked.txt && echo u > untracked.txt && mkdir -p build && echo o > build/out.txt"}),
            ),
            json!({"text": "Done."}),
        ],
    );
    let s2 = script(&ws, "s2.jsonl", &[json!({"text": "Second."})]);
    let mut lsp = start(&ws);
    *lsp.approve_decision.lock().unwrap() = "allow-once".into();
    let r1 = run(&mut lsp, "alpha prompt", &s1, None);
    let sid = r1["sessionId"].as_str().unwrap().to_string();
    assert_eq!(read(&ws, "tracked.txt"), "tracked v2\n");
    run(&mut lsp, "beta prompt", &s2, Some(&sid));
    let cps = lsp
        .request("alisio/checkpoints", json!({"sessionId": sid}))
        .unwrap();
    let summary: Vec<(i64, String, bool, bool)> = cps
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["checkpoint"].as_i64().unwrap(),
                c["prompt"].as_str().unwrap().to_string(),
                c["files"].as_bool().unwrap(),
                c["active"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (1, "alpha prompt".into(), true, true),
            (2, "beta prompt".into(), true, true)
        ]
    );
    let rw = lsp
        .request("alisio/rewind", json!({"sessionId": sid, "checkpoint": 1}))
        .unwrap();
    assert_eq!(rw["rewound"], true, "{rw:#}");
    assert_eq!(rw["prompt"], "alpha prompt");
    assert_eq!(
        rw["files"],
        json!([
            {"path": "e.txt", "action": "restore", "conflict": false},
            {"path": "tracked.txt", "action": "restore", "conflict": false},
            {"path": "untracked.txt", "action": "delete", "conflict": false},
            {"path": "w.txt", "action": "delete", "conflict": false},
        ])
    );
    assert_eq!(rw["conflicts"], json!([]));
    assert_eq!(rw["messages"], json!({"removed": 10, "restored": 0}));
    assert_eq!(read(&ws, "tracked.txt"), "tracked v1\n");
    assert_eq!(read(&ws, "e.txt"), "edit me\n");
    assert!(!ws.root.join("w.txt").exists());
    assert!(!ws.root.join("untracked.txt").exists());
    // Ignored build output is outside the snapshots: left alone.
    assert_eq!(read(&ws, "build/out.txt"), "o\n");
    // The rewound branch is kept in the store, out of the active transcript.
    let t = lsp
        .request("alisio/sessionTranscript", json!({"sessionId": sid}))
        .unwrap();
    let msgs = t["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 10);
    assert!(msgs.iter().all(|m| m["compacted"] == true), "{t:#}");
    // The session continues from the checkpoint: the next request holds only the new prompt.
    let s3 = script(
        &ws,
        "s3.jsonl",
        &[
            json!({"expect": {"notContains": ["alpha prompt", "beta prompt"], "contains": ["gamma prompt"]}, "text": "Third."}),
        ],
    );
    run(&mut lsp, "gamma prompt", &s3, Some(&sid));
    let list = lsp.request("alisio/listSessions", json!({})).unwrap();
    assert_eq!(list[0]["messages"], 2);
    let cps = lsp
        .request("alisio/checkpoints", json!({"sessionId": sid}))
        .unwrap();
    let active: Vec<bool> = cps
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["active"].as_bool().unwrap())
        .collect();
    assert_eq!(active, [false, false, true]);
}

#[test]
fn a_file_the_user_changed_after_the_checkpoint_is_reported_and_never_overwritten() {
    let ws = Ws::new();
    let s = script(
        &ws,
        "s.jsonl",
        &[
            call(
                "w1",
                "write_file",
                json!({"path": "a.txt", "content": "session\n", "expectedHash": null}),
            ),
            call(
                "w2",
                "write_file",
                json!({"path": "b.txt", "content": "session\n", "expectedHash": null}),
            ),
            json!({"text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    *lsp.approve_decision.lock().unwrap() = "allow-once".into();
    let r = run(&mut lsp, "write", &s, None);
    let sid = r["sessionId"].as_str().unwrap().to_string();
    // The user edits one of the session's files afterwards.
    ws.file("a.txt", "the user's\n");
    let asked = lsp
        .request("alisio/rewind", json!({"sessionId": sid, "checkpoint": 1}))
        .unwrap();
    assert_eq!(asked["rewound"], false);
    assert_eq!(asked["conflicts"], json!(["a.txt"]));
    assert_eq!(
        asked["files"],
        json!([{"path": "a.txt", "action": "delete", "conflict": true},
               {"path": "b.txt", "action": "delete", "conflict": false}])
    );
    // Nothing changed: the rewind asked.
    assert_eq!(read(&ws, "a.txt"), "the user's\n");
    assert_eq!(read(&ws, "b.txt"), "session\n");
    let t = lsp
        .request("alisio/sessionTranscript", json!({"sessionId": sid}))
        .unwrap();
    assert!(
        t["messages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["compacted"] == false)
    );
    // Keep the user's file, rewind the rest.
    let kept = lsp
        .request(
            "alisio/rewind",
            json!({"sessionId": sid, "checkpoint": 1, "resolve": "keep"}),
        )
        .unwrap();
    assert_eq!(kept["rewound"], true);
    assert_eq!(kept["kept"], json!(["a.txt"]));
    assert_eq!(read(&ws, "a.txt"), "the user's\n");
    assert!(!ws.root.join("b.txt").exists());
    let e = lsp
        .request("alisio/rewind", json!({"sessionId": sid, "checkpoint": 9}))
        .unwrap_err();
    assert_eq!(e["code"], -32602);
    assert_eq!(
        e["message"],
        format!("Checkpoint 9 not found in session {sid}")
    );
}

#[test]
fn the_sessions_changes_are_undone_per_hunk_and_per_file_and_a_users_later_edit_is_never_overwritten()
 {
    let ws = Ws::new();
    let a = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    ws.file("a.txt", a);
    ws.file("s.txt", "shell v1\n");
    let s = script(
        &ws,
        "s.jsonl",
        &[
            call(
                "w1",
                "write_file",
                json!({"path": "a.txt", "content": "ONE\ntwo\nthree\nfour\nfive\nSIX\nseven\n", "expectedHash": sha(a.as_bytes())}),
            ),
            call(
                "w2",
                "write_file",
                json!({"path": "n.txt", "content": "new\n", "expectedHash": null}),
            ),
            call("p1", "shell", json!({"command": "echo shell v2 > s.txt"})),
            json!({"text": "Done."}),
        ],
    );
    let mut lsp = start(&ws);
    *lsp.approve_decision.lock().unwrap() = "allow-once".into();
    let r = run(&mut lsp, "change", &s, None);
    let sid = r["sessionId"].as_str().unwrap().to_string();
    let changes = |lsp: &mut Lsp| {
        lsp.request("alisio/sessionChanges", json!({"sessionId": sid}))
            .unwrap()
    };
    let c = changes(&mut lsp);
    let rows: Vec<(&str, &str, usize, bool)> = c
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap(),
                c["status"].as_str().unwrap(),
                c["hunks"].as_array().unwrap().len(),
                c["userChanged"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("a.txt", "modified", 2, false),
            ("n.txt", "added", 1, false),
            ("s.txt", "modified", 1, false)
        ]
    );
    assert_eq!(c[0]["before"], a);
    assert_eq!(c[2]["before"], "shell v1\n");
    assert_eq!(c[2]["after"], "shell v2\n");
    // Undo the second hunk of a.txt only.
    let u = lsp
        .request(
            "alisio/undoChange",
            json!({"sessionId": sid, "path": "a.txt", "hunks": [false, true]}),
        )
        .unwrap();
    assert_eq!(
        read(&ws, "a.txt"),
        "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n"
    );
    assert_eq!(
        u["change"]["hunks"],
        json!([{"oldStart": 0, "oldLines": 1, "newStart": 0, "newLines": 1}])
    );
    // Undo a whole new file: it is gone, and so is its change.
    let u = lsp
        .request(
            "alisio/undoChange",
            json!({"sessionId": sid, "path": "n.txt"}),
        )
        .unwrap();
    assert_eq!(u["change"], Value::Null);
    assert!(!ws.root.join("n.txt").exists());
    // The user edits the shell's file afterwards: Undo is refused, the file untouched.
    ws.file("s.txt", "the user's\n");
    let c = changes(&mut lsp);
    assert_eq!(c[1]["path"], "s.txt");
    assert_eq!(c[1]["userChanged"], true);
    let e = lsp
        .request(
            "alisio/undoChange",
            json!({"sessionId": sid, "path": "s.txt"}),
        )
        .unwrap_err();
    assert_eq!(e["code"], -32803);
    assert_eq!(
        e["message"],
        "Undo refused: s.txt was changed again after the session changed it; undoing would overwrite those changes"
    );
    assert_eq!(read(&ws, "s.txt"), "the user's\n");
    // Keep a.txt: it leaves the list; the file is as it is.
    let k = lsp
        .request(
            "alisio/keepChanges",
            json!({"sessionId": sid, "paths": ["a.txt"]}),
        )
        .unwrap();
    assert_eq!(k["kept"], json!(["a.txt"]));
    let left: Vec<Value> = changes(&mut lsp)
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].clone())
        .collect();
    assert_eq!(left, [json!("s.txt")]);
    assert_eq!(
        read(&ws, "a.txt"),
        "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n"
    );
    let e = lsp
        .request(
            "alisio/undoChange",
            json!({"sessionId": sid, "path": "nope.txt"}),
        )
        .unwrap_err();
    assert_eq!(
        (e["code"].clone(), e["message"].clone()),
        (
            json!(-32602),
            json!("Not a change of this session: nope.txt")
        )
    );
}
