//! The two quick fixes of spec/suppressions.md §4 as plain edits: "ignore in this line" and "ignore
//! in this file". An existing directive gains the code; otherwise one is inserted.

use super::inline::{self, Coverage, Directive};
use crate::diagnostic::Code;
use crate::text::{LineIndex, TextRange};

/// Replace `range` by `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: TextRange,
    pub new_text: String,
}

fn eol(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

fn line_text<'a>(idx: &LineIndex<'a>, n: usize) -> &'a str {
    let r = idx.line_range(n);
    &idx.text()[r.start..r.end]
}

/// Adds `code` to a directive that lacks it (`None` when it has it already).
fn extend(d: &Directive, code: Code) -> Option<Edit> {
    if d.codes.iter().any(|(c, _)| c == code.as_str()) {
        return None;
    }
    let (_, last) = d.codes.last()?;
    Some(Edit {
        range: TextRange::empty(last.end),
        new_text: format!(", {code}"),
    })
}

/// `true` when line `n` lies inside a fenced code block of the body.
fn in_fence(idx: &LineIndex<'_>, first_body: usize, n: usize) -> bool {
    let mut open: Option<(char, usize)> = None;
    for i in first_body..n {
        if let Some((c, len)) = inline::fence(line_text(idx, i)) {
            match open {
                None => open = Some((c, len)),
                Some((oc, olen)) if oc == c && len >= olen => open = None,
                Some(_) => {}
            }
        }
    }
    open.is_some()
}

/// A frontmatter line a trailing comment can follow: a `key:` or a `- ` item.
fn commentable(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with("- ") || t == "-" {
        return true;
    }
    let key: String = t
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    !key.is_empty() && t[key.len()..].starts_with(':')
}

/// "Ignore in this line": a directive for the diagnostic `code` starting on `line`. `None` when
/// no directive can be written there (the frontmatter's `---` lines, a block-scalar line, inside
/// a fenced code block).
#[must_use]
pub fn ignore_line(text: &str, line: u32, code: Code) -> Option<Edit> {
    let idx = LineIndex::new(text);
    let n = line as usize;
    if n >= idx.line_count() {
        return None;
    }
    let directives = inline::parse(text);
    let fm_end = inline::frontmatter_end(&idx);
    if let Some(end) = fm_end
        && n <= end
    {
        if n == 0 || n == end {
            return None;
        }
        if let Some(d) = directives
            .iter()
            .find(|d| d.scope == Coverage::Line && d.target_line == line)
        {
            return extend(d, code);
        }
        let l = line_text(&idx, n);
        if !commentable(l) || l.contains(" #") {
            return None;
        }
        return Some(Edit {
            range: TextRange::empty(idx.line_range(n).end),
            new_text: format!("  {} {code}", inline::FRONTMATTER),
        });
    }
    let first_body = fm_end.map_or(0, |e| e + 1);
    if in_fence(&idx, first_body, n) {
        return None;
    }
    if let Some(d) = directives
        .iter()
        .find(|d| d.scope == Coverage::NextLine && d.target_line == line && !d.codes.is_empty())
    {
        return extend(d, code);
    }
    let l = line_text(&idx, n);
    let indent: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    Some(Edit {
        range: TextRange::empty(idx.line_range(n).start),
        new_text: format!(
            "{indent}<!-- {}: {code} -->{}",
            inline::NEXT_LINE,
            eol(text)
        ),
    })
}

/// "Ignore in this file": the file's `alisio-ignore-file` directive gains `code`, or a new one
/// goes on the first line of the body (after the frontmatter). `None` when the file already
/// ignores the code, or its frontmatter is unterminated.
#[must_use]
pub fn ignore_file(text: &str, code: Code) -> Option<Edit> {
    let directives = inline::parse(text);
    if let Some(d) = directives
        .iter()
        .find(|d| d.scope == Coverage::File && !d.codes.is_empty())
    {
        return extend(d, code);
    }
    let idx = LineIndex::new(text);
    let nl = eol(text);
    let directive = format!("<!-- {}: {code} -->", inline::FILE);
    let at = match inline::frontmatter_end(&idx) {
        Some(end) if end + 1 < idx.line_count() => idx.line_range(end + 1).start,
        Some(end) => {
            return Some(Edit {
                range: TextRange::empty(idx.line_range(end).end),
                new_text: format!("{nl}{directive}"),
            });
        }
        None if line_text(&idx, 0).trim_end() == "---" => return None,
        None => 0,
    };
    Some(Edit {
        range: TextRange::empty(at),
        new_text: format!("{directive}{nl}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(text: &str, e: &Edit) -> String {
        format!(
            "{}{}{}",
            &text[..e.range.start],
            e.new_text,
            &text[e.range.end..]
        )
    }

    #[test]
    fn ignore_line_inserts_above_in_the_body_and_extends_an_existing_directive() {
        let t = "# T\n  - item\n";
        let e = ignore_line(t, 1, Code::InstructionsEmpty).unwrap();
        let t2 = applied(t, &e);
        assert_eq!(
            t2,
            "# T\n  <!-- alisio-ignore-next-line: instructions-empty -->\n  - item\n"
        );
        let e = ignore_line(&t2, 2, Code::InstructionsHidden).unwrap();
        assert_eq!(
            applied(&t2, &e),
            "# T\n  <!-- alisio-ignore-next-line: instructions-empty, instructions-hidden -->\n  - item\n"
        );
        assert_eq!(ignore_line(&t2, 2, Code::InstructionsEmpty), None);
        assert_eq!(
            ignore_line("```\nx\n```\n", 1, Code::InstructionsEmpty),
            None
        );
    }

    #[test]
    fn ignore_line_in_frontmatter_appends_a_yaml_comment() {
        let t = "---\nname: Bad--x\ndescription: |\n  text\n---\nbody\n";
        let e = ignore_line(t, 1, Code::SkillNameFormat).unwrap();
        assert_eq!(
            applied(t, &e),
            "---\nname: Bad--x  # alisio-ignore: skill-name-format\ndescription: |\n  text\n---\nbody\n"
        );
        assert_eq!(ignore_line(t, 0, Code::SkillNameFormat), None);
        assert_eq!(ignore_line(t, 3, Code::SkillNameFormat), None);
        assert_eq!(ignore_line(t, 4, Code::SkillNameFormat), None);
    }

    #[test]
    fn ignore_file_goes_after_the_frontmatter_or_first() {
        let t = "---\nname: x\n---\nbody\n";
        let e = ignore_file(t, Code::SkillBodyTooLong).unwrap();
        let t2 = applied(t, &e);
        assert_eq!(
            t2,
            "---\nname: x\n---\n<!-- alisio-ignore-file: skill-body-too-long -->\nbody\n"
        );
        let e = ignore_file(&t2, Code::SkillUnknownKey).unwrap();
        assert!(applied(&t2, &e).contains("skill-body-too-long, skill-unknown-key -->"));
        let e = ignore_file("---\nname: x\n---", Code::SkillBodyTooLong).unwrap();
        assert_eq!(
            e.new_text,
            "\n<!-- alisio-ignore-file: skill-body-too-long -->"
        );
        let e = ignore_file("# A\r\n", Code::InstructionsEmpty).unwrap();
        assert_eq!(
            (e.range.start, e.new_text.as_str()),
            (0, "<!-- alisio-ignore-file: instructions-empty -->\r\n")
        );
        assert_eq!(ignore_file("---\nname: x\n", Code::SkillNameFormat), None);
    }
}
