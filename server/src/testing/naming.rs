//! Names (issue 25 §6, ARCHITECTURE.md "Names"), checked over the production code of every
//! crate of the workspace:
//! - no field of a struct or of an enum variant is named with an abbreviation of
//!   [`ABBREVIATIONS`] (one of the `_`-separated words of its name), nor with a single letter;
//!   the short forms that are words of the domain are listed in ARCHITECTURE.md and stay;
//! - no type visible outside its file (`pub`, `pub(crate)`, `pub(super)`) shares its name with
//!   another such type: each name means one thing. Private types (named only inside their file)
//!   and test types are not counted. The names still shared are listed in
//!   [`KNOWN_SHARED_TYPE_NAMES`]; an entry that no longer applies fails the test, so the list
//!   only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::source::{SourceFile, matching_brace, workspace_files};

/// Abbreviations a field is never named with (ARCHITECTURE.md "Names" gives the full word).
const ABBREVIATIONS: &[&str] = &[
    "acc", "avg", "bg", "brk", "buf", "cfg", "cnt", "conf", "conn", "ctx", "desc", "dest", "dup",
    "em", "fm", "fp", "gov", "idx", "msg", "msgs", "num", "obs", "op", "opts", "p2", "pcfg",
    "prev", "prov", "rel", "req", "res", "resp", "sess", "sid", "src", "tctx", "tmp", "tn", "toks",
    "tp", "ws",
];

/// Fields still named with an abbreviation, `(file, field)`, while a branch renames them (the
/// lead removes an entry when it merges). Empty: every field is named in full.
const KNOWN_ABBREVIATED_FIELDS: &[(&str, &str)] = &[];

/// Type names still defined by more than one file, with the files (sorted). The lead removes an
/// entry when the branch that renames one of them merges.
const KNOWN_SHARED_TYPE_NAMES: &[&str] = &[];

fn repo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The byte offset just after the keyword `word` at each of its occurrences in `code` (word
/// boundaries on both sides).
fn keyword_ends(code: &str, word: &str) -> Vec<usize> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find(word) {
        let at = from + p;
        let end = at + word.len();
        from = end;
        if (at == 0 || !ident(b[at - 1])) && b.get(end).is_some_and(|c| c.is_ascii_whitespace()) {
            out.push(end);
        }
    }
    out
}

/// Every field name of the structs and enums of `code` (comments and literals blanked), with
/// its line: the identifiers followed by a single `:` inside a `struct`'s or an `enum`'s braces.
fn fields(code: &str) -> Vec<(String, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for kw in ["struct", "enum"] {
        for end in keyword_ends(code, kw) {
            let Some(open) = code[end..].find(['{', ';', '(']).map(|o| end + o) else {
                continue;
            };
            if b[open] != b'{' {
                continue;
            }
            let close = matching_brace(code, open);
            let body = &code[open..close];
            let bb = body.as_bytes();
            for (i, _) in body.match_indices(':') {
                if bb.get(i + 1) == Some(&b':') || (i > 0 && bb[i - 1] == b':') {
                    continue;
                }
                let head = body[..i].trim_end();
                let name: String = head
                    .chars()
                    .rev()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                let before = head[..head.len() - name.len()].trim_end();
                if name.is_empty()
                    || name.starts_with(|c: char| c.is_ascii_digit())
                    || !(before.ends_with(['{', ',', ')', ']'])
                        || before.ends_with("pub")
                        || before.ends_with("r#"))
                {
                    continue;
                }
                let line = code[..open + i].matches('\n').count() + 1;
                out.push((name.trim_start_matches("r#").to_string(), line));
            }
        }
    }
    out.sort_by_key(|(_, l)| *l);
    out.dedup();
    out
}

/// The abbreviation a field name is made with, if any.
fn abbreviation(name: &str) -> Option<&'static str> {
    let name = name.trim_start_matches('_');
    if name.chars().count() == 1 {
        return Some("a single letter");
    }
    name.split('_')
        .find_map(|w| ABBREVIATIONS.iter().find(|a| **a == w).copied())
}

/// Every abbreviated field of `files` not in `known`, and every entry of `known` that no
/// longer applies.
fn abbreviated_fields(files: &[SourceFile], known: &[(&str, &str)]) -> Vec<String> {
    let mut report = Vec::new();
    let mut seen = BTreeSet::new();
    for f in files.iter().filter(|f| !f.test_file) {
        for (name, line) in fields(&f.production()) {
            if let Some(a) = abbreviation(&name) {
                seen.insert((f.path.clone(), name.clone()));
                if !known.contains(&(f.path.as_str(), name.as_str())) {
                    report.push(format!("{}:{line}: field `{name}` ({a})", f.path));
                }
            }
        }
    }
    for (file, name) in known {
        if !seen.contains(&((*file).to_string(), (*name).to_string())) {
            report.push(format!(
                "KNOWN_ABBREVIATED_FIELDS is stale: {file} `{name}` is renamed"
            ));
        }
    }
    report
}

#[test]
fn no_field_is_named_with_an_abbreviation() {
    let report = abbreviated_fields(&workspace_files(&repo_root()), KNOWN_ABBREVIATED_FIELDS);
    assert!(
        report.is_empty(),
        "abbreviated field names (ARCHITECTURE.md \"Names\"):\n{}",
        report.join("\n")
    );
}

#[test]
fn field_check_catches_an_abbreviation() {
    let f = |path: &str, text: &str| SourceFile {
        rel: path.into(),
        path: path.into(),
        krate: Vec::new(),
        code: super::source::blank(text),
        test_file: false,
        test_blocks: Vec::new(),
    };
    let files = [
        f(
            "a.rs",
            "pub struct Run {\n    pub(crate) opts: Options,\n    session_id: String, // cfg: x\n    map: HashMap<String, u8>,\n}\n",
        ),
        f(
            "b.rs",
            "enum E {\n    A { req_body: String, n: u8 },\n    B(u8),\n}\nstruct T(u8);\nfn f(ctx: &Ctx) {}\n",
        ),
    ];
    assert_eq!(
        abbreviated_fields(&files, &[("a.rs", "opts"), ("a.rs", "cfg")]),
        [
            "b.rs:2: field `req_body` (req)",
            "b.rs:2: field `n` (a single letter)",
            "KNOWN_ABBREVIATED_FIELDS is stale: a.rs `cfg` is renamed",
        ]
    );
    assert_eq!(abbreviated_fields(&files, &[]).len(), 3);
    assert_eq!(abbreviation("session_id"), None);
    assert_eq!(abbreviation("max_output_tokens"), None);
}

/// The types of `code` visible outside its file: `(name, line)`.
fn shared_types(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for kw in ["struct", "enum", "trait", "type"] {
        for end in keyword_ends(code, kw) {
            let head = code[..end - kw.len()].trim_end();
            let visible = head.ends_with("pub")
                || head.ends_with("pub(crate)")
                || head.ends_with("pub(super)");
            if !visible {
                continue;
            }
            let name: String = code[end..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                out.push((name, code[..end].matches('\n').count() + 1));
            }
        }
    }
    out
}

fn shared_type_names(files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let mut by_name: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| !f.test_file) {
        for (name, _) in shared_types(&f.production()) {
            by_name.entry(name).or_default().insert(f.path.clone());
        }
    }
    by_name.retain(|_, files| files.len() > 1);
    by_name
}

#[test]
fn each_type_name_means_one_thing() {
    let shared = shared_type_names(&workspace_files(&repo_root()));
    let mut report: Vec<String> = shared
        .iter()
        .filter(|(n, _)| !KNOWN_SHARED_TYPE_NAMES.contains(&n.as_str()))
        .map(|(n, files)| {
            format!(
                "{n}: {}",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    for k in KNOWN_SHARED_TYPE_NAMES {
        if !shared.contains_key(*k) {
            report.push(format!(
                "KNOWN_SHARED_TYPE_NAMES is stale: {k} means one thing now"
            ));
        }
    }
    assert!(
        report.is_empty(),
        "type names defined in more than one file:\n{}",
        report.join("\n")
    );
}

#[test]
fn type_name_check_finds_a_shared_name() {
    let f = |path: &str, text: &str| SourceFile {
        rel: path.into(),
        path: path.into(),
        krate: Vec::new(),
        code: super::source::blank(text),
        test_file: false,
        test_blocks: Vec::new(),
    };
    let files = [
        f(
            "a.rs",
            "pub struct Entry;\npub(crate) enum Kind { A }\nstruct Local;\n",
        ),
        f(
            "b.rs",
            "pub struct Entry {\n    x: u8,\n}\nstruct Local;\npub type Kind = u8;\n",
        ),
        f("c.rs", "pub trait Once {}\n"),
    ];
    let shared = shared_type_names(&files);
    assert_eq!(
        shared.keys().map(String::as_str).collect::<Vec<_>>(),
        ["Entry", "Kind"]
    );
    assert_eq!(
        shared["Entry"]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["a.rs", "b.rs"]
    );
}
