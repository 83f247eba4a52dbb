//! The architecture of ARCHITECTURE.md, checked on every test run: the layering (which module
//! may name which), no import cycle between files, and the size limits (no production function
//! over 150 lines, no production file over 1,000 lines, tests excluded).
//!
//! The known exceptions that engineers are removing now are listed below, each with who removes
//! it. Every list is also checked not to be stale: an entry that no longer applies fails the
//! test, so the lists only shrink and end empty.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::source::{SourceFile, crate_files, internal_paths, matching_brace, names_crate};

/// The core modules: plain Rust, below `session`, `lsp` and `cli`.
const CORE: &[&str] = &[
    "text",
    "diagnostic",
    "config",
    "workspace",
    "instructions",
    "skills",
    "governor",
    "suppress",
];
/// The layers above the core (ARCHITECTURE.md): every top-level module is in one of the lists,
/// so a new module must be placed before it can be built.
const EDGES: &[&str] = &["session", "lsp", "cli", "testing", "bin"];
/// What a core module never names: the layers above it and the protocol/runtime/terminal crates.
const CORE_FORBIDS_MODULES: &[&str] = &["lsp", "cli", "session"];
const CORE_FORBIDS_CRATES: &[&str] = &["tower_lsp_server", "tokio", "clap"];

pub const MAX_FN_LINES: usize = 150;
pub const MAX_FILE_LINES: usize = 1000;

/// Import cycles between files that are being removed now (issue 12 §1). Each entry is the
/// cycle's files, sorted; the lead removes an entry when the branch that breaks it merges.
const KNOWN_CYCLES: &[&[&str]] = &[];

/// Production files over [`MAX_FILE_LINES`] that are being split now.
const KNOWN_LARGE_FILES: &[&str] = &[];

/// Production functions over [`MAX_FN_LINES`] that are being split now: `(file, fn name)`.
const KNOWN_LONG_FNS: &[(&str, &str)] = &[];

fn files() -> Vec<SourceFile> {
    crate_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// Which top-level modules a module may not name (ARCHITECTURE.md, "Bird's-eye view").
fn forbidden_modules(top: &str) -> &'static [&'static str] {
    match top {
        t if CORE.contains(&t) => CORE_FORBIDS_MODULES,
        "session" => &["lsp", "cli"],
        "lsp" => &["cli"],
        _ => &[],
    }
}

/// Every forbidden edge in `files`: `file:line: what`.
fn layering_violations(files: &[SourceFile]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        let top = f.top();
        let code = &f.code;
        for (path, line) in internal_paths(code, &f.module(), f.rel.ends_with("mod.rs")) {
            let Some(first) = path.first() else { continue };
            if forbidden_modules(&top).contains(&first.as_str()) {
                out.push(format!(
                    "{}:{line}: {top} uses crate::{}",
                    f.rel,
                    path.join("::")
                ));
            }
        }
        if CORE.contains(&top.as_str()) {
            for name in CORE_FORBIDS_CRATES {
                if let Some(line) = names_crate(code, name) {
                    out.push(format!("{}:{line}: core module {top} uses {name}", f.rel));
                }
            }
        }
    }
    out
}

#[test]
fn layering_core_session_lsp_cli() {
    let files = files();
    assert!(files.len() > 50, "the crate's sources were not found");
    let unplaced: BTreeSet<String> = files
        .iter()
        .map(|f| {
            f.rel
                .split(['/', '.'])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .filter(|t| !["lib", "main"].contains(&t.as_str()))
        .filter(|t| !CORE.contains(&t.as_str()) && !EDGES.contains(&t.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "top-level modules in no layer of ARCHITECTURE.md: {unplaced:?}"
    );
    let v = layering_violations(&files);
    assert!(
        v.is_empty(),
        "edges ARCHITECTURE.md forbids (a module uses only those below it):\n{}",
        v.join("\n")
    );
}

#[test]
fn layering_check_catches_a_forbidden_use() {
    // The check itself: a core file naming the server, a session file naming the CLI, an `lsp`
    // file naming the CLI, and a core file deriving a clap trait all fail.
    let lex = |rel: &str, text: &str| SourceFile {
        rel: rel.into(),
        code: super::source::blank(text),
        test_file: false,
        test_blocks: Vec::new(),
    };
    let bad = [
        lex("skills/validate.rs", "use crate::lsp::state::State;\n"),
        lex("text.rs", "fn f() { crate::session::util::now_ms(); }\n"),
        lex("session/x.rs", "use crate::{governor, cli::output};\n"),
        lex("lsp/x.rs", "use super::super::cli::Ctx;\n"),
        lex("config.rs", "#[derive(clap::ValueEnum)]\nenum Host {}\n"),
        lex(
            "governor/x.rs",
            "async fn f() { tokio::task::yield_now().await }\n",
        ),
    ];
    let v = layering_violations(&bad);
    assert_eq!(
        v,
        [
            "skills/validate.rs:1: skills uses crate::lsp::state::State",
            "text.rs:1: text uses crate::session::util::now_ms",
            "session/x.rs:1: session uses crate::cli::output",
            "lsp/x.rs:1: lsp uses crate::cli::Ctx",
            "config.rs:1: core module config uses clap",
            "governor/x.rs:1: core module governor uses tokio",
        ]
    );
    let fine = [
        lex(
            "cli/x.rs",
            "use crate::{lsp, session, skills};\nuse clap::Parser;\n",
        ),
        lex(
            "skills/x.rs",
            "// crate::lsp\nconst S: &str = \"crate::cli tokio::\";\n",
        ),
    ];
    assert_eq!(layering_violations(&fine), Vec::<String>::new());
}

/// The file a module path lives in: the longest prefix of `path` that is a file of the crate.
fn file_of<'a>(path: &[String], by_module: &'a BTreeMap<Vec<String>, String>) -> Option<&'a str> {
    (1..=path.len())
        .rev()
        .find_map(|n| by_module.get(&path[..n]))
        .map(String::as_str)
}

/// The file-level import graph of the production code: `a → b` when `a` names a path that
/// lives in `b` through `crate::`, `super::` or `self::`.
fn import_graph(files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let by_module: BTreeMap<Vec<String>, String> = files
        .iter()
        .filter(|f| !f.test_file)
        .map(|f| (f.module(), f.rel.clone()))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| !f.test_file) {
        let code = f.production();
        let targets = graph.entry(f.rel.clone()).or_default();
        for (path, _) in internal_paths(&code, &f.module(), f.rel.ends_with("mod.rs")) {
            if let Some(to) = file_of(&path, &by_module)
                && to != f.rel
                && !path.is_empty()
            {
                targets.insert(to.to_string());
            }
        }
    }
    graph
}

/// The strongly connected components of more than one file (Tarjan), each sorted.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    struct T<'g> {
        g: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on: BTreeSet<&'g str>,
        out: BTreeSet<Vec<String>>,
    }
    fn visit<'g>(t: &mut T<'g>, v: &'g str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.insert(comp);
            }
        }
    }
    let mut t = T {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: BTreeSet::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

/// Files joined by an import cycle through a parent `mod.rs` and its own children only: the
/// parent re-exports, the child uses its parent's items. Not a cycle between rooms.
fn through_parent_only(comp: &[String]) -> bool {
    comp.len() == 2 && {
        let (a, b) = (&comp[0], &comp[1]);
        let dir = |p: &str| {
            p.rsplit_once('/')
                .map_or(String::new(), |(d, _)| d.to_string())
        };
        let parent_of = |m: &str, c: &str| {
            m.ends_with("mod.rs")
                && (dir(c) == dir(m) || dir(c).starts_with(&format!("{}/", dir(m))))
        };
        parent_of(a, b) || parent_of(b, a)
    }
}

#[test]
fn no_import_cycle_between_files() {
    let files = files();
    let found: BTreeSet<Vec<String>> = cycles(&import_graph(&files))
        .into_iter()
        .filter(|c| !through_parent_only(c))
        .collect();
    let known: BTreeSet<Vec<String>> = KNOWN_CYCLES
        .iter()
        .map(|c| c.iter().map(|s| (*s).to_string()).collect())
        .collect();
    let new: Vec<&Vec<String>> = found.difference(&known).collect();
    let stale: Vec<&Vec<String>> = known.difference(&found).collect();
    assert!(new.is_empty(), "import cycles between files: {new:?}");
    assert!(
        stale.is_empty(),
        "KNOWN_CYCLES lists cycles that no longer exist (remove them): {stale:?}"
    );
}

#[test]
fn cycle_check_finds_a_cycle() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a.rs", &["b.rs"][..]),
        ("b.rs", &["c.rs"]),
        ("c.rs", &["a.rs", "d.rs"]),
        ("d.rs", &[]),
        ("x/mod.rs", &["x/y.rs"]),
        ("x/y.rs", &["x/mod.rs"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.iter().map(|s| (*s).to_string()).collect()))
    .collect();
    let c: Vec<Vec<String>> = cycles(&g).into_iter().collect();
    assert_eq!(
        c,
        [vec!["a.rs", "b.rs", "c.rs"], vec!["x/mod.rs", "x/y.rs"]]
    );
    assert!(!through_parent_only(&c[0]) && through_parent_only(&c[1]));
}

/// Every production `fn` of `code` with its name and its length in lines (signature to closing
/// brace). Test blocks must already be blanked.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut from = 0;
    while let Some(p) = code[from..].find("fn ") {
        let at = from + p;
        from = at + 3;
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let name: String = code[at + 3..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body starts at the first `{` before any `;` (a declaration without a body).
        let Some(open) = code[at..].find(['{', ';']).map(|o| at + o) else {
            continue;
        };
        if b[open] == b';' {
            continue;
        }
        let end = matching_brace(code, open);
        let line = code[..at].matches('\n').count() + 1;
        let lines = code[at..end].matches('\n').count() + 1;
        out.push((name, line, lines));
    }
    out
}

#[test]
fn size_limits_for_production_code() {
    let files = files();
    let mut large = BTreeSet::new();
    let mut long = BTreeSet::new();
    let mut report = Vec::new();
    for f in files.iter().filter(|f| !f.test_file) {
        let n = f.production_lines();
        if n > MAX_FILE_LINES {
            large.insert(f.rel.clone());
            if !KNOWN_LARGE_FILES.contains(&f.rel.as_str()) {
                report.push(format!(
                    "{}: {n} production lines (limit {MAX_FILE_LINES})",
                    f.rel
                ));
            }
        }
        for (name, line, lines) in functions(&f.production()) {
            if lines > MAX_FN_LINES {
                long.insert((f.rel.clone(), name.clone()));
                if !KNOWN_LONG_FNS.contains(&(f.rel.as_str(), name.as_str())) {
                    report.push(format!(
                        "{}:{line}: fn {name} is {lines} lines (limit {MAX_FN_LINES})",
                        f.rel
                    ));
                }
            }
        }
    }
    for k in KNOWN_LARGE_FILES {
        if !large.contains(*k) {
            report.push(format!(
                "KNOWN_LARGE_FILES is stale: {k} is within the limit now"
            ));
        }
    }
    for (file, name) in KNOWN_LONG_FNS {
        if !long.contains(&((*file).to_string(), (*name).to_string())) {
            report.push(format!(
                "KNOWN_LONG_FNS is stale: {file} fn {name} is within the limit now"
            ));
        }
    }
    assert!(report.is_empty(), "size limits:\n{}", report.join("\n"));
}

#[test]
fn size_check_measures_functions() {
    let code =
        "fn a() {\n    let s = ' ';\n}\nfn decl();\nimpl X {\n    pub fn b(&self) -> u8 { 1 }\n}\n";
    assert_eq!(
        functions(&super::source::blank(code)),
        [("a".to_string(), 1, 3), ("b".to_string(), 6, 1)]
    );
}
