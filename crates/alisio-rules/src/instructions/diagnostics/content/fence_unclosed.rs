//! `instructions-fence-unclosed` (spec/instructions.md §5.5): a code fence that is never closed,
//! so the rest of the file renders, and reads to a model, as code.

use alisio_base::text::TextRange;

/// The opening line of the first fence that is never closed, with the number of lines after it.
/// A fence is a line whose text (any indentation, so fences inside list items count) starts with
/// three or more backticks or tildes; it closes on a line of the same character, at least as
/// long, with nothing else (CommonMark §4.5). A backtick fence's info string has no backtick.
#[must_use]
pub fn unclosed(text: &str) -> Option<(TextRange, usize)> {
    let mut open: Option<(TextRange, char, usize)> = None;
    let mut after = 0usize;
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let t = content.trim_start();
        let ch = match t.chars().next() {
            Some(c @ ('`' | '~')) => c,
            _ => {
                if open.is_some() {
                    after += 1;
                }
                continue;
            }
        };
        let run = t.chars().take_while(|c| *c == ch).count();
        match open {
            None if run >= 3 => {
                let info = &t[run..];
                if ch == '`' && info.contains('`') {
                    continue;
                }
                open = Some((TextRange::new(start, start + content.len()), ch, run));
                after = 0;
            }
            Some((_, c, n)) if c == ch && run >= n && t[run..].trim().is_empty() => open = None,
            Some(_) => after += 1,
            None => {}
        }
    }
    open.map(|(r, _, _)| (r, after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_fences_and_inline_code_are_fine() {
        assert_eq!(
            unclosed("# A\n\n```sh\ncargo test\n```\n\nUse `x`.\n"),
            None
        );
        assert_eq!(unclosed("~~~~\n```\n~~~~\n"), None);
        assert_eq!(unclosed("- item\n\n  ```\n  code\n  ```\n"), None);
        assert_eq!(unclosed("``` not `a` fence\n"), None);
    }

    #[test]
    fn an_unclosed_fence_is_its_opening_line_and_the_lines_after_it() {
        let t = "# A\n\n```sh\ncargo test\n\n## B\n";
        assert_eq!(unclosed(t), Some((TextRange::new(5, 10), 3)));
        // A shorter run or another character does not close it.
        assert_eq!(
            unclosed("````\n```\n~~~~\n"),
            Some((TextRange::new(0, 4), 2))
        );
    }
}
