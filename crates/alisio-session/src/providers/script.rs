//! The `script` provider (spec/sessions.md §5.5): a deterministic, offline JSONL script. Every line
//! answers one provider request of the run, summarizer requests included.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::items;
use super::{
    Attempt, AttemptError, ModelRequest, ModelResponse, OnText, Provider, RawCall, Stop, TokenUsage,
};
use crate::util::estimate;

/// A script header that is not valid (its answer lines fail when used, as provider errors).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    #[error("Script line {line} is not valid: alisioScript must be 1")]
    UnknownVersion { line: usize },
}

/// A loaded script.
#[derive(Clone, Debug)]
pub struct Script {
    /// `(line number, text)` of every answer line.
    lines: Vec<(usize, String)>,
    next: usize,
    pub model: String,
    pub context_window: Option<u64>,
    run_number: u64,
}

impl Script {
    /// Parses the header; answer lines are parsed when used.
    ///
    /// # Errors
    /// `Script line <n> is not valid: <detail>` for a bad header.
    pub fn parse(text: &str, run_number: u64) -> Result<Self, ScriptError> {
        let mut lines = Vec::new();
        let mut model = "script".to_string();
        let mut window = None;
        let mut first = true;
        for (i, l) in text.lines().enumerate() {
            let t = l.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if first {
                first = false;
                if let Ok(v) = serde_json::from_str::<Value>(t)
                    && v.get("alisioScript").is_some()
                {
                    if v["alisioScript"] != 1 {
                        return Err(ScriptError::UnknownVersion { line: i + 1 });
                    }
                    if let Some(m) = v.get("model").and_then(Value::as_str) {
                        model = m.to_string();
                    }
                    window = v
                        .get("contextWindow")
                        .and_then(Value::as_u64)
                        .filter(|w| *w <= 2_000_000);
                    continue;
                }
            }
            lines.push((i + 1, t.to_string()));
        }
        Ok(Self {
            lines,
            next: 0,
            model,
            context_window: window,
            run_number,
        })
    }
}

fn fatal(message: String) -> AttemptError {
    AttemptError::Fatal {
        code: "provider_error",
        message,
    }
}

fn check_expect(n: usize, exp: &Value, req: &ModelRequest) -> Result<(), AttemptError> {
    let j = req.neutral_json();
    let fail = |d: String| fatal(format!("Script expectation failed at line {n}: {d}"));
    for s in items(exp, "contains").filter_map(Value::as_str) {
        if !j.contains(s) {
            return Err(fail(format!(
                "the request does not contain {}",
                serde_json::to_string(s).unwrap_or_default()
            )));
        }
    }
    for s in items(exp, "notContains").filter_map(Value::as_str) {
        if j.contains(s) {
            return Err(fail(format!(
                "the request contains {}",
                serde_json::to_string(s).unwrap_or_default()
            )));
        }
    }
    if let Some(t) = exp.get("tools").and_then(Value::as_array) {
        let want: Vec<&str> = t.iter().filter_map(Value::as_str).collect();
        let got: Vec<&str> = req.tools.iter().map(|t| t.name.as_str()).collect();
        if want != got {
            return Err(fail(format!(
                "tools are [{}], expected [{}]",
                got.join(", "),
                want.join(", ")
            )));
        }
    }
    if let Some(r) = exp.get("lastRole").and_then(Value::as_str) {
        let got = req
            .messages
            .last()
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
            .unwrap_or("none");
        if got != r {
            return Err(fail(format!("the last message is {got}, expected {r}")));
        }
    }
    Ok(())
}

impl Provider for Script {
    fn attempt(
        &mut self,
        req: &ModelRequest,
        on_text: &mut OnText,
        cancel: &AtomicBool,
    ) -> Attempt {
        let Some((n, raw)) = self.lines.get(self.next).cloned() else {
            return Err(fatal(format!(
                "Script exhausted after {} model requests",
                self.next
            )));
        };
        self.next += 1;
        let v: Value = serde_json::from_str(&raw)
            .map_err(|e| fatal(format!("Script line {n} is not valid: {e}")))?;
        if !v.is_object() {
            return Err(fatal(format!(
                "Script line {n} is not valid: expected a JSON object"
            )));
        }
        if let Some(k) = v.get("for").and_then(Value::as_str)
            && k != req.kind.as_str()
        {
            return Err(fatal(format!(
                "Script line {n} expects a {k} request but got a {} request",
                req.kind.as_str()
            )));
        }
        if let Some(e) = v.get("expect") {
            check_expect(n, e, req)?;
        }
        if let Some(ms) = v.get("delayMs").and_then(Value::as_u64) {
            let end = Instant::now() + Duration::from_millis(ms);
            while Instant::now() < end {
                if cancel.load(Ordering::Relaxed) {
                    return Err(AttemptError::Cancelled);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        if let Some(e) = v.get("error") {
            return Err(scripted_error(e));
        }
        let mut text = String::new();
        if let Some(chunks) = v.get("chunks").and_then(Value::as_array) {
            for c in chunks.iter().filter_map(Value::as_str) {
                text.push_str(c);
                on_text(c);
            }
        } else if let Some(t) = v.get("text").and_then(Value::as_str) {
            text.push_str(t);
            if !t.is_empty() {
                on_text(t);
            }
        }
        let mut calls = script_calls(&v, n, self.run_number);
        let stop = match v.get("stop").and_then(Value::as_str) {
            Some("end_turn") => Stop::EndTurn,
            Some("tool_calls") => Stop::ToolCalls,
            Some("max_tokens") => Stop::MaxTokens,
            Some(o) => {
                return Err(fatal(format!(
                    "Script line {n} is not valid: unknown stop {o}"
                )));
            }
            None if calls.is_empty() => Stop::EndTurn,
            None => Stop::ToolCalls,
        };
        if stop == Stop::MaxTokens {
            for c in &mut calls {
                c.complete = serde_json::from_str::<Value>(&c.arguments).is_ok();
            }
        }
        let usage = match v.get("usage") {
            Some(u) => {
                let g = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
                TokenUsage {
                    input: g("input"),
                    output: g("output"),
                    cache_read: g("cacheRead"),
                    cache_write: g("cacheWrite"),
                    estimated: false,
                }
            }
            None => {
                let out: u64 = estimate(&text)
                    + calls
                        .iter()
                        .map(|c| estimate(&c.arguments) + estimate(&c.name))
                        .sum::<u64>();
                TokenUsage {
                    input: estimate(&req.neutral_json()),
                    output: out,
                    cache_read: 0,
                    cache_write: 0,
                    estimated: true,
                }
            }
        };
        Ok(ModelResponse {
            text,
            calls,
            stop: Some(stop),
            usage: Some(usage),
            provider_data: None,
            model: self.model.clone(),
        })
    }

    fn retry_policy(&self) -> (u32, u64) {
        (3, 0)
    }
}
/// A scripted `error` line: the HTTP failure it stands for, classified as a real one would be.
fn scripted_error(e: &Value) -> AttemptError {
    let status = e.get("status").and_then(Value::as_u64).unwrap_or(500) as u16;
    let m = e.get("message").and_then(Value::as_str).unwrap_or("error");
    let message = format!("Provider request failed with HTTP {status}: {m}");
    super::status_failure(status, message, Some(Duration::ZERO))
}

/// The `toolCalls` of script line `n` (ids `s<run>_<line>_<index>` unless given).
fn script_calls(v: &Value, n: usize, run_number: u64) -> Vec<RawCall> {
    let mut calls = Vec::new();
    for (i, c) in items(v, "toolCalls").enumerate() {
        let id = c
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("s{run_number}_{n}_{i}"), String::from);
        let name = c
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let arguments = match c.get("arguments") {
            Some(Value::String(s)) => s.clone(),
            Some(o) => o.to_string(),
            None => "{}".into(),
        };
        calls.push(RawCall {
            id,
            name,
            arguments,
            complete: true,
        });
    }
    calls
}
