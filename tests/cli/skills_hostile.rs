//! Hostile input never panics or hangs: each case ends with a located diagnostic.
#![allow(clippy::print_stderr)] // skip reasons are printed on purpose

use crate::common::{Ws, write};
use crate::skills_discovery::{diags, entries, field, valid};

fn validate_one(ws: &Ws, dir: &str, content: &[u8]) -> Vec<serde_json::Value> {
    write(&ws.root.join(dir).join("SKILL.md"), content);
    let r = ws.run(&["skills", "validate", dir, "--json"]);
    assert!(r.code == 0 || r.code == 1, "{r:?}");
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    diags(&r)
}

#[test]
fn ten_megabytes_of_frontmatter_is_too_large_to_validate() {
    let ws = Ws::new();
    let mut t = String::from("---\nname: x\ndescription: d\n");
    while t.len() < 10_000_000 {
        t.push_str("k: vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n");
    }
    t.push_str("---\n");
    let ds = validate_one(&ws, "x", t.as_bytes());
    assert_eq!(ds.len(), 1);
    assert_eq!(
        ds[0]["message"],
        format!("SKILL.md is {} bytes; too large to validate", t.len())
    );
}

#[test]
fn one_megabyte_of_frontmatter_is_validated_in_one_pass() {
    let ws = Ws::new();
    let mut t = String::from("---\nname: x\ndescription: d\nmetadata:\n");
    let mut i = 0;
    while t.len() < 1_000_000 {
        t.push_str(&format!("  k{i}: v\n"));
        i += 1;
    }
    t.push_str("---\n");
    let ds = validate_one(&ws, "x", t.as_bytes());
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0]["code"], "skill-file-too-large");
    assert_eq!(
        ds[0]["message"],
        format!(
            "SKILL.md is {} bytes; the limit is 64000 bytes, so it is not loaded",
            t.len()
        )
    );
}

#[test]
fn binary_content_gets_a_missing_frontmatter_diagnostic() {
    let ws = Ws::new();
    let b: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let ds = validate_one(&ws, "x", &b);
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["code"], "skill-frontmatter-missing");
}

#[test]
fn invalid_utf8_in_the_frontmatter_is_located() {
    let ws = Ws::new();
    let ds = validate_one(&ws, "x", b"---\nname: x\ndescription: caf\xe9\n---\n");
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["message"], "frontmatter is not valid UTF-8");
    assert_eq!(
        ds[0]["range"]["start"],
        serde_json::json!({"line": 2, "character": 16})
    );
}

#[test]
fn nul_bytes_and_control_characters_in_yaml_are_syntax_errors() {
    let ws = Ws::new();
    let ds = validate_one(&ws, "x", b"---\nname: x\ndescription: a\x00b\n---\n");
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0]["code"], "skill-yaml-syntax");
    assert_eq!(
        ds[0]["message"],
        "invalid YAML: character U+0000 is not allowed"
    );
    assert_eq!(
        ds[0]["range"]["start"],
        serde_json::json!({"line": 2, "character": 14})
    );
}

#[test]
fn a_tree_of_2001_directories_stops_with_one_diagnostic_and_keeps_earlier_skills() {
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    valid(&root.join("a-first"));
    for i in 0..2001 {
        std::fs::create_dir_all(root.join(format!("z{i:04}"))).unwrap();
    }
    let r = ws.run(&["skills", "list", "--json"]);
    assert_eq!(field(&entries(&r), "name"), ["a-first"]);
    assert!(
        r.stderr
            .contains("Skill scan limit of 2000 directories reached; stopped at"),
        "{}",
        r.stderr
    );
}

#[cfg(unix)]
#[test]
fn unreadable_directories_are_skipped_with_a_note() {
    use std::os::unix::fs::PermissionsExt as _;
    let ws = Ws::new();
    let root = ws.home.join(".agents/skills");
    valid(&root.join("ok"));
    valid(&root.join("locked/inner"));
    std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read_dir(root.join("locked")).is_ok() {
        // Running as root: permissions are not enforced, nothing to observe.
        std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        eprintln!("skipped: permission bits are not enforced for this user");
        return;
    }
    let r = ws.run(&["skills", "list", "--json"]);
    std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(field(&entries(&r), "name"), ["ok"]);
    assert!(
        r.stderr.contains(&format!(
            "note: cannot read directory {}",
            root.join("locked").display()
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn deep_directory_trees_are_bounded() {
    let ws = Ws::new();
    let mut p = ws.root.join(".agents/skills");
    for i in 0..60 {
        p = p.join(format!("d{i}"));
    }
    valid(&p);
    let r = ws.run(&["check", "--json", "--trust-project"]);
    assert!(r.code == 0, "{r:?}");
}
