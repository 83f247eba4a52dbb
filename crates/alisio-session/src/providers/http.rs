//! Blocking HTTP for the adapters (ureq) with SSE streaming. The transfer runs on its own thread
//! and reports to the caller through a channel, so idle timeouts and cancellation are checked
//! between chunks without touching the socket.

use std::io::Read as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::sse::{SseEvent, SseParser};
use serde_json::Value;

use super::{Attempt, AttemptError, ModelRequest, ModelResponse, OnText, Provider};

/// Connection settings of one provider.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    pub base_url: String,
    /// Extra static headers (never logged).
    pub headers: Vec<(String, String)>,
    /// The key value (never stored or logged; scrubbed from errors).
    pub key: Option<String>,
    pub connect_timeout: Duration,
    pub idle_timeout: Duration,
    pub request_timeout: Duration,
    pub max_retries: u32,
    pub retry_base_ms: u64,
}

impl HttpConfig {
    /// `maxRetries`, `retryBaseMs`.
    #[must_use]
    pub fn retry_policy(&self) -> (u32, u64) {
        (self.max_retries, self.retry_base_ms)
    }
}

/// A provider's decoder of the response's events into a [`ModelResponse`] (pure: no I/O, so the
/// fuzzer drives it).
pub trait Decode {
    /// A decoder for one response of `model`; `key` is scrubbed from error texts.
    fn new(model: &str, key: Option<&str>) -> Self;
    /// Takes one event (`json` for a non-streamed body); `Ok(true)` when the response is complete.
    ///
    /// # Errors
    /// A retryable `stream_error` for malformed JSON or an in-stream error.
    fn event(&mut self, ev: &SseEvent, on_text: &mut OnText) -> Result<bool, AttemptError>;
    /// The response decoded so far.
    fn finish(self) -> ModelResponse;
}

/// What an adapter over HTTP with SSE (`openai`, `anthropic`) says; the rest of an attempt is
/// the same for every one, so each such adapter is a [`Provider`].
pub trait HttpProvider: Send {
    type Decoder: Decode;
    /// The connection settings and the model.
    fn parts(&self) -> (&HttpConfig, &str);
    /// The URL and headers of a request.
    fn endpoint(&self) -> (String, Vec<(String, String)>);
    /// The request body (spec/sessions.md §5.3).
    fn body(&self, req: &ModelRequest) -> Value;
}

impl<P: HttpProvider> Provider for P {
    fn attempt(&mut self, req: &ModelRequest, text: &mut OnText, cancel: &AtomicBool) -> Attempt {
        let (cfg, model) = self.parts();
        let (url, headers) = self.endpoint();
        let mut dec = P::Decoder::new(model, cfg.key.as_deref());
        let body = self.body(req).to_string();
        post_stream(cfg, &url, &headers, body, cancel, &mut |ev| {
            dec.event(&ev, text)
        })?;
        Ok(dec.finish())
    }

    fn retry_policy(&self) -> (u32, u64) {
        self.parts().0.retry_policy()
    }
}

/// At most this many bytes of one response (stream or JSON body) are taken; a model reply is
/// a few hundred KiB at most, so more is a broken or hostile endpoint (docs/security.md).
pub const MAX_RESPONSE_BYTES: usize = 64 << 20;

/// At most this many bytes of one SSE event (its unfinished line and data so far), and of a
/// non-streamed JSON body: each is parsed whole into a JSON value, which can take 16 times its
/// size (`[0,0,0,…]`). Real stream events are a few hundred bytes; a whole reply a few hundred
/// KiB.
pub const MAX_EVENT_BYTES: usize = 8 << 20;

fn too_large(what: &str, limit: usize) -> AttemptError {
    AttemptError::Fatal {
        code: "provider_error",
        message: format!("Provider {what} exceeds {limit} bytes"),
    }
}

enum Msg {
    Status(u16, Option<String>, String),
    Open(bool),
    Chunk(Vec<u8>),
    Eof,
    Connect(String),
    /// A transport error after connecting, and whether it was a timeout (by the I/O error's
    /// kind, not its text).
    Network {
        text: String,
        timed_out: bool,
    },
}

/// Whether an I/O error is a timeout: ureq reports its read and write timeouts as `TimedOut`
/// (and a socket timeout can surface as `WouldBlock`).
fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    )
}

fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(s) = v.parse::<u64>() {
        return Some(Duration::from_secs(s));
    }
    // HTTP date: "Sun, 06 Nov 1994 08:49:37 GMT".
    let parts: Vec<&str> = v.split_whitespace().collect();
    if parts.len() != 6 {
        return None;
    }
    let day: i64 = parts[1].parse().ok()?;
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = months.iter().position(|m| *m == parts[2])? as i64 + 1;
    let year: i64 = parts[3].parse().ok()?;
    let hms: Vec<i64> = parts[4].split(':').filter_map(|x| x.parse().ok()).collect();
    if hms.len() != 3 {
        return None;
    }
    let days = crate::util::days_from_civil(year, month, day);
    let at = days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2];
    let now = (crate::util::now_ms() / 1000) as i64;
    Some(Duration::from_secs(u64::try_from(at - now).unwrap_or(0)))
}

fn error_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(|m| m.as_str())
                .map(String::from)
        })
        .unwrap_or_else(|| crate::util::take_chars(body, 500).to_string())
}

/// The transfer thread: sends the request and forwards the response as [`Msg`]s until the end
/// of the body, an error, or the consumer hanging up.
fn transfer(req: ureq::Request, body: &str, tx: &mpsc::SyncSender<Msg>) {
    let resp = match req.send_string(body) {
        Ok(r) => r,
        Err(ureq::Error::Status(code, r)) => {
            let ra = r.header("retry-after").map(String::from);
            let b = r.into_string().unwrap_or_default();
            let _ = tx.send(Msg::Status(code, ra, b));
            return;
        }
        Err(ureq::Error::Transport(t)) => {
            let m = t.to_string();
            let _ = tx.send(
                if matches!(
                    t.kind(),
                    ureq::ErrorKind::ConnectionFailed | ureq::ErrorKind::Dns
                ) {
                    Msg::Connect(m)
                } else {
                    let timed_out = std::error::Error::source(&t)
                        .and_then(|e| e.downcast_ref::<std::io::Error>())
                        .is_some_and(is_timeout);
                    Msg::Network { text: m, timed_out }
                },
            );
            return;
        }
    };
    let is_json = resp.content_type() == "application/json";
    let _ = tx.send(Msg::Open(is_json));
    let mut r = resp.into_reader();
    let mut buf = vec![0u8; 16_384];
    loop {
        match r.read(&mut buf) {
            Ok(0) => {
                let _ = tx.send(Msg::Eof);
                return;
            }
            Ok(n) => {
                if tx.send(Msg::Chunk(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Msg::Network {
                    text: e.to_string(),
                    timed_out: is_timeout(&e),
                });
                return;
            }
        }
    }
}

/// An HTTP error status with its body (spec/sessions.md §5.2), honouring `retry-after`.
fn status_error(
    code: u16,
    retry_after: Option<&str>,
    body: &str,
    key: Option<&str>,
) -> AttemptError {
    let message = super::scrub(
        &format!(
            "Provider request failed with HTTP {code}: {}",
            error_message(body)
        ),
        key,
    );
    super::status_failure(code, message, retry_after.and_then(parse_retry_after))
}

/// A transport error after connecting: a timeout or a broken stream, both retried.
fn network_error(e: &str, timed_out: bool, idle_ms: u128, key: Option<&str>) -> AttemptError {
    let m = if timed_out {
        format!("Provider did not respond within {idle_ms} ms")
    } else {
        format!("Provider stream ended before the response completed ({e})")
    };
    AttemptError::Retry {
        reason: "network",
        status: None,
        retry_after: None,
        message: super::scrub(&m, key),
    }
}

/// Posts `body` and feeds the SSE events (or one event `json` holding a non-streamed JSON body)
/// to `on_event` until it returns `true` (terminal event seen).
///
/// # Errors
/// [`AttemptError`] classified per spec/sessions.md §5.2.
pub fn post_stream(
    cfg: &HttpConfig,
    url: &str,
    headers: &[(String, String)],
    body: String,
    cancel: &AtomicBool,
    on_event: &mut dyn FnMut(SseEvent) -> Result<bool, AttemptError>,
) -> Result<(), AttemptError> {
    // Bounded: a fast endpoint waits for a slow consumer instead of queueing without limit
    // (64 chunks of at most 16 KiB).
    let (tx, rx) = mpsc::sync_channel::<Msg>(64);
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(cfg.connect_timeout)
        .timeout_read(cfg.idle_timeout + Duration::from_secs(5))
        .timeout(cfg.request_timeout)
        .build();
    let mut req = agent.post(url).set("content-type", "application/json");
    for (k, v) in cfg.headers.iter().chain(headers) {
        req = req.set(k, v);
    }
    std::thread::spawn(move || transfer(req, &body, &tx));
    let key = cfg.key.as_deref();
    let idle_ms = cfg.idle_timeout.as_millis();
    let started = Instant::now();
    let mut last = Instant::now();
    let mut parser = SseParser::default();
    let mut json_body: Option<Vec<u8>> = None;
    let mut received = 0usize;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(AttemptError::Cancelled);
        }
        if last.elapsed() >= cfg.idle_timeout || started.elapsed() >= cfg.request_timeout {
            return Err(AttemptError::Retry {
                reason: "idle_timeout",
                status: None,
                retry_after: None,
                message: format!("Provider did not respond within {idle_ms} ms"),
            });
        }
        let msg = match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(m) => m,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(AttemptError::Retry {
                    reason: "stream_error",
                    status: None,
                    retry_after: None,
                    message: "Provider stream ended before the response completed".into(),
                });
            }
        };
        last = Instant::now();
        match msg {
            Msg::Status(code, ra, b) => return Err(status_error(code, ra.as_deref(), &b, key)),
            Msg::Connect(e) => {
                return Err(AttemptError::Retry {
                    reason: "network",
                    status: None,
                    retry_after: None,
                    message: super::scrub(
                        &format!("Could not connect to {}: {e}", cfg.base_url),
                        key,
                    ),
                });
            }
            Msg::Network { text, timed_out } => {
                return Err(network_error(&text, timed_out, idle_ms, key));
            }
            Msg::Open(is_json) => {
                if is_json {
                    json_body = Some(Vec::new());
                }
            }
            Msg::Chunk(bytes) => {
                received += bytes.len();
                if received > MAX_RESPONSE_BYTES {
                    return Err(too_large("response", MAX_RESPONSE_BYTES));
                }
                if let Some(b) = json_body.as_mut() {
                    if b.len() + bytes.len() > MAX_EVENT_BYTES {
                        return Err(too_large("response body", MAX_EVENT_BYTES));
                    }
                    b.extend_from_slice(&bytes);
                    continue;
                }
                for ev in parser.push(&bytes) {
                    if ev.data.len() > MAX_EVENT_BYTES {
                        return Err(too_large("stream event", MAX_EVENT_BYTES));
                    }
                    if on_event(ev)? {
                        return Ok(());
                    }
                }
                if parser.held() > MAX_EVENT_BYTES {
                    return Err(too_large("stream event", MAX_EVENT_BYTES));
                }
            }
            Msg::Eof => {
                if let Some(b) = json_body.take() {
                    let ev = SseEvent {
                        event: "json".into(),
                        data: String::from_utf8_lossy(&b).into_owned(),
                    };
                    if on_event(ev)? {
                        return Ok(());
                    }
                }
                // A final event without its blank line still counts.
                for ev in parser.push(b"\n\n") {
                    if on_event(ev)? {
                        return Ok(());
                    }
                }
                return Err(AttemptError::Retry {
                    reason: "stream_error",
                    status: None,
                    retry_after: None,
                    message: "Provider stream ended before the response completed".into(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(parse_retry_after("1"), Some(Duration::from_secs(1)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }

    #[test]
    fn error_bodies_give_error_message_or_the_body_start() {
        assert_eq!(
            error_message(r#"{"error":{"message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(error_message("plain"), "plain");
    }
}
