//! `skill-arguments-in-code` (spec/skills.md §11.2): the placeholders Claude Code 2.1.332
//! substitutes in a skill's body when it is invoked with arguments (`$ARGUMENTS`,
//! `$ARGUMENTS[N]`, `$N` not followed by a word character; `\$` before one keeps it), found
//! where the author meant the text as written: `$N` inside code (a code span or a code block)
//! or in a price (`$1.50`, `$1,000`, `$5/month`, `$5 per …`), `$ARGUMENTS` inside a code block
//! (in a code span it marks the placeholder the author means).

use pulldown_cmark::{Event, Options, Parser, Tag};

use super::Finding;
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

/// The byte ranges of code in `body`, in order, each with `true` for a code block (`false`: a
/// code span).
pub(super) fn code_ranges(body: &str) -> Vec<(std::ops::Range<usize>, bool)> {
    Parser::new_ext(body, Options::empty())
        .into_offset_iter()
        .filter_map(|(ev, r)| match ev {
            Event::Code(_) => Some((r, false)),
            Event::Start(Tag::CodeBlock(_)) => Some((r, true)),
            _ => None,
        })
        .collect()
}

/// One placeholder at `at` in `s`: its length, and the argument index it takes (`None` for
/// `$ARGUMENTS`, which takes them all).
fn placeholder(s: &[u8], at: usize) -> Option<(usize, Option<u64>)> {
    let rest = &s[at + 1..];
    let digits = |b: &[u8]| b.iter().take_while(|c| c.is_ascii_digit()).count();
    if let Some(r) = rest.strip_prefix(b"ARGUMENTS") {
        if let Some(inner) = r.strip_prefix(b"[") {
            let n = digits(inner);
            if n > 0 && inner.get(n) == Some(&b']') {
                let idx = std::str::from_utf8(&inner[..n]).ok()?.parse().ok();
                return Some((1 + 9 + 1 + n + 1, idx.or(Some(u64::MAX))));
            }
        }
        return Some((1 + 9, None));
    }
    let n = digits(rest);
    let word = |c: &u8| c.is_ascii_alphanumeric() || *c == b'_';
    if n == 0 || rest.get(n).is_some_and(word) {
        return None;
    }
    let idx = std::str::from_utf8(&rest[..n])
        .ok()?
        .parse()
        .unwrap_or(u64::MAX);
    Some((1 + n, Some(idx)))
}

/// `$N` in prose that reads as an amount of money.
fn is_price(s: &[u8], end: usize) -> bool {
    match s.get(end) {
        Some(b'.' | b',') => s.get(end + 1).is_some_and(u8::is_ascii_digit),
        Some(b'/') => true,
        Some(b' ') => s[end + 1..].starts_with(b"per "),
        _ => false,
    }
}

fn message(token: &str, idx: Option<u64>, place: &str) -> String {
    match idx {
        None => format!(
            "Claude Code substitutes \"{token}\" {place} with the skill's arguments whenever it is invoked with arguments; write \\{token} to keep it as written"
        ),
        Some(i) => format!(
            "Claude Code substitutes \"{token}\" {place} with the argument at index {i} (counting from 0) when the skill is invoked with at least {} argument{}; write \\{token} to keep it as written",
            i.saturating_add(1),
            if i == 0 { "" } else { "s" }
        ),
    }
}

/// The placeholders of the body (from `body_start` in `text`) inside code or in a price.
pub(super) fn in_code(text: &str, body_start: usize) -> Vec<Finding> {
    let body = &text[body_start.min(text.len())..];
    let b = body.as_bytes();
    // The placeholders first (`$HOME`, `${VAR}` and `$(…)` are none): a body without one is
    // not parsed as Markdown at all.
    let mut found: Vec<(usize, usize, Option<u64>)> = Vec::new();
    let mut from = 0;
    while let Some(off) = memchr::memchr(b'$', &b[from..]) {
        let at = from + off;
        from = at + 1;
        let escaped = at >= 1 && b[at - 1] == b'\\' && !(at >= 2 && b[at - 2] == b'\\');
        let Some((len, idx)) = placeholder(b, at).filter(|_| !escaped) else {
            continue;
        };
        found.push((at, len, idx));
    }
    if found.is_empty() {
        return Vec::new();
    }
    let code = code_ranges(body);
    let mut out = Vec::new();
    // A placeholder reported is skipped over: the next one looked at starts after it.
    let mut next = 0;
    for (at, len, idx) in found {
        if at < next {
            continue;
        }
        let end = at + len;
        let named = body[at..end].starts_with("$ARGUMENTS");
        // `$ARGUMENTS` in a code span is how authors mark the placeholder they mean; in a code
        // block it is text shown as written (a command file, a template).
        let in_code = code
            .iter()
            .any(|(r, block)| r.start <= at && end <= r.end && (*block || !named));
        let place = if in_code {
            "inside code"
        } else if !named && is_price(b, end) {
            "in a price"
        } else {
            continue;
        };
        let token = &body[at..end];
        out.push(Finding::new(
            Code::SkillArgumentsInCode,
            TextRange::new(body_start + at, body_start + end),
            message(token, idx, place),
        ));
        next = end;
    }
    out
}
