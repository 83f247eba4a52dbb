//! Configuration errors reach the user as `error: <file>: <message>` and exit 2.

use crate::common::Ws;

#[test]
fn out_of_range_max_bytes_in_config_file_exits_2_with_the_exact_message() {
    let ws = Ws::new();
    for (bad, shown) in [
        ("1023", "1023"),
        ("1048577", "1048577"),
        ("2048.5", "2048.5"),
        ("\"4096\"", "\"4096\""),
    ] {
        ws.file(
            "cfg.json",
            format!(r#"{{"context": {{"maxBytes": {bad}}}}}"#),
        );
        for args in [
            &["check"][..],
            &["context", "explain", "x"][..],
            &["skills", "list"][..],
        ] {
            let mut a = args.to_vec();
            a.extend(["--config", "cfg.json"]);
            let r = ws.run(&a);
            assert_eq!(r.code, 2, "{a:?}: {r:?}");
            assert_eq!(
                r.stderr.trim_end(),
                format!(
                    "error: cfg.json: context.maxBytes must be an integer from 1024 to 1048576; got {shown}"
                )
            );
            assert_eq!(r.stdout, "");
        }
    }
}

#[test]
fn invalid_json_config_names_file_line_and_column() {
    let ws = Ws::new();
    ws.file("cfg.json", "{\n  \"context\": {,}\n}");
    let r = ws.run(&["check", "--config", "cfg.json"]);
    r.assert_invalid_cfg_json();
}

#[test]
fn missing_config_file_is_an_error() {
    let ws = Ws::new();
    let r = ws.run(&["check", "--config", "nope.json"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("error: nope.json: cannot read: "),
        "{}",
        r.stderr
    );
}

#[test]
fn invalid_cwd_is_a_usage_error() {
    let ws = Ws::new();
    let r = ws.run(&["check", "--cwd", "does/not/exist"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid --cwd"), "{}", r.stderr);
}

/// Issue 25 §6: a session key with a bad value is a configuration problem, never clamped or
/// ignored: `run` (and every other command) exits 2 with the key and the reason.
#[test]
fn invalid_session_values_exit_2_with_the_key_and_the_reason() {
    let ws = Ws::new();
    for (json, message) in [
        (
            r#"{"limits": {"maxTurns": 0}}"#,
            "limits.maxTurns must be an integer from 1 to 1000; got 0",
        ),
        (
            r#"{"compaction": {"threshold": 1.5}}"#,
            "compaction.threshold must be a number from 0.1 to 0.99; got 1.5",
        ),
        (
            r#"{"compaction": {"auto": "yes"}}"#,
            r#"compaction.auto must be true or false; got "yes""#,
        ),
        (
            r#"{"session": {"mode": "boss"}}"#,
            r#"session.mode must be "default" or "coordinator"; got "boss""#,
        ),
        (
            r#"{"relay": {"atFraction": 0.99}}"#,
            "relay.atFraction must be a number from 0.1 to 0.95; got 0.99",
        ),
        (
            r#"{"approvals": {"write": "always"}}"#,
            r#"approvals.write must be "allow", "ask", "deny" or "sandboxed"; got "always""#,
        ),
        (
            r#"{"provider": {"kind": "gemini"}}"#,
            r#"provider.kind must be "openai", "anthropic" or "script"; got "gemini""#,
        ),
        (
            r#"{"process": {"passEnv": ["HOME", 3]}}"#,
            r#"process.passEnv must be an array of strings; got ["HOME", 3]"#,
        ),
        (
            r#"{"limits": {"maxContextChars": 999}}"#,
            "limits.maxContextChars must be an integer of at least 1000; got 999",
        ),
    ] {
        ws.file("cfg.json", json);
        for args in [
            &["run", "--script", "none.json", "hello"][..],
            &["sessions", "list"][..],
        ] {
            let mut a = args.to_vec();
            a.extend(["--config", "cfg.json"]);
            let r = ws.run(&a);
            assert_eq!(r.code, 2, "{a:?}: {r:?}");
            assert_eq!(
                r.stderr.trim_end(),
                format!("error: cfg.json: {message}"),
                "{a:?}"
            );
            assert_eq!(r.stdout, "");
        }
    }
}
