//! Code lenses, hovers, document symbols, quick fixes, `alisio/contextExplain` and the
//! `workspace/executeCommand` targets, as plain functions of a [`Snapshot`]. They only adapt
//! what the core modules compute (instructions::lens, skills) to protocol types.

use std::path::Path;

use serde_json::json;
use tower_lsp_server::ls_types::*;

use super::analysis;
use super::diagnostics::uri;
use super::positions::to_lsp;
use super::results::FolderResult;
use super::state::Snapshot;
use alisio_base::config::Host;
use alisio_base::text::LineIndex;
use alisio_base::workspace::display_path;
use alisio_rules::instructions::{self, explain::Explanation, lens, read::Reader};

pub const CMD_EXPLAIN: &str = "alisio.explainContext";
pub const CMD_SHOW_SKILL: &str = "alisio.showSkill";
pub const CMD_TOGGLE_SKILL: &str = "alisio.toggleSkill";
pub const CMD_SHOW_REPORT: &str = "alisio.showContextReport";
pub const CMD_SHOW_AUDIT: &str = "alisio.showAuditSessions";

fn is_skill_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "SKILL.md")
}

/// Explains `path` for `host` from the folder that owns it.
pub fn explain(snap: &Snapshot, path: &Path, host: Host) -> Option<Explanation> {
    let r = super::analysis::folder_result(snap, path);
    analysis::with_setup(snap, &r.config, host, |setup| {
        let reader = Reader::new(setup.fs);
        instructions::explain::explain(setup, &reader, path, false).ok()
    })
}

fn instruction_report<'a>(
    r: &'a FolderResult,
    path: &Path,
) -> Option<&'a instructions::diagnostics::FileReport> {
    r.instructions.report(path)
}

fn explain_command(title: String, path: &Path) -> Option<Command> {
    Some(Command {
        title,
        command: CMD_EXPLAIN.to_string(),
        arguments: Some(vec![json!(uri(path)?.as_str())]),
    })
}

fn lens_at_top(command: Command) -> CodeLens {
    CodeLens {
        range: Range::default(),
        command: Some(command),
        data: None,
    }
}

/// `textDocument/codeLens` (spec/instructions.md §6; spec/skills.md §6.5).
pub fn code_lenses(snap: &Snapshot, path: &Path) -> Vec<CodeLens> {
    let r = super::analysis::folder_result(snap, path);
    // hosts.md H12: one lens per newer host in use that reads this file.
    let mut lenses: Vec<CodeLens> = analysis::with_setup(snap, &r.config, snap.options.host, |s| {
        instructions::host_lens::titles(s, &Reader::new(s.fs), path)
    })
    .into_iter()
    .filter_map(|t| explain_command(t, path).map(lens_at_top))
    .collect();
    if let Some(report) = instruction_report(&r, path) {
        let title = lens::instruction_lens_title(report, snap.options.host);
        lenses.splice(0..0, explain_command(title, path).map(lens_at_top));
        lenses.extend(audit_lenses(snap, path, false));
        return lenses;
    }
    if !lenses.is_empty() {
        return lenses;
    }
    if is_skill_file(path) {
        let mut lenses = super::skills::code_lenses(snap, &r, path);
        lenses.extend(audit_lenses(snap, path, true));
        return lenses;
    }
    if snap.options.lens_on_every_file
        && let Some(ex) = explain(snap, path, snap.options.host)
    {
        return explain_command(lens::ordinary_lens_title(&ex), path)
            .map(lens_at_top)
            .into_iter()
            .collect();
    }
    Vec::new()
}

/// What the recent sessions of the workspace received of this file (spec/interfaces.md §4.6):
/// one lens per client, opening the Audit Sessions view.
fn audit_lenses(snap: &Snapshot, path: &Path, skill: bool) -> Vec<CodeLens> {
    super::audit::lens_titles(snap, path, skill)
        .into_iter()
        .filter_map(|title| {
            Some(lens_at_top(Command {
                title,
                command: CMD_SHOW_AUDIT.to_string(),
                arguments: Some(vec![json!(uri(path)?.as_str())]),
            }))
        })
        .collect()
}

fn markdown(value: String) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    }
}

/// `textDocument/hover`.
pub fn hover(snap: &Snapshot, path: &Path, pos: Position) -> Option<Hover> {
    let r = super::analysis::folder_result(snap, path);
    if let Some(report) = instruction_report(&r, path) {
        if pos.line != 0 {
            return None;
        }
        let label = display_path(path, &r.config.root);
        return Some(markdown(lens::instruction_hover(
            report,
            &label,
            snap.options.host,
        )));
    }
    if is_skill_file(path) {
        return super::skills::hover(snap, &r, path, pos);
    }
    if alisio_rules::families::family_of(path).is_some() {
        let text = snap.text_of(path)?;
        let off = LineIndex::new(&text).offset(pos.line, pos.character, snap.encoding);
        return alisio_rules::families::editor::hover(path, &text, off).map(markdown);
    }
    if path.file_name().is_some_and(|n| n == "config.json")
        && path.parent().is_some_and(|p| p.ends_with(".alisio"))
    {
        return None;
    }
    let hosts = analysis::with_setup(snap, &r.config, snap.options.host, |setup| {
        instructions::host_files::in_use(setup)
    });
    if let [only] = hosts.as_slice()
        && matches!(only, Host::Alisio | Host::Codex | Host::ClaudeCode)
    {
        let ex = explain(snap, path, *only)?;
        return lens::ordinary_hover(&ex, pos.line).map(markdown);
    }
    // hosts.md H10: every host in use side by side.
    if pos.line != 0 {
        return None;
    }
    let all: Vec<Explanation> = hosts
        .iter()
        .filter_map(|h| explain(snap, path, *h))
        .collect();
    instructions::hover_hosts::hover(&all, pos.line).map(markdown)
}

/// `textDocument/documentSymbol`: the Markdown headings of instruction files and skills.
pub fn document_symbols(snap: &Snapshot, path: &Path) -> Option<DocumentSymbolResponse> {
    let r = super::analysis::folder_result(snap, path);
    if is_skill_file(path) {
        return Some(DocumentSymbolResponse::Nested(super::skills::symbols(
            snap, path,
        )));
    }
    instruction_report(&r, path)?;
    let text = snap.text_of(path)?;
    let idx = LineIndex::new(&text);
    #[expect(deprecated, reason = "DocumentSymbol.deprecated must still be set")]
    fn convert(
        h: &lens::Heading,
        idx: &LineIndex<'_>,
        enc: alisio_base::text::Encoding,
    ) -> DocumentSymbol {
        DocumentSymbol {
            name: if h.text.is_empty() {
                " ".to_string()
            } else {
                h.text.clone()
            },
            detail: None,
            kind: SymbolKind::STRING,
            tags: None,
            deprecated: None,
            range: to_lsp::range(&idx.span(h.range), enc),
            selection_range: to_lsp::range(&idx.span(h.selection), enc),
            children: if h.children.is_empty() {
                None
            } else {
                Some(h.children.iter().map(|c| convert(c, idx, enc)).collect())
            },
        }
    }
    let symbols = lens::headings(&text)
        .iter()
        .map(|h| convert(h, &idx, snap.encoding))
        .collect();
    Some(DocumentSymbolResponse::Nested(symbols))
}

/// `textDocument/codeAction`: quick fixes from the diagnostics' `data`.
pub fn code_actions(
    snap: &Snapshot,
    path: &Path,
    params: &CodeActionParams,
) -> Vec<CodeActionOrCommand> {
    let mut out = Vec::new();
    for d in &params.context.diagnostics {
        let code = match &d.code {
            Some(NumberOrString::String(c)) => c.as_str(),
            _ => continue,
        };
        match code {
            "instructions-unread-name" | "instructions-legacy-name" => {
                // "Rename to AGENTS.md" (spec/instructions.md §5.4): only when the client supports
                // resource operations and no `AGENTS.md` exists in that directory.
                if let Some(a) = super::host_fixes::rename(snap, path, d, "AGENTS.md") {
                    out.push(CodeActionOrCommand::CodeAction(a));
                }
            }
            c if c.starts_with("skill-") => out.extend(super::skills::quick_fixes(snap, path, d)),
            c => {
                if let Some(a) = super::host_fixes::quick_fix(snap, path, c, d) {
                    out.push(CodeActionOrCommand::CodeAction(a));
                }
            }
        }
        out.extend(super::suppress::actions(snap, path, d));
    }
    out
}

/// `alisio/contextExplain {uri, host?}`: the object of spec/interfaces.md §1.1 with its
/// `startup` object, as `context explain --json PATH` builds them: the families a session
/// started in the file's directory (the folder itself for a directory) loads
/// (spec/instructions.md §10).
pub fn context_explain(
    snap: &Snapshot,
    path: &Path,
    host: Option<Host>,
) -> Option<super::ext::ContextExplainResult> {
    let host = host.unwrap_or(snap.options.host);
    let explain = explain(snap, path, host)?.object();
    use alisio_base::workspace::Fs as _;
    let fs = snap.fs();
    let vantage = if fs
        .metadata(path)
        .is_ok_and(|m| m.file_type == alisio_base::workspace::FileType::Dir)
    {
        path.to_path_buf()
    } else {
        path.parent().unwrap_or(path).to_path_buf()
    };
    let cfg = super::analysis::folder_config(snap, &snap.folder_of(path));
    let input = cfg.input(&snap.env);
    let show = |p: &Path| display_path(p, &cfg.root);
    let startup = alisio_rules::families::startup(&fs, input, &vantage, host)
        .map(|s| alisio_rules::families::StartupObject::new(host, &s, &show));
    Some(super::ext::ContextExplainResult { explain, startup })
}

/// `textDocument/completion`: frontmatter keys and values of a SKILL.md (spec/skills.md §6.3) and the
/// snippets of `snippets/` (file templates in empty documents).
pub fn completions(snap: &Snapshot, path: &Path, pos: Position) -> Option<Vec<CompletionItem>> {
    use super::snippets::{self, DocKind};
    let text = snap.text_of(path).unwrap_or_default();
    let empty = text.trim().is_empty();
    if is_skill_file(path) {
        let mut items = super::skills::completions(snap, path, pos);
        let key_position = items
            .iter()
            .any(|i| i.kind == Some(CompletionItemKind::PROPERTY));
        items.extend(snippets::completions(DocKind::Skill, empty, key_position));
        return Some(items);
    }
    if alisio_rules::families::family_of(path).is_some() {
        // Keys of an agent or a command file (spec/instructions.md §10.5).
        let off = LineIndex::new(&text).offset(pos.line, pos.character, snap.encoding);
        let items = alisio_rules::families::editor::completions(path, &text, off);
        return Some(
            items
                .into_iter()
                .map(|c| CompletionItem {
                    label: c.key.to_string(),
                    kind: Some(CompletionItemKind::PROPERTY),
                    documentation: Some(Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: c.doc.to_string(),
                    })),
                    insert_text: Some(c.insert),
                    ..CompletionItem::default()
                })
                .collect(),
        );
    }
    let kind = if path.file_name().is_some_and(|n| n == "config.json")
        && path.parent().is_some_and(|p| p.ends_with(".alisio"))
    {
        DocKind::Config
    } else if instruction_report(&super::analysis::folder_result(snap, path), path).is_some()
        || path.file_name().is_some_and(|n| {
            ["AGENTS.md", "AGENTS.override.md", "AGENT.md", "CLAUDE.md"]
                .iter()
                .any(|c| n == *c)
        })
    {
        DocKind::Instructions
    } else {
        return None;
    };
    Some(snippets::completions(kind, empty, false))
}
