//! Model providers (spec/sessions.md §5): the neutral request and response, the retry loop with
//! backoff and `Retry-After`, and the three adapters (`openai`, `anthropic`, `script`).

pub mod anthropic;
pub mod http;
pub mod openai;
pub mod script;
pub mod sse;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::tools::ToolDef;

/// Why a run's provider cannot be set up (a pre-run failure; spec/sessions.md §5).
#[derive(Debug, thiserror::Error)]
pub enum ProviderSetupError {
    #[error("Unknown provider kind: {0} (expected openai, anthropic, script)")]
    UnknownKind(String),
    #[error("Provider script is not configured (use --script FILE)")]
    ScriptNotConfigured,
    #[error("Cannot read script {}: {source}", path.display())]
    ScriptUnreadable {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Script(#[from] script::ScriptError),
    #[error("Provider model is not configured")]
    ModelNotConfigured,
    /// The provider's API key variable (`apiKeyEnv`) is unset or empty.
    #[error("Environment variable {0} is not set")]
    KeyNotSet(String),
}

/// What a request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    Turn,
    Summary,
    /// The relay's handoff request (spec/sessions.md §12.5): no tools.
    Handoff,
}

impl RequestKind {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Turn => "turn",
            Self::Summary => "summary",
            Self::Handoff => "handoff",
        }
    }
}

/// A provider-neutral request: system text, messages in the stored form of spec/sessions.md §1.4 (after the
/// governor), offered tools.
#[derive(Clone, Debug)]
pub struct ModelRequest {
    pub kind: RequestKind,
    pub system: String,
    pub messages: Vec<Value>,
    pub tools: Vec<ToolDef>,
    pub max_output_tokens: u32,
    /// Index of the message from which the invariants block starts (not cached), if any.
    pub invariants_at: Option<usize>,
}

impl ModelRequest {
    /// The compact JSON `{"system":…,"messages":[…],"tools":[…]}` used by script `expect`
    /// and the estimate.
    #[must_use]
    pub fn neutral_json(&self) -> String {
        let tools: Vec<Value> = self.tools.iter().map(|t| json!({"name":t.name,"description":t.description,"input_schema":t.input_schema})).collect();
        json!({"system":self.system,"messages":self.messages,"tools":tools}).to_string()
    }
}

/// Normalised stop reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    EndTurn,
    ToolCalls,
    MaxTokens,
}

impl Stop {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::EndTurn => "end_turn",
            Self::ToolCalls => "tool_calls",
            Self::MaxTokens => "max_tokens",
        }
    }
}

/// A tool call as the model sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// False for a call cut by the output limit (unfinished block or unparseable at the cut).
    pub complete: bool,
}

/// Normalised token usage of one model response (`estimated`: counted here, the provider
/// reported none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenUsage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub estimated: bool,
}

impl TokenUsage {
    #[must_use]
    pub fn json(&self) -> Value {
        json!({"input":self.input,"output":self.output,"cacheRead":self.cache_read,"cacheWrite":self.cache_write,"estimated":self.estimated})
    }

    /// The `usage` of a `turn_completed` event (the same keys as [`TokenUsage::json`]).
    #[must_use]
    pub const fn event(&self) -> crate::events::TurnUsage {
        crate::events::TurnUsage {
            input: self.input,
            output: self.output,
            cache_read: self.cache_read,
            cache_write: self.cache_write,
            estimated: self.estimated,
        }
    }
}

/// A complete response.
#[derive(Clone, Debug, Default)]
pub struct ModelResponse {
    pub text: String,
    pub calls: Vec<RawCall>,
    pub stop: Option<Stop>,
    pub usage: Option<TokenUsage>,
    pub provider_data: Option<Value>,
    pub model: String,
}

impl ModelResponse {
    /// The usage the provider reported for `req`, else the estimate (spec/sessions.md §1.4:
    /// the request's neutral JSON in, the text and the calls' arguments out; `estimated`).
    #[must_use]
    pub fn usage_or_estimate(&self, req: &ModelRequest) -> TokenUsage {
        self.usage.unwrap_or_else(|| TokenUsage {
            input: crate::util::estimate(&req.neutral_json()),
            output: crate::util::estimate(&self.text)
                + self
                    .calls
                    .iter()
                    .map(|c| crate::util::estimate(&c.arguments))
                    .sum::<u64>(),
            cache_read: 0,
            cache_write: 0,
            estimated: true,
        })
    }
}

/// Why one attempt failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttemptError {
    /// Retried per spec/sessions.md §5.2.
    #[error("{message}")]
    Retry {
        reason: &'static str,
        status: Option<u16>,
        retry_after: Option<Duration>,
        message: String,
    },
    /// Ends the run (`auth`, `provider_error`).
    #[error("{message}")]
    Fatal { code: &'static str, message: String },
    #[error("Cancelled")]
    Cancelled,
}

/// Receives each streamed text fragment of a response.
pub type OnText<'a> = dyn FnMut(&str) + 'a;

/// What one attempt at a request ends with.
pub type Attempt = Result<ModelResponse, AttemptError>;

/// A provider adapter: one attempt at a request.
pub trait Provider: Send {
    /// Sends the request; `on_text` receives each streamed text fragment.
    ///
    /// # Errors
    /// [`AttemptError`].
    fn attempt(&mut self, req: &ModelRequest, on_text: &mut OnText, cancel: &AtomicBool)
    -> Attempt;
    /// `maxRetries`, `retryBaseMs`.
    fn retry_policy(&self) -> (u32, u64) {
        (3, 1000)
    }
}

/// A retry the loop is about to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryInfo {
    pub attempt: u32,
    pub of: u32,
    pub reason: &'static str,
    pub status: Option<u16>,
    pub delay_ms: u64,
    pub discarded_text: bool,
}

/// How the request ended after retries.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestFailure {
    #[error("{message}")]
    Fatal { code: &'static str, message: String },
    #[error("Cancelled")]
    Cancelled,
}

fn jitter(n: u32) -> f64 {
    let h = super::util::sha256_hex(format!("{}{n}", super::util::now_ms()).as_bytes());
    let v = u32::from_str_radix(&h[..4], 16).unwrap_or(0) as f64 / 65535.0;
    0.8 + 0.4 * v
}

/// Sends with the retry rules of spec/sessions.md §5.2.
///
/// # Errors
/// [`RequestFailure`] after the last retry, on a fatal error or cancellation.
pub fn complete(
    p: &mut dyn Provider,
    req: &ModelRequest,
    on_text: &mut dyn FnMut(&str),
    on_retry: &mut dyn FnMut(&RetryInfo),
    cancel: &AtomicBool,
) -> Result<ModelResponse, RequestFailure> {
    let (max, base) = p.retry_policy();
    let mut attempt = 0u32;
    loop {
        let mut any_text = false;
        let r = {
            let mut wrapped = |t: &str| {
                any_text = true;
                on_text(t);
            };
            p.attempt(req, &mut wrapped, cancel)
        };
        match r {
            Ok(resp) => return Ok(resp),
            Err(AttemptError::Cancelled) => return Err(RequestFailure::Cancelled),
            Err(AttemptError::Fatal { code, message }) => {
                return Err(RequestFailure::Fatal { code, message });
            }
            Err(AttemptError::Retry {
                reason,
                status,
                retry_after,
                message,
            }) => {
                attempt += 1;
                if attempt > max {
                    return Err(RequestFailure::Fatal {
                        code: "provider_error",
                        message,
                    });
                }
                let delay = retry_after.map_or_else(
                    || {
                        let ms = (base as f64
                            * f64::from(1u32 << (attempt - 1).min(20))
                            * jitter(attempt))
                        .min(30_000.0);
                        Duration::from_millis(ms as u64)
                    },
                    |d| d.min(Duration::from_secs(60)),
                );
                on_retry(&RetryInfo {
                    attempt,
                    of: max,
                    reason,
                    status,
                    delay_ms: delay.as_millis() as u64,
                    discarded_text: any_text,
                });
                let end = Instant::now() + delay;
                while Instant::now() < end {
                    if cancel.load(Ordering::Relaxed) {
                        return Err(RequestFailure::Cancelled);
                    }
                    std::thread::sleep(
                        Duration::from_millis(10)
                            .min(end.saturating_duration_since(Instant::now())),
                    );
                }
            }
        }
    }
}

/// Whether an HTTP status is retried (spec/sessions.md §5.2).
#[must_use]
pub fn retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// An HTTP error status, classified (spec/sessions.md §5.2): 401/403 are fatal `auth`, retryable
/// statuses retry after `retry_after` (when known), the rest are fatal `provider_error`.
#[must_use]
pub fn status_failure(status: u16, message: String, retry_after: Option<Duration>) -> AttemptError {
    if matches!(status, 401 | 403) {
        return AttemptError::Fatal {
            code: "auth",
            message,
        };
    }
    if retryable(status) {
        return AttemptError::Retry {
            reason: "http",
            status: Some(status),
            retry_after,
            message,
        };
    }
    AttemptError::Fatal {
        code: "provider_error",
        message,
    }
}

/// A stream event whose data is not JSON (retried, spec/sessions.md §5.2).
#[must_use]
pub fn malformed_json() -> AttemptError {
    AttemptError::Retry {
        reason: "stream_error",
        status: None,
        retry_after: None,
        message: "Provider sent malformed JSON in the stream".into(),
    }
}

/// An in-stream error object (retried, spec/sessions.md §5.2); its message is scrubbed of the key.
#[must_use]
pub fn stream_error(message: &str, key: Option<&str>) -> AttemptError {
    AttemptError::Retry {
        reason: "stream_error",
        status: None,
        retry_after: None,
        message: scrub(&format!("Provider stream error: {message}"), key),
    }
}

/// Replaces every occurrence of the key value with `[redacted]` and caps at 2,000 chars.
#[must_use]
pub fn scrub(msg: &str, key: Option<&str>) -> String {
    let s = match key.filter(|k| !k.is_empty()) {
        Some(k) => msg.replace(k, "[redacted]"),
        None => msg.to_string(),
    };
    super::util::take_chars(&s, 2000).to_string()
}

/// The elements of the array `v[key]`; none when it is absent or not an array.
pub fn items<'v>(v: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// Text of the stored message parts of one type.
#[must_use]
pub fn texts(msg: &Value) -> String {
    msg.get("content")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}

/// The tool calls of a stored assistant message: `(id, name, arguments)`.
#[must_use]
pub fn calls_of(msg: &Value) -> Vec<(String, String, String)> {
    msg.get("content")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool_call"))
                .map(|p| {
                    let g = |k: &str| {
                        p.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    (g("id"), g("name"), g("arguments"))
                })
                .collect()
        })
        .unwrap_or_default()
}
