//! The stdio framing guard's parser (`lsp::transport`): input split into arbitrary chunks is
//! fed to `next_step` the way the reader task does. Every step makes progress (a frame or
//! garbage consumes bytes, a skip is bounded by the declared length), the buffer never holds
//! more than the bytes fed, and `check` classifies every frame body without a panic.
#![no_main]

use alisio_ls::lsp::fuzzing::{Step, check, next_step};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&chunking, data)) = data.split_first() else { return };
    let chunk = (chunking as usize % 17) + 1;
    let mut buf: Vec<u8> = Vec::new();
    let mut skip = 0usize;
    let mut fed = 0usize;
    // Pad with a large filler now and then so the 64 KiB garbage bound is reached.
    let filler = vec![b'x'; if chunking & 0xE0 == 0xE0 { 70 * 1024 } else { 0 }];
    let input: Vec<u8> = data.iter().copied().chain(filler).chain(data.iter().copied()).collect();
    // Byte-sized pieces for short inputs, KiB-sized ones for long inputs: the guard rescans an
    // unfinished header from its start on every read, which is quadratic for a client that
    // writes a long headerless run a byte at a time (see docs/security.md).
    let chunk = if input.len() > 8192 { chunk * 1024 } else { chunk };
    for piece in input.chunks(chunk.max(1)) {
        let mut piece = piece;
        if skip > 0 {
            let k = skip.min(piece.len());
            skip -= k;
            piece = &piece[k..];
        }
        buf.extend_from_slice(piece);
        fed += piece.len();
        assert!(buf.len() <= fed);
        let mut guard = 0;
        loop {
            guard += 1;
            assert!(guard <= input.len() + 2, "next_step did not make progress");
            let before = buf.len();
            match next_step(&mut buf) {
                Step::NeedMore => break,
                Step::Frame(body) => {
                    assert!(buf.len() < before);
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
                Step::Garbage => assert!(buf.len() < before, "garbage consumed nothing"),
                Step::Skip(len) => {
                    assert!(buf.len() < before);
                    let k = len.min(buf.len());
                    buf.drain(..k);
                    skip = len - k;
                    break;
                }
            }
        }
    }
});
