//! spec/skills.md §8 conformance, validation cases (26–47, 55) through the built binary.

use crate::common::{Run, Ws, range, write};
use crate::skills_discovery::{diags, entries, field, listed_names, valid};

/// Validates one SKILL.md at `dir/SKILL.md` (below the workspace) with extra args.
fn validate(ws: &Ws, dir: &str, content: impl AsRef<[u8]>, extra: &[&str]) -> Run {
    write(&ws.root.join(dir).join("SKILL.md"), content);
    let mut args = vec!["skills", "validate", dir, "--json"];
    args.extend_from_slice(extra);
    ws.run(&args)
}

fn codes(r: &Run) -> Vec<(String, String, String)> {
    diags(r)
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn one(code: &str, sev: &str, msg: &str) -> Vec<(String, String, String)> {
    vec![(code.into(), sev.into(), msg.into())]
}

/// Validates `content` as `x/SKILL.md` in a fresh workspace.
fn validate_x(content: impl AsRef<[u8]>) -> Run {
    validate(&Ws::new(), "x", content, &[])
}

/// The run reports exactly this one diagnostic.
fn assert_one(r: &Run, code: &str, sev: &str, msg: &str) {
    assert_eq!(codes(r), one(code, sev, msg));
}

/// The run reports exactly one diagnostic, this one, at this range.
fn only(r: &Run, code: &str, sev: &str, msg: &str, at: (u64, u64, u64, u64)) {
    assert_one(r, code, sev, msg);
    assert_eq!(range(&diags(r)[0]), at);
}

fn sized(name: &str, total: usize) -> String {
    let head = format!("---\nname: {name}\ndescription: d\nsource: web\n---\n");
    format!("{head}{}", "x".repeat(total - head.len()))
}

#[test]
fn load_limit_is_64000_bytes_and_validation_stops_past_one_mebibyte() {
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    write(&root.join("fits/SKILL.md"), sized("fits", 64_000));
    write(&root.join("big/SKILL.md"), sized("big", 64_001));
    let es = entries(&ws.run(&["skills", "list", "--json"]));
    assert_eq!(field(&es, "name"), ["fits"]);
    let r = ws.run(&[
        "skills",
        "validate",
        root.join("big").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(r.code, 1);
    let c = codes(&r);
    assert_eq!(
        c[0],
        (
            "skill-file-too-large".into(),
            "error".into(),
            "SKILL.md is 64001 bytes; the limit is 64000 bytes, so it is not loaded".into()
        )
    );
    assert!(
        c.iter().any(|(code, _, _)| code == "skill-unknown-key"),
        "{c:?}"
    );
    let r = validate(&ws, "huge", sized("huge", 2_000_000), &[]);
    only(
        &r,
        "skill-file-too-large",
        "error",
        "SKILL.md is 2000000 bytes; too large to validate",
        (0, 0, 0, 3),
    );
    let r = validate(
        &ws,
        "huge",
        sized("huge", 2_000_000),
        &["--profile", "spec"],
    );
    assert_one(
        &r,
        "skill-file-too-large",
        "error",
        "SKILL.md is 2000000 bytes; too large to validate",
    );
    // Under spec the 64,001-byte file is only checked for content.
    let r = ws.run(&[
        "skills",
        "validate",
        root.join("big").to_str().unwrap(),
        "--json",
        "--profile",
        "spec",
    ]);
    assert!(
        !codes(&r)
            .iter()
            .any(|(c, _, _)| c == "skill-file-too-large")
    );
}

#[test]
fn no_frontmatter_is_reported_on_line_zero() {
    let ws = Ws::new();
    let r = validate(&ws, "x", "# Title\n", &[]);
    assert_eq!(r.code, 1);
    only(
        &r,
        "skill-frontmatter-missing",
        "error",
        "SKILL.md must start with a --- line followed by YAML frontmatter",
        (0, 0, 0, 7),
    );
    let r = validate(&ws, "e", "", &[]);
    only(
        &r,
        "skill-frontmatter-missing",
        "error",
        "SKILL.md is empty; it must start with a --- line followed by YAML frontmatter",
        (0, 0, 0, 0),
    );
}

#[test]
fn byte_order_mark_is_silent_for_alisio_and_missing_frontmatter_for_spec() {
    let ws = Ws::new();
    let mut b = vec![0xEF, 0xBB, 0xBF];
    b.extend_from_slice(b"---\nname: x\ndescription: Converts X files.\n---\nBody\n");
    let r = validate(&ws, "x", &b, &[]);
    assert_eq!(r.code, 0);
    assert!(codes(&r).is_empty());
    let r = validate(&ws, "x", &b, &["--profile", "spec"]);
    assert_one(
        &r,
        "skill-frontmatter-missing",
        "error",
        "the file starts with a UTF-8 byte order mark, so the first line is not exactly ---",
    );
    valid(&ws.home.join(".agents/skills/x"));
    std::fs::write(ws.home.join(".agents/skills/x/SKILL.md"), &b).unwrap();
    assert_eq!(listed_names(&ws), ["x"]);
}

#[test]
fn crlf_files_load_and_ranges_exclude_the_carriage_return() {
    let ws = Ws::new();
    let t = "---\r\nname: x\r\ndescription: d\r\n---\r\n";
    assert!(codes(&validate(&ws, "x", t, &[])).is_empty());
    let r = validate(&ws, "y", t, &[]);
    let ds = diags(&r);
    assert_eq!(ds[0]["code"], "skill-name-directory-mismatch");
    assert_eq!(range(&ds[0]), (1, 6, 1, 7));
}

#[test]
fn unterminated_frontmatter_is_only_that() {
    let ws = Ws::new();
    let r = validate(&ws, "x", "---\nname: Bad Name\ndescription: d\n", &[]);
    only(
        &r,
        "skill-frontmatter-unterminated",
        "error",
        "frontmatter opened here is never closed with a --- line",
        (0, 0, 0, 3),
    );
    let r = validate(&ws, "x", "---\nname: x\n", &["--profile", "claude-code"]);
    assert_one(
        &r,
        "skill-frontmatter-unterminated",
        "error",
        "frontmatter opened here is never closed with a --- line; Claude Code loads this skill with empty metadata, so it is never invoked automatically",
    );
}

#[test]
fn blank_line_before_the_opening_line() {
    let r = validate_x("\n---\nname: x\ndescription: d\n---\n");
    assert_one(
        &r,
        "skill-frontmatter-missing",
        "error",
        "frontmatter must start on the first line; remove the 1 blank line(s) before ---",
    );
}

#[test]
fn empty_block_reports_name_and_description_on_the_opening_line() {
    let r = validate_x("---\n---\n");
    let ds = diags(&r);
    assert_eq!(
        codes(&r),
        vec![
            (
                "skill-name-missing".to_string(),
                "error".to_string(),
                "missing required key \"name\"".to_string()
            ),
            (
                "skill-description-missing".to_string(),
                "error".to_string(),
                "missing required key \"description\"".to_string()
            ),
        ]
    );
    assert!(ds.iter().all(|d| range(d) == (0, 0, 0, 3)));
}

#[test]
fn alias_bomb_is_one_located_syntax_error() {
    let ws = Ws::new();
    let mut y = String::from("---\nname: x\ndescription: d\nmetadata:\n  a: &a [\"lol\"]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        y.push_str(&format!(
            "  {}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(", ")
        ));
    }
    y.push_str("---\n");
    let r = validate(&ws, "x", &y, &[]);
    assert_one(
        &r,
        "skill-yaml-syntax",
        "error",
        "more than 20 YAML aliases",
    );
    // The 21st alias: third alias of `d`'s list (line 7).
    assert_eq!(range(&diags(&r)[0]), (7, 17, 7, 44));
}

#[test]
fn deep_nesting_is_a_syntax_error_not_a_stack_overflow() {
    let ws = Ws::new();
    let y = format!(
        "---\nname: x\ndescription: d\nmetadata: {}{}\n---\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    let r = validate(&ws, "x", &y, &[]);
    assert_one(
        &r,
        "skill-yaml-syntax",
        "error",
        "YAML nesting deeper than 32 levels",
    );
    let mut y = String::from("---\nname: x\ndescription: d\nmetadata:\n");
    for i in 0..200 {
        y.push_str(&format!("{}k{i}:\n", "  ".repeat(i + 1)));
    }
    y.push_str("---\n");
    let r = validate(&ws, "x", &y, &[]);
    assert_one(
        &r,
        "skill-yaml-syntax",
        "error",
        "YAML nesting deeper than 32 levels",
    );
}

#[test]
fn name_as_number_and_unicode_names_per_profile() {
    let ws = Ws::new();
    let t = "---\nname: 123\ndescription: d\n---\n";
    let r = validate(&ws, "123", t, &[]);
    assert_one(
        &r,
        "skill-field-type",
        "error",
        "\"name\" must be a string, found a number; quote it: name: \"123\"",
    );
    assert!(codes(&validate(&ws, "123", t, &["--profile", "spec"])).is_empty());
    let r = validate(&ws, "x", t, &["--profile", "spec"]);
    assert_one(
        &r,
        "skill-name-directory-mismatch",
        "error",
        "name \"123\" must equal the directory name \"x\"",
    );
    let t = "---\nname: données\ndescription: d\n---\n";
    assert_eq!(
        codes(&validate(&ws, "données", t, &[])),
        one(
            "skill-name-format",
            "error",
            "name must be lowercase letters, digits and single hyphens"
        )
    );
    assert!(codes(&validate(&ws, "données", t, &["--profile", "spec"])).is_empty());
    assert!(codes(&validate(&ws, "donne\u{301}es", t, &["--profile", "spec"])).is_empty());
    assert!(
        codes(&validate(
            &ws,
            "pdf",
            "---\nname: ｐｄｆ\ndescription: d\n---\n",
            &["--profile", "spec"]
        ))
        .is_empty()
    );
}

#[test]
fn name_rules_have_exact_messages() {
    let ws = Ws::new();
    for bad in ["Bad--Name", "-lead"] {
        let r = validate(
            &ws,
            "x",
            format!("---\nname: {bad}\ndescription: d\n---\n"),
            &[],
        );
        let c = codes(&r);
        assert_eq!(
            c[0],
            (
                "skill-name-format".into(),
                "error".into(),
                "name must be lowercase letters, digits and single hyphens".into()
            )
        );
        assert_eq!(
            c[1],
            (
                "skill-name-directory-mismatch".into(),
                "warning".into(),
                format!(
                    "name \"{bad}\" differs from the directory name \"x\"; the skill is loaded anyway"
                )
            )
        );
    }
    let n = "a".repeat(65);
    let r = validate(
        &ws,
        &n,
        format!("---\nname: {n}\ndescription: d\n---\n"),
        &[],
    );
    assert_one(
        &r,
        "skill-name-too-long",
        "error",
        "name is 65 characters; the limit is 64",
    );
}

#[test]
fn description_rules_have_exact_messages() {
    let ws = Ws::new();
    assert!(
        codes(&validate(
            &ws,
            "x",
            format!("---\nname: x\ndescription: {}\n---\n", "é".repeat(1024)),
            &[]
        ))
        .is_empty()
    );
    let r = validate(
        &ws,
        "x",
        format!("---\nname: x\ndescription: {}\n---\n", "é".repeat(1025)),
        &[],
    );
    assert_one(
        &r,
        "skill-description-too-long",
        "error",
        "description is 1025 characters; the limit is 1024",
    );
    let r = validate(&ws, "x", "---\nname: x\ndescription: \"\"\n---\n", &[]);
    only(
        &r,
        "skill-description-missing",
        "error",
        "description is empty",
        (2, 13, 2, 15),
    );
}

#[test]
fn duplicate_keys_point_at_each_other() {
    let ws = Ws::new();
    let r = validate(
        &ws,
        "x",
        "---\nname: x\ndescription: d\nname: x\n---\n",
        &[],
    );
    let ds = diags(&r);
    assert_eq!(ds.len(), 2);
    assert_eq!((range(&ds[0]), range(&ds[1])), ((1, 0, 1, 4), (3, 0, 3, 4)));
    assert_eq!(ds[0]["message"], "duplicate key \"name\"");
    assert_eq!(range(&ds[0]["related"][0]), (3, 0, 3, 4));
    assert_eq!(range(&ds[1]["related"][0]), (1, 0, 1, 4));
    assert_eq!(ds[0]["related"][0]["message"], "also defined here");
    valid(&ws.home.join(".agents/skills/x"));
    std::fs::write(
        ws.home.join(".agents/skills/x/SKILL.md"),
        "---\nname: x\ndescription: d\nname: x\n---\n",
    )
    .unwrap();
    assert!(entries(&ws.run(&["skills", "list", "--json"])).is_empty());
}

#[test]
fn unknown_keys_are_hints_for_alisio_and_errors_for_spec() {
    let ws = Ws::new();
    let t = "---\nname: x\ndescription: d\nsource: web\n---\n";
    let r = validate(&ws, "x", t, &[]);
    assert_eq!(r.code, 0);
    assert_one(
        &r,
        "skill-unknown-key",
        "hint",
        "unknown key \"source\"; alisio ignores it (move it under metadata to keep it)",
    );
    let r = validate(&ws, "x", t, &["--profile", "spec"]);
    assert_eq!(r.code, 1);
    let r = validate(
        &ws,
        "x",
        "---\nname: x\ndescription: d\nuser-invokable: true\n---\n",
        &[],
    );
    assert!(
        codes(&r)[0]
            .2
            .ends_with("(did you mean \"user-invocable\"?)"),
        "{:?}",
        codes(&r)
    );
}

#[test]
fn allowed_tools_as_a_list_depends_on_profile() {
    let ws = Ws::new();
    let t = "---\nname: x\ndescription: d\nallowed-tools: [Read, Write]\n---\n";
    assert!(codes(&validate(&ws, "x", t, &[])).is_empty());
    let r = validate(&ws, "x", t, &["--profile", "spec"]);
    assert_one(
        &r,
        "skill-yaml-syntax",
        "error",
        "flow style is not allowed by strict YAML",
    );
    let t = "---\nname: x\ndescription: d\nallowed-tools:\n  - Read\n---\n";
    let r = validate(&ws, "x", t, &["--profile", "spec"]);
    assert_one(
        &r,
        "skill-field-type",
        "warning",
        "\"allowed-tools\" must be a space-separated string",
    );
}

#[test]
fn a_colon_in_a_plain_description_is_a_syntax_error() {
    let r = validate_x("---\nname: x\ndescription: Use when: editing PDFs\n---\n");
    let c = codes(&r);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].0, "skill-yaml-syntax");
    assert!(c[0].2.starts_with("invalid YAML: "), "{c:?}");
    assert_eq!(r.code, 1);
}

#[test]
fn directory_mismatch_is_a_warning_strict_fails_and_spec_errors() {
    let ws = Ws::new();
    let t = "---\nname: pdf-tools\ndescription: d\n---\n";
    let r = validate(&ws, "pdf", t, &[]);
    assert_eq!(r.code, 0);
    assert_one(
        &r,
        "skill-name-directory-mismatch",
        "warning",
        "name \"pdf-tools\" differs from the directory name \"pdf\"; the skill is loaded anyway",
    );
    assert_eq!(validate(&ws, "pdf", t, &["--strict"]).code, 1);
    assert_eq!(validate(&ws, "pdf", t, &["--profile", "spec"]).code, 1);
    write(&ws.home.join(".agents/skills/pdf/SKILL.md"), t);
    assert_eq!(listed_names(&ws), ["pdf-tools"]);
}

#[test]
fn body_of_501_lines_is_too_long_from_line_501() {
    let ws = Ws::new();
    let head = "---\nname: x\ndescription: d\n---\n";
    assert!(
        codes(&validate(
            &ws,
            "x",
            format!("{head}{}", "l\n".repeat(500)),
            &[]
        ))
        .is_empty()
    );
    let r = validate(&ws, "x", format!("{head}{}", "l\n".repeat(501)), &[]);
    only(
        &r,
        "skill-body-too-long",
        "warning",
        "body is 501 lines and ~251 tokens; keep it under 500 lines and about 5000 tokens (move details to references/)",
        (504, 0, 505, 0),
    );
}

#[test]
fn links_to_missing_and_deep_resources() {
    let ws = Ws::new();
    write(&ws.root.join("x/references/api/deep.md"), "deep");
    write(&ws.root.join("x/references/a.md"), "a");
    let body = "[a](references/missing.md)\n[b](references/api/deep.md)\n[c](https://x.y) [d](#top) [e](references/a.md) [f](References/a.md)\n";
    let r = validate(
        &ws,
        "x",
        format!("---\nname: x\ndescription: d\n---\n{body}"),
        &[],
    );
    let ds = diags(&r);
    type Found<'a> = (&'a str, &'a str, (u64, u64, u64, u64));
    let got: Vec<Found> = ds
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
                range(d),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "skill-resource-missing",
                "link target \"references/missing.md\" does not exist in the skill folder",
                (4, 4, 4, 25)
            ),
            (
                "skill-reference-depth",
                "\"references/api/deep.md\" is 2 directory levels below the skill; keep references one level deep",
                (5, 4, 5, 26)
            ),
            (
                "skill-resource-missing",
                "link target \"References/a.md\" does not exist in the skill folder",
                (6, 52, 6, 67)
            ),
        ]
    );
}

#[test]
fn usage_errors_exit_two() {
    let ws = Ws::new();
    let r = ws.run(&["skills", "validate", "does-not-exist"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        "error: does-not-exist: no such file or directory"
    );
    ws.dir("empty-dir");
    let r = ws.run(&["skills", "validate", "empty-dir"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.trim_end(), "error: empty-dir: no SKILL.md found");
    ws.file("notes.md", "x");
    let r = ws.run(&["skills", "validate", "notes.md"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.trim_end(), "error: notes.md: not a SKILL.md file");
    let r = ws.run(&["skills", "list", "nope"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim_end(),
        "error: nope: no such file or directory"
    );
}

#[test]
fn human_output_is_path_line_col_severity_code_message() {
    let ws = Ws::new();
    write(&ws.root.join("x/SKILL.md"), "# Title\n");
    let r = ws.run(&["skills", "validate", "x"]);
    assert_eq!(
        r.stdout,
        "x/SKILL.md:1:1: error[skill-frontmatter-missing]: SKILL.md must start with a --- line followed by YAML frontmatter\n1 file checked: 1 error(s), 0 warning(s), 0 info, 0 hint(s)\n"
    );
    assert_eq!(r.code, 1);
}

#[test]
fn several_paths_form_one_discovery_with_shadowing() {
    let ws = Ws::new();
    valid(&ws.root.join("a/pdf"));
    valid(&ws.root.join("b/pdf"));
    let r = ws.run(&["skills", "validate", "a", "b/pdf/SKILL.md", "--json"]);
    let ds = diags(&r);
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["code"], "skill-shadowed");
    assert_eq!(ds[0]["file"], "b/pdf/SKILL.md");
    assert_eq!(r.json()["summary"]["files"], 2);
}
