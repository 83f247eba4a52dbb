//! Inline suppressions (spec/suppressions.md §1): `<!-- alisio-ignore-next-line: code[, code] -->`
//! and `<!-- alisio-ignore-file: code[, code] -->` on lines of their own in Markdown, and
//! `# alisio-ignore: code` YAML comments in a frontmatter block.

use crate::text::{LineIndex, TextRange};

/// The marker every directive contains; a file without it has none (the fast path).
pub const MARKER: &str = "alisio-ignore";
pub const NEXT_LINE: &str = "alisio-ignore-next-line";
pub const FILE: &str = "alisio-ignore-file";
pub const FRONTMATTER: &str = "# alisio-ignore:";

/// What a directive covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// `<!-- alisio-ignore-next-line -->`: diagnostics starting on the next line.
    NextLine,
    /// `<!-- alisio-ignore-file -->`: every diagnostic of the file.
    File,
    /// `# alisio-ignore:` after a frontmatter value: diagnostics starting on this line.
    Line,
}

/// One directive found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    pub scope: Coverage,
    /// The line whose diagnostics it suppresses (unused for [`Coverage::File`]).
    pub target_line: u32,
    /// The whole comment.
    pub range: TextRange,
    /// Each code as written, with its byte range.
    pub codes: Vec<(String, TextRange)>,
}

/// The closing line of a frontmatter block opened on line 0, if any.
pub fn frontmatter_end(idx: &LineIndex<'_>) -> Option<usize> {
    let text = idx.text();
    let line = |n: usize| {
        let r = idx.line_range(n);
        &text[r.start..r.end]
    };
    if line(0).trim_end() != "---" {
        return None;
    }
    (1..idx.line_count()).find(|&n| line(n).trim_end() == "---")
}

/// Codes after a directive's colon: comma-separated, trimmed, empty items dropped.
fn codes_in(text: &str, start: usize, end: usize) -> Vec<(String, TextRange)> {
    let mut out = Vec::new();
    let mut at = start;
    for part in text[start..end].split(',') {
        let lead = part.len() - part.trim_start().len();
        let code = part.trim();
        if !code.is_empty() {
            let s = at + lead;
            out.push((code.to_string(), TextRange::new(s, s + code.len())));
        }
        at += part.len() + 1;
    }
    out
}

/// A fence opener or closer (CommonMark: up to three spaces, then three or more ` or ~).
pub(crate) fn fence(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

fn html_directive(text: &str, r: TextRange, line: u32) -> Option<Directive> {
    let raw = &text[r.start..r.end];
    let lead = raw.len() - raw.trim_start().len();
    let t = raw.trim();
    let inner = t.strip_prefix("<!--")?.strip_suffix("-->")?;
    let inner_start = r.start + lead + 4;
    let body = inner.trim_start();
    let body_start = inner_start + (inner.len() - body.len());
    let (scope, rest) = if let Some(rest) = body.strip_prefix(NEXT_LINE) {
        (Coverage::NextLine, rest)
    } else if let Some(rest) = body.strip_prefix(FILE) {
        (Coverage::File, rest)
    } else {
        return None;
    };
    let rest_start = body_start + (body.len() - rest.len());
    // `alisio-ignore-filex` is no directive; `alisio-ignore-file` alone is one without codes.
    if !(rest.is_empty() || rest.starts_with([':', ' ', '\t'])) {
        return None;
    }
    let after = rest.trim_start();
    if !(after.is_empty() || after.starts_with(':')) {
        return None;
    }
    let codes_start = rest_start + (rest.len() - after.len()) + usize::from(after.starts_with(':'));
    let codes_end = inner_start + inner.len();
    Some(Directive {
        scope,
        target_line: line + 1,
        range: TextRange::new(r.start + lead, r.start + lead + t.len()),
        codes: codes_in(text, codes_start.min(codes_end), codes_end),
    })
}

fn yaml_directive(text: &str, r: TextRange, line: u32) -> Option<Directive> {
    let raw = &text[r.start..r.end];
    let at = raw.find(FRONTMATTER)?;
    let before = &raw[..at];
    // A YAML comment starts a line or follows whitespace.
    if !(before.is_empty() || before.ends_with([' ', '\t'])) {
        return None;
    }
    let whole_line = before.trim().is_empty();
    let start = r.start + at;
    Some(Directive {
        scope: Coverage::Line,
        // A comment alone on its line covers the next line (decision, spec/suppressions.md §1).
        target_line: if whole_line { line + 1 } else { line },
        range: TextRange::new(start, r.end),
        codes: codes_in(text, start + FRONTMATTER.len(), r.end),
    })
}

/// Every directive of a text, in order. Directives inside fenced code blocks are examples, not
/// directives.
#[must_use]
pub fn parse(text: &str) -> Vec<Directive> {
    if !text.contains(MARKER) {
        return Vec::new();
    }
    let idx = LineIndex::new(text);
    let fm_end = frontmatter_end(&idx);
    let mut out = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let first_body = fm_end.map_or(0, |e| e + 1);
    for n in 0..idx.line_count() {
        let r = idx.line_range(n);
        let line = &text[r.start..r.end];
        let no = u32::try_from(n).unwrap_or(u32::MAX);
        if fm_end.is_some_and(|e| n > 0 && n < e) {
            if let Some(d) = yaml_directive(text, r, no) {
                out.push(d);
            }
            continue;
        }
        if n < first_body {
            continue;
        }
        if let Some((c, len)) = fence(line) {
            match open {
                None => open = Some((c, len)),
                Some((oc, olen))
                    if oc == c && len >= olen && line.trim().chars().all(|x| x == c) =>
                {
                    open = None;
                }
                Some(_) => {}
            }
            continue;
        }
        if open.is_none()
            && line.contains(MARKER)
            && let Some(d) = html_directive(text, r, no)
        {
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(d: &Directive) -> Vec<&str> {
        d.codes.iter().map(|(c, _)| c.as_str()).collect()
    }

    #[test]
    fn html_directives_on_their_own_lines_with_codes_and_ranges() {
        let t = "# T\n  <!-- alisio-ignore-next-line: a-b, c -->\nx\n<!--alisio-ignore-file:d-->\n";
        let ds = parse(t);
        assert_eq!(ds.len(), 2);
        assert_eq!(ds[0].scope, Coverage::NextLine);
        assert_eq!(ds[0].target_line, 2);
        assert_eq!(codes(&ds[0]), ["a-b", "c"]);
        let (_, r) = &ds[0].codes[1];
        assert_eq!(&t[r.start..r.end], "c");
        assert_eq!(
            &t[ds[0].range.start..ds[0].range.end],
            "<!-- alisio-ignore-next-line: a-b, c -->"
        );
        assert_eq!(ds[1].scope, Coverage::File);
        assert_eq!(codes(&ds[1]), ["d"]);
    }

    #[test]
    fn text_around_a_comment_fences_and_lookalikes_are_not_directives() {
        let t = "a <!-- alisio-ignore-file: x -->\n```\n<!-- alisio-ignore-file: y -->\n```\n<!-- alisio-ignore-filex: z -->\n<!-- alisio-ignore-file -->\n";
        let ds = parse(t);
        assert_eq!(ds.len(), 1, "{ds:?}");
        assert!(ds[0].codes.is_empty());
    }

    #[test]
    fn frontmatter_comments_cover_their_line_or_when_alone_the_next() {
        let t = "---\nname: Bad--x # alisio-ignore: skill-name-format\n# alisio-ignore: skill-unknown-key\nsource: x\nurl: a#alisio-ignore: no\n---\n# alisio-ignore: not-yaml\n";
        let ds = parse(t);
        assert_eq!(ds.len(), 2, "{ds:?}");
        assert_eq!((ds[0].scope, ds[0].target_line), (Coverage::Line, 1));
        assert_eq!(codes(&ds[0]), ["skill-name-format"]);
        assert_eq!((ds[1].scope, ds[1].target_line), (Coverage::Line, 3));
    }
}
