//! Diagnostics of instruction files (spec/instructions.md §5) for the three hosts, computed over the directory set D
//! of a workspace: the startup list L is computed once per group of directories that share it
//! (a directory with a winner, or a codex root marker, starts a group) and weighted by the
//! group's size, every file is read once, and every directory is listed once.
//!
//! [`analyze`] returns the diagnostics of every file plus a [`FileReport`] per instruction file
//! (the facts behind the code lens and hover of spec/instructions.md §6).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::codex::CodexConfig;
use super::read::{ReadMode, Reader};
use super::{
    FileKind, FileScope, FileText, ListedFile, Setup, Truncation, budget, chain, claude, codex,
    directories,
};
use alisio_base::config::Host;
use alisio_base::diagnostic::{Code, Diagnostic, Related, Severity};
use alisio_base::text::{LineCol, LineIndex, Span, TextRange, first_line_span};
use alisio_base::workspace::walk::{DirNode, DirSet, walk};
use alisio_base::workspace::{DirEntry, FileType, display_path};

mod alisio_host;
mod claude_host;
mod codex_host;
pub mod content;
mod copilot_host;
mod cursor_host;
mod gemini_host;
mod host_common;
mod hosts;

use alisio_host::alisio;
use claude_host::claude_host;
use codex_host::codex_host;

/// spec/instructions.md §5.3: the severity of a code under a host, `None` when the host never emits it.
#[must_use]
pub fn severity(host: Host, code: Code) -> Option<Severity> {
    use Code as C;
    use Severity as S;
    let s = match (code, host) {
        (C::InstructionsTruncated, Host::ClaudeCode)
        | (
            C::InstructionsHiddenByOverride | C::InstructionsHidden | C::InstructionsClaudeIgnored,
            Host::ClaudeCode,
        )
        | (C::InstructionsLegacyName, Host::Codex | Host::ClaudeCode)
        | (C::InstructionsSymlink | C::InstructionsFileCut, Host::Codex | Host::ClaudeCode) => {
            return None;
        }
        (
            C::InstructionsLegacyName
            | C::InstructionsEmpty
            | C::InstructionsRuleManualOnly
            | C::InstructionsFrontmatterInert
            | C::InstructionsAlwaysLoadedLong
            | C::InstructionsTooLong,
            _,
        ) => S::Information,
        (C::InstructionsClaudeIgnored, _) => S::Hint,
        (C::InstructionsSymlink | C::ConfigInvalid, _) => S::Error,
        _ => S::Warning,
    };
    Some(s)
}

/// What the editor shows about one instruction file (spec/instructions.md §6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    pub path: PathBuf,
    /// `None` for a near-miss name.
    pub kind: Option<FileKind>,
    pub global: bool,
    /// Size (spec/instructions.md §2.5 step 6; raw bytes for codex).
    pub size: usize,
    pub file_bytes: u64,
    /// Directories of D whose startup list contains the file.
    pub dirs: usize,
    /// Directories where it is partly loaded, with the example directory and its kept bytes.
    pub cut: usize,
    pub cut_example: Option<(String, usize)>,
    /// Directories where it is not loaded at all, with the example directory.
    pub dropped: usize,
    pub dropped_example: Option<String>,
    /// Why the file is never read (`hidden by AGENTS.override.md`, `symbolic link`,
    /// `fallback off`, `<winner> wins`, `misspelled name`, `AGENTS mode`).
    pub not_read: Option<String>,
    pub empty: bool,
    pub file_cut: bool,
    pub invalid: usize,
}

/// The result of [`analyze`].
#[derive(Clone, Debug)]
pub struct Analysis {
    pub root: PathBuf,
    pub host: Host,
    /// Number of directories in D.
    pub dir_count: usize,
    /// D hit its bound.
    pub truncated: bool,
    pub files: Vec<FileReport>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Analysis {
    /// The report of one instruction file (its lens and hover facts).
    #[must_use]
    pub fn report(&self, path: &Path) -> Option<&FileReport> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// spec/instructions.md §2.4 rule 2 in the editor: an instruction file opened through a symlinked chain directory
/// (strictly below the workspace root) gets `instructions-symlink`; `None` otherwise.
#[must_use]
pub fn through_symlinked_directory(setup: &Setup<'_>, file: &Path) -> Option<Diagnostic> {
    if setup.host != Host::Alisio {
        return None;
    }
    let dir = file.parent()?;
    for d in chain::chain_dirs(setup.root, dir).into_iter().skip(1) {
        if setup
            .fs
            .symlink_metadata(&d)
            .is_ok_and(|m| m.file_type == FileType::Symlink)
        {
            let msg = format!(
                "not read: the directory {} on its path is a symbolic link",
                display_path(&d, setup.root)
            );
            return Some(Diagnostic::new(
                file,
                Span::default(),
                Severity::Error,
                Code::InstructionsSymlink,
                msg,
            ));
        }
    }
    None
}

#[derive(Default)]
struct Effects {
    dirs: usize,
    cut: usize,
    /// (cut bytes, depth, dir, kept, related files)
    cut_best: Option<(usize, usize, PathBuf, usize, Vec<PathBuf>)>,
    dropped: usize,
    /// (depth, dir, related files)
    drop_best: Option<(usize, PathBuf, Vec<PathBuf>)>,
    /// claude AGENTS mode: (dirs, the CLAUDE file that excludes it)
    agents_mode: Option<(usize, PathBuf)>,
}

fn better(a: (usize, usize, &Path), b: (usize, usize, &Path)) -> bool {
    // Larger effect, then fewer components, then byte order.
    a.0 > b.0
        || (a.0 == b.0
            && (a.1 < b.1
                || (a.1 == b.1
                    && a.2.as_os_str().as_encoded_bytes() < b.2.as_os_str().as_encoded_bytes())))
}

struct Ctx<'s, 'r> {
    setup: &'s Setup<'s>,
    reader: &'r Reader<'r>,
    root: PathBuf,
    diags: Vec<Diagnostic>,
    reports: Vec<FileReport>,
    /// Index of `reports` by path.
    report_at: HashMap<PathBuf, usize>,
    texts: HashMap<PathBuf, Arc<FileText>>,
    effects: HashMap<PathBuf, Effects>,
    /// (file, other file) pairs already reported by `instructions-commands-conflict`.
    conflicts: std::collections::HashSet<(PathBuf, PathBuf)>,
}

impl Ctx<'_, '_> {
    fn show(&self, p: &Path) -> String {
        display_path(p, &self.root)
    }

    fn span_of(&self, p: &Path) -> Span {
        self.texts
            .get(p)
            .map_or_else(Span::default, |t| first_line_span(&t.text))
    }

    fn push(
        &mut self,
        file: &Path,
        span: Span,
        code: Code,
        message: String,
        related: Vec<Related>,
    ) {
        if let Some(sev) = severity(self.setup.host, code) {
            let mut d = Diagnostic::new(file, span, sev, code, message);
            d.related = related;
            self.diags.push(d);
        }
    }

    /// A file-level diagnostic; reads the file (cached) to find its first line.
    fn file_level(&mut self, file: &Path, code: Code, message: String, related: Vec<Related>) {
        let span = self.first_line(file);
        self.push(file, span, code, message, related);
    }

    fn first_line(&mut self, file: &Path) -> Span {
        if let Some(t) = self.texts.get(file) {
            return first_line_span(&t.text);
        }
        let is_link = self
            .setup
            .fs
            .symlink_metadata(file)
            .is_ok_and(|m| m.file_type == FileType::Symlink);
        if is_link {
            return Span::default();
        }
        let t = self.reader.read(file, self.mode());
        first_line_span(&t.text)
    }

    fn mode(&self) -> ReadMode {
        match self.setup.host {
            Host::Alisio => ReadMode::Alisio,
            Host::Codex => ReadMode::Raw { limit: 64 * 1024 },
            Host::ClaudeCode | Host::Copilot | Host::Gemini | Host::Cursor => ReadMode::Claude,
        }
    }

    fn related(&self, files: &[PathBuf], message: &str) -> Vec<Related> {
        files
            .iter()
            .map(|f| Related {
                file: f.clone(),
                span: self.span_of(f),
                message: message.to_string(),
            })
            .collect()
    }

    fn report_mut(&mut self, path: &Path) -> Option<&mut FileReport> {
        let i = *self.report_at.get(path)?;
        self.reports.get_mut(i)
    }

    fn report(&mut self, path: &Path, kind: Option<FileKind>, not_read: Option<String>) {
        if self.report_at.contains_key(path) {
            return;
        }
        self.report_at
            .insert(path.to_path_buf(), self.reports.len());
        let is_link = self
            .setup
            .fs
            .symlink_metadata(path)
            .is_ok_and(|m| m.file_type == FileType::Symlink);
        let (size, file_bytes) = if is_link {
            (0, 0)
        } else {
            let t = self.reader.read(path, self.mode());
            let size = if self.setup.host == Host::Codex && t.size() > 0 {
                usize::try_from(t.file_bytes).unwrap_or(usize::MAX)
            } else {
                t.size()
            };
            (size, t.file_bytes)
        };
        self.reports.push(FileReport {
            path: path.to_path_buf(),
            kind,
            global: false,
            size,
            file_bytes,
            dirs: 0,
            cut: 0,
            cut_example: None,
            dropped: 0,
            dropped_example: None,
            not_read,
            empty: false,
            file_cut: false,
            invalid: 0,
        });
    }

    /// `instructions-commands-conflict` within one startup list (spec/instructions.md §5.5):
    /// a later workspace file whose package manager differs from an earlier one's.
    fn command_conflicts(&mut self, list: &[ListedFile]) {
        let mut seen: Vec<(PathBuf, &'static str, String)> = Vec::new();
        for f in list {
            if f.kept_bytes == 0 || !f.path.starts_with(self.setup.root) {
                continue;
            }
            let Some((r, man, cmd)) = content::commands::first_command(&f.file.text) else {
                continue;
            };
            if let Some((other, _, other_cmd)) = seen.iter().find(|(_, m, _)| *m != man)
                && self.conflicts.insert((f.path.clone(), other.clone()))
            {
                let msg = content::commands::message(&cmd, &self.show(other), other_cmd);
                let span = LineIndex::new(&f.file.text).span(r);
                let related = self.related(std::slice::from_ref(other), "the other command");
                self.push(
                    &f.path,
                    span,
                    Code::InstructionsCommandsConflict,
                    msg,
                    related,
                );
            }
            seen.push((f.path.clone(), man, cmd));
        }
    }

    /// Records the effects of one startup list shared by `weight` directories (`rep` is the
    /// one with the fewest components).
    fn account(&mut self, list: &[ListedFile], weight: usize, rep: &DirNode) {
        self.command_conflicts(list);
        let host = self.setup.host;
        for (i, f) in list.iter().enumerate() {
            self.texts
                .entry(f.path.clone())
                .or_insert_with(|| f.file.clone());
            let others: Vec<PathBuf> = if host == Host::Codex {
                list[..i]
                    .iter()
                    .filter(|o| o.charged && o.bytes > 0)
                    .map(|o| o.path.clone())
                    .collect()
            } else {
                list[i + 1..]
                    .iter()
                    .filter(|o| o.kept_bytes > 0)
                    .map(|o| o.path.clone())
                    .collect()
            };
            let e = self.effects.entry(f.path.clone()).or_default();
            e.dirs += weight;
            match f.truncation {
                Truncation::Beginning | Truncation::End => {
                    e.cut += weight;
                    let cut = f.bytes - f.kept_bytes;
                    if e.cut_best
                        .as_ref()
                        .is_none_or(|b| better((cut, rep.depth, &rep.path), (b.0, b.1, &b.2)))
                    {
                        e.cut_best = Some((cut, rep.depth, rep.path.clone(), f.kept_bytes, others));
                    }
                }
                Truncation::Dropped => {
                    e.dropped += weight;
                    if e.drop_best
                        .as_ref()
                        .is_none_or(|b| better((0, rep.depth, &rep.path), (0, b.0, &b.1)))
                    {
                        e.drop_best = Some((rep.depth, rep.path.clone(), others));
                    }
                }
                Truncation::None => {}
            }
        }
    }

    /// Per-file facts of a read file: file cut, invalid UTF-8, empty, and the content rules.
    fn file_facts(&mut self, path: &Path, file: &FileText, hides: &[String]) {
        let found = content::checks(&file.text)
            .into_iter()
            .chain(content::disk_checks(
                self.setup.fs,
                self.setup.root,
                path,
                &file.text,
            ));
        for (code, r, msg) in found {
            let span = LineIndex::new(&file.text).span(r);
            self.push(path, span, code, msg, vec![]);
        }
        if file.cut {
            let idx = LineIndex::new(&file.text);
            let start = idx.line_col(file.text.len());
            // Streamed: the file may be far larger than what the rules read.
            let end = match super::read::end_position_of(self.setup.fs, path, true) {
                Ok((line, utf16, utf8)) => LineCol { line, utf16, utf8 },
                Err(_) => start,
            };
            let span = Span {
                start,
                end,
                bytes: TextRange::new(
                    file.text.len(),
                    usize::try_from(file.file_bytes).unwrap_or(usize::MAX),
                ),
            };
            let msg = format!(
                "only the first {} of {} bytes are read (per-file limit {}); the rest never reaches the model",
                file.text.len(),
                file.file_bytes,
                crate::instructions::PER_FILE_LIMIT
            );
            let msg = msg.replace("(per-file limit 262144)", "(per-file limit 262144 bytes)");
            self.push(path, span, Code::InstructionsFileCut, msg, vec![]);
        }
        if let (Some(r), Some(line)) = (file.first_invalid, file.first_invalid_line()) {
            let span = LineIndex::new(&file.text).span(r);
            let msg = format!(
                "{} invalid UTF-8 sequence(s) reach the model as U+FFFD (first at line {line})",
                file.invalid
            );
            self.push(path, span, Code::InstructionsInvalidUtf8, msg, vec![]);
        }
        if file.empty && file.error.is_none() {
            let mut msg = "empty instruction file: it adds nothing".to_string();
            if !hides.is_empty() {
                msg.push_str(&format!(
                    " and hides {} in this directory",
                    hides.join(", ")
                ));
            }
            self.push(
                path,
                first_line_span(&file.text),
                Code::InstructionsEmpty,
                msg,
                vec![],
            );
        }
    }

    /// Near-miss names (spec/instructions.md §5.2 `instructions-unread-name`) in one listing.
    fn near_misses(&mut self, dir: &Path, entries: &[DirEntry], names: &[String]) {
        let host = self.setup.host;
        for e in entries {
            if e.file_type != FileType::File {
                continue;
            }
            let Some(name) = e.name.to_str() else {
                continue;
            };
            // Only a near miss gets a path: this runs for every file of the workspace.
            if host == Host::Alisio && name.eq_ignore_ascii_case("Agente.md") {
                let path = dir.join(name);
                self.file_level(
                    &path,
                    Code::InstructionsUnreadName,
                    "not read: Agente.md is no longer read; rename it to AGENTS.md".into(),
                    vec![],
                );
                self.report(&path, None, Some("Agente.md is no longer read".into()));
                continue;
            }
            if names.iter().any(|n| n == name) {
                continue;
            }
            if let Some(expected) = names.iter().find(|n| n.eq_ignore_ascii_case(name)) {
                let path = dir.join(name);
                let msg = format!(
                    "not read: {} reads \"{expected}\" (names are case-sensitive)",
                    host.as_str()
                );
                self.file_level(&path, Code::InstructionsUnreadName, msg, vec![]);
                self.report(
                    &path,
                    None,
                    Some(format!("names are case-sensitive (\"{expected}\")")),
                );
            }
        }
    }

    /// `hidden-by-override` / `hidden` / `claude-ignored` for a losing candidate.
    fn loser(&mut self, dir: &Path, name: &str, winner: &str, winner_kind: FileKind) {
        let path = dir.join(name);
        let wpath = dir.join(winner);
        let related = vec![Related {
            file: wpath.clone(),
            span: self.first_line(&wpath),
            message: format!("{winner} wins in this directory"),
        }];
        if name == "CLAUDE.md" {
            let msg = format!("not read: {winner} in the same directory wins");
            self.file_level(&path, Code::InstructionsClaudeIgnored, msg, related);
        } else if winner_kind == FileKind::Override {
            self.file_level(
                &path,
                Code::InstructionsHiddenByOverride,
                "never read: AGENTS.override.md in the same directory replaces it".into(),
                related,
            );
        } else {
            self.file_level(
                &path,
                Code::InstructionsHidden,
                format!("never read: {winner} in the same directory wins"),
                related,
            );
        }
        let reason = if winner_kind == FileKind::Override && name != "CLAUDE.md" {
            "hidden by AGENTS.override.md".to_string()
        } else {
            format!("{winner} wins")
        };
        self.report(&path, None, Some(reason));
    }
}

/// Diagnostics and file reports of one workspace for `setup.host`. `include_global` adds the
/// global file's own diagnostics (only when it is open or named on the command line, spec/instructions.md §5.1).
///
/// Listing errors inside D are logged and the directory counts as empty; nothing fails.
#[must_use]
pub fn analyze(setup: &Setup<'_>, include_global: bool) -> Analysis {
    analyze_set(setup, &walk(setup.fs, setup.root), include_global)
}

/// [`analyze`] over a directory set walked by the caller (the language server walks once and
/// shares the listings with skill discovery).
#[must_use]
pub fn analyze_set(setup: &Setup<'_>, set: &DirSet, include_global: bool) -> Analysis {
    let reader = Reader::new(setup.fs);
    let mut cx = Ctx {
        setup,
        reader: &reader,
        root: setup.root.to_path_buf(),
        diags: Vec::new(),
        reports: Vec::new(),
        report_at: HashMap::new(),
        texts: HashMap::new(),
        effects: HashMap::new(),
        conflicts: std::collections::HashSet::new(),
    };
    let global_path = match setup.host {
        Host::Alisio => alisio(&mut cx, set, include_global),
        Host::Codex => codex_host(&mut cx, set),
        Host::ClaudeCode => claude_host(&mut cx, set),
        // spec/hosts.md §5: their diagnostics come from `host_diagnostics` below.
        Host::Copilot | Host::Gemini | Host::Cursor => None,
    };
    finish(&mut cx, global_path.as_deref());
    if !include_global && let Some(g) = &global_path {
        cx.diags.retain(|d| &d.file != g);
    }
    let mut diagnostics = cx.diags;
    diagnostics.extend(hosts::diagnostics(setup, &reader, set));
    let global = setup
        .env
        .xdg_config_home
        .clone()
        .or_else(|| setup.env.home.as_ref().map(|h| h.join(".config")))
        .map(|c| c.join("git").join("ignore"));
    for p in content::local_ignored::not_ignored(setup.fs, setup.root, set, global.as_deref()) {
        let t = reader.read(&p, ReadMode::Claude);
        diagnostics.push(Diagnostic::new(
            &p,
            first_line_span(&t.text),
            Severity::Warning,
            Code::InstructionsLocalNotIgnored,
            content::local_ignored::MESSAGE,
        ));
    }
    alisio_base::diagnostic::sort(&mut diagnostics);
    diagnostics.dedup();
    Analysis {
        root: cx.root,
        host: setup.host,
        dir_count: set.dirs.len(),
        truncated: set.truncated,
        files: cx.reports,
        diagnostics,
    }
}

/// Turns the accumulated effects into `truncated`/`dropped` diagnostics and file reports.
fn finish(cx: &mut Ctx<'_, '_>, global: Option<&Path>) {
    let host = cx.setup.host;
    let max = match host {
        Host::Alisio => u64::from(cx.setup.settings.max_bytes),
        Host::Codex => CodexConfig::load(cx.setup).max_bytes,
        Host::ClaudeCode | Host::Copilot | Host::Gemini | Host::Cursor => 0,
    };
    let mut paths: Vec<PathBuf> = cx.effects.keys().cloned().collect();
    paths.sort();
    for p in paths {
        let Some(e) = cx.effects.remove(&p) else {
            continue;
        };
        let Some(text) = cx.texts.get(&p).cloned() else {
            continue;
        };
        let size = if host == Host::Codex && !text.empty && text.error.is_none() {
            usize::try_from(text.file_bytes).unwrap_or(usize::MAX)
        } else {
            text.size()
        };
        if let Some((cut, _, dir, kept, others)) = &e.cut_best {
            let d = cx.show(dir);
            let related = cx.related(
                others,
                if host == Host::Codex {
                    "file above it"
                } else {
                    "closer file"
                },
            );
            let idx = LineIndex::new(&text.text);
            if host == Host::Codex {
                let raw: &[u8] = if text.raw.is_empty() {
                    text.text.as_bytes()
                } else {
                    &text.raw
                };
                let splits = raw.get(*kept).is_some_and(|b| b & 0xC0 == 0x80);
                let end = if (text.raw.len() as u64) < text.file_bytes {
                    match super::read::end_position_of(cx.setup.fs, &p, false) {
                        Ok((line, utf16, utf8)) => LineCol { line, utf16, utf8 },
                        Err(_) => idx.line_col(text.text.len()),
                    }
                } else {
                    idx.line_col(text.text.len())
                };
                let span = Span {
                    start: idx.line_col(*kept),
                    end,
                    bytes: TextRange::new(*kept, size),
                };
                let mut msg = format!(
                    "Codex loads only the first {kept} of {size} bytes for {} (e.g. {d}): the files above it use the rest of project_doc_max_bytes ({max})",
                    directories(e.cut)
                );
                if splits {
                    msg.push_str("; the cut splits a character, which Codex shows as U+FFFD");
                }
                cx.push(&p, span, Code::InstructionsTruncated, msg, related);
            } else {
                let span = idx.span(TextRange::new(0, *cut));
                let msg = format!(
                    "only the last {kept} of {size} bytes are loaded for {} (e.g. {d}): the closer files use the rest of context.maxBytes ({max})",
                    directories(e.cut)
                );
                cx.push(&p, span, Code::InstructionsTruncated, msg, related);
            }
        }
        if let Some((_, dir, others)) = &e.drop_best {
            let d = cx.show(dir);
            let named: Vec<PathBuf> = others.iter().take(3).cloned().collect();
            let mut names = named
                .iter()
                .map(|n| cx.show(n))
                .collect::<Vec<_>>()
                .join(", ");
            if others.len() > 3 {
                names.push_str(&format!(" and {} more", others.len() - 3));
            }
            let msg = match host {
                Host::Alisio => format!(
                    "not loaded for {} (e.g. {d}): the closer files {names} use the whole context.maxBytes budget ({max})",
                    directories(e.dropped)
                ),
                Host::Codex => format!(
                    "Codex does not read this file for {} (e.g. {d}): the files above it ({names}) use the whole project_doc_max_bytes budget ({max})",
                    directories(e.dropped)
                ),
                Host::ClaudeCode | Host::Copilot | Host::Gemini | Host::Cursor => {
                    "Claude Code skips this file: it is over 4 MiB".to_string()
                }
            };
            let related = cx.related(
                &named,
                if host == Host::Codex {
                    "file above it"
                } else {
                    "closer file"
                },
            );
            let span = first_line_span(&text.text);
            cx.push(&p, span, Code::InstructionsDropped, msg, related);
        }
        let kind = cx
            .report_at
            .get(&p)
            .and_then(|i| cx.reports.get(*i))
            .and_then(|r| r.kind);
        let report = FileReport {
            path: p.clone(),
            kind,
            global: Some(p.as_path()) == global,
            size,
            file_bytes: text.file_bytes,
            dirs: e.dirs,
            cut: e.cut,
            cut_example: e.cut_best.as_ref().map(|b| (cx.show(&b.2), b.3)),
            dropped: e.dropped,
            dropped_example: e.drop_best.as_ref().map(|b| cx.show(&b.1)),
            not_read: None,
            empty: text.empty,
            file_cut: text.cut,
            invalid: text.invalid,
        };
        if let Some(r) = cx.report_mut(&p) {
            *r = report;
        } else {
            cx.report_at.insert(p.clone(), cx.reports.len());
            cx.reports.push(report);
        }
        if let Some((_, claude_file)) = &e.agents_mode {
            let msg = format!(
                "Claude Code does not read this file: {} exists (project instructions mode claude-md-or-agents-md)",
                cx.show(claude_file)
            );
            cx.file_level(&p, Code::InstructionsDropped, msg, vec![]);
        }
    }
}

/// Groups D by the nearest "significant" directory (itself included); returns for each
/// directory its group key (`None`: no significant ancestor) and the group sizes.
fn groups(
    set: &DirSet,
    significant: &[bool],
) -> (Vec<Option<usize>>, HashMap<Option<usize>, usize>) {
    let mut key = Vec::with_capacity(set.dirs.len());
    let mut size: HashMap<Option<usize>, usize> = HashMap::new();
    for (i, d) in set.dirs.iter().enumerate() {
        let k = if significant.get(i).copied().unwrap_or(false) {
            Some(i)
        } else {
            d.parent.and_then(|p| key.get(p).copied().flatten())
        };
        key.push(k);
        *size.entry(k).or_default() += 1;
    }
    (key, size)
}

fn sorted_keys(size: &HashMap<Option<usize>, usize>) -> Vec<Option<usize>> {
    let mut keys: Vec<Option<usize>> = size.keys().copied().collect();
    keys.sort();
    keys
}

/// The nearest significant ancestor-or-self of `i`.
fn nearest(set: &DirSet, significant: &[bool], i: usize) -> Option<usize> {
    let mut cur = Some(i);
    while let Some(c) = cur {
        if significant.get(c).copied().unwrap_or(false) {
            return Some(c);
        }
        cur = set.dirs.get(c).and_then(|d| d.parent);
    }
    None
}

fn is_below_or_eq(set: &DirSet, i: usize, anc: usize) -> bool {
    let mut cur = Some(i);
    while let Some(c) = cur {
        if c == anc {
            return true;
        }
        cur = set.dirs.get(c).and_then(|d| d.parent);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_follow_the_host_table() {
        assert_eq!(
            severity(Host::Alisio, Code::InstructionsSymlink),
            Some(Severity::Error)
        );
        assert_eq!(severity(Host::Codex, Code::InstructionsSymlink), None);
        assert_eq!(
            severity(Host::ClaudeCode, Code::InstructionsTruncated),
            None
        );
        assert_eq!(
            severity(Host::ClaudeCode, Code::InstructionsDropped),
            Some(Severity::Warning)
        );
        assert_eq!(severity(Host::Codex, Code::InstructionsLegacyName), None);
        assert_eq!(
            severity(Host::Alisio, Code::InstructionsLegacyName),
            Some(Severity::Information)
        );
        assert_eq!(
            severity(Host::Codex, Code::InstructionsClaudeIgnored),
            Some(Severity::Hint)
        );
        assert_eq!(
            severity(Host::ClaudeCode, Code::InstructionsEmpty),
            Some(Severity::Information)
        );
        assert_eq!(
            severity(Host::Alisio, Code::InstructionsFileCut),
            Some(Severity::Warning)
        );
    }
}
