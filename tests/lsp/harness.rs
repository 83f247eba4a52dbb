//! A minimal LSP client that drives the built binary over stdio the way editors do:
//! `Content-Length` framing, requests with ids, notifications, and automatic answers to the
//! server's requests (recorded for assertions). Every wait has a timeout, so a hung server fails
//! the test instead of hanging it.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Lsp {
    child: Child,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications received and not yet consumed.
    pub notifications: VecDeque<Value>,
    /// Requests the server sent to us.
    pub server_requests: Arc<Mutex<Vec<Value>>>,
    /// What this client answers to `alisio/approve` (`deny` unless a test changes it).
    pub approve_decision: Arc<Mutex<String>>,
    /// Whole replies to `alisio/approve`, used in order before `approve_decision`. A reply's
    /// `_write: {path, content}` is written to disk just before it is sent (a file changed
    /// while the approval was open) and not sent.
    pub approve_replies: Arc<Mutex<VecDeque<Value>>>,
    /// Responses that arrived while waiting for another one (handlers run concurrently, so
    /// responses may come out of order).
    responses: std::collections::HashMap<i64, Value>,
}

pub fn uri(p: &Path) -> String {
    format!("file://{}", p.display()).replace(' ', "%20")
}

fn write_frame(stdin: &mut ChildStdin, msg: &[u8]) -> std::io::Result<()> {
    stdin.write_all(format!("Content-Length: {}\r\n\r\n", msg.len()).as_bytes())?;
    stdin.write_all(msg)?;
    stdin.flush()
}

impl Lsp {
    /// Starts `alisio-ls` with `args` from `cmd` (a prepared command, e.g. `Ws::cmd()`).
    pub fn spawn(cmd: Command) -> Self {
        Self::spawn_with(cmd, true)
    }

    /// Like [`Lsp::spawn`], but a client that never answers the server's requests (a slow or
    /// broken editor): they are recorded only.
    pub fn spawn_silent(cmd: Command) -> Self {
        Self::spawn_with(cmd, false)
    }

    fn spawn_with(mut cmd: Command, answer: bool) -> Self {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("spawn alisio-ls");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = Arc::new(Mutex::new(child.stdin.take()));
        let server_requests = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = channel();
        let reply_to = stdin.clone();
        let recorded = server_requests.clone();
        let approve_decision = Arc::new(Mutex::new("deny".to_string()));
        let decision = approve_decision.clone();
        let approve_replies = Arc::new(Mutex::new(VecDeque::<Value>::new()));
        let replies = approve_replies.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    match r.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse::<usize>().ok();
                    }
                }
                let Some(len) = len else { return };
                let mut buf = vec![0; len];
                if r.read_exact(&mut buf).is_err() {
                    return;
                }
                let Ok(msg) = serde_json::from_slice::<Value>(&buf) else {
                    return;
                };
                if msg.get("method").is_some() && msg.get("id").is_some() {
                    // A server → client request: answer like a typical editor.
                    let result = match msg["method"].as_str().unwrap_or("") {
                        "workspace/configuration" => json!([]),
                        "alisio/approve" => match replies.lock().unwrap().pop_front() {
                            Some(mut r) => {
                                if let Some(w) = r.as_object_mut().and_then(|o| o.remove("_write"))
                                {
                                    std::fs::write(
                                        w["path"].as_str().unwrap(),
                                        w["content"].as_str().unwrap(),
                                    )
                                    .unwrap();
                                }
                                r
                            }
                            None => json!({"decision": decision.lock().unwrap().clone()}),
                        },
                        _ => Value::Null,
                    };
                    recorded.lock().unwrap().push(msg.clone());
                    if !answer {
                        let _ = tx.send(msg);
                        continue;
                    }
                    let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
                    if let Some(s) = reply_to.lock().unwrap().as_mut() {
                        let _ = write_frame(s, reply.to_string().as_bytes());
                    }
                    let _ = tx.send(msg);
                    continue;
                }
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            stdin,
            rx,
            next_id: 1,
            notifications: VecDeque::new(),
            server_requests,
            approve_decision,
            approve_replies,
            responses: std::collections::HashMap::new(),
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let mut g = self.stdin.lock().unwrap();
        let s = g.as_mut().expect("stdin open");
        write_frame(s, bytes).expect("write to server");
    }

    /// Writes bytes without framing (for malformed-header tests).
    pub fn write_unframed(&mut self, bytes: &[u8]) {
        let mut g = self.stdin.lock().unwrap();
        let s = g.as_mut().expect("stdin open");
        s.write_all(bytes).expect("write");
        s.flush().expect("flush");
    }

    pub fn close_stdin(&mut self) {
        self.stdin.lock().unwrap().take();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_raw(msg.to_string().as_bytes());
    }

    /// Sends a request and returns its id without waiting.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(msg.to_string().as_bytes());
        id
    }

    /// Waits for the response with `id`: `Ok(result)` or `Err(error)`.
    pub fn response(&mut self, id: i64) -> Result<Value, Value> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let msg = match self.responses.remove(&id) {
                Some(m) => m,
                None => self
                    .next_message(deadline)
                    .unwrap_or_else(|| panic!("no response to request {id} within {TIMEOUT:?}")),
            };
            if msg.get("method").is_none() && msg["id"] == json!(id) {
                return match msg.get("error") {
                    Some(e) => Err(e.clone()),
                    None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
                };
            }
            if msg.get("method").is_some() && msg.get("id").is_none() {
                self.notifications.push_back(msg);
            } else if msg.get("method").is_none()
                && let Some(other) = msg["id"].as_i64()
            {
                self.responses.insert(other, msg);
            }
        }
    }

    /// Waits for an error response with a `null` id (a parse error or an invalid request
    /// without a usable id) and returns its error object.
    pub fn null_id_error(&mut self) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let msg = self
                .next_message(deadline)
                .unwrap_or_else(|| panic!("no null-id error within {TIMEOUT:?}"));
            if msg.get("method").is_none() && msg["id"].is_null() && msg.get("error").is_some() {
                return msg["error"].clone();
            }
            if msg.get("method").is_some() && msg.get("id").is_none() {
                self.notifications.push_back(msg);
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send_request(method, params);
        self.response(id)
    }

    fn next_message(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.rx.recv_timeout(left).ok()
    }

    /// Waits for a notification `method` whose params satisfy `pred`; earlier non-matching
    /// notifications stay queued.
    pub fn wait_notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.try_wait_notification(method, &pred, TIMEOUT)
            .unwrap_or_else(|| {
                panic!(
                    "no {method} notification matching within {TIMEOUT:?}; queued: {:#?}",
                    self.notifications
                )
            })
    }

    pub fn try_wait_notification(
        &mut self,
        method: &str,
        pred: &dyn Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Option<Value> {
        if let Some(i) = self
            .notifications
            .iter()
            .position(|n| n["method"] == method && pred(&n["params"]))
        {
            return self.notifications.remove(i).map(|n| n["params"].clone());
        }
        let deadline = Instant::now() + timeout;
        while let Some(msg) = self.next_message(deadline) {
            if msg.get("id").is_some() {
                continue;
            }
            if msg["method"] == method && pred(&msg["params"]) {
                return Some(msg["params"].clone());
            }
            self.notifications.push_back(msg);
        }
        None
    }

    /// The latest diagnostics published for `path` once they satisfy `pred`.
    pub fn diagnostics_for(&mut self, path: &Path, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let u = uri(path);
        let p = self.wait_notification("textDocument/publishDiagnostics", |p| {
            p["uri"] == u.as_str()
                && pred(p["diagnostics"].as_array().map_or(&[][..], Vec::as_slice))
        });
        p["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    pub fn initialize(&mut self, root: &Path, capabilities: Value, options: Value) -> Value {
        let r = self
            .request(
                "initialize",
                json!({"processId": null, "rootUri": uri(root), "capabilities": capabilities,
                       "initializationOptions": options,
                       "workspaceFolders": [{"uri": uri(root), "name": "ws"}]}),
            )
            .expect("initialize succeeds");
        self.notify("initialized", json!({}));
        r
    }

    /// A `textDocument/*` request about the whole of `path` (code lenses, symbols); panics with
    /// the error when the server answers one.
    pub fn on(&mut self, method: &str, path: &Path) -> Value {
        self.request(method, json!({"textDocument": {"uri": uri(path)}}))
            .unwrap_or_else(|e| panic!("{method} failed: {e}"))
    }

    /// A `textDocument/*` request at a position of `path` (0-based line and UTF-16 column by
    /// default); panics with the error when the server answers one.
    pub fn at(&mut self, method: &str, path: &Path, line: u32, character: u32) -> Value {
        self.request(
            method,
            json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}}),
        )
        .unwrap_or_else(|e| panic!("{method} failed: {e}"))
    }

    pub fn open(&mut self, path: &Path, text: &str) {
        self.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri(path), "languageId": "markdown", "version": 1, "text": text}}));
    }

    /// `shutdown`, `exit`, and the process exit code.
    pub fn shutdown_and_exit(mut self) -> i32 {
        self.request("shutdown", Value::Null).expect("shutdown");
        self.notify("exit", Value::Null);
        self.wait_exit()
    }

    pub fn wait_exit(&mut self) -> i32 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                return s.code().unwrap_or(-1);
            }
            assert!(
                Instant::now() < deadline,
                "server did not exit within {TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's process id (to read its memory figures in /proc).
    /// The requests of `method` the server sent to us, in order.
    pub fn server_requests_of(&self, method: &str) -> Vec<Value> {
        self.server_requests
            .lock()
            .unwrap()
            .iter()
            .filter(|q| q["method"] == method)
            .cloned()
            .collect()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none()
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns the server in `ws` (`serve` plus `args`), not yet initialized: for the tests that
/// read the `initialize` result or send their own.
pub fn serve(ws: &crate::common::Ws, args: &[&str]) -> Lsp {
    let mut cmd = ws.cmd();
    cmd.arg("serve").args(args);
    Lsp::spawn(cmd)
}

/// Starts the server in `ws` (`serve`) and initializes it with `caps` and `options`.
pub fn start(ws: &crate::common::Ws, caps: Value, options: Value) -> Lsp {
    let mut lsp = serve(ws, &[]);
    lsp.initialize(&ws.root, caps, options);
    lsp
}

/// [`start`] with a client that never answers the server's requests ([`Lsp::spawn_silent`]).
pub fn start_silent(ws: &crate::common::Ws, caps: Value, options: Value) -> Lsp {
    let mut cmd = ws.cmd();
    cmd.arg("serve");
    let mut lsp = Lsp::spawn_silent(cmd);
    lsp.initialize(&ws.root, caps, options);
    lsp
}

/// The `field` of each item of an array result (`label` of completions, `name` of symbols).
pub fn field_of<'a>(items: &'a Value, field: &str) -> Vec<&'a str> {
    items
        .as_array()
        .map(|a| a.iter().map(|i| i[field].as_str().unwrap_or("")).collect())
        .unwrap_or_default()
}

/// The `code` of each diagnostic, in order.
pub fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}
