//! No file is missed at start (issue 14): a file created, changed or deleted at any moment after
//! `initialize` ends up with correct diagnostics, on a tree large enough that arming the
//! server-side watcher and the first pass take a while. No timed assertions: each publication is
//! awaited with a generous timeout.

use std::time::Duration;

use serde_json::json;

use crate::common::Ws;
use crate::harness::{Lsp, codes, uri};

const WAIT: Duration = Duration::from_secs(300);

fn big_tree(ws: &Ws, skills: usize) {
    for r in 0..skills / 20 {
        for k in 0..20 {
            let name = format!("r{r}-s{k}");
            ws.file(
                &format!("repos/r{r}/.agents/skills/{name}/SKILL.md"),
                format!("---\nname: {name}\ndescription: Skill {name}. Use it for {name}.\n---\n# {name}\n"),
            );
            ws.file(
                &format!("repos/r{r}/.agents/skills/{name}/references/a.md"),
                "# a\n",
            );
        }
        ws.file(&format!("repos/r{r}/AGENTS.md"), "# Repo\n\nRules.\n");
    }
}

fn published(
    lsp: &mut Lsp,
    path: &std::path::Path,
    pred: &dyn Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let u = uri(path);
    let p = lsp
        .try_wait_notification(
            "textDocument/publishDiagnostics",
            &|p| {
                p["uri"] == u.as_str()
                    && pred(p["diagnostics"].as_array().map_or(&[][..], Vec::as_slice))
            },
            WAIT,
        )
        .unwrap_or_else(|| {
            panic!(
                "no matching diagnostics for {} within {WAIT:?}",
                path.display()
            )
        });
    p["diagnostics"].as_array().cloned().unwrap_or_default()
}

#[test]
fn files_created_changed_and_deleted_right_after_initialized_get_correct_diagnostics() {
    let ws = Ws::new();
    big_tree(&ws, 3000);
    let mut cmd = ws.cmd();
    cmd.arg("serve");
    let mut lsp = Lsp::spawn(cmd);
    // No dynamic watching offered: the server watches the disk itself.
    lsp.initialize(&ws.root, json!({}), json!({"trusted": true}));
    // At once, while the watcher is being armed and the first pass runs.
    let bad = ws.file(
        "repos/r7/.agents/skills/fresh/SKILL.md",
        "---\nname: Fresh--Bad\ndescription: New.\n---\n",
    );
    let changed = ws.root.join("repos/r3/.agents/skills/r3-s1/SKILL.md");
    std::fs::write(&changed, "---\nname: r3-s1\n---\n").unwrap();
    let d = published(&mut lsp, &bad, &|d| !d.is_empty());
    assert!(
        codes(&d).contains(&"skill-name-format".to_string()),
        "{d:#?}"
    );
    let d = published(&mut lsp, &changed, &|d| !d.is_empty());
    assert_eq!(codes(&d), ["skill-description-missing"]);
    // Later changes are seen as well: fix one, break another, delete the bad one.
    std::fs::write(
        &changed,
        "---\nname: r3-s1\ndescription: Fixed. Use it.\n---\n",
    )
    .unwrap();
    let empty = ws.file("repos/r4/AGENTS.md", "");
    std::fs::remove_file(&bad).unwrap();
    published(&mut lsp, &changed, &|d| d.is_empty());
    published(&mut lsp, &bad, &|d| d.is_empty());
    let d = published(&mut lsp, &empty, &|d| !d.is_empty());
    assert_eq!(codes(&d), ["instructions-empty"]);
}
