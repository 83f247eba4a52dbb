//! `instructions-too-long` (opinionated; spec/instructions.md §5.5): an instruction file over
//! 200 lines, Claude Code's documented size guidance for CLAUDE.md (a Cursor rule: 500, a Copilot
//! instruction file: 1,000, their hosts' guidance).

use alisio_base::text::TextRange;

/// Lines past which a file is "too long".
pub const MAX_LINES: usize = 200;

/// The number of lines and the range of the first line past [`MAX_LINES`], when there is one. A
/// final line break does not start another line.
#[must_use]
pub fn too_long(text: &str) -> Option<(usize, TextRange)> {
    too_long_at(text, MAX_LINES)
}

/// Cursor's documented size guidance for one rule file.
pub const CURSOR_MAX_LINES: usize = 500;

/// GitHub's documented size guidance for one Copilot instruction file (docs.github.com
/// "Customizing code review": limit any single instruction file to at most 1,000 lines).
pub const COPILOT_MAX_LINES: usize = 1000;

/// [`too_long`] with another limit.
#[must_use]
pub fn too_long_at(text: &str, max: usize) -> Option<(usize, TextRange)> {
    let mut first_over = None;
    let mut n = 0usize;
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        n += 1;
        if n == max + 1 {
            let content = line.trim_end_matches(['\n', '\r']);
            first_over = Some(TextRange::new(pos, pos + content.len()));
        }
        pos += line.len();
    }
    first_over.map(|r| (n, r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_hundred_lines_are_fine_and_the_next_one_is_reported() {
        let ok = "x\n".repeat(200);
        assert_eq!(too_long(&ok), None);
        let over = format!("{ok}line 201\nlast");
        assert_eq!(too_long(&over), Some((202, TextRange::new(400, 408))));
        assert_eq!(too_long_at(&over, CURSOR_MAX_LINES), None);
        let copilot = "x\n".repeat(COPILOT_MAX_LINES);
        assert_eq!(too_long_at(&copilot, COPILOT_MAX_LINES), None);
        assert_eq!(
            too_long_at(&format!("{copilot}y\n"), COPILOT_MAX_LINES),
            Some((1001, TextRange::new(2000, 2001)))
        );
    }
}
