//! Recent sessions of the workspace in the editor (spec/interfaces.md §4.6), what a pass and
//! the lenses read of the last audit: its diagnostics located in the files' text now, and the
//! lens titles. The audit itself runs in `lsp::audit_run`, never on the edit path.

use std::path::{Path, PathBuf};

use super::state::Snapshot;
use alisio_base::diagnostic::{Code, Diagnostic};
use alisio_session::audit::findings;

/// The audit diagnostics of the folder at `folder`, located in the files' text now; an import
/// the rules already report (`instructions-import-not-expanded` at the same place) is left out.
#[must_use]
pub fn diagnostics(snap: &Snapshot, folder: &Path, shown: &[Diagnostic]) -> Vec<Diagnostic> {
    let Some(a) = snap.audit.get(folder) else {
        return Vec::new();
    };
    let mut files: Vec<&PathBuf> = a.pending.iter().map(|p| &p.file).collect();
    files.dedup();
    let mut out = Vec::new();
    for f in files {
        let Some(text) = snap.text_of(f) else {
            continue;
        };
        out.extend(
            findings::diagnostics(&a.pending, f, &text)
                .into_iter()
                .filter(|d| {
                    d.code != Code::AuditImportNotExpanded
                        || !shown.iter().any(|s| {
                            s.code == Code::InstructionsImportNotExpanded
                                && s.file == d.file
                                && s.span == d.span
                        })
                }),
        );
    }
    out
}

/// The lens titles of `path` from the last audit (an instruction file, or a SKILL.md).
#[must_use]
pub fn lens_titles(snap: &Snapshot, path: &Path, skill: bool) -> Vec<String> {
    snap.audit
        .get(&snap.folder_of(path))
        .map(|a| a.lenses.titles(path, skill))
        .unwrap_or_default()
}
