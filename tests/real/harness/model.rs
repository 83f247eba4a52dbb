//! The fake model APIs: Anthropic Messages (Claude Code), OpenAI Responses (Codex) and Gemini
//! `generateContent` (Gemini CLI), each answering from a [`Script`]: the turn the client is on
//! (the number of model turns already in the conversation it sends) picks the scripted answer.
//! Requests that are not the main conversation (a title, a classifier, a token count) get a
//! short fixed answer and never advance the script.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::http::{Request, Responder, Response};

/// Which wire format the fake server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Api {
    Anthropic,
    OpenAiResponses,
    Gemini,
}

/// One scripted model turn.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Turn {
    /// A final text answer.
    Text(String),
    /// One tool call (Claude Code `Read {file_path}`, Codex `shell`, Gemini `read_file` …).
    Tool { name: String, input: Value },
}

/// The answers of a session, turn by turn; past the end every answer is `Text("OK")`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Script {
    pub turns: Vec<Turn>,
    /// The text answered to Claude Code's compaction request (`/compact`).
    pub compact_summary: Option<String>,
}

impl Script {
    #[must_use]
    pub fn text(s: &str) -> Self {
        Self {
            turns: vec![Turn::Text(s.into())],
            compact_summary: None,
        }
    }

    /// A tool call, then a final text.
    #[must_use]
    pub fn tool_then_text(name: &str, input: Value, text: &str) -> Self {
        Self {
            turns: vec![
                Turn::Tool {
                    name: name.into(),
                    input,
                },
                Turn::Text(text.into()),
            ],
            compact_summary: None,
        }
    }

    fn turn(&self, n: usize) -> Turn {
        self.turns
            .get(n)
            .cloned()
            .unwrap_or_else(|| Turn::Text("OK".into()))
    }
}

/// The responder for `api` playing `script`.
#[must_use]
pub fn responder(api: Api, script: Script) -> Responder {
    let script = Arc::new(script);
    Arc::new(move |req: &Request, _all: &[Request]| match api {
        Api::Anthropic => anthropic(&script, req),
        Api::OpenAiResponses => responses(&script, req),
        Api::Gemini => gemini(&script, req),
    })
}

/// True when Claude Code asks for a compaction summary (the request of `/compact`).
fn is_compaction(body: &Value) -> bool {
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    last.contains("create a detailed summary of the conversation")
        || last.contains("Your task is to create a detailed summary")
}

fn anthropic(script: &Script, req: &Request) -> Response {
    if req.method != "POST" {
        return Response::not_found();
    }
    if req.path.contains("count_tokens") {
        return Response::json(&json!({"input_tokens": 10}));
    }
    if !req.path.contains("/v1/messages") {
        return Response::not_found();
    }
    let body = req.json();
    let model = body["model"].as_str().unwrap_or("claude").to_string();
    let turn = if is_compaction(&body) {
        Turn::Text(
            script
                .compact_summary
                .clone()
                .unwrap_or_else(|| "<summary>Nothing yet.</summary>".into()),
        )
    } else if body["tools"].as_array().is_none_or(Vec::is_empty) {
        Turn::Text("OK".into())
    } else {
        let n = body["messages"]
            .as_array()
            .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
        script.turn(n)
    };
    let usage = json!({"input_tokens": 10, "output_tokens": 1,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    let (block, delta, stop) = match &turn {
        Turn::Text(t) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": t}),
            "end_turn",
        ),
        Turn::Tool { name, input } => (
            json!({"type": "tool_use", "id": format!("toolu_{:04}", n_requests(req)), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
    };
    if body["stream"] != true {
        let content = match &turn {
            Turn::Text(t) => json!([{"type": "text", "text": t}]),
            Turn::Tool { name, input } => {
                json!([{"type": "tool_use", "id": "toolu_0001", "name": name, "input": input}])
            }
        };
        return Response::json(
            &json!({"id": format!("msg_{:04}", n_requests(req)), "type": "message", "role": "assistant",
            "model": model, "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": usage}),
        );
    }
    Response::sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": format!("msg_{:04}", n_requests(req)), "type": "message",
                "role": "assistant", "model": model, "content": [], "stop_reason": null,
                "stop_sequence": null, "usage": usage}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": 1}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

/// A stable id for a tool call or a message: the request's body length is enough to tell them
/// apart. Message ids must differ: Claude Code merges consecutive assistant messages that share
/// one (a second scripted tool call would never be reached).
fn n_requests(req: &Request) -> usize {
    req.body.len()
}

fn responses(script: &Script, req: &Request) -> Response {
    if req.method != "POST" || !req.path.ends_with("/responses") {
        return Response::not_found();
    }
    let body = req.json();
    let n = body["input"].as_array().map_or(0, |items| {
        items
            .iter()
            .filter(|i| {
                i["type"] == "function_call"
                    || i["type"] == "custom_tool_call"
                    || i["type"] == "local_shell_call"
                    || (i["type"] == "message" && i["role"] == "assistant")
            })
            .count()
    });
    let item = match script.turn(n) {
        Turn::Text(t) => json!({"type": "message", "role": "assistant", "id": "msg_fake",
            "content": [{"type": "output_text", "text": t, "annotations": []}]}),
        Turn::Tool { name, input } => json!({"type": "function_call", "id": format!("fc_{n}"),
            "call_id": format!("call_{n}"), "name": name, "arguments": input.to_string()}),
    };
    Response::sse(&[
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_fake"}}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_fake", "usage": {
                "input_tokens": 10, "input_tokens_details": null, "output_tokens": 1,
                "output_tokens_details": null, "total_tokens": 11}}}),
        ),
    ])
}

fn gemini(script: &Script, req: &Request) -> Response {
    if req.method != "POST" {
        return Response::not_found();
    }
    if req.path.contains(":countTokens") {
        return Response::json(&json!({"totalTokens": 10}));
    }
    if !req.path.contains("enerateContent") {
        return Response::not_found();
    }
    let body = req.json();
    let main = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    let turn = if main {
        let n = body["contents"]
            .as_array()
            .map_or(0, |c| c.iter().filter(|c| c["role"] == "model").count());
        script.turn(n)
    } else if body["systemInstruction"]
        .to_string()
        .contains("complexity_score")
    {
        Turn::Text(r#"{"complexity_reasoning": "simple", "complexity_score": 10}"#.into())
    } else {
        Turn::Text("OK".into())
    };
    let part = match turn {
        Turn::Text(t) => json!({"text": t}),
        Turn::Tool { name, input } => json!({"functionCall": {"name": name, "args": input}}),
    };
    let chunk = json!({"candidates": [{"content": {"parts": [part], "role": "model"},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}});
    if req.path.contains("streamGenerateContent") {
        Response::sse(&[("", chunk)])
    } else {
        Response::json(&chunk)
    }
}
