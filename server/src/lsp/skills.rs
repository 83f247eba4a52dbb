//! Skill features of the editor (skills.md §6): lenses, hovers and quick fixes for SKILL.md.
//! Filled in when the skills module lands; until then SKILL.md files get no lens or hover.

use std::path::Path;

use tower_lsp_server::ls_types::*;

use super::analysis::FolderResult;
use super::state::Snapshot;

pub fn code_lenses(_snap: &Snapshot, _r: &FolderResult, _path: &Path) -> Vec<CodeLens> {
    Vec::new()
}

pub fn hover(_snap: &Snapshot, _r: &FolderResult, _path: &Path, _pos: Position) -> Option<Hover> {
    None
}

pub fn quick_fixes(_snap: &Snapshot, _path: &Path, _d: &Diagnostic) -> Vec<CodeActionOrCommand> {
    Vec::new()
}
