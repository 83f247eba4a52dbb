//! The workspace's own source as the architecture tests read it: every `.rs` file below each
//! crate's `src/`, with comments and the contents of string and char literals blanked (line
//! breaks kept, so line numbers stay true), which files and blocks are test code, and the
//! module paths each file names in any form (`crate::`, `super::`, `self::`, another workspace
//! crate, or a child module the file declares).
//!
//! The crates share one namespace of modules, the one ARCHITECTURE.md draws (what the crate
//! split of issue 25 keeps): `alisio-base` and `alisio-rules` hold top-level modules (`text`,
//! `skills`, …), `alisio-governor` is `governor`, `alisio-sandbox` is `sandbox`,
//! `alisio-session` is `session`, and `server/` holds `lsp`, `cli` and the binary. A file's
//! `rel` is its path in that namespace (`session/runner/mod.rs` for
//! `crates/alisio-session/src/runner/mod.rs`), `path` its path in the repository.
//!
//! A small lexer, not a parser: enough for the conventions this workspace keeps (rustfmt
//! layout, tests in `#[cfg(test)] mod …` blocks or files). Its own unit tests pin each case it
//! handles.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace's crates: source folder, the name other crates use for it, and the module of
/// the shared namespace its root is (`""`: its top-level modules are top-level there).
pub const CRATES: &[(&str, &str, &str)] = &[
    ("crates/alisio-base/src", "alisio_base", ""),
    ("crates/alisio-rules/src", "alisio_rules", ""),
    ("crates/alisio-governor/src", "alisio_governor", "governor"),
    ("crates/alisio-sandbox/src", "alisio_sandbox", "sandbox"),
    ("crates/alisio-session/src", "alisio_session", "session"),
    ("server/src", "alisio_ls", ""),
];

/// One source file of the workspace.
pub struct SourceFile {
    /// The path in the shared module namespace, with `/` separators (`skills/validate.rs`,
    /// `governor/mod.rs` for the governor crate's `lib.rs`).
    pub rel: String,
    /// The path in the repository (`crates/alisio-rules/src/skills/validate.rs`), for messages.
    pub path: String,
    /// The module `crate::` names in this file (`["governor"]` in the governor crate).
    pub krate: Vec<String>,
    /// The text with comments and literal contents blanked.
    pub code: String,
    /// Whether the whole file is test code (a `#[cfg(test)] mod x;` or below one, or named
    /// `tests.rs`/`*_tests.rs`).
    pub test_file: bool,
    /// Byte ranges of inline `#[cfg(test)]` items (`mod tests { … }`) in `code`.
    pub test_blocks: Vec<(usize, usize)>,
}

impl SourceFile {
    /// The module path of the file (`skills::validate`; `skills` for `skills/mod.rs`).
    #[must_use]
    pub fn module(&self) -> Vec<String> {
        module_of(&self.rel)
    }

    /// The top-level module (`skills`), or `""` for `lib.rs`/`main.rs`.
    #[must_use]
    pub fn top(&self) -> String {
        self.module().first().cloned().unwrap_or_default()
    }

    /// The production code: test blocks blanked (line breaks kept); empty for a test file.
    #[must_use]
    pub fn production(&self) -> String {
        if self.test_file {
            return String::new();
        }
        let mut b = self.code.clone().into_bytes();
        for &(s, e) in &self.test_blocks {
            for c in &mut b[s..e] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
        }
        String::from_utf8(b).unwrap_or_default()
    }

    /// Lines of production code (test blocks and test files excluded; blank lines count).
    #[must_use]
    pub fn production_lines(&self) -> usize {
        if self.test_file {
            return 0;
        }
        let test: usize = self
            .test_blocks
            .iter()
            .map(|&(s, e)| self.code[s..e].matches('\n').count() + 1)
            .sum();
        self.code.lines().count().saturating_sub(test)
    }
}

/// `skills/validate.rs` → `["skills", "validate"]`; `skills/mod.rs` → `["skills"]`.
#[must_use]
pub fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The module of the shared namespace that a workspace crate's name stands for.
fn crate_module(name: &str) -> Option<Vec<String>> {
    CRATES
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(_, _, m)| module_of(m))
}

/// Every `.rs` file of every crate of [`CRATES`] below the repository `root` (sorted), lexed.
#[must_use]
pub fn workspace_files(root: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    for (dir, _, module) in CRATES {
        let src = root.join(dir);
        let mut paths = Vec::new();
        collect(&src, &mut paths);
        paths.sort();
        files.extend(paths.iter().filter_map(|p| {
            let text = std::fs::read_to_string(p).ok()?;
            let in_crate = p
                .strip_prefix(&src)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            let rel = match (*module, in_crate.as_str()) {
                ("", _) => in_crate.clone(),
                (m, "lib.rs") => format!("{m}/mod.rs"),
                (m, r) => format!("{m}/{r}"),
            };
            let code = blank(&text);
            let test_blocks = test_blocks(&code);
            let name = rel.rsplit('/').next().unwrap_or("");
            let test_file = name == "tests.rs" || name.ends_with("_tests.rs");
            Some(SourceFile {
                rel,
                path: format!("{dir}/{in_crate}"),
                krate: module_of(module),
                code,
                test_file,
                test_blocks,
            })
        }));
    }
    // Files declared by `#[cfg(test)] mod x;` are test code, and so is everything below them.
    let mut test_mods: BTreeSet<Vec<String>> = BTreeSet::new();
    for f in &files {
        for name in cfg_test_mod_decls(&f.code) {
            let mut m = f.module();
            m.push(name);
            test_mods.insert(m);
        }
    }
    for f in &mut files {
        let m = f.module();
        if test_mods.iter().any(|t| m.starts_with(t)) {
            f.test_file = true;
        }
    }
    files
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Blanks comments and the contents of string, byte-string, raw-string and char literals
/// (each blanked byte becomes a space; line breaks are kept). Quotes stay, so `"…"` remains a
/// token.
#[must_use]
pub fn blank(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, s: usize, e: usize| {
        for c in &mut out[s..e.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let c = b[i];
        let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let e = text[i..].find('\n').map_or(b.len(), |n| i + n);
            wipe(&mut out, i, e);
            i = e;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            wipe(&mut out, i, j);
            i = j;
        } else if (c == b'r' || (c == b'b' && b.get(i + 1) == Some(&b'r'))) && !prev_ident && {
            let k = i + if c == b'b' { 2 } else { 1 };
            let hashes = b[k..].iter().take_while(|x| **x == b'#').count();
            b.get(k + hashes) == Some(&b'"')
        } {
            let k = i + if c == b'b' { 2 } else { 1 };
            let hashes = b[k..].iter().take_while(|x| **x == b'#').count();
            let open = k + hashes + 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let end = b[open..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| open + p);
            wipe(&mut out, open, end);
            i = end + close.len();
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            wipe(&mut out, i + 1, j);
            i = j + 1;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}', 'é') or a lifetime ('a).
            let rest = &text[i + 1..];
            let mut chars = rest.char_indices();
            match chars.next() {
                Some((_, '\\')) => {
                    let e = rest[1..].find('\'').map_or(b.len(), |n| i + 2 + n);
                    wipe(&mut out, i + 1, e);
                    i = e + 1;
                }
                Some((_, ch)) if rest[ch.len_utf8()..].starts_with('\'') => {
                    wipe(&mut out, i + 1, i + 1 + ch.len_utf8());
                    i += 2 + ch.len_utf8();
                }
                _ => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The byte index just after the `}` matching the `{` at `open` (or the end of `code`).
#[must_use]
pub fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in code.bytes().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The attribute `#[cfg(test)]` at a line start and what follows it: inline `mod x { … }`
/// blocks and `fn`s become test blocks.
fn test_blocks(code: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("#[cfg(test)]") {
        let at = from + p;
        from = at + 1;
        let after = &code[at..];
        let Some(brace) = after.find(['{', ';']) else {
            continue;
        };
        if after.as_bytes()[brace] == b';' {
            continue;
        }
        let end = matching_brace(code, at + brace);
        out.push((at, end));
        from = end;
    }
    out
}

/// The names `x` of `#[cfg(test)] mod x;` declarations.
fn cfg_test_mod_decls(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(p) = rest.find("#[cfg(test)]") {
        let after = rest[p + 12..].trim_start();
        let after = after.strip_prefix("pub ").unwrap_or(after).trim_start();
        if let Some(m) = after.strip_prefix("mod ") {
            let name: String = m
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if m[name.len()..].trim_start().starts_with(';') {
                out.push(name);
            }
        }
        rest = &rest[p + 12..];
    }
    out
}

/// The child modules a file declares (`mod x;`, `pub mod x;`, `mod x { … }` at a line start).
fn child_modules(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = match l.strip_prefix("pub") {
                Some(r) if r.starts_with('(') => r.split_once(')').map_or(r, |(_, r)| r),
                Some(r) => r,
                None => l,
            };
            let m = l.trim_start().strip_prefix("mod ")?;
            let name: String = m
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Every module path the code names, in any form, resolved to paths of the shared namespace,
/// with the line (1-based) where it is written: from `crate` (the file's crate, `krate`),
/// `super` or `self` (`super::x` in `skills::validate` gives `skills::x`), another workspace
/// crate (`alisio_governor::replay` gives `governor::replay`), or a child module the file
/// declares (`request::Transcript` in `session/runner/mod.rs`, which declares `mod request;`,
/// gives `session::runner::request::Transcript`). `crate::{a::b, c}` gives `a::b` and `c`.
#[must_use]
pub fn internal_paths(
    code: &str,
    module: &[String],
    krate: &[String],
) -> Vec<(Vec<String>, usize)> {
    let children = child_modules(code);
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let starts_ident = b[i].is_ascii_alphabetic() || b[i] == b'_';
        let prev_ok = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if !(starts_ident && prev_ok) {
            i += 1;
            continue;
        }
        let word_end = i + b[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        let word = &code[i..word_end];
        let preceded_by_path = i >= 2 && &code[i - 2..i] == "::";
        // The base module the path starts from; a child module's path starts with its name.
        let base: Option<Vec<String>> = match word {
            _ if preceded_by_path => None,
            "crate" => Some(krate.to_vec()),
            // In `a/b.rs` (module a::b) `self` is a::b; in `a/mod.rs` (module a) too.
            "self" => Some(module.to_vec()),
            "super" => Some(module[..module.len().saturating_sub(1)].to_vec()),
            w if children.contains(w) => {
                if code[word_end..].starts_with("::") {
                    let line = code[..i].matches('\n').count() + 1;
                    for p in expand(&code[i..]) {
                        out.push(([module, &p[..]].concat(), line));
                    }
                }
                None
            }
            w => crate_module(w),
        };
        let Some(mut base) = base else {
            i = word_end;
            continue;
        };
        let line = code[..i].matches('\n').count() + 1;
        let mut j = word_end;
        // Further `super::` segments.
        while code[j..].starts_with("::super") {
            base.pop();
            j += 7;
        }
        if !code[j..].starts_with("::") {
            i = j;
            continue;
        }
        j += 2;
        for p in expand(&code[j..]) {
            let mut full = base.clone();
            full.extend(p);
            out.push((full, line));
        }
        i = j;
    }
    out
}

/// The paths a `use` tree (or a plain path) starting at `s` names: `a::b::C` → `[a, b, C]`,
/// `{a::b, c}` → `[a, b]`, `[c]`, nested groups flattened. Stops at the first token that is
/// not part of the path.
fn expand(s: &str) -> Vec<Vec<String>> {
    let s = s.trim_start();
    if let Some(inner) = s.strip_prefix('{') {
        let close = matching_brace(s, 0).saturating_sub(1).max(1);
        let inner = &inner[..close - 1];
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    out.extend(expand(&inner[start..k]));
                    start = k + 1;
                }
                _ => {}
            }
        }
        out.extend(expand(&inner[start..]));
        return out;
    }
    let ident: String = s
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if ident.is_empty() {
        return Vec::new();
    }
    let rest = &s[ident.len()..];
    if ident == "self" {
        return vec![Vec::new()];
    }
    if let Some(r) = rest.strip_prefix("::") {
        let subs = expand(r);
        if subs.is_empty() {
            return vec![vec![ident]];
        }
        return subs
            .into_iter()
            .map(|mut p| {
                p.insert(0, ident.clone());
                p
            })
            .collect();
    }
    vec![vec![ident]]
}

/// Whether `code` names the external crate `name` (`name::…`, `use name`, `extern crate name`),
/// and on which line first.
#[must_use]
pub fn names_crate(code: &str, name: &str) -> Option<usize> {
    let b = code.as_bytes();
    let mut from = 0;
    while let Some(p) = code[from..].find(name) {
        let at = from + p;
        from = at + name.len();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        // `::name` is the crate itself only at the start of a path (`::tokio`), not as a
        // segment (`crate::x::tokio`).
        let segment = at >= 2 && b[at - 1] == b':' && {
            let k = code[..at - 2].trim_end();
            k.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '>')
        };
        let before_ok = at == 0 || (!ident(b[at - 1]) && !segment);
        let after = &code[from..];
        let after_ok = after.starts_with("::")
            || (code[..at].trim_end().ends_with("use") && after.starts_with([';', ' ', ':', '\n']))
            || code[..at].trim_end().ends_with("extern crate");
        if before_ok && after_ok {
            return Some(code[..at].matches('\n').count() + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Vec<String> {
        s.split("::").map(str::to_string).collect()
    }

    #[test]
    fn blanking_keeps_lines_and_code() {
        let src = "let a = \"crate::lsp\"; // crate::cli\n/* tokio::\n */ let c = '{'; let l: &'a str = r#\"x\"#;\n";
        let b = blank(src);
        assert_eq!(b.lines().count(), src.lines().count());
        assert!(!b.contains("crate::lsp") && !b.contains("crate::cli") && !b.contains("tokio"));
        assert!(b.contains("let c = ' ';") && b.contains("&'a str") && b.contains("r#\" \"#"));
    }

    #[test]
    fn paths_resolve_groups_super_and_self() {
        let code = "use crate::{lsp::state, cli};\nuse super::frontmatter::{self, Entry};\nfn f() { crate::text::chars(\"\"); self::g(); }\n";
        let got: Vec<(Vec<String>, usize)> = internal_paths(code, &m("skills::validate"), &[]);
        let want = vec![
            (m("lsp::state"), 1),
            (m("cli"), 1),
            (m("skills::frontmatter"), 2),
            (m("skills::frontmatter::Entry"), 2),
            (m("text::chars"), 3),
            (m("skills::validate::g"), 3),
        ];
        assert_eq!(got, want);
    }

    /// Every path form (issue 25 §5: `use request::Transcript;` in `session/runner/mod.rs` was
    /// invisible to a check that followed only `crate`, `super` and `self`): `crate` is the
    /// file's crate, other workspace crates by name, and child modules the file declares.
    #[test]
    fn paths_resolve_crates_and_child_modules() {
        let code = "mod request;\npub(crate) mod turn;\nuse request::Transcript;\n\
            fn f() { turn::go(); crate::read::list(); alisio_governor::replay::run(); \
            alisio_base::text::chars(); x::request::y(); }\nuse other::turn;\n";
        let got = internal_paths(code, &m("session::runner"), &m("session"));
        let want = vec![
            (m("session::runner::request::Transcript"), 3),
            (m("session::runner::turn::go"), 4),
            (m("session::read::list"), 4),
            (m("governor::replay::run"), 4),
            (m("text::chars"), 4),
        ];
        assert_eq!(got, want);
        assert_eq!(
            child_modules("mod a;\npub mod b {\npub(crate) mod c;\n// mod d;\nlet mode = 1;"),
            ["a", "b", "c"].into_iter().map(String::from).collect()
        );
    }

    #[test]
    fn external_crates_are_found_only_as_paths() {
        assert_eq!(names_crate("x\nuse tokio::sync;", "tokio"), Some(2));
        assert_eq!(names_crate("#[derive(clap::ValueEnum)]", "clap"), Some(1));
        assert_eq!(names_crate("use clap;", "clap"), Some(1));
        assert_eq!(
            names_crate("let clap = 1; my_tokio::x(); a::tokio::b()", "tokio"),
            None
        );
        assert_eq!(names_crate("let clap = 1;", "clap"), None);
    }

    #[test]
    fn test_blocks_and_lines() {
        let code = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() { }\n}\n";
        let f = SourceFile {
            rel: "x.rs".into(),
            path: "server/src/x.rs".into(),
            krate: Vec::new(),
            code: code.into(),
            test_file: false,
            test_blocks: test_blocks(code),
        };
        assert_eq!(f.production_lines(), 1);
        assert!(!f.production().contains("fn b"));
        assert_eq!(
            cfg_test_mod_decls("#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod x {"),
            ["tests"]
        );
    }
}
