//! The known configuration keys: their bounds and defaults, one check per key, and the exact
//! messages of an invalid value (spec/instructions.md §2.10, spec/governor.md §9).

use serde_json::Value;

use crate::text::TextRange;

/// `context.maxBytes` bounds (spec/instructions.md §2.10).
pub const MAX_BYTES_MIN: i64 = 1024;
pub const MAX_BYTES_MAX: i64 = 1_048_576;
pub const DEFAULT_MAX_BYTES: u32 = 32_768;

/// One invalid value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    /// Dotted key, e.g. `context.maxBytes`.
    pub key: String,
    /// The exact message of the spec, e.g. `context.maxBytes must be an integer from 1024 to
    /// 1048576; got 1023`.
    pub message: String,
    /// Span of the value in the file; `None` for client-provided JSON.
    pub span: Option<TextRange>,
}

/// The value at a dotted key path.
#[must_use]
pub fn lookup<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    key.split('.').try_fold(v, |v, k| v.as_object()?.get(k))
}

/// The type and bounds of a key's value; its check and the message of a bad value follow from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ty {
    /// A JSON integer in `[min, max]` (no fraction, no exponent); `max == i64::MAX`: no upper bound.
    Int {
        min: i64,
        max: i64,
    },
    /// A JSON number (integer or not) in `[min, max]`.
    Number {
        min: f64,
        max: f64,
    },
    Bool,
    /// One of the strings.
    Enum(&'static [&'static str]),
    Str,
    /// An array whose items the layer checks one by one (`skills`).
    Array,
    /// An array of strings.
    StrArray,
    Object,
    /// An object whose values are strings (`provider.headers`).
    StrMap,
}

/// Where a key may be set (spec/sessions.md §1.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyScope {
    /// Every layer.
    Any,
    /// Security-sensitive: never read from the project's `.alisio/config.json`.
    NotProject,
}

/// One known key: the one declaration that validation, the readers and the docs use.
#[derive(Clone, Copy, Debug)]
pub struct KeySpec {
    pub key: &'static str,
    pub ty: Ty,
    /// The default as the docs state it (JSON text, or a phrase in parentheses).
    pub default: &'static str,
    pub scope: KeyScope,
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

impl Ty {
    /// Checks `v` (shown as `shown` in messages) for the key `k`.
    ///
    /// # Errors
    /// The exact message of the spec for a bad value.
    pub fn check(self, k: &str, v: &Value, shown: &str) -> Result<(), String> {
        let ok = match self {
            Self::Int { min, max } => int_in(v, min, max).is_some(),
            Self::Number { min, max } => v.as_f64().is_some_and(|n| (min..=max).contains(&n)),
            Self::Bool => v.is_boolean(),
            Self::Enum(allowed) => v.as_str().is_some_and(|s| allowed.contains(&s)),
            Self::Str => v.is_string(),
            Self::Array => v.is_array(),
            Self::StrArray => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            Self::Object => v.is_object(),
            Self::StrMap => v
                .as_object()
                .is_some_and(|o| o.values().all(Value::is_string)),
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            Self::Int { min, max } if max == i64::MAX => {
                format!("{k} must be an integer of at least {min}; got {shown}")
            }
            Self::Int { min, max } => {
                format!("{k} must be an integer from {min} to {max}; got {shown}")
            }
            Self::Number { min, max } => {
                format!("{k} must be a number from {min} to {max}; got {shown}")
            }
            Self::Bool => format!("{k} must be true or false; got {shown}"),
            Self::Enum(allowed) => enum_message(k, allowed, shown),
            Self::Str => format!("{k} must be a string; got {shown}"),
            Self::Array | Self::StrArray => format!("{k} must be an array of strings; got {shown}"),
            Self::Object => format!("{k} must be an object; got {shown}"),
            Self::StrMap => format!("{k} must be an object of strings; got {shown}"),
        })
    }
}

/// The declaration of a known key (`None`: not a key this build knows).
#[must_use]
pub fn spec(key: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|s| s.key == key)
}

/// Every known key, in the docs' order.
#[must_use]
pub fn all() -> &'static [KeySpec] {
    KEYS
}

pub(super) fn enum_message(k: &str, allowed: &[&str], shown: &str) -> String {
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

/// The default `context.elide.epochMessages` of policy 1 and of policy 2 (spec/governor.md §9; how
/// policy 2's was chosen, by Σ cost with recovery under its cache gate: docs/governor.md).
pub const EPOCH_MESSAGES_V1: u32 = 32;
pub const EPOCH_MESSAGES_V2: u32 = 12;

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
pub const SPILL_THRESHOLD_CHARS: (i64, i64, u32) = (500, 1_000_000, 4000);
pub const SPILL_HEAD_CHARS: (i64, i64, u32) = (200, 100_000, 400);
pub const SPILL_TAIL_CHARS: (i64, i64, u32) = (200, 100_000, 400);
pub const TRIM_MIN_CHARS: (i64, i64, u32) = (100, 1_000_000, 100);
pub const TRIM_KEEP_RECENT: (i64, i64, u32) = (5, 1000, 5);
/// Denial pruning (spec/governor.md §3.4): refusals of one kind kept whole; 0 allowed.
pub const TRIM_KEEP_DENIALS: (i64, i64, u32) = (0, 1000, 1);

const SANDBOX_MODES: &[&str] = &["workspace-write", "read-only", "off"];
const PROCESS_POLICIES: &[&str] = &["allow", "ask", "deny", "sandboxed"];

const WRITE_POLICIES: &[&str] = &["allow", "ask", "deny", "sandboxed"];
const SESSION_MODES: &[&str] = &["default", "coordinator"];
const PROVIDER_KINDS: &[&str] = &["openai", "anthropic", "script"];

const fn int(min: i64, max: i64) -> Ty {
    Ty::Int { min, max }
}

const fn at_least(min: i64) -> Ty {
    Ty::Int { min, max: i64::MAX }
}

const fn bounded(b: (i64, i64, u32)) -> Ty {
    Ty::Int { min: b.0, max: b.1 }
}

macro_rules! keys {
    ($( $key:literal : $ty:expr, $default:literal $(, $scope:ident)? ;)*) => {
        &[$(KeySpec { key: $key, ty: $ty, default: $default, scope: keys!(@scope $($scope)?) }),*]
    };
    (@scope) => { KeyScope::Any };
    (@scope $s:ident) => { KeyScope::$s };
}

/// Every key this build reads (spec/instructions.md §2.10, spec/governor.md §9, spec/sessions.md
/// §1.8, §2.1, §4.2, §5.1, §6.1, §10.4, §11, §12). A value of the wrong type or out of bounds is a
/// problem (CLI exit 2, server `config-invalid`), never clamped or ignored.
pub(super) static KEYS: &[KeySpec] = keys! {
    "context.claudeMdFallback": Ty::Bool, "false";
    "context.maxBytes": int(MAX_BYTES_MIN, MAX_BYTES_MAX), "32768";
    "context.governor": Ty::Enum(GOVERNOR_MODES), "\"off\"";
    "context.elide.minAgeTurns": int(1, 20), "2";
    "context.elide.epochMessages": int(0, 1000), "(12 under policy 2, 32 under policy 1)";
    "context.policyVersion": int(1, POLICY_VERSION), "2";
    "context.invariants.maxChars": int(1000, 20000), "4000";
    "context.spill.thresholdChars": bounded(SPILL_THRESHOLD_CHARS), "(spec/governor.md §9)";
    "context.spill.headChars": bounded(SPILL_HEAD_CHARS), "(spec/governor.md §9)";
    "context.spill.tailChars": bounded(SPILL_TAIL_CHARS), "(spec/governor.md §9)";
    "context.trim.minChars": bounded(TRIM_MIN_CHARS), "(spec/governor.md §9)";
    "context.trim.keepRecent": bounded(TRIM_KEEP_RECENT), "(spec/governor.md §9)";
    "context.trim.keepDenials": bounded(TRIM_KEEP_DENIALS), "(spec/governor.md §9)";
    "hosts.claudeCode.instructionFiles": Ty::Enum(CLAUDE_MODES), "\"claude-md-or-agents-md\"";
    "skills": Ty::Array, "[]";
    "skillOverrides": Ty::Object, "{}";
    // Sessions (spec/sessions.md): read by alisio_session::SessionConfig through `Reader`.
    "provider": Ty::Object, "{}", NotProject;
    "provider.kind": Ty::Enum(PROVIDER_KINDS), "\"openai\"", NotProject;
    "provider.baseUrl": Ty::Str, "(by kind)", NotProject;
    "provider.model": Ty::Str, "(none)", NotProject;
    "provider.apiKeyEnv": Ty::Str, "(by kind)", NotProject;
    "provider.contextWindow": int(1, 2_000_000), "(by model)", NotProject;
    "provider.maxOutputTokens": int(1, u32::MAX as i64), "8192", NotProject;
    "provider.temperature": Ty::Number { min: 0.0, max: 2.0 }, "(none)", NotProject;
    "provider.maxTokensParam": Ty::Enum(&["max_tokens", "max_completion_tokens"]), "\"max_tokens\"", NotProject;
    "provider.streamUsage": Ty::Bool, "true", NotProject;
    "provider.headers": Ty::StrMap, "{}", NotProject;
    "provider.connectTimeoutMs": at_least(1), "10000", NotProject;
    "provider.idleTimeoutMs": at_least(1), "300000", NotProject;
    "provider.requestTimeoutMs": at_least(1), "1800000", NotProject;
    "provider.maxRetries": int(0, 100), "3", NotProject;
    "provider.promptCacheTtlSeconds": int(0, 86_400), "(300 for anthropic, 0 otherwise)", NotProject;
    "provider.retryBaseMs": at_least(0), "1000", NotProject;
    "provider.script": Ty::Str, "(none)", NotProject;
    "provider.promptCache": Ty::Bool, "true", NotProject;
    "limits.maxTurns": int(1, 1000), "50";
    "limits.maxTokens": at_least(1), "(8 x window, 400000-8000000; 1000000 without a window)", NotProject;
    "limits.maxContextChars": at_least(1000), "800000";
    "limits.maxOutputTokens": int(1, u32::MAX as i64), "(provider.maxOutputTokens)";
    "compaction.auto": Ty::Bool, "true";
    "compaction.threshold": Ty::Number { min: 0.1, max: 0.99 }, "0.85";
    "compaction.keepTurns": int(0, 20), "2";
    "compaction.maxOutputTokens": int(256, u32::MAX as i64), "(8192, at most a quarter of a known window)";
    "approvals.write": Ty::Enum(WRITE_POLICIES), "\"ask\"", NotProject;
    "approvals.process": Ty::Enum(PROCESS_POLICIES), "\"ask\"", NotProject;
    "approvals.timeoutMs": at_least(1), "300000", NotProject;
    "process.passEnv": Ty::StrArray, "[]", NotProject;
    "process.sandbox": Ty::Enum(SANDBOX_MODES), "\"workspace-write\"", NotProject;
    "process.network": Ty::Bool, "false", NotProject;
    "externalDirectories": Ty::StrArray, "[]", NotProject;
    "subagents.enabled": Ty::Bool, "true";
    "subagents.maxTurns": int(1, 1000), "30";
    "tasks.maxRunning": at_least(1), "8";
    "tasks.maxRunMs": int(1000, 86_400_000), "3600000";
    "tasks.maxOutputBytes": at_least(1), "2097152";
    "session.mode": Ty::Enum(SESSION_MODES), "\"default\"";
    "session.relay": Ty::Bool, "(on in coordinator mode, else off)";
    "relay.atFraction": Ty::Number { min: 0.1, max: 0.95 }, "0.7";
};
