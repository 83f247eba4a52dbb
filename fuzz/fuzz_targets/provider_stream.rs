//! The model-provider stream parsers (`session::providers`): bytes from a hostile endpoint go
//! through the SSE parser in chunks of 1–64 bytes and whole, then every event through the
//! `openai` and `anthropic` decoders, and the whole input as a non-streamed JSON body.
//! Properties: the SSE events do not depend on how the input was split, the parser holds no
//! more than the unfinished last line, and the decoders never panic; the text a decoder
//! reports equals the concatenation of its streamed fragments.
#![no_main]

use alisio_ls::session::providers::http::Decode as _;
use alisio_ls::session::providers::sse::{SseEvent, SseParser};
use alisio_ls::session::providers::{anthropic, openai};
use libfuzzer_sys::fuzz_target;

fn decode(events: &[SseEvent]) {
    let mut streamed = String::new();
    let mut o = openai::OpenAiDecoder::new("m", Some("sk-secret"));
    for ev in events {
        match o.event(ev, &mut |t| streamed.push_str(t)) {
            Ok(false) => {}
            Ok(true) | Err(_) => break,
        }
    }
    let r = o.finish();
    assert_eq!(r.text, streamed);

    let mut streamed = String::new();
    let mut a = anthropic::AnthropicDecoder::new("claude-x", Some("sk-secret"));
    for ev in events {
        match a.event(ev, &mut |t| streamed.push_str(t)) {
            Ok(false) => {}
            Ok(true) | Err(_) => break,
        }
    }
    let r = a.finish();
    assert_eq!(r.text, streamed);
    for c in &r.calls {
        assert!(!c.arguments.is_empty());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&chunking, data)) = data.split_first() else { return };
    let size = (chunking as usize % 64) + 1;

    let mut whole = SseParser::default();
    let mut all = whole.push(data);
    let mut pieces = SseParser::default();
    let mut split = Vec::new();
    for piece in data.chunks(size) {
        split.extend(pieces.push(piece));
        // Only the unfinished last line (plus a final `\r` that may start a `\r\n`) is kept.
        let upto = &data[..split_len(data, piece)];
        let search = upto.strip_suffix(b"\r").unwrap_or(upto);
        let line_start = search.iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
        assert!(pieces.pending() <= upto.len() - line_start, "held {} bytes", pieces.pending());
    }
    assert_eq!(all, split, "events depend on the split");
    assert_eq!(whole.pending(), pieces.pending());
    // End of stream: the final event without its blank line still counts (http.rs does this).
    all.extend(whole.push(b"\n\n"));
    decode(&all);

    // The same bytes as a non-streamed JSON body.
    let body = SseEvent { event: "json".into(), data: String::from_utf8_lossy(data).into_owned() };
    decode(&[body]);
});

fn split_len(data: &[u8], piece: &[u8]) -> usize {
    // Offset just past `piece` inside `data` (pieces are subslices of `data`).
    (piece.as_ptr() as usize - data.as_ptr() as usize) + piece.len()
}
