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
