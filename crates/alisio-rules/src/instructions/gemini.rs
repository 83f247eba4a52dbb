//! Host `gemini` (spec/hosts.md §3): Gemini CLI from v0.44 (JIT context only). Global files, the
//! startup walk from the workspace root up to the project root, files below loaded on access,
//! `context.fileName`, `@imports` and folder trust.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::chain::chain_dirs;
use super::host_files::{HostList, exact_file, is_file, read_entry};
use super::read::Reader;
use super::{Delivery, Entry, Import, Kind, Scope, Setup};
use alisio_base::config::{GeminiSettings, GeminiTrust};
use alisio_base::text::TextRange;
use alisio_base::workspace::{Fs, display_path, is_inside, normalize_lexically};

/// GM12: the deepest import level that is still inlined.
pub const MAX_IMPORT_DEPTH: u32 = 5;
/// At most this many imports are followed for one top-level file.
pub const MAX_IMPORTS: usize = 256;

/// GM1: the configured names, then `GEMINI.md`, trimmed, normalised, de-duplicated.
#[must_use]
pub fn names(g: &GeminiSettings) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in g.file_name.iter().map(String::as_str).chain(["GEMINI.md"]) {
        let t = n.trim();
        if t.is_empty() {
            continue;
        }
        let norm = normalize_lexically(Path::new(t));
        let s = norm.to_string_lossy().into_owned();
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// GM3: Gemini's home (`GEMINI_CLI_HOME`, else `$HOME`).
fn gemini_home(setup: &Setup<'_>) -> Option<PathBuf> {
    setup
        .env
        .gemini_cli_home
        .clone()
        .or_else(|| setup.env.home.clone())
}

fn valid_marker(m: &str) -> bool {
    let p = Path::new(m);
    !m.is_empty() && !p.is_absolute() && !p.components().any(|c| c == Component::ParentDir)
}

/// GM4: the first directory from `from` upwards holding a boundary marker.
#[must_use]
pub fn project_root(fs: &dyn Fs, markers: &[String], from: &Path) -> Option<PathBuf> {
    let markers: Vec<&String> = markers.iter().filter(|m| valid_marker(m)).collect();
    if markers.is_empty() {
        return None;
    }
    from.ancestors()
        .find(|d| {
            markers
                .iter()
                .any(|m| fs.symlink_metadata(&d.join(m.as_str())).is_ok())
        })
        .map(Path::to_path_buf)
}

/// One failed import (GM13), for `notLoaded` and `instructions-import-failed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportFailure {
    pub importer: PathBuf,
    /// The `@path` token in the importer's text.
    pub range: TextRange,
    /// The resolved path (the token's text for a URL).
    pub path: PathBuf,
    pub kind: FailureKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    Missing,
    Outside(PathBuf),
    Url,
    Cycle,
}

/// GM10: the `@` imports of `text`, with the token's range (the `@` included).
#[must_use]
pub fn import_tokens(text: &str) -> Vec<(String, TextRange)> {
    let bytes = text.as_bytes();
    let code = code_regions(bytes);
    let mut out = Vec::new();
    let mut in_code = code.iter().peekable();
    for (i, b) in bytes.iter().enumerate() {
        if *b != b'@' {
            continue;
        }
        while in_code.peek().is_some_and(|r| r.end <= i) {
            in_code.next();
        }
        if in_code.peek().is_some_and(|r| r.start <= i) {
            continue;
        }
        if i > 0 && !matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        }
        let Some(first) = bytes.get(i + 1) else {
            continue;
        };
        if !(*first == b'.' || *first == b'/' || first.is_ascii_alphabetic()) {
            continue;
        }
        let rest = &text[i + 1..];
        let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        out.push((rest[..len].to_string(), TextRange::new(i, i + 1 + len)));
    }
    out
}

/// GM10: the regions of `` (`+)[\s\S]*?\1 `` (leftmost, then longest opening run that has a
/// closing run of the same length), in order.
fn code_regions(b: &[u8]) -> Vec<TextRange> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let run = b[i..].iter().take_while(|c| **c == b'`').count();
        let mut matched = None;
        for k in (1..=run).rev() {
            let needle = &b[i..i + k];
            if let Some(j) = b[i + k..].windows(k).position(|w| w == needle) {
                matched = Some(i + k + j + k);
                break;
            }
        }
        match matched {
            Some(end) => {
                out.push(TextRange::new(i, end));
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

struct Imports<'a, 's> {
    setup: &'a Setup<'s>,
    reader: &'a Reader<'a>,
    root: PathBuf,
    imports: Vec<Import>,
    failures: Vec<ImportFailure>,
}

impl Imports<'_, '_> {
    fn walk(&mut self, importer: &Path, text: &str, depth: u32, chain: &mut Vec<PathBuf>) {
        let base = importer.parent().unwrap_or(importer).to_path_buf();
        for (tok, range) in import_tokens(text) {
            if self.imports.len() >= MAX_IMPORTS {
                return;
            }
            let fail = |path: PathBuf, kind| ImportFailure {
                importer: importer.to_path_buf(),
                range,
                path,
                kind,
            };
            if ["http://", "https://", "file://"]
                .iter()
                .any(|p| tok.starts_with(p))
            {
                self.failures
                    .push(fail(PathBuf::from(&tok), FailureKind::Url));
                continue;
            }
            let resolved = normalize_lexically(&base.join(&tok));
            if !is_file(self.setup.fs, &resolved) {
                self.failures.push(fail(resolved, FailureKind::Missing));
                continue;
            }
            let canon = self
                .setup
                .fs
                .canonicalize(&resolved)
                .unwrap_or_else(|_| resolved.clone());
            if !is_inside(&canon, &self.root) {
                let root = self.root.clone();
                self.failures
                    .push(fail(resolved, FailureKind::Outside(root)));
                continue;
            }
            if chain.contains(&canon) {
                self.failures.push(fail(resolved, FailureKind::Cycle));
                continue;
            }
            let file = self.reader.read(&resolved, super::read::Mode::Claude);
            self.imports.push(Import {
                path: resolved.clone(),
                depth: depth + 1,
                bytes: file.size() as u64,
                approval: false,
                sha256: None,
            });
            if depth + 1 < MAX_IMPORT_DEPTH {
                chain.push(canon);
                let t = file.text.clone();
                self.walk(&resolved, &t, depth + 1, chain);
                chain.pop();
            }
        }
    }
}

/// GM11–GM13: the imports of a top-level file and the failed ones.
#[must_use]
pub fn imports(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    file: &Path,
    text: &str,
) -> (Vec<Import>, Vec<ImportFailure>) {
    let g = &setup.settings.hosts.gemini;
    let dir = file.parent().unwrap_or(file);
    let dir = setup
        .fs
        .canonicalize(dir)
        .unwrap_or_else(|_| dir.to_path_buf());
    let root = project_root(setup.fs, &g.boundary_markers, &dir).unwrap_or(dir);
    let mut w = Imports {
        setup,
        reader,
        root,
        imports: Vec::new(),
        failures: Vec::new(),
    };
    w.walk(file, text, 0, &mut Vec::new());
    (w.imports, w.failures)
}

fn failure_reason(f: &ImportFailure, root: &Path) -> Option<String> {
    let from = display_path(&f.importer, root);
    match &f.kind {
        FailureKind::Missing => Some(format!("import from {from}: not found")),
        FailureKind::Outside(r) => Some(format!(
            "import from {from}: outside the project root {}",
            r.display()
        )),
        FailureKind::Url => Some(format!("import from {from}: URL imports are not supported")),
        FailureKind::Cycle => None,
    }
}

/// The gemini list for a normalised `target` whose target directory is `dir` (spec/hosts.md §3).
#[must_use]
pub fn list(setup: &Setup<'_>, reader: &Reader<'_>, dir: &Path) -> HostList {
    let g = &setup.settings.hosts.gemini;
    let fs = setup.fs;
    let root = setup.root;
    let names = names(g);
    let mut out = HostList::default();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut take = |p: &Path, out: &mut HostList, scope, delivery| -> Option<Entry> {
        let canon = fs.canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if !seen.insert(canon) {
            return None;
        }
        match read_entry(reader, p, scope, Kind::Gemini, delivery) {
            Ok(e) => Some(e),
            Err(n) => {
                out.not_loaded.push(n);
                None
            }
        }
    };
    let home = gemini_home(setup);
    let stop = home.as_ref().map(|h| h.join(".gemini"));
    let mut files = Vec::new();
    if let Some(h) = &home {
        for n in &names {
            let p = h.join(".gemini").join(n);
            if exact_file(fs, &p)
                && let Some(e) = take(&p, &mut out, Scope::Global, Delivery::Always)
            {
                files.push(e);
            }
        }
    }
    let trusted = g.trust != GeminiTrust::Untrusted;
    let untrusted = "folder not trusted (hosts.gemini.folderTrust is \"untrusted\")";
    // GM5: startup, from the workspace root up to the project root.
    let ceiling = project_root(fs, &g.boundary_markers, root).unwrap_or_else(|| root.to_path_buf());
    let mut startup = Vec::new();
    // H6: outside the workspace only the global files are listed.
    let inside = is_inside(dir, root);
    for d in root.ancestors().take_while(|_| inside) {
        if stop.as_deref() == Some(d) {
            break;
        }
        for n in &names {
            let p = d.join(n);
            if exact_file(fs, &p) {
                startup.push(p);
            }
        }
        if d == ceiling {
            break;
        }
    }
    startup.sort_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
    for p in startup {
        if !trusted {
            out.not(&p, untrusted);
            continue;
        }
        let scope = if is_inside(&p, root) {
            Scope::Project
        } else {
            Scope::Ancestor
        };
        if let Some(e) = take(&p, &mut out, scope, Delivery::Always) {
            files.push(e);
        }
    }
    // GM6: on access, root first, names in list order.
    for d in chain_dirs(root, dir) {
        for n in &names {
            let p = d.join(n);
            if !exact_file(fs, &p) {
                continue;
            }
            if !trusted {
                if d != root {
                    out.not(&p, untrusted);
                }
                continue;
            }
            if let Some(e) = take(&p, &mut out, Scope::Project, Delivery::OnAccess) {
                files.push(e);
            }
        }
    }
    for e in &mut files {
        let (imps, fails) = imports(setup, reader, &e.path, &e.file.text.clone());
        e.imports = imps;
        for f in &fails {
            if let Some(reason) = failure_reason(f, root) {
                out.not(&f.path, reason);
            }
        }
    }
    out.files = files;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(t: &str) -> Vec<String> {
        import_tokens(t).into_iter().map(|(s, _)| s).collect()
    }

    #[test]
    fn import_detection_follows_gemini() {
        assert_eq!(
            toks("@a.md and @./b.md.\n@/abs/c.md x@d.md @~/e.md @_f.md @2024.md"),
            ["a.md", "./b.md.", "/abs/c.md"]
        );
        assert_eq!(toks("`@a.md` ```\n@b.md\n``` @c.md"), ["c.md"]);
        // `~~~` fences and indented code are not code regions.
        assert_eq!(
            toks("~~~\n@docs/x.md\n~~~\n    @y.md"),
            ["docs/x.md", "y.md"]
        );
        assert_eq!(toks("email me @user"), ["user"]);
        // An unbalanced backtick pairs with a later one and hides what lies between.
        assert_eq!(toks("a ` b @x.md ` @z.md"), ["z.md"]);
    }

    #[test]
    fn names_are_prepended_to_gemini_md() {
        let mut g = GeminiSettings::default();
        assert_eq!(names(&g), ["GEMINI.md"]);
        g.file_name = vec![
            " AGENTS.md ".into(),
            String::new(),
            "./docs/AI.md".into(),
            "GEMINI.md".into(),
        ];
        assert_eq!(names(&g), ["AGENTS.md", "docs/AI.md", "GEMINI.md"]);
    }
}
