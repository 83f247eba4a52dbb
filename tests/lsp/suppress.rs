//! Suppressions over LSP (docs/spec/suppressions.md): the published diagnostics equal `check`'s
//! after inline directives and configuration, `suppression-unused` is a faded hint, and the two
//! quick fixes write the directives.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::harness::{codes, start, uri};

const SKILL: &str = "---\nname: demo\ndescription: Builds slides. Use it for demos.\nsource: x # alisio-ignore: skill-unknown-key\nversion: 2 # alisio-ignore: skill-name-format\n---\n# Demo\n\n<!-- alisio-ignore-next-line: skill-resource-missing -->\nSee [the guide](guide.md).\nSee [the other](other.md).\n";

fn actions(lsp: &mut crate::harness::Lsp, f: &std::path::Path, d: &Value) -> Vec<Value> {
    lsp.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(f)}, "range": d["range"], "context": {"diagnostics": [d]}}),
    )
    .unwrap()
    .as_array()
    .cloned()
    .unwrap_or_default()
}

fn edit_of(actions: &[Value], title: &str, f: &std::path::Path) -> Value {
    let a = actions
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| panic!("no {title:?} in {actions:#?}"));
    a["edit"]["changes"][uri(f)][0].clone()
}

#[test]
fn published_diagnostics_pass_the_same_filter_as_check() {
    let ws = Ws::new();
    let f = ws.file(".agents/skills/demo/SKILL.md", SKILL);
    let agents = ws.file("AGENTS.md", "");
    ws.file(
        ".alisio/config.json",
        r#"{"diagnostics": {"severity": {"instructions-empty": "error"}, "ignore": [{"paths": ["**/demo/SKILL.md"], "codes": ["skill-resource-missing"]}]}}"#,
    );
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(
        codes(&diags),
        ["skill-unknown-key", "suppression-unused"],
        "the inline directives and the ignore entry apply"
    );
    let unused = &diags[1];
    assert_eq!(unused["severity"], 4);
    assert_eq!(unused["tags"], json!([1]));
    assert_eq!(
        unused["message"],
        "unused suppression: this line reports no skill-name-format"
    );
    assert_eq!(
        unused["range"],
        json!({"start": {"line": 4, "character": 28}, "end": {"line": 4, "character": 45}})
    );
    let a = lsp.diagnostics_for(&agents, |d| !d.is_empty());
    assert_eq!(codes(&a), ["instructions-empty"]);
    assert_eq!(a[0]["severity"], 1, "diagnostics.severity applies");
}

#[test]
fn quick_fixes_ignore_in_this_line_and_in_this_file() {
    let ws = Ws::new();
    let f = ws.file(".agents/skills/demo/SKILL.md", SKILL);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    lsp.open(&f, SKILL);
    let diags = lsp.diagnostics_for(&f, |d| codes(d).contains(&"skill-resource-missing".into()));
    let missing = diags
        .iter()
        .find(|d| d["code"] == "skill-resource-missing")
        .unwrap()
        .clone();
    let acts = actions(&mut lsp, &f, &missing);
    assert_eq!(
        edit_of(&acts, "Ignore skill-resource-missing in this line", &f),
        json!({"range": {"start": {"line": 10, "character": 0}, "end": {"line": 10, "character": 0}},
               "newText": "<!-- alisio-ignore-next-line: skill-resource-missing -->\n"})
    );
    assert_eq!(
        edit_of(&acts, "Ignore skill-resource-missing in this file", &f),
        json!({"range": {"start": {"line": 6, "character": 0}, "end": {"line": 6, "character": 0}},
               "newText": "<!-- alisio-ignore-file: skill-resource-missing -->\n"})
    );
    // Apply the line fix as the editor would.
    let v2 = SKILL.replace(
        "See [the other]",
        "<!-- alisio-ignore-next-line: skill-resource-missing -->\nSee [the other]",
    );
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&f), "version": 2}, "contentChanges": [{"text": v2}]}),
    );
    let p = lsp.wait_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri(&f).as_str() && p["version"] == 2
    });
    let after = p["diagnostics"].as_array().cloned().unwrap_or_default();
    assert_eq!(codes(&after), ["skill-unknown-key", "suppression-unused"]);
    // The `version` line already carries a directive: the line fix adds the code to it.
    let unknown = after[0].clone();
    let acts = actions(&mut lsp, &f, &unknown);
    assert_eq!(
        edit_of(&acts, "Ignore skill-unknown-key in this line", &f),
        json!({"range": {"start": {"line": 4, "character": 45}, "end": {"line": 4, "character": 45}},
               "newText": ", skill-unknown-key"})
    );
    // Unused suppressions get no suppression fixes of their own.
    let acts = actions(&mut lsp, &f, &after[1]);
    assert!(
        acts.iter()
            .all(|a| !a["title"].as_str().unwrap_or("").starts_with("Ignore")),
        "{acts:#?}"
    );
}
