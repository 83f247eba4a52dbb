//! Skill features of the editor (spec/skills.md §6) as adapters: the core (`skills::editor`,
//! `skills::catalog`, `skills::report`) computes lenses, hovers, completions, quick fixes and
//! definitions as plain data; this module converts them to protocol types.

use std::path::Path;

use serde_json::{Value, json};
use tower_lsp_server::ls_types::*;

use super::diagnostics::uri;
use super::positions::to_lsp;
use super::results::FolderResult;
use super::state::Snapshot;
use alisio_base::config::Profile;
use alisio_base::text::{Encoding, LineIndex, TextRange};
use alisio_base::workspace::Fs as _;
use alisio_rules::skills::catalog::{self, Discovery};
use alisio_rules::skills::{editor, validate, validity};

/// The owner-vantage discovery of a SKILL.md (spec/skills.md §1.4): the directory whose root holds a
/// project skill, else the workspace root.
fn owner<'a>(r: &'a FolderResult, file: &Path) -> Option<&'a Discovery> {
    let ds = &r.skills.discoveries;
    let project_dir = ds.iter().find_map(|d| {
        d.entries
            .iter()
            .find(|e| e.file == file)
            .map(|e| e.project_dir.clone())
    });
    match project_dir {
        Some(Some(dir)) => ds.iter().find(|d| d.vantage == dir).or_else(|| ds.first()),
        _ => ds.first(),
    }
}

/// The buffer (or disk) text of a SKILL.md judged under the active profile.
fn checked(snap: &Snapshot, path: &Path, profile: Profile) -> validate::Checked {
    validate::check_file(&snap.fs(), path, profile)
}

/// Why a file that is not an entry is not loaded (spec/skills.md §6.5).
fn not_loaded(snap: &Snapshot, r: &FolderResult, path: &Path) -> Option<String> {
    let of = |code: alisio_base::diagnostic::Code| {
        r.skills
            .diagnostics
            .iter()
            .find(|d| d.file == path && d.code == code)
    };
    if of(alisio_base::diagnostic::Code::SkillUntrusted).is_some() {
        return Some("not loaded: workspace not trusted".into());
    }
    if let Some(d) = of(alisio_base::diagnostic::Code::SkillNotDiscovered) {
        return Some(d.message.clone());
    }
    editor::not_loaded_reason(&checked(snap, path, Profile::Alisio))
}

pub fn code_lenses(snap: &Snapshot, r: &FolderResult, path: &Path) -> Vec<CodeLens> {
    let Some(d) = owner(r, path) else {
        return Vec::new();
    };
    let entry = d.entries.iter().any(|e| e.file == path);
    let reason = if entry {
        None
    } else {
        not_loaded(snap, r, path)
    };
    let mut lenses = editor::lenses(d, path, r.config.trusted, reason);
    let listed = r.skills.listings.iter().any(|(_, l)| {
        l.as_ref()
            .is_some_and(|l| l.items.iter().any(|i| i.file.as_deref() == Some(path)))
    });
    if (entry || listed) && !r.skills.listings.is_empty() {
        lenses.push(editor::Lens {
            title: alisio_rules::skills::listing::lens::title(&r.skills.listings, path),
            command: None,
        });
    }
    lenses
        .into_iter()
        .map(|l| CodeLens {
            range: Range::default(),
            command: Some(match l.command {
                Some((cmd, id)) => Command {
                    title: l.title,
                    command: cmd.to_string(),
                    arguments: Some(vec![json!(id)]),
                },
                // A lens without an action still needs a command object to show; an empty
                // command string is what clients treat as "label only".
                None => Command {
                    title: l.title,
                    command: String::new(),
                    arguments: None,
                },
            }),
            data: None,
        })
        .collect()
}

/// Byte offset in the judged text (BOM removed) of an editor position.
fn offset_of(c: &validate::Checked, pos: Position, enc: Encoding) -> usize {
    LineIndex::new(&c.text).offset(pos.line, pos.character, enc)
}

fn range_in(text: &str, r: TextRange, enc: Encoding) -> Range {
    to_lsp::range(&LineIndex::new(text).span(r), enc)
}

fn within(r: TextRange, off: usize) -> bool {
    r.start <= off && off <= r.end
}

pub fn hover(snap: &Snapshot, r: &FolderResult, path: &Path, pos: Position) -> Option<Hover> {
    let c = checked(snap, path, snap.options.profile);
    let off = offset_of(&c, pos, snap.encoding);
    let md = |value: String, range: TextRange| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range_in(&c.text, range, snap.encoding)),
    };
    if let Some(fm) = &c.frontmatter {
        for e in &fm.entries {
            if within(e.key_span, off) {
                return editor::key_hover(&e.key).map(|t| md(t, e.key_span));
            }
            if e.key == "name" && within(e.value.span, off) {
                let d = owner(r, path)?;
                let reason = if d.entries.iter().any(|x| x.file == path) {
                    None
                } else {
                    not_loaded(snap, r, path)
                };
                let root = r.config.root.clone();
                let show = move |p: &Path| alisio_base::workspace::display_path(p, &root);
                let hosts = validity::hover(&validity::row(&snap.fs(), path));
                return Some(md(
                    format!(
                        "{}\n\n{hosts}",
                        editor::name_hover(d, path, r.config.trusted, reason, &show)
                    ),
                    e.value.span,
                ));
            }
        }
    }
    // The opening line: the answer of every host (spec/skills.md §12), then each host's listing
    // budget as a bar (§6.5).
    if let Some(b) = c.block.filter(|b| within(b.open, off)) {
        let mut text = validity::hover(&validity::row(&snap.fs(), path));
        if !r.skills.listings.is_empty() {
            text.push('\n');
            text.push_str(&alisio_rules::skills::listing::lens::budget_bars(
                &current_listings(snap, r),
            ));
        }
        return Some(md(text, b.open));
    }
    c.links
        .iter()
        .find(|l| within(l.range, off))
        .map(|l| md(editor::link_hover(l), l.range))
}

/// The listing of each lens host of the last pass, built again from the open documents' current
/// text (spec/skills.md §6.5: the hover's bars follow every keystroke, not the last pass). One
/// discovery per host over the overlay file system, at hover time only.
fn current_listings(
    snap: &Snapshot,
    r: &FolderResult,
) -> Vec<(
    alisio_base::config::Host,
    Option<alisio_rules::skills::listing::Listing>,
)> {
    use alisio_rules::skills::listing;
    let hosts: Vec<_> = r.skills.listings.iter().map(|(h, _)| *h).collect();
    let input = r.config.input(&snap.env);
    let o = listing::settings::Overrides::default();
    listing::diagnostics::listings(&snap.fs(), input, &r.config.root, &hosts, &o)
}

pub fn completions(snap: &Snapshot, path: &Path, pos: Position) -> Vec<CompletionItem> {
    let c = checked(snap, path, snap.options.profile);
    let off = offset_of(&c, pos, snap.encoding);
    let files = path
        .parent()
        .map(|d| editor::skill_files(&snap.fs(), d))
        .unwrap_or_default();
    editor::completions(&c, off, &files)
        .into_iter()
        .map(|i| CompletionItem {
            label: i.label,
            kind: Some(match i.kind {
                "Property" => CompletionItemKind::PROPERTY,
                "File" => CompletionItemKind::FILE,
                _ => CompletionItemKind::VALUE,
            }),
            detail: (!i.detail.is_empty()).then_some(i.detail),
            documentation: i.documentation.map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            }),
            insert_text: Some(i.insert_text),
            insert_text_format: Some(if i.snippet {
                InsertTextFormat::SNIPPET
            } else {
                InsertTextFormat::PLAIN_TEXT
            }),
            ..CompletionItem::default()
        })
        .collect()
}

pub fn definition(
    snap: &Snapshot,
    r: &FolderResult,
    path: &Path,
    pos: Position,
) -> Option<Location> {
    let c = checked(snap, path, snap.options.profile);
    let off = offset_of(&c, pos, snap.encoding);
    // Owner vantage first, else the first vantage where the skill is shadowed (spec/skills.md §6.6).
    let mut ds: Vec<&Discovery> = owner(r, path).into_iter().collect();
    ds.extend(
        r.skills
            .discoveries
            .iter()
            .filter(|d| d.entries.iter().any(|e| e.file == path && !e.effective)),
    );
    let (file, range) = ds
        .into_iter()
        .find_map(|d| editor::definition(&c, d, off))?;
    let target_text = snap
        .text_of(&file)
        .map(|t| {
            t.strip_prefix('\u{feff}')
                .map(str::to_string)
                .unwrap_or_else(|| t.to_string())
        })
        .unwrap_or_default();
    Some(Location {
        uri: uri(&file)?,
        range: range_in(&target_text, range, snap.encoding),
    })
}

/// Frontmatter keys (Property) and body headings (String), nested by level (spec/skills.md §6.6).
pub fn symbols(snap: &Snapshot, path: &Path) -> Vec<DocumentSymbol> {
    let c = checked(snap, path, snap.options.profile);
    let idx = LineIndex::new(&c.text);
    let mut out: Vec<DocumentSymbol> = Vec::new();
    // Stack of (level, path of indices) to nest headings.
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    for (name, range, level) in editor::symbols(&c) {
        #[expect(deprecated, reason = "DocumentSymbol.deprecated must still be set")]
        let sym = DocumentSymbol {
            name: if name.is_empty() { " ".into() } else { name },
            detail: None,
            kind: if level == 0 {
                SymbolKind::PROPERTY
            } else {
                SymbolKind::STRING
            },
            tags: None,
            deprecated: None,
            range: to_lsp::range(&idx.span(range), snap.encoding),
            selection_range: to_lsp::range(&idx.span(range), snap.encoding),
            children: None,
        };
        if level == 0 {
            out.push(sym);
            continue;
        }
        while stack.last().is_some_and(|(l, _)| *l >= level) {
            stack.pop();
        }
        let list = match stack.last() {
            Some((_, p)) => children_at(&mut out, p),
            None => &mut out,
        };
        list.push(sym);
        let mut p = stack.last().map(|(_, p)| p.clone()).unwrap_or_default();
        p.push(list.len() - 1);
        stack.push((level, p));
    }
    out
}

fn children_at<'a>(
    root: &'a mut Vec<DocumentSymbol>,
    path: &[usize],
) -> &'a mut Vec<DocumentSymbol> {
    let mut list = root;
    for &i in path {
        list = list[i].children.get_or_insert_with(Vec::new);
    }
    list
}

/// Quick fixes (spec/skills.md §6.2) for one LSP diagnostic: the core diagnostic is found again by
/// code and byte range (carried in `data`), so nothing is remembered between requests.
pub fn quick_fixes(snap: &Snapshot, path: &Path, d: &Diagnostic) -> Vec<CodeActionOrCommand> {
    let c = checked(snap, path, snap.options.profile);
    let (Some(code), Some(start), Some(end)) = (
        d.data
            .as_ref()
            .and_then(|v| v.get("code"))
            .and_then(Value::as_str),
        d.data
            .as_ref()
            .and_then(|v| v.get("start"))
            .and_then(Value::as_u64),
        d.data
            .as_ref()
            .and_then(|v| v.get("end"))
            .and_then(Value::as_u64),
    ) else {
        return Vec::new();
    };
    let Some(core) = c.diagnostics.iter().find(|x| {
        x.code.as_str() == code
            && x.span.bytes.start as u64 == start
            && x.span.bytes.end as u64 == end
    }) else {
        return Vec::new();
    };
    let Some(u) = uri(path) else {
        return Vec::new();
    };
    let mut out: Vec<CodeActionOrCommand> = editor::quick_fixes(&c, core)
        .into_iter()
        .map(|f| {
            let edits = f
                .edits
                .iter()
                .map(|e| TextEdit {
                    range: range_in(&c.text, e.range, snap.encoding),
                    new_text: e.new_text.clone(),
                })
                .collect();
            CodeActionOrCommand::CodeAction(CodeAction {
                title: f.title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(WorkspaceEdit {
                    changes: Some([(u.clone(), edits)].into_iter().collect()),
                    ..WorkspaceEdit::default()
                }),
                ..CodeAction::default()
            })
        })
        .collect();
    if code == "skill-name-directory-mismatch"
        && snap.caps.rename_files
        && let Some((title, from, to)) = editor::rename_directory(&snap.fs(), &c)
        && let (Some(a), Some(b)) = (uri(&from), uri(&to))
    {
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![d.clone()]),
            edit: Some(WorkspaceEdit {
                document_changes: Some(DocumentChanges::Operations(vec![
                    DocumentChangeOperation::Op(ResourceOp::Rename(RenameFile {
                        old_uri: a,
                        new_uri: b,
                        options: Some(RenameFileOptions {
                            overwrite: Some(false),
                            ignore_if_exists: Some(false),
                        }),
                        annotation_id: None,
                    })),
                ])),
                ..WorkspaceEdit::default()
            }),
            ..CodeAction::default()
        }));
    }
    out
}

/// The discovery from a vantage directory (a file means its directory), host `alisio`.
fn discovery_from(snap: &Snapshot, r: &FolderResult, vantage: &Path) -> Discovery {
    let fs = snap.fs();
    let v = if fs
        .metadata(vantage)
        .is_ok_and(|m| m.file_type == alisio_base::workspace::FileType::Dir)
    {
        vantage.to_path_buf()
    } else {
        vantage
            .parent()
            .map_or_else(|| r.config.root.clone(), Path::to_path_buf)
    };
    let v = fs.canonicalize(&v).unwrap_or(v);
    let input = r.config.input(&snap.env);
    catalog::discover(&fs, input, &v)
}

/// `alisio/skillCatalog {uri?}` (spec/interfaces.md §1.2).
pub fn catalog(snap: &Snapshot, at: Option<&Path>) -> Vec<catalog::CatalogEntry> {
    let folder = at.map_or_else(
        || snap.folders.first().cloned().unwrap_or_default(),
        |p| snap.folder_of(p),
    );
    let r = super::analysis::folder_result(snap, &folder.join("x"));
    let d = discovery_from(snap, &r, at.unwrap_or(&r.config.root));
    d.entries
        .iter()
        .map(|e| catalog::entry_object(e, &r.config.root))
        .collect()
}

/// `alisio/setSkillEnabled {id, enabled}` and `alisio.toggleSkill [id]` (`enabled: None` flips).
///
/// # Errors
/// The request-error texts of spec/skills.md §3.3.
pub fn set_enabled(
    snap: &Snapshot,
    id: &str,
    enabled: Option<bool>,
) -> Result<catalog::CatalogEntry, String> {
    let folder = snap.folders.first().cloned().unwrap_or_default();
    let r = super::analysis::folder_result(snap, &folder.join("x"));
    let d = discovery_from(snap, &r, &r.config.root);
    let enabled = match enabled {
        Some(b) => b,
        None => !d.effective(id).is_none_or(|e| e.enabled),
    };
    let e = catalog::set_enabled(&d, &r.config.root, r.config.trusted, id, enabled)?;
    Ok(catalog::entry_object(&e, &r.config.root))
}

/// `alisio.showSkill [id]`: the catalog entry (the client shows it).
pub fn show(snap: &Snapshot, id: &str) -> Option<Value> {
    let folder = snap.folders.first().cloned().unwrap_or_default();
    let r = super::analysis::folder_result(snap, &folder.join("x"));
    r.skills
        .discoveries
        .iter()
        .find_map(|d| d.entries.iter().find(|e| e.id == id))
        .map(|e| catalog::entry_json(e, &r.config.root))
}

/// `alisio/testSkillTriggers {uri?}`: the offline lab seen from the folder's root
/// (spec/skills.md §10).
///
/// # Errors
/// No skill with an eval file, or an invalid eval file.
pub fn test_triggers(
    snap: &Snapshot,
    at: Option<&Path>,
) -> Result<Vec<super::ext::TriggerHostResult>, String> {
    use alisio_rules::skills::triggers::{EVALS_FILE, lab};
    let folder = at.map_or_else(
        || snap.folders.first().cloned().unwrap_or_default(),
        |p| snap.folder_of(p),
    );
    let r = super::analysis::folder_result(snap, &folder.join("x"));
    let fs = snap.fs();
    let input = r.config.input(&snap.env);
    let o = alisio_rules::skills::listing::settings::Overrides::default();
    let catalogs = lab::catalogs(&fs, input, &r.config.root, &o);
    let skills: Vec<std::path::PathBuf> = match at {
        Some(p) => {
            let p = fs.canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            if !lab::has_evals(&fs, &p) {
                return Err(format!("{} has no {EVALS_FILE} beside it", p.display()));
            }
            vec![p]
        }
        None => lab::listed_files(&catalogs)
            .into_iter()
            .filter(|f| lab::has_evals(&fs, f))
            .collect(),
    };
    if skills.is_empty() {
        return Err(format!("no skill has an {EVALS_FILE} file"));
    }
    let root = r.config.root.clone();
    let show = move |p: &Path| alisio_base::workspace::display_path(p, &root);
    let results = lab::run_all(&fs, &catalogs, &skills, &show)?;
    let uri_of = |f: &Path| uri(f).map_or_else(String::new, |u| u.as_str().to_string());
    Ok(results
        .into_iter()
        .map(|h| {
            let file_of = |name: &str| {
                h.scores
                    .iter()
                    .find(|s| s.name == name)
                    .map_or_else(String::new, |s| uri_of(&s.file))
            };
            super::ext::TriggerHostResult {
                misrouted: h
                    .misses
                    .iter()
                    .map(|m| super::ext::TriggerMiss {
                        skill: m.skill.clone(),
                        uri: file_of(&m.skill),
                        prompt: m.prompt.clone(),
                        expected: m.expected.clone(),
                        routed: m.routed.clone(),
                        score: (m.score * 10_000.0).round() / 10_000.0,
                    })
                    .collect(),
                skills: h
                    .scores
                    .iter()
                    .map(|s| super::ext::TriggerScore {
                        name: s.name.clone(),
                        uri: uri_of(&s.file),
                        listed: s.listed,
                        true_positives: s.true_positives,
                        false_positives: s.false_positives,
                        false_negatives: s.false_negatives,
                        true_negatives: s.true_negatives,
                        precision: s.precision().map(|x| (x * 10_000.0).round() / 10_000.0),
                        recall: s.recall().map(|x| (x * 10_000.0).round() / 10_000.0),
                    })
                    .collect(),
                host: h.host,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        reason = "a test: a failed unwrap is a failed test"
    )]
    use super::*;
    use crate::lsp::documents::Document;
    use crate::lsp::state::State;
    use std::collections::HashMap;
    use std::sync::Arc;

    fn bars(h: &Hover) -> String {
        let HoverContents::Markup(m) = &h.contents else {
            panic!("not markup");
        };
        m.value[m.value.find("**Listing budgets**").unwrap()..].to_string()
    }

    /// The hover's budget bars come from the open document's text even when the last pass saw
    /// another (spec/skills.md §6.5): a pass over the saved text, then an unsaved edit, and the
    /// hover shows what a pass over the edit gives.
    #[test]
    fn budget_bars_follow_the_buffer_not_the_last_pass() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("ws");
        let f = root.join(".agents/skills/pdf-tools/SKILL.md");
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        let saved = "---\nname: pdf-tools\ndescription: Extract text from PDF files.\n---\nBody\n";
        std::fs::write(&f, saved).unwrap();
        let mut st = State {
            folders: vec![root.clone()],
            ..State::default()
        };
        st.options.trusted = true;
        st.env.home = Some(t.path().join("home"));
        let old = Arc::new(crate::lsp::analysis::analyze_folder(&st.snapshot(), &root));
        let edited = format!(
            "---\nname: pdf-tools\ndescription: Extract text from PDF files. Use when {}\n---\nBody\n",
            "a pdf ".repeat(150)
        );
        st.docs.insert(f.clone(), Document::new(&edited, 2));
        st.results = Arc::new(HashMap::from([(root.clone(), old.clone())]));
        let snap = st.snapshot();
        let pos = Position {
            line: 0,
            character: 1,
        };
        let got = bars(&hover(&snap, &old, &f, pos).unwrap());
        let fresh = crate::lsp::analysis::analyze_folder(&snap, &root);
        assert_eq!(
            got,
            alisio_rules::skills::listing::lens::budget_bars(&fresh.skills.listings)
        );
        assert_ne!(
            got,
            alisio_rules::skills::listing::lens::budget_bars(&old.skills.listings)
        );
    }
}
