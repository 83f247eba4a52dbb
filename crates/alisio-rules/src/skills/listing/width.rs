//! Terminal display width, the measure of Claude Code's listing budget (`Bun.stringWidth`):
//! wide and fullwidth characters and emoji count 2, combining marks and control characters
//! (line breaks included) 0, everything else 1.

use unicode_width::UnicodeWidthChar;

#[must_use]
pub fn width(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

#[cfg(test)]
mod tests {
    use super::width;

    #[test]
    fn the_widths_the_real_client_counted() {
        // Ten emoji and ten CJK characters each took 20 columns of the budget (docs/skills.md).
        assert_eq!(width(&"😀".repeat(10)), 20);
        assert_eq!(width(&"数".repeat(10)), 20);
        assert_eq!(width("a—b…\n"), 4);
    }
}
