//! `alisio/initAgentsMd` (spec/interfaces.md §3.1): the proposal the editors show as a diff, and the
//! write that happens only for the bytes the user saw.

use serde_json::json;

use crate::common::Ws;
use crate::harness::{start, uri};

#[test]
fn the_proposal_is_shown_then_written_only_for_the_sha256_the_user_saw() {
    let ws = Ws::new();
    ws.file("Cargo.toml", "[package]\nname = \"x\"\n");
    ws.file("src/main.rs", "fn main() {}\n");
    let agents = ws.file("AGENTS.md", "# Ours\n");
    let mut lsp = start(&ws, json!({}), json!({}));
    let p = lsp
        .request("alisio/initAgentsMd", json!({"uri": uri(&ws.root)}))
        .unwrap();
    assert_eq!(p["exists"], json!(true));
    assert_eq!(p["changed"], json!(true));
    assert_eq!(p["written"], json!(false));
    assert_eq!(p["current"], "# Ours\n");
    assert_eq!(p["uri"], uri(&agents));
    let proposed = p["proposed"].as_str().unwrap();
    assert!(
        proposed.starts_with("# Ours\n\n<!-- alisio-ls init: begin"),
        "{proposed}"
    );
    assert!(
        proposed.contains("- Languages: Rust\n- Test command: `cargo test`\n"),
        "{proposed}"
    );
    assert_eq!(
        std::fs::read_to_string(&agents).unwrap(),
        "# Ours\n",
        "a preview writes nothing"
    );

    let stale = lsp.request(
        "alisio/initAgentsMd",
        json!({"uri": uri(&ws.root), "write": true, "sha256": "0".repeat(64)}),
    );
    assert_eq!(
        stale.unwrap_err()["message"],
        "AGENTS.md changed since the preview: run the command again"
    );
    let w = lsp
        .request(
            "alisio/initAgentsMd",
            json!({"uri": uri(&ws.root), "write": true, "sha256": p["sha256"]}),
        )
        .unwrap();
    assert_eq!(w["written"], json!(true));
    assert_eq!(std::fs::read_to_string(&agents).unwrap(), proposed);
    let again = lsp
        .request("alisio/initAgentsMd", json!({"uri": uri(&agents)}))
        .unwrap();
    assert_eq!(again["changed"], json!(false));
    assert_eq!(lsp.shutdown_and_exit(), 0);
}

#[test]
fn unsaved_changes_and_a_symlink_are_refused_with_a_message() {
    let ws = Ws::new();
    let agents = ws.file("AGENTS.md", "# On disk\n");
    let mut lsp = start(&ws, json!({}), json!({}));
    lsp.open(&agents, "# Edited, not saved\n");
    let e = lsp
        .request("alisio/initAgentsMd", json!({"uri": uri(&agents)}))
        .unwrap_err();
    assert_eq!(
        e["message"],
        "AGENTS.md has unsaved changes in the editor: save it first"
    );
    assert_eq!(lsp.shutdown_and_exit(), 0);

    #[cfg(unix)]
    {
        let ws = Ws::new();
        ws.file("real.md", "x\n");
        std::os::unix::fs::symlink("real.md", ws.root.join("AGENTS.md")).unwrap();
        let mut lsp = start(&ws, json!({}), json!({}));
        let e = lsp
            .request("alisio/initAgentsMd", json!({"uri": uri(&ws.root)}))
            .unwrap_err();
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .starts_with("AGENTS.md: is a symlink;"),
            "{e}"
        );
        assert_eq!(lsp.shutdown_and_exit(), 0);
    }
}
