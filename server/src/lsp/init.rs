//! `alisio/initAgentsMd` (spec/interfaces.md §3.1): the editors' "Create or update AGENTS.md". A
//! request without `write` returns the proposal (the editor shows it as a diff); with `write`
//! and the `sha256` of the proposal the user saw, the server recomputes it and writes it
//! atomically only when it is still the same bytes and the file has not changed on disk.
//! The template and the rules are `instructions::init`; this adapts them to the protocol.

use std::path::Path;

use super::state::Snapshot;
use alisio_base::workspace::DiskFs;
use alisio_rules::instructions::init;
use alisio_session::util::sha256_hex;

/// Parameters of `alisio/initAgentsMd`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitParams {
    /// A file or folder of the workspace whose root AGENTS.md is meant.
    pub uri: tower_lsp_server::ls_types::Uri,
    /// Write the proposal (needs `sha256`).
    #[serde(default)]
    pub write: bool,
    /// The `sha256` of the proposal the user accepted.
    #[serde(default)]
    pub sha256: Option<String>,
}

/// The result of `alisio/initAgentsMd`: the proposal, and whether it was written.
#[derive(Debug, serde::Serialize)]
pub struct InitProposal {
    /// The root AGENTS.md (a `file:` URI).
    pub uri: String,
    pub exists: bool,
    /// The file's text now (`null` when it does not exist).
    pub current: Option<String>,
    pub proposed: String,
    /// The SHA-256 of `proposed`, to send back with `write`.
    pub sha256: String,
    pub changed: bool,
    pub written: bool,
}

/// The proposal, or the write; `Err` is the message for the user.
pub fn init_agents_md(snap: &Snapshot, at: &Path, p: &InitParams) -> Result<InitProposal, String> {
    let folder = super::analysis::folder_result(snap, at);
    let root = &folder.config.root;
    let prop = init::propose(&DiskFs, root, folder.config.settings.max_bytes)
        .map_err(|r| format!("AGENTS.md: {}", r.message()))?;
    if let Some(open) = snap.buffers.get(&prop.path) {
        let text = alisio_base::workspace::buffer_prefix(open.as_ref(), u64::MAX);
        if prop.current.as_deref() != Some(text.as_slice()) {
            return Err("AGENTS.md has unsaved changes in the editor: save it first".into());
        }
    }
    let sha = sha256_hex(&prop.proposed);
    let mut written = false;
    if p.write && prop.changed() {
        if p.sha256.as_deref() != Some(sha.as_str()) {
            return Err("AGENTS.md changed since the preview: run the command again".into());
        }
        alisio_base::workspace::write::replace_bytes(
            &prop.path,
            "AGENTS.md",
            &prop.proposed,
            prop.current.as_deref(),
            || {},
        )
        .map_err(|e| e.to_string())?;
        written = true;
    }
    let uri = tower_lsp_server::ls_types::Uri::from_file_path(&prop.path)
        .map(|u| u.as_str().to_owned())
        .unwrap_or_default();
    Ok(InitProposal {
        uri,
        exists: prop.current.is_some(),
        current: prop
            .current
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned()),
        proposed: String::from_utf8_lossy(&prop.proposed).into_owned(),
        sha256: sha,
        changed: prop.changed(),
        written,
    })
}
