//! Helpers shared by the hosts of hosts.md (`copilot`, `gemini`, `cursor`): a line-based
//! frontmatter reader that keeps spans (CP11, CU3), comma splitting that respects braces
//! (CP13 step 1), case-insensitive child lookup, bounded recursive listing, reading one file
//! into an [`ListedFile`] or a [`NotLoaded`], and VS Code's `localeCompare` order (CP6).

use std::cmp::Ordering;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::read::{ReadMode, Reader};
use super::{DeliveryMode, FileKind, FileScope, ListedFile, NotLoaded};
use alisio_base::text::TextRange;
use alisio_base::workspace::{FileType, Fs};

/// What a host of hosts.md delivers for one target, and what it found but does not deliver.
#[derive(Clone, Debug, Default)]
pub struct HostList {
    pub files: Vec<ListedFile>,
    pub not_loaded: Vec<NotLoaded>,
}

impl HostList {
    pub fn not(&mut self, path: &Path, reason: impl Into<String>) {
        self.not_loaded.push(NotLoaded {
            path: path.to_path_buf(),
            reason: reason.into(),
        });
    }
}

/// `true` when `p`'s parent lists an entry named exactly like `p`'s last component
/// (byte-equal) and `p` is a regular file, symlinks followed (Linux name matching, hosts.md GM2).
#[must_use]
pub fn exact_file(fs: &dyn Fs, p: &Path) -> bool {
    let (Some(parent), Some(name)) = (p.parent(), p.file_name()) else {
        return false;
    };
    is_file(fs, p)
        && fs
            .read_dir(parent)
            .is_ok_and(|es| es.iter().any(|e| e.name == name))
}

/// hosts.md H9: the hosts a workspace uses, in [`Host::ALL`] order: `hosts.enabled` plus the
/// active host, or, when it is not set, the active host plus every host whose distinctive
/// files exist at the workspace root.
#[must_use]
pub fn in_use(setup: &super::Setup<'_>) -> Vec<alisio_base::config::Host> {
    use alisio_base::config::Host;
    let root = setup.root;
    let exists = |rel: &str| setup.fs.symlink_metadata(&root.join(rel)).is_ok();
    let listed: Vec<Host> = match &setup.settings.hosts.enabled {
        Some(list) => list.clone(),
        None => {
            let mut v = Vec::new();
            if exists("CLAUDE.md") || exists(".claude") {
                v.push(Host::ClaudeCode);
            }
            if exists(".github/copilot-instructions.md") || exists(".github/instructions") {
                v.push(Host::Copilot);
            }
            if exists("GEMINI.md") {
                v.push(Host::Gemini);
            }
            if exists(".cursor/rules") || exists(".cursorrules") {
                v.push(Host::Cursor);
            }
            v
        }
    };
    Host::ALL
        .into_iter()
        .filter(|h| *h == setup.host || listed.contains(h))
        .collect()
}

/// The value of one frontmatter key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    Scalar(String),
    List(Vec<String>),
}

/// One top-level `key: value` of a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attr {
    pub key: String,
    pub value: AttrValue,
    /// The value as written on the key's line (trimmed; comments kept).
    pub raw: String,
    /// The value's bytes in the whole text (the key's line for a block list).
    pub span: TextRange,
    /// The key's line.
    pub line: TextRange,
}

/// A header (frontmatter) as VS Code and Cursor delimit it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub present: bool,
    pub closed: bool,
    pub attrs: Vec<Attr>,
    /// The opening line.
    pub open: TextRange,
}

impl Header {
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.key == key)
    }

    /// A scalar value (quotes removed), `None` for a list or an absent key.
    #[must_use]
    pub fn scalar(&self, key: &str) -> Option<&str> {
        match &self.get(key)?.value {
            AttrValue::Scalar(s) => Some(s),
            AttrValue::List(_) => None,
        }
    }
}

fn is_marker(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|r| r.chars().all(char::is_whitespace))
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    let quoted = s.len() >= 2
        && ((s.starts_with('"') && s.ends_with('"')) || (s.starts_with('\'') && s.ends_with('\'')));
    if quoted {
        return s[1..s.len() - 1].to_string();
    }
    // An unquoted scalar ends at ` #` (a comment).
    s.split(" #").next().unwrap_or(s).trim().to_string()
}

/// Lines of `text` with their byte ranges (line break excluded).
fn lines(text: &str) -> Vec<TextRange> {
    let mut out = Vec::new();
    let mut off = 0;
    for l in text.split_inclusive('\n') {
        let body = l.trim_end_matches(['\n', '\r']);
        out.push(TextRange::new(off, off + body.len()));
        off += l.len();
    }
    out
}

/// Reads the header of `text` (CP11): opened by a first line matching `^---\s*$`, closed by the
/// next such line, or running to the end of the file when never closed.
#[must_use]
pub fn header(text: &str) -> Header {
    let ls = lines(text);
    let mut h = Header::default();
    let Some(first) = ls.first() else { return h };
    if !is_marker(&text[first.start..first.end]) {
        return h;
    }
    h.present = true;
    h.open = *first;
    let mut body: Vec<TextRange> = Vec::new();
    for l in ls.iter().skip(1) {
        if is_marker(&text[l.start..l.end]) {
            h.closed = true;
            break;
        }
        body.push(*l);
    }
    // A header whose first non-blank line is not `key: value` is not a map: no attributes.
    let first_content = body.iter().find(|l| {
        let t = text[l.start..l.end].trim();
        !t.is_empty() && !t.starts_with('#')
    });
    if let Some(l) = first_content
        && key_of(&text[l.start..l.end]).is_none()
    {
        return h;
    }
    let mut i = 0;
    while i < body.len() {
        let l = body[i];
        let line = &text[l.start..l.end];
        i += 1;
        let Some((key, rest_at)) = key_of(line) else {
            continue;
        };
        let rest = &line[rest_at..];
        let raw = rest.trim();
        let lead = rest.len() - rest.trim_start().len();
        let vstart = l.start + rest_at + lead;
        let span = TextRange::new(vstart, vstart + raw.len());
        let value = if raw.is_empty() || raw.starts_with('#') {
            let mut items = Vec::new();
            while i < body.len() {
                let t = text[body[i].start..body[i].end].trim_start();
                if t.is_empty() {
                    i += 1;
                    continue;
                }
                match t.strip_prefix("- ").or_else(|| (t == "-").then_some("")) {
                    Some(item) => items.push(unquote(item)),
                    None => break,
                }
                i += 1;
            }
            if items.is_empty() {
                AttrValue::Scalar(String::new())
            } else {
                AttrValue::List(items)
            }
        } else if let Some(inner) = raw.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            AttrValue::List(
                split_aware(inner)
                    .iter()
                    .map(|s| unquote(s))
                    .filter(|s| !s.is_empty())
                    .collect(),
            )
        } else {
            AttrValue::Scalar(unquote(raw))
        };
        h.attrs.push(Attr {
            key: key.to_string(),
            value,
            raw: raw.to_string(),
            span: if raw.is_empty() { l } else { span },
            line: l,
        });
    }
    h
}

/// `key` and the offset after its colon, for a top-level (unindented) `key: value` line.
fn key_of(line: &str) -> Option<(&str, usize)> {
    if line.starts_with([' ', '\t', '-', '#']) {
        return None;
    }
    let colon = line.find(':')?;
    let key = &line[..colon];
    let ok = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (ok && line[colon + 1..]
        .chars()
        .next()
        .is_none_or(char::is_whitespace))
    .then_some((key, colon + 1))
}

/// Splits at commas outside `{…}` and `[…]`, trims, drops empty pieces (VS Code's
/// `splitGlobAware`).
#[must_use]
pub fn split_aware(pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut braces, mut brackets) = (false, false);
    for c in pattern.chars() {
        match c {
            '{' => braces = true,
            '}' => braces = false,
            '[' => brackets = true,
            ']' => brackets = false,
            ',' if !braces && !brackets => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A compiled glob, `None` when the pattern is invalid (it then matches nothing).
#[must_use]
pub fn glob(pattern: &str, case_insensitive: bool) -> Option<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(case_insensitive)
        .backslash_escape(false)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

#[must_use]
pub fn is_file(fs: &dyn Fs, p: &Path) -> bool {
    fs.metadata(p).is_ok_and(|m| m.file_type == FileType::File)
}

/// The regular files (symlinks followed) among `dir`'s children whose name equals `name`
/// ignoring ASCII case, in byte order of names.
#[must_use]
pub fn children_ci(fs: &dyn Fs, dir: &Path, name: &str) -> Vec<PathBuf> {
    let Ok(mut entries) = fs.read_dir(dir) else {
        return Vec::new();
    };
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
        .into_iter()
        .filter(|e| {
            e.name
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .map(|e| dir.join(&e.name))
        .filter(|p| is_file(fs, p))
        .collect()
}

/// Every regular file below `dir` (symlinks followed, loops cut by canonical path), with its
/// folder depth (0 for a file directly in `dir`), down to folder depth `max_depth + 1` so the
/// caller can report the files just beyond the limit. Byte order within each folder.
#[must_use]
pub fn files_below(fs: &dyn Fs, dir: &Path, max_depth: usize) -> Vec<(PathBuf, usize)> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    let mut budget = 10_000usize;
    while let Some((d, depth)) = stack.pop() {
        if !seen.insert(fs.canonicalize(&d).unwrap_or_else(|_| d.clone())) {
            continue;
        }
        let Ok(mut entries) = fs.read_dir(&d) else {
            continue;
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let mut subdirs = Vec::new();
        for e in entries {
            if budget == 0 {
                return out;
            }
            budget -= 1;
            let p = d.join(&e.name);
            match fs.metadata(&p).map(|m| m.file_type) {
                Ok(FileType::File) => out.push((p, depth)),
                Ok(FileType::Dir) if depth <= max_depth => subdirs.push(p),
                _ => {}
            }
        }
        stack.extend(subdirs.into_iter().rev().map(|p| (p, depth + 1)));
    }
    out
}

/// Reads a file for a host of hosts.md (H2): an entry, or a `notLoaded` reason when it is
/// unreadable or over 4 MiB.
///
/// # Errors
/// The [`NotLoaded`] to report instead of an entry.
pub fn read_entry(
    reader: &Reader<'_>,
    path: &Path,
    scope: FileScope,
    kind: FileKind,
    delivery: DeliveryMode,
) -> Result<ListedFile, NotLoaded> {
    let file = reader.read(path, ReadMode::Claude);
    let not = |reason: String| NotLoaded {
        path: path.to_path_buf(),
        reason,
    };
    if file.too_large {
        return Err(not("over 4 MiB; not read by alisio-ls".to_string()));
    }
    if let Some(e) = &file.error {
        return Err(not(format!("unreadable: {e}")));
    }
    let mut e = ListedFile::new(path.to_path_buf(), scope, kind, file);
    e.delivery = delivery;
    if delivery == DeliveryMode::OnAccess {
        e.load = super::Load::OnRead;
    }
    Ok(e)
}

/// Primary weight of a character in the root collation (CP6): punctuation, then digits, then
/// letters (case folded).
fn primary(c: char) -> (u8, u32) {
    const PUNCT: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
    if let Some(i) = PUNCT.find(c) {
        return (0, u32::try_from(i).unwrap_or(0));
    }
    if c.is_ascii_digit() {
        return (1, u32::from(c));
    }
    if c.is_alphabetic() {
        return (2, c.to_lowercase().next().map_or(0, u32::from));
    }
    (0, 100 + u32::from(c))
}

/// VS Code's `a.localeCompare(b)` on `file://` URIs, approximated by the root collation rules
/// of hosts.md CP6.
#[must_use]
pub fn locale_cmp(a: &str, b: &str) -> Ordering {
    let pa: Vec<_> = a.chars().map(primary).collect();
    let pb: Vec<_> = b.chars().map(primary).collect();
    pa.cmp(&pb)
        .then_with(|| {
            // Tertiary: lowercase before uppercase.
            let ta = a.chars().map(char::is_uppercase);
            let tb = b.chars().map(char::is_uppercase);
            ta.cmp(tb)
        })
        .then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_reads_scalars_lists_and_unclosed_headers() {
        let t = "---\napplyTo: \"**/*.ts\"\ntags: [\"a\", \"b\"]\npaths:\n  - src/**\n  - 'lib/**'\n---\nbody";
        let h = header(t);
        assert!(h.present && h.closed);
        assert_eq!(h.scalar("applyTo"), Some("**/*.ts"));
        assert_eq!(
            h.get("tags").unwrap().value,
            AttrValue::List(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            h.get("paths").unwrap().value,
            AttrValue::List(vec!["src/**".into(), "lib/**".into()])
        );
        let a = h.get("applyTo").unwrap();
        assert_eq!(&t[a.span.start..a.span.end], "\"**/*.ts\"");
        let open = header("---\napplyTo: '**'\nno end");
        assert!(open.present && !open.closed);
        assert_eq!(open.scalar("applyTo"), Some("**"));
        assert!(header("--- \n- a\n---\n").attrs.is_empty());
        assert!(!header("text\n---\n").present);
        // Cursor's unquoted comma list is a scalar taken as written.
        assert_eq!(
            header("---\nglobs: **/*.ts, **/*.tsx\n---\n").scalar("globs"),
            Some("**/*.ts, **/*.tsx")
        );
    }

    #[test]
    fn commas_in_braces_do_not_split() {
        assert_eq!(
            split_aware("**/*.{ts,tsx}, docs/**,, [a,b]x "),
            ["**/*.{ts,tsx}", "docs/**", "[a,b]x"]
        );
    }

    #[test]
    fn locale_order_puts_punctuation_before_letters_and_ignores_case() {
        let mut v = vec![
            "file:///ws/CLAUDE.md",
            "file:///ws/agents.md",
            "file:///ws/.github/copilot-instructions.md",
            "file:///ws/CLAUDE.local.md",
            "file:///ws/.claude/CLAUDE.md",
            "file:///ws/Zeta.md",
        ];
        v.sort_by(|a, b| locale_cmp(a, b));
        assert_eq!(
            v,
            [
                "file:///ws/.claude/CLAUDE.md",
                "file:///ws/.github/copilot-instructions.md",
                "file:///ws/agents.md",
                "file:///ws/CLAUDE.local.md",
                "file:///ws/CLAUDE.md",
                "file:///ws/Zeta.md",
            ]
        );
    }
}
