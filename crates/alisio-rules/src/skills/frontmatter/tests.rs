//! Unit tests of the frontmatter block finder and the YAML reader (spec/skills.md §2.2, §2.3).

use super::*;

fn fm(yaml: &str, profile: Profile) -> (String, Frontmatter) {
    let text = format!("---\n{yaml}---\n");
    let Found::Block(b) = find_block(&text, false, profile) else {
        panic!("no block")
    };
    let f = parse_yaml(&text, b.yaml, profile);
    (text, f)
}

#[test]
fn lines_split_on_lf_crlf_and_lone_cr() {
    let v: Vec<_> = lines_from("a\r\nb\rc\nd", 0)
        .map(|l| (l.start, l.end, l.next))
        .collect();
    assert_eq!(v, [(0, 1, 3), (3, 4, 5), (5, 6, 7), (7, 8, 8)]);
    assert_eq!(lines_from("a\n", 0).count(), 1);
}

#[test]
fn block_finder_situations() {
    assert_eq!(
        find_block("", false, Profile::Alisio),
        Found::Missing(Missing::Empty)
    );
    assert_eq!(
        find_block("\n\n---\n", false, Profile::Alisio),
        Found::Missing(Missing::BlankLines(2))
    );
    assert_eq!(
        find_block("--- \n", false, Profile::Alisio),
        Found::Missing(Missing::TrailingWhitespace)
    );
    assert_eq!(
        find_block("---\nx: 1\n", false, Profile::Alisio),
        Found::Unterminated(TextRange::new(0, 3))
    );
    assert_eq!(
        find_block("---\nx: 1\n...\n", false, Profile::Alisio),
        Found::Unterminated(TextRange::new(0, 3))
    );
    assert!(matches!(
        find_block("--- \na: b\n ---\n", false, Profile::Codex),
        Found::Block(_)
    ));
    assert_eq!(
        find_block("---\n---\n", true, Profile::Spec),
        Found::Missing(Missing::Bom)
    );
    let Found::Block(b) = find_block("---\r\na: b\r\n---\r\nbody", false, Profile::Alisio) else {
        panic!()
    };
    assert_eq!(
        (b.open, b.yaml, b.close, b.body_start),
        (
            TextRange::new(0, 3),
            TextRange::new(5, 11),
            TextRange::new(11, 14),
            16
        )
    );
}

#[test]
fn description_with_dashes_inside_does_not_close() {
    let (_, f) = fm("name: a\ndescription: a---b\n", Profile::Spec);
    assert_eq!(
        f.get("description").and_then(|e| e.value.as_str()),
        Some("a---b")
    );
}

#[test]
fn scalar_spans_cover_quotes_and_block_scalars() {
    let (t, f) = fm(
        "name: \"x y\"\ndescription: |\n  a\n  b\nlicense: MIT\n",
        Profile::Alisio,
    );
    let s = |k: &str| {
        let r = f.get(k).unwrap().value.span;
        t[r.start..r.end].to_string()
    };
    assert_eq!(s("name"), "\"x y\"");
    assert_eq!(s("description"), "|\n  a\n  b");
    assert_eq!(s("license"), "MIT");
    let r = f.get("name").unwrap().key_span;
    assert_eq!(&t[r.start..r.end], "name");
}

#[test]
fn empty_value_uses_key_span_and_core_typing() {
    let (t, f) = fm("name:\ndescription: 123\nx: yes\n", Profile::Alisio);
    let e = f.get("name").unwrap();
    assert!(e.empty && e.value.is_null());
    assert_eq!(&t[e.value.span.start..e.value.span.end], "name");
    assert_eq!(f.get("description").unwrap().value.describe(), "a number");
    assert_eq!(f.get("x").unwrap().value.as_str(), Some("yes"));
    let (_, f) = fm("name: 123\n", Profile::Spec);
    assert_eq!(f.get("name").unwrap().value.as_str(), Some("123"));
}

#[test]
fn collection_spans_and_flow() {
    let (t, f) = fm(
        "metadata:\n  a: 1\n  b: [x, y]\nallowed-tools: [Read, Write]\n",
        Profile::Alisio,
    );
    let m = &f.get("metadata").unwrap().value;
    assert_eq!(&t[m.span.start..m.span.end], "a: 1\n  b: [x, y]");
    let a = &f.get("allowed-tools").unwrap().value;
    assert!(a.flow);
    assert_eq!(&t[a.span.start..a.span.end], "[Read, Write]");
    let (_, f) = fm("allowed-tools: [Read]\n", Profile::Spec);
    assert_eq!(
        f.error.unwrap().message,
        "flow style is not allowed by strict YAML"
    );
}

#[test]
fn duplicate_keys_top_level_and_nested() {
    let (_, f) = fm("name: a\nname: b\n", Profile::Alisio);
    assert!(f.error.is_none());
    let d = f.duplicates();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].1, vec![TextRange::new(4, 8), TextRange::new(12, 16)]);
    let (_, f) = fm("metadata:\n  a: 1\n  a: 2\n", Profile::Alisio);
    assert_eq!(
        f.error.unwrap().message,
        "duplicate key \"a\" in \"metadata\""
    );
}

#[test]
fn alias_bomb_stops_at_the_21st_alias() {
    let mut y = String::from("a: &a [x]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        let refs = vec![format!("*{}", w[0]); 9].join(", ");
        y.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
    }
    let (t, f) = fm(&y, Profile::Alisio);
    let e = f.error.unwrap();
    assert_eq!(e.message, "more than 20 YAML aliases");
    // The 21st alias is the third of the third list (`d`).
    let line_d = t.find("d: &d [").unwrap();
    assert_eq!(e.at, line_d + "d: &d [*c, *c, ".len());
}

#[test]
fn deep_nesting_is_refused_without_recursion() {
    let y = format!("metadata: {}{}\n", "[".repeat(200), "]".repeat(200));
    let (t, f) = fm(&y, Profile::Alisio);
    let e = f.error.unwrap();
    assert_eq!(e.message, "YAML nesting deeper than 32 levels");
    assert_eq!(e.at, t.find('[').unwrap() + 31);
    let mut y = String::new();
    for i in 0..200 {
        y.push_str(&format!("{}k{i}:\n", "  ".repeat(i)));
    }
    let (_, f) = fm(&y, Profile::Alisio);
    assert_eq!(
        f.error.unwrap().message,
        "YAML nesting deeper than 32 levels"
    );
}

#[test]
fn not_a_mapping_and_bad_keys_and_tags() {
    let (_, f) = fm("- a\n- b\n", Profile::Alisio);
    assert_eq!(
        f.error.as_ref().unwrap().message,
        "frontmatter must be a YAML mapping"
    );
    assert!(f.error.unwrap().whole);
    let (_, f) = fm("[a]: b\n", Profile::Alisio);
    assert_eq!(f.error.unwrap().message, "keys must be plain strings");
    let (_, f) = fm("name: !custom x\n", Profile::Alisio);
    assert_eq!(f.error.unwrap().message, "unsupported YAML tag !custom");
    let (_, f) = fm("name: !!str 12\n", Profile::Alisio);
    assert!(f.error.is_none());
    assert_eq!(f.get("name").unwrap().value.as_str(), Some("12"));
    let (_, f) = fm("# only a comment\n", Profile::Alisio);
    assert!(f.error.is_none() && f.entries.is_empty());
}

#[test]
fn syntax_error_is_located() {
    let (t, f) = fm("description: Use when: editing PDFs\n", Profile::Alisio);
    let e = f.error.unwrap();
    assert!(e.message.starts_with("invalid YAML: "), "{}", e.message);
    assert_eq!(t[..e.at].matches('\n').count(), 1);
}
