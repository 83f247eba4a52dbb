//! Hostile workspaces through the language server over stdio: it keeps answering, publishes
//! located diagnostics, never reports content from outside the workspace, and its memory
//! stays below the size of the largest file it was handed on disk.

use std::os::unix::fs::symlink;

use serde_json::{Value, json};

use crate::common::{Ws, write};
use crate::harness::{Lsp, uri};
use crate::util::{proc_kib, rm_rf};

const MARKER: &str = "OUTSIDE-SECRET-5b2d";

#[test]
fn the_server_stays_bounded_and_inside_a_hostile_workspace() {
    let ws = Ws::new();
    let outside = ws.root.parent().unwrap().join("outside");
    write(&outside.join("AGENTS.md"), format!("# {MARKER}\n"));
    write(
        &outside.join("skills/evil/SKILL.md"),
        format!("---\nname: evil\ndescription: {MARKER}\n---\n"),
    );
    let big = ws.file("AGENTS.md", "# Big\n");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(100 * 1024 * 1024)
        .unwrap();
    std::fs::create_dir_all(ws.root.join("a")).unwrap();
    symlink(outside.join("AGENTS.md"), ws.root.join("a/AGENTS.md")).unwrap();
    symlink(&outside, ws.root.join("linked")).unwrap();
    symlink(".", ws.root.join("loop")).unwrap();
    symlink("/dev/zero", ws.root.join(".ignore")).unwrap();
    std::fs::create_dir_all(ws.root.join(".git/info")).unwrap();
    symlink("/dev/zero", ws.root.join(".git/info/exclude")).unwrap();
    ws.file(
        ".alisio/config.json",
        "{\"skills\": [\"../outside/skills\"]}",
    );
    std::fs::create_dir_all(ws.root.join(".claude/rules")).unwrap();
    symlink("..", ws.root.join(".claude/rules/up")).unwrap();
    crate::util::deep_chain(&ws.root, 3000);

    let mut cmd = ws.cmd();
    cmd.arg("serve");
    let mut lsp = Lsp::spawn(cmd);
    lsp.initialize(
        &ws.root,
        json!({"general": {"positionEncodings": ["utf-16"]}}),
        json!({"trusted": false}),
    );
    // The first pass streams the whole 100 MiB file once (slow in a debug build on a busy
    // machine): a longer wait than the harness default, still a timeout and not a measurement.
    let u = uri(&big);
    let p = lsp
        .try_wait_notification(
            "textDocument/publishDiagnostics",
            &|p| {
                p["uri"] == u.as_str()
                    && p["diagnostics"]
                        .as_array()
                        .is_some_and(|ds| ds.iter().any(|d| d["code"] == "instructions-file-cut"))
            },
            std::time::Duration::from_secs(180),
        )
        .expect("diagnostics for the 100 MiB AGENTS.md");
    let d = p["diagnostics"].as_array().cloned().unwrap_or_default();
    let cut = d
        .iter()
        .find(|d| d["code"] == "instructions-file-cut")
        .unwrap();
    assert_eq!(
        cut["range"],
        json!({"start": {"line": 1, "character": 262_138}, "end": {"line": 1, "character": 104_857_594}})
    );
    assert_eq!(
        cut["message"],
        "only the first 262144 of 104857600 bytes are read (per-file limit 262144 bytes); the rest never reaches the model"
    );
    let sym = lsp.diagnostics_for(&ws.root.join("a/AGENTS.md"), |ds| {
        ds.iter().any(|d| d["code"] == "instructions-symlink")
    });
    assert!(!Value::Array(sym).to_string().contains(MARKER));

    // Editor requests on paths through the links and the loop.
    for p in [
        "linked/x.rs",
        "loop/loop/a/AGENTS.md",
        "a/AGENTS.md",
        "AGENTS.md",
    ] {
        let u = uri(&ws.root.join(p));
        for method in [
            "textDocument/hover",
            "textDocument/codeLens",
            "textDocument/documentSymbol",
        ] {
            let r = lsp.request(
                method,
                json!({"textDocument": {"uri": u}, "position": {"line": 0, "character": 0}}),
            );
            let text = format!("{r:?}");
            assert!(!text.contains(MARKER), "{method} {p}: {text}");
        }
    }
    let explain = lsp.request(
        "alisio/contextExplain",
        json!({"uri": uri(&ws.root.join("linked/x.rs"))}),
    );
    assert!(!format!("{explain:?}").contains(MARKER), "{explain:?}");

    // The 100 MiB file was never held in memory at once.
    let hwm = proc_kib(lsp.pid(), "VmHWM:").expect("VmHWM");
    assert!(
        hwm < 100 * 1024,
        "peak resident memory {hwm} KiB reached the size of the 100 MiB file"
    );
    for n in std::mem::take(&mut lsp.notifications) {
        assert!(!n.to_string().contains(MARKER), "{n}");
    }
    assert_eq!(lsp.shutdown_and_exit(), 0);
    rm_rf(&ws.root.join("d"));
}

#[test]
fn a_client_that_floods_the_framing_guard_with_an_endless_header_is_still_answered() {
    let ws = Ws::new();
    let mut cmd = ws.cmd();
    cmd.arg("serve");
    let mut lsp = Lsp::spawn(cmd);
    lsp.initialize(&ws.root, json!({}), json!({}));
    // A header line that never ends, starting with the header's own name (the case that used
    // to spin the guard forever), then a valid request.
    let mut junk = b"Content-Length: 1".to_vec();
    junk.extend(std::iter::repeat_n(b'9', 200 * 1024));
    lsp.write_unframed(&junk);
    assert_eq!(lsp.null_id_error()["code"], -32700);
    lsp.write_unframed(b"\r\n\r\n");
    let r = lsp.request("textDocument/hover", json!({"textDocument": {"uri": uri(&ws.root.join("x.md"))}, "position": {"line": 0, "character": 0}}));
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(lsp.shutdown_and_exit(), 0);
}
