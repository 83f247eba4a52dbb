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

#[derive(Debug, PartialEq, Eq)]
pub enum Step {
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

/// Takes the next step out of `buf`.
pub fn next_step(buf: &mut Vec<u8>) -> Step {
    let Some(end) = find(buf, b"\r\n\r\n") else {
        // Headers are short; a long run without a header end is garbage. Keep the tail in case a
        // header starts there.
        if buf.len() > 64 * 1024 {
            // Drop at least one byte: a header run that itself starts with `Content-Length` but
            // never ends would otherwise be kept and reported as garbage forever.
            let keep = buf
                .get(1..)
                .and_then(|rest| find(rest, b"Content-Length"))
                .map_or(buf.len(), |i| i + 1);
            buf.drain(..keep);
            return Step::Garbage;
        }
        return Step::NeedMore;
    };
    let headers = String::from_utf8_lossy(&buf[..end]).into_owned();
    let len = headers.split("\r\n").find_map(|h| {
        let (name, value) = h.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())
            .flatten()
    });
    let Some(len) = len else {
        buf.drain(..end + 4);
        return Step::Garbage;
    };
    if len > MAX_BODY {
        buf.drain(..end + 4);
        return Step::Skip(len);
    }
    if buf.len() < end + 4 + len {
        return Step::NeedMore;
    }
    let body = buf[end + 4..end + 4 + len].to_vec();
    buf.drain(..end + 4 + len);
    Step::Frame(body)
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
    let (err_tx, err_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(read_input(input, to_server, err_tx));
    let writer = tokio::spawn(write_output(from_server, output, err_rx));
    (server_in, server_out, writer)
}

async fn read_input<I: AsyncRead + Unpin>(
    mut input: I,
    mut to_server: DuplexStream,
    err_tx: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut buf = Vec::with_capacity(64 * 1024);
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
                        let _ = err_tx.send(frame(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: message too large"}}).to_string().as_bytes()));
                    }
                }
                buf.extend_from_slice(data);
            }
        }
        loop {
            match next_step(&mut buf) {
                Step::NeedMore => break,
                Step::Frame(body) => match check(&body) {
                    Ok(()) => {
                        if to_server.write_all(&frame(&body)).await.is_err() {
                            return;
                        }
                    }
                    Err(resp) => {
                        tracing::warn!("rejected a malformed message ({} bytes)", body.len());
                        let _ = err_tx.send(frame(resp.to_string().as_bytes()));
                    }
                },
                Step::Garbage => {
                    tracing::warn!("skipped bytes that are not an LSP frame");
                    let _ = err_tx.send(frame(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}).to_string().as_bytes()));
                }
                Step::Skip(len) => {
                    let k = len.min(buf.len());
                    buf.drain(..k);
                    skip = len - k;
                    if skip == 0 {
                        let _ = err_tx.send(frame(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error: message too large"}}).to_string().as_bytes()));
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
    mut err_rx: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    let mut buf = Vec::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut server_open = true;
    while server_open {
        tokio::select! {
            r = from_server.read(&mut chunk) => match r {
                Ok(0) | Err(_) => server_open = false,
                Ok(n) => {
                    buf.extend_from_slice(&chunk[..n]);
                    while let Step::Frame(body) = next_step(&mut buf) {
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

    #[test]
    fn frames_garbage_and_partial_input() {
        let mut b = b"Content-Length: 2\r\n\r\n{}Content-Len".to_vec();
        assert_eq!(next_step(&mut b), Step::Frame(b"{}".to_vec()));
        assert_eq!(next_step(&mut b), Step::NeedMore);
        let mut b = b"X-Nothing: 1\r\n\r\nContent-Length: 2\r\n\r\n[]".to_vec();
        assert_eq!(next_step(&mut b), Step::Garbage);
        assert_eq!(next_step(&mut b), Step::Frame(b"[]".to_vec()));
        let mut b = b"content-length: 999999999999\r\n\r\nxx".to_vec();
        assert_eq!(next_step(&mut b), Step::Skip(999_999_999_999));
    }

    #[test]
    fn an_endless_header_starting_with_content_length_is_dropped_not_repeated() {
        // Found while writing the lsp_framing fuzz target's progress property: this used to return
        // `Garbage` without consuming anything, so the reader looped forever.
        let mut b = b"Content-Length: 5".to_vec();
        b.extend(std::iter::repeat_n(b'x', 70 * 1024));
        assert_eq!(next_step(&mut b), Step::Garbage);
        assert!(b.is_empty());
        b.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        assert_eq!(next_step(&mut b), Step::Frame(b"{}".to_vec()));
        let mut b = b"xContent-Length: 5".to_vec();
        b.extend(std::iter::repeat_n(b'x', 70 * 1024));
        assert_eq!(next_step(&mut b), Step::Garbage);
        assert_eq!(&b[..15], b"Content-Length:");
        assert_eq!(next_step(&mut b), Step::Garbage);
        assert!(b.is_empty());
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
