//! A minimal HTTP/1.1 server on 127.0.0.1 for the fake model APIs: one thread per connection,
//! keep-alive, `Content-Length` and chunked request bodies, every request recorded in order.
//! It only ever binds the loopback address of the network namespace it runs in.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One request as the server received it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Request {
    pub method: String,
    /// The request target, query included (`/v1/messages?beta=true`).
    pub path: String,
    /// Header names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body as text (lossy UTF-8).
    pub body: String,
}

impl Request {
    /// The body parsed as JSON (`Null` when it is not JSON).
    #[must_use]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// What the server answers.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    #[must_use]
    pub fn json(v: &serde_json::Value) -> Self {
        Self {
            status: 200,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
        }
    }

    /// A complete server-sent-events stream: `(event name or "", data)` pairs.
    #[must_use]
    pub fn sse(events: &[(&str, serde_json::Value)]) -> Self {
        let mut out = String::new();
        for (name, data) in events {
            if !name.is_empty() {
                out.push_str("event: ");
                out.push_str(name);
                out.push('\n');
            }
            out.push_str("data: ");
            out.push_str(&data.to_string());
            out.push_str("\n\n");
        }
        Self {
            status: 200,
            content_type: "text/event-stream",
            body: out.into_bytes(),
        }
    }

    #[must_use]
    pub fn not_found() -> Self {
        Self {
            status: 404,
            content_type: "application/json",
            body: br#"{"error":{"type":"not_found_error","message":"not found"}}"#.to_vec(),
        }
    }
}

/// Decides the answer to a request; it sees every request recorded so far (this one last).
pub type Responder = Arc<dyn Fn(&Request, &[Request]) -> Response + Send + Sync>;

/// The running server: its port and the requests it has recorded.
pub struct Server {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// Binds 127.0.0.1 on a free port and serves in background threads until the process ends.
    pub fn start(responder: Responder) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let port = listener.local_addr()?.port();
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let log = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                let responder = Arc::clone(&responder);
                std::thread::spawn(move || serve(stream, &log, &responder));
            }
        });
        Ok(Self { port, requests })
    }

    #[must_use]
    pub fn recorded(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Request>>, responder: &Responder) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(120)));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(req) = read_request(&mut reader) {
        let (resp, keep) = {
            let Ok(mut all) = log.lock() else { return };
            all.push(req.clone());
            let keep = !req
                .headers
                .iter()
                .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
            (responder(&req, &all), keep)
        };
        let head = format!(
            "HTTP/1.1 {} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\ncache-control: no-cache\r\nconnection: {}\r\n\r\n",
            resp.status,
            if resp.status == 200 { "OK" } else { "Error" },
            resp.content_type,
            resp.body.len(),
            if keep { "keep-alive" } else { "close" }
        );
        if writer.write_all(head.as_bytes()).is_err()
            || writer.write_all(&resp.body).is_err()
            || writer.flush().is_err()
            || !keep
        {
            return;
        }
    }
}

fn read_line(r: &mut impl BufRead) -> Option<String> {
    let mut line = String::new();
    match r.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_string()),
    }
}

/// Reads one request; `None` at the end of the connection or on a malformed request.
fn read_request(r: &mut impl BufRead) -> Option<Request> {
    let mut first = read_line(r)?;
    while first.is_empty() {
        first = read_line(r)?;
    }
    let mut parts = first.split(' ');
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let line = read_line(r)?;
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let size_line = read_line(r)?;
            let size = usize::from_str_radix(size_line.split(';').next()?.trim(), 16).ok()?;
            if size == 0 {
                while !read_line(r)?.is_empty() {}
                break;
            }
            let mut chunk = vec![0; size];
            r.read_exact(&mut chunk).ok()?;
            body.extend_from_slice(&chunk);
            read_line(r)?;
        }
    } else if let Some(len) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body = vec![0; len];
        r.read_exact(&mut body).ok()?;
    }
    Some(Request {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}
