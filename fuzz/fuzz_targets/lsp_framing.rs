//! The stdio framing guard's parser (`lsp::transport::Framer`): input split into arbitrary
//! chunks is fed to `next_step` the way the reader task does. Every step makes progress (a frame or
//! garbage consumes bytes, a skip is bounded by the declared length), the buffer never holds
//! more than the bytes fed, and `check` classifies every frame body without a panic.
#![no_main]

use alisio_ls::lsp::fuzzing::{FrameStep, Framer, check};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&chunking, data)) = data.split_first() else { return };
    let chunk = (chunking as usize % 17) + 1;
    let mut buf = Framer::default();
    let mut skip = 0usize;
    let mut fed = 0usize;
    // Pad with a large filler now and then so the 64 KiB garbage bound is reached.
    let filler = vec![b'x'; if chunking & 0xE0 == 0xE0 { 70 * 1024 } else { 0 }];
    let input: Vec<u8> = data.iter().copied().chain(filler).chain(data.iter().copied()).collect();
    // Byte-sized pieces for short inputs, up to 17 bytes for long ones (the guard's scan
    // resumes where it stopped, so byte-sized reads of a 64 KiB run are linear).
    let chunk = if input.len() > 8192 { chunk + 16 } else { chunk };
    for piece in input.chunks(chunk.max(1)) {
        let mut piece = piece;
        if skip > 0 {
            let k = skip.min(piece.len());
            skip -= k;
            piece = &piece[k..];
        }
        buf.push(piece);
        fed += piece.len();
        assert!(buf.buffered() <= fed);
        let mut guard = 0;
        loop {
            guard += 1;
            assert!(guard <= input.len() + 2, "next_step did not make progress");
            let before = buf.buffered();
            match buf.next_step() {
                FrameStep::NeedMore => break,
                FrameStep::Frame(body) => {
                    assert!(buf.buffered() < before);
                    match check(&body) {
                        Ok(()) => {
                            let v: serde_json::Value = serde_json::from_slice(&body).expect("accepted body is JSON");
                            assert!(v.is_object());
                        }
                        Err(resp) => {
                            let code = resp["error"]["code"].as_i64();
                            assert!(code == Some(-32700) || code == Some(-32600));
                        }
                    }
                }
                FrameStep::Garbage => assert!(buf.buffered() < before, "garbage consumed nothing"),
                FrameStep::Skip(len) => {
                    assert!(buf.buffered() < before);
                    skip = len - buf.discard(len);
                    break;
                }
            }
        }
    }
});
