//! A fake model server on 127.0.0.1 for provider tests: records each request and answers from
//! a queue with a status, headers and a body sent in chunks (with delays, stalls or an abrupt
//! close). Never the network.
#![allow(dead_code)]

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// One queued answer.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// `(delay before, bytes)`.
    pub chunks: Vec<(u64, Vec<u8>)>,
    /// Sleep this long after the chunks before closing.
    pub stall_ms: u64,
}

impl Reply {
    /// An SSE body cut into pieces of `piece` bytes (awkward boundaries on purpose).
    pub fn sse(body: &str, piece: usize) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks: body
                .as_bytes()
                .chunks(piece)
                .map(|c| (0, c.to_vec()))
                .collect(),
            stall_ms: 0,
        }
    }

    pub fn status(status: u16, body: &str, headers: &[(&str, &str)]) -> Self {
        let mut h: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        h.push(("content-type".into(), "application/json".into()));
        Self {
            status,
            headers: h,
            chunks: vec![(0, body.as_bytes().to_vec())],
            stall_ms: 0,
        }
    }
}

/// A recorded request.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

pub struct Fake {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Recorded>>>,
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

impl Fake {
    pub fn start(replies: Vec<Reply>) -> Self {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", l.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let rec = Arc::clone(&requests);
        let queue = Arc::new(Mutex::new(
            replies
                .into_iter()
                .collect::<std::collections::VecDeque<_>>(),
        ));
        std::thread::spawn(move || {
            for conn in l.incoming() {
                let Ok(mut s) = conn else { continue };
                let rec = Arc::clone(&rec);
                let queue = Arc::clone(&queue);
                std::thread::spawn(move || {
                    let mut buf = Vec::new();
                    let mut tmp = [0u8; 4096];
                    let head_end = loop {
                        if let Some(i) = find(&buf, b"\r\n\r\n") {
                            break i;
                        }
                        match s.read(&mut tmp) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&tmp[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
                    let mut lines = head.lines();
                    let path = lines
                        .next()
                        .unwrap_or_default()
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or_default()
                        .to_string();
                    let headers: Vec<(String, String)> = lines
                        .filter_map(|l| l.split_once(':'))
                        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
                        .collect();
                    let len: usize = headers
                        .iter()
                        .find(|(k, _)| k == "content-length")
                        .and_then(|(_, v)| v.parse().ok())
                        .unwrap_or(0);
                    let mut body = buf[head_end + 4..].to_vec();
                    while body.len() < len {
                        match s.read(&mut tmp) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => body.extend_from_slice(&tmp[..n]),
                        }
                    }
                    rec.lock().unwrap().push(Recorded {
                        path,
                        headers,
                        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    });
                    let reply = queue.lock().unwrap().pop_front().unwrap_or_else(|| {
                        Reply::status(500, r#"{"error":{"message":"no reply queued"}}"#, &[])
                    });
                    let mut out = format!("HTTP/1.1 {} X\r\n", reply.status);
                    for (k, v) in &reply.headers {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str("connection: close\r\n\r\n");
                    let _ = s.write_all(out.as_bytes());
                    for (d, c) in &reply.chunks {
                        std::thread::sleep(Duration::from_millis(*d));
                        if s.write_all(c).is_err() {
                            return;
                        }
                        let _ = s.flush();
                    }
                    std::thread::sleep(Duration::from_millis(reply.stall_ms));
                });
            }
        });
        Self { url, requests }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }
}
