//! Rules on the text of an instruction file the host reads (spec/instructions.md §5.5), one file
//! per rule with its tests; [`checks`] runs them all on one file.

pub mod claude_imports;
pub mod fence_unclosed;
pub mod too_long;

use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

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
