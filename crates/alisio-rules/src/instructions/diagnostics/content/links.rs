//! `instructions-link-broken` (spec/instructions.md §5.5): a Markdown link, or a path written in
//! backticks, that names no file. An agent told to read `docs/setup.md` that is not there wastes
//! a turn or guesses. A target is looked up next to the file and from the workspace root
//! (AGENTS.md authors write root-relative paths); `/x` is root-relative only. A backticked path
//! counts only when it looks like a file path (a `/` and an extension, no spaces, globs,
//! variables or URLs) and its first directory exists, so commands, examples and build outputs
//! of a tree that is not checked out stay silent.

use std::path::{Component, Path, PathBuf};

use alisio_base::text::TextRange;
use alisio_base::workspace::Fs;

/// What names the missing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Link,
    Path,
}

/// One missing target: its range in the text, the target as written and how it is written.
#[derive(Debug, PartialEq, Eq)]
pub struct Broken {
    pub range: TextRange,
    pub target: String,
    pub form: Form,
}

fn has_scheme(d: &str) -> bool {
    let b = d.as_bytes();
    b.first().is_some_and(u8::is_ascii_alphabetic) && {
        let n = b
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
            .count();
        b.get(n) == Some(&b':')
    }
}

/// `base/rel` with `.` and `..` folded; `None` when it leaves `root`.
fn join_inside(root: &Path, base: &Path, rel: &str) -> Option<PathBuf> {
    let mut p = base.to_path_buf();
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(n) => p.push(n),
            Component::ParentDir => {
                if !p.pop() {
                    return None;
                }
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    p.starts_with(root).then_some(p)
}

/// The two places a relative target is looked up: next to the file, then from the root.
fn bases<'a>(root: &'a Path, dir: &'a Path, rel: &str) -> Vec<&'a Path> {
    if rel.starts_with('/') {
        vec![root]
    } else {
        vec![dir, root]
    }
}

/// `true` when the target exists, or when every place it could be is outside the workspace
/// (not judged).
fn exists(fs: &dyn Fs, root: &Path, dir: &Path, rel: &str) -> bool {
    let r = rel.trim_start_matches('/');
    let places: Vec<PathBuf> = bases(root, dir, rel)
        .into_iter()
        .filter_map(|b| join_inside(root, b, r))
        .collect();
    places.is_empty() || places.iter().any(|p| fs.metadata(p).is_ok())
}

/// A link destination to check: `None` for URLs, anchors and mail addresses.
fn link_target(dest: &str) -> Option<String> {
    if dest.is_empty() || dest.starts_with(['#', '~', '\\']) || dest.starts_with("//") {
        return None;
    }
    if has_scheme(dest) {
        return None;
    }
    let cut = dest.find(['#', '?']).unwrap_or(dest.len());
    let d = alisio_base::text::percent_decode(&dest[..cut]);
    (!d.is_empty() && d != "/").then_some(d)
}

/// Whether a code span is a file path worth checking.
fn path_like(t: &str) -> bool {
    if t.len() > 200
        || !t.contains('/')
        || t.starts_with(['/', '-', '~', '@', '$'])
        || t.chars().any(|c| {
            c.is_whitespace()
                || matches!(
                    c,
                    '*' | '?'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '<'
                        | '>'
                        | '$'
                        | '='
                        | ':'
                        | '|'
                        | '"'
                        | '\''
                        | '`'
                        | '('
                        | ')'
                        | ','
                        | ';'
                        | '%'
                        | '\\'
                        | '#'
                        | '&'
                        | '!'
                )
        })
        || has_scheme(t)
    {
        return false;
    }
    let last = t.rsplit('/').next().unwrap_or_default();
    let Some((stem, ext)) = last.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && (1..=8).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic())
}

/// The first directory of a relative path exists next to the file or at the root.
fn anchored(fs: &dyn Fs, root: &Path, dir: &Path, rel: &str) -> bool {
    let first = rel
        .trim_start_matches("./")
        .split('/')
        .find(|c| !c.is_empty() && *c != "..")
        .unwrap_or_default();
    let prefix_len = rel.find(first).map_or(0, |i| i + first.len());
    exists(fs, root, dir, &rel[..prefix_len])
}

/// Every link and backticked path of `text` (the file `file` of the workspace `root`) that
/// names no file.
#[must_use]
pub fn broken(fs: &dyn Fs, root: &Path, file: &Path, text: &str) -> Vec<Broken> {
    use pulldown_cmark::{Event, LinkType, Parser, Tag};
    let mut out = Vec::new();
    if memchr::memmem::find(text.as_bytes(), b"](").is_none() && !text.contains('`') {
        return out;
    }
    let dir = file.parent().unwrap_or(root);
    for (ev, range) in Parser::new(text).into_offset_iter() {
        match ev {
            Event::Start(
                Tag::Link {
                    link_type: LinkType::Inline,
                    dest_url,
                    ..
                }
                | Tag::Image {
                    link_type: LinkType::Inline,
                    dest_url,
                    ..
                },
            ) => {
                let Some(target) = link_target(&dest_url) else {
                    continue;
                };
                if exists(fs, root, dir, &target) {
                    continue;
                }
                let src = text.get(range.clone()).unwrap_or_default();
                let Some(pos) = src
                    .rfind("](")
                    .and_then(|o| src[o + 2..].find(dest_url.as_ref()).map(|p| p + o + 2))
                else {
                    continue;
                };
                let s = range.start + pos;
                out.push(Broken {
                    range: TextRange::new(s, s + dest_url.len()),
                    target,
                    form: Form::Link,
                });
            }
            Event::Code(code) => {
                let t = code.as_ref();
                if !path_like(t) || !anchored(fs, root, dir, t) || exists(fs, root, dir, t) {
                    continue;
                }
                let src = text.get(range.clone()).unwrap_or_default();
                let Some(pos) = src.find(t) else {
                    continue;
                };
                let s = range.start + pos;
                out.push(Broken {
                    range: TextRange::new(s, s + t.len()),
                    target: t.to_string(),
                    form: Form::Path,
                });
            }
            _ => {}
        }
    }
    out
}

/// The message of a finding.
#[must_use]
pub fn message(b: &Broken) -> String {
    let where_ = if b.target.starts_with('/') {
        "from the workspace root"
    } else {
        "next to this file or from the workspace root"
    };
    match b.form {
        Form::Link => format!("link target {} does not exist ({where_})", b.target),
        Form::Path => format!("{} names no file ({where_})", b.target),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        for f in ["docs/setup.md", "pkg/src/lib.rs", "pkg/AGENTS.md"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        (d, root)
    }

    fn found(root: &Path, file: &str, text: &str) -> Vec<(String, Form, String)> {
        broken(
            &alisio_base::workspace::DiskFs,
            root,
            &root.join(file),
            text,
        )
        .into_iter()
        .map(|b| {
            (
                text[b.range.start..b.range.end].to_string(),
                b.form,
                message(&b),
            )
        })
        .collect()
    }

    #[test]
    fn existing_targets_urls_and_non_paths_are_fine() {
        let (_d, root) = ws();
        let t = "See [setup](docs/setup.md), [root](/docs/setup.md#top), [web](https://x.y/a.md), \
[here](#intro), [mail](mailto:a@b.c).\n\nRun `cargo test`, `npm run build`, `src/**/*.ts`, \
`dist/bundle.js` (no dist/), `$HOME/x.sh`, `a b/c.md`, `docs/`, `v1.2/3.4`.\n\n```\nsee `docs/gone.md`\n```\n";
        assert_eq!(found(&root, "AGENTS.md", t), []);
        // File-relative and root-relative both resolve from a nested file.
        let t = "Read `src/lib.rs`, [setup](../docs/setup.md) and `docs/setup.md`.\n";
        assert_eq!(found(&root, "pkg/AGENTS.md", t), []);
    }

    #[test]
    fn missing_links_and_paths_have_the_target_range_and_message() {
        let (_d, root) = ws();
        let t = "See [style](docs/STYLE.md) and `docs/nonexistent.md`; [abs](/docs/gone.md).\n";
        assert_eq!(
            found(&root, "AGENTS.md", t),
            [
                (
                    "docs/STYLE.md".to_string(),
                    Form::Link,
                    "link target docs/STYLE.md does not exist (next to this file or from the workspace root)".to_string()
                ),
                (
                    "docs/nonexistent.md".to_string(),
                    Form::Path,
                    "docs/nonexistent.md names no file (next to this file or from the workspace root)".to_string()
                ),
                (
                    "/docs/gone.md".to_string(),
                    Form::Link,
                    "link target /docs/gone.md does not exist (from the workspace root)".to_string()
                ),
            ]
        );
        // Outside the workspace: not judged.
        assert_eq!(found(&root, "AGENTS.md", "[x](../../elsewhere.md)\n"), []);
    }
}
