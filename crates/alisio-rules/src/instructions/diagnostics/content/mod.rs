//! Rules on the text of an instruction file the host reads (spec/instructions.md §5.5), one file
//! per rule with its tests; [`checks`] runs them all on one file.

pub mod always_loaded;
pub mod claude_imports;
pub mod commands;
pub mod fence_unclosed;
pub mod frontmatter;
pub mod links;
pub mod local_ignored;
pub mod secrets;
pub mod too_long;
pub mod xml_tags;

use std::path::Path;

use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;
use alisio_base::workspace::Fs;

/// Every content finding of one read file: code, byte range, message.
#[must_use]
pub fn checks(text: &str) -> Vec<(Code, TextRange, String)> {
    let mut out = Vec::new();
    if let Some((r, after)) = fence_unclosed::unclosed(text) {
        let lines = if after == 1 { "line" } else { "lines" };
        out.push((
            Code::InstructionsFenceUnclosed,
            r,
            format!("this code fence is never closed: the {after} {lines} after it read as code"),
        ));
    }
    for (r, what) in secrets::find(text) {
        out.push((Code::InstructionsSecret, r, secrets::message(text, r, what)));
    }
    for (r, u) in xml_tags::unbalanced(text) {
        out.push((Code::InstructionsXmlUnbalanced, r, xml_tags::message(&u)));
    }
    if let Some((n, r)) = too_long::too_long(text) {
        out.push((
            Code::InstructionsTooLong,
            r,
            format!(
                "{n} lines: Claude Code's guidance is to keep an instruction file under 200 lines (longer files cost context and are followed less reliably)"
            ),
        ));
    }
    out
}

/// The findings that need the path or the disk: the frontmatter rules of the file's family
/// (`frontmatter`), and links and backticked paths that name no file
/// (`instructions-link-broken`), for the file `file` of the workspace `root`.
#[must_use]
pub fn disk_checks(
    fs: &dyn Fs,
    root: &Path,
    file: &Path,
    text: &str,
) -> Vec<(Code, TextRange, String)> {
    let mut out = frontmatter::checks(file, text);
    out.extend(
        links::broken(fs, root, file, text)
            .iter()
            .map(|b| (Code::InstructionsLinkBroken, b.range, links::message(b))),
    );
    out
}
