//! A framing guard between stdio and tower-lsp-server.
//!
//! tower-lsp-server 0.23 stops reading stdin after the first body it cannot decode (its
//! `FramedRead` ends the stream on a codec error), which would leave the server deaf after one
//! malformed message. This guard parses `Content-Length` frames itself, forwards every
//! well-formed JSON-RPC message unchanged, and answers the rest directly: `-32700` for a body
//! that is not JSON (or a frame without a usable header), `-32600` for JSON that is not a
//! JSON-RPC message. Responses of the server and of the guard are written to stdout as whole
//! frames, never interleaved.

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;

/// Bodies above this size are refused (and skipped) rather than buffered.
const MAX_BODY: usize = 256 * 1024 * 1024;
const PIPE: usize = 1 << 20;

/// What the framer yields next from the bytes buffered so far.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameStep {
    /// A complete body.
    Frame(Vec<u8>),
    /// Bytes that are not a frame were dropped; answer with a parse error.
    Garbage,
    /// A frame too large to buffer: skip this many body bytes, then answer.
    Skip(usize),
    NeedMore,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Headers are short: a run this long without a header end is garbage.
const MAX_HEADER_RUN: usize = 64 * 1024;

/// The input buffer and the parser state over it.
///
/// Linear in its input however the client splits it: consumed bytes are skipped by an offset
/// (the buffer is compacted only when that frees at least half of it), and the search for a
/// header end resumes where the previous one stopped, so a client writing an unfinished header
/// a byte at a time costs O(n), not O(n²).
#[derive(Debug, Default)]
pub struct Framer {
    buffer: Vec<u8>,
    /// `buffer[..start]` is consumed.
    start: usize,
    /// No header end begins in `buffer[start..scanned]`.
    scanned: usize,
    /// A parsed header whose body is still arriving: (body start in `buf`, body length). The
    /// header is parsed once, not again on every read of its body.
    body: Option<(usize, usize)>,
}

impl Framer {
    /// Appends bytes read from the client.
    pub fn push(&mut self, data: &[u8]) {
        if self.start > 0 && self.start * 2 >= self.buffer.len() {
            self.buffer.drain(..self.start);
            self.scanned -= self.start;
            if let Some((at, _)) = self.body.as_mut() {
                *at -= self.start;
            }
            self.start = 0;
        }
        self.buffer.extend_from_slice(data);
    }

    /// Bytes held and not yet consumed.
    #[must_use]
    pub fn buffered(&self) -> usize {
        self.buffer.len() - self.start
    }

    /// Drops up to `n` buffered bytes (the body of a skipped frame); returns how many.
    pub fn discard(&mut self, n: usize) -> usize {
        let k = n.min(self.buffered());
        self.consume(k);
        k
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        self.scanned = self.scanned.max(self.start);
        if self.start == self.buffer.len() {
            self.buffer.clear();
            self.start = 0;
            self.scanned = 0;
        }
    }

    /// Takes the next step out of the buffer.
    pub fn next_step(&mut self) -> FrameStep {
        if let Some((at, len)) = self.body {
            if self.buffer.len() < at + len {
                return FrameStep::NeedMore;
            }
            self.body = None;
            let body = self.buffer[at..at + len].to_vec();
            self.consume(at + len - self.start);
            return FrameStep::Frame(body);
        }
        let from = self.scanned.max(self.start);
        let Some(end) = find(&self.buffer[from..], b"\r\n\r\n").map(|i| from + i) else {
            // A header end may straddle the next read: rescan the last three bytes then.
            self.scanned = self.buffer.len().saturating_sub(3).max(self.start);
            if self.buffered() > MAX_HEADER_RUN {
                // Keep the tail in case a header starts there, but drop at least one byte: a
                // run that itself starts with `Content-Length` but never ends would otherwise
                // be kept and reported as garbage forever.
                let live = &self.buffer[self.start..];
                let keep = live
                    .get(1..)
                    .and_then(|rest| find(rest, b"Content-Length"))
                    .map_or(live.len(), |i| i + 1);
                self.consume(keep);
                return FrameStep::Garbage;
            }
            return FrameStep::NeedMore;
        };
        self.scanned = end;
        let len = String::from_utf8_lossy(&self.buffer[self.start..end])
            .split("\r\n")
            .find_map(|h| {
                let (name, value) = h.split_once(':')?;
                name.trim()
                    .eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())
                    .flatten()
            });
        let Some(len) = len else {
            self.consume(end + 4 - self.start);
            return FrameStep::Garbage;
        };
        if len > MAX_BODY {
            self.consume(end + 4 - self.start);
            return FrameStep::Skip(len);
        }
        if self.buffer.len() < end + 4 + len {
            self.body = Some((end + 4, len));
            return FrameStep::NeedMore;
        }
        let body = self.buffer[end + 4..end + 4 + len].to_vec();
        self.consume(end + 4 + len - self.start);
        FrameStep::Frame(body)
    }
}

/// `Ok(())` when tower-lsp-server can decode `body`, else the error response to send.
pub fn check(body: &[u8]) -> Result<(), Value> {
    let parse_error = || json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return Err(parse_error());
    };
    let invalid = |id: &Value| json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": "Invalid request"}});
    let Some(obj) = v.as_object() else {
        return Err(invalid(&Value::Null));
    };
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    let id_ok = matches!(id, Value::Null | Value::Number(_) | Value::String(_));
    let id_shown = if id_ok { id.clone() } else { Value::Null };
    if obj.get("jsonrpc") != Some(&json!("2.0")) || !id_ok {
        return Err(invalid(&id_shown));
    }
    match obj.get("method") {
        Some(Value::String(_)) => {
            if matches!(
                obj.get("params"),
                None | Some(Value::Object(_) | Value::Array(_) | Value::Null)
            ) {
                Ok(())
            } else {
                Err(invalid(&id_shown))
            }
        }
        Some(_) => Err(invalid(&id_shown)),
        None if obj.contains_key("result") || obj.contains_key("error") => Ok(()),
        None => Err(invalid(&id_shown)),
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Wraps `input`/`output` and returns the streams to give to `tower_lsp_server::Server`, plus
/// the task that writes to `output` (await it after the server ends so the last frames are
/// flushed).
pub fn guard<I, O>(input: I, output: O) -> (DuplexStream, DuplexStream, tokio::task::JoinHandle<()>)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (server_in, to_server) = tokio::io::duplex(PIPE);
    let (from_server, server_out) = tokio::io::duplex(PIPE);
    // Bounded: a client that floods garbage and never reads its answers stalls its own input
    // (the reader waits for room) instead of growing the queue without limit.
    let (err_tx, err_rx) = mpsc::channel::<Vec<u8>>(256);
    tokio::spawn(read_input(input, to_server, err_tx));
    let writer = tokio::spawn(write_output(from_server, output, err_rx));
    (server_in, server_out, writer)
}

async fn read_input<I: AsyncRead + Unpin>(
    mut input: I,
    mut to_server: DuplexStream,
    err_tx: mpsc::Sender<Vec<u8>>,
) {
    let mut framer = Framer::default();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut skip = 0usize;
    loop {
        match input.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let mut data = &chunk[..n];
                if skip > 0 {
                    let k = skip.min(data.len());
                    skip -= k;
                    data = &data[k..];
                    if skip == 0 {
                        let _ = err_tx.send(frame(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: message too large"}}).to_string().as_bytes())).await;
                    }
                }
                framer.push(data);
            }
        }
        loop {
            match framer.next_step() {
                FrameStep::NeedMore => break,
                FrameStep::Frame(body) => match check(&body) {
                    Ok(()) => {
                        if to_server.write_all(&frame(&body)).await.is_err() {
                            return;
                        }
                    }
                    Err(resp) => {
                        tracing::warn!("rejected a malformed message ({} bytes)", body.len());
                        let _ = err_tx.send(frame(resp.to_string().as_bytes())).await;
                    }
                },
                FrameStep::Garbage => {
                    tracing::warn!("skipped bytes that are not an LSP frame");
                    let _ = err_tx.send(frame(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}).to_string().as_bytes())).await;
                }
                FrameStep::Skip(len) => {
                    skip = len - framer.discard(len);
                    if skip == 0 {
                        let _ = err_tx.send(frame(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: message too large"}}).to_string().as_bytes())).await;
                    }
                    break;
                }
            }
        }
    }
    // End of input: the server sees EOF and ends.
    let _ = to_server.shutdown().await;
}

async fn write_output<O: AsyncWrite + Unpin>(
    mut from_server: DuplexStream,
    mut output: O,
    mut err_rx: mpsc::Receiver<Vec<u8>>,
) {
    let mut framer = Framer::default();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut server_open = true;
    while server_open {
        tokio::select! {
            r = from_server.read(&mut chunk) => match r {
                Ok(0) | Err(_) => server_open = false,
                Ok(n) => {
                    framer.push(&chunk[..n]);
                    while let FrameStep::Frame(body) = framer.next_step() {
                        if output.write_all(&frame(&body)).await.is_err() { return; }
                    }
                    let _ = output.flush().await;
                }
            },
            Some(e) = err_rx.recv() => {
                if output.write_all(&e).await.is_err() { return; }
                let _ = output.flush().await;
            }
        }
    }
    while let Ok(e) = err_rx.try_recv() {
        let _ = output.write_all(&e).await;
    }
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framer(bytes: &[u8]) -> Framer {
        let mut f = Framer::default();
        f.push(bytes);
        f
    }

    #[test]
    fn frames_garbage_and_partial_input() {
        let mut b = framer(b"Content-Length: 2\r\n\r\n{}Content-Len");
        assert_eq!(b.next_step(), FrameStep::Frame(b"{}".to_vec()));
        assert_eq!(b.next_step(), FrameStep::NeedMore);
        assert_eq!(b.buffered(), 11);
        b.push(b"gth: 3\r\n");
        assert_eq!(b.next_step(), FrameStep::NeedMore);
        b.push(b"\r\n[1]");
        assert_eq!(b.next_step(), FrameStep::Frame(b"[1]".to_vec()));
        let mut b = framer(b"X-Nothing: 1\r\n\r\nContent-Length: 2\r\n\r\n[]");
        assert_eq!(b.next_step(), FrameStep::Garbage);
        assert_eq!(b.next_step(), FrameStep::Frame(b"[]".to_vec()));
        assert_eq!(b.buffered(), 0);
        let mut b = framer(b"content-length: 999999999999\r\n\r\nxx");
        assert_eq!(b.next_step(), FrameStep::Skip(999_999_999_999));
        assert_eq!(b.discard(999_999_999_999), 2);
        assert_eq!(b.buffered(), 0);
    }

    #[test]
    fn every_split_of_a_stream_gives_the_same_steps() {
        let src: &[u8] = b"Content-Length: 2\r\n\r\n{}junk\r\n\r\nContent-Length: 3\r\nContent-Type: x\r\n\r\n[1]Content-Length: 0\r\n\r\n";
        let whole: Vec<FrameStep> = {
            let mut f = framer(src);
            std::iter::from_fn(|| Some(f.next_step()).filter(|s| *s != FrameStep::NeedMore))
                .collect()
        };
        assert_eq!(
            whole,
            [
                FrameStep::Frame(b"{}".to_vec()),
                FrameStep::Garbage,
                FrameStep::Frame(b"[1]".to_vec()),
                FrameStep::Frame(Vec::new())
            ]
        );
        for size in 1..src.len() {
            let mut f = Framer::default();
            let mut got = Vec::new();
            for piece in src.chunks(size) {
                f.push(piece);
                loop {
                    match f.next_step() {
                        FrameStep::NeedMore => break,
                        s => got.push(s),
                    }
                }
            }
            assert_eq!(got, whole, "pieces of {size}");
            assert_eq!(f.buffered(), 0);
        }
    }

    #[test]
    fn a_header_run_written_a_byte_at_a_time_is_scanned_once() {
        // Used to rescan the whole unfinished run on every read (O(n^2) for 64 KiB). The scan
        // position now only moves forward: check it stays at the end of what was read.
        let mut f = Framer::default();
        for i in 0..MAX_HEADER_RUN {
            f.push(b"x");
            assert_eq!(f.next_step(), FrameStep::NeedMore);
            assert_eq!(f.scanned, (i + 1).saturating_sub(3));
        }
        f.push(b"x");
        assert_eq!(f.next_step(), FrameStep::Garbage);
        assert_eq!(f.buffered(), 0);
    }

    #[test]
    fn a_long_header_is_parsed_once_while_its_body_arrives_a_byte_at_a_time() {
        // Review finding: the header was re-parsed on every read of an unfinished body.
        let mut f = Framer::default();
        let mut head = b"X-Pad: ".to_vec();
        head.extend(std::iter::repeat_n(b'p', 60 * 1024));
        head.extend_from_slice(b"\r\nContent-Length: 7\r\n\r\n");
        f.push(&head);
        assert_eq!(f.next_step(), FrameStep::NeedMore);
        let at = f.body.expect("header parsed").0;
        for b in b"[1,2,3" {
            f.push(std::slice::from_ref(b));
            assert_eq!(f.next_step(), FrameStep::NeedMore);
            assert_eq!(f.body.map(|(a, _)| a), Some(at), "not parsed again");
        }
        f.push(b"]");
        assert_eq!(f.next_step(), FrameStep::Frame(b"[1,2,3]".to_vec()));
        assert_eq!((f.buffered(), f.body), (0, None));
    }

    #[test]
    fn an_endless_header_starting_with_content_length_is_dropped_not_repeated() {
        // Found while writing the lsp_framing fuzz target's progress property: this used to return
        // `Garbage` without consuming anything, so the reader looped forever.
        let mut run = b"Content-Length: 5".to_vec();
        run.extend(std::iter::repeat_n(b'x', 70 * 1024));
        let mut b = framer(&run);
        assert_eq!(b.next_step(), FrameStep::Garbage);
        assert_eq!(b.buffered(), 0);
        b.push(b"Content-Length: 2\r\n\r\n{}");
        assert_eq!(b.next_step(), FrameStep::Frame(b"{}".to_vec()));
        let mut b = framer(b"x");
        b.push(&run);
        assert_eq!(b.next_step(), FrameStep::Garbage);
        assert_eq!(b.buffered(), run.len());
        assert_eq!(b.next_step(), FrameStep::Garbage);
        assert_eq!(b.buffered(), 0);
    }

    #[test]
    fn checks_what_tower_would_reject() {
        assert!(check(br#"{"jsonrpc":"2.0","method":"x"}"#).is_ok());
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"result":null}"#).is_ok());
        assert_eq!(check(b"{nope").unwrap_err()["error"]["code"], -32700);
        assert_eq!(check(br#"{"jsonrpc":"2.0","id":7}"#).unwrap_err()["id"], 7);
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":7}"#).unwrap_err()["error"]["code"],
            -32600
        );
        assert_eq!(
            check(br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#).unwrap_err()["error"]["code"],
            -32600
        );
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#).unwrap_err()["id"],
            Value::Null
        );
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":5}"#).unwrap_err()["error"]["code"],
            -32600
        );
        assert_eq!(check(b"[1,2]").unwrap_err()["error"]["code"], -32600);
    }
}
