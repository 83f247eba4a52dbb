//! Stubs (spec/governor.md §4): the one-line ASCII text an elided result becomes, stub quoting Q(s),
//! and canonical JSON (spec/governor.md §0) used for comparisons.

use serde_json::Value;
use std::fmt::Write as _;

use super::model::Class;

/// The elision reasons (spec/governor.md §3.1), in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    SupersededRead,
    StaleBgOutput,
    DuplicateSearch,
    /// Policy 2 (spec/governor.md §3.3).
    Oversized,
    AgedOutput,
    Expired,
    /// Denial pruning (spec/governor.md §3.4).
    Denied,
}

impl Reason {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SupersededRead => "superseded_read",
            Self::StaleBgOutput => "stale_bg_output",
            Self::DuplicateSearch => "duplicate_search",
            Self::Oversized => "oversized",
            Self::AgedOutput => "aged_output",
            Self::Expired => "expired",
            Self::Denied => "denied",
        }
    }
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::SupersededRead,
            Self::StaleBgOutput,
            Self::DuplicateSearch,
            Self::Oversized,
            Self::AgedOutput,
            Self::Expired,
            Self::Denied,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

/// Q(s): a JSON string literal in printable ASCII (spec/governor.md §4.2).
#[must_use]
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for u in s.encode_utf16() {
        match u {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x20..=0x7E => out.push(char::from(u as u8)),
            _ => {
                let _ = write!(out, "\\u{u:04x}");
            }
        }
    }
    out.push('"');
    out
}

/// The stub of an elided result, from its own call and result only (spec/governor.md §4.1).
#[must_use]
pub fn stub(class: &Class) -> Option<String> {
    match class {
        Class::Read {
            shown,
            lines,
            sha256,
            ..
        } => {
            let h = sha256
                .as_deref()
                .and_then(|s| s.get(..8))
                .unwrap_or("unknown");
            let lines = lines
                .map(|(s, l)| format!(" lines {s}+{l}"))
                .unwrap_or_default();
            Some(format!(
                "[elided: read_file {}@{h}{lines}; re-read to view]",
                quote(shown)
            ))
        }
        Class::Bg { task, offset, .. } => Some(format!(
            "[elided: bg_output {} offset {offset}; a later bg_output covers it]",
            quote(task)
        )),
        Class::Search { shown, .. } => Some(format!(
            "[elided: search_text {}; identical to a later result]",
            quote(shown)
        )),
        _ => None,
    }
}

/// Canonical JSON (spec/governor.md §0): keys sorted by UTF-16 code unit, no whitespace, numbers by value.
#[must_use]
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 9.0e15 {
                    let _ = write!(out, "{}", f as i64);
                } else {
                    let _ = write!(out, "{f}");
                }
            }
        }
        Value::String(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(':');
                if let Some(x) = m.get(*k) {
                    write_canonical(x, out);
                }
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str, lines: Option<(u64, u64)>, sha: Option<&str>) -> Class {
        Class::Read {
            key: Some(path.into()),
            shown: path.into(),
            lines,
            sha256: sha.map(|s| format!("{s:0<64}")),
            compare: None,
        }
    }

    fn bg(task: &str, offset: u64) -> Class {
        Class::Bg {
            task: task.into(),
            offset,
            limit: 16384,
            cursor: false,
            next_offset: None,
            empty: false,
        }
    }

    fn search(p: &str) -> Class {
        Class::Search {
            signature: String::new(),
            shown: p.into(),
            records: None,
        }
    }

    #[test]
    fn worked_examples_of_section_4_3_are_reproduced_byte_for_byte() {
        let cases: Vec<(Class, &str, usize)> = vec![
            (
                read("src/a.ts", None, Some("1a2b3c4d")),
                "[elided: read_file \"src/a.ts\"@1a2b3c4d; re-read to view]",
                56,
            ),
            (
                read("src/a.ts", Some((10, 50)), Some("1a2b3c4d")),
                "[elided: read_file \"src/a.ts\"@1a2b3c4d lines 10+50; re-read to view]",
                68,
            ),
            (
                read("logs/big.log", Some((5, 200)), None),
                "[elided: read_file \"logs/big.log\"@unknown lines 5+200; re-read to view]",
                71,
            ),
            (
                read("docs/é.md", None, Some("00ff00ff")),
                "[elided: read_file \"docs/\\u00e9.md\"@00ff00ff; re-read to view]",
                62,
            ),
            (
                read("C:\\src\\a.ts", None, None),
                "[elided: read_file \"C:\\\\src\\\\a.ts\"@unknown; re-read to view]",
                60,
            ),
            (
                bg("task-7", 0),
                "[elided: bg_output \"task-7\" offset 0; a later bg_output covers it]",
                66,
            ),
            (
                bg("t1", 300),
                "[elided: bg_output \"t1\" offset 300; a later bg_output covers it]",
                64,
            ),
            (
                search("fn \"main\"\n"),
                "[elided: search_text \"fn \\\"main\\\"\\n\"; identical to a later result]",
                66,
            ),
            (
                search("😀 TODO"),
                "[elided: search_text \"\\ud83d\\ude00 TODO\"; identical to a later result]",
                70,
            ),
        ];
        for (class, want, len) in cases {
            let got = stub(&class).unwrap();
            assert_eq!(got, want);
            assert_eq!(got.len(), len, "{got}");
            assert!(got.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !got.ends_with(' '));
        }
    }

    #[test]
    fn ascii_search_stub_is_53_plus_pattern_length() {
        assert_eq!(stub(&search("abcdefg")).unwrap().len(), 53 + 7);
    }

    #[test]
    fn quoting_escapes_controls_del_and_non_ascii() {
        assert_eq!(
            quote("a\u{1}\u{7f}\t/\u{8}\u{c}\r"),
            "\"a\\u0001\\u007f\\t/\\b\\f\\r\""
        );
    }

    #[test]
    fn canonical_json_sorts_keys_and_compares_numbers_by_value() {
        let v: Value = serde_json::from_str(r#"{"b":2.0,"a":[1,{"d":null,"c":"x"}]}"#).unwrap();
        assert_eq!(canonical(&v), r#"{"a":[1,{"c":"x","d":null}],"b":2}"#);
    }
}
