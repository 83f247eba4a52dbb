//! TOML read with the byte span of every key and value (toml_edit's parser), for located
//! diagnostics on Codex `config.toml` and Gemini command files.

use std::path::Path;

use toml_edit::{ImDocument, Item, Key, TableLike, Value};

use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange};

/// A parsed file, or the parser's message and where it stopped.
pub type Parsed = Result<ImDocument<String>, (TextRange, String)>;

/// Parses `text` (the whole first line is the range when the parser gives none).
pub fn parse(text: &str) -> Parsed {
    ImDocument::parse(text.to_string()).map_err(|e| {
        let whole = TextRange::new(0, text.find(['\r', '\n']).unwrap_or(text.len()));
        let r = e
            .span()
            .map_or(whole, |r| TextRange::new(r.start, r.end.max(r.start)));
        (r, e.message().trim().to_string())
    })
}

/// The range of an item (`fallback` when the parser kept none, as for an implicit table).
#[must_use]
pub fn item_range(i: &Item, fallback: TextRange) -> TextRange {
    i.span()
        .map_or(fallback, |r| TextRange::new(r.start, r.end))
}

/// The range of a key.
#[must_use]
pub fn key_range(k: &Key, fallback: TextRange) -> TextRange {
    k.span()
        .map_or(fallback, |r| TextRange::new(r.start, r.end))
}

/// A table or an inline table.
#[must_use]
pub fn table(i: &Item) -> Option<&dyn TableLike> {
    i.as_table_like()
}

/// What a value is, in the words of the messages (`a string`, `an integer`, …).
#[must_use]
pub fn describe(i: &Item) -> &'static str {
    match i {
        Item::None => "nothing",
        Item::Table(_) => "a table",
        Item::ArrayOfTables(_) => "an array of tables",
        Item::Value(v) => match v {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Boolean(_) => "a boolean",
            Value::Datetime(_) => "a date-time",
            Value::Array(_) => "an array",
            Value::InlineTable(_) => "an inline table",
        },
    }
}

/// The expected shape of a key's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueShape {
    Str,
    Bool,
    /// An integer or a float.
    Number,
    /// A non-negative integer.
    Unsigned,
    /// An array of strings.
    Strings,
    /// An array of strings or tables (Codex `env_vars`).
    StringsOrTables,
    /// A table whose values are strings.
    StringTable,
    /// Any table.
    Table,
    /// One of these strings.
    OneOf(&'static [&'static str]),
}

impl ValueShape {
    /// `None` when `i` fits, else what the message says it must be.
    #[must_use]
    pub fn mismatch(self, i: &Item) -> Option<String> {
        let fits = match self {
            ValueShape::Str => i.as_str().is_some(),
            ValueShape::Bool => i.as_bool().is_some(),
            ValueShape::Number => i.as_integer().is_some() || i.as_float().is_some(),
            ValueShape::Unsigned => i.as_integer().is_some_and(|n| n >= 0),
            ValueShape::Strings => i
                .as_array()
                .is_some_and(|a| a.iter().all(|v| v.as_str().is_some())),
            ValueShape::StringsOrTables => i.as_array().is_some_and(|a| {
                a.iter()
                    .all(|v| v.as_str().is_some() || v.as_inline_table().is_some())
            }),
            ValueShape::StringTable => {
                table(i).is_some_and(|t| t.iter().all(|(_, v)| v.as_str().is_some()))
            }
            ValueShape::Table => table(i).is_some(),
            ValueShape::OneOf(set) => i.as_str().is_some_and(|s| set.contains(&s)),
        };
        if fits {
            return None;
        }
        Some(match self {
            ValueShape::Str => format!("must be a string, not {}", describe(i)),
            ValueShape::Bool => format!("must be `true` or `false`, not {}", describe(i)),
            ValueShape::Number => format!("must be a number, not {}", describe(i)),
            ValueShape::Unsigned => "must be a non-negative integer".to_string(),
            ValueShape::Strings => "must be an array of strings".to_string(),
            ValueShape::StringsOrTables => "must be an array of strings or tables".to_string(),
            ValueShape::StringTable => "must be a table whose values are strings".to_string(),
            ValueShape::Table => format!("must be a table, not {}", describe(i)),
            ValueShape::OneOf(set) => format!(
                "must be one of {}",
                set.iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }
}

/// A located diagnostic of `path`.
#[must_use]
pub fn diag(
    path: &Path,
    text: &str,
    r: TextRange,
    severity: Severity,
    code: Code,
    msg: String,
) -> Diagnostic {
    Diagnostic::new(path, LineIndex::new(text).span(r), severity, code, msg)
}
