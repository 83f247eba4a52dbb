//! Spilling content, not envelopes (spec/governor.md §4.1, issue 21 §2): the long string fields of
//! a JSON object result (`stdout`, `stderr`, a file's `content`, a search's match list in its
//! `stdout`, a sub-session's `text`) are cut one by one and the rest of the structure is kept; a
//! result that is not a JSON object is one text, cut as a whole.

use std::ops::Range;

use serde_json::Value;

use crate::tokens::utf16_len;

/// One text a spill stub cuts: the field's name (`None`: the whole result), its raw (decoded)
/// text, the byte span of its value in the result text (between the quotes for a field), and
/// where its head ends and its tail starts in the raw text (bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    pub name: Option<String>,
    pub raw: String,
    pub span: Range<usize>,
    pub head: usize,
    pub tail: usize,
}

impl Cut {
    /// Characters (UTF-16 units) of the raw text.
    #[must_use]
    pub fn chars(&self) -> usize {
        utf16_len(&self.raw)
    }
    /// Lines of the raw text: its newlines, plus one when the last line has none.
    #[must_use]
    pub fn lines(&self) -> u64 {
        lines(&self.raw)
    }
    /// Characters left out between the head and the tail.
    #[must_use]
    pub fn omitted(&self) -> usize {
        utf16_len(&self.raw[self.head..self.tail])
    }
}

/// The real line count of a text: `"1\n2\n"` has 2 lines, `"1\n2"` 2, `""` 0.
#[must_use]
pub fn lines(s: &str) -> u64 {
    let n = s.bytes().filter(|b| *b == b'\n').count() as u64;
    n + u64::from(!s.is_empty() && !s.ends_with('\n'))
}

/// The top-level string fields of a JSON object text, each with the byte span of its value
/// (between the quotes), in text order; `None` when the text is not one JSON object.
#[must_use]
pub fn string_fields(text: &str) -> Option<Vec<(String, Range<usize>)>> {
    let b = text.as_bytes();
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut out = Vec::new();
    loop {
        i = ws(b, i);
        match b.get(i)? {
            b'}' => break,
            b'"' => {}
            _ => return None,
        }
        let k_end = string_end(b, i)?;
        let key: String = serde_json::from_str(&text[i..=k_end]).ok()?;
        i = ws(b, k_end + 1);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = ws(b, i + 1);
        if b.get(i) == Some(&b'"') {
            let end = string_end(b, i)?;
            out.push((key, i + 1..end));
            i = end + 1;
        } else {
            i = skip_value(b, i)?;
        }
        i = ws(b, i);
        match b.get(i)? {
            b',' => i += 1,
            b'}' => break,
            _ => return None,
        }
    }
    (ws(b, i + 1) == b.len()).then_some(out)
}

fn ws(b: &[u8], mut i: usize) -> usize {
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    i
}

/// The index of the quote closing the string that opens at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j),
            _ => j += 1,
        }
    }
    None
}

/// The index just after the (non-string) value that starts at `i`.
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => i = string_end(b, i)?,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then_some(i)
}

/// The byte offset in the escaped `span` of `text` after `units` UTF-16 units of decoded text.
fn escaped_offset(text: &str, span: &Range<usize>, units: usize) -> usize {
    let b = text.as_bytes();
    let (mut j, mut u) = (span.start, 0);
    while j < span.end && u < units {
        if b[j] == b'\\' {
            j += if b.get(j + 1) == Some(&b'u') { 6 } else { 2 };
            u += 1;
        } else {
            let c = text[j..].chars().next().map_or(1, char::len_utf8);
            u += text[j..j + c].encode_utf16().count();
            j += c;
        }
    }
    j.min(span.end)
}

impl Cut {
    /// The bytes of the result text this cut hides (its value between head and tail).
    #[must_use]
    pub fn hidden(&self, text: &str) -> Range<usize> {
        if self.name.is_none() {
            return self.head..self.tail;
        }
        let h = utf16_len(&self.raw[..self.head]);
        let t = utf16_len(&self.raw[..self.tail]);
        escaped_offset(text, &self.span, h)..escaped_offset(text, &self.span, t)
    }
}

/// What a spill stub of `text` cuts, longest text first: for a JSON object, its top-level string
/// fields longer than `head + tail` characters, cutting the longest first until what is left
/// is at most `threshold` characters; otherwise the whole text. Empty: nothing to cut.
#[must_use]
pub fn plan(
    text: &str,
    threshold: usize,
    head: usize,
    tail: usize,
    head_end: impl Fn(&str, usize) -> usize,
    tail_start: impl Fn(&str, usize) -> usize,
) -> Vec<Cut> {
    let cut = |name: Option<String>, raw: String, span: Range<usize>| {
        let h = head_end(&raw, head);
        let t = tail_start(&raw, tail).max(h);
        Cut {
            name,
            raw,
            span,
            head: h,
            tail: t,
        }
    };
    let Some(fields) = string_fields(text) else {
        let c = cut(None, text.to_owned(), 0..text.len());
        return if c.tail > c.head { vec![c] } else { Vec::new() };
    };
    let mut cands: Vec<Cut> = fields
        .into_iter()
        .filter_map(|(name, span)| {
            let raw: String = serde_json::from_str(&text[span.start - 1..=span.end]).ok()?;
            (utf16_len(&raw) > head + tail).then(|| cut(Some(name), raw, span))
        })
        .filter(|c| c.tail > c.head)
        .collect();
    // Longest first; a stable sort keeps text order on ties.
    cands.sort_by_key(|c| std::cmp::Reverse(c.chars()));
    let mut left = utf16_len(text);
    let mut out = Vec::new();
    for c in cands {
        if left <= threshold {
            break;
        }
        left = left.saturating_sub(c.omitted());
        out.push(c);
    }
    out
}

/// The result text with every cut field's value replaced by its head, an omission line and its
/// tail (the JSON structure kept; a plain text is cut the same way).
#[must_use]
pub fn cut_text(text: &str, cuts: &[Cut]) -> String {
    let part = |c: &Cut| {
        format!(
            "{}\n[... {} chars omitted ...]\n{}",
            &c.raw[..c.head],
            c.omitted(),
            &c.raw[c.tail..]
        )
    };
    match cuts.first() {
        Some(c) if c.name.is_none() => part(c),
        _ => {
            let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(text) else {
                return text.to_owned();
            };
            for c in cuts {
                if let Some(name) = &c.name {
                    m.insert(name.clone(), Value::String(part(c)));
                }
            }
            Value::Object(m).to_string()
        }
    }
}

/// The field `result_read` reads by default: the longest top-level string field of a JSON
/// object result (the first on a tie), which is the first one a spill stub cuts.
#[must_use]
pub fn default_field(text: &str) -> Option<String> {
    let fields = string_fields(text)?;
    let mut best: Option<(usize, String)> = None;
    for (name, span) in fields {
        let raw: String = serde_json::from_str(&text[span.start - 1..=span.end]).ok()?;
        let n = utf16_len(&raw);
        if best.as_ref().is_none_or(|b| n > b.0) {
            best = Some((n, name));
        }
    }
    best.map(|b| b.1)
}
