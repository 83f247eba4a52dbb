//! The rule catalogue (spec/rules.md): `alisio-ls rules` lists every rule with its fields, explains
//! one, prints the generated docs; and every example in the catalogue does what it claims: `check`
//! reports the rule on its bad example and not on its good one.

use crate::common::Ws;

fn catalogue() -> Vec<serde_json::Value> {
    let r = Ws::new().run(&["rules", "--json"]);
    assert_eq!(r.code, 0, "{r:?}");
    r.json().as_array().unwrap().clone()
}

/// The codes `check` reports on one example workspace.
fn codes_on(example: &serde_json::Value) -> Vec<String> {
    let ws = Ws::new();
    for f in example["files"].as_array().unwrap() {
        ws.file(f["path"].as_str().unwrap(), f["text"].as_str().unwrap());
    }
    let mut args: Vec<&str> = vec!["check", "--json"];
    args.extend(
        example["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap()),
    );
    let r = ws.run(&args);
    assert!(r.code == 0 || r.code == 1, "{args:?}: {r:?}");
    r.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_rule_is_listed_with_every_field() {
    let rules = catalogue();
    assert_eq!(rules.len(), 96);
    for r in &rules {
        for k in [
            "id", "summary", "files", "hosts", "profiles", "severity", "tier", "fix", "evidence",
            "good", "bad",
        ] {
            assert!(!r[k].is_null(), "{}: {k}", r["id"]);
        }
        assert!(["default", "opinionated"].contains(&r["tier"].as_str().unwrap()));
        assert!(["none", "safe", "mixed", "unsafe"].contains(&r["fix"].as_str().unwrap()));
    }
    let opinionated: Vec<&str> = rules
        .iter()
        .filter(|r| r["tier"] == "opinionated")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        opinionated,
        [
            "skill-description-no-when",
            "skill-description-person",
            "skill-side-effect-invocable",
            "instructions-too-long",
            "instructions-link-broken",
            "instructions-always-loaded-long"
        ]
    );
}

#[test]
fn every_example_fires_on_bad_and_stays_silent_on_good() {
    let mut described = Vec::new();
    for r in catalogue() {
        let id = r["id"].as_str().unwrap();
        let good = codes_on(&r["good"]);
        assert!(
            !good.iter().any(|c| c == id),
            "{id} fires on its good example: {good:?}"
        );
        if r["bad"]["files"].as_array().unwrap().is_empty() {
            described.push(id.to_string());
            continue;
        }
        let bad = codes_on(&r["bad"]);
        assert!(
            bad.iter().any(|c| c == id),
            "{id} is silent on its bad example: {bad:?}"
        );
    }
    // The situations that are not a few small text files (sizes, symlinks, bytes, bounds).
    assert_eq!(
        described,
        [
            "skill-description-too-long",
            "skill-compatibility-too-long",
            "skill-file-too-large",
            "skill-body-too-long",
            "skill-symlink",
            "skill-scan-limit",
            "skill-description-shortened",
            "skill-description-dropped",
            "skill-secret",
            "skill-upload-too-large",
            "instructions-truncated",
            "instructions-symlink",
            "instructions-file-cut",
            "instructions-invalid-utf8",
            "instructions-too-long",
            "audit-not-predicted",
            "audit-not-received",
            "audit-import-not-expanded",
            "audit-reference-unread",
            "instructions-secret",
            "instructions-always-loaded-long",
            "config-invalid",
        ]
    );
}

#[test]
fn one_rule_is_explained_with_its_examples_and_an_unknown_id_is_a_usage_error() {
    let ws = Ws::new();
    let r = ws.run(&["rules", "skill-value-invalid"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.starts_with("skill-value-invalid: a `context`, `effort` or `shell` value Claude Code does not recognise, so the key has no effect\nfiles: SKILL.md\nhosts: claude-code\nprofiles: alisio, claude-code\ndefault severity: warning; tier: default; fix: none\n"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("\nbad:\n  .agents/skills/demo/SKILL.md:\n  | ---\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("  | context: webiny-extensions\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\ngood:\n"), "{}", r.stdout);
    let j = ws
        .run(&["rules", "instructions-apply-to-list", "--json"])
        .json();
    assert_eq!(j["fix"], "safe");
    let bad = ws.run(&["rules", "no-such-rule"]);
    assert_eq!(bad.code, 2);
    bad.assert_stderr_has("error: unknown rule \"no-such-rule\"; `alisio-ls rules` lists them");
    let md = ws.run(&["rules", "--markdown"]);
    let on_disk =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/rules.md")).unwrap();
    assert_eq!(md.stdout, on_disk);
}

#[test]
fn an_opinionated_rule_is_off_unless_enabled_and_overrides_apply_per_path() {
    let ws = Ws::new();
    let long = "- line\n".repeat(201);
    ws.file("AGENTS.md", &long);
    ws.file("docs/AGENTS.md", &long);
    let codes = |args: &[&str]| -> Vec<(String, String, String)> {
        let mut a = vec!["check", "--json"];
        a.extend(args);
        crate::common::triples(
            &ws.run(&a).json()["diagnostics"],
            ["file", "code", "severity"],
        )
    };
    assert_eq!(codes(&[]), []);
    ws.file(
        ".alisio/config.json",
        r#"{"diagnostics": {"overrides": [{"paths": ["docs"], "enable": ["instructions-too-long"]}]}}"#,
    );
    assert_eq!(
        codes(&["--trust-project"]),
        [(
            "docs/AGENTS.md".into(),
            "instructions-too-long".into(),
            "information".into()
        )]
    );
    ws.file(
        ".alisio/config.json",
        r#"{"diagnostics": {"enable": ["instructions-too-long"], "overrides": [{"paths": ["docs/AGENTS.md"], "severity": {"instructions-too-long": "error"}}]}}"#,
    );
    assert_eq!(
        codes(&["--trust-project"]),
        [
            (
                "AGENTS.md".into(),
                "instructions-too-long".into(),
                "information".into()
            ),
            (
                "docs/AGENTS.md".into(),
                "instructions-too-long".into(),
                "error".into()
            ),
        ]
    );
    let r = ws.run(&["check", "--trust-project"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.starts_with(
            "AGENTS.md:201:1: info[instructions-too-long]: 201 lines: Claude Code's guidance"
        ),
        "{}",
        r.stdout
    );
}
