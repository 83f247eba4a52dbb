//! A Markdown file with YAML frontmatter as Claude Code reads an agent or a command
//! (spec/instructions.md §10.1): the block of spec/skills.md §2.2, read by the span-keeping YAML
//! reader; where that YAML does not parse, Claude Code 2.1.332 still reads `key: value` lines
//! (measured: `description: Bad: yaml: here` is listed as `Bad: yaml: here`), and so do we.

use alisio_base::config::Profile;
use alisio_base::text::TextRange;

use crate::skills::frontmatter::{self, Found, Node, Value};

/// A frontmatter value, as much as the families need of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    Str(String),
    /// A YAML list of scalars.
    List(Vec<String>),
    Bool(bool),
    /// Empty (`key:`).
    Null,
    /// A number or a mapping: the text shown in messages.
    Other(&'static str),
}

impl Val {
    /// The value as text (a string, a boolean), else `None`.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A tool list: `Read, Grep` (comma-separated) or a YAML list.
    #[must_use]
    pub fn items(&self) -> Option<Vec<String>> {
        match self {
            Val::Str(s) => Some(
                s.split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
            Val::List(v) => Some(v.clone()),
            _ => None,
        }
    }
}

/// One top-level key of the frontmatter, with its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontmatterField {
    pub key: String,
    pub key_span: TextRange,
    pub value: Val,
    pub value_span: TextRange,
}

/// The file as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Doc {
    /// `None`: no frontmatter block (or an unterminated one: see `unterminated`).
    pub block: Option<TextRange>,
    pub unterminated: Option<TextRange>,
    pub fields: Vec<FrontmatterField>,
    pub body_start: usize,
}

impl Doc {
    /// The first field with this key.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&FrontmatterField> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// A non-empty string value of `key`.
    #[must_use]
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key)
            .and_then(|f| f.value.text())
            .filter(|t| !t.trim().is_empty())
    }
}

fn val(n: &Node) -> Val {
    match &n.value {
        Value::Scalar { text, kind, .. } => match kind {
            frontmatter::ScalarKind::Str => Val::Str(text.clone()),
            frontmatter::ScalarKind::Bool(b) => Val::Bool(*b),
            frontmatter::ScalarKind::Null => Val::Null,
            frontmatter::ScalarKind::Int | frontmatter::ScalarKind::Float => Val::Other("a number"),
        },
        Value::Seq(items) => Val::List(
            items
                .iter()
                .filter_map(|i| i.scalar_text().map(str::to_string))
                .collect(),
        ),
        _ => Val::Other(n.describe()),
    }
}

/// `key: value` lines at column 0, the way Claude Code still reads YAML that does not parse.
fn loose(text: &str, yaml: TextRange) -> Vec<FrontmatterField> {
    let mut out = Vec::new();
    for l in frontmatter::lines_from(text, yaml.start) {
        if l.start >= yaml.end {
            break;
        }
        let line = &text[l.start..l.end];
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        if k.is_empty() || k.contains(char::is_whitespace) || k.starts_with('#') {
            continue;
        }
        let lead = v.len() - v.trim_start().len();
        let v_start = l.start + k.len() + 1 + lead;
        let t = v.trim();
        let unq = t
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .or_else(|| t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
            .unwrap_or(t);
        out.push(FrontmatterField {
            key: k.to_string(),
            key_span: TextRange::new(l.start, l.start + k.len()),
            value: if t.is_empty() {
                Val::Null
            } else {
                Val::Str(unq.to_string())
            },
            value_span: TextRange::new(v_start, v_start + t.len()),
        });
    }
    out
}

/// Reads `text` (the BOM already removed).
#[must_use]
pub fn read(text: &str) -> Doc {
    match frontmatter::find_block(text, false, Profile::ClaudeCode) {
        Found::Block(b) => {
            let fm = frontmatter::parse_yaml(text, b.yaml, Profile::ClaudeCode);
            let fields = if fm.error.is_some() {
                loose(text, b.yaml)
            } else {
                fm.entries
                    .iter()
                    .map(|e| FrontmatterField {
                        key: e.key.clone(),
                        key_span: e.key_span,
                        value: if e.empty { Val::Null } else { val(&e.value) },
                        value_span: e.value.span,
                    })
                    .collect()
            };
            Doc {
                block: Some(TextRange::new(b.open.start, b.close.end)),
                unterminated: None,
                fields,
                body_start: b.body_start,
            }
        }
        Found::Unterminated(open) => Doc {
            unterminated: Some(open),
            ..Doc::default()
        },
        Found::Missing(_) => Doc::default(),
    }
}
