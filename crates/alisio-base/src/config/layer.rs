//! One parsed configuration source ([`Layer`]): the raw JSON with the span of every key, the
//! problems of its invalid values, and the reading of a workspace's layers ([`load_layers`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::hosts;
use super::keys::{ConfigProblem, KEYS, lookup};
use crate::text::TextRange;

/// A configuration file larger than this is not read (a repository's `.alisio/config.json`
/// could otherwise be made arbitrarily large, or a link to `/dev/zero`).
pub const CONFIG_FILE_LIMIT: u64 = 1024 * 1024;

/// The message for a configuration file over [`CONFIG_FILE_LIMIT`].
#[must_use]
pub fn too_large_message() -> String {
    format!("larger than {CONFIG_FILE_LIMIT} bytes; not read")
}

/// Where a layer comes from, lowest precedence first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    User,
    Project,
    CommandLine,
    /// LSP initialization options / `workspace/didChangeConfiguration`.
    Client,
}

/// A configuration file that cannot be used at all (not JSON, not an object, unreadable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    pub display: String,
    pub message: String,
    pub span: Option<TextRange>,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.display, self.message)
    }
}

/// One parsed source.
#[derive(Clone, Debug)]
pub struct Layer {
    pub origin: Origin,
    /// The file, when the layer is a file.
    pub path: Option<PathBuf>,
    /// How messages name the file (as the user wrote it for `--config`).
    pub display: String,
    pub raw: Value,
    pub problems: Vec<ConfigProblem>,
    spans: BTreeMap<String, TextRange>,
}

impl Layer {
    /// Parses a configuration file's text. Strict JSON; the top level must be an object.
    pub fn from_file_text(
        origin: Origin,
        path: &Path,
        display: &str,
        text: &str,
    ) -> Result<Self, FileError> {
        let text_nobom = text.strip_prefix('\u{feff}').unwrap_or(text);
        let bom = text.len() - text_nobom.len();
        let opts = jsonc_parser::ParseOptions {
            allow_comments: false,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
        };
        let parsed =
            jsonc_parser::parse_to_ast(text_nobom, &jsonc_parser::CollectOptions::default(), &opts)
                .map_err(|e| FileError {
                    display: display.to_string(),
                    message: format!(
                        "invalid JSON: {} at line {} column {}",
                        e.kind(),
                        e.line_display(),
                        e.column_display()
                    ),
                    span: Some(TextRange::new(e.range().start + bom, e.range().end + bom)),
                })?;
        let Some(ast) = parsed.value else {
            // An empty file is an empty configuration.
            return Ok(Self::from_value(
                origin,
                Some(path),
                display,
                Value::Object(serde_json::Map::new()),
            ));
        };
        let jsonc_parser::ast::Value::Object(_) = &ast else {
            return Err(FileError {
                display: display.to_string(),
                message: "the top level must be a JSON object".to_string(),
                span: Some(shift(ast_range(&ast), bom)),
            });
        };
        let mut spans = BTreeMap::new();
        let raw = ast_to_value(&ast, "", bom, &mut spans);
        let mut layer = Self::from_value(origin, Some(path), display, raw);
        layer.spans = spans;
        layer.validate(Some(text));
        Ok(layer)
    }

    /// A layer from JSON that has no file (initialization options, didChangeConfiguration).
    #[must_use]
    pub fn from_client(value: Value) -> Self {
        let value = if value.is_object() {
            value
        } else {
            Value::Object(serde_json::Map::new())
        };
        let mut l = Self::from_value(Origin::Client, None, "initialization options", value);
        l.validate(None);
        l
    }

    fn from_value(origin: Origin, path: Option<&Path>, display: &str, raw: Value) -> Self {
        Self {
            origin,
            path: path.map(Path::to_path_buf),
            display: display.to_string(),
            raw,
            problems: Vec::new(),
            spans: BTreeMap::new(),
        }
    }

    /// Span of the value at a dotted key, when known.
    #[must_use]
    pub fn span_of(&self, key: &str) -> Option<TextRange> {
        self.spans.get(key).copied()
    }

    /// The value's JSON text as written in the file, else re-serialised.
    fn shown(&self, key: &str, v: &Value, text: Option<&str>) -> String {
        self.span_of(key)
            .and_then(|r| text.and_then(|t| t.get(r.start..r.end)))
            .map_or_else(|| v.to_string(), str::to_string)
    }

    fn validate(&mut self, text: Option<&str>) {
        let mut problems = Vec::new();
        for spec in KEYS {
            if let Some(v) = lookup(&self.raw, spec.key) {
                if v.is_null() {
                    continue;
                }
                if let Err(message) = spec.ty.check(spec.key, v, &self.shown(spec.key, v, text)) {
                    problems.push(ConfigProblem {
                        key: spec.key.to_string(),
                        message,
                        span: self.span_of(spec.key),
                    });
                }
            }
        }
        if let Some(Value::Array(items)) = lookup(&self.raw, "skills") {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    let key = format!("skills.{i}");
                    problems.push(ConfigProblem {
                        message: format!(
                            "skills must be an array of strings; got {} at index {i}",
                            self.shown(&key, item, text)
                        ),
                        span: self.span_of(&key),
                        key,
                    });
                }
            }
        }
        if let Some(Value::Object(map)) = lookup(&self.raw, "skillOverrides") {
            for (id, entry) in map {
                let key = format!("skillOverrides.{id}.enabled");
                match entry.get("enabled") {
                    Some(Value::Bool(_) | Value::Null) | None => {}
                    Some(other) => problems.push(ConfigProblem {
                        message: format!(
                            "{key} must be true or false; got {}",
                            self.shown(&key, other, text)
                        ),
                        span: self.span_of(&key),
                        key,
                    }),
                }
            }
        }
        problems.extend(hosts::validate(
            &self.raw,
            |k, v| self.shown(k, v, text),
            |k| self.span_of(k),
        ));
        let shown = |k: &str, v: &Value| self.shown(k, v, text);
        for (key, message) in crate::suppress::settings::validate(&self.raw, &shown) {
            problems.push(ConfigProblem {
                span: self.span_of(&key),
                key,
                message,
            });
        }
        self.problems = problems;
    }

    pub(super) fn is_invalid(&self, key: &str) -> bool {
        self.problems.iter().any(|p| p.key == key)
    }
}

fn shift(r: TextRange, by: usize) -> TextRange {
    TextRange::new(r.start + by, r.end + by)
}

fn ast_range(v: &jsonc_parser::ast::Value<'_>) -> TextRange {
    use jsonc_parser::ast::Value as A;
    let r = match v {
        A::StringLit(s) => s.range,
        A::NumberLit(n) => n.range,
        A::BooleanLit(b) => b.range,
        A::Object(o) => o.range,
        A::Array(a) => a.range,
        A::NullKeyword(n) => n.range,
    };
    TextRange::new(r.start, r.end)
}

fn ast_to_value(
    v: &jsonc_parser::ast::Value<'_>,
    key: &str,
    bom: usize,
    spans: &mut BTreeMap<String, TextRange>,
) -> Value {
    use jsonc_parser::ast::Value as A;
    if !key.is_empty() {
        spans.insert(key.to_string(), shift(ast_range(v), bom));
    }
    let join = |k: &str| {
        if key.is_empty() {
            k.to_string()
        } else {
            format!("{key}.{k}")
        }
    };
    match v {
        A::StringLit(s) => Value::String(s.value.to_string()),
        A::NumberLit(n) => {
            // Keep the number's own text: `2048.0` must stay distinguishable from `2048`.
            serde_json::from_str::<serde_json::Number>(n.value).map_or(Value::Null, Value::Number)
        }
        A::BooleanLit(b) => Value::Bool(b.value),
        A::NullKeyword(_) => Value::Null,
        A::Array(a) => Value::Array(
            a.elements
                .iter()
                .enumerate()
                .map(|(i, e)| ast_to_value(e, &join(&i.to_string()), bom, spans))
                .collect(),
        ),
        A::Object(o) => {
            let mut m = serde_json::Map::new();
            for p in &o.properties {
                let name = p.name.as_str();
                m.insert(
                    name.to_string(),
                    ast_to_value(&p.value, &join(name), bom, spans),
                );
            }
            Value::Object(m)
        }
    }
}

/// Every configuration layer that applies to a workspace, lowest precedence first, read
/// through `fs`: the user file, the project file (only when `trusted`), then `extra`
/// (`--config FILE`, given as `(absolute path, display name)`). Missing files are skipped.
///
/// # Errors
/// A file that exists but cannot be read or is not a JSON object.
pub fn load_layers(
    fs: &dyn crate::workspace::Fs,
    config_home: Option<&Path>,
    workspace_root: &Path,
    trusted: bool,
    extra: Option<(&Path, &str)>,
) -> Result<Vec<Layer>, FileError> {
    let mut layers = Vec::new();
    let mut read =
        |origin: Origin, path: &Path, display: &str, required: bool| -> Result<(), FileError> {
            match fs.read_prefix(path, CONFIG_FILE_LIMIT + 1) {
                Ok(bytes) if bytes.len() as u64 > CONFIG_FILE_LIMIT => Err(FileError {
                    display: display.to_string(),
                    message: too_large_message(),
                    span: None,
                }),
                Ok(bytes) => {
                    let text = String::from_utf8(bytes).map_err(|e| FileError {
                        display: display.to_string(),
                        message: format!(
                            "not UTF-8 (invalid byte at offset {})",
                            e.utf8_error().valid_up_to()
                        ),
                        span: None,
                    })?;
                    layers.push(Layer::from_file_text(origin, path, display, &text)?);
                    Ok(())
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(()),
                Err(e) => Err(FileError {
                    display: display.to_string(),
                    message: format!("cannot read: {e}"),
                    span: None,
                }),
            }
        };
    if let Some(home) = config_home {
        let p = home.join("config.json");
        read(Origin::User, &p, &p.to_string_lossy(), false)?;
    }
    if trusted {
        let p = workspace_root.join(".alisio").join("config.json");
        read(Origin::Project, &p, &p.to_string_lossy(), false)?;
    }
    if let Some((path, display)) = extra {
        read(Origin::CommandLine, path, display, true)?;
    }
    Ok(layers)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(crate) fn layer(text: &str) -> Layer {
        Layer::from_file_text(
            Origin::CommandLine,
            Path::new("/c/cfg.json"),
            "cfg.json",
            text,
        )
        .unwrap()
    }

    #[test]
    fn max_bytes_bounds_are_inclusive_and_integers_only() {
        for ok in ["1024", "1048576"] {
            assert!(
                layer(&format!(r#"{{"context":{{"maxBytes":{ok}}}}}"#))
                    .problems
                    .is_empty()
            );
        }
        for (bad, shown) in [
            ("1023", "1023"),
            ("1048577", "1048577"),
            ("2048.5", "2048.5"),
            ("\"4096\"", "\"4096\""),
            ("2048.0", "2048.0"),
            ("1e4", "1e4"),
        ] {
            let l = layer(&format!(r#"{{"context":{{"maxBytes":{bad}}}}}"#));
            assert_eq!(l.problems.len(), 1, "{bad}");
            assert_eq!(
                l.problems[0].message,
                format!("context.maxBytes must be an integer from 1024 to 1048576; got {shown}")
            );
        }
    }

    #[test]
    fn problem_span_is_the_value() {
        let text = r#"{"context": {"maxBytes": 1023}}"#;
        let l = layer(text);
        let span = l.problems[0].span.unwrap();
        assert_eq!(&text[span.start..span.end], "1023");
    }

    #[test]
    fn governor_messages_are_exact() {
        let l = layer(r#"{"context":{"governor":"ON","elide":{"minAgeTurns":0}}}"#);
        let msgs: Vec<_> = l.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                r#"context.governor must be "off", "shadow" or "on"; got "ON""#,
                "context.elide.minAgeTurns must be an integer from 1 to 20; got 0",
            ]
        );
    }

    #[test]
    fn fallback_must_be_boolean() {
        let l = layer(r#"{"context":{"claudeMdFallback":"yes"}}"#);
        assert_eq!(
            l.problems[0].message,
            r#"context.claudeMdFallback must be true or false; got "yes""#
        );
    }

    #[test]
    fn not_json_is_a_located_file_error() {
        let e = Layer::from_file_text(Origin::User, Path::new("/x"), "x.json", "{\n  \"a\": }")
            .unwrap_err();
        assert!(e.to_string().starts_with("x.json: invalid JSON: "), "{e}");
        assert!(e.to_string().contains("line 2"), "{e}");
        let e = Layer::from_file_text(Origin::User, Path::new("/x"), "x.json", "[1]").unwrap_err();
        assert_eq!(e.to_string(), "x.json: the top level must be a JSON object");
    }
}
