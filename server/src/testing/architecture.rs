//! The architecture of ARCHITECTURE.md, checked on every test run over every crate of the
//! workspace: the crates' dependencies (which crate may depend on which), the layering (which
//! module may name which: the crates make most of it a build error, this also covers `lsp` and
//! `cli` inside one crate and the external crates a core module may not name), no import cycle
//! between files (whatever the path form), and the size limits (no production function over 150
//! lines, no production file over 1,000 lines, tests excluded).
//!
//! The known exceptions that engineers are removing now are listed below, each with who removes
//! it. Every list is also checked not to be stale: an entry that no longer applies fails the
//! test, so the lists only shrink and end empty.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::source::{SourceFile, internal_paths, matching_brace, names_crate, workspace_files};

/// The core modules: plain Rust, below `session`, `lsp` and `cli`.
const CORE: &[&str] = &[
    "text",
    "diagnostic",
    "config",
    "workspace",
    "families",
    "instructions",
    "skills",
    "governor",
    "suppress",
    "rules",
    "fix",
];
/// The layers above the core (ARCHITECTURE.md): every top-level module is in one of the lists,
/// so a new module must be placed before it can be built.
const EDGES: &[&str] = &["sandbox", "session", "lsp", "cli", "testing", "bin"];
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

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files() -> Vec<SourceFile> {
    workspace_files(&repo_root())
}

/// Which top-level modules a module may not name (ARCHITECTURE.md, "Bird's-eye view").
fn forbidden_modules(top: &str) -> &'static [&'static str] {
    match top {
        t if CORE.contains(&t) => CORE_FORBIDS_MODULES,
        "sandbox" => &[
            "lsp",
            "cli",
            "session",
            "families",
            "instructions",
            "skills",
            "governor",
        ],
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
        for (path, line) in internal_paths(code, &f.module(), &f.krate) {
            let Some(first) = path.first() else { continue };
            if forbidden_modules(&top).contains(&first.as_str()) {
                out.push(format!("{}:{line}: {top} uses {}", f.path, path.join("::")));
            }
        }
        if CORE.contains(&top.as_str()) || top == "sandbox" {
            for name in CORE_FORBIDS_CRATES {
                if let Some(line) = names_crate(code, name) {
                    out.push(format!("{}:{line}: core module {top} uses {name}", f.path));
                }
            }
        }
    }
    out
}

#[test]
fn layering_core_session_lsp_cli() {
    let files = files();
    assert!(files.len() > 50, "the workspace's sources were not found");
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
        path: format!("x/{rel}"),
        krate: Vec::new(),
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
            "x/skills/validate.rs:1: skills uses lsp::state::State",
            "x/text.rs:1: text uses session::util::now_ms",
            "x/session/x.rs:1: session uses cli::output",
            "x/lsp/x.rs:1: lsp uses cli::Ctx",
            "x/config.rs:1: core module config uses clap",
            "x/governor/x.rs:1: core module governor uses tokio",
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

/// The file a module path lives in: the file an item is re-exported from (`pub use child::X`
/// in a parent names the child's file), else the longest prefix of `path` that is a file.
fn file_of<'a>(path: &[String], index: &'a Index) -> Option<&'a str> {
    (1..=path.len())
        .rev()
        .find_map(|n| {
            index
                .reexports
                .get(&path[..n])
                .or_else(|| index.by_module.get(&path[..n]))
        })
        .map(String::as_str)
}

/// Where module paths live: each production file by its module, and the items a file
/// re-exports from its own descendants (`pub use request::Transcript;` in `session::runner`
/// makes `session::runner::Transcript` live in `session/runner/request.rs`).
struct Index {
    by_module: BTreeMap<Vec<String>, String>,
    reexports: BTreeMap<Vec<String>, String>,
}

/// Whether `g` is `f` or below it: a file of the module `f` declares, directly or not (the
/// family of a `mod.rs`, of a file with its own folder, and of a crate root).
fn in_family(f: &SourceFile, g: &str) -> bool {
    let m = f.module();
    m.is_empty() || g.starts_with(&format!("{}/", m.join("/")))
}

/// The lines `(first, last)` of each `pub use …;` statement (any visibility) of `code`.
fn pub_use_lines(code: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("pub") {
        let at = from + p;
        from = at + 3;
        let rest = &code[at + 3..];
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.split_once(')').map_or(r, |(_, r)| r),
            None => rest,
        };
        if !rest.starts_with(" use ") {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |e| at + e);
        let line = |i: usize| code[..i].matches('\n').count() + 1;
        out.push((line(at), line(end)));
    }
    out
}

fn index(files: &[SourceFile]) -> Index {
    let by_module: BTreeMap<Vec<String>, String> = files
        .iter()
        .filter(|f| !f.test_file)
        .map(|f| (f.module(), f.rel.clone()))
        .collect();
    let plain = Index {
        by_module,
        reexports: BTreeMap::new(),
    };
    let mut reexports = BTreeMap::new();
    for f in files.iter().filter(|f| !f.test_file) {
        let code = f.production();
        let uses = pub_use_lines(&code);
        for (path, line) in internal_paths(&code, &f.module(), &f.krate) {
            if !uses.iter().any(|&(a, b)| (a..=b).contains(&line)) {
                continue;
            }
            let (Some(to), Some(item)) = (file_of(&path, &plain), path.last()) else {
                continue;
            };
            if to != f.rel && in_family(f, to) {
                let mut alias = f.module();
                alias.push(item.clone());
                reexports.insert(alias, to.to_string());
            }
        }
    }
    Index { reexports, ..plain }
}

/// The file-level import graph of the production code: `a → b` when `a` names a path that
/// lives in `b`, in any path form ([`internal_paths`]), re-exports followed to the file they
/// come from. Edges between a file and its own family ([`in_family`]: a parent declaring and
/// re-exporting its children, a child using its parent's items) are not edges between rooms
/// and are left out.
fn import_graph(files: &[SourceFile]) -> BTreeMap<String, BTreeSet<String>> {
    let index = index(files);
    let by_rel: BTreeMap<&str, &SourceFile> = files.iter().map(|f| (f.rel.as_str(), f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files.iter().filter(|f| !f.test_file) {
        let code = f.production();
        let targets = graph.entry(f.rel.clone()).or_default();
        for (path, _) in internal_paths(&code, &f.module(), &f.krate) {
            let Some(to) = file_of(&path, &index) else {
                continue;
            };
            let family = in_family(f, to) || by_rel.get(to).is_some_and(|g| in_family(g, &f.rel));
            if to != f.rel && !path.is_empty() && !family {
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

#[test]
fn no_import_cycle_between_files() {
    let files = files();
    let found = cycles(&import_graph(&files));
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
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.iter().map(|s| (*s).to_string()).collect()))
    .collect();
    let c: Vec<Vec<String>> = cycles(&g).into_iter().collect();
    assert_eq!(c, [vec!["a.rs", "b.rs", "c.rs"]]);
}

/// The cycle of issue 25 §5, in miniature: `read.rs` uses an item `runner/mod.rs` re-exports
/// from its child `request.rs` (`use request::X` with no `self::`), and `request.rs` uses
/// `read.rs`. A parent and its own children alone (`x/mod.rs` ⇄ `x/y.rs`) are no cycle.
#[test]
fn cycle_check_follows_reexports_and_skips_families() {
    let lex = |rel: &str, text: &str| SourceFile {
        rel: rel.into(),
        path: rel.into(),
        krate: vec!["session".into()],
        code: super::source::blank(text),
        test_file: false,
        test_blocks: Vec::new(),
    };
    let files = [
        lex(
            "session/mod.rs",
            "pub mod read;\npub mod runner;\npub mod x;\n",
        ),
        lex(
            "session/read.rs",
            "fn f() { crate::runner::request_parts(); }\n",
        ),
        lex(
            "session/runner/mod.rs",
            "mod request;\npub(crate) use request::request_parts;\npub struct Run;\n",
        ),
        lex(
            "session/runner/request.rs",
            "use crate::read::list;\nuse super::Run;\n",
        ),
        lex("session/x/mod.rs", "mod y;\nuse y::Y;\npub struct X;\n"),
        lex("session/x/y.rs", "use super::X;\npub struct Y;\n"),
    ];
    let c: Vec<Vec<String>> = cycles(&import_graph(&files)).into_iter().collect();
    assert_eq!(c, [vec!["session/read.rs", "session/runner/request.rs"]]);
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

/// Which workspace crates each crate may depend on (ARCHITECTURE.md, "Crates"): only downward.
const CRATE_DEPS: &[(&str, &[&str])] = &[
    ("crates/alisio-base", &[]),
    ("crates/alisio-rules", &["alisio-base"]),
    ("crates/alisio-governor", &["alisio-base"]),
    ("crates/alisio-sandbox", &[]),
    (
        "crates/alisio-session",
        &[
            "alisio-base",
            "alisio-rules",
            "alisio-governor",
            "alisio-sandbox",
        ],
    ),
    (
        "server",
        &[
            "alisio-base",
            "alisio-rules",
            "alisio-governor",
            "alisio-sandbox",
            "alisio-session",
        ],
    ),
];
/// The protocol, runtime and terminal crates: only the top crate (`server`) depends on them.
const TOP_ONLY: &[&str] = &["tower-lsp-server", "tokio", "clap", "clap_complete"];

/// The dependency names of a manifest's `[dependencies]` and `[target.….dependencies]`
/// sections (not dev-dependencies): the key of each `name = …` or `name.workspace = …` line.
fn manifest_dependencies(toml: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in toml.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_deps = l == "[dependencies]"
                || (l.starts_with("[target.") && l.ends_with(".dependencies]"));
            continue;
        }
        if !in_deps || l.is_empty() || l.starts_with('#') {
            continue;
        }
        let key: String = l
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        if !key.is_empty() {
            out.push(key);
        }
    }
    out
}

fn crate_dependency_violations(manifests: &[(&str, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (dir, toml) in manifests {
        let allowed = CRATE_DEPS
            .iter()
            .find(|(d, _)| d == dir)
            .map_or(&[][..], |(_, a)| *a);
        for dep in manifest_dependencies(toml) {
            let internal = dep.starts_with("alisio-");
            if (internal && !allowed.contains(&dep.as_str()))
                || (*dir != "server" && TOP_ONLY.contains(&dep.as_str()))
            {
                out.push(format!("{dir}/Cargo.toml: depends on {dep}"));
            }
        }
    }
    out
}

#[test]
fn crates_depend_only_downward() {
    let root = repo_root();
    let members: Vec<(&str, String)> = CRATE_DEPS
        .iter()
        .map(|(dir, _)| {
            let toml = std::fs::read_to_string(root.join(dir).join("Cargo.toml"))
                .unwrap_or_else(|e| panic!("{dir}/Cargo.toml: {e}"));
            (*dir, toml)
        })
        .collect();
    let v = crate_dependency_violations(&members);
    assert!(
        v.is_empty(),
        "crate dependencies ARCHITECTURE.md forbids:\n{}",
        v.join("\n")
    );
    // Every crate of the workspace is placed, and the lexer reads the same crates.
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    for (dir, _) in CRATE_DEPS {
        assert!(
            workspace.contains(&format!("\"{dir}\"")),
            "{dir} is not a member of the workspace"
        );
    }
    let lexed: Vec<&str> = super::source::CRATES
        .iter()
        .map(|(src, _, _)| src.trim_end_matches("/src"))
        .collect();
    let placed: Vec<&str> = CRATE_DEPS.iter().map(|(d, _)| *d).collect();
    assert_eq!(lexed, placed);
}

#[test]
fn crate_check_catches_an_upward_dependency() {
    let bad = [
        (
            "crates/alisio-governor",
            "[dependencies]\nalisio-base.workspace = true\nalisio-session.workspace = true\n\
             [dev-dependencies]\nalisio-rules.workspace = true\n"
                .to_string(),
        ),
        (
            "crates/alisio-rules",
            "[target.'cfg(unix)'.dependencies]\ntokio = \"1\"\n".to_string(),
        ),
        (
            "server",
            "[dependencies]\ntokio.workspace = true\n".to_string(),
        ),
    ];
    assert_eq!(
        crate_dependency_violations(&bad),
        [
            "crates/alisio-governor/Cargo.toml: depends on alisio-session",
            "crates/alisio-rules/Cargo.toml: depends on tokio",
        ]
    );
}

/// sessions.md, "One place for SQL": no SQL text in any crate outside the session store
/// (`crates/alisio-session/src/store/`), and only the session crate depends on rusqlite.
#[test]
fn sql_lives_only_in_the_store() {
    let root = repo_root();
    let words = [
        "SELECT ",
        "INSERT INTO",
        "UPDATE ",
        "DELETE FROM",
        "CREATE TABLE",
    ];
    let files = files();
    let mut found = Vec::new();
    // The store, and this test's own list of words.
    let exempt = |p: &str| {
        p.starts_with("crates/alisio-session/src/store/")
            || p == "server/src/testing/architecture.rs"
    };
    for f in files.iter().filter(|f| !exempt(&f.path)) {
        let text = std::fs::read_to_string(root.join(&f.path)).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            if words.iter().any(|w| line.contains(w)) {
                found.push(format!("{}:{}", f.path, i + 1));
            }
        }
    }
    assert!(found.is_empty(), "SQL outside the store: {found:?}");
    for (dir, _) in CRATE_DEPS {
        let toml = std::fs::read_to_string(root.join(dir).join("Cargo.toml")).unwrap_or_default();
        let uses = manifest_dependencies(&toml).iter().any(|d| d == "rusqlite");
        assert_eq!(uses, *dir == "crates/alisio-session", "{dir} and rusqlite");
    }
}
