//! Open documents: text as a rope, the client's version, incremental edits.
//!
//! The rope is the only copy of a document's text the server keeps: snapshots share it (a
//! rope clone shares its nodes), and rules copy out only the part they read.

use ropey::Rope;
use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;

use super::positions::from_lsp;
use alisio_base::text::Encoding;

#[derive(Clone, Debug)]
pub struct Document {
    rope: Rope,
    pub version: i32,
}

impl Document {
    #[must_use]
    pub fn new(text: &str, version: i32) -> Self {
        // An editor buffer starting with U+FEFF is treated like a file with a BOM by the rules;
        // the rope keeps it so positions stay the editor's.
        Self {
            rope: Rope::from_str(text),
            version,
        }
    }

    /// Applies one change (ranged or full). Out-of-range positions are clamped, never a panic.
    pub fn apply(&mut self, change: &TextDocumentContentChangeEvent, enc: Encoding) {
        match change.range {
            None => self.rope = Rope::from_str(&change.text),
            Some(range) => {
                let a = from_lsp::char_index(&self.rope, range.start, enc);
                let b = from_lsp::char_index(&self.rope, range.end, enc);
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                self.rope.remove(a..b);
                self.rope.insert(a, &change.text);
            }
        }
    }

    /// The text as the rules see it (shares the rope's nodes; O(1)).
    #[must_use]
    pub fn buffer(&self) -> RopeBuffer {
        RopeBuffer(self.rope.clone())
    }

    /// The whole text (a copy).
    #[must_use]
    pub fn text(&self) -> String {
        self.rope.to_string()
    }
}

/// A snapshot of a document's rope for [`alisio_base::workspace::OverlayFs`].
pub struct RopeBuffer(Rope);

impl alisio_base::workspace::Buffer for RopeBuffer {
    fn len(&self) -> usize {
        self.0.len_bytes()
    }
    fn chunks(&self, f: &mut dyn FnMut(&[u8]) -> bool) {
        for c in self.0.chunks() {
            if !f(c.as_bytes()) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use tower_lsp_server::ls_types::{Position, Range};

    use super::*;

    fn change(sl: u32, sc: u32, el: u32, ec: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(sl, sc), Position::new(el, ec))),
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn incremental_edits_apply_in_utf16() {
        let mut d = Document::new("😀ab\ncd", 1);
        d.apply(&change(0, 2, 0, 3, "X"), Encoding::Utf16);
        assert_eq!(d.text(), "😀Xb\ncd");
        d.apply(&change(1, 0, 1, 99, "zz"), Encoding::Utf16);
        assert_eq!(d.text(), "😀Xb\nzz");
        d.apply(&change(5, 0, 3, 0, "!"), Encoding::Utf16);
        assert_eq!(d.text(), "😀Xb\nzz!");
    }
}
