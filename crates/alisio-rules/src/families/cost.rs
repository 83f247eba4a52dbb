//! The `startup` object of `context explain --json` and `alisio/contextExplain`
//! (spec/interfaces.md §1.1): what a host sends at startup for its agents, commands and MCP
//! servers, per family, with the bytes and tokens. One typed shape for the CLI and the
//! language server.

use std::path::Path;

use serde::Serialize;

use alisio_base::config::Host;

use super::{Family, FamilyEntry, Startup};

/// The startup cost of one host from one vantage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartupObject {
    pub host: Host,
    /// `agents`, `commands`, `mcp`, always all three, in that order.
    pub families: Vec<FamilyCost>,
    pub bytes: u64,
    /// `ceil(bytes / 4)`.
    pub tokens: u64,
}

/// One family's entries and what they cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyCost {
    /// `agents`, `commands` or `mcp`.
    pub family: &'static str,
    /// Where the host sends the entries (`agent listing`, `skill listing`, `MCP servers`).
    pub channel: &'static str,
    pub entries: Vec<EntryCost>,
    pub not_loaded: Vec<NotLoadedFile>,
    pub bytes: u64,
    pub tokens: u64,
}

/// One agent, command or MCP server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryCost {
    pub name: String,
    pub file: String,
    /// `user` or `project`.
    pub scope: &'static str,
    pub description: String,
    /// An agent's tools summary, a server's transport.
    pub detail: String,
    /// The line the host sends; `null` for an MCP server.
    pub text: Option<String>,
    pub loaded: bool,
    pub shadowed_by: Option<String>,
    /// Why the host loads the entry but sends the model nothing for it (`null`: it is sent, or
    /// not loaded at all).
    pub hidden: Option<String>,
    /// What is sent (0 when not loaded).
    pub bytes: u64,
}

/// A file the host finds but does not load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotLoadedFile {
    pub file: String,
    pub reason: String,
}

impl StartupObject {
    /// The object for `s`, paths shown with `show` (workspace-relative inside the workspace).
    #[must_use]
    pub fn new(host: Host, s: &Startup, show: &dyn Fn(&Path) -> String) -> Self {
        let families = [Family::Agent, Family::Command, Family::Mcp]
            .iter()
            .map(|&f| {
                let bytes: u64 = s.of(f).map(FamilyEntry::bytes).sum();
                FamilyCost {
                    family: f.as_str(),
                    channel: f.channel(host),
                    entries: s
                        .of(f)
                        .map(|e| EntryCost {
                            name: e.name.clone(),
                            file: show(&e.file),
                            scope: e.scope.as_str(),
                            description: e.description.clone(),
                            detail: e.detail.clone(),
                            text: e.text.clone(),
                            loaded: e.loaded(),
                            shadowed_by: e.shadowed_by.as_deref().map(show),
                            hidden: e.hidden.clone(),
                            bytes: e.bytes(),
                        })
                        .collect(),
                    not_loaded: s
                        .not_loaded
                        .iter()
                        .filter(|n| n.family == f)
                        .map(|n| NotLoadedFile {
                            file: show(&n.file),
                            reason: n.reason.clone(),
                        })
                        .collect(),
                    bytes,
                    tokens: bytes.div_ceil(4),
                }
            })
            .collect();
        let bytes: u64 = s.entries.iter().map(FamilyEntry::bytes).sum();
        Self {
            host,
            families,
            bytes,
            tokens: bytes.div_ceil(4),
        }
    }
}
