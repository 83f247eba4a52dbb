//! Text positions: byte offsets into a `&str`, line starts, and the two column encodings
//! (UTF-8 bytes and UTF-16 code units) that LSP clients negotiate.
//!
//! Core modules compute [`Span`]s here once, from the exact text they judged; `lsp::positions`
//! and the CLI only *pick* the column encoding. Nothing else does position arithmetic.
//! Also the two text measures every layer shares: [`chars`] and [`sha256_hex`].
//! Line breaks are LF, CRLF or a lone CR, as in LSP; a `\r` before `\n` belongs to the line's
//! content for column purposes but is excluded from "end of line" ranges.

use sha2::{Digest, Sha256};

/// Number of chars (Unicode scalar values).
#[must_use]
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Lower-case hex SHA-256 of a text or of bytes.
#[must_use]
pub fn sha256_hex(data: impl AsRef<[u8]>) -> String {
    Sha256::digest(data.as_ref())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A half-open byte range `[start, end)` into a text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextRange {
    pub start: usize,
    pub end: usize,
}

impl TextRange {
    #[must_use]
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }
    #[must_use]
    pub const fn empty(at: usize) -> Self {
        Self { start: at, end: at }
    }
}

/// A 0-based line and column, with the column in both encodings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    /// Column in UTF-16 code units (the LSP default).
    pub utf16: u32,
    /// Column in UTF-8 bytes (when the client negotiated `utf-8`).
    pub utf8: u32,
}

/// A located range: byte offsets plus their line/column form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: LineCol,
    pub end: LineCol,
    pub bytes: TextRange,
}

/// Column encoding negotiated with a client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    #[default]
    Utf16,
    Utf8,
}

impl LineCol {
    #[must_use]
    pub const fn col(&self, enc: Encoding) -> u32 {
        match enc {
            Encoding::Utf16 => self.utf16,
            Encoding::Utf8 => self.utf8,
        }
    }
}

/// Line starts of one text. Cheap to build (one pass over the bytes).
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        let b = text.as_bytes();
        let mut starts = Vec::with_capacity(1 + b.len() / 32);
        starts.push(0);
        // A line break is LF, CRLF or a lone CR (LSP's definition). memchr finds the candidates
        // a vector at a time: every validated skill builds at least one index (issue 14, speed).
        starts.extend(
            memchr::memchr2_iter(b'\n', b'\r', b)
                .filter(|&i| b[i] == b'\n' || b.get(i + 1) != Some(&b'\n'))
                .map(|i| i + 1),
        );
        Self { text, starts }
    }

    #[must_use]
    pub fn text(&self) -> &'a str {
        self.text
    }

    #[must_use]
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Line/column of a byte offset. An offset inside a character is moved back to the start of
    /// that character; an offset past the end is clamped to the end.
    #[must_use]
    pub fn line_col(&self, offset: usize) -> LineCol {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let seg = &self.text[self.starts[line]..offset];
        LineCol {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            utf8: u32::try_from(seg.len()).unwrap_or(u32::MAX),
            utf16: u32::try_from(seg.encode_utf16().count()).unwrap_or(u32::MAX),
        }
    }

    #[must_use]
    pub fn span(&self, range: TextRange) -> Span {
        Span {
            start: self.line_col(range.start),
            end: self.line_col(range.end),
            bytes: range,
        }
    }

    /// Byte range of line `line` without its line break (`\r\n` or `\n`).
    #[must_use]
    pub fn line_range(&self, line: usize) -> TextRange {
        let Some(&start) = self.starts.get(line) else {
            return TextRange::empty(self.text.len());
        };
        let mut end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |&n| n - 1);
        if end > start && self.text.as_bytes()[end - 1] == b'\r' && end < self.text.len() {
            end -= 1;
        }
        TextRange::new(start, end)
    }

    /// Byte offset of a line and column given in `enc`. Out-of-range lines clamp to the end of
    /// the text, out-of-range columns to the end of the line (LSP's rule), and a column inside a
    /// character moves to the start of that character (as `lsp::positions::from_lsp` does).
    #[must_use]
    pub fn offset(&self, line: u32, col: u32, enc: Encoding) -> usize {
        let line = line as usize;
        if line >= self.starts.len() {
            return self.text.len();
        }
        let lr = self.line_range(line);
        let content = &self.text[lr.start..lr.end];
        let mut units = 0u64;
        for (i, ch) in content.char_indices() {
            let width = match enc {
                Encoding::Utf16 => ch.len_utf16(),
                Encoding::Utf8 => ch.len_utf8(),
            } as u64;
            if units + width > u64::from(col) {
                return lr.start + i;
            }
            units += width;
        }
        lr.end
    }
}

/// The span of line 0 from column 0 to the end of that line (the "file-level range" of
/// spec/instructions.md §5.1); `0:0–0:0` for empty text.
#[must_use]
pub fn first_line_span(text: &str) -> Span {
    let idx = LineIndex::new(text);
    idx.span(idx.line_range(0))
}

/// The largest char boundary `<= at` in `bytes` treated as UTF-8 (an offset whose byte is not a
/// continuation byte `10xxxxxx`).
#[must_use]
pub fn floor_boundary(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    while i > 0 && i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}

/// The smallest char boundary `>= at` in `bytes` (continuation bytes skipped).
#[must_use]
pub fn ceil_boundary(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    while i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
        i += 1;
    }
    i
}

/// `%XX` escapes decoded (a link target as Markdown writes it); an invalid escape stays as
/// written, invalid UTF-8 is replaced.
#[must_use]
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| char::from(c).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'%'));
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_measures() {
        assert_eq!(chars("a😀é"), 3);
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256_hex(b"abc".as_slice()), sha256_hex("abc"));
    }

    #[test]
    fn columns_count_utf16_units_and_utf8_bytes() {
        let t = "😀😀aaa\nx";
        let idx = LineIndex::new(t);
        let lc = idx.line_col(8);
        assert_eq!(
            lc,
            LineCol {
                line: 0,
                utf16: 4,
                utf8: 8
            }
        );
        assert_eq!(
            idx.line_col(t.len()),
            LineCol {
                line: 1,
                utf16: 1,
                utf8: 1
            }
        );
    }

    #[test]
    fn offset_inside_a_character_moves_to_its_start() {
        let idx = LineIndex::new("a😀b");
        assert_eq!(idx.line_col(3).utf8, 1);
    }

    #[test]
    fn line_range_excludes_crlf() {
        let idx = LineIndex::new("ab\r\ncd");
        assert_eq!(idx.line_range(0), TextRange::new(0, 2));
        assert_eq!(idx.line_range(1), TextRange::new(4, 6));
        assert_eq!(idx.line_range(7), TextRange::empty(6));
    }

    #[test]
    fn a_lone_carriage_return_breaks_the_line() {
        let idx = LineIndex::new("a\rb\r\nc");
        assert_eq!(idx.line_count(), 3);
        assert_eq!(idx.line_range(0), TextRange::new(0, 1));
        assert_eq!(idx.line_range(1), TextRange::new(2, 3));
        assert_eq!(
            idx.line_col(5),
            LineCol {
                line: 2,
                utf16: 0,
                utf8: 0
            }
        );
    }

    #[test]
    fn offset_round_trips_and_clamps() {
        let idx = LineIndex::new("😀x\nyz");
        assert_eq!(idx.offset(0, 2, Encoding::Utf16), 4);
        assert_eq!(idx.offset(0, 4, Encoding::Utf8), 4);
        assert_eq!(idx.offset(0, 99, Encoding::Utf16), 5);
        assert_eq!(idx.offset(9, 0, Encoding::Utf16), 8);
    }

    #[test]
    fn offset_inside_a_character_moves_to_its_start_like_the_editor_positions() {
        // Found while writing the line_index fuzz target's model: this used to move forward to the next character
        // while `lsp::positions` moved back, so one client position meant two offsets.
        let idx = LineIndex::new("😀x\né");
        assert_eq!(idx.offset(0, 1, Encoding::Utf16), 0);
        assert_eq!(idx.offset(0, 3, Encoding::Utf8), 0);
        assert_eq!(idx.offset(1, 1, Encoding::Utf8), 6);
        assert_eq!(idx.offset(1, 2, Encoding::Utf8), 8);
    }

    #[test]
    fn boundaries() {
        let b = "a😀b".as_bytes();
        assert_eq!(floor_boundary(b, 2), 1);
        assert_eq!(ceil_boundary(b, 2), 5);
        assert_eq!(ceil_boundary(b, 5), 5);
    }
}
