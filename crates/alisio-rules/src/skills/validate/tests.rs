//! Unit tests of SKILL.md validation (spec/skills.md §2).

use super::*;
use alisio_base::workspace::DiskFs;
use unicode_normalization::UnicodeNormalization as _;

fn run(dir: &str, text: &str, profile: Profile) -> Checked {
    check(
        &DiskFs,
        &Path::new("/nonexistent-skill-root")
            .join(dir)
            .join("SKILL.md"),
        text.as_bytes(),
        text.len() as u64,
        profile,
    )
}

fn codes(c: &Checked) -> Vec<(&'static str, String)> {
    c.diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.message.clone()))
        .collect()
}

fn valid(dir: &str) -> String {
    format!("---\nname: {dir}\ndescription: Does {dir}.\n---\nBody\n")
}

#[test]
fn valid_skill_has_no_diagnostic_under_any_profile() {
    for p in [
        Profile::Alisio,
        Profile::Spec,
        Profile::Codex,
        Profile::ClaudeCode,
    ] {
        let c = run("pdf-tools", &valid("pdf-tools"), p);
        assert!(c.diagnostics.is_empty(), "{p:?}: {:?}", c.diagnostics);
    }
    let c = run("pdf-tools", &valid("pdf-tools"), Profile::Alisio);
    assert_eq!(c.load_error, None);
    assert_eq!(c.meta.as_ref().unwrap().name, "pdf-tools");
    assert_eq!(c.body_bytes(), 5);
}

#[test]
fn name_as_number_depends_on_profile() {
    let t = "---\nname: 123\ndescription: d\n---\n";
    let c = run("123", t, Profile::Alisio);
    assert_eq!(
        codes(&c),
        [(
            "skill-field-type",
            "\"name\" must be a string, found a number; quote it: name: \"123\"".to_string()
        )]
    );
    assert!(c.load_error.is_some());
    assert!(run("123", t, Profile::Spec).diagnostics.is_empty());
    let c = run("x", t, Profile::Spec);
    assert_eq!(
        codes(&c),
        [(
            "skill-name-directory-mismatch",
            "name \"123\" must equal the directory name \"x\"".to_string()
        )]
    );
    assert_eq!(c.diagnostics[0].severity, Severity::Error);
}

#[test]
fn unicode_names_per_profile() {
    let t = "---\nname: données\ndescription: d\n---\n";
    let c = run("données", t, Profile::Alisio);
    assert_eq!(
        codes(&c),
        [(
            "skill-name-format",
            "name must be lowercase letters, digits and single hyphens".to_string()
        )]
    );
    assert!(run("données", t, Profile::Spec).diagnostics.is_empty());
    let nfd: String = "données".nfd().collect();
    assert!(run(&nfd, t, Profile::Spec).diagnostics.is_empty());
    assert!(
        run(
            "pdf",
            "---\nname: ｐｄｆ\ndescription: d\n---\n",
            Profile::Spec
        )
        .diagnostics
        .is_empty()
    );
    assert!(
        run(
            "数据处理",
            "---\nname: 数据处理\ndescription: d\n---\n",
            Profile::Spec
        )
        .diagnostics
        .is_empty()
    );
}

#[test]
fn name_format_and_length_are_independent() {
    let n65 = "a".repeat(65);
    let c = run(&n65, &valid(&n65), Profile::Alisio);
    assert_eq!(
        codes(&c),
        [(
            "skill-name-too-long",
            "name is 65 characters; the limit is 64".to_string()
        )]
    );
    for bad in ["Bad--Name", "-lead"] {
        let c = run(bad, &valid(bad), Profile::Alisio);
        assert_eq!(
            codes(&c),
            [(
                "skill-name-format",
                "name must be lowercase letters, digits and single hyphens".to_string()
            )]
        );
    }
}

#[test]
fn description_limits_and_empty() {
    let d1024 = "é".repeat(1024);
    assert!(
        run(
            "x",
            &format!("---\nname: x\ndescription: {d1024}\n---\n"),
            Profile::Alisio
        )
        .diagnostics
        .is_empty()
    );
    let c = run(
        "x",
        &format!("---\nname: x\ndescription: {d1024}é\n---\n"),
        Profile::Alisio,
    );
    assert_eq!(
        codes(&c),
        [(
            "skill-description-too-long",
            "description is 1025 characters; the limit is 1024".to_string()
        )]
    );
    let c = run(
        "x",
        "---\nname: x\ndescription: \"\"\n---\n",
        Profile::Alisio,
    );
    assert_eq!(
        codes(&c),
        [(
            "skill-description-missing",
            "description is empty".to_string()
        )]
    );
    let s = c.diagnostics[0].span;
    assert_eq!((s.start.line, s.start.utf16, s.end.utf16), (2, 13, 15));
}

#[test]
fn empty_block_reports_both_missing_keys_on_the_opening_line() {
    let c = run("x", "---\n---\n", Profile::Alisio);
    assert_eq!(
        codes(&c),
        [
            (
                "skill-name-missing",
                "missing required key \"name\"".to_string()
            ),
            (
                "skill-description-missing",
                "missing required key \"description\"".to_string()
            )
        ]
    );
    for d in &c.diagnostics {
        let s = &d.span;
        assert_eq!(
            (s.start.line, s.start.utf16, s.end.line, s.end.utf16),
            (0, 0, 0, 3)
        );
    }
}

#[test]
fn unknown_keys_per_profile_with_suggestion() {
    let t = "---\nname: x\ndescription: d\nsource: web\nuser-invokable: true\n---\n";
    let c = run("x", t, Profile::Alisio);
    assert_eq!(codes(&c), [
            ("skill-unknown-key", "unknown key \"source\"; alisio ignores it (move it under metadata to keep it)".to_string()),
            ("skill-unknown-key", "unknown key \"user-invokable\"; alisio ignores it (move it under metadata to keep it) (did you mean \"user-invocable\"?)".to_string()),
        ]);
    assert!(c.diagnostics.iter().all(|d| d.severity == Severity::Hint));
    assert_eq!(c.load_error, None);
    let c = run(
        "x",
        "---\nname: x\ndescription: d\nsource: web\n---\n",
        Profile::Spec,
    );
    assert_eq!(codes(&c), [("skill-unknown-key", "unknown key \"source\"; the specification allows only name, description, license, compatibility, metadata and allowed-tools".to_string())]);
    assert_eq!(c.diagnostics[0].severity, Severity::Error);
}

#[test]
fn allowed_tools_list_is_fine_for_alisio_and_a_type_warning_for_spec() {
    let t = "---\nname: x\ndescription: d\nallowed-tools:\n  - Read\n  - Write\n---\n";
    assert!(run("x", t, Profile::Alisio).diagnostics.is_empty());
    let c = run("x", t, Profile::Spec);
    assert_eq!(
        codes(&c),
        [(
            "skill-field-type",
            "\"allowed-tools\" must be a space-separated string".to_string()
        )]
    );
    // skills-ref accepts it: a warning keeps the spec verdict equal to the reference's.
    assert_eq!(c.diagnostics[0].severity, Severity::Warning);
    let c = run(
        "x",
        "---\nname: x\ndescription: d\nmetadata:\n  a: b\n  tags:\n    - t\n---\n",
        Profile::Spec,
    );
    assert_eq!(
        codes(&c),
        [(
            "skill-field-type",
            "metadata values must be strings; \"tags\" is a list".to_string()
        )]
    );
    assert_eq!(c.diagnostics[0].severity, Severity::Warning);
    let c = run(
        "x",
        "---\nname: x\ndescription: d\nallowed-tools: [Read, Write]\n---\n",
        Profile::Alisio,
    );
    assert!(c.diagnostics.is_empty());
}

#[test]
fn mismatch_is_a_warning_that_still_loads() {
    let c = run("pdf", &valid("pdf-tools"), Profile::Alisio);
    assert_eq!(codes(&c), [("skill-name-directory-mismatch", "name \"pdf-tools\" differs from the directory name \"pdf\"; the skill is loaded anyway".to_string())]);
    assert_eq!(c.diagnostics[0].severity, Severity::Warning);
    assert_eq!(c.load_error, None);
    let c = run("pdf", &valid("pdf-tools"), Profile::ClaudeCode);
    assert_eq!(
        codes(&c),
        [(
            "skill-name-directory-mismatch",
            "Claude Code uses the directory name \"pdf\" as the command; \"name\" is only a label"
                .to_string()
        )]
    );
}

/// `t` is clean in `x/`; in `y/` its first diagnostic (the name mismatch) spans this
/// (line, UTF-16 column) range.
fn mismatch_span(t: &str) -> (u32, u32, u32, u32) {
    assert!(run("x", t, Profile::Alisio).diagnostics.is_empty());
    let s = run("y", t, Profile::Alisio).diagnostics[0].span;
    (s.start.line, s.start.utf16, s.end.line, s.end.utf16)
}

#[test]
fn crlf_positions() {
    let t = "---\r\nname: x\r\ndescription: d\r\n---\r\n";
    assert_eq!(mismatch_span(t), (1, 6, 1, 7));
}

#[test]
fn documented_decisions_have_exact_messages() {
    let c = run(
        "x",
        "---\nname: x\n...\ndescription: d\n---\n",
        Profile::Alisio,
    );
    assert_eq!(
        codes(&c),
        [(
            "skill-yaml-syntax",
            "invalid YAML: only one YAML document is allowed".to_string()
        )]
    );
    let c = run(
        "x",
        "---\nname: x\ndescription: d\nbackground: sometimes\ndisable-model-invocation: 1\n---\n",
        Profile::Alisio,
    );
    assert_eq!(
        codes(&c),
        [
            (
                "skill-field-type",
                "\"background\" must be true or false, found \"sometimes\"".to_string()
            ),
            (
                "skill-field-type",
                "\"disable-model-invocation\" must be true or false, found 1".to_string()
            ),
        ]
    );
    assert_eq!(c.load_error, None);
    assert!(c.meta.as_ref().unwrap().model_invocable);
    let c = run(
        "x",
        "---\nname: x\ndescription: d\ndisable-model-invocation: yes\n---\n",
        Profile::ClaudeCode,
    );
    assert!(c.diagnostics.is_empty());
    // Claude Code 2.1.332 lower-cases and trims the string (its `De`/`pi` helpers).
    let c = run(
        "x",
        "---\nname: x\ndescription: d\ndisable-model-invocation: \" YES\"\nuser-invocable: \"False\"\n---\n",
        Profile::ClaudeCode,
    );
    assert!(c.diagnostics.is_empty(), "{:?}", codes(&c));
    assert!(!c.meta.as_ref().unwrap().model_invocable);
    let c = run(
        "x",
        "---\nname: x\ndescription: d\nlicense:\nmetadata:\ncompatibility:\n---\n",
        Profile::Alisio,
    );
    assert!(c.diagnostics.is_empty());
    let c = run(
        "x",
        "---\nname: x\ndescription: d\nmetadata: 3\n---\n",
        Profile::Alisio,
    );
    assert_eq!(
        codes(&c),
        [(
            "skill-field-type",
            "\"metadata\" must be a mapping, found a number".to_string()
        )]
    );
    assert_eq!(c.load_error, None);
}

#[test]
fn lone_carriage_returns_are_line_breaks() {
    let t = "---\rname: x\rdescription: d\r---\rbody\r";
    assert_eq!(mismatch_span(t), (1, 6, 1, 7));
}

#[test]
fn utf16_and_utf8_columns_of_an_emoji_name() {
    let c = run(
        "x",
        "---\nname: \"😀x\"\ndescription: d\n---\n",
        Profile::Alisio,
    );
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.code == Code::SkillNameFormat)
        .unwrap();
    assert_eq!(
        (d.span.start.line, d.span.start.utf16, d.span.end.utf16),
        (1, 6, 11)
    );
    assert_eq!((d.span.start.utf8, d.span.end.utf8), (6, 13));
}

#[test]
fn bom_is_silent_for_alisio_and_missing_for_spec() {
    let mut b = vec![0xEF, 0xBB, 0xBF];
    b.extend_from_slice(valid("x").as_bytes());
    let f = Path::new("/nonexistent-skill-root/x/SKILL.md");
    assert!(
        check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio)
            .diagnostics
            .is_empty()
    );
    let c = check(&DiskFs, f, &b, b.len() as u64, Profile::Spec);
    assert_eq!(
        codes(&c),
        [(
            "skill-frontmatter-missing",
            "the file starts with a UTF-8 byte order mark, so the first line is not exactly ---"
                .to_string()
        )]
    );
}

#[test]
fn invalid_utf8_in_frontmatter_is_a_syntax_error_and_in_body_is_silent() {
    let f = Path::new("/nonexistent-skill-root/x/SKILL.md");
    let mut b = b"---\nname: x\ndescription: d\xff\n---\n".to_vec();
    let c = check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio);
    assert_eq!(
        codes(&c),
        [(
            "skill-yaml-syntax",
            "frontmatter is not valid UTF-8".to_string()
        )]
    );
    assert_eq!(c.diagnostics[0].span.start.line, 2);
    b = b"---\nname: x\ndescription: d\n---\nbody \xff\xfe\n".to_vec();
    assert!(
        check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio)
            .diagnostics
            .is_empty()
    );
}

#[test]
fn binary_content_is_a_located_diagnostic() {
    let f = Path::new("/nonexistent-skill-root/x/SKILL.md");
    let b: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    let c = check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio);
    assert_eq!(c.diagnostics.len(), 1);
    assert_eq!(c.diagnostics[0].code, Code::SkillFrontmatterMissing);
}

#[test]
fn body_limits() {
    let body500: String = "x\n".repeat(500);
    assert!(
        run(
            "x",
            &format!("{}{body500}", "---\nname: x\ndescription: d\n---\n"),
            Profile::Alisio
        )
        .diagnostics
        .is_empty()
    );
    let c = run(
        "x",
        &format!("---\nname: x\ndescription: d\n---\n{body500}x\n"),
        Profile::Alisio,
    );
    assert_eq!(codes(&c), [("skill-body-too-long", "body is 501 lines and ~251 tokens; keep it under 500 lines and about 5000 tokens (move details to references/)".to_string())]);
    assert_eq!(c.diagnostics[0].span.start.line, 504);
    assert_eq!(c.diagnostics[0].span.end.line, 505);
}

#[test]
fn link_destinations() {
    let body = "[a](references/missing.md) ![i](img.png \"t\") `[c](code.md)`\n\n[id]: ./x/y.md\n\n<https://x.y>";
    let links = body_links(body);
    let dests: Vec<_> = links
        .iter()
        .map(|(d, r)| (d.as_str(), &body[r.start..r.end]))
        .collect();
    assert_eq!(
        dests,
        [
            ("references/missing.md", "references/missing.md"),
            ("img.png", "img.png"),
            ("./x/y.md", "./x/y.md")
        ]
    );
    assert_eq!(resource_rel("https://x.y"), None);
    assert_eq!(resource_rel("#top"), None);
    assert_eq!(resource_rel("../x.md"), Some(None));
    assert_eq!(
        resource_rel("a/../b%20c.md#frag"),
        Some(Some("b c.md".into()))
    );
    assert_eq!(resource_rel("%é%"), Some(Some("%é%".into())));
}

#[test]
fn mutated_inputs_never_panic_under_any_profile() {
    let base = "---\nname: \"pdf-tools\"\ndescription: |\n  Does é things.\nmetadata:\n  a: &x [1, {b: *x}]\nallowed-tools: Read Write\n---\n# T\n[a](references/%41.md) ![i](x/y/z.png)\n";
    let mut rng = alisio_base::testing::Rng(0x9E37_79B9_7F4A_7C15);
    let mut next = move || rng.below(usize::MAX);
    let alphabet = b"-:#&*![]{}|>\"'\r\n \t\\%.\xc3\xa9\xef\xbb\xbf\x00az";
    for _ in 0..2000 {
        let mut b = base.as_bytes().to_vec();
        for _ in 0..(1 + next() % 4) {
            let at = next() % (b.len() + 1);
            match next() % 3 {
                0 => b.insert(at, alphabet[next() % alphabet.len()]),
                1 if at < b.len() => {
                    b.remove(at);
                }
                _ => b.truncate(at),
            }
        }
        for p in [
            Profile::Alisio,
            Profile::Spec,
            Profile::Codex,
            Profile::ClaudeCode,
        ] {
            let c = check(
                &DiskFs,
                Path::new("/nonexistent-skill-root/x/SKILL.md"),
                &b,
                b.len() as u64,
                p,
            );
            for d in &c.diagnostics {
                assert!(
                    d.span.bytes.start <= d.span.bytes.end && d.span.bytes.end <= c.text.len(),
                    "{d:?}"
                );
            }
        }
    }
}

#[test]
fn edit_distance_counts_transpositions() {
    assert_eq!(edit_distance("user-invokable", "user-invocable"), 1);
    assert_eq!(edit_distance("ab", "ba"), 1);
    assert_eq!(edit_distance("", "abc"), 3);
}

#[test]
fn edit_distance_at_most_is_the_distance_within_the_bound() {
    assert_eq!(
        edit_distance_at_most("user-invokable", "user-invocable", 2),
        Some(1)
    );
    assert_eq!(edit_distance_at_most("licence", "license", 2), Some(1));
    // Lengths 3 apart: not compared, and the distance is indeed 3.
    assert_eq!(edit_distance_at_most("", "abc", 2), None);
    assert_eq!(edit_distance_at_most("", "abc", 3), Some(3));
    // Same length, distance 4 > 2.
    assert_eq!(edit_distance_at_most("abcd", "wxyz", 2), None);
    assert_eq!(edit_distance_at_most("é", "e", 1), Some(1));
}
