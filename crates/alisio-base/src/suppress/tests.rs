use super::*;
use crate::text::{LineIndex, TextRange};

fn diag(file: &str, text: &str, line: usize, code: Code) -> Diagnostic {
    let idx = LineIndex::new(text);
    Diagnostic::new(
        file,
        idx.span(idx.line_range(line)),
        Severity::Error,
        code,
        "m",
    )
}

fn summary(ds: &[Diagnostic]) -> Vec<(u32, &str, &str)> {
    ds.iter()
        .map(|d| (d.span.start.line, d.code.as_str(), d.message.as_str()))
        .collect()
}

#[test]
fn inline_directives_suppress_their_line_or_file_and_report_what_they_do_not_use() {
    let t = "---\nname: Bad--x # alisio-ignore: skill-name-format, skill-unknown-key\n---\n<!-- alisio-ignore-next-line: skill-resource-missing -->\nsee [a](a.md)\n<!-- alisio-ignore-file: skill-body-too-long, nope -->\n<!-- alisio-ignore-next-line -->\n";
    let ds = vec![
        diag("/w/SKILL.md", t, 1, Code::SkillNameFormat),
        diag("/w/SKILL.md", t, 4, Code::SkillResourceMissing),
        diag("/w/SKILL.md", t, 4, Code::SkillReferenceDepth),
        diag("/w/SKILL.md", t, 0, Code::SkillBodyTooLong),
    ];
    let out = apply_inline(Path::new("/w/SKILL.md"), t, ds);
    assert_eq!(
        summary(&out),
        [
            (4, "skill-reference-depth", "m"),
            (
                1,
                "suppression-unused",
                "unused suppression: this line reports no skill-unknown-key"
            ),
            (
                5,
                "suppression-unused",
                "unknown diagnostic code \"nope\"; this suppression does nothing"
            ),
            (
                6,
                "suppression-unused",
                "this suppression names no code; write <!-- alisio-ignore-next-line: code -->"
            ),
        ]
    );
    let unused = &out[1];
    assert_eq!(unused.severity, Severity::Hint);
    assert_eq!(
        &t[unused.span.bytes.start..unused.span.bytes.end],
        "skill-unknown-key"
    );
}

#[test]
fn configured_rules_ignore_by_glob_and_change_or_drop_severities() {
    let mut rules = Rules::default();
    rules.merge(&serde_json::json!({"diagnostics": {
        "severity": {"instructions-empty": "off", "skill-unknown-key": "error"},
        "ignore": [{"paths": ["legacy/**"], "codes": ["*"]}]
    }}));
    let t = "x\n";
    let files = vec![PathBuf::from("/w/a/SKILL.md")];
    let mut d = diag("/w/a/SKILL.md", t, 0, Code::SkillUnknownKey);
    d.severity = Severity::Hint;
    let ds = vec![
        d,
        diag("/w/a/AGENTS.md", t, 0, Code::InstructionsEmpty),
        diag("/w/legacy/x/AGENTS.md", t, 0, Code::InstructionsTruncated),
    ];
    let fs = crate::workspace::DiskFs;
    let out = apply(&fs, &rules, Path::new("/w"), &files, ds);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].code, Code::SkillUnknownKey);
    assert_eq!(out[0].severity, Severity::Error);
    let _ = TextRange::default();
}
