//! The SKILL.md frontmatter: our own line-based block finder (spec/skills.md §2.2) and a span-keeping
//! YAML reader built on saphyr-parser events (spec/skills.md §2.3).
//!
//! Invariant: every check that protects against hostile input (alias count, nesting depth,
//! tags, duplicate keys) runs on the event stream before a value is built, aliases are never
//! expanded, and nothing recurses on input depth; the tree we build is proportional to the text.

use std::collections::HashMap;

use saphyr_parser::ScalarStyle;

use alisio_base::config::Profile;
use alisio_base::text::TextRange;

#[cfg(test)]
mod tests;
mod yaml;

pub use yaml::parse_yaml;

/// More aliases than this is an error (spec/skills.md §2.3).
pub const MAX_ALIASES: usize = 20;
/// Collections nested deeper than this is an error; the top-level mapping is level 1.
pub const MAX_NESTING: usize = 32;

/// One line of a text: content `[start, end)` and the offset where the next line starts.
/// A line break is LF, CRLF or a lone CR and never belongs to the content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineBounds {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

/// The lines of `text` from `from`. A final line break does not start another line.
pub fn lines_from(text: &str, from: usize) -> impl Iterator<Item = LineBounds> + '_ {
    let b = text.as_bytes();
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= b.len() {
            return None;
        }
        let start = pos;
        let i = memchr::memchr2(b'\n', b'\r', &b[pos..]).map_or(b.len(), |n| pos + n);
        let end = i;
        let next = if i < b.len() && b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            i + 2
        } else if i < b.len() {
            i + 1
        } else {
            i
        };
        pos = next;
        Some(LineBounds { start, end, next })
    })
}

/// Why a file has no frontmatter (the first matching situation of spec/skills.md §2.2 step 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    Empty,
    Bom,
    BlankLines(usize),
    TrailingWhitespace,
    Other,
}

impl Missing {
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Self::Empty => {
                "SKILL.md is empty; it must start with a --- line followed by YAML frontmatter"
                    .into()
            }
            Self::Bom => {
                "the file starts with a UTF-8 byte order mark, so the first line is not exactly ---"
                    .into()
            }
            Self::BlankLines(n) => format!(
                "frontmatter must start on the first line; remove the {n} blank line(s) before ---"
            ),
            Self::TrailingWhitespace => {
                "the first line must be exactly --- (it has trailing whitespace)".into()
            }
            Self::Other => {
                "SKILL.md must start with a --- line followed by YAML frontmatter".into()
            }
        }
    }
}

/// Where the frontmatter block lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontmatterBlock {
    /// The opening `---` line's content.
    pub open: TextRange,
    /// The YAML text: the lines strictly between the markers, line breaks included.
    pub yaml: TextRange,
    /// The closing line's content.
    pub close: TextRange,
    /// The body starts after the closing line's line break.
    pub body_start: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    Block(FrontmatterBlock),
    Missing(Missing),
    /// An opening line without a closing one; the range is the opening line.
    Unterminated(TextRange),
}

fn is_marker(line: &str, profile: Profile) -> bool {
    if profile == Profile::Codex {
        line.trim() == "---"
    } else {
        line == "---"
    }
}

/// Finds the frontmatter block of `text` (BOM already removed; `bom` says whether there was
/// one, which profiles `spec` and `codex` reject).
#[must_use]
pub fn find_block(text: &str, bom: bool, profile: Profile) -> Found {
    if text.is_empty() {
        return Found::Missing(
            if bom && matches!(profile, Profile::Spec | Profile::Codex) {
                Missing::Bom
            } else {
                Missing::Empty
            },
        );
    }
    if bom && matches!(profile, Profile::Spec | Profile::Codex) {
        return Found::Missing(Missing::Bom);
    }
    let mut it = lines_from(text, 0);
    let Some(first) = it.next() else {
        return Found::Missing(Missing::Empty);
    };
    let l0 = &text[first.start..first.end];
    if !is_marker(l0, profile) {
        if l0.trim().is_empty() {
            for (n, l) in (1..).zip(lines_from(text, first.next)) {
                let s = &text[l.start..l.end];
                if s == "---" {
                    return Found::Missing(Missing::BlankLines(n));
                }
                if !s.trim().is_empty() {
                    break;
                }
            }
        }
        if l0.starts_with("---") && l0.trim_end() == "---" {
            return Found::Missing(Missing::TrailingWhitespace);
        }
        return Found::Missing(Missing::Other);
    }
    let open = TextRange::new(first.start, first.end);
    for l in it {
        if is_marker(&text[l.start..l.end], profile) {
            return Found::Block(FrontmatterBlock {
                open,
                yaml: TextRange::new(first.next, l.start),
                close: TextRange::new(l.start, l.end),
                body_start: l.next,
            });
        }
    }
    Found::Unterminated(open)
}

/// How a scalar was typed (core schema; everything is a string in strict mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Null,
    Bool(bool),
    Int,
    Float,
    Str,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Scalar {
        text: String,
        kind: ScalarKind,
        style: ScalarStyle,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
    Alias,
}

/// A YAML node with the byte span of its source in the whole SKILL.md text.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    pub span: TextRange,
    /// Written in flow style (`[…]`, `{…}`).
    pub flow: bool,
}

impl Node {
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar {
                text,
                kind: ScalarKind::Str,
                ..
            } => Some(text),
            _ => None,
        }
    }
    /// The scalar's text whatever its type.
    #[must_use]
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(
            self.value,
            Value::Scalar {
                kind: ScalarKind::Null,
                ..
            }
        )
    }
    /// `a number`, `a boolean`, `a list`, `a mapping`, … for messages.
    #[must_use]
    pub fn describe(&self) -> &'static str {
        match &self.value {
            Value::Scalar {
                kind: ScalarKind::Int | ScalarKind::Float,
                ..
            } => "a number",
            Value::Scalar {
                kind: ScalarKind::Bool(_),
                ..
            } => "a boolean",
            Value::Scalar {
                kind: ScalarKind::Null,
                ..
            } => "an empty value",
            Value::Scalar {
                kind: ScalarKind::Str,
                ..
            } => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
            Value::Alias => "an alias",
        }
    }
}

/// One top-level entry.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontmatterEntry {
    pub key: String,
    pub key_span: TextRange,
    pub value: Node,
    /// The value was empty (`key:`); its span is the key span (spec/skills.md §6.1).
    pub empty: bool,
}

/// A YAML problem located at a byte offset of the whole text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    pub at: usize,
    pub message: String,
    /// "not a mapping": the range is the whole YAML text.
    pub whole: bool,
}

/// The frontmatter as read: top-level entries in order (duplicates included) and the first
/// syntax problem, if any. Entries read before a problem are kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frontmatter {
    pub entries: Vec<FrontmatterEntry>,
    pub error: Option<YamlError>,
}

impl Frontmatter {
    /// The first entry with this key.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&FrontmatterEntry> {
        self.entries.iter().find(|e| e.key == key)
    }
    /// Top-level keys that occur more than once, each with all its key spans in order.
    #[must_use]
    pub fn duplicates(&self) -> Vec<(&str, Vec<TextRange>)> {
        let mut order: Vec<&str> = Vec::new();
        let mut spans: HashMap<&str, Vec<TextRange>> = HashMap::new();
        for e in &self.entries {
            let v = spans.entry(e.key.as_str()).or_default();
            if v.is_empty() {
                order.push(&e.key);
            }
            v.push(e.key_span);
        }
        order
            .into_iter()
            .filter_map(|k| spans.remove(k).filter(|v| v.len() > 1).map(|v| (k, v)))
            .collect()
    }
}
