//! The only place that builds or reads LSP positions, with the negotiated encoding
//! (UTF-16 by default, UTF-8 when the client offers it first).

use ropey::Rope;
use tower_lsp_server::ls_types::{Position, Range};

use alisio_base::text::{Encoding, LineCol, Span};

pub mod to_lsp {
    use super::{Encoding, LineCol, Position, Range, Span};

    #[must_use]
    pub fn position(lc: LineCol, enc: Encoding) -> Position {
        Position {
            line: lc.line,
            character: lc.col(enc),
        }
    }

    #[must_use]
    pub fn range(span: &Span, enc: Encoding) -> Range {
        Range {
            start: position(span.start, enc),
            end: position(span.end, enc),
        }
    }
}

pub mod from_lsp {
    use super::{Encoding, Position, Rope};

    /// Char index in `rope` of an LSP position. Lines past the end clamp to the end of the text,
    /// columns past the end of a line clamp to the end of that line (before its line break), and
    /// a column inside a character moves to the start of that character.
    #[must_use]
    pub fn char_index(rope: &Rope, pos: Position, enc: Encoding) -> usize {
        let line = pos.line as usize;
        if line >= rope.len_lines() {
            return rope.len_chars();
        }
        let start = rope.line_to_char(line);
        let slice = rope.line(line);
        // Lines end at `\n`, `\r\n` or a lone `\r` (LSP's rule; ropey's `cr_lines`, and
        // `text::LineIndex`, agree).
        let mut content_chars = slice.len_chars();
        if content_chars > 0 && slice.char(content_chars - 1) == '\n' {
            content_chars -= 1;
            if content_chars > 0 && slice.char(content_chars - 1) == '\r' {
                content_chars -= 1;
            }
        } else if content_chars > 0 && slice.char(content_chars - 1) == '\r' {
            content_chars -= 1;
        }
        let col = pos.character as usize;
        let offset_chars = match enc {
            Encoding::Utf16 => {
                let content_units = slice.char_to_utf16_cu(content_chars);
                let units = col.min(content_units);
                let c = slice.utf16_cu_to_char(units);
                // utf16_cu_to_char rounds down inside a surrogate pair.
                c
            }
            Encoding::Utf8 => {
                let content_bytes = slice.char_to_byte(content_chars);
                slice.byte_to_char(col.min(content_bytes))
            }
        };
        start + offset_chars.min(content_chars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_columns_map_to_the_same_char() {
        let rope = Rope::from_str("😀a\r\nb");
        assert_eq!(
            from_lsp::char_index(&rope, Position::new(0, 2), Encoding::Utf16),
            1
        );
        assert_eq!(
            from_lsp::char_index(&rope, Position::new(0, 4), Encoding::Utf8),
            1
        );
        assert_eq!(
            from_lsp::char_index(&rope, Position::new(0, 1), Encoding::Utf16),
            0
        );
        assert_eq!(
            from_lsp::char_index(&rope, Position::new(0, 99), Encoding::Utf16),
            2
        );
        assert_eq!(
            from_lsp::char_index(&rope, Position::new(1, 0), Encoding::Utf16),
            4
        );
        assert_eq!(
            from_lsp::char_index(&rope, Position::new(9, 9), Encoding::Utf16),
            5
        );
        let cr = Rope::from_str("ab\rcd");
        assert_eq!(
            from_lsp::char_index(&cr, Position::new(0, 9), Encoding::Utf16),
            2
        );
        assert_eq!(
            from_lsp::char_index(&cr, Position::new(1, 1), Encoding::Utf16),
            4
        );
    }
}
