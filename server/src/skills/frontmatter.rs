//! The SKILL.md frontmatter: our own line-based block finder (skills.md §2.2) and a span-keeping
//! YAML reader built on saphyr-parser events (§2.3).
//!
//! Invariant: every check that protects against hostile input (alias count, nesting depth,
//! tags, duplicate keys) runs on the event stream before a value is built, aliases are never
//! expanded, and nothing recurses on input depth; the tree we build is proportional to the text.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle};

use crate::config::Profile;
use crate::text::TextRange;

/// More aliases than this is an error (§2.3).
pub const MAX_ALIASES: usize = 20;
/// Collections nested deeper than this is an error; the top-level mapping is level 1.
pub const MAX_NESTING: usize = 32;

/// One line of a text: content `[start, end)` and the offset where the next line starts.
/// A line break is LF, CRLF or a lone CR and never belongs to the content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

/// The lines of `text` from `from`. A final line break does not start another line.
pub fn lines_from(text: &str, from: usize) -> impl Iterator<Item = Line> + '_ {
    let b = text.as_bytes();
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= b.len() {
            return None;
        }
        let start = pos;
        let mut i = pos;
        while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
            i += 1;
        }
        let end = i;
        let next = if i < b.len() && b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
            i + 2
        } else if i < b.len() {
            i + 1
        } else {
            i
        };
        pos = next;
        Some(Line { start, end, next })
    })
}

/// Why a file has no frontmatter (the first matching situation of §2.2 step 1).
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
pub struct Block {
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
    Block(Block),
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
            return Found::Block(Block {
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
pub struct Entry {
    pub key: String,
    pub key_span: TextRange,
    pub value: Node,
    /// The value was empty (`key:`); its span is the key span (§6.1).
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
    pub entries: Vec<Entry>,
    pub error: Option<YamlError>,
}

impl Frontmatter {
    /// The first entry with this key.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Entry> {
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

fn core_kind(text: &str) -> ScalarKind {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return ScalarKind::Null,
        "true" | "True" | "TRUE" => return ScalarKind::Bool(true),
        "false" | "False" | "FALSE" => return ScalarKind::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => {
            return ScalarKind::Float;
        }
        _ => {}
    }
    let b = text.as_bytes();
    if let Some(rest) = text.strip_prefix("0o")
        && !rest.is_empty()
        && rest.bytes().all(|c| (b'0'..=b'7').contains(&c))
    {
        return ScalarKind::Int;
    }
    if let Some(rest) = text.strip_prefix("0x")
        && !rest.is_empty()
        && rest.bytes().all(|c| c.is_ascii_hexdigit())
    {
        return ScalarKind::Int;
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        return ScalarKind::Int;
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - f;
    } else if int_digits == 0 {
        return ScalarKind::Str;
    }
    if int_digits == 0 && frac_digits == 0 {
        return ScalarKind::Str;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let e = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return ScalarKind::Str;
        }
    }
    if i == b.len() {
        ScalarKind::Float
    } else {
        ScalarKind::Str
    }
}

fn tag_text(tag: &saphyr_parser::Tag) -> String {
    if tag.handle == "tag:yaml.org,2002:" {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    }
}

const CORE_TAGS: &[&str] = &["str", "int", "float", "bool", "null", "map", "seq"];

enum Frame {
    Map {
        start: usize,
        flow: bool,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        seen: HashMap<String, usize>,
        parent: String,
    },
    Seq {
        start: usize,
        flow: bool,
        items: Vec<Node>,
        parent: String,
    },
}

/// Maps char indices of the YAML text (saphyr's markers) to byte offsets of the whole text.
struct Offsets {
    base: usize,
    /// Byte offset (relative) of every char; empty when the text is ASCII.
    chars: Vec<usize>,
    len: usize,
}

impl Offsets {
    fn new(yaml: &str, base: usize) -> Self {
        let chars = if yaml.is_ascii() {
            Vec::new()
        } else {
            yaml.char_indices().map(|(i, _)| i).collect()
        };
        Self {
            base,
            chars,
            len: yaml.len(),
        }
    }
    fn at(&self, char_index: usize) -> usize {
        if self.chars.is_empty() {
            return self.base + char_index.min(self.len);
        }
        self.base + self.chars.get(char_index).copied().unwrap_or(self.len)
    }
}

/// Reads the YAML text `text[yaml]` under the dialect of `profile` (strict for `spec`).
#[must_use]
pub fn parse_yaml(text: &str, yaml: TextRange, profile: Profile) -> Frontmatter {
    let strict = profile == Profile::Spec;
    let src = text.get(yaml.start..yaml.end).unwrap_or("");
    let off = Offsets::new(src, yaml.start);
    let mut fm = Frontmatter::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut aliases = 0usize;
    let mut docs = 0usize;
    let mut root: Option<Node> = None;
    // YAML allows only printable characters (c-printable); saphyr accepts some others.
    if let Some((i, c)) = src.char_indices().find(|(_, c)| !is_printable(*c)) {
        fm.error = Some(YamlError {
            at: yaml.start + i,
            message: format!(
                "invalid YAML: character U+{:04X} is not allowed",
                u32::from(c)
            ),
            whole: false,
        });
        return fm;
    }
    let mut parser = Parser::new_from_str(src);
    let fail = |fm: &mut Frontmatter, at: usize, message: String| {
        fm.error = Some(YamlError {
            at,
            message,
            whole: false,
        });
    };
    loop {
        let (ev, span) = match parser.next_event() {
            None => break,
            Some(Ok(x)) => x,
            Some(Err(e)) => {
                let at = off.at(e.marker().index());
                fail(&mut fm, at, format!("invalid YAML: {}", e.info()));
                return fm;
            }
        };
        let start = off.at(span.start.index());
        let end = off.at(span.end.index());
        // A completed node to attach to the current frame.
        let is_map = matches!(ev, Event::MappingStart(..));
        let node: Node = match ev {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => continue,
            Event::DocumentStart(_) => {
                docs += 1;
                if docs > 1 {
                    fail(
                        &mut fm,
                        start,
                        "invalid YAML: only one YAML document is allowed".into(),
                    );
                    return fm;
                }
                continue;
            }
            Event::Alias(_) => {
                if strict {
                    fail(
                        &mut fm,
                        start,
                        "anchors and aliases are not allowed by strict YAML".into(),
                    );
                    return fm;
                }
                aliases += 1;
                if aliases > MAX_ALIASES {
                    fail(
                        &mut fm,
                        start,
                        format!("more than {MAX_ALIASES} YAML aliases"),
                    );
                    return fm;
                }
                Node {
                    value: Value::Alias,
                    span: TextRange::new(start, end.max(start)),
                    flow: false,
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                if strict && anchor != 0 {
                    fail(
                        &mut fm,
                        start,
                        "anchors and aliases are not allowed by strict YAML".into(),
                    );
                    return fm;
                }
                let mut kind = if strict || style != ScalarStyle::Plain {
                    ScalarKind::Str
                } else {
                    core_kind(&value)
                };
                if let Some(tag) = &tag {
                    if strict {
                        fail(&mut fm, start, "tags are not allowed by strict YAML".into());
                        return fm;
                    }
                    if !(tag.handle == "tag:yaml.org,2002:"
                        && CORE_TAGS.contains(&tag.suffix.as_str()))
                    {
                        fail(
                            &mut fm,
                            start,
                            format!("unsupported YAML tag {}", tag_text(tag)),
                        );
                        return fm;
                    }
                    match tag.suffix.as_str() {
                        "str" => kind = ScalarKind::Str,
                        "int" => kind = ScalarKind::Int,
                        "float" => kind = ScalarKind::Float,
                        "bool" => {
                            kind = ScalarKind::Bool(matches!(&*value, "true" | "True" | "TRUE"))
                        }
                        "null" => kind = ScalarKind::Null,
                        _ => {}
                    }
                }
                let mut span = if end > start {
                    TextRange::new(start, end)
                } else {
                    TextRange::empty(start)
                };
                let written = text.get(span.start..span.end).unwrap_or("");
                let mut value = value.into_owned();
                if style == ScalarStyle::Plain && written.trim().is_empty() {
                    // An empty value (`key:`): saphyr reports it as `~`.
                    value.clear();
                    span = TextRange::empty(start);
                    if !strict && tag.is_none() {
                        kind = ScalarKind::Null;
                    }
                }
                if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                    span = block_scalar_span(text, yaml.start, span);
                }
                Node {
                    value: Value::Scalar {
                        text: value,
                        kind,
                        style,
                    },
                    span,
                    flow: false,
                }
            }
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                if strict && anchor != 0 {
                    fail(
                        &mut fm,
                        start,
                        "anchors and aliases are not allowed by strict YAML".into(),
                    );
                    return fm;
                }
                if let Some(tag) = tag {
                    if strict {
                        fail(&mut fm, start, "tags are not allowed by strict YAML".into());
                        return fm;
                    }
                    if !(tag.handle == "tag:yaml.org,2002:"
                        && CORE_TAGS.contains(&tag.suffix.as_str()))
                    {
                        fail(
                            &mut fm,
                            start,
                            format!("unsupported YAML tag {}", tag_text(&tag)),
                        );
                        return fm;
                    }
                }
                if stack.len() + 1 > MAX_NESTING {
                    fail(
                        &mut fm,
                        start,
                        format!("YAML nesting deeper than {MAX_NESTING} levels"),
                    );
                    return fm;
                }
                let flow = src
                    .as_bytes()
                    .get(start - yaml.start)
                    .is_some_and(|c| *c == b'[' || *c == b'{');
                if strict && flow {
                    fail(
                        &mut fm,
                        start,
                        "flow style is not allowed by strict YAML".into(),
                    );
                    return fm;
                }
                let parent = match stack.last() {
                    Some(Frame::Map { key: Some(k), .. }) => {
                        k.scalar_text().unwrap_or("").to_string()
                    }
                    Some(Frame::Map { key: None, .. }) => {
                        fail(&mut fm, start, "keys must be plain strings".into());
                        return fm;
                    }
                    Some(Frame::Seq { parent, .. }) => parent.clone(),
                    None => String::new(),
                };
                stack.push(if is_map {
                    Frame::Map {
                        start,
                        flow,
                        entries: Vec::new(),
                        key: None,
                        seen: HashMap::new(),
                        parent,
                    }
                } else {
                    Frame::Seq {
                        start,
                        flow,
                        items: Vec::new(),
                        parent,
                    }
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = stack.pop() else { continue };
                let (value, s, flow) = match frame {
                    Frame::Map {
                        start,
                        flow,
                        entries,
                        ..
                    } => (Value::Map(entries), start, flow),
                    Frame::Seq {
                        start, flow, items, ..
                    } => (Value::Seq(items), start, flow),
                };
                // Block collections end where the next token starts: trim trailing blanks.
                let mut e = end.max(s);
                while e > s
                    && text
                        .as_bytes()
                        .get(e - 1)
                        .is_some_and(|c| c.is_ascii_whitespace())
                {
                    e -= 1;
                }
                Node {
                    value,
                    span: TextRange::new(s, e),
                    flow,
                }
            }
        };
        // Attach the node.
        match stack.last_mut() {
            None => {
                if root.is_some() {
                    continue;
                }
                root = Some(node);
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries,
                key,
                seen,
                parent,
                ..
            }) => match key.take() {
                None => {
                    if node.scalar_text().is_none() {
                        fail(
                            &mut fm,
                            node.span.start,
                            "keys must be plain strings".into(),
                        );
                        return fm;
                    }
                    *key = Some(node);
                }
                Some(k) => {
                    let ktext = k.scalar_text().unwrap_or("").to_string();
                    let count = seen.entry(ktext.clone()).or_insert(0);
                    *count += 1;
                    let dup_nested = *count > 1;
                    entries.push((k, node));
                    if dup_nested && !parent.is_empty() {
                        let at = entries.last().map_or(0, |(k, _)| k.span.start);
                        fail(
                            &mut fm,
                            at,
                            format!("duplicate key \"{ktext}\" in \"{parent}\""),
                        );
                        return fm;
                    }
                }
            },
        }
        // Top-level entries are recorded as soon as they are complete.
        if stack.len() == 1
            && let Some(Frame::Map { entries, .. }) = stack.last()
            && let Some((k, v)) = entries.last()
            && fm.entries.len() < entries.len()
        {
            let empty = v.span.start == v.span.end && v.scalar_text().is_some_and(str::is_empty);
            fm.entries.push(Entry {
                key: k.scalar_text().unwrap_or("").to_string(),
                key_span: k.span,
                value: if empty {
                    Node {
                        span: k.span,
                        ..v.clone()
                    }
                } else {
                    v.clone()
                },
                empty,
            });
        }
    }
    match root {
        None => {}
        Some(Node {
            value: Value::Map(_),
            ..
        }) => {}
        Some(Node {
            value:
                Value::Scalar {
                    kind: ScalarKind::Null,
                    ..
                },
            ..
        }) if src.trim().is_empty() || only_comments(src) => {}
        Some(_) => {
            fm.error = Some(YamlError {
                at: yaml.start,
                message: "frontmatter must be a YAML mapping".into(),
                whole: true,
            })
        }
    }
    fm
}

/// A block scalar's span runs from its indicator (`|`, `>`) to the end of its last content line.
fn block_scalar_span(text: &str, floor: usize, span: TextRange) -> TextRange {
    let b = text.as_bytes();
    let mut s = span.start.min(b.len());
    while s > floor {
        s -= 1;
        if b[s] == b'|' || b[s] == b'>' {
            break;
        }
    }
    let mut e = span.end.min(b.len()).max(s);
    while e > s && b[e - 1].is_ascii_whitespace() {
        e -= 1;
    }
    TextRange::new(s, e)
}

fn is_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

fn only_comments(src: &str) -> bool {
    lines_from(src, 0).all(|l| {
        let s = src[l.start..l.end].trim();
        s.is_empty() || s.starts_with('#')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fm(yaml: &str, profile: Profile) -> (String, Frontmatter) {
        let text = format!("---\n{yaml}---\n");
        let Found::Block(b) = find_block(&text, false, profile) else {
            panic!("no block")
        };
        let f = parse_yaml(&text, b.yaml, profile);
        (text, f)
    }

    #[test]
    fn lines_split_on_lf_crlf_and_lone_cr() {
        let v: Vec<_> = lines_from("a\r\nb\rc\nd", 0)
            .map(|l| (l.start, l.end, l.next))
            .collect();
        assert_eq!(v, [(0, 1, 3), (3, 4, 5), (5, 6, 7), (7, 8, 8)]);
        assert_eq!(lines_from("a\n", 0).count(), 1);
    }

    #[test]
    fn block_finder_situations() {
        assert_eq!(
            find_block("", false, Profile::Alisio),
            Found::Missing(Missing::Empty)
        );
        assert_eq!(
            find_block("\n\n---\n", false, Profile::Alisio),
            Found::Missing(Missing::BlankLines(2))
        );
        assert_eq!(
            find_block("--- \n", false, Profile::Alisio),
            Found::Missing(Missing::TrailingWhitespace)
        );
        assert_eq!(
            find_block("---\nx: 1\n", false, Profile::Alisio),
            Found::Unterminated(TextRange::new(0, 3))
        );
        assert_eq!(
            find_block("---\nx: 1\n...\n", false, Profile::Alisio),
            Found::Unterminated(TextRange::new(0, 3))
        );
        assert!(matches!(
            find_block("--- \na: b\n ---\n", false, Profile::Codex),
            Found::Block(_)
        ));
        assert_eq!(
            find_block("---\n---\n", true, Profile::Spec),
            Found::Missing(Missing::Bom)
        );
        let Found::Block(b) = find_block("---\r\na: b\r\n---\r\nbody", false, Profile::Alisio)
        else {
            panic!()
        };
        assert_eq!(
            (b.open, b.yaml, b.close, b.body_start),
            (
                TextRange::new(0, 3),
                TextRange::new(5, 11),
                TextRange::new(11, 14),
                16
            )
        );
    }

    #[test]
    fn description_with_dashes_inside_does_not_close() {
        let (_, f) = fm("name: a\ndescription: a---b\n", Profile::Spec);
        assert_eq!(
            f.get("description").and_then(|e| e.value.as_str()),
            Some("a---b")
        );
    }

    #[test]
    fn scalar_spans_cover_quotes_and_block_scalars() {
        let (t, f) = fm(
            "name: \"x y\"\ndescription: |\n  a\n  b\nlicense: MIT\n",
            Profile::Alisio,
        );
        let s = |k: &str| {
            let r = f.get(k).unwrap().value.span;
            t[r.start..r.end].to_string()
        };
        assert_eq!(s("name"), "\"x y\"");
        assert_eq!(s("description"), "|\n  a\n  b");
        assert_eq!(s("license"), "MIT");
        let r = f.get("name").unwrap().key_span;
        assert_eq!(&t[r.start..r.end], "name");
    }

    #[test]
    fn empty_value_uses_key_span_and_core_typing() {
        let (t, f) = fm("name:\ndescription: 123\nx: yes\n", Profile::Alisio);
        let e = f.get("name").unwrap();
        assert!(e.empty && e.value.is_null());
        assert_eq!(&t[e.value.span.start..e.value.span.end], "name");
        assert_eq!(f.get("description").unwrap().value.describe(), "a number");
        assert_eq!(f.get("x").unwrap().value.as_str(), Some("yes"));
        let (_, f) = fm("name: 123\n", Profile::Spec);
        assert_eq!(f.get("name").unwrap().value.as_str(), Some("123"));
    }

    #[test]
    fn collection_spans_and_flow() {
        let (t, f) = fm(
            "metadata:\n  a: 1\n  b: [x, y]\nallowed-tools: [Read, Write]\n",
            Profile::Alisio,
        );
        let m = &f.get("metadata").unwrap().value;
        assert_eq!(&t[m.span.start..m.span.end], "a: 1\n  b: [x, y]");
        let a = &f.get("allowed-tools").unwrap().value;
        assert!(a.flow);
        assert_eq!(&t[a.span.start..a.span.end], "[Read, Write]");
        let (_, f) = fm("allowed-tools: [Read]\n", Profile::Spec);
        assert_eq!(
            f.error.unwrap().message,
            "flow style is not allowed by strict YAML"
        );
    }

    #[test]
    fn duplicate_keys_top_level_and_nested() {
        let (_, f) = fm("name: a\nname: b\n", Profile::Alisio);
        assert!(f.error.is_none());
        let d = f.duplicates();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].1, vec![TextRange::new(4, 8), TextRange::new(12, 16)]);
        let (_, f) = fm("metadata:\n  a: 1\n  a: 2\n", Profile::Alisio);
        assert_eq!(
            f.error.unwrap().message,
            "duplicate key \"a\" in \"metadata\""
        );
    }

    #[test]
    fn alias_bomb_stops_at_the_21st_alias() {
        let mut y = String::from("a: &a [x]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for w in names.windows(2) {
            let refs = vec![format!("*{}", w[0]); 9].join(", ");
            y.push_str(&format!("{}: &{} [{refs}]\n", w[1], w[1]));
        }
        let (t, f) = fm(&y, Profile::Alisio);
        let e = f.error.unwrap();
        assert_eq!(e.message, "more than 20 YAML aliases");
        // The 21st alias is the third of the third list (`d`).
        let line_d = t.find("d: &d [").unwrap();
        assert_eq!(e.at, line_d + "d: &d [*c, *c, ".len());
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let y = format!("metadata: {}{}\n", "[".repeat(200), "]".repeat(200));
        let (t, f) = fm(&y, Profile::Alisio);
        let e = f.error.unwrap();
        assert_eq!(e.message, "YAML nesting deeper than 32 levels");
        assert_eq!(e.at, t.find('[').unwrap() + 31);
        let mut y = String::new();
        for i in 0..200 {
            y.push_str(&format!("{}k{i}:\n", "  ".repeat(i)));
        }
        let (_, f) = fm(&y, Profile::Alisio);
        assert_eq!(
            f.error.unwrap().message,
            "YAML nesting deeper than 32 levels"
        );
    }

    #[test]
    fn not_a_mapping_and_bad_keys_and_tags() {
        let (_, f) = fm("- a\n- b\n", Profile::Alisio);
        assert_eq!(
            f.error.as_ref().unwrap().message,
            "frontmatter must be a YAML mapping"
        );
        assert!(f.error.unwrap().whole);
        let (_, f) = fm("[a]: b\n", Profile::Alisio);
        assert_eq!(f.error.unwrap().message, "keys must be plain strings");
        let (_, f) = fm("name: !custom x\n", Profile::Alisio);
        assert_eq!(f.error.unwrap().message, "unsupported YAML tag !custom");
        let (_, f) = fm("name: !!str 12\n", Profile::Alisio);
        assert!(f.error.is_none());
        assert_eq!(f.get("name").unwrap().value.as_str(), Some("12"));
        let (_, f) = fm("# only a comment\n", Profile::Alisio);
        assert!(f.error.is_none() && f.entries.is_empty());
    }

    #[test]
    fn syntax_error_is_located() {
        let (t, f) = fm("description: Use when: editing PDFs\n", Profile::Alisio);
        let e = f.error.unwrap();
        assert!(e.message.starts_with("invalid YAML: "), "{}", e.message);
        assert_eq!(t[..e.at].matches('\n').count(), 1);
    }
}
