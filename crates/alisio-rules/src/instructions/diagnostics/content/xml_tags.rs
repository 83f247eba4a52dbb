//! `instructions-xml-unbalanced` (spec/instructions.md §5.5): an XML-style tag on a line of its
//! own (`<example>`, `</instructions>`) that is never closed, closes another tag, or closes
//! nothing. A model reads such tags as structure, so an unclosed one puts the rest of the file
//! "inside" it. Only tags alone on their line count (a tag inside a sentence, such as `<id>`,
//! is a placeholder), and nothing inside a code fence.

use alisio_base::text::TextRange;

/// HTML elements that never close (`<br>`, `<img …>`).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// One finding: the tag's range and what is wrong.
#[derive(Debug, PartialEq, Eq)]
pub enum Unbalanced {
    /// `<name>` that no `</name>` closes.
    Unclosed(String),
    /// `</name>` while `<open>` is the innermost open tag.
    Mismatched { name: String, open: String },
    /// `</name>` with no open tag of that name.
    Unmatched(String),
}

fn name_ok(n: &str) -> bool {
    let mut c = n.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic())
        && c.all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.' | ':'))
}

/// The tag of a line that is only a tag: `(closing, name)`.
fn tag_of(line: &str) -> Option<(bool, &str)> {
    let t = line.trim();
    let inner = t.strip_prefix('<')?.strip_suffix('>')?;
    if inner.contains(['<', '>']) || inner.ends_with('/') || inner.starts_with(['!', '?']) {
        return None;
    }
    if let Some(n) = inner.strip_prefix('/') {
        let n = n.trim_end();
        return name_ok(n).then_some((true, n));
    }
    let n = inner.split_whitespace().next()?;
    if !name_ok(n) || VOID.contains(&n.to_ascii_lowercase().as_str()) {
        return None;
    }
    // Attributes must look like attributes (`a="b"`), not a sentence in brackets.
    let rest = inner[n.len()..].trim();
    if !rest.is_empty() && !rest.contains('=') {
        return None;
    }
    Some((false, n))
}

/// Every unbalanced tag of `text`, in order.
#[must_use]
pub fn unbalanced(text: &str) -> Vec<(TextRange, Unbalanced)> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, TextRange)> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let t = content.trim_start();
        if let Some(ch @ ('`' | '~')) = t.chars().next() {
            let run = t.chars().take_while(|c| *c == ch).count();
            if run >= 3 {
                match fence {
                    None => fence = Some((ch, run)),
                    Some((c, n)) if c == ch && run >= n && t[run..].trim().is_empty() => {
                        fence = None;
                    }
                    Some(_) => {}
                }
                continue;
            }
        }
        if fence.is_some() {
            continue;
        }
        let Some((closing, name)) = tag_of(content) else {
            continue;
        };
        let lead = content.len() - t.len();
        let r = TextRange::new(start + lead, start + content.trim_end().len());
        if !closing {
            stack.push((name.to_string(), r));
            continue;
        }
        match stack.iter().rposition(|(n, _)| n == name) {
            Some(i) if i + 1 == stack.len() => {
                stack.pop();
            }
            Some(i) => {
                let open = stack.last().map(|(n, _)| n.clone()).unwrap_or_default();
                out.push((
                    r,
                    Unbalanced::Mismatched {
                        name: name.to_string(),
                        open,
                    },
                ));
                stack.truncate(i);
            }
            None => out.push((r, Unbalanced::Unmatched(name.to_string()))),
        }
    }
    for (n, r) in stack {
        out.push((r, Unbalanced::Unclosed(n)));
    }
    out.sort_by_key(|(r, _)| r.start);
    out
}

/// The message of a finding.
#[must_use]
pub fn message(u: &Unbalanced) -> String {
    match u {
        Unbalanced::Unclosed(n) => format!(
            "<{n}> is never closed: a model reads the rest of the file as inside it (add </{n}>)"
        ),
        Unbalanced::Mismatched { name, open } => {
            format!(
                "</{name}> closes <{name}> while <{open}> is still open (close </{open}> first)"
            )
        }
        Unbalanced::Unmatched(n) => format!("</{n}> closes no open <{n}> tag"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_tags_placeholders_and_code_are_fine() {
        assert!(unbalanced("<example>\nText.\n</example>\n").is_empty());
        assert!(unbalanced("<outer>\n  <inner a=\"1\">\n  x\n  </inner>\n</outer>\n").is_empty());
        // Inside a sentence, in code, void elements, comments and self-closing tags.
        assert!(unbalanced("Replace <id> with yours.\n<br>\n<!-- x -->\n<x/>\n").is_empty());
        assert!(unbalanced("```xml\n<a>\n```\n").is_empty());
        assert!(unbalanced("<see the docs>\n").is_empty());
    }

    #[test]
    fn unclosed_mismatched_and_unmatched_tags_have_their_ranges() {
        let t = "<example>\nnever closed\n";
        assert_eq!(
            unbalanced(t),
            [(TextRange::new(0, 9), Unbalanced::Unclosed("example".into()))]
        );
        let t = "<outer>\n<inner>\nContent here.\n</outer>\n</inner>";
        assert_eq!(
            unbalanced(t),
            [
                (
                    TextRange::new(30, 38),
                    Unbalanced::Mismatched {
                        name: "outer".into(),
                        open: "inner".into()
                    }
                ),
                (
                    TextRange::new(39, 47),
                    Unbalanced::Unmatched("inner".into())
                ),
            ]
        );
        let t = "Follow these guidelines.\n  </instructions>\n";
        assert_eq!(
            unbalanced(t),
            [(
                TextRange::new(27, 42),
                Unbalanced::Unmatched("instructions".into())
            )]
        );
        assert_eq!(
            message(&Unbalanced::Unclosed("example".into())),
            "<example> is never closed: a model reads the rest of the file as inside it (add </example>)"
        );
    }
}
