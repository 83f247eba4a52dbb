//! The `openai` adapter (spec/sessions.md §5.3): Chat Completions with SSE streaming (OpenAI, Ollama,
//! vLLM, llama.cpp server, LM Studio).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::http::{Decode, HttpConfig, HttpProvider};
use super::items;
use super::sse::SseEvent;
use super::{
    AttemptError, ModelRequest, ModelResponse, OnText, RawCall, Stop, TokenUsage, calls_of, texts,
};

/// Settings of the adapter.
#[derive(Clone, Debug)]
pub struct OpenAi {
    pub http: HttpConfig,
    pub model: String,
    pub temperature: Option<f64>,
    pub max_tokens_param: String,
    pub stream_usage: bool,
}

/// The request body (spec/sessions.md §5.3).
#[must_use]
pub fn body(p: &OpenAi, req: &ModelRequest) -> Value {
    let mut messages = vec![json!({"role":"system","content":req.system})];
    for m in &req.messages {
        match m.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                let text = texts(m);
                let calls: Vec<Value> = calls_of(m).into_iter().map(|(id, name, args)| json!({"id":id,"type":"function","function":{"name":name,"arguments":args}})).collect();
                let mut o = Map::new();
                o.insert("role".into(), json!("assistant"));
                o.insert(
                    "content".into(),
                    if text.is_empty() {
                        Value::Null
                    } else {
                        json!(text)
                    },
                );
                if !calls.is_empty() {
                    o.insert("tool_calls".into(), json!(calls));
                }
                messages.push(Value::Object(o));
            }
            Some("tool") => {
                let err = m.get("isError").and_then(Value::as_bool).unwrap_or(false);
                let t = texts(m);
                messages.push(json!({"role":"tool","tool_call_id":m.get("callId").cloned().unwrap_or(Value::Null),"content":if err { format!("Error: {t}") } else { t }}));
            }
            _ => messages.push(json!({"role":"user","content":texts(m)})),
        }
    }
    let mut b = Map::new();
    b.insert("model".into(), json!(p.model));
    b.insert("messages".into(), json!(messages));
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req.tools.iter().map(|t| json!({"type":"function","function":{"name":t.name,"description":t.description,"parameters":t.input_schema}})).collect();
        b.insert("tools".into(), json!(tools));
        b.insert("tool_choice".into(), json!("auto"));
    }
    b.insert("stream".into(), json!(true));
    if p.stream_usage {
        b.insert("stream_options".into(), json!({"include_usage":true}));
    }
    b.insert(p.max_tokens_param.clone(), json!(req.max_output_tokens));
    if let Some(t) = p.temperature {
        b.insert("temperature".into(), json!(t));
    }
    Value::Object(b)
}

#[derive(Default)]
struct Acc {
    text: String,
    calls: BTreeMap<u64, (String, String, String)>,
    finish: Option<String>,
    usage: Option<TokenUsage>,
    model: String,
}

/// The chunk's `usage`: `prompt_tokens` includes its cached part, `prompt_tokens_details.
/// cached_tokens`, or DeepSeek's `prompt_cache_hit_tokens` when the details lack it (as the
/// mini-swe-agent reader reads it, spec/governor.md §11.11).
fn usage_of(u: &Value) -> TokenUsage {
    let get = |p: &str| u.pointer(p).and_then(Value::as_u64);
    let g = |p: &str| get(p).unwrap_or(0);
    TokenUsage {
        input: g("/prompt_tokens"),
        output: g("/completion_tokens"),
        cache_read: get("/prompt_tokens_details/cached_tokens")
            .or_else(|| get("/prompt_cache_hit_tokens"))
            .unwrap_or(0),
        cache_write: 0,
        estimated: false,
    }
}

impl Acc {
    fn chunk(&mut self, v: &Value, on_text: &mut dyn FnMut(&str)) {
        if let Some(m) = v.get("model").and_then(Value::as_str) {
            self.model = m.to_string();
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage_of(u));
        }
        let Some(choice) = v.pointer("/choices/0") else {
            return;
        };
        let delta = choice.get("delta").or_else(|| choice.get("message"));
        if let Some(d) = delta {
            if let Some(t) = d
                .get("content")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                self.text.push_str(t);
                on_text(t);
            }
            for (i, tc) in items(d, "tool_calls").enumerate() {
                let idx = tc.get("index").and_then(Value::as_u64).unwrap_or(i as u64);
                let e = self.calls.entry(idx).or_default();
                if let Some(id) = tc
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                {
                    e.0 = id.to_string();
                }
                if let Some(n) = tc
                    .pointer("/function/name")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                {
                    e.1 = n.to_string();
                }
                match tc.pointer("/function/arguments") {
                    Some(Value::String(s)) => e.2.push_str(s),
                    Some(Value::Null) | None => {}
                    Some(other) => e.2.push_str(&other.to_string()),
                }
            }
        }
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(f.to_string());
        }
    }

    fn finish(self) -> ModelResponse {
        let stop = match self.finish.as_deref() {
            Some("length") => Stop::MaxTokens,
            Some("tool_calls" | "function_call") => Stop::ToolCalls,
            _ => Stop::EndTurn,
        };
        let calls = self
            .calls
            .into_values()
            .map(|(id, name, args)| {
                let complete =
                    stop != Stop::MaxTokens || serde_json::from_str::<Value>(&args).is_ok();
                RawCall {
                    id,
                    name,
                    arguments: args,
                    complete,
                }
            })
            .collect();
        ModelResponse {
            text: self.text,
            calls,
            stop: Some(stop),
            usage: self.usage,
            provider_data: None,
            model: self.model,
        }
    }
}

/// Turns the response's events into a [`ModelResponse`] (pure: no I/O, so the fuzzer drives it).
pub struct OpenAiDecoder {
    accumulated: Acc,
    key: Option<String>,
}

impl Decode for OpenAiDecoder {
    fn new(model: &str, key: Option<&str>) -> Self {
        Self {
            accumulated: Acc {
                model: model.to_string(),
                ..Acc::default()
            },
            key: key.map(String::from),
        }
    }

    fn event(&mut self, ev: &SseEvent, on_text: &mut OnText) -> Result<bool, AttemptError> {
        if ev.data == "[DONE]" {
            return Ok(true);
        }
        let v: Value = serde_json::from_str(&ev.data).map_err(|_| super::malformed_json())?;
        if let Some(e) = v.get("error") {
            let m = e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("stream error");
            return Err(super::stream_error(m, self.key.as_deref()));
        }
        self.accumulated.chunk(&v, on_text);
        // A non-streamed JSON body is complete by itself.
        Ok(ev.event == "json")
    }

    fn finish(self) -> ModelResponse {
        self.accumulated.finish()
    }
}

impl HttpProvider for OpenAi {
    type Decoder = OpenAiDecoder;

    fn parts(&self) -> (&HttpConfig, &str) {
        (&self.http, &self.model)
    }

    fn endpoint(&self) -> (String, Vec<(String, String)>) {
        let url = format!(
            "{}/chat/completions",
            self.http.base_url.trim_end_matches('/')
        );
        let mut headers = Vec::new();
        if let Some(k) = self.http.key.as_ref().filter(|k| !k.is_empty()) {
            headers.push(("authorization".to_string(), format!("Bearer {k}")));
        }
        (url, headers)
    }

    fn body(&self, req: &ModelRequest) -> Value {
        body(self, req)
    }
}
