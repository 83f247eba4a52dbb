//! Host `gemini` (spec/hosts.md §3): Gemini CLI from v0.44 (JIT context only). Global files, the
//! startup walk from the workspace root up to the project root, files below loaded on access,
//! `context.fileName`, `@imports` and folder trust.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::chain::chain_dirs;
use super::host_files::{HostList, exact_file, read_entry};
use super::read::Reader;
use super::{DeliveryMode, FileKind, FileScope, Import, ListedFile, Setup};
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
    /// It exists but cannot be read (a directory): Node's message.
    Unreadable(String),
}

/// GM10: the `@` imports of `text`, with the token's range (the `@` included), as Gemini CLI's
/// `findImports` finds them: an `@` at the start or after a space, tab, `\n` or `\r`; the path
/// runs to the next of those four characters; scanning resumes one character after the token
/// (valid or not). Tokens starting inside a code region (GM10) are left out.
#[must_use]
pub fn import_tokens(text: &str) -> Vec<(String, TextRange)> {
    let code = code_regions(text.as_bytes());
    all_tokens(text)
        .into_iter()
        .filter(|(_, r)| !in_code(&code, r.start))
        .collect()
}

const fn js_token_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn in_code(code: &[TextRange], at: usize) -> bool {
    code.iter().any(|r| r.start <= at && at < r.end)
}

/// Every token of `findImports` (code regions not excluded).
fn all_tokens(text: &str) -> Vec<(String, TextRange)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let Some(at) = bytes[i..].iter().position(|b| *b == b'@').map(|k| i + k) else {
            break;
        };
        if at > 0 && !js_token_space(bytes[at - 1]) {
            i = at + 1;
            continue;
        }
        let mut j = at + 1;
        while j < bytes.len() && !js_token_space(bytes[j]) {
            j += 1;
        }
        let path = &text[at + 1..j];
        if path
            .bytes()
            .next()
            .is_some_and(|f| f == b'.' || f == b'/' || f.is_ascii_alphabetic())
        {
            out.push((path.to_string(), TextRange::new(at, j)));
        }
        i = j + 1;
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

/// JavaScript's `String.prototype.trim` whitespace (Gemini CLI trims each file's processed text
/// with it): includes U+FEFF, excludes U+0085.
const fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `text.trim()` as JavaScript trims.
#[must_use]
pub fn js_trim(text: &str) -> &str {
    text.trim_matches(js_space)
}

/// Node's `fs.realpathSync` with Gemini CLI's fallback for paths that do not exist (the longest
/// existing ancestor resolved, the rest appended; dangling symlinks followed lexically).
fn robust_realpath(fs: &dyn Fs, p: &Path, hops: u32) -> PathBuf {
    if let Ok(c) = fs.canonicalize(p) {
        return c;
    }
    if hops < 40
        && fs
            .symlink_metadata(p)
            .is_ok_and(|m| m.file_type == alisio_base::workspace::FileType::Symlink)
        && let Ok(t) = fs.read_link(p)
    {
        let base = p.parent().unwrap_or(p);
        return robust_realpath(fs, &normalize_lexically(&base.join(t)), hops + 1);
    }
    match (p.parent(), p.file_name()) {
        (Some(parent), Some(name)) => robust_realpath(fs, parent, hops + 1).join(name),
        _ => p.to_path_buf(),
    }
}

/// The import root of Gemini CLI's import processor (GM11): from `start` upwards, the first
/// directory where a valid marker exists (`fs.access`, symlinks followed); else `start`.
fn import_root(fs: &dyn Fs, markers: &[String], start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|d| {
            markers
                .iter()
                .filter(|m| valid_marker(m))
                .any(|m| fs.metadata(&d.join(m.as_str())).is_ok())
        })
        .unwrap_or(start)
        .to_path_buf()
}

/// What a read of an import gives: its text (lossy UTF-8, BOM kept, as Node's `readFile(path,
/// "utf-8")`) or Node's error message.
fn read_import(fs: &dyn Fs, full: &Path) -> Result<String, String> {
    match fs.metadata(full) {
        Err(_) => Err(format!(
            "ENOENT: no such file or directory, access '{}'",
            full.display()
        )),
        Ok(m) if m.file_type == alisio_base::workspace::FileType::Dir => {
            Err("EISDIR: illegal operation on a directory, read".to_string())
        }
        Ok(_) => fs
            .read_prefix(full, super::CLAUDE_SKIP_LIMIT)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| e.to_string()),
    }
}

/// Gemini CLI's `processImports` (tree format) over one top-level file: the text it delivers,
/// the successful imports (depth first, document order) and the failed ones.
struct Expand<'a, 's> {
    setup: &'a Setup<'s>,
    reader: &'a Reader<'a>,
    /// The import root, resolved (`realpath`).
    root: PathBuf,
    imports: Vec<Import>,
    failures: Vec<ImportFailure>,
}

impl Expand<'_, '_> {
    /// `processed`: the files imported on the current chain (lexical paths; the top-level file
    /// is not among them, as in Gemini CLI).
    fn process(
        &mut self,
        importer: &Path,
        content: &str,
        depth: u32,
        processed: &mut Vec<PathBuf>,
    ) -> String {
        if depth >= MAX_IMPORT_DEPTH {
            return content.to_string();
        }
        let fs = self.setup.fs;
        let base = importer.parent().unwrap_or(importer).to_path_buf();
        let code = code_regions(content.as_bytes());
        let mut out = String::with_capacity(content.len());
        let mut last = 0;
        for (tok, range) in all_tokens(content) {
            out.push_str(&content[last..range.start]);
            last = range.end;
            if in_code(&code, range.start) {
                out.push('@');
                out.push_str(&tok);
                continue;
            }
            let fail = |path: PathBuf, kind| ImportFailure {
                importer: importer.to_path_buf(),
                range,
                path,
                kind,
            };
            let full = normalize_lexically(&base.join(&tok));
            let url = ["http://", "https://", "file://"]
                .iter()
                .any(|p| tok.starts_with(p));
            if url || self.imports.len() >= MAX_IMPORTS {
                if url {
                    self.failures
                        .push(fail(PathBuf::from(&tok), FailureKind::Url));
                }
                out.push_str(&format!(
                    "<!-- Import failed: {tok} - Path traversal attempt -->"
                ));
                continue;
            }
            if !is_inside(&robust_realpath(fs, &full, 0), &self.root) {
                let root = self.root.clone();
                self.failures.push(fail(full, FailureKind::Outside(root)));
                out.push_str(&format!(
                    "<!-- Import failed: {tok} - Path traversal attempt -->"
                ));
                continue;
            }
            if processed.contains(&full) {
                self.failures.push(fail(full, FailureKind::Cycle));
                out.push_str(&format!("<!-- File already processed: {tok} -->"));
                continue;
            }
            match read_import(fs, &full) {
                Ok(text) => {
                    let file = self.reader.read(&full, super::read::ReadMode::Claude);
                    self.imports.push(Import {
                        path: full.clone(),
                        depth: depth + 1,
                        bytes: file.size() as u64,
                        approval: false,
                        sha256: None,
                    });
                    processed.push(full.clone());
                    let inner = self.process(&full, &text, depth + 1, processed);
                    processed.pop();
                    out.push_str(&format!(
                        "<!-- Imported from: {tok} -->\n{inner}\n<!-- End of import from: {tok} -->"
                    ));
                }
                Err(msg) => {
                    let kind = if fs.metadata(&full).is_err() {
                        FailureKind::Missing
                    } else {
                        FailureKind::Unreadable(msg.clone())
                    };
                    self.failures.push(fail(full, kind));
                    out.push_str(&format!("<!-- Import failed: {tok} - {msg} -->"));
                }
            }
        }
        out.push_str(&content[last..]);
        out
    }
}

/// What Gemini CLI makes of one top-level file (GM10–GM13): the delivered text (imports
/// expanded, trimmed as Gemini trims it; empty when it sends no block), the successful imports
/// and the failed ones.
#[must_use]
pub fn expand(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    file: &Path,
) -> (String, Vec<Import>, Vec<ImportFailure>) {
    let fs = setup.fs;
    let g = &setup.settings.hosts.gemini;
    let text = fs
        .read_prefix(file, super::CLAUDE_SKIP_LIMIT)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let dir = file.parent().unwrap_or(file);
    let root = robust_realpath(fs, &import_root(fs, &g.boundary_markers, dir), 0);
    let mut w = Expand {
        setup,
        reader,
        root,
        imports: Vec::new(),
        failures: Vec::new(),
    };
    let out = w.process(file, &text, 0, &mut Vec::new());
    let mut failures = w.failures;
    // Ranges are reported on the text without its BOM (the text alisio-ls shows).
    if text.starts_with('\u{feff}') {
        for f in failures.iter_mut().filter(|f| f.importer == file) {
            f.range = TextRange::new(
                f.range.start.saturating_sub(3),
                f.range.end.saturating_sub(3),
            );
        }
    }
    (js_trim(&out).to_string(), w.imports, failures)
}

/// GM11–GM13: the imports of a top-level file and the failed ones.
#[must_use]
pub fn imports(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    file: &Path,
    _text: &str,
) -> (Vec<Import>, Vec<ImportFailure>) {
    let (_, imports, failures) = expand(setup, reader, file);
    (imports, failures)
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
        FailureKind::Unreadable(m) => Some(format!("import from {from}: {m}")),
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
    let mut take = |p: &Path, out: &mut HostList, scope, delivery| -> Option<ListedFile> {
        let canon = fs.canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if !seen.insert(canon) {
            return None;
        }
        match read_entry(reader, p, scope, FileKind::Gemini, delivery) {
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
                && let Some(e) = take(&p, &mut out, FileScope::Global, DeliveryMode::Always)
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
            FileScope::Project
        } else {
            FileScope::Ancestor
        };
        if let Some(e) = take(&p, &mut out, scope, DeliveryMode::Always) {
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
            if let Some(e) = take(&p, &mut out, FileScope::Project, DeliveryMode::OnAccess) {
                files.push(e);
            }
        }
    }
    for e in &mut files {
        let (delivered, imps, fails) = expand(setup, reader, &e.path);
        e.imports = imps;
        e.delivered = Some(delivered);
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

    /// `expand` on a tree on disk: the delivered text and the failure kinds.
    fn expanded(files: &[(&str, &str)], top: &str) -> (String, Vec<String>) {
        use alisio_base::config::{Host, Settings};
        use alisio_base::workspace::{DiskFs, Env};
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        for (p, c) in files {
            let path = base.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, c).unwrap();
        }
        let (env, s) = (Env::default(), Settings::default());
        let setup = Setup::for_test(&DiskFs, &env, &ws, &s, Host::Gemini);
        let (text, _, fails) = expand(&setup, &Reader::new(&DiskFs), &ws.join(top));
        let kinds = fails.iter().map(|f| format!("{:?}", f.kind)).collect();
        (text.replace(&base.display().to_string(), "{base}"), kinds)
    }

    #[test]
    fn gm14_delivered_text_replaces_every_token() {
        let (text, kinds) = expanded(
            &[
                (
                    "ws/GEMINI.md",
                    "\u{feff}top @a.md `@a.md` @missing.md @../out.md @docs\n",
                ),
                ("ws/a.md", "A @GEMINI.md\n"),
                ("ws/docs/x.md", "x"),
                ("out.md", "outside"),
            ],
            "GEMINI.md",
        );
        assert_eq!(
            text,
            "top <!-- Imported from: a.md -->\nA <!-- Imported from: GEMINI.md -->\n\u{feff}top \
             <!-- File already processed: a.md --> `@a.md` <!-- Import failed: missing.md - ENOENT: \
             no such file or directory, access '{base}/ws/missing.md' --> <!-- Import failed: \
             ../out.md - Path traversal attempt --> <!-- Import failed: docs - EISDIR: illegal \
             operation on a directory, read -->\n\n<!-- End of import from: GEMINI.md -->\n\n\
             <!-- End of import from: a.md --> `@a.md` <!-- Import failed: missing.md - ENOENT: no \
             such file or directory, access '{base}/ws/missing.md' --> <!-- Import failed: \
             ../out.md - Path traversal attempt --> <!-- Import failed: docs - EISDIR: illegal \
             operation on a directory, read -->"
        );
        assert_eq!(
            kinds.iter().filter(|k| k.starts_with("Cycle")).count(),
            1,
            "{kinds:?}"
        );
    }

    #[test]
    fn gm10_tokens_end_only_at_space_tab_and_line_breaks() {
        // U+00A0 does not end a token: the import is `a.md\u{a0}b.md`, which does not exist.
        assert_eq!(toks("@a.md\u{a0}b.md @c.md"), ["a.md\u{a0}b.md", "c.md"]);
        assert_eq!(js_trim("\u{feff}\u{a0} x \u{3000}"), "x");
        assert_eq!(js_trim("\u{85}x"), "\u{85}x");
    }
}
