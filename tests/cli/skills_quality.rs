//! Description quality (spec/skills.md §11) through the built binary: `skill-collision` names
//! its sibling with exact ranges and related information, the hints are located exactly, can
//! be suppressed inline, and the opinionated ones show only when enabled.

use crate::common::{Ws, range};

fn skill(name: &str, desc: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {desc}\n---\n{body}")
}

fn diags(ws: &Ws, args: &[&str]) -> Vec<serde_json::Value> {
    let r = ws.run(args);
    assert!(r.code == 0 || r.code == 1, "{r:?}");
    r.json()["diagnostics"].as_array().unwrap().clone()
}

fn of<'a>(ds: &'a [serde_json::Value], code: &str) -> Vec<&'a serde_json::Value> {
    ds.iter().filter(|d| d["code"] == code).collect()
}

#[test]
fn a_collision_names_the_sibling_on_both_files_with_its_description_related() {
    let ws = Ws::new();
    ws.file(
        "a/pdf-text/SKILL.md",
        skill(
            "pdf-text",
            "Extracts text and tables from PDF files. Use when the user asks to read a PDF.",
            "",
        ),
    );
    ws.file(
        "a/pdf-reader/SKILL.md",
        skill(
            "pdf-reader",
            "Extracts the text and tables of PDF files. Use when the user asks to read PDF files.",
            "",
        ),
    );
    ws.file(
        "a/slides/SKILL.md",
        skill(
            "slides",
            "Builds slides from a Markdown outline. Use when the user asks for a deck.",
            "",
        ),
    );
    let ds = diags(&ws, &["skills", "validate", "a", "--json"]);
    let c = of(&ds, "skill-collision");
    assert_eq!(c.len(), 2, "{ds:#?}");
    // Terms of pdf-text: extract text table pdf×2 file user ask read; pdf-reader has file×2:
    // 12 / √(11 × 14) = 0.967.
    assert_eq!(c[0]["file"], "a/pdf-reader/SKILL.md");
    assert_eq!(c[0]["severity"], "information");
    assert_eq!(
        c[0]["message"],
        "a router cannot tell this description from the one of pdf-text: their similarity is 0.97 (the threshold is 0.8); say what sets this skill apart"
    );
    // The description value on line 2 (0-based), from column 13 to its end.
    assert_eq!(range(c[0]), (2, 13, 2, 97));
    assert_eq!(c[0]["related"][0]["file"], "a/pdf-text/SKILL.md");
    assert_eq!(range(&c[0]["related"][0]), (2, 13, 2, 91));
    assert_eq!(
        c[0]["related"][0]["message"],
        "the description of pdf-text (similarity 0.97)"
    );
    assert_eq!(c[1]["file"], "a/pdf-text/SKILL.md");
    assert!(
        c[1]["message"]
            .as_str()
            .unwrap()
            .starts_with("a router cannot tell this description from the one of pdf-reader:")
    );
    // Disabling one of them (trusted workspace, project root) leaves the other alone.
    let ws2 = Ws::new();
    for (n, d) in [
        (
            "pdf-text",
            "Extracts text and tables from PDF files. Use when the user asks to read a PDF.",
        ),
        (
            "pdf-reader",
            "Extracts the text and tables of PDF files. Use when the user asks to read PDF files.",
        ),
    ] {
        ws2.file(&format!(".agents/skills/{n}/SKILL.md"), skill(n, d, ""));
    }
    assert_eq!(
        of(
            &diags(&ws2, &["check", "--json", "--trust-project"]),
            "skill-collision"
        )
        .len(),
        2
    );
    ws2.file(
        ".alisio/config.json",
        r#"{"skillOverrides": {"pdf-reader": {"enabled": false}}}"#,
    );
    assert_eq!(
        of(
            &diags(&ws2, &["check", "--json", "--trust-project"]),
            "skill-collision"
        )
        .len(),
        0
    );
}

#[test]
fn hints_are_located_exactly_and_suppressible_inline() {
    let ws = Ws::new();
    let body = "# Sum\n\nRun `awk '{ print $1 }' data.txt`.\n\n<!-- alisio-ignore-next-line: skill-arguments-in-code -->\nIt costs $1.50 per run.\n";
    ws.file(
        "s/sum/SKILL.md",
        skill(
            "sum",
            "Sums a column of a CSV file. Use when the user asks for a total.",
            body,
        ),
    );
    let ds = diags(&ws, &["skills", "validate", "s", "--json"]);
    let a = of(&ds, "skill-arguments-in-code");
    assert_eq!(a.len(), 1, "{ds:#?}");
    assert_eq!(range(a[0]), (6, 18, 6, 20));
    assert_eq!(a[0]["severity"], "warning");
    assert_eq!(
        a[0]["message"],
        "Claude Code substitutes \"$1\" inside code with the argument at index 1 (counting from 0) when the skill is invoked with at least 2 arguments; write \\$1 to keep it as written"
    );
    // The upload rule on the name, at the name's value.
    ws.file(
        "u/claude-slides/SKILL.md",
        skill(
            "claude-slides",
            "Builds slides from a Markdown outline. Use when asked for a deck.",
            "",
        ),
    );
    let ds = diags(&ws, &["skills", "validate", "u", "--json"]);
    let u = of(&ds, "skill-upload-rejected");
    assert_eq!(u.len(), 1);
    assert_eq!(range(u[0]), (1, 6, 1, 19));
    assert_eq!(
        u[0]["message"],
        "claude.ai and the Claude API reject a skill whose name contains the reserved word \"claude\""
    );
}

#[test]
fn opinionated_hints_show_only_when_enabled() {
    let ws = Ws::new();
    ws.file(
        ".agents/skills/slides/SKILL.md",
        skill("slides", "I build slides from a Markdown outline.", ""),
    );
    let codes = |ds: &[serde_json::Value]| -> Vec<String> {
        ds.iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        codes(&diags(&ws, &["check", "--json", "--trust-project"])),
        Vec::<String>::new()
    );
    ws.file(
        ".alisio/config.json",
        r#"{"diagnostics": {"enable": ["skill-description-no-when", "skill-description-person"]}}"#,
    );
    let ds = diags(&ws, &["check", "--json", "--trust-project"]);
    assert_eq!(
        codes(&ds),
        ["skill-description-no-when", "skill-description-person"]
    );
    for d in &ds {
        assert_eq!(range(d), (2, 13, 2, 52));
        assert_eq!(d["severity"], "hint");
    }
    assert_eq!(
        ds[1]["message"],
        "the description is written in the first person (\"I\"); write it in the third person (\"Extracts …\"): it is put into the system prompt, where \"I\" and \"you\" are someone else"
    );
}
