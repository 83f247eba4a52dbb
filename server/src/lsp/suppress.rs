//! The suppression quick fixes (spec/suppressions.md §4): "ignore in this line" and "ignore in this
//! file" for every diagnostic of ours; the edits come from `alisio_base::suppress::fix`.

use std::path::Path;

use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, NumberOrString, TextEdit,
    WorkspaceEdit,
};

use super::diagnostics::uri;
use super::positions::to_lsp;
use super::state::Snapshot;
use alisio_base::diagnostic::Code;
use alisio_base::suppress::fix::{self, Edit};
use alisio_base::text::LineIndex;

fn action(
    title: String,
    d: &Diagnostic,
    path: &Path,
    text: &str,
    e: &Edit,
    snap: &Snapshot,
) -> Option<CodeActionOrCommand> {
    let range = to_lsp::range(&LineIndex::new(text).span(e.range), snap.encoding);
    let edit = TextEdit {
        range,
        new_text: e.new_text.clone(),
    };
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        edit: Some(WorkspaceEdit {
            changes: Some([(uri(path)?, vec![edit])].into_iter().collect()),
            ..WorkspaceEdit::default()
        }),
        ..CodeAction::default()
    }))
}

/// The fast path's filter (one open file): the same post-filter as a full pass, with the
/// rules of the folder's last pass (the defaults before the first).
pub fn filter_file(
    snap: &Snapshot,
    path: &Path,
    diags: Vec<alisio_base::diagnostic::Diagnostic>,
) -> Vec<alisio_base::diagnostic::Diagnostic> {
    let files = [path.to_path_buf()];
    let folder = snap.folder_of(path);
    match snap.results.get(&folder) {
        Some(r) => {
            let rules = &r.config.settings.diagnostics;
            alisio_base::suppress::apply(&snap.fs(), rules, &r.config.root, &files, diags)
        }
        // Before the first pass: the folder's configuration, read now.
        None => {
            let cfg = super::analysis::folder_config(snap, &folder);
            let rules = &cfg.settings.diagnostics;
            alisio_base::suppress::apply(&snap.fs(), rules, &cfg.root, &files, diags)
        }
    }
}

/// The two actions for one of our diagnostics in a Markdown file (none for `suppression-unused`
/// itself, which configuration silences).
pub fn actions(snap: &Snapshot, path: &Path, d: &Diagnostic) -> Vec<CodeActionOrCommand> {
    let Some(NumberOrString::String(c)) = &d.code else {
        return Vec::new();
    };
    let Some(code) = Code::parse(c).filter(|c| *c != Code::SuppressionUnused) else {
        return Vec::new();
    };
    if d.source.as_deref() != Some("alisio-ls")
        || !path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("mdc"))
    {
        return Vec::new();
    }
    let Some(text) = snap.text_of(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(e) = fix::ignore_line(&text, d.range.start.line, code) {
        out.extend(action(
            format!("Ignore {code} in this line"),
            d,
            path,
            &text,
            &e,
            snap,
        ));
    }
    if let Some(e) = fix::ignore_file(&text, code) {
        out.extend(action(
            format!("Ignore {code} in this file"),
            d,
            path,
            &text,
            &e,
            snap,
        ));
    }
    out
}
