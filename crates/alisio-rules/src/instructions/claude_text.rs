//! What Claude Code makes of one memory file's text (spec/instructions.md §4, measured with
//! the real client, spec/hosts.md §0): the text it delivers (frontmatter and block-level HTML
//! comments removed, trimmed) and the `@imports` it finds (Markdown text outside code, the
//! token rules of its import scanner).

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// Extensions Claude Code follows an import to; a file with another extension is skipped
/// (a file without an extension is read).
pub const TEXT_EXTENSIONS: &[&str] = &[
    "md",
    "txt",
    "text",
    "json",
    "yaml",
    "yml",
    "toml",
    "xml",
    "csv",
    "html",
    "htm",
    "css",
    "scss",
    "sass",
    "less",
    "js",
    "ts",
    "tsx",
    "jsx",
    "mjs",
    "cjs",
    "mts",
    "cts",
    "py",
    "pyi",
    "pyw",
    "rb",
    "erb",
    "rake",
    "go",
    "rs",
    "java",
    "kt",
    "kts",
    "scala",
    "c",
    "cpp",
    "cc",
    "cxx",
    "h",
    "hpp",
    "hxx",
    "cs",
    "swift",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "bat",
    "cmd",
    "env",
    "ini",
    "cfg",
    "conf",
    "config",
    "properties",
    "sql",
    "graphql",
    "gql",
    "proto",
    "vue",
    "svelte",
    "astro",
    "ejs",
    "hbs",
    "pug",
    "jade",
    "php",
    "pl",
    "pm",
    "lua",
    "r",
    "R",
    "dart",
    "ex",
    "exs",
    "erl",
    "hrl",
    "clj",
    "cljs",
    "cljc",
    "edn",
    "hs",
    "lhs",
    "elm",
    "ml",
    "mli",
    "f",
    "f90",
    "f95",
    "for",
    "cmake",
    "make",
    "makefile",
    "gradle",
    "sbt",
    "rst",
    "adoc",
    "asciidoc",
    "org",
    "tex",
    "latex",
    "lock",
    "log",
    "diff",
    "patch",
];

/// The frontmatter block at the start of `text` (`---` line … `---` line), as a byte length
/// including the closing line's break; 0 when there is none.
#[must_use]
pub fn frontmatter_len(text: &str) -> usize {
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else { return 0 };
    if first.trim_end() != "---" {
        return 0;
    }
    let mut off = first.len();
    for l in lines {
        off += l.len();
        if l.trim_end() == "---" {
            return off;
        }
    }
    0
}

/// The byte ranges of the block-level HTML comments of `text` (a comment that starts an HTML
/// block: a line whose first non-blank characters are `<!--`, outside code), each up to its
/// `-->` (or the end of the text).
#[must_use]
pub fn block_comments(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for (ev, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        if let Event::Html(h) = ev {
            let t = h.trim_start();
            if t.starts_with("<!--") {
                let from = range.start + (h.len() - t.len());
                if out
                    .last()
                    .is_some_and(|r: &std::ops::Range<usize>| r.end > from)
                {
                    continue;
                }
                let end = text[from + 4..]
                    .find("-->")
                    .map_or(text.len(), |i| from + 4 + i + 3);
                out.push(from..end);
            }
        }
    }
    out
}

/// The text Claude Code delivers for a memory file: the frontmatter removed, block-level HTML
/// comments removed, then trimmed (an empty result means the file is not delivered).
#[must_use]
pub fn delivered_text(text: &str) -> String {
    let body = &text[frontmatter_len(text)..];
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    for r in block_comments(body) {
        out.push_str(&body[at..r.start]);
        at = r.end;
    }
    out.push_str(&body[at..]);
    out.trim().to_string()
}

/// The runs of Markdown text Claude Code scans for imports: text outside code blocks and code
/// spans, split where an inline element starts or ends (as its Markdown lexer's text tokens
/// are), and the non-comment part of HTML blocks.
fn text_runs(text: &str) -> Vec<(usize, String)> {
    let mut runs = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut in_code_block = false;
    let flush = |cur: &mut String, start: usize, runs: &mut Vec<(usize, String)>| {
        if !cur.is_empty() {
            runs.push((start, std::mem::take(cur)));
        }
    };
    for (ev, range) in Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH)
        .into_offset_iter()
    {
        match ev {
            Event::Start(Tag::CodeBlock(_)) => {
                flush(&mut cur, start, &mut runs);
                in_code_block = true;
            }
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Text(t) if !in_code_block => {
                if cur.is_empty() {
                    start = range.start;
                }
                cur.push_str(&t);
            }
            Event::SoftBreak | Event::HardBreak => cur.push('\n'),
            Event::Html(ref h) | Event::InlineHtml(ref h) => {
                flush(&mut cur, start, &mut runs);
                let t = h.trim_start();
                if t.starts_with("<!--") {
                    if let Some(e) = t.find("-->") {
                        runs.push((range.start, t[e + 3..].to_string()));
                    }
                } else if matches!(ev, Event::Html(_)) {
                    runs.push((range.start, h.to_string()));
                }
            }
            _ => flush(&mut cur, start, &mut runs),
        }
    }
    flush(&mut cur, start, &mut runs);
    runs
}

/// Whether Claude Code takes a scanned `@` token as a path.
pub(crate) fn looks_like_path(p: &str) -> bool {
    let first = p.chars().next().unwrap_or(' ');
    p.starts_with("./")
        || p.starts_with("~/")
        || (p.starts_with('/') && p != "/")
        || (!p.starts_with('@')
            && !"#%^&*()".contains(first)
            && (first.is_ascii_alphanumeric() || "._-".contains(first)))
}

/// The `@<path>` imports of a memory file, in order, each once: a token `@` at the start of a
/// text run or after whitespace, running to the next whitespace (`\ ` is an escaped space);
/// a `#fragment` is cut. Trailing punctuation stays part of the path (`@AGENTS.md:` names
/// `AGENTS.md:`).
#[must_use]
pub fn import_tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let body = &text[frontmatter_len(text)..];
    for (_, run) in text_runs(body) {
        let b = run.as_bytes();
        let mut i = 0;
        while let Some(at) = run[i..].find('@').map(|k| k + i) {
            i = at + 1;
            if at > 0 && !run[..at].ends_with(char::is_whitespace) {
                continue;
            }
            let mut end = at + 1;
            while end < b.len() {
                if b[end] == b'\\' && b.get(end + 1) == Some(&b' ') {
                    end += 2;
                    continue;
                }
                let c = run[end..].chars().next().unwrap_or(' ');
                if c.is_whitespace() || c == '\\' {
                    break;
                }
                end += c.len_utf8();
            }
            let mut tok = run[at + 1..end].to_string();
            i = end.max(at + 1);
            if let Some(h) = tok.find('#') {
                tok.truncate(h);
            }
            let tok = tok.replace("\\ ", " ");
            if !tok.is_empty() && looks_like_path(&tok) && !out.contains(&tok) {
                out.push(tok);
            }
        }
    }
    out
}

/// Whether Claude Code reads an import with this file name (its text-extension list).
#[must_use]
pub fn readable_extension(path: &std::path::Path) -> bool {
    path.extension().is_none_or(|e| {
        let e = e.to_string_lossy();
        TEXT_EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(&e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivered_text_drops_frontmatter_and_block_comments() {
        assert_eq!(
            delivered_text("---\npaths: x\n---\n\nbody\n<!-- note -->\nend\n"),
            "body\n\nend"
        );
        assert_eq!(delivered_text("<!-- only -->\n"), "");
        assert_eq!(
            delivered_text("a <!-- inline --> b\n"),
            "a <!-- inline --> b"
        );
        assert_eq!(
            delivered_text("```\n<!-- code -->\n```\n"),
            "```\n<!-- code -->\n```"
        );
    }

    #[test]
    fn import_tokens_follow_the_scanner_rules() {
        let t = "see @a.md and `@b.md`\n\n```\n@c.md\n```\n\nmail x@y.com\n\n@d.md#part @e.md: @f.md, @@g @#h\n\n~~~\n@i.md\n~~~\n\n**@j.md**\n";
        assert_eq!(import_tokens(t), ["a.md", "d.md", "e.md:", "f.md,", "j.md"]);
        assert_eq!(import_tokens("@my\\ file.md\n"), ["my file.md"]);
        assert_eq!(import_tokens("<!-- @x.md --> @y.md\n"), ["y.md"]);
    }

    #[test]
    fn readable_extensions() {
        assert!(readable_extension(std::path::Path::new("a.md")));
        assert!(readable_extension(std::path::Path::new("Makefile")));
        assert!(!readable_extension(std::path::Path::new("a.png")));
    }
}
