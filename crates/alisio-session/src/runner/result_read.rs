//! `result_read` (spec/governor.md §3.3, issue 13 §1): the stored text of an earlier tool result of
//! this session, exactly. Results are stored whole; what the model was shown may be cut or
//! replaced by a stub, and this tool gives the rest back. Its own results are never cut.

use serde_json::{Map, Value, json};

use crate::store::Store;

const DEFAULT_LIMIT: usize = 16_000;
const MAX_LIMIT: usize = 32_000;

/// The result text of a stored tool message: its text parts, concatenated (spec/governor.md §2.2).
fn text_of(message_json: &str) -> Option<String> {
    let v: Value = serde_json::from_str(message_json).ok()?;
    Some(
        v.get("content")?
            .as_array()?
            .iter()
            .filter(|p| p["type"] == "text")
            .filter_map(|p| p["text"].as_str())
            .collect(),
    )
}

/// `[from, to)` in UTF-16 units, never splitting a surrogate pair (`to` moves back).
fn slice(units: &[u16], from: usize, to: usize) -> (String, usize) {
    let mut to = to.min(units.len());
    if to > from && to < units.len() && (0xDC00..0xE000).contains(&units[to]) {
        to -= 1;
    }
    (String::from_utf16_lossy(&units[from..to]), to)
}

/// The matching lines of `text` from line `first` on, as `<line>: <text>`, within `limit`
/// characters: (text, the offset after the last included line or `None` at the end).
fn grep(text: &str, re: &regex::Regex, offset: usize, limit: usize) -> (String, Option<usize>) {
    let mut out = String::new();
    let mut at = 0usize;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let start = at;
        at += line.encode_utf16().count();
        if start < offset {
            continue;
        }
        let body = line.strip_suffix('\n').unwrap_or(line);
        if re.is_match(body) {
            let row = format!("{}: {body}\n", n + 1);
            if !out.is_empty() && out.encode_utf16().count() + row.encode_utf16().count() > limit {
                return (out, Some(start));
            }
            out.push_str(&row);
        }
    }
    (out, None)
}

/// Runs `result_read` for session `sid`: `(is_error, text)`.
pub(super) fn run(store: &Store, sid: &str, a: &Map<String, Value>) -> (bool, String) {
    let id = a.get("callId").and_then(Value::as_str).unwrap_or_default();
    let offset = a
        .get("offset")
        .and_then(Value::as_u64)
        .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let limit = a
        .get("limit")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_LIMIT, |n| usize::try_from(n).unwrap_or(MAX_LIMIT))
        .clamp(1, MAX_LIMIT);
    let calls = match store.calls(sid) {
        Ok(c) => c,
        Err(e) => return (true, format!("result_read: {e}")),
    };
    let Some(text) = calls
        .get(id)
        .and_then(|c| c.result.as_deref())
        .and_then(text_of)
    else {
        return (
            true,
            format!(
                "result_read: no result with callId {} in this session (a callId of another session, or of a call still running, is not readable)",
                serde_json::to_string(id).unwrap_or_default()
            ),
        );
    };
    let units: Vec<u16> = text.encode_utf16().collect();
    let total = units.len();
    let from = offset.min(total);
    let (body, next) = match a.get("pattern").and_then(Value::as_str) {
        Some(p) => match regex::Regex::new(p) {
            Ok(re) => grep(&text, &re, from, limit),
            Err(e) => return (true, format!("result_read: invalid pattern: {e}")),
        },
        None => {
            let (t, to) = slice(&units, from, from.saturating_add(limit));
            (t, (to < total).then_some(to))
        }
    };
    (
        false,
        json!({"callId": id, "offset": from, "nextOffset": next, "totalChars": total, "text": body})
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_never_split_a_surrogate_pair() {
        let u: Vec<u16> = "a😀b".encode_utf16().collect();
        assert_eq!(slice(&u, 0, 2), ("a".to_owned(), 1));
        assert_eq!(slice(&u, 0, 3), ("a😀".to_owned(), 3));
        assert_eq!(slice(&u, 3, 99), ("b".to_owned(), 4));
    }

    #[test]
    fn grep_lists_matching_lines_with_numbers_and_pages() {
        let re = regex::Regex::new("err").unwrap_or_else(|e| panic!("{e}"));
        let t = "ok\nerr one\nok\nerr two\n";
        assert_eq!(
            grep(t, &re, 0, 1000),
            ("2: err one\n4: err two\n".to_owned(), None)
        );
        assert_eq!(grep(t, &re, 0, 12), ("2: err one\n".to_owned(), Some(14)));
        assert_eq!(grep(t, &re, 14, 1000), ("4: err two\n".to_owned(), None));
    }
}
