//! The `anthropic` adapter (spec/sessions.md §5.4): the Messages API with SSE streaming, tool_use and
//! tool_result blocks, prompt caching and thinking blocks kept as provider data.

use serde_json::{Map, Value, json};

use super::http::{Decode, HttpConfig, HttpProvider};
use super::items;
use super::sse::SseEvent;
use super::{
    AttemptError, ModelRequest, ModelResponse, OnText, RawCall, Stop, TokenUsage, calls_of, texts,
};

/// Settings of the adapter.
#[derive(Clone, Debug)]
pub struct Anthropic {
    pub http: HttpConfig,
    pub model: String,
    pub temperature: Option<f64>,
    pub prompt_cache: bool,
}

fn blocks_of(m: &Value) -> (&'static str, Vec<Value>) {
    match m.get("role").and_then(Value::as_str) {
        Some("assistant") => {
            let mut b: Vec<Value> = m
                .get("providerData")
                .and_then(|p| p.get("blocks"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let t = texts(m);
            if !t.is_empty() {
                b.push(json!({"type":"text","text":t}));
            }
            for (id, name, args) in calls_of(m) {
                let input = serde_json::from_str::<Value>(&args)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| json!({}));
                b.push(json!({"type":"tool_use","id":id,"name":name,"input":input}));
            }
            ("assistant", b)
        }
        Some("tool") => (
            "user",
            vec![
                json!({"type":"tool_result","tool_use_id":m.get("callId").cloned().unwrap_or(Value::Null),"content":texts(m),
                "is_error":m.get("isError").and_then(Value::as_bool).unwrap_or(false)}),
            ],
        ),
        _ => ("user", vec![json!({"type":"text","text":texts(m)})]),
    }
}

/// The request body (spec/sessions.md §5.4).
#[must_use]
pub fn body(p: &Anthropic, req: &ModelRequest) -> Value {
    let mut msgs: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut last_history = None;
    for (i, m) in req.messages.iter().enumerate() {
        let (role, blocks) = blocks_of(m);
        if blocks.is_empty() {
            continue;
        }
        match msgs.last_mut() {
            Some((r, b)) if *r == role => {
                // tool_result blocks of one turn come first, then any text.
                if blocks.iter().all(|x| x["type"] == "tool_result") {
                    let at = b
                        .iter()
                        .position(|x| x["type"] != "tool_result")
                        .unwrap_or(b.len());
                    for (k, x) in blocks.into_iter().enumerate() {
                        b.insert(at + k, x);
                    }
                } else {
                    b.extend(blocks);
                }
            }
            _ => msgs.push((role, blocks)),
        }
        if req.invariants_at.is_none_or(|at| i < at) {
            last_history = Some((msgs.len() - 1, msgs.last().map_or(0, |m| m.1.len()) - 1));
        }
    }
    if p.prompt_cache
        && let Some((mi, bi)) = last_history
        && let Some(Value::Object(o)) = msgs.get_mut(mi).and_then(|m| m.1.get_mut(bi))
    {
        o.insert("cache_control".into(), json!({"type":"ephemeral"}));
    }
    let messages: Vec<Value> = msgs
        .into_iter()
        .map(|(r, b)| json!({"role":r,"content":b}))
        .collect();
    let mut system = json!({"type":"text","text":req.system});
    if p.prompt_cache {
        system["cache_control"] = json!({"type":"ephemeral"});
    }
    let mut b = Map::new();
    b.insert("model".into(), json!(p.model));
    b.insert("max_tokens".into(), json!(req.max_output_tokens));
    b.insert("system".into(), json!([system]));
    b.insert("messages".into(), json!(messages));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req.tools.iter().map(|t| json!({"name":t.name,"description":t.description,"input_schema":t.input_schema})).collect();
        b.insert("tools".into(), json!(tools));
    }
    b.insert("stream".into(), json!(true));
    if let Some(t) = p.temperature {
        b.insert("temperature".into(), json!(t));
    }
    Value::Object(b)
}

#[derive(Default)]
struct Block {
    kind: String,
    id: String,
    name: String,
    json: String,
    raw: Value,
    /// `thinking_delta` text, appended here and written into `raw` once at the end (copying
    /// the whole thinking into `raw` per delta was quadratic in its length).
    thinking: Option<String>,
    stopped: bool,
}

#[derive(Default)]
struct Acc {
    text: String,
    blocks: Vec<Block>,
    stop: Option<String>,
    input: u64,
    cache_write: u64,
    cache_read: u64,
    output: u64,
    model: String,
    /// Scrubbed from error messages.
    key: Option<String>,
}

impl Acc {
    fn event(&mut self, v: &Value, on_text: &mut dyn FnMut(&str)) -> Result<bool, AttemptError> {
        let g = |p: &str| v.pointer(p).and_then(Value::as_u64);
        match v.get("type").and_then(Value::as_str).unwrap_or_default() {
            "message_start" => {
                self.input = g("/message/usage/input_tokens").unwrap_or(0);
                self.cache_write = g("/message/usage/cache_creation_input_tokens").unwrap_or(0);
                self.cache_read = g("/message/usage/cache_read_input_tokens").unwrap_or(0);
                self.output = g("/message/usage/output_tokens").unwrap_or(0);
                if let Some(m) = v.pointer("/message/model").and_then(Value::as_str) {
                    self.model = m.to_string();
                }
            }
            "content_block_start" => {
                let cb = v.get("content_block").cloned().unwrap_or(Value::Null);
                let kind = cb
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let s = |k: &str| {
                    cb.get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                let mut b = Block {
                    kind: kind.clone(),
                    id: s("id"),
                    name: s("name"),
                    raw: cb.clone(),
                    ..Block::default()
                };
                if kind == "text" {
                    let t = s("text");
                    if !t.is_empty() {
                        self.text.push_str(&t);
                        on_text(&t);
                    }
                }
                if kind == "tool_use"
                    && let Some(i) = cb
                        .get("input")
                        .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                {
                    b.json = i.to_string();
                }
                self.blocks.push(b);
            }
            "content_block_delta" => {
                let d = v.get("delta").cloned().unwrap_or(Value::Null);
                let Some(b) = self.blocks.last_mut() else {
                    return Ok(false);
                };
                match d.get("type").and_then(Value::as_str).unwrap_or_default() {
                    "text_delta" => {
                        let t = d.get("text").and_then(Value::as_str).unwrap_or_default();
                        self.text.push_str(t);
                        on_text(t);
                    }
                    "input_json_delta" => b.json.push_str(
                        d.get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    ),
                    "thinking_delta" => {
                        let t = d
                            .get("thinking")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        let raw = &b.raw;
                        b.thinking
                            .get_or_insert_with(|| {
                                raw.get("thinking")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_string()
                            })
                            .push_str(t);
                    }
                    "signature_delta" => {
                        if let Some(o) = b.raw.as_object_mut() {
                            o.insert(
                                "signature".into(),
                                d.get("signature").cloned().unwrap_or(Value::Null),
                            );
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(b) = self.blocks.last_mut() {
                    b.stopped = true;
                }
            }
            "message_delta" => {
                if let Some(s) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = Some(s.to_string());
                }
                if let Some(o) = g("/usage/output_tokens") {
                    self.output = o;
                }
            }
            "message_stop" => return Ok(true),
            "error" => {
                let m = v
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("stream error");
                return Err(super::stream_error(m, self.key.as_deref()));
            }
            _ => {}
        }
        Ok(false)
    }

    fn finish(self) -> ModelResponse {
        let stop = match self.stop.as_deref() {
            Some("tool_use") => Stop::ToolCalls,
            Some("max_tokens") => Stop::MaxTokens,
            _ => Stop::EndTurn,
        };
        let mut calls = Vec::new();
        let mut data = Vec::new();
        for b in self.blocks {
            match b.kind.as_str() {
                "tool_use" => {
                    let args = if b.json.is_empty() {
                        "{}".to_string()
                    } else {
                        b.json
                    };
                    let complete = b.stopped
                        && (stop != Stop::MaxTokens
                            || serde_json::from_str::<Value>(&args).is_ok());
                    calls.push(RawCall {
                        id: b.id,
                        name: b.name,
                        arguments: args,
                        complete,
                    });
                }
                "thinking" | "redacted_thinking" => {
                    let mut raw = b.raw;
                    if let (Some(t), Some(o)) = (b.thinking, raw.as_object_mut()) {
                        o.insert("thinking".into(), Value::String(t));
                    }
                    data.push(raw);
                }
                _ => {}
            }
        }
        let usage = TokenUsage {
            // The endpoint's numbers: saturate, never overflow.
            input: self
                .input
                .saturating_add(self.cache_write)
                .saturating_add(self.cache_read),
            output: self.output,
            cache_read: self.cache_read,
            cache_write: self.cache_write,
            estimated: false,
        };
        let provider_data = (!data.is_empty()).then(|| json!({"kind":"anthropic","blocks":data}));
        ModelResponse {
            text: self.text,
            calls,
            stop: Some(stop),
            usage: Some(usage),
            provider_data,
            model: self.model,
        }
    }
}

/// Turns the response's events into a [`ModelResponse`] (pure: no I/O, so the fuzzer drives it).
pub struct AnthropicDecoder {
    accumulated: Acc,
}

impl Decode for AnthropicDecoder {
    fn new(model: &str, key: Option<&str>) -> Self {
        Self {
            accumulated: Acc {
                model: model.to_string(),
                key: key.map(String::from),
                ..Acc::default()
            },
        }
    }

    fn event(&mut self, ev: &SseEvent, on_text: &mut OnText) -> Result<bool, AttemptError> {
        let v: Value = serde_json::from_str(&ev.data).map_err(|_| super::malformed_json())?;
        if ev.event == "json" {
            // A non-streamed Messages response.
            let mut start = json!({"type":"message_start","message":{"usage":v.get("usage").cloned().unwrap_or(Value::Null),"model":v.get("model").cloned().unwrap_or(Value::Null)}});
            self.accumulated.event(&start, on_text)?;
            for cb in items(&v, "content") {
                // A block that is not an object carries nothing usable (and `cb2["text"] = …`
                // would panic on it).
                let Some(mut cb2) = cb.as_object().cloned().map(Value::Object) else {
                    continue;
                };
                if cb2["type"] == "tool_use" {
                    self.accumulated.event(
                        &json!({"type":"content_block_start","content_block":cb2}),
                        on_text,
                    )?;
                } else {
                    let t = cb2.get("text").cloned();
                    cb2["text"] = json!("");
                    self.accumulated.event(
                        &json!({"type":"content_block_start","content_block":cb2}),
                        on_text,
                    )?;
                    if let Some(t) = t {
                        self.accumulated.event(&json!({"type":"content_block_delta","delta":{"type":"text_delta","text":t}}), on_text)?;
                    }
                }
                self.accumulated
                    .event(&json!({"type":"content_block_stop"}), on_text)?;
            }
            start = json!({"type":"message_delta","delta":{"stop_reason":v.get("stop_reason").cloned().unwrap_or(Value::Null)},"usage":{"output_tokens":v.pointer("/usage/output_tokens").cloned().unwrap_or(json!(0))}});
            self.accumulated.event(&start, on_text)?;
            return Ok(true);
        }
        self.accumulated.event(&v, on_text)
    }

    fn finish(self) -> ModelResponse {
        self.accumulated.finish()
    }
}

impl HttpProvider for Anthropic {
    type Decoder = AnthropicDecoder;

    fn parts(&self) -> (&HttpConfig, &str) {
        (&self.http, &self.model)
    }

    fn endpoint(&self) -> (String, Vec<(String, String)>) {
        let url = format!("{}/v1/messages", self.http.base_url.trim_end_matches('/'));
        let headers = vec![
            (
                "x-api-key".to_string(),
                self.http.key.clone().unwrap_or_default(),
            ),
            ("anthropic-version".to_string(), "2023-06-01".to_string()),
        ];
        (url, headers)
    }

    fn body(&self, req: &ModelRequest) -> Value {
        body(self, req)
    }
}
