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
    crate::common::grow_sparse(&big, 100 * 1024 * 1024);
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

    let mut lsp = crate::harness::start(
        &ws,
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
    let mut lsp = crate::harness::start(&ws, json!({}), json!({}));
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

/// A document of exactly `size` bytes: a skill-like frontmatter, a heading, then plain lines.
fn big_doc(title: &str, size: usize) -> String {
    let mut s = format!("---\nname: {title}\ndescription: d\n---\n# {title}\n");
    let line =
        "Plain instruction text that an agent would read, padded to a typical line length.\n";
    while s.len() + line.len() <= size {
        s.push_str(line);
    }
    s.push_str(&"x".repeat(size - s.len()));
    s
}

/// Issue 8: the server's memory stays bounded when a client opens hundreds of large files.
/// 300 documents of 1 MiB (instruction files, skills and plain notes) are opened, replaced
/// whole, edited incrementally, replaced again and closed. Bounds (docs/security.md): resident
/// memory after opening below 1.5 times the open text plus 64 MiB, peak below 3 times plus
/// 96 MiB, no growth from one round of edits to the next, and every result still correct (the
/// diagnostics name each round's sizes).
#[test]
fn hundreds_of_large_open_documents_keep_memory_proportional_to_their_text() {
    const PER_KIND: usize = 100;
    const SIZE: usize = 1 << 20;
    let ws = Ws::new();
    let mut paths = Vec::new();
    for i in 0..PER_KIND {
        paths.push(ws.file(&format!("d{i}/AGENTS.md"), "# small\n"));
        paths.push(ws.file(
            &format!("skills/s{i}/SKILL.md"),
            format!("---\nname: s{i}\ndescription: d\n---\n"),
        ));
        paths.push(ws.file(&format!("notes/n{i}.md"), "note\n"));
    }
    ws.file(".alisio/config.json", r#"{"skills": ["skills"]}"#);
    let mut lsp = crate::harness::start(
        &ws,
        json!({"general": {"positionEncodings": ["utf-16"]}}),
        json!({"trusted": true}),
    );
    let last_agents = paths[3 * (PER_KIND - 1)].clone();
    let last_skill = paths[3 * (PER_KIND - 1) + 1].clone();
    // A pass over 300 MiB of buffers takes seconds in a debug build on a busy machine: a long
    // hang guard, not a measurement.
    let wait_for = |lsp: &mut Lsp, path: &std::path::Path, pred: &dyn Fn(&[Value]) -> bool| {
        let u = uri(path);
        lsp.try_wait_notification(
            "textDocument/publishDiagnostics",
            &|p| p["uri"] == u.as_str() && p["diagnostics"].as_array().is_some_and(|ds| pred(ds)),
            std::time::Duration::from_secs(300),
        )
        .unwrap_or_else(|| panic!("no matching diagnostics for {}", path.display()));
    };
    let wait_round = |lsp: &mut Lsp, size: usize| {
        let cut = format!(
            "only the first 262144 of {size} bytes are read (per-file limit 262144 bytes); the rest never reaches the model"
        );
        wait_for(lsp, &last_agents, &|ds| {
            ds.iter().any(|d| d["message"] == cut.as_str())
        });
        let big = format!("SKILL.md is {size} bytes;");
        wait_for(lsp, &last_skill, &|ds| {
            ds.iter().any(|d| {
                d["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with(big.as_str()))
            })
        });
    };
    let rss = |lsp: &Lsp| proc_kib(lsp.pid(), "VmRSS:").expect("VmRSS");
    let base = rss(&lsp);
    let replace_all = |lsp: &mut Lsp, version: i32, size: usize| {
        for (i, p) in paths.iter().enumerate() {
            let text = big_doc(&format!("s{}", i / 3), size);
            lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": uri(p), "version": version}, "contentChanges": [{"text": text}]}));
        }
    };

    // Round 1: open everything.
    for (i, p) in paths.iter().enumerate() {
        let text = big_doc(&format!("s{}", i / 3), SIZE);
        lsp.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri(p), "languageId": "markdown", "version": 1, "text": text}}));
    }
    wait_round(&mut lsp, SIZE);
    let open_kib = (3 * PER_KIND * SIZE / 1024) as u64;
    let after_open = rss(&lsp);

    // Round 2: every document replaced whole by one a byte longer.
    replace_all(&mut lsp, 2, SIZE + 1);
    wait_round(&mut lsp, SIZE + 1);
    let after_replace = rss(&lsp);

    // Round 3: an incremental edit in the middle of every document (two more bytes).
    for p in &paths {
        let edit = json!([{"range": {"start": {"line": 100, "character": 0}, "end": {"line": 100, "character": 0}}, "text": "!\n"}]);
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(p), "version": 3}, "contentChanges": edit}),
        );
    }
    wait_round(&mut lsp, SIZE + 3);
    let after_edit = rss(&lsp);

    // Round 4: replaced whole again; what round 2 freed is reused, not added to.
    replace_all(&mut lsp, 4, SIZE + 4);
    wait_round(&mut lsp, SIZE + 4);
    let after_again = rss(&lsp);
    let hwm = proc_kib(lsp.pid(), "VmHWM:").expect("VmHWM");

    // Closed, the files on disk are judged again.
    for p in &paths {
        lsp.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri(p)}}),
        );
    }
    wait_for(&mut lsp, &last_agents, &|ds| {
        !ds.iter().any(|d| d["code"] == "instructions-file-cut")
    });
    let after_close = rss(&lsp);
    if std::env::var_os("ALISIO_MEMORY_REPORT").is_some() {
        let mib = |k: u64| k as f64 / 1024.0;
        eprintln!(
            "open text {:.0} MiB; VmRSS base {:.1}, opened {:.1}, replaced {:.1}, edited {:.1}, replaced again {:.1}, closed {:.1} MiB; VmHWM {:.1} MiB",
            mib(open_kib),
            mib(base),
            mib(after_open),
            mib(after_replace),
            mib(after_edit),
            mib(after_again),
            mib(after_close),
            mib(hwm)
        );
    }
    // The ropes are the only copy of the text (about 1.1 times its size); a whole replacement
    // briefly holds the old rope and the new one, and the allocator keeps what was freed for
    // reuse (resident memory does not drop on close; it is reused).
    assert!(
        after_open < open_kib * 3 / 2 + 64 * 1024,
        "{after_open} KiB resident for {open_kib} KiB of open text"
    );
    assert!(
        hwm < open_kib * 3 + 96 * 1024,
        "peak {hwm} KiB for {open_kib} KiB of open text"
    );
    assert!(
        after_edit < after_replace + open_kib / 10,
        "memory grew from {after_replace} to {after_edit} KiB with small edits"
    );
    assert!(
        after_again < after_replace + open_kib / 10,
        "memory grew from {after_replace} to {after_again} KiB between two whole replacements"
    );
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

/// spec/skills.md §2.8 and §4.4: a link that leaves the skill directory, lexically or through a
/// symlink, is "outside": no diagnostic, no size, no definition; nothing of the outside file
/// (content, size, existence) reaches the editor or `check`.
#[test]
fn skill_links_that_leave_the_skill_reveal_nothing_of_their_targets() {
    let ws = Ws::new();
    let outside = ws.root.parent().unwrap().join("outside");
    // A size nobody would guess, to spot it in any output.
    write(
        &outside.join("secret.md"),
        format!("{MARKER}{}", "s".repeat(48_611)),
    );
    std::fs::create_dir_all(outside.join("docs")).unwrap();
    write(&outside.join("docs/inner.md"), MARKER);
    let dir = ws.root.join(".agents/skills/x");
    std::fs::create_dir_all(dir.join("references")).unwrap();
    symlink(outside.join("secret.md"), dir.join("references/leak.md")).unwrap();
    symlink(outside.join("docs"), dir.join("linked")).unwrap();
    symlink(
        dir.join("references/gone.md"),
        dir.join("references/dangling.md"),
    )
    .unwrap();
    // Dangling links: one to an outside path that does not exist, one to a missing file inside.
    // Both are outside (fail closed), or "missing" against "outside" would tell whether an
    // outside path exists.
    symlink(
        outside.join("absent.md"),
        dir.join("references/gone-outside.md"),
    )
    .unwrap();
    let body = "[a](references/leak.md)\n[b](linked/inner.md)\n[c](linked/missing.md)\n[d](../../../../outside/secret.md)\n[e](%2e%2e/%2e%2e/%2e%2e/%2e%2e/outside/secret.md)\n[f](/etc/passwd)\n[g](references/dangling.md)\n[h](references/gone-outside.md)\n";
    let skill = write(
        &dir.join("SKILL.md"),
        format!("---\nname: x\ndescription: d\n---\n{body}"),
    );

    // check: no resource diagnostic for any of them (outside links are not checked), and
    // nothing of the outside in the output.
    let r = ws.run(&["check", "--json"]);
    let codes: Vec<String> = r.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !codes
            .iter()
            .any(|c| c.starts_with("skill-resource") || c == "skill-reference-depth"),
        "{codes:?}"
    );
    let size = (MARKER.len() + 48_611).to_string();
    assert!(
        !r.stdout.contains(MARKER) && !r.stdout.contains(&size),
        "{}",
        r.stdout
    );

    let mut lsp = crate::harness::start(
        &ws,
        json!({"general": {"positionEncodings": ["utf-16"]}}),
        json!({"trusted": true}),
    );
    let text = std::fs::read_to_string(&skill).unwrap();
    lsp.open(&skill, &text);
    // The skill's own diagnostics arrive (no resource code among them) before anything is
    // checked for leaks.
    let ds = lsp.diagnostics_for(&skill, |_| true);
    assert!(
        !ds.iter().any(|d| d["code"]
            .as_str()
            .is_some_and(|c| c.starts_with("skill-resource"))),
        "{ds:?}"
    );
    for line in 4..12 {
        let at = json!({"textDocument": {"uri": uri(&skill)}, "position": {"line": line, "character": 6}});
        let h = lsp.request("textDocument/hover", at.clone()).unwrap();
        if line == 9 {
            // `/etc/passwd` starts with `/`: not a resource link at all (spec/skills.md §2.8), no hover.
            assert_eq!(h, Value::Null);
        } else {
            assert_eq!(
                h["contents"]["value"], "outside the skill directory: skill_resource refuses it",
                "line {line}: {h}"
            );
        }
        let def = lsp.request("textDocument/definition", at).unwrap();
        assert_eq!(def, Value::Null, "line {line}");
    }
    for n in std::mem::take(&mut lsp.notifications) {
        let t = n.to_string();
        assert!(!t.contains(MARKER) && !t.contains(&size), "{t}");
    }
    assert_eq!(lsp.shutdown_and_exit(), 0);
}
