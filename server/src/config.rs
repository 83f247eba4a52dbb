//! Configuration: the one place that reads and validates `config.json` files, initialization
//! options and flags, and layers them into [`Settings`] (spec/instructions.md §2.10, spec/governor.md §9,
//! spec/skills.md §1.1).
//!
//! Every source is parsed into a [`Layer`]: the raw JSON (unknown keys kept), the valid values of
//! the keys we know, and one [`Problem`] per invalid value with its byte span. Layers are then
//! applied lowest first. An invalid value never reaches [`Settings`]: the CLI turns problems into
//! exit 2, the language server into `config-invalid` diagnostics while the lower layer applies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::text::TextRange;

mod hosts;
pub use hosts::{CopilotSettings, GeminiSettings, GeminiTrust, HostSettings};

/// `context.maxBytes` bounds (spec/instructions.md §2.10).
pub const MAX_BYTES_MIN: i64 = 1024;
pub const MAX_BYTES_MAX: i64 = 1_048_576;
pub const DEFAULT_MAX_BYTES: u32 = 32_768;
/// A configuration file larger than this is not read (a repository's `.alisio/config.json`
/// could otherwise be made arbitrarily large, or a link to `/dev/zero`).
pub const CONFIG_FILE_LIMIT: u64 = 1024 * 1024;

/// The message for a configuration file over [`CONFIG_FILE_LIMIT`].
#[must_use]
pub fn too_large_message() -> String {
    format!("larger than {CONFIG_FILE_LIMIT} bytes; not read")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GovernorMode {
    #[default]
    Off,
    Shadow,
    On,
}

impl GovernorMode {
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "off" => Some(Self::Off),
            "shadow" => Some(Self::Shadow),
            "on" => Some(Self::On),
            _ => None,
        }
    }
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Shadow => "shadow",
            Self::On => "on",
        }
    }
}

/// `hosts.claudeCode.instructionFiles` (spec/instructions.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClaudeInstructionFiles {
    #[default]
    ClaudeMdOrAgentsMd,
    ClaudeMdAndAgentsMd,
    ClaudeMd,
    ManagedOnly,
}

/// One entry of the `skills` key, resolved against the directory of the file holding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillRoot {
    pub path: PathBuf,
    /// Which layer gave it (for messages).
    pub origin: Origin,
}

/// Resolved settings. Defaults applied, every value valid.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub claude_md_fallback: bool,
    pub max_bytes: u32,
    pub governor: GovernorMode,
    pub elide_min_age_turns: u32,
    /// `None`: the policy's default ([`EPOCH_MESSAGES_V1`], [`EPOCH_MESSAGES_V2`]).
    pub elide_epoch_messages: Option<u32>,
    pub policy_version: Option<u32>,
    pub invariants_max_chars: u32,
    /// Policy 2 (spec/governor.md §3.3): `context.spill.*` and `context.trim.*`.
    pub spill_threshold_chars: u32,
    pub spill_head_chars: u32,
    pub spill_tail_chars: u32,
    pub trim_min_chars: u32,
    pub trim_keep_recent: u32,
    pub claude_instruction_files: ClaudeInstructionFiles,
    /// `skills` entries of every layer, highest precedence first (spec/skills.md §1.1).
    pub skills: Vec<SkillRoot>,
    /// `skillOverrides.<id>.enabled`, project layer only (spec/skills.md §3.3).
    pub skill_overrides: BTreeMap<String, bool>,
    /// `hosts.enabled`, `hosts.copilot.*`, `hosts.gemini.*` (spec/hosts.md §6).
    pub hosts: HostSettings,
    /// `diagnostics.severity` and `diagnostics.ignore` of every layer (spec/suppressions.md §2).
    pub diagnostics: crate::suppress::Rules,
    /// The merged raw configuration, unknown keys included, for keys owned by later modules.
    pub raw: Value,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            claude_md_fallback: false,
            max_bytes: DEFAULT_MAX_BYTES,
            governor: GovernorMode::Off,
            elide_min_age_turns: 2,
            elide_epoch_messages: None,
            policy_version: None,
            invariants_max_chars: 4000,
            spill_threshold_chars: SPILL_THRESHOLD_CHARS.2,
            spill_head_chars: SPILL_HEAD_CHARS.2,
            spill_tail_chars: SPILL_TAIL_CHARS.2,
            trim_min_chars: TRIM_MIN_CHARS.2,
            trim_keep_recent: TRIM_KEEP_RECENT.2,
            claude_instruction_files: ClaudeInstructionFiles::default(),
            skills: Vec::new(),
            skill_overrides: BTreeMap::new(),
            hosts: HostSettings::default(),
            diagnostics: crate::suppress::Rules::default(),
            raw: Value::Object(serde_json::Map::new()),
        }
    }
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

/// One invalid value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Dotted key, e.g. `context.maxBytes`.
    pub key: String,
    /// The exact message of the spec, e.g. `context.maxBytes must be an integer from 1024 to
    /// 1048576; got 1023`.
    pub message: String,
    /// Span of the value in the file; `None` for client-provided JSON.
    pub span: Option<TextRange>,
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
    pub problems: Vec<Problem>,
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
                if let Err(message) = (spec.check)(spec.key, v, &self.shown(spec.key, v, text)) {
                    problems.push(Problem {
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
                    problems.push(Problem {
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
                    Some(other) => problems.push(Problem {
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
            problems.push(Problem {
                span: self.span_of(&key),
                key,
                message,
            });
        }
        self.problems = problems;
    }

    fn is_invalid(&self, key: &str) -> bool {
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

/// The value at a dotted key path.
#[must_use]
pub fn lookup<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    key.split('.').try_fold(v, |v, k| v.as_object()?.get(k))
}

struct KeySpec {
    key: &'static str,
    check: fn(&str, &Value, &str) -> Result<(), String>,
}

/// A JSON integer in `[min, max]`: no fraction, no exponent (`2048.0` and `1e4` are invalid).
fn int_in(v: &Value, min: i64, max: i64) -> Option<i64> {
    let Value::Number(n) = v else { return None };
    let text = n.to_string();
    if text.contains(['.', 'e', 'E']) {
        return None;
    }
    n.as_i64().filter(|i| (min..=max).contains(i))
}

macro_rules! int_key {
    ($key:literal, $min:expr, $max:expr) => {
        KeySpec {
            key: $key,
            check: |k, v, shown| {
                int_in(v, $min, $max).map(|_| ()).ok_or_else(|| {
                    format!(
                        "{k} must be an integer from {} to {}; got {shown}",
                        $min, $max
                    )
                })
            },
        }
    };
}

fn bool_check(k: &str, v: &Value, shown: &str) -> Result<(), String> {
    if v.is_boolean() {
        Ok(())
    } else {
        Err(format!("{k} must be true or false; got {shown}"))
    }
}

fn enum_message(k: &str, allowed: &[&str], shown: &str) -> String {
    let quoted: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
    let list = match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    };
    format!("{k} must be {list}; got {shown}")
}

const GOVERNOR_MODES: &[&str] = &["off", "shadow", "on"];
const CLAUDE_MODES: &[&str] = &[
    "claude-md-or-agents-md",
    "claude-md-and-agents-md",
    "claude-md",
    "managed-only",
];

/// Current governor policy version (spec/governor.md §9).
pub const POLICY_VERSION: i64 = 2;

/// The default `context.elide.epochMessages` of policy 1 and of policy 2 (spec/governor.md §9; why
/// policy 2 batches a little more: docs/governor.md).
pub const EPOCH_MESSAGES_V1: u32 = 32;
pub const EPOCH_MESSAGES_V2: u32 = 36;

/// The default `epochMessages` under a policy version (`None`: this build's).
#[must_use]
pub fn epoch_default(policy: Option<u32>) -> u32 {
    if policy.unwrap_or(POLICY_VERSION as u32) >= 2 {
        EPOCH_MESSAGES_V2
    } else {
        EPOCH_MESSAGES_V1
    }
}

/// Policy-2 settings (spec/governor.md §9): (min, max, default). The defaults and why: docs/governor.md.
pub const SPILL_THRESHOLD_CHARS: (i64, i64, u32) = (500, 1_000_000, 600);
pub const SPILL_HEAD_CHARS: (i64, i64, u32) = (200, 100_000, 200);
pub const SPILL_TAIL_CHARS: (i64, i64, u32) = (200, 100_000, 200);
pub const TRIM_MIN_CHARS: (i64, i64, u32) = (100, 1_000_000, 100);
pub const TRIM_KEEP_RECENT: (i64, i64, u32) = (5, 1000, 5);

const SANDBOX_MODES: &[&str] = &["workspace-write", "read-only", "off"];
const PROCESS_POLICIES: &[&str] = &["allow", "ask", "deny", "sandboxed"];

static KEYS: &[KeySpec] = &[
    // The process sandbox (spec/sessions.md §10.4); read by session::settings.
    KeySpec {
        key: "process.sandbox",
        check: |k, v, shown| match v.as_str() {
            Some(s) if SANDBOX_MODES.contains(&s) => Ok(()),
            _ => Err(enum_message(k, SANDBOX_MODES, shown)),
        },
    },
    KeySpec {
        key: "process.network",
        check: bool_check,
    },
    KeySpec {
        key: "approvals.process",
        check: |k, v, shown| match v.as_str() {
            Some(s) if PROCESS_POLICIES.contains(&s) => Ok(()),
            _ => Err(enum_message(k, PROCESS_POLICIES, shown)),
        },
    },
    KeySpec {
        key: "context.claudeMdFallback",
        check: bool_check,
    },
    int_key!("context.maxBytes", MAX_BYTES_MIN, MAX_BYTES_MAX),
    KeySpec {
        key: "context.governor",
        check: |k, v, shown| match v.as_str() {
            Some(s) if GOVERNOR_MODES.contains(&s) => Ok(()),
            _ => Err(enum_message(k, GOVERNOR_MODES, shown)),
        },
    },
    int_key!("context.elide.minAgeTurns", 1, 20),
    int_key!("context.elide.epochMessages", 0, 1000),
    int_key!("context.policyVersion", 1, POLICY_VERSION),
    int_key!("context.invariants.maxChars", 1000, 20000),
    int_key!(
        "context.spill.thresholdChars",
        SPILL_THRESHOLD_CHARS.0,
        SPILL_THRESHOLD_CHARS.1
    ),
    int_key!(
        "context.spill.headChars",
        SPILL_HEAD_CHARS.0,
        SPILL_HEAD_CHARS.1
    ),
    int_key!(
        "context.spill.tailChars",
        SPILL_TAIL_CHARS.0,
        SPILL_TAIL_CHARS.1
    ),
    int_key!("context.trim.minChars", TRIM_MIN_CHARS.0, TRIM_MIN_CHARS.1),
    int_key!(
        "context.trim.keepRecent",
        TRIM_KEEP_RECENT.0,
        TRIM_KEEP_RECENT.1
    ),
    KeySpec {
        key: "hosts.claudeCode.instructionFiles",
        check: |k, v, shown| match v.as_str() {
            Some(s) if CLAUDE_MODES.contains(&s) => Ok(()),
            _ => Err(enum_message(k, CLAUDE_MODES, shown)),
        },
    },
    KeySpec {
        key: "skills",
        check: |k, v, shown| {
            if v.is_array() {
                Ok(())
            } else {
                Err(format!("{k} must be an array of strings; got {shown}"))
            }
        },
    },
    KeySpec {
        key: "skillOverrides",
        check: |k, v, shown| {
            if v.is_object() {
                Ok(())
            } else {
                Err(format!("{k} must be an object; got {shown}"))
            }
        },
    },
];

fn u32_of(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok())
}

/// Applies layers (lowest precedence first) over the defaults. Invalid values are skipped, so
/// the lower layer or the default stays in effect.
#[must_use]
pub fn resolve(layers: &[Layer], home: Option<&Path>) -> Settings {
    let mut s = Settings::default();
    let mut raw = serde_json::Map::new();
    for layer in layers {
        let get = |key: &str| -> Option<&Value> {
            if layer.is_invalid(key) {
                return None;
            }
            lookup(&layer.raw, key).filter(|v| !v.is_null())
        };
        if let Some(v) = get("context.claudeMdFallback").and_then(Value::as_bool) {
            s.claude_md_fallback = v;
        }
        if let Some(v) = get("context.maxBytes").and_then(u32_of) {
            s.max_bytes = v;
        }
        if let Some(v) = get("context.governor")
            .and_then(Value::as_str)
            .and_then(GovernorMode::parse)
        {
            s.governor = v;
        }
        if let Some(v) = get("context.elide.minAgeTurns").and_then(u32_of) {
            s.elide_min_age_turns = v;
        }
        if let Some(v) = get("context.elide.epochMessages").and_then(u32_of) {
            s.elide_epoch_messages = Some(v);
        }
        if let Some(v) = get("context.policyVersion").and_then(u32_of) {
            s.policy_version = Some(v);
        }
        if let Some(v) = get("context.invariants.maxChars").and_then(u32_of) {
            s.invariants_max_chars = v;
        }
        for (key, slot) in [
            ("context.spill.thresholdChars", &mut s.spill_threshold_chars),
            ("context.spill.headChars", &mut s.spill_head_chars),
            ("context.spill.tailChars", &mut s.spill_tail_chars),
            ("context.trim.minChars", &mut s.trim_min_chars),
            ("context.trim.keepRecent", &mut s.trim_keep_recent),
        ] {
            if let Some(v) = get(key).and_then(u32_of) {
                *slot = v;
            }
        }
        if let Some(v) = get("hosts.claudeCode.instructionFiles").and_then(Value::as_str) {
            s.claude_instruction_files = match v {
                "claude-md-and-agents-md" => ClaudeInstructionFiles::ClaudeMdAndAgentsMd,
                "claude-md" => ClaudeInstructionFiles::ClaudeMd,
                "managed-only" => ClaudeInstructionFiles::ManagedOnly,
                _ => ClaudeInstructionFiles::ClaudeMdOrAgentsMd,
            };
        }
        if let Some(Value::Array(items)) = get("skills") {
            let base = layer.path.as_deref().and_then(Path::parent);
            // Higher layers come first: prepend this layer's entries.
            let mut mine: Vec<SkillRoot> = items
                .iter()
                .filter_map(Value::as_str)
                .map(|e| SkillRoot {
                    path: resolve_entry(e, base, home),
                    origin: layer.origin,
                })
                .collect();
            mine.append(&mut s.skills);
            s.skills = mine;
        }
        if layer.origin == Origin::Project
            && let Some(Value::Object(map)) = get("skillOverrides")
        {
            for (id, entry) in map {
                if let Some(Value::Bool(b)) = entry.get("enabled") {
                    s.skill_overrides.insert(id.clone(), *b);
                }
            }
        }
        hosts::apply(&mut s.hosts, &get);
        s.diagnostics.merge(&layer.raw);
        if let Value::Object(m) = &layer.raw {
            merge(&mut raw, m);
        }
    }
    s.raw = Value::Object(raw);
    s
}

fn resolve_entry(entry: &str, base: Option<&Path>, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (entry.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    let p = Path::new(entry);
    match base {
        Some(b) if p.is_relative() => crate::workspace::normalize_lexically(&b.join(p)),
        _ => p.to_path_buf(),
    }
}

fn merge(into: &mut serde_json::Map<String, Value>, from: &serde_json::Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            (_, Value::Null) => {}
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(text: &str) -> Layer {
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
    fn invalid_value_leaves_lower_layer_in_effect() {
        let low = layer(r#"{"context":{"maxBytes":4096}}"#);
        let high =
            layer(r#"{"context":{"maxBytes":10, "claudeMdFallback": true}, "other": {"kept": 1}}"#);
        let s = resolve(&[low, high], None);
        assert_eq!(s.max_bytes, 4096);
        assert!(s.claude_md_fallback);
        assert_eq!(s.raw["other"]["kept"], 1);
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
    fn null_means_absent() {
        let s = resolve(
            &[
                layer(r#"{"context":{"maxBytes":4096}}"#),
                layer(r#"{"context":{"maxBytes":null}}"#),
            ],
            None,
        );
        assert_eq!(s.max_bytes, 4096);
    }

    #[test]
    fn skills_entries_resolve_against_their_file_and_concatenate_highest_first() {
        let user = Layer::from_file_text(
            Origin::User,
            Path::new("/home/u/.config/alisio/config.json"),
            "u",
            r#"{"skills":["~/s","abs"]}"#,
        )
        .unwrap();
        let proj = Layer::from_file_text(
            Origin::Project,
            Path::new("/ws/.alisio/config.json"),
            "p",
            r#"{"skills":["../tools/skills", 3]}"#,
        )
        .unwrap();
        assert_eq!(proj.problems.len(), 1);
        let s = resolve(&[user, proj], Some(Path::new("/home/u")));
        let paths: Vec<_> = s.skills.iter().map(|r| r.path.clone()).collect();
        assert_eq!(
            paths,
            [
                PathBuf::from("/ws/tools/skills"),
                PathBuf::from("/home/u/s"),
                PathBuf::from("/home/u/.config/alisio/abs")
            ]
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

/// Which host's loading rules to simulate (`--host`, LS `host`; the CLI parses it in
/// `cli::values`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Host {
    #[default]
    Alisio,
    Codex,
    ClaudeCode,
    Copilot,
    Gemini,
    Cursor,
}

impl Host {
    /// Every host, in the order hovers list them (hosts.md H9).
    pub const ALL: [Self; 6] = [
        Self::Alisio,
        Self::Codex,
        Self::ClaudeCode,
        Self::Copilot,
        Self::Gemini,
        Self::Cursor,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Alisio => "alisio",
            Self::Codex => "codex",
            Self::ClaudeCode => "claude-code",
            Self::Copilot => "copilot",
            Self::Gemini => "gemini",
            Self::Cursor => "cursor",
        }
    }

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.as_str() == s)
    }
}

/// Which validator's rules a SKILL.md is checked against (`--profile`, LS `profile`; the CLI
/// parses it in `cli::values`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    #[default]
    Alisio,
    Spec,
    Codex,
    ClaudeCode,
}

impl Profile {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Alisio => "alisio",
            Self::Spec => "spec",
            Self::Codex => "codex",
            Self::ClaudeCode => "claude-code",
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

impl Settings {
    /// The JSON text of the value in effect for a known key (for `(using <value>)` notices).
    #[must_use]
    pub fn shown(&self, key: &str) -> String {
        match key {
            "context.claudeMdFallback" => self.claude_md_fallback.to_string(),
            "context.maxBytes" => self.max_bytes.to_string(),
            "context.governor" => format!("\"{}\"", self.governor.as_str()),
            "context.elide.minAgeTurns" => self.elide_min_age_turns.to_string(),
            "context.elide.epochMessages" => self
                .elide_epoch_messages
                .unwrap_or_else(|| epoch_default(self.policy_version))
                .to_string(),
            "context.policyVersion" => self
                .policy_version
                .map_or_else(|| POLICY_VERSION.to_string(), |v| v.to_string()),
            "context.invariants.maxChars" => self.invariants_max_chars.to_string(),
            "context.spill.thresholdChars" => self.spill_threshold_chars.to_string(),
            "context.spill.headChars" => self.spill_head_chars.to_string(),
            "context.spill.tailChars" => self.spill_tail_chars.to_string(),
            "context.trim.minChars" => self.trim_min_chars.to_string(),
            "context.trim.keepRecent" => self.trim_keep_recent.to_string(),
            _ => lookup(&self.raw, key)
                .map_or_else(|| "the default".to_string(), ToString::to_string),
        }
    }
}

/// Writes `skillOverrides.<id>.enabled` into `<workspace root>/.alisio/config.json` atomically
/// (spec/skills.md §3.3 steps 3–6): no symlink is written through, the existing file must be strict
/// JSON with object members where we write, every other key and the key order are kept, and the
/// result (2-space indentation, final newline) replaces the file by rename from a temporary file
/// in the same directory. The file is never left half-written and no temporary file survives.
///
/// # Errors
/// The exact messages of spec/skills.md §3.3 (`refusing to write through a symbolic link: …`,
/// `cannot update .alisio/config.json: …`, `config.json changed while saving; try again`).
pub fn write_skill_override(workspace_root: &Path, id: &str, enabled: bool) -> Result<(), String> {
    use crate::workspace::write::{NewContent, Replaced};
    use crate::workspace::{FileType, Fs as _};
    let fs = crate::workspace::DiskFs;
    let dir = workspace_root.join(".alisio");
    let file = dir.join("config.json");
    let cannot = |m: String| format!("cannot update .alisio/config.json: {m}");
    match fs.symlink_metadata(&dir) {
        Ok(m) if m.file_type == FileType::Symlink => {
            return Err(format!(
                "refusing to write through a symbolic link: {}",
                dir.display()
            ));
        }
        Ok(m) if m.file_type != FileType::Dir => {
            return Err(cannot(format!("{} is not a directory", dir.display())));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs.create_dir(&dir).map_err(|e| cannot(e.to_string()))?;
        }
        Err(e) => return Err(cannot(e.to_string())),
    }
    for attempt in 0..2 {
        let before = match fs.symlink_metadata(&file) {
            Ok(m) if m.file_type == FileType::Symlink => {
                return Err(format!(
                    "refusing to write through a symbolic link: {}",
                    file.display()
                ));
            }
            Ok(m) if m.file_type != FileType::File => {
                return Err(cannot("config.json is not a regular file".into()));
            }
            Ok(m) if m.len > CONFIG_FILE_LIMIT => return Err(cannot(too_large_message())),
            Ok(m) => Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(cannot(e.to_string())),
        };
        let mut text = String::new();
        let mut root = match &before {
            None => Value::Object(serde_json::Map::new()),
            Some(_) => {
                let bytes = fs.read(&file).map_err(|e| cannot(e.to_string()))?;
                text = String::from_utf8(bytes)
                    .map_err(|_| cannot("stream did not contain valid UTF-8".to_string()))?;
                let t = text.strip_prefix('\u{feff}').unwrap_or(&text);
                if t.trim().is_empty() {
                    Value::Object(serde_json::Map::new())
                } else {
                    serde_json::from_str::<Value>(t).map_err(|e| cannot(e.to_string()))?
                }
            }
        };
        // Where a value sits, for messages (1-based line and column).
        let at = |key: &str| -> String {
            let span = Layer::from_file_text(Origin::Project, &file, "config.json", &text)
                .ok()
                .and_then(|l| l.span_of(key));
            let offset = span.map_or(0, |r| r.start);
            let lc = crate::text::LineIndex::new(&text).line_col(offset);
            format!("at line {} column {}", lc.line + 1, lc.utf16 + 1)
        };
        let Value::Object(top) = &mut root else {
            return Err(cannot(format!("the top level is not an object {}", at(""))));
        };
        let overrides = top
            .entry("skillOverrides")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        let Value::Object(overrides) = overrides else {
            return Err(cannot(format!(
                "skillOverrides is not an object {}",
                at("skillOverrides")
            )));
        };
        let slot = overrides
            .entry(id.to_string())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        let Value::Object(slot) = slot else {
            return Err(cannot(format!(
                "skillOverrides.{id} is not an object {}",
                at(&format!("skillOverrides.{id}"))
            )));
        };
        slot.insert("enabled".into(), Value::Bool(enabled));
        let mut out = serde_json::to_string_pretty(&root).map_err(|e| cannot(e.to_string()))?;
        out.push('\n');
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
            ^ (attempt * 7919);
        let tmp = format!("config.json.{}.{nonce:08x}.tmp", std::process::id());
        let new = NewContent {
            bytes: out.as_bytes(),
            tmp_name: &tmp,
            expected: before.as_ref(),
        };
        match fs.replace_file(&file, &new) {
            Ok(Replaced::Written) => return Ok(()),
            Ok(Replaced::Changed) => {}
            Err(e) => return Err(cannot(e.to_string())),
        }
    }
    Err("config.json changed while saving; try again".to_string())
}

#[cfg(test)]
mod override_tests {
    use super::*;

    #[test]
    fn override_write_keeps_other_keys_in_order_with_two_space_indentation() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path();
        std::fs::create_dir(ws.join(".alisio")).unwrap();
        std::fs::write(
            ws.join(".alisio/config.json"),
            r#"{"model":"x","skillOverrides":{"b":{"enabled":false,"note":1}}}"#,
        )
        .unwrap();
        write_skill_override(ws, "pdf", false).unwrap();
        let got = std::fs::read_to_string(ws.join(".alisio/config.json")).unwrap();
        assert_eq!(
            got,
            "{\n  \"model\": \"x\",\n  \"skillOverrides\": {\n    \"b\": {\n      \"enabled\": false,\n      \"note\": 1\n    },\n    \"pdf\": {\n      \"enabled\": false\n    }\n  }\n}\n"
        );
        let names: Vec<_> = std::fs::read_dir(ws.join(".alisio"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["config.json"]);
    }

    #[test]
    fn override_write_creates_the_directory_and_writes_explicit_true() {
        let t = tempfile::tempdir().unwrap();
        write_skill_override(t.path(), "a", true).unwrap();
        assert_eq!(
            std::fs::read_to_string(t.path().join(".alisio/config.json")).unwrap(),
            "{\n  \"skillOverrides\": {\n    \"a\": {\n      \"enabled\": true\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn override_write_refuses_invalid_json_and_symlinks_leaving_bytes_unchanged() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path();
        std::fs::create_dir(ws.join(".alisio")).unwrap();
        std::fs::write(ws.join(".alisio/config.json"), r#"{"a":"#).unwrap();
        let e = write_skill_override(ws, "pdf", false).unwrap_err();
        assert_eq!(
            e,
            "cannot update .alisio/config.json: EOF while parsing a value at line 1 column 5"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join(".alisio/config.json")).unwrap(),
            r#"{"a":"#
        );
        std::fs::write(ws.join(".alisio/config.json"), r#"{"skillOverrides": 3}"#).unwrap();
        assert_eq!(
            write_skill_override(ws, "pdf", false).unwrap_err(),
            "cannot update .alisio/config.json: skillOverrides is not an object at line 1 column 20"
        );
        #[cfg(unix)]
        {
            std::fs::write(ws.join("target.json"), "{}").unwrap();
            std::fs::remove_file(ws.join(".alisio/config.json")).unwrap();
            std::os::unix::fs::symlink(ws.join("target.json"), ws.join(".alisio/config.json"))
                .unwrap();
            let e = write_skill_override(ws, "pdf", false).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "refusing to write through a symbolic link: {}",
                    ws.join(".alisio/config.json").display()
                )
            );
            assert_eq!(
                std::fs::read_to_string(ws.join("target.json")).unwrap(),
                "{}"
            );
        }
    }
}
