//! Every spec citation in the repository names a file of `docs/spec/` and a section heading
//! that exists in it (issue 12 §6).
//!
//! A citation is `<file>.md §N`, optionally written `spec/<file>.md §N` or
//! `docs/spec/<file>.md §N`, where `<file>` is one of the documents of `docs/spec/`; `N` is a
//! section number (`2`, `2.5`, `11.3`), matched against the numbered headings of that file
//! (`## 2. …`, `### 2.5 …`). Bare `§N` citations name no file and are rewritten to this form by
//! `scripts/spec-citations.py` (see its `--help`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The files whose text is read: the repository's source and prose, not build output.
const EXTENSIONS: &[&str] = &["rs", "md", "ts", "mjs", "lua", "toml", "py", "sh", "json"];
const SKIP_DIRS: &[&str] = &["target", "node_modules", ".git", "out", "dist"];
/// The rewriting script and its tests quote citations as examples (some deliberately dangling).
const SKIP_FILES: &[&str] = &["spec-citations.py", "test_spec_citations.py"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The section numbers of a spec document: `## 2. Title` gives `2`, `### 2.5 Title` gives
/// `2.5`.
pub fn sections(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| {
            let rest = l.trim_start_matches('#');
            if rest.len() == l.len() || !rest.starts_with(' ') {
                return None;
            }
            let n: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let n = n.trim_end_matches('.');
            (!n.is_empty()).then(|| n.to_string())
        })
        .collect()
}

/// The citations `(line, file stem, section)` of `text` that name one of `specs`.
pub fn citations(text: &str, specs: &BTreeSet<String>) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(p) = rest.find(".md §") {
            let before = &rest[..p];
            let stem: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let prefix = &before[..before.len() - stem.len()];
            let after = &rest[p + ".md §".len()..];
            let n: String = after
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let n = n.trim_end_matches('.').to_string();
            // `research/x.md` and other folders are not the spec; a bare name, `spec/` and
            // `docs/spec/` are.
            let in_spec = !prefix.ends_with('/') || prefix.ends_with("spec/");
            if specs.contains(&stem) && in_spec && !n.is_empty() {
                out.push((i + 1, stem, n));
            }
            rest = &rest[p + ".md §".len()..];
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if !SKIP_DIRS.contains(&name.as_str()) && !name.starts_with('.') {
                walk(&p, out);
            }
        } else if ft.is_file()
            && !SKIP_FILES.contains(&name.as_str())
            && p.extension()
                .is_some_and(|x| EXTENSIONS.contains(&x.to_string_lossy().as_ref()))
        {
            out.push(p);
        }
    }
}

#[test]
fn every_spec_citation_names_an_existing_file_and_section() {
    let root = repo_root();
    let spec_dir = root.join("docs/spec");
    let mut specs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in std::fs::read_dir(&spec_dir)
        .expect("docs/spec exists")
        .flatten()
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            let stem = p
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            specs.insert(stem, sections(&text));
        }
    }
    assert!(specs.len() >= 5, "docs/spec holds {specs:?}");
    let names: BTreeSet<String> = specs.keys().cloned().collect();
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    let mut checked = 0usize;
    let mut dangling = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for (line, stem, n) in citations(&text, &names) {
            checked += 1;
            if !specs[&stem].contains(&n) {
                let rel = f.strip_prefix(&root).unwrap_or(f);
                dangling.push(format!("{}:{line}: {stem}.md §{n}", rel.display()));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} citations found: is the walk right?"
    );
    assert!(
        dangling.is_empty(),
        "spec citations naming no section of docs/spec/:\n{}",
        dangling.join("\n")
    );
    // The repository never points at a spec outside itself.
    let outside: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f).is_ok_and(|t| t.contains(concat!("shared/", "spec")))
        })
        .map(|f| f.strip_prefix(&root).unwrap_or(f).display().to_string())
        .collect();
    assert_eq!(
        outside,
        Vec::<String>::new(),
        "files that point at the spec outside the repository"
    );
}

#[test]
fn citation_forms() {
    let specs: BTreeSet<String> = ["skills", "sessions"].map(String::from).into();
    let text = "a skills.md §2.5, spec/sessions.md §3.4. and docs/spec/skills.md §6\n\
                research/skills.md §1 lsp-eng.md §1.3 skills.md §x";
    assert_eq!(
        citations(text, &specs),
        [
            (1, "skills".into(), "2.5".into()),
            (1, "sessions".into(), "3.4".into()),
            (1, "skills".into(), "6".into()),
        ]
    );
    let s = sections("# T\n## 1. A\n### 1.2 B\n#### 1.2.3 C\n## Goal\n#x\n");
    assert_eq!(s, ["1", "1.2", "1.2.3"].map(String::from).into());
}
