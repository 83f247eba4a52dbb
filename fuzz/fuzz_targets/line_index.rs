//! `text::LineIndex` on arbitrary text: `line_col` and `offset` never panic, agree with a
//! naive model, and round-trip on character boundaries in both encodings.
#![no_main]

use alisio_ls::text::{Encoding, LineIndex, TextRange, ceil_boundary, floor_boundary, first_line_span};
use libfuzzer_sys::fuzz_target;

/// (line, utf16, utf8) of an offset, counting LF, CRLF and lone CR as line breaks (LSP).
fn model(text: &str, offset: usize) -> (u32, u32, u32) {
    let mut o = offset.min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    let b = text.as_bytes();
    let (mut line, mut start) = (0u32, 0usize);
    for i in 0..o {
        if b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')) {
            line += 1;
            start = i + 1;
        }
    }
    let seg = &text[start..o];
    (line, seg.encode_utf16().count() as u32, seg.len() as u32)
}

fuzz_target!(|data: &[u8]| {
    let split = data.first().copied().unwrap_or(0) as usize;
    let bytes = data.get(1..).unwrap_or_default();
    let text = String::from_utf8_lossy(bytes);
    let idx = LineIndex::new(&text);
    let _ = first_line_span(&text);
    assert_eq!(idx.line_count(), text.matches('\n').count() + text.matches('\r').count() - text.matches("\r\n").count() + 1);
    let probes = [0, split, split * 7, text.len() / 2, text.len(), text.len() + 3, usize::MAX];
    for &p in &probes {
        let lc = idx.line_col(p);
        assert_eq!((lc.line, lc.utf16, lc.utf8), model(&text, p));
        for enc in [Encoding::Utf16, Encoding::Utf8] {
            let back = idx.offset(lc.line, lc.col(enc), enc);
            let mut o = p.min(text.len());
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            // `\r` before `\n` is outside the line's columns: the offset of `\n` maps back to it.
            if !(o > 0 && text.as_bytes().get(o) == Some(&b'\n') && text.as_bytes()[o - 1] == b'\r') {
                assert_eq!(back, o, "{enc:?} offset {p} -> {lc:?}");
            }
            let off = idx.offset(lc.line, split as u32, enc);
            assert!(text.is_char_boundary(off));
        }
        let _ = idx.span(TextRange::new(p.min(split), p));
        let _ = idx.line_range(p % (idx.line_count() + 2));
        let f = floor_boundary(bytes, p);
        let c = ceil_boundary(bytes, p);
        assert!(f <= p.min(bytes.len()) && c >= p.min(bytes.len()) && c <= bytes.len());
    }
});
