//! `result_read` (spec/governor.md §3.3, issue 13 §1): the stored text of an earlier tool result of
//! this session, exactly. Results are stored whole; what the model was shown may be cut or
//! replaced by a stub, and this tool gives the rest back. Its own results are never cut.

use crate::tools::error::ToolReturn;
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

/// A matching line longer than this is cut (its row says how many characters were left out).
const LINE_MAX: usize = 2_000;

fn cut_units(s: &str, max: usize) -> &str {
    let mut u = 0;
    for (i, c) in s.char_indices() {
        u += c.len_utf16();
        if u > max {
            return &s[..i];
        }
    }
    s
}

/// The matching lines of `text` (its real lines, so `^` and `$` anchor on them) from character
/// `offset` on, as `<line>: <text>\n`, within `limit` characters in all (a line longer than
/// [`LINE_MAX`] is cut and says so; a first row longer than `limit` is cut to it): (text, the
/// offset of the first matching line left out or `None`, the number of matching lines left out).
fn grep(
    text: &str,
    re: &regex::Regex,
    offset: usize,
    limit: usize,
) -> (String, Option<usize>, usize) {
    let mut out = String::new();
    let mut used = 0usize;
    let mut at = 0usize;
    let mut next = None;
    let mut left = 0usize;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let start = at;
        at += line.encode_utf16().count();
        if start < offset {
            continue;
        }
        let body = line.strip_suffix('\n').unwrap_or(line);
        if !re.is_match(body) {
            continue;
        }
        if next.is_some() {
            left += 1;
            continue;
        }
        let len = body.encode_utf16().count();
        let mut row = if len > LINE_MAX {
            format!(
                "{}: {} [line cut: {} more chars]\n",
                n + 1,
                cut_units(body, LINE_MAX),
                len - LINE_MAX
            )
        } else {
            format!("{}: {body}\n", n + 1)
        };
        let mut row_len = row.encode_utf16().count();
        if used + row_len > limit {
            if used > 0 {
                next = Some(start);
                left += 1;
                continue;
            }
            row = cut_units(&row, limit).to_owned();
            row_len = row.encode_utf16().count();
        }
        used += row_len;
        out.push_str(&row);
    }
    (out, next, left)
}

/// The text `result_read` reads of a stored result: the raw text of one of its top-level string
/// fields when it is a JSON object (`field`, default the longest: the one a spill stub cuts
/// first), else the whole text. Gives `(field name, text)` or the error message.
fn field_text(text: &str, field: Option<&str>) -> ToolReturn<(Option<String>, String)> {
    use alisio_governor::policy2::fields;
    let Some(fs) = fields::string_fields(text) else {
        return match field {
            None => Ok((None, text.to_owned())),
            Some(f) => Err(format!(
                "result_read: field {} given, but this result is plain text (read it without field)",
                serde_json::to_string(f).unwrap_or_default()
            )
            .into()),
        };
    };
    let name = match field {
        Some(f) => f.to_owned(),
        None => match fields::default_field(text) {
            Some(d) => d,
            None => return Ok((None, text.to_owned())),
        },
    };
    let Some((_, span)) = fs.iter().find(|(k, _)| *k == name) else {
        let names: Vec<String> = fs
            .iter()
            .map(|(k, _)| serde_json::to_string(k).unwrap_or_default())
            .collect();
        return Err(format!(
            "result_read: no string field {} in this result; its string fields: {}",
            serde_json::to_string(&name).unwrap_or_default(),
            names.join(", ")
        )
        .into());
    };
    let raw: String = serde_json::from_str(&text[span.start - 1..=span.end])
        .map_err(|e| format!("result_read: {e}"))?;
    Ok((Some(name), raw))
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
    let Some(stored) = calls
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
    let (field, text) = match field_text(&stored, a.get("field").and_then(Value::as_str)) {
        Ok(x) => x,
        Err(e) => return (true, e.to_string()),
    };
    let units: Vec<u16> = text.encode_utf16().collect();
    let total = units.len();
    let from = offset.min(total);
    let mut out = json!({"callId": id, "field": field, "offset": from});
    match a.get("pattern").and_then(Value::as_str) {
        Some(p) => match regex::Regex::new(p) {
            Ok(re) => {
                let (body, next, left) = grep(&text, &re, from, limit);
                out["nextOffset"] = json!(next);
                out["matchesLeft"] = json!(left);
                out["text"] = json!(body);
            }
            Err(e) => return (true, format!("result_read: invalid pattern: {e}")),
        },
        None => {
            let (t, to) = slice(&units, from, from.saturating_add(limit));
            out["nextOffset"] = json!((to < total).then_some(to));
            out["text"] = json!(t);
        }
    }
    out["totalChars"] = json!(total);
    out["totalLines"] = json!(alisio_governor::policy2::fields::lines(&text));
    (false, out.to_string())
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
            ("2: err one\n4: err two\n".to_owned(), None, 0)
        );
        assert_eq!(
            grep(t, &re, 0, 12),
            ("2: err one\n".to_owned(), Some(14), 1)
        );
        assert_eq!(grep(t, &re, 14, 1000), ("4: err two\n".to_owned(), None, 0));
        // A first row longer than the limit is cut to it.
        assert_eq!(grep(t, &re, 0, 5), ("2: er".to_owned(), Some(14), 1));
    }

    /// Issue 21 §2: on the 40,000-line stdout of `seq 1 40000`, a pattern with `^` and `$`
    /// matches real lines and the answer obeys `limit`.
    #[test]
    fn a_pattern_on_a_40000_line_output_obeys_the_limit_with_exact_lines() {
        let stdout: String = (1..=40_000).map(|i| format!("{i}\n")).collect();
        let stored = json!({"stdout": stdout, "stderr": "", "exitCode": 0}).to_string();
        let (field, text) = field_text(&stored, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(field.as_deref(), Some("stdout"));
        assert_eq!(text, stdout);
        let re = regex::Regex::new("^1.*7$").unwrap_or_else(|e| panic!("{e}"));
        let (body, next, left) = grep(&text, &re, 0, 100);
        assert_eq!(
            body,
            "17: 17\n107: 107\n117: 117\n127: 127\n137: 137\n147: 147\n157: 157\n167: 167\n177: 177\n187: 187\n197: 197\n"
        );
        assert_eq!(body.len(), 97);
        // 1,111 lines of 1..=40000 start with 1 and end with 7; 11 are shown.
        assert_eq!(left, 1_100);
        assert_eq!(next, Some(text.find("1007\n").unwrap_or_default()));
        let (all, _, none) = grep(
            &text,
            &regex::Regex::new("^40000$").unwrap_or_else(|e| panic!("{e}")),
            0,
            100,
        );
        assert_eq!((all.as_str(), none), ("40000: 40000\n", 0));
        // A field that does not exist, and a field on plain text, are clear errors.
        assert_eq!(
            field_text(&stored, Some("out")).unwrap_err().to_string(),
            "result_read: no string field \"out\" in this result; its string fields: \"stdout\", \"stderr\""
        );
        assert!(field_text("plain", Some("stdout")).is_err());
        assert_eq!(field_text("plain", None), Ok((None, "plain".to_owned())));
    }
}
