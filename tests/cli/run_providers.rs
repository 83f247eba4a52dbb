//! Providers against a fake server on 127.0.0.1 (spec/sessions.md §5; spec/sessions.md §11 cases 5, 39–42).

use serde_json::{Value, json};

use crate::common::{Run, Ws, run_cmd};
use crate::fake::{Fake, Reply};
use crate::sess::*;

const OPENAI_TOOL: &str = include_str!("../fixtures/sse/openai_tool_calls.sse");

const OPENAI_TEXT: &str = include_str!("../fixtures/sse/openai_text.sse");

const ANTHROPIC_TOOL: &str = include_str!("../fixtures/sse/anthropic_tool_use.sse");

const ANTHROPIC_TEXT: &str = include_str!("../fixtures/sse/anthropic_text.sse");

fn config(ws: &Ws, provider: Value) {
    ws.file("cfg.json", json!({"provider":provider}).to_string());
}

fn go(ws: &Ws, env: &[(&str, &str)]) -> (Run, Vec<Value>) {
    let mut c = ws.cmd();
    for (k, v) in env {
        c.env(k, v);
    }
    let r = run_cmd(c.args(["run", "--json", "--config", "cfg.json", "p"]));
    let ev = events(&r);
    (r, ev)
}

// 39
#[test]
fn openai_requests_and_streams_follow_chat_completions() {
    let ws = Ws::new();
    let fake = Fake::start(vec![Reply::sse(OPENAI_TOOL, 7), Reply::sse(OPENAI_TEXT, 5)]);
    config(
        &ws,
        json!({"kind":"openai","baseUrl":fake.url,"model":"m1"}),
    );
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let req = fake.requests();
    assert_eq!(req.len(), 2);
    assert_eq!(req[0].path, "/chat/completions");
    assert!(
        req[0].header("authorization").is_none(),
        "no key variable, no Authorization"
    );
    let b = &req[0].body;
    assert_eq!(b["model"], "m1");
    assert_eq!(b["stream"], json!(true));
    assert_eq!(b["stream_options"], json!({"include_usage":true}));
    assert_eq!(b["max_tokens"], json!(8192));
    assert_eq!(b["tool_choice"], "auto");
    assert_eq!(b["tools"][0]["type"], "function");
    assert_eq!(b["tools"][0]["function"]["name"], "read_file");
    assert_eq!(
        b["tools"][0]["function"]["parameters"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(b["messages"][0]["role"], "system");
    let m2 = &req[1].body["messages"];
    assert_eq!(
        m2[2]["tool_calls"][0],
        json!({"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"nope.txt\"}"}})
    );
    assert_eq!(m2[3]["role"], "tool");
    assert_eq!(m2[3]["tool_call_id"], "call_1");
    assert_eq!(m2[3]["content"], "Error: File not found: nope.txt");
    let t = &of_type(&ev, "turn_completed")[0]["data"];
    assert_eq!(
        t["usage"],
        json!({"input":100,"output":20,"cacheRead":40,"cacheWrite":0,"estimated":false})
    );
    assert_eq!(of_type(&ev, "run_completed")[0]["data"]["text"], "done");
    let deltas: String = of_type(&ev, "text_delta")
        .iter()
        .map(|e| e["data"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "Lookdone");

    let fake = Fake::start(vec![Reply::sse(OPENAI_TEXT, 3)]);
    config(
        &ws,
        json!({"kind":"openai","baseUrl":fake.url,"model":"m1","apiKeyEnv":"MY_KEY"}),
    );
    let (r, _) = go(&ws, &[("MY_KEY", "k-123")]);
    assert_eq!(r.code, 0);
    assert_eq!(
        fake.requests()[0].header("authorization"),
        Some("Bearer k-123")
    );
}

// 40
#[test]
fn anthropic_requests_and_streams_follow_the_messages_api() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        Reply::sse(ANTHROPIC_TOOL, 11),
        Reply::sse(ANTHROPIC_TEXT, 4),
    ]);
    config(
        &ws,
        json!({"kind":"anthropic","baseUrl":fake.url,"model":"claude-x"}),
    );
    let (r, ev) = go(&ws, &[("ANTHROPIC_API_KEY", "ak-1")]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let req = fake.requests();
    assert_eq!(req[0].path, "/v1/messages");
    assert_eq!(req[0].header("x-api-key"), Some("ak-1"));
    assert_eq!(req[0].header("anthropic-version"), Some("2023-06-01"));
    let b = &req[0].body;
    assert_eq!(b["system"][0]["type"], "text");
    assert_eq!(b["system"][0]["cache_control"], json!({"type":"ephemeral"}));
    assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
    let m = &req[1].body["messages"];
    assert_eq!(
        m[1]["content"][1],
        json!({"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"missing.txt"}})
    );
    assert_eq!(m[2]["role"], "user");
    assert_eq!(m[2]["content"][0]["type"], "tool_result");
    assert_eq!(m[2]["content"][0]["is_error"], json!(true));
    assert_eq!(m[2]["content"][0]["tool_use_id"], "toolu_1");
    // Prompt caching: the system block and the last block of the last history message.
    assert_eq!(
        m[2]["content"][0]["cache_control"],
        json!({"type":"ephemeral"})
    );
    assert!(m[1]["content"][1].get("cache_control").is_none());
    let u = &of_type(&ev, "turn_completed")[0]["data"]["usage"];
    assert_eq!(
        u,
        &json!({"input":35,"output":15,"cacheRead":20,"cacheWrite":5,"estimated":false})
    );
    let (r, _) = go(&ws, &[]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr.trim(),
        "error: Environment variable ANTHROPIC_API_KEY is not set"
    );
}

// 41
#[test]
fn retries_honour_retry_after_and_stop_at_max_retries_and_auth_fails_at_once() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        Reply::status(
            429,
            r#"{"error":{"message":"slow down"}}"#,
            &[("retry-after", "1")],
        ),
        Reply::sse(OPENAI_TEXT, 9),
    ]);
    config(&ws, json!({"kind":"openai","baseUrl":fake.url,"model":"m"}));
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let retry = of_type(&ev, "request_retry");
    assert_eq!(retry.len(), 1);
    assert_eq!(
        retry[0]["data"],
        json!({"attempt":1,"of":3,"reason":"http","status":429,"delayMs":1000,"discardedText":false})
    );

    let fake = Fake::start(
        (0..5)
            .map(|_| Reply::status(500, r#"{"error":{"message":"boom"}}"#, &[]))
            .collect(),
    );
    config(
        &ws,
        json!({"kind":"openai","baseUrl":fake.url,"model":"m","maxRetries":3,"retryBaseMs":1}),
    );
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 1);
    assert_eq!(of_type(&ev, "request_retry").len(), 3);
    let f = &of_type(&ev, "run_failed")[0]["data"];
    assert_eq!(f["code"], "provider_error");
    assert_eq!(f["error"], "Provider request failed with HTTP 500: boom");
    assert_eq!(fake.requests().len(), 4);

    let fake = Fake::start(vec![Reply::status(
        401,
        r#"{"error":{"message":"Incorrect API key provided: sk-test-SECRET"}}"#,
        &[],
    )]);
    config(&ws, json!({"kind":"openai","baseUrl":fake.url,"model":"m"}));
    let (r, ev) = go(
        &ws,
        &[
            ("OPENAI_API_KEY", "sk-test-SECRET"),
            ("ALISIO_LOG", "trace"),
        ],
    );
    assert_eq!(r.code, 1);
    assert!(of_type(&ev, "request_retry").is_empty());
    let f = &of_type(&ev, "run_failed")[0]["data"];
    assert_eq!(f["code"], "auth");
    assert_eq!(
        f["error"],
        "Provider request failed with HTTP 401: Incorrect API key provided: [redacted]"
    );
    // 5: the key is nowhere.
    assert!(!r.stdout.contains("sk-test-SECRET") && !r.stderr.contains("sk-test-SECRET"));
    for f in ["sessions.db", "sessions.db-wal"] {
        if let Ok(b) = std::fs::read(state(&ws).join(f)) {
            assert!(
                !String::from_utf8_lossy(&b).contains("sk-test-SECRET"),
                "{f}"
            );
        }
    }
}

// 42
#[test]
fn a_stalled_stream_is_retried_and_the_retry_answer_is_stored() {
    let ws = Ws::new();
    let stalled = Reply {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunks: vec![
            (
                0,
                b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hal\"}}]}\n\n".to_vec(),
            ),
            (
                0,
                b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"f\"}}]}\n\n".to_vec(),
            ),
        ],
        stall_ms: 3000,
    };
    let fake = Fake::start(vec![stalled, Reply::sse(OPENAI_TEXT, 6)]);
    config(
        &ws,
        json!({"kind":"openai","baseUrl":fake.url,"model":"m","idleTimeoutMs":400,"retryBaseMs":1}),
    );
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let retry = of_type(&ev, "request_retry");
    assert_eq!(retry[0]["data"]["reason"], "idle_timeout");
    assert_eq!(retry[0]["data"]["discardedText"], json!(true));
    let m = active(&ws, &sid(&ev));
    assert_eq!(m[1].3["content"], json!([{"type":"text","text":"done"}]));
}

#[test]
fn a_dropped_connection_and_malformed_json_are_retried() {
    let ws = Ws::new();
    let dropped = Reply::sse(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n",
        10,
    );
    let malformed = Reply::sse("data: {not json\n\n", 4);
    let fake = Fake::start(vec![dropped, malformed, Reply::sse(OPENAI_TEXT, 2)]);
    config(
        &ws,
        json!({"kind":"openai","baseUrl":fake.url,"model":"m","retryBaseMs":1}),
    );
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let reasons: Vec<&str> = of_type(&ev, "request_retry")
        .iter()
        .map(|e| e["data"]["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["stream_error", "stream_error"]);
    assert_eq!(of_type(&ev, "run_completed")[0]["data"]["text"], "done");
}

#[test]
fn in_stream_errors_are_retried_for_both_wire_formats() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        Reply::sse(include_str!("../fixtures/sse/openai_stream_error.sse"), 13),
        Reply::sse(OPENAI_TEXT, 8),
    ]);
    config(
        &ws,
        json!({"kind":"openai","baseUrl":fake.url,"model":"m","retryBaseMs":1}),
    );
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let retry = &of_type(&ev, "request_retry")[0]["data"];
    assert_eq!(retry["reason"], "stream_error");
    assert_eq!(retry["discardedText"], json!(true));

    let fake = Fake::start(vec![
        Reply::sse(
            include_str!("../fixtures/sse/anthropic_stream_error.sse"),
            17,
        ),
        Reply::sse(ANTHROPIC_TEXT, 8),
    ]);
    config(
        &ws,
        json!({"kind":"anthropic","baseUrl":fake.url,"model":"claude-x","retryBaseMs":1}),
    );
    let (r, ev) = go(&ws, &[("ANTHROPIC_API_KEY", "k")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        of_type(&ev, "request_retry")[0]["data"]["reason"],
        "stream_error"
    );
}

#[test]
fn anthropic_thinking_blocks_are_kept_as_provider_data_and_replayed_first() {
    let ws = Ws::new();
    let fake = Fake::start(vec![
        Reply::sse(include_str!("../fixtures/sse/anthropic_thinking.sse"), 23),
        Reply::sse(ANTHROPIC_TEXT, 8),
    ]);
    config(
        &ws,
        json!({"kind":"anthropic","baseUrl":fake.url,"model":"claude-x","promptCache":false}),
    );
    let (r, ev) = go(&ws, &[("ANTHROPIC_API_KEY", "k")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let m = active(&ws, &sid(&ev));
    assert_eq!(
        m[1].3["providerData"]["blocks"][0],
        json!({"type":"thinking","thinking":"Let me think.","signature":"sig-1"})
    );
    let second = &fake.requests()[1].body;
    assert_eq!(
        second["messages"][1]["content"][0],
        json!({"type":"thinking","thinking":"Let me think.","signature":"sig-1"})
    );
    assert_eq!(second["messages"][1]["content"][1]["type"], "tool_use");
    assert!(second["system"][0].get("cache_control").is_none());
    assert!(
        !m[1].3["content"].to_string().contains("Let me think"),
        "thinking is not message text"
    );
    assert!(
        of_type(&ev, "text_delta")
            .iter()
            .all(|e| !e["data"]["text"].as_str().unwrap().contains("think")),
        "thinking is never streamed"
    );
}

#[test]
fn an_openai_length_stop_with_text_is_a_truncated_answer() {
    let ws = Ws::new();
    let fake = Fake::start(vec![Reply::sse(
        include_str!("../fixtures/sse/openai_max_tokens.sse"),
        5,
    )]);
    config(
        &ws,
        json!({"kind":"openai","baseUrl":fake.url,"model":"m","maxTokensParam":"max_completion_tokens","streamUsage":false,"maxOutputTokens":64}),
    );
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        of_type(&ev, "response_truncated")[0]["data"],
        json!({"turn":1,"maxOutputTokens":64})
    );
    let b = &fake.requests()[0].body;
    assert_eq!(b["max_completion_tokens"], json!(64));
    assert!(b.get("max_tokens").is_none() && b.get("stream_options").is_none());
    assert_eq!(
        of_type(&ev, "turn_completed")[0]["data"]["usage"]["estimated"],
        json!(true),
        "no usage reported: the estimate"
    );
}

// Hostile endpoints (docs/security.md §5b): a response, an event and a JSON body are bounded
// (each refused with its limit, no retry), and malformed shapes never panic.
#[test]
fn oversized_responses_events_and_bodies_end_the_run_with_their_limit_and_no_retry() {
    let sse = |chunks: Vec<Vec<u8>>| Reply {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunks: chunks.into_iter().map(|c| (0, c)).collect(),
        stall_ms: 0,
    };
    // One data line that never ends, in 1 MiB pieces: the event bound (8 MiB) ends it.
    let mut endless = vec![b"data: {\"choices\":[{\"delta\":{\"content\":\"".to_vec()];
    endless.extend((0..12).map(|_| vec![b'a'; 1 << 20]));
    // 65 MiB of comment lines (each ignored, nothing held): the response bound (64 MiB).
    let comments = (0..65)
        .map(|_| b": keep-alive padding\n".repeat((1 << 20) / 21))
        .collect();
    // A non-streamed JSON body of 9 MiB: the body bound (8 MiB).
    let body = Reply {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        chunks: vec![(0, format!("[{}0]", "0,".repeat(9 << 19)).into_bytes())],
        stall_ms: 0,
    };
    for (reply, error) in [
        (sse(endless), "Provider stream event exceeds 8388608 bytes"),
        (sse(comments), "Provider response exceeds 67108864 bytes"),
        (body, "Provider response body exceeds 8388608 bytes"),
    ] {
        let ws = Ws::new();
        let fake = Fake::start(vec![reply, Reply::sse(OPENAI_TEXT, 8)]);
        config(
            &ws,
            json!({"kind":"openai","baseUrl":fake.url,"model":"m","retryBaseMs":1}),
        );
        let (r, ev) = go(&ws, &[]);
        assert_eq!(r.code, 1, "{error}: {}", r.stderr);
        assert!(of_type(&ev, "request_retry").is_empty(), "{error}");
        let f = &of_type(&ev, "run_failed")[0]["data"];
        assert_eq!(
            (f["code"].as_str(), f["error"].as_str()),
            (Some("provider_error"), Some(error))
        );
        assert_eq!(fake.requests().len(), 1, "{error}");
    }
}

#[test]
fn anthropic_blocks_that_are_not_objects_are_skipped_not_a_crash() {
    let ws = Ws::new();
    // A non-streamed body whose content holds a number and a string, then a stream whose
    // thinking and signature deltas land on a block that is a string.
    let body = r#"{"model":"claude-x","content":[1,"x",{"type":"text","text":"partial"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}"#;
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
                  data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":\"x\"}\n\n\
                  data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"t\"}}\n\n\
                  data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"s\"}}\n\n\
                  data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
                  data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"done\"}}\n\n\
                  data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
                  data: {\"type\":\"message_stop\"}\n\n";
    for (reply, text) in [
        (Reply::status(200, body, &[]), "partial"),
        (Reply::sse(stream, 7), "done"),
    ] {
        let fake = Fake::start(vec![reply]);
        config(
            &ws,
            json!({"kind":"anthropic","baseUrl":fake.url,"model":"claude-x"}),
        );
        let (r, ev) = go(&ws, &[("ANTHROPIC_API_KEY", "k")]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(of_type(&ev, "run_completed")[0]["data"]["text"], text);
    }
}

// spec/sessions.md §10.3: the provider key variable never reaches a child process, even when the
// user lists it in `process.passEnv` (the other listed name does).
#[test]
fn the_provider_key_variable_is_removed_from_child_processes_even_when_listed() {
    let ws = Ws::new();
    let call = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"run_process\",\"arguments\":\"{\\\"command\\\":\\\"env\\\",\\\"args\\\":[]}\"}}]}}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n";
    let fake = Fake::start(vec![Reply::sse(call, 9), Reply::sse(OPENAI_TEXT, 5)]);
    ws.file(
        "cfg.json",
        json!({"provider":{"kind":"openai","baseUrl":fake.url,"model":"m"},"process":{"passEnv":["OPENAI_API_KEY","MY_TOOL_HOME"]}}).to_string(),
    );
    let r = run_cmd(
        ws.cmd()
            .env("OPENAI_API_KEY", "sk-test-SECRET")
            .env("MY_TOOL_HOME", "/opt/tool")
            .args([
                "run", "--json", "--allow", "process", "--config", "cfg.json", "p",
            ]),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let ev = events(&r);
    let t = tool_results(&ws, &sid(&ev));
    let out: Value = serde_json::from_str(&result_text(&t[0])).unwrap();
    let env = out["stdout"].as_str().unwrap();
    assert!(env.lines().any(|l| l == "MY_TOOL_HOME=/opt/tool"), "{env}");
    assert!(
        !env.contains("OPENAI_API_KEY") && !env.contains("sk-test-SECRET"),
        "{env}"
    );
    assert_eq!(
        fake.requests()[0].header("authorization"),
        Some("Bearer sk-test-SECRET")
    );
}

// spec/sessions.md §5.2: every message is scrubbed of the key, in-stream errors of both wire formats
// included (an endpoint that echoes the key must not get it into events or the store).
#[test]
fn in_stream_error_messages_that_echo_the_key_are_scrubbed_for_both_wire_formats() {
    let ws = Ws::new();
    let openai = "data: {\"error\":{\"message\":\"key sk-test-SECRET is over quota\"}}\n\n";
    let anthropic = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"key sk-test-SECRET is over quota\"}}\n\n";
    for (kind, var, stream) in [
        ("openai", "OPENAI_API_KEY", openai),
        ("anthropic", "ANTHROPIC_API_KEY", anthropic),
    ] {
        let fake = Fake::start(vec![Reply::sse(stream, 11); 2]);
        config(
            &ws,
            json!({"kind":kind,"baseUrl":fake.url,"model":"m","retryBaseMs":1,"maxRetries":1}),
        );
        let (r, ev) = go(&ws, &[(var, "sk-test-SECRET")]);
        assert_eq!(r.code, 1, "{kind}: {}", r.stderr);
        let f = &of_type(&ev, "run_failed")[0]["data"];
        assert_eq!(
            f["error"], "Provider stream error: key [redacted] is over quota",
            "{kind}"
        );
        assert!(
            !r.stdout.contains("sk-test-SECRET") && !r.stderr.contains("sk-test-SECRET"),
            "{kind}"
        );
        let db = std::fs::read(state(&ws).join("sessions.db")).unwrap();
        assert!(
            !String::from_utf8_lossy(&db).contains("sk-test-SECRET"),
            "{kind}: the key reached the store"
        );
    }
}

// Review finding: usage numbers from the endpoint were summed unchecked (a panic in debug and
// fuzz builds, a wrap in release). They saturate.
#[test]
fn usage_numbers_at_the_top_of_u64_saturate_instead_of_overflowing() {
    let ws = Ws::new();
    let body = r#"{"model":"claude-x","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":18446744073709551615,"cache_read_input_tokens":1,"output_tokens":18446744073709551615}}"#;
    let fake = Fake::start(vec![Reply::status(200, body, &[])]);
    config(
        &ws,
        json!({"kind":"anthropic","baseUrl":fake.url,"model":"claude-x"}),
    );
    let (r, ev) = go(&ws, &[("ANTHROPIC_API_KEY", "k")]);
    // A reply without calls completes the run; the usage is recorded saturated.
    assert_eq!(r.code, 0, "{}", r.stderr);
    let end = ev.last().unwrap();
    assert_eq!(end["type"], "run_completed");
    assert_eq!(
        end["data"]["usage"],
        json!({"input": u64::MAX, "output": u64::MAX, "cacheRead": 1, "cacheWrite": 0})
    );
    assert_eq!(end["data"]["tokens"], json!(u64::MAX));
}

/// DeepSeek's OpenAI-compatible usage reports its cache read as `prompt_cache_hit_tokens`, with no
/// `prompt_tokens_details` (spec/sessions.md §5.4): the runner reads it as the cache read, as the
/// mini-swe-agent reader does, so a live session's recorded bill and `audit` see the cache.
#[test]
fn deepseeks_cache_hit_tokens_are_the_cache_read() {
    let ws = Ws::new();
    let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n\
               data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1835,\"completion_tokens\":5,\
               \"prompt_cache_hit_tokens\":1800,\"prompt_cache_miss_tokens\":35}}\n\ndata: [DONE]\n\n";
    let fake = Fake::start(vec![Reply::sse(sse, 3)]);
    config(&ws, json!({"kind":"openai","baseUrl":fake.url,"model":"m"}));
    let (r, ev) = go(&ws, &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        of_type(&ev, "turn_completed")[0]["data"]["usage"],
        json!({"input":1835,"output":5,"cacheRead":1800,"cacheWrite":0,"estimated":false})
    );
}
