use serde_json::{Value, json};

use super::cache::{CacheClass, Obs, classify_all, price_table};
use super::claude::{parse_listing, references, v1_blocks};
use super::{Auditor, SessionAudit, import_tokens, timestamp_ms};

fn audit(lines: &[Value]) -> SessionAudit {
    let mut a = Auditor::new("t.jsonl");
    for l in lines {
        a.feed(l.to_string().as_bytes());
    }
    a.finish(None)
}

fn user(ts: &str, content: Value) -> Value {
    json!({"type": "user", "sessionId": "s", "uuid": ts, "timestamp": ts, "cwd": "/w",
        "message": {"role": "user", "content": content}})
}

fn attach(ts: &str, a: Value) -> Value {
    json!({"type": "attachment", "sessionId": "s", "uuid": ts, "timestamp": ts, "attachment": a})
}

fn api(id: &str, base: Option<&str>, keep: u64, shape: &str, ts: &str) -> Value {
    json!({"type": "api-request", "sessionId": "s", "id": id, "base": base, "keep": keep,
        "tail": [format!("{id}-a"), format!("{id}-b")], "shapeHash": shape, "params": {"model": "claude-sonnet-4-5"}, "timestamp": ts})
}

fn instructions(text: &str) -> Value {
    json!({"type": "instructions", "files": [{"path": "/w/AGENTS.md", "type": "Project", "content": text}]})
}

fn classes(s: &SessionAudit) -> Vec<(CacheClass, Option<&'static str>)> {
    s.requests.iter().map(|r| (r.class, r.cause)).collect()
}

/// A session of the observed requests `obs`, classified (no list prices).
fn classified(obs: Vec<Obs>) -> SessionAudit {
    let mut s = SessionAudit {
        requests: obs.into_iter().map(Obs::into_request).collect(),
        ..SessionAudit::default()
    };
    classify_all(&mut s, None);
    s
}

#[test]
fn timestamps_are_epoch_milliseconds() {
    assert_eq!(timestamp_ms("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(timestamp_ms("1970-01-02T00:00:01.5Z"), Some(86_401_500));
    assert_eq!(
        timestamp_ms("2026-12-02T17:28:52.912Z"),
        Some(1_796_232_532_912)
    );
    assert_eq!(timestamp_ms("yesterday"), None);
    assert_eq!(timestamp_ms("2026-12-02"), None);
}

#[test]
fn listing_lines_continuations_shortened_and_dropped() {
    let l = parse_listing("- a: One.\n  more\n- b\n- c: Cut\u{2026}\n");
    let got: Vec<(&str, usize, &str)> = l
        .iter()
        .map(|s| (s.name.as_str(), s.description_chars, s.description))
        .collect();
    assert_eq!(
        got,
        [("a", 9, "full"), ("b", 0, "dropped"), ("c", 4, "shortened")]
    );
}

#[test]
fn v1_blocks_are_split_by_header() {
    let t = "<system-reminder>\nContents of /w/CLAUDE.md (project instructions, checked into the codebase):\n\none\n\nContents of /w/sub/CLAUDE.md:\n\ntwo\n</system-reminder>";
    assert_eq!(
        v1_blocks(t),
        [
            (
                "/w/CLAUDE.md".to_owned(),
                Some("project instructions, checked into the codebase".to_owned()),
                "one".to_owned()
            ),
            ("/w/sub/CLAUDE.md".to_owned(), None, "two".to_owned())
        ]
    );
    assert!(v1_blocks("Contents of nothing: here").is_empty());
}

#[test]
fn references_and_imports() {
    assert_eq!(
        references("See ref.md, [x](docs/a.md) and https://e.com/b.md or /abs/c.md. SKILL.md"),
        ["ref.md", "docs/a.md"]
    );
    assert_eq!(
        import_tokens("@a.md and `@b.md`\n```\n@c.md\n```\nx@d.md @e.md"),
        ["a.md", "e.md"]
    );
}

#[test]
fn changed_instruction_file_breaks_the_prefix_with_its_cause() {
    let s = audit(&[
        user("2026-01-01T00:00:00Z", json!("hi")),
        attach("2026-01-01T00:00:00Z", instructions("one")),
        api("r1", None, 0, "x", "2026-01-01T00:00:00Z"),
        user("2026-01-01T00:00:10Z", json!("again")),
        attach("2026-01-01T00:00:10Z", instructions("two")),
        api("r2", None, 0, "x", "2026-01-01T00:00:10Z"),
        api("r3", Some("r2"), 2, "y", "2026-01-01T00:00:20Z"),
        attach(
            "2026-01-01T00:00:21Z",
            json!({"type": "skill_listing", "content": "- a: A"}),
        ),
        api("r4", Some("r3"), 4, "y", "2026-01-01T00:00:30Z"),
        attach(
            "2026-01-01T00:00:31Z",
            json!({"type": "skill_listing", "content": "- a: B"}),
        ),
        api("r5", Some("r4"), 3, "y", "2026-01-01T00:00:40Z"),
    ]);
    assert_eq!(
        classes(&s),
        [
            (CacheClass::Cold, None),
            (CacheClass::Broken, Some("instruction-changed")),
            (CacheClass::Broken, Some("tools-or-system-changed")),
            (CacheClass::Hit, None),
            (CacheClass::Broken, Some("skill-listing-changed")),
        ]
    );
    let how: Vec<&str> = s.deliveries.iter().map(|d| d.how).collect();
    assert_eq!(how, ["startup", "prompt"]);
    assert_eq!(s.prompts, 2);
    assert_eq!(s.skipped_lines, 0);
}

#[test]
fn a_new_process_keeps_the_prefix_when_its_message_hashes_extend_the_last_ones() {
    let tail = |id: &str, base: Option<&str>, keep: u64, tail: &[&str]| {
        json!({"type": "api-request", "sessionId": "s", "id": id, "base": base, "keep": keep,
            "tail": tail, "shapeHash": "x", "params": {"model": "claude-sonnet-4-5"},
            "timestamp": "2026-01-01T00:00:00Z"})
    };
    let s = audit(&[
        user("2026-01-01T00:00:00Z", json!("hi")),
        tail("r1", None, 0, &["m1", "m2"]),
        tail("r2", Some("r1"), 2, &["m3"]),
        tail("r3", None, 0, &["m1", "m2", "m3", "m4"]),
        tail("r4", None, 0, &["m1", "m9"]),
    ]);
    let kept: Vec<Option<bool>> = s.requests.iter().map(|r| r.prefix_kept).collect();
    assert_eq!(kept, [None, Some(true), Some(true), Some(false)]);
}

#[test]
fn unknown_records_and_attachments_are_counted() {
    let s = audit(&[
        user("2026-01-01T00:00:00Z", json!("hi")),
        attach("2026-01-01T00:00:00Z", json!({"type": "from_the_future"})),
        json!({"type": "teleport", "sessionId": "s"}),
    ]);
    assert_eq!(s.skipped_lines, 2);
    let msgs: Vec<(usize, &str)> = s
        .problems
        .iter()
        .map(|p| (p.line, p.message.as_str()))
        .collect();
    assert_eq!(
        msgs,
        [(2, "unknown attachment type"), (3, "unknown record type")]
    );
}

#[test]
fn a_file_of_unknown_records_has_no_format_and_counts_every_line() {
    let mut a = Auditor::new("x");
    for _ in 0..60 {
        a.feed(br#"{"kind":"other"}"#);
    }
    let s = a.finish(None);
    assert_eq!((s.format, s.lines, s.skipped_lines), ("unknown", 60, 60));
    assert_eq!(s.problems.len(), super::MAX_PROBLEMS);
}

#[test]
fn price_table_by_model() {
    let p = |m: &str| price_table(m).map(|p| (p.provider, p.input, p.cache_read, p.output));
    assert_eq!(p("claude-opus-4-5"), Some(("anthropic", 5.0, 0.5, 25.0)));
    assert_eq!(p("claude-sonnet-4-5"), Some(("anthropic", 3.0, 0.3, 15.0)));
    assert_eq!(p("claude-haiku-4-5"), Some(("anthropic", 1.0, 0.1, 5.0)));
    assert_eq!(p("gpt-5-codex"), Some(("openai", 1.25, 0.125, 10.0)));
    assert_eq!(p("llama-3"), None);
}

#[test]
fn a_stored_usage_is_the_whole_prompt_and_an_estimate_reports_no_cache() {
    use super::cache::ReportedUsage;
    // Anthropic through the runner: input 10 uncached + 5 written + 20 read = 35.
    assert_eq!(
        ReportedUsage::from_stored(
            &json!({"input": 35, "output": 15, "cacheRead": 20, "cacheWrite": 5, "estimated": false})
        ),
        Some(ReportedUsage {
            input: 10,
            cache_write: 5,
            cache_read: 20,
            output: 15
        })
    );
    // OpenAI-compatible: prompt_tokens 100 of which 40 cached, no write.
    assert_eq!(
        ReportedUsage::from_stored(
            &json!({"input": 100, "output": 20, "cacheRead": 40, "cacheWrite": 0, "estimated": false})
        ),
        Some(ReportedUsage::from_openai(100, 40, 20))
    );
    // Estimated (the provider reported nothing), or no count at all: not reported.
    assert_eq!(
        ReportedUsage::from_stored(
            &json!({"input": 900, "output": 9, "cacheRead": 0, "cacheWrite": 0, "estimated": true})
        ),
        None
    );
    assert_eq!(ReportedUsage::from_stored(&json!({"output": 9})), None);
    assert_eq!(ReportedUsage::from_stored(&json!("35")), None);
    assert_eq!(ReportedUsage::from_stored(&json!({"input": -1})), None);
    // Counts that do not add up saturate at 0, never wrap.
    assert_eq!(
        ReportedUsage::from_stored(&json!({"input": 3, "cacheRead": 5, "cacheWrite": 5})),
        Some(ReportedUsage {
            input: 0,
            cache_write: 5,
            cache_read: 5,
            output: 0
        })
    );
}

#[test]
fn stored_requests_are_classified_with_the_alisio_causes() {
    use super::cache::ReportedUsage;
    let at = |s: i64| Some(1_796_232_532_000 + s * 1000);
    let u = |input, write, read| {
        Some(ReportedUsage {
            input,
            cache_write: write,
            cache_read: read,
            output: 10,
        })
    };
    let obs = |line: usize, secs: i64, usage, events: Vec<&'static str>| Obs {
        id: line.to_string(),
        line,
        at_ms: at(secs),
        model: Some("claude-sonnet-4-5".into()),
        usage,
        ttl_secs: 300,
        events,
        ..Obs::default()
    };
    let s = classified(vec![
        obs(2, 0, u(10, 1000, 0), vec![]),
        obs(4, 5, u(10, 20, 1000), vec![]),
        obs(6, 10, u(10, 1030, 0), vec!["budget-reduction"]),
        obs(8, 15, u(10, 1040, 0), vec!["rewind", "instruction-changed"]),
        obs(10, 20, u(10, 1050, 0), vec!["skill-listing-changed"]),
        obs(12, 25, None, vec![]),
        obs(
            14,
            30,
            u(10, 1000, 0),
            vec!["instruction-changed", "compaction"],
        ),
    ]);
    assert_eq!(
        classes(&s),
        [
            (CacheClass::Cold, None),
            (CacheClass::Hit, None),
            (CacheClass::ExpectedRebuild, Some("budget-reduction")),
            (CacheClass::ExpectedRebuild, Some("rewind")),
            (CacheClass::Broken, Some("skill-listing-changed")),
            (CacheClass::Unknown, None),
            (CacheClass::ExpectedRebuild, Some("compaction")),
        ]
    );
    // Broken: the reusable prefix min(1050, 1060) priced at write − read.
    assert!((s.requests[4].extra_cost - 1050.0 * 3.45 / 1e6).abs() < 1e-12);
    assert_eq!(s.requests[5].cost, 0.0);
    assert_eq!(
        (s.cache.expected_rebuilds, s.cache.broken, s.cache.hits),
        (3, 1, 1)
    );
}

/// alisio-ls's own sessions (spec/interfaces.md §4, §4.3): a request whose model is unknown
/// switches nothing (neither into it nor out of it); a relay's handoff and a compaction's
/// summary are designed misses; a compaction and a rewind together name the compaction; the
/// lifetime expires at the runner's boundary (`gapSecs ≥ ttlSecs`) and never when it is 0.
#[test]
fn unknown_models_switch_nothing_and_designed_misses_are_named() {
    use super::cache::ReportedUsage;
    let u = |input, write, read| {
        Some(ReportedUsage {
            input,
            cache_write: write,
            cache_read: read,
            output: 10,
        })
    };
    let obs = |line: usize, ms: i64, model: Option<&str>, usage, events: Vec<&'static str>| Obs {
        id: line.to_string(),
        line,
        at_ms: Some(1_796_232_532_000 + ms),
        model: model.map(String::from),
        usage,
        ttl_secs: 300,
        events,
        ..Obs::default()
    };
    let m = Some("claude-sonnet-4-5");
    let summary = Obs {
        aside: Some("compaction-summary"),
        ..obs(9, 40_000, m, u(500, 0, 0), vec![])
    };
    let never = Obs {
        ttl_secs: 0,
        ..obs(
            20,
            10_000_000,
            Some("claude-haiku-4-5"),
            u(10, 1000, 0),
            vec![],
        )
    };
    let s = classified(vec![
        obs(2, 0, m, u(10, 1000, 0), vec![]),
        // Unreadable JSON: no model, no usage.
        obs(4, 5_000, None, None, vec![]),
        // A miss after it: not a model switch.
        obs(6, 10_000, m, u(10, 1000, 0), vec![]),
        // A real switch.
        obs(8, 15_000, Some("claude-haiku-4-5"), u(10, 1000, 0), vec![]),
        // Aside: classified alone, and the next request is measured from line 8.
        summary,
        obs(11, 20_000, Some("claude-haiku-4-5"), u(10, 0, 1000), vec![]),
        // A handoff reads nothing (no tools) and is still not avoidable.
        obs(
            13,
            25_000,
            Some("claude-haiku-4-5"),
            u(10, 0, 990),
            vec!["relay-handoff"],
        ),
        obs(
            15,
            30_000,
            Some("claude-haiku-4-5"),
            u(10, 1000, 0),
            vec!["rewind", "compaction"],
        ),
        // Exactly 300 s after line 15: expired.
        obs(
            17,
            330_000,
            Some("claude-haiku-4-5"),
            u(10, 1000, 0),
            vec![],
        ),
        // 299.999 s later: a miss for another cause.
        obs(
            19,
            629_999,
            Some("claude-haiku-4-5"),
            u(10, 1000, 0),
            vec!["instruction-changed"],
        ),
        // A lifetime of 0: never expired, however long the pause.
        never,
    ]);
    assert_eq!(
        classes(&s),
        [
            (CacheClass::Cold, None),
            (CacheClass::Unknown, None),
            (CacheClass::Broken, Some("prefix-changed")),
            (CacheClass::Broken, Some("model-switch")),
            (CacheClass::ExpectedRebuild, Some("compaction-summary")),
            (CacheClass::Hit, None),
            (CacheClass::ExpectedRebuild, Some("relay-handoff")),
            (CacheClass::ExpectedRebuild, Some("compaction")),
            (CacheClass::TtlExpired, Some("gap")),
            (CacheClass::Broken, Some("instruction-changed")),
            (CacheClass::Broken, Some("prefix-changed")),
        ]
    );
    let gaps: Vec<Option<f64>> = s.requests.iter().map(|r| r.gap_secs).collect();
    assert_eq!(
        gaps,
        [
            None,
            Some(5.0),
            Some(5.0),
            Some(5.0),
            None,
            Some(5.0),
            Some(5.0),
            Some(5.0),
            Some(300.0),
            Some(299.999),
            Some(9_370.001),
        ]
    );
    assert_eq!(
        (
            s.cache.requests,
            s.cache.cold,
            s.cache.hits,
            s.cache.expected_rebuilds,
            s.cache.ttl_expired,
            s.cache.broken
        ),
        (11, 1, 1, 3, 1, 4)
    );
    // The summary is priced (Sonnet: 500 input, 10 output) and costs nothing extra.
    let r = &s.requests[4];
    assert_eq!(
        (r.cost, r.extra_cost),
        ((500.0 * 3.0 + 10.0 * 15.0) / 1e6, 0.0)
    );
}
