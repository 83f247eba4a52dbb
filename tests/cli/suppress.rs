//! Suppressions (docs/spec/suppressions.md) in `check`, every output format, and `skills
//! validate`: inline directives, `suppression-unused`, `diagnostics.severity` and
//! `diagnostics.ignore`, and their exact configuration messages.

use crate::common::{Ws, pairs, triples};

const SKILL: &str = "---\nname: demo\ndescription: Builds slides. Use it for demos.\nsource: x # alisio-ignore: skill-unknown-key\nversion: 2 # alisio-ignore: skill-name-format\n---\n# Demo\n\n<!-- alisio-ignore-next-line: skill-resource-missing -->\nSee [the guide](guide.md).\nSee [the other](other.md).\n";

fn ws() -> Ws {
    let ws = Ws::new();
    ws.file(".agents/skills/demo/SKILL.md", SKILL);
    ws.file(
        "docs/AGENTS.md",
        "# Docs\n\n<!-- alisio-ignore-file: instructions-empty -->\n",
    );
    ws.file("AGENTS.md", "");
    ws
}

const PROJECT: &str = r#"{"diagnostics": {"severity": {"instructions-empty": "error", "suppression-unused": "warning"}, "ignore": [{"paths": ["docs"], "codes": ["*"]}]}}"#;

#[test]
fn inline_directives_suppress_and_unused_ones_are_hints_in_human_output() {
    let ws = ws();
    let r = ws.run(&["check", "--trust-project"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        r.stdout,
        ".agents/skills/demo/SKILL.md:5:1: hint[skill-unknown-key]: unknown key \"version\"; alisio ignores it (move it under metadata to keep it)\n\
.agents/skills/demo/SKILL.md:5:29: hint[suppression-unused]: unused suppression: this line reports no skill-name-format\n\
.agents/skills/demo/SKILL.md:11:17: warning[skill-resource-missing]: link target \"other.md\" does not exist in the skill folder\n\
AGENTS.md:1:1: info[instructions-empty]: empty instruction file: it adds nothing\n\
docs/AGENTS.md:3:26: hint[suppression-unused]: unused suppression: this file reports no instructions-empty\n\
3 files checked: 0 error(s), 1 warning(s), 1 info, 3 hint(s)\n"
    );
    // Without the directives, the suppressed findings come back.
    let plain = SKILL
        .replace(" # alisio-ignore: skill-unknown-key", "")
        .replace(
            "<!-- alisio-ignore-next-line: skill-resource-missing -->\n",
            "",
        );
    ws.file(".agents/skills/demo/SKILL.md", plain);
    let codes: Vec<String> = ws.run(&["check", "--trust-project", "--json"]).json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == ".agents/skills/demo/SKILL.md")
        .map(|d| {
            format!(
                "{}:{}",
                d["range"]["start"]["line"],
                d["code"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        codes,
        [
            "3:skill-unknown-key",
            "4:skill-unknown-key",
            "4:suppression-unused",
            "8:skill-resource-missing",
            "9:skill-resource-missing"
        ]
    );
}

#[test]
fn configured_severity_and_ignore_apply_in_every_format_in_a_trusted_workspace() {
    let ws = ws();
    ws.file(".alisio/config.json", PROJECT);
    let human = ws.run(&["check", "--trust-project"]);
    assert_eq!(
        human.code, 1,
        "an `error` severity fails the run: {human:?}"
    );
    assert_eq!(
        human.stdout.lines().last(),
        Some("3 files checked: 1 error(s), 2 warning(s), 0 info, 1 hint(s)")
    );
    assert!(!human.stdout.contains("docs/AGENTS.md"), "{}", human.stdout);

    let json = ws
        .run(&["check", "--trust-project", "--format", "json"])
        .json();
    let got: Vec<(String, String, String)> =
        triples(&json["diagnostics"], ["file", "code", "severity"]);
    let want = [
        (".agents/skills/demo/SKILL.md", "skill-unknown-key", "hint"),
        (
            ".agents/skills/demo/SKILL.md",
            "suppression-unused",
            "warning",
        ),
        (
            ".agents/skills/demo/SKILL.md",
            "skill-resource-missing",
            "warning",
        ),
        ("AGENTS.md", "instructions-empty", "error"),
    ];
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|(a, b, c)| ((*a).to_string(), (*b).to_string(), (*c).to_string()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(json["summary"]["errors"], 1);

    let sarif = ws
        .run(&["check", "--trust-project", "--format", "sarif"])
        .json();
    let results: Vec<(String, String)> = pairs(&sarif["runs"][0]["results"], ["ruleId", "level"]);
    assert_eq!(
        results,
        [
            ("skill-unknown-key".to_string(), "note".to_string()),
            ("suppression-unused".to_string(), "warning".to_string()),
            ("skill-resource-missing".to_string(), "warning".to_string()),
            ("instructions-empty".to_string(), "error".to_string()),
        ]
    );

    let gh = ws.run(&["check", "--trust-project", "--format", "github"]);
    assert_eq!(
        gh.stdout,
        "::notice title=skill-unknown-key,file=.agents/skills/demo/SKILL.md,line=5,col=1,endLine=5,endColumn=8::unknown key \"version\"; alisio ignores it (move it under metadata to keep it)\n\
::warning title=suppression-unused,file=.agents/skills/demo/SKILL.md,line=5,col=29,endLine=5,endColumn=46::unused suppression: this line reports no skill-name-format\n\
::warning title=skill-resource-missing,file=.agents/skills/demo/SKILL.md,line=11,col=17,endLine=11,endColumn=25::link target \"other.md\" does not exist in the skill folder\n\
::error title=instructions-empty,file=AGENTS.md,line=1,col=1,endLine=1,endColumn=1::empty instruction file: it adds nothing\n"
    );
}

#[test]
fn project_rules_need_trust_and_user_rules_always_apply() {
    let ws = ws();
    ws.file(".alisio/config.json", PROJECT);
    let untrusted = ws.run(&["check", "--json"]).json();
    let sev = |j: &serde_json::Value, code: &str| {
        j["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == code)
            .map(|d| d["severity"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(sev(&untrusted, "instructions-empty"), ["information"]);
    std::fs::write(
        ws.config_home.join("config.json"),
        r#"{"diagnostics": {"severity": {"instructions-empty": "off", "skill-unknown-key": "warning"}}}"#,
    )
    .unwrap();
    let user = ws.run(&["check", "--json"]).json();
    assert_eq!(sev(&user, "instructions-empty"), Vec::<String>::new());
    assert_eq!(sev(&user, "skill-unknown-key"), ["warning"]);
    // `skills validate` passes through the same filter.
    let v = ws
        .run(&["skills", "validate", ".agents/skills/demo", "--json"])
        .json();
    assert_eq!(sev(&v, "skill-unknown-key"), ["warning"]);
    assert_eq!(sev(&v, "suppression-unused"), ["hint"]);
}

#[test]
fn invalid_diagnostics_settings_exit_2_with_the_exact_message() {
    let ws = ws();
    for (cfg, msg) in [
        (
            r#"{"diagnostics": []}"#,
            "diagnostics must be an object; got []",
        ),
        (
            r#"{"diagnostics": {"severity": {"skill-name-format": "loud"}}}"#,
            "diagnostics.severity.skill-name-format must be \"off\", \"hint\", \"info\", \"warning\" or \"error\"; got \"loud\"",
        ),
        (
            r#"{"diagnostics": {"severity": {"skill-nam": "off"}}}"#,
            "diagnostics.severity: \"skill-nam\" is not a diagnostic code",
        ),
        (
            r#"{"diagnostics": {"ignore": [{"paths": "docs", "codes": ["*"]}]}}"#,
            "diagnostics.ignore.0.paths must be a non-empty array of glob strings; got \"docs\"",
        ),
        (
            r#"{"diagnostics": {"ignore": [{"paths": ["docs"], "codes": ["instructions-emty"]}]}}"#,
            "diagnostics.ignore.0.codes.0 must be a diagnostic code or \"*\"; got \"instructions-emty\"",
        ),
    ] {
        ws.file("cfg.json", cfg);
        let r = ws.run(&["check", "--config", "cfg.json"]);
        assert_eq!(r.code, 2, "{cfg}: {r:?}");
        assert_eq!(r.stderr.trim_end(), format!("error: cfg.json: {msg}"));
    }
}
