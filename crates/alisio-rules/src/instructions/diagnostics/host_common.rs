//! What the diagnostics of the hosts `copilot`, `gemini` and `cursor` share (spec/hosts.md §5): the
//! severity of a host diagnostic and its ranges, and the [`GlobScan`] the glob checks read. Below
//! the host modules and `hosts.rs`, so no import cycle runs between them.

use std::path::{Path, PathBuf};

use super::super::Setup;
use super::super::read::Reader;
use super::content;
use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, Span, TextRange, first_line_span};
use alisio_base::workspace::walk::DirSet;

/// A diagnostic of a host file, with the severity of spec/hosts.md §5.
pub(super) fn diag(file: &Path, span: Span, code: Code, message: String) -> Diagnostic {
    let severity = if matches!(
        code,
        Code::InstructionsRuleManualOnly
            | Code::InstructionsEmpty
            | Code::InstructionsFrontmatterInert
            | Code::InstructionsLegacyName
    ) {
        Severity::Information
    } else {
        Severity::Warning
    };
    Diagnostic::new(file, span, severity, code, message)
}

/// The file-level range of a text (spec/instructions.md §5.1).
pub(super) fn file_level(text: &str) -> Span {
    first_line_span(text)
}

pub(super) fn span_of(text: &str, r: TextRange) -> Span {
    LineIndex::new(text).span(r)
}

/// What the glob checks of a host read: the setup, the reader, D and D's regular files.
#[derive(Clone, Copy)]
pub(super) struct GlobScan<'a> {
    pub setup: &'a Setup<'a>,
    pub reader: &'a Reader<'a>,
    pub set: &'a DirSet,
    pub files: &'a [PathBuf],
}

/// The content rules (spec/instructions.md §5.5) on one file of a host of spec/hosts.md §5:
/// everything but `instructions-too-long`, whose guidance is Claude Code's.
pub(super) fn content_diagnostics(setup: &Setup<'_>, file: &Path, text: &str) -> Vec<Diagnostic> {
    let idx = LineIndex::new(text);
    let mut out: Vec<Diagnostic> = content::checks(text)
        .into_iter()
        .chain(content::disk_checks(setup.fs, setup.root, file, text))
        .filter(|(code, _, _)| *code != Code::InstructionsTooLong)
        .map(|(code, r, msg)| diag(file, idx.span(r), code, msg))
        .collect();
    // A Cursor rule gets Cursor's own size guidance instead.
    if content::frontmatter::frontmatter_kind(file)
        == Some(content::frontmatter::FrontmatterKind::Cursor)
        && let Some((n, r)) =
            content::too_long::too_long_at(text, content::too_long::CURSOR_MAX_LINES)
    {
        let mut d = diag(
            file,
            idx.span(r),
            Code::InstructionsTooLong,
            format!(
                "{n} lines: Cursor's guidance is to keep a rule under 500 lines (split it into smaller rules that compose)"
            ),
        );
        d.severity = Severity::Information;
        out.push(d);
    }
    // A Copilot file gets GitHub's (docs.github.com "Customizing code review").
    if matches!(
        content::frontmatter::frontmatter_kind(file),
        Some(
            content::frontmatter::FrontmatterKind::Copilot
                | content::frontmatter::FrontmatterKind::CopilotRepo
        )
    ) && let Some((n, r)) =
        content::too_long::too_long_at(text, content::too_long::COPILOT_MAX_LINES)
    {
        let mut d = diag(
            file,
            idx.span(r),
            Code::InstructionsTooLong,
            format!(
                "{n} lines: GitHub's guidance is to keep an instruction file to at most 1,000 lines, past which Copilot's responses may get worse (split it into files scoped with applyTo)"
            ),
        );
        d.severity = Severity::Information;
        out.push(d);
    }
    out
}
