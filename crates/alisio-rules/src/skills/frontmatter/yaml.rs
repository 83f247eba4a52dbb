//! The span-keeping YAML reader of the frontmatter (spec/skills.md §2.3) over saphyr-parser events:
//! one [`Reader`] step per kind of event (scalar, alias, collection start and end), then the
//! node is attached to the open frame. Every check against hostile input (aliases, nesting,
//! tags, duplicate nested keys) runs on the event stream; nothing recurses on input depth.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle};

use super::{
    Frontmatter, FrontmatterEntry, MAX_ALIASES, MAX_NESTING, Node, ScalarKind, Value, YamlError,
    lines_from,
};
use alisio_base::config::Profile;
use alisio_base::text::TextRange;

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

/// Where and why the YAML is rejected (becomes [`YamlError`] with `whole: false`).
struct Fail(usize, String);

type Step<T = ()> = Result<T, Fail>;

const NO_ANCHORS: &str = "anchors and aliases are not allowed by strict YAML";

/// The state of one read: the event position, the open collections, and what was found.
struct Reader<'t> {
    text: &'t str,
    yaml: TextRange,
    source: &'t str,
    strict: bool,
    stack: Vec<Frame>,
    aliases: usize,
    docs: usize,
    root: Option<Node>,
    frontmatter: Frontmatter,
}

/// Reads the YAML text `text[yaml]` under the dialect of `profile` (strict for `spec`).
#[must_use]
pub fn parse_yaml(text: &str, yaml: TextRange, profile: Profile) -> Frontmatter {
    let src = text.get(yaml.start..yaml.end).unwrap_or("");
    // YAML allows only printable characters (c-printable); saphyr accepts some others.
    if let Some((i, c)) = src.char_indices().find(|(_, c)| !is_printable(*c)) {
        return Frontmatter {
            error: Some(YamlError {
                at: yaml.start + i,
                message: format!(
                    "invalid YAML: character U+{:04X} is not allowed",
                    u32::from(c)
                ),
                whole: false,
            }),
            ..Frontmatter::default()
        };
    }
    let mut r = Reader {
        text,
        yaml,
        source: src,
        strict: profile == Profile::Spec,
        stack: Vec::new(),
        aliases: 0,
        docs: 0,
        root: None,
        frontmatter: Frontmatter::default(),
    };
    match r.events() {
        Ok(()) => r.check_root(),
        Err(Fail(at, message)) => {
            r.frontmatter.error = Some(YamlError {
                at,
                message,
                whole: false,
            });
        }
    }
    r.frontmatter
}

impl Reader<'_> {
    /// Consumes saphyr's events, building nodes and recording top-level entries.
    fn events(&mut self) -> Step {
        let off = Offsets::new(self.source, self.yaml.start);
        let mut parser = Parser::new_from_str(self.source);
        loop {
            let (ev, span) = match parser.next_event() {
                None => return Ok(()),
                Some(Ok(x)) => x,
                Some(Err(e)) => {
                    let at = off.at(e.marker().index());
                    return Err(Fail(at, format!("invalid YAML: {}", e.info())));
                }
            };
            let start = off.at(span.start.index());
            let end = off.at(span.end.index());
            let node: Node = match ev {
                Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => {
                    continue;
                }
                Event::DocumentStart(_) => {
                    self.docs += 1;
                    if self.docs > 1 {
                        return Err(Fail(
                            start,
                            "invalid YAML: only one YAML document is allowed".into(),
                        ));
                    }
                    continue;
                }
                Event::Alias(_) => self.alias(start, end)?,
                Event::Scalar(value, style, anchor, tag) => self.scalar(
                    value.into_owned(),
                    style,
                    anchor,
                    tag.as_deref(),
                    start,
                    end,
                )?,
                Event::SequenceStart(anchor, tag) => {
                    self.open(false, anchor, tag.as_deref(), start)?;
                    continue;
                }
                Event::MappingStart(anchor, tag) => {
                    self.open(true, anchor, tag.as_deref(), start)?;
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let Some(node) = self.close(end) else {
                        continue;
                    };
                    node
                }
            };
            self.attach(node)?;
            self.record_top_level();
        }
    }

    fn alias(&mut self, start: usize, end: usize) -> Step<Node> {
        if self.strict {
            return Err(Fail(start, NO_ANCHORS.into()));
        }
        self.aliases += 1;
        if self.aliases > MAX_ALIASES {
            return Err(Fail(start, format!("more than {MAX_ALIASES} YAML aliases")));
        }
        Ok(Node {
            value: Value::Alias,
            span: TextRange::new(start, end.max(start)),
            flow: false,
        })
    }

    /// Anchors and tags: none in strict YAML; otherwise only the core schema's tags.
    fn check_anchor_and_tag(
        &self,
        anchor: usize,
        tag: Option<&saphyr_parser::Tag>,
        start: usize,
    ) -> Step {
        if self.strict && anchor != 0 {
            return Err(Fail(start, NO_ANCHORS.into()));
        }
        if let Some(tag) = tag {
            if self.strict {
                return Err(Fail(start, "tags are not allowed by strict YAML".into()));
            }
            if !(tag.handle == "tag:yaml.org,2002:" && CORE_TAGS.contains(&tag.suffix.as_str())) {
                return Err(Fail(
                    start,
                    format!("unsupported YAML tag {}", tag_text(tag)),
                ));
            }
        }
        Ok(())
    }

    fn scalar(
        &self,
        mut value: String,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&saphyr_parser::Tag>,
        start: usize,
        end: usize,
    ) -> Step<Node> {
        if self.strict && anchor != 0 {
            return Err(Fail(start, NO_ANCHORS.into()));
        }
        let mut kind = if self.strict || style != ScalarStyle::Plain {
            ScalarKind::Str
        } else {
            core_kind(&value)
        };
        if let Some(tag) = tag {
            self.check_anchor_and_tag(0, Some(tag), start)?;
            match tag.suffix.as_str() {
                "str" => kind = ScalarKind::Str,
                "int" => kind = ScalarKind::Int,
                "float" => kind = ScalarKind::Float,
                "bool" => kind = ScalarKind::Bool(matches!(&*value, "true" | "True" | "TRUE")),
                "null" => kind = ScalarKind::Null,
                _ => {}
            }
        }
        let mut span = if end > start {
            TextRange::new(start, end)
        } else {
            TextRange::empty(start)
        };
        let written = self.text.get(span.start..span.end).unwrap_or("");
        if style == ScalarStyle::Plain && written.trim().is_empty() {
            // An empty value (`key:`): saphyr reports it as `~`.
            value.clear();
            span = TextRange::empty(start);
            if !self.strict && tag.is_none() {
                kind = ScalarKind::Null;
            }
        }
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            span = block_scalar_span(self.text, self.yaml.start, span);
        }
        Ok(Node {
            value: Value::Scalar {
                text: value,
                kind,
                style,
            },
            span,
            flow: false,
        })
    }

    /// A mapping or sequence starts: checks, then a new frame.
    fn open(
        &mut self,
        is_map: bool,
        anchor: usize,
        tag: Option<&saphyr_parser::Tag>,
        start: usize,
    ) -> Step {
        self.check_anchor_and_tag(anchor, tag, start)?;
        if self.stack.len() + 1 > MAX_NESTING {
            return Err(Fail(
                start,
                format!("YAML nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        let flow = self
            .source
            .as_bytes()
            .get(start - self.yaml.start)
            .is_some_and(|c| *c == b'[' || *c == b'{');
        if self.strict && flow {
            return Err(Fail(
                start,
                "flow style is not allowed by strict YAML".into(),
            ));
        }
        let parent = match self.stack.last() {
            Some(Frame::Map { key: Some(k), .. }) => k.scalar_text().unwrap_or("").to_string(),
            Some(Frame::Map { key: None, .. }) => {
                return Err(Fail(start, "keys must be plain strings".into()));
            }
            Some(Frame::Seq { parent, .. }) => parent.clone(),
            None => String::new(),
        };
        self.stack.push(if is_map {
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
        Ok(())
    }

    /// A mapping or sequence ends at `end`: its node, or `None` when no frame is open.
    fn close(&mut self, end: usize) -> Option<Node> {
        let frame = self.stack.pop()?;
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
            && self
                .text
                .as_bytes()
                .get(e - 1)
                .is_some_and(|c| c.is_ascii_whitespace())
        {
            e -= 1;
        }
        Some(Node {
            value,
            span: TextRange::new(s, e),
            flow,
        })
    }

    /// Attaches a completed node to the open frame (or makes it the root).
    fn attach(&mut self, node: Node) -> Step {
        let Some(frame) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some(node);
            }
            return Ok(());
        };
        match frame {
            Frame::Seq { items, .. } => items.push(node),
            Frame::Map {
                entries,
                key,
                seen,
                parent,
                ..
            } => match key.take() {
                None => {
                    if node.scalar_text().is_none() {
                        return Err(Fail(node.span.start, "keys must be plain strings".into()));
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
                        return Err(Fail(
                            at,
                            format!("duplicate key \"{ktext}\" in \"{parent}\""),
                        ));
                    }
                }
            },
        }
        Ok(())
    }

    /// Top-level entries are recorded as soon as they are complete.
    fn record_top_level(&mut self) {
        if self.stack.len() == 1
            && let Some(Frame::Map { entries, .. }) = self.stack.last()
            && let Some((k, v)) = entries.last()
            && self.frontmatter.entries.len() < entries.len()
        {
            let empty = v.span.start == v.span.end && v.scalar_text().is_some_and(str::is_empty);
            self.frontmatter.entries.push(FrontmatterEntry {
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

    /// The document must be a mapping (or empty, or only comments).
    fn check_root(&mut self) {
        match &self.root {
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
            }) if self.source.trim().is_empty() || only_comments(self.source) => {}
            Some(_) => {
                self.frontmatter.error = Some(YamlError {
                    at: self.yaml.start,
                    message: "frontmatter must be a YAML mapping".into(),
                    whole: true,
                });
            }
        }
    }
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
