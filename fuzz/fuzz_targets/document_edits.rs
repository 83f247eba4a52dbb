//! Incremental edits on an open document (`lsp::documents::Document` over ropey) against a
//! plain-`String` model of the same LSP rules: lines end at `\n`, `\r\n` or a lone `\r`, out-of-range lines clamp to the end of the text, out-of-range
//! columns to the end of the line, a column inside a character moves to its start, and
//! reversed ranges are swapped. After every edit the rope and the model must agree, and
//! `from_lsp::char_index` must agree with the model on every probed position.
#![no_main]

use alisio_ls::lsp::fuzzing::{Document, from_lsp};
use alisio_ls::text::Encoding;
use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent};

/// Line starts and content ends of `text`: a line ends at `\n`, `\r\n` or a lone `\r`
/// (LSP's definition), written independently of the product's code.
fn model_lines(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push((start, i));
                start = i + 1;
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                out.push((start, i));
                start = i + 2;
                i += 1;
            }
            b'\r' => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((start, b.len()));
    out
}

/// Byte offset of an LSP position in `text` by the rules above.
fn model_offset(text: &str, line: u32, col: u32, enc: Encoding) -> usize {
    let lines = model_lines(text);
    let Some(&(start, end)) = lines.get(line as usize) else { return text.len() };
    let mut units = 0usize;
    for (i, ch) in text[start..end].char_indices() {
        let w = match enc {
            Encoding::Utf16 => ch.len_utf16(),
            Encoding::Utf8 => ch.len_utf8(),
        };
        if units + w > col as usize {
            return start + i;
        }
        units += w;
    }
    end
}

/// Text drawn from a small alphabet that hits every interesting case: multi-byte and
/// astral characters, `\r`, `\n`, `\r\n`.
fn piece(u: &mut Unstructured<'_>) -> String {
    const ALPHA: &[&str] = &["a", "b", "\n", "\r", "\r\n", "é", "😀", "€", " ", "\u{2028}", "\u{85}"];
    let n = u.int_in_range(0..=12).unwrap_or(0);
    (0..n).map(|_| *u.choose(ALPHA).unwrap_or(&"a")).collect()
}

fn pos(u: &mut Unstructured<'_>) -> Position {
    // Mostly small numbers (real positions), sometimes huge ones (clamping).
    let small = |u: &mut Unstructured<'_>| if u.ratio(1, 8).unwrap_or(false) { u32::arbitrary(u).unwrap_or(0) } else { u.int_in_range(0..=6).unwrap_or(0) };
    Position::new(small(u), small(u))
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let enc = if u.arbitrary::<bool>().unwrap_or(false) { Encoding::Utf8 } else { Encoding::Utf16 };
    let mut model = piece(&mut u);
    let mut doc = Document::new(&model, 1);
    for _ in 0..u.int_in_range(0..=24).unwrap_or(0) {
        let full = u.ratio(1, 16).unwrap_or(false);
        let text = piece(&mut u);
        let (a, b) = (pos(&mut u), pos(&mut u));
        if full {
            doc.apply(&TextDocumentContentChangeEvent { range: None, range_length: None, text: text.clone() }, enc);
            model = text;
        } else {
            doc.apply(&TextDocumentContentChangeEvent { range: Some(Range::new(a, b)), range_length: None, text: text.clone() }, enc);
            let (x, y) = (model_offset(&model, a.line, a.character, enc), model_offset(&model, b.line, b.character, enc));
            let (x, y) = if x <= y { (x, y) } else { (y, x) };
            model.replace_range(x..y, &text);
        }
        assert_eq!(&*doc.text(), model.as_str());
        let rope = ropey::Rope::from_str(&model);
        let p = pos(&mut u);
        let ci = from_lsp::char_index(&rope, p, enc);
        assert_eq!(rope.char_to_byte(ci), model_offset(&model, p.line, p.character, enc), "{p:?} in {model:?}");
    }
});
