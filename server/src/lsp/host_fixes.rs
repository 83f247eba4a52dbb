//! Quick fixes of the host diagnostics (spec/hosts.md §5): rename a `.md` rule to `.mdc`, rename a
//! file to the case a host reads, and write an `applyTo` list as one string.

use std::path::Path;

use tower_lsp_server::ls_types::*;

use super::diagnostics::uri;
use super::positions::to_lsp;
use super::state::Snapshot;

fn quoted_after<'m>(message: &'m str, marker: &str) -> Option<&'m str> {
    let rest = &message[message.find(marker)? + marker.len()..];
    rest.split('"').next()
}

/// "Rename to `new_name`": only when the client supports resource operations and no file
/// `new_name` exists beside `path`.
pub(super) fn rename(
    snap: &Snapshot,
    path: &Path,
    d: &Diagnostic,
    new_name: &str,
) -> Option<CodeAction> {
    if !snap.caps.rename_files {
        return None;
    }
    let target = path.parent()?.join(new_name);
    if std::fs::symlink_metadata(&target).is_ok() {
        return None;
    }
    let op = DocumentChangeOperation::Op(ResourceOp::Rename(RenameFile {
        old_uri: uri(path)?,
        new_uri: uri(&target)?,
        options: Some(RenameFileOptions {
            overwrite: Some(false),
            ignore_if_exists: Some(false),
        }),
        annotation_id: None,
    }));
    Some(CodeAction {
        title: format!("Rename to {new_name}"),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        edit: Some(WorkspaceEdit {
            document_changes: Some(DocumentChanges::Operations(vec![op])),
            ..WorkspaceEdit::default()
        }),
        is_preferred: Some(true),
        ..CodeAction::default()
    })
}

/// The quick fix of one host diagnostic, if it has one.
pub fn quick_fix(snap: &Snapshot, path: &Path, code: &str, d: &Diagnostic) -> Option<CodeAction> {
    match code {
        "instructions-rule-ignored" => {
            let stem = path.file_stem()?.to_str()?;
            rename(snap, path, d, &format!("{stem}.mdc"))
        }
        "instructions-name-case" => {
            let expected = quoted_after(&d.message, "reads \"")?;
            let name = Path::new(expected).file_name()?.to_str()?;
            rename(snap, path, d, name)
        }
        "instructions-apply-to-list" => {
            // The same edit `check --fix` applies (alisio_rules::instructions::fixes).
            let text = snap.text_of(path)?;
            let f = alisio_rules::instructions::fixes::apply_to_list(&text)?;
            let idx = alisio_base::text::LineIndex::new(&text);
            let edits = f
                .edits
                .iter()
                .map(|e| TextEdit {
                    range: to_lsp::range(&idx.span(e.range), snap.encoding),
                    new_text: e.new_text.clone(),
                })
                .collect();
            Some(CodeAction {
                title: f.title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some([(uri(path)?, edits)].into_iter().collect()),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..CodeAction::default()
            })
        }
        _ => None,
    }
}
