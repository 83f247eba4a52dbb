//! spec/instructions.md §5.6: the `@imports` Claude Code skips silently (measured with the real
//! client, spec/hosts.md §0): one that names no readable file (`instructions-import-unresolved`,
//! with the trailing-punctuation case named), one of an existing file that it does not expand
//! (`instructions-import-not-expanded`: inside code, or outside the importing file's
//! directory), a pointer file written as a Markdown link (`instructions-import-link`) and a
//! pointer file whose imports deliver nothing (`instructions-pointer-empty`).

use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::instructions::claude_text::{
    delivered_text, frontmatter_len, import_tokens, looks_like_path, readable_extension,
};
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;
use alisio_base::workspace::{FileType, Fs, is_inside, normalize_lexically};

/// One `@token` as written.
struct Site {
    /// The token after `@`, as written (punctuation and `#fragment` kept).
    raw: String,
    /// The path Claude Code takes from it (`#fragment` cut, `\ ` unescaped).
    path: String,
    /// The bytes of `@raw` in the whole text.
    range: TextRange,
    in_code: bool,
}

fn scan(slice: &str, offset: usize, in_code: bool, out: &mut Vec<Site>) {
    let b = slice.as_bytes();
    let mut i = 0;
    while let Some(at) = slice[i..].find('@').map(|k| k + i) {
        i = at + 1;
        if at > 0
            && !slice[..at].ends_with(char::is_whitespace)
            && !(in_code && slice[..at].ends_with('`'))
        {
            continue;
        }
        let mut end = at + 1;
        while end < b.len() {
            if b[end] == b'\\' && b.get(end + 1) == Some(&b' ') {
                end += 2;
                continue;
            }
            let c = slice[end..].chars().next().unwrap_or(' ');
            if c.is_whitespace() || c == '\\' || (in_code && c == '`') {
                break;
            }
            end += c.len_utf8();
        }
        i = end.max(at + 1);
        let raw = slice[at + 1..end].to_string();
        let mut path = raw.clone();
        if let Some(h) = path.find('#') {
            path.truncate(h);
        }
        let path = path.replace("\\ ", " ");
        if !path.is_empty() && looks_like_path(&path) {
            out.push(Site {
                raw,
                path,
                range: TextRange::new(offset + at, offset + end),
                in_code,
            });
        }
    }
}

/// One text run of a body as the Markdown parse gives it: its range in the whole text, and
/// whether it is inside a code block or is a code span.
struct Run {
    range: std::ops::Range<usize>,
    block: bool,
    span: bool,
}

/// The text runs of `text`'s body outside HTML, from one parse (read by [`sites`] and
/// [`spaced`]).
fn runs(text: &str) -> Vec<Run> {
    let fm = frontmatter_len(text);
    let body = &text[fm..];
    let mut out = Vec::new();
    let mut in_block = false;
    for (ev, r) in Parser::new_ext(body, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH)
        .into_offset_iter()
    {
        let range = fm + r.start..fm + r.end;
        match ev {
            Event::Start(Tag::CodeBlock(_)) => in_block = true,
            Event::End(TagEnd::CodeBlock) => in_block = false,
            Event::Text(_) => out.push(Run {
                range,
                block: in_block,
                span: false,
            }),
            Event::Code(_) => out.push(Run {
                range,
                block: in_block,
                span: true,
            }),
            _ => {}
        }
    }
    out
}

/// The `@tokens` of `text` outside HTML, in code or not.
fn sites(text: &str, runs: &[Run]) -> Vec<Site> {
    let mut out = Vec::new();
    for r in runs {
        scan(
            &text[r.range.clone()],
            r.range.start,
            r.block || r.span,
            &mut out,
        );
    }
    out
}

/// Whether a token is meant as a file (an extension, or an explicit `./`, `~/`, `/` path):
/// `@alice` or `@types/node` in prose are mentions, not imports.
fn file_like(p: &str) -> bool {
    p.starts_with("./")
        || p.starts_with("~/")
        || p.starts_with('/')
        || p.rsplit('/')
            .next()
            .is_some_and(|n| n.len() > 1 && n[1..].contains('.'))
}

fn resolve(home: Option<&Path>, file: &Path, p: &str) -> Option<PathBuf> {
    let path = if let Some(rest) = p.strip_prefix("~/") {
        home?.join(rest)
    } else if Path::new(p).is_absolute() {
        PathBuf::from(p)
    } else {
        file.parent()?.join(p)
    };
    Some(normalize_lexically(&path))
}

fn kind(fs: &dyn Fs, p: &Path) -> Option<FileType> {
    fs.metadata(p).ok().map(|m| m.file_type)
}

fn readable(fs: &dyn Fs, p: &Path) -> bool {
    kind(fs, p) == Some(FileType::File) && readable_extension(p)
}

fn name(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// The findings of one file Claude Code reads. `user`: a user or managed file (its imports
/// may point anywhere).
#[must_use]
pub fn findings(
    fs: &dyn Fs,
    home: Option<&Path>,
    file: &Path,
    text: &str,
    user: bool,
) -> Vec<(Code, TextRange, String)> {
    let mut out = Vec::new();
    let dir = file.parent().unwrap_or(file);
    let runs = runs(text);
    let all = sites(text, &runs);
    for s in &all {
        let Some(target) = resolve(home, file, &s.path) else {
            continue;
        };
        let at = format!("@{}", s.raw);
        if s.in_code {
            if readable(fs, &target) {
                out.push((
                    Code::InstructionsImportNotExpanded,
                    s.range,
                    format!("{at} is inside code: Claude Code does not expand @imports in code spans or code blocks, so {} is not delivered; take it out of the backticks", s.path),
                ));
            }
            continue;
        }
        if readable(fs, &target) {
            let canon = fs.canonicalize(&target).unwrap_or_else(|_| target.clone());
            if !(user || is_inside(&target, dir) && is_inside(&canon, dir)) {
                out.push((
                    Code::InstructionsImportNotExpanded,
                    s.range,
                    format!("{at} lies outside this file's directory: Claude Code does not expand it in a session started here (an import outside the session's directory waits for an approval a new user has not given)"),
                ));
            }
            continue;
        }
        if !file_like(&s.path) {
            continue;
        }
        let trimmed = s.path.trim_end_matches([':', ',', '.', ';', ')', '!', '?']);
        let msg = if trimmed.len() < s.path.len()
            && !trimmed.is_empty()
            && resolve(home, file, trimmed).is_some_and(|t| readable(fs, &t))
        {
            let punct = &s.path[trimmed.len()..];
            format!(
                "Claude Code reads {at} as the path {}, which does not exist, and skips it: the {punct:?} after it is part of the path; put a space before it",
                s.path
            )
        } else {
            match kind(fs, &target) {
                Some(FileType::Dir) => {
                    format!("{at} is a directory: Claude Code imports files only and skips it")
                }
                Some(FileType::File) => format!(
                    "{at} is not a text file Claude Code imports ({}): it skips it",
                    name(&target)
                ),
                _ => format!(
                    "{at} names no file ({} does not exist): Claude Code skips it silently",
                    s.path
                ),
            }
        };
        out.push((Code::InstructionsImportUnresolved, s.range, msg));
    }
    pointer_checks(fs, home, file, text, &all, &mut out);
    spaced(fs, home, file, text, &runs, &mut out);
    out
}

/// The escaped form of a path with spaces, as Claude Code reads it (`\ ` is a space).
fn escaped(p: &str) -> String {
    format!("@{}", p.replace(' ', "\\ "))
}

/// A path with a space written as Claude Code does not read it (CC-MEM-019): quoted
/// (`@"Design Docs/api.md"`), which its scanner (`/(?:^|\s)@((?:[^\s\\]|\\ )+)/g`, then a first
/// character in `[a-zA-Z0-9._-]` or `./`, `~/`, `/`) does not take as an import at all, or split
/// by a plain space (`@Design Docs/api.md`), where it reads only `Design`. Reported only when the
/// path meant names a readable file and the token as read does not.
fn spaced(
    fs: &dyn Fs,
    home: Option<&Path>,
    file: &Path,
    text: &str,
    runs: &[Run],
    out: &mut Vec<(Code, TextRange, String)>,
) {
    for run in runs.iter().filter(|r| !r.block && !r.span) {
        let slice = &text[run.range.clone()];
        let mut i = 0;
        while let Some(at) = slice[i..].find('@').map(|k| k + i) {
            i = at + 1;
            if at > 0 && !slice[..at].ends_with(char::is_whitespace) {
                continue;
            }
            let line_end = slice[at..].find('\n').map_or(slice.len(), |k| at + k);
            let rest = &slice[at + 1..line_end];
            let base = run.range.start;
            if let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'')
                && let Some(close) = rest[1..].find(q)
            {
                let inner = &rest[1..=close];
                if !inner.is_empty() && resolve(home, file, inner).is_some_and(|t| readable(fs, &t))
                {
                    let end = at + 1 + close + 2;
                    out.push((
                        Code::InstructionsImportUnresolved,
                        TextRange::new(base + at, base + end),
                        format!(
                            "Claude Code does not read a quoted path as an import: {} is sent as text and {inner} is not delivered; write {}",
                            &slice[at..end],
                            escaped(inner)
                        ),
                    ));
                    i = end;
                }
                continue;
            }
            // The token as Claude Code reads it, then up to three more words.
            let words: Vec<(usize, &str)> = rest
                .split(' ')
                .scan(0usize, |off, w| {
                    let start = *off;
                    *off += w.len() + 1;
                    Some((start, w))
                })
                .take(4)
                .collect();
            let Some(&(_, first)) = words.first() else {
                continue;
            };
            if first.is_empty()
                || first.contains(['\\', '\t'])
                || !looks_like_path(first)
                || resolve(home, file, first).is_some_and(|t| kind(fs, &t).is_some())
            {
                continue;
            }
            for &(start, w) in &words[1..] {
                if w.is_empty() || w.contains('\t') {
                    break;
                }
                let meant = &rest[..start + w.len()];
                if resolve(home, file, meant).is_some_and(|t| readable(fs, &t)) {
                    let end = at + 1 + meant.len();
                    out.push((
                        Code::InstructionsImportUnresolved,
                        TextRange::new(base + at, base + end),
                        format!(
                            "Claude Code ends an import at the first space: it reads @{first}, which names no file, and {meant} is not delivered; write {}",
                            escaped(meant)
                        ),
                    ));
                    i = end;
                    break;
                }
            }
        }
    }
}

fn pointer_checks(
    fs: &dyn Fs,
    home: Option<&Path>,
    file: &Path,
    text: &str,
    all: &[Site],
    out: &mut Vec<(Code, TextRange, String)>,
) {
    let delivered = delivered_text(text);
    let lines: Vec<&str> = delivered.lines().filter(|l| !l.trim().is_empty()).collect();
    let tokens = import_tokens(text);
    // A pointer: every line is only @imports.
    let pointer = !lines.is_empty()
        && !tokens.is_empty()
        && lines
            .iter()
            .all(|l| l.split_whitespace().all(|w| w.starts_with('@')));
    if pointer {
        let targets: Vec<PathBuf> = tokens
            .iter()
            .filter_map(|t| resolve(home, file, t))
            .filter(|t| readable(fs, t))
            .collect();
        let empty = !targets.is_empty()
            && targets.iter().all(|t| {
                fs.read_prefix(t, 4 * 1024 * 1024)
                    .map(|b| delivered_text(&String::from_utf8_lossy(&b)).is_empty())
                    .unwrap_or(false)
            });
        if empty && let Some(first) = all.iter().find(|s| !s.in_code) {
            let names: Vec<String> = targets.iter().map(|t| name(t)).collect();
            out.push((
                Code::InstructionsPointerEmpty,
                first.range,
                format!(
                    "this file only imports {}, which {} empty: Claude Code delivers the line @{} and nothing else",
                    names.join(", "),
                    if names.len() == 1 { "is" } else { "are" },
                    first.raw
                ),
            ));
        }
        return;
    }
    // A short file without imports whose link points at a local instruction file.
    if tokens.is_empty() && !lines.is_empty() && lines.len() <= 3 {
        let fm = frontmatter_len(text);
        let body = &text[fm..];
        for (ev, r) in Parser::new(body).into_offset_iter() {
            if let Event::Start(Tag::Link { dest_url, .. }) = ev {
                let dest = dest_url.split('#').next().unwrap_or_default();
                if dest.contains("://") || !dest.ends_with(".md") {
                    continue;
                }
                if resolve(home, file, dest).is_some_and(|t| readable(fs, &t)) {
                    out.push((
                        Code::InstructionsImportLink,
                        TextRange::new(fm + r.start, fm + r.end),
                        format!("a Markdown link is not an import: Claude Code sends this text, not the content of {dest}; write @{dest} to import it"),
                    ));
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::workspace::DiskFs;

    fn run(files: &[(&str, &str)], main: &str) -> Vec<(Code, String, String)> {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        for (p, t) in files {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, t).unwrap();
        }
        let file = root.join(main);
        let text = std::fs::read_to_string(&file).unwrap();
        findings(&DiskFs, None, &file, &text, false)
            .into_iter()
            .map(|(c, r, m)| (c, text[r.start..r.end].to_string(), m))
            .collect()
    }

    #[test]
    fn unresolved_imports_with_their_ranges() {
        let got = run(
            &[
                (
                    "CLAUDE.md",
                    "See @docs/a.md: it.\n@missing.md and @logo.png\nping @alice @types/node\n",
                ),
                ("docs/a.md", "a\n"),
                ("logo.png", "x\n"),
            ],
            "CLAUDE.md",
        );
        assert_eq!(
            got,
            [
                (Code::InstructionsImportUnresolved, "@docs/a.md:".into(), "Claude Code reads @docs/a.md: as the path docs/a.md:, which does not exist, and skips it: the \":\" after it is part of the path; put a space before it".into()),
                (Code::InstructionsImportUnresolved, "@missing.md".into(), "@missing.md names no file (missing.md does not exist): Claude Code skips it silently".into()),
                (Code::InstructionsImportUnresolved, "@logo.png".into(), "@logo.png is not a text file Claude Code imports (logo.png): it skips it".into()),
            ]
        );
    }

    #[test]
    fn imports_in_code_and_outside_the_directory_are_not_expanded() {
        let got = run(
            &[
                (
                    "pkg/CLAUDE.md",
                    "Read `@a.md` first.\n\n```\n@a.md\n```\n\n@../top.md\n@a.md\n",
                ),
                ("pkg/a.md", "a\n"),
                ("top.md", "top\n"),
            ],
            "pkg/CLAUDE.md",
        );
        let code = "@a.md is inside code: Claude Code does not expand @imports in code spans or code blocks, so a.md is not delivered; take it out of the backticks";
        assert_eq!(
            got,
            [
                (Code::InstructionsImportNotExpanded, "@a.md".into(), code.into()),
                (Code::InstructionsImportNotExpanded, "@a.md".into(), code.into()),
                (Code::InstructionsImportNotExpanded, "@../top.md".into(), "@../top.md lies outside this file's directory: Claude Code does not expand it in a session started here (an import outside the session's directory waits for an approval a new user has not given)".into()),
            ]
        );
    }

    #[test]
    fn pointer_files_written_as_links_or_pointing_at_nothing() {
        let got = run(
            &[
                ("CLAUDE.md", "See [AGENTS.md](AGENTS.md).\n"),
                ("AGENTS.md", "body\n"),
            ],
            "CLAUDE.md",
        );
        assert_eq!(
            got,
            [(Code::InstructionsImportLink, "[AGENTS.md](AGENTS.md)".into(), "a Markdown link is not an import: Claude Code sends this text, not the content of AGENTS.md; write @AGENTS.md to import it".into())]
        );
        let got = run(
            &[
                ("CLAUDE.md", "@AGENTS.md\n"),
                ("AGENTS.md", "<!-- todo -->\n"),
            ],
            "CLAUDE.md",
        );
        assert_eq!(
            got,
            [(Code::InstructionsPointerEmpty, "@AGENTS.md".into(), "this file only imports AGENTS.md, which is empty: Claude Code delivers the line @AGENTS.md and nothing else".into())]
        );
        assert!(
            run(
                &[("CLAUDE.md", "@AGENTS.md\n"), ("AGENTS.md", "body\n")],
                "CLAUDE.md"
            )
            .is_empty()
        );
        assert!(
            run(
                &[
                    ("CLAUDE.md", "# Long\n\na\n\nb\n\nSee [x](AGENTS.md).\n"),
                    ("AGENTS.md", "body\n")
                ],
                "CLAUDE.md"
            )
            .is_empty()
        );
    }

    #[test]
    fn paths_with_a_space_written_quoted_or_unescaped() {
        let files = [
            ("Design Docs/api-conventions.md", "api\n"),
            ("Design Docs/notes.md", "notes\n"),
        ];
        let mut with = files.to_vec();
        with.push((
            "CLAUDE.md",
            "- API @\"Design Docs/api-conventions.md\"\n- Notes @Design Docs/notes.md\n- Fine @Design\\ Docs/api-conventions.md\n- `@Design Docs/notes.md` in code\n- Mail @team today\n",
        ));
        assert_eq!(
            run(&with, "CLAUDE.md"),
            [
                (Code::InstructionsImportUnresolved, "@\"Design Docs/api-conventions.md\"".into(), "Claude Code does not read a quoted path as an import: @\"Design Docs/api-conventions.md\" is sent as text and Design Docs/api-conventions.md is not delivered; write @Design\\ Docs/api-conventions.md".into()),
                (Code::InstructionsImportUnresolved, "@Design Docs/notes.md".into(), "Claude Code ends an import at the first space: it reads @Design, which names no file, and Design Docs/notes.md is not delivered; write @Design\\ Docs/notes.md".into()),
            ]
        );
        // Nothing is meant when the spaced path names no file.
        assert!(
            run(
                &[("CLAUDE.md", "Ask @\"the team\" or @Design Docs/none.md\n")],
                "CLAUDE.md"
            )
            .is_empty()
        );
    }
}
