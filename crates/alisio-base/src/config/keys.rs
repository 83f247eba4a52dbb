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
pub struct Problem {
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

pub(super) struct KeySpec {
    pub(super) key: &'static str,
    pub(super) check: fn(&str, &Value, &str) -> Result<(), String>,
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
pub const SPILL_THRESHOLD_CHARS: (i64, i64, u32) = (500, 1_000_000, 4000);
pub const SPILL_HEAD_CHARS: (i64, i64, u32) = (200, 100_000, 400);
pub const SPILL_TAIL_CHARS: (i64, i64, u32) = (200, 100_000, 400);
pub const TRIM_MIN_CHARS: (i64, i64, u32) = (100, 1_000_000, 100);
pub const TRIM_KEEP_RECENT: (i64, i64, u32) = (5, 1000, 5);
/// Denial pruning (spec/governor.md §3.4): refusals of one kind kept whole; 0 allowed.
pub const TRIM_KEEP_DENIALS: (i64, i64, u32) = (0, 1000, 1);

const SANDBOX_MODES: &[&str] = &["workspace-write", "read-only", "off"];
const PROCESS_POLICIES: &[&str] = &["allow", "ask", "deny", "sandboxed"];

pub(super) static KEYS: &[KeySpec] = &[
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
    int_key!(
        "context.trim.keepDenials",
        TRIM_KEEP_DENIALS.0,
        TRIM_KEEP_DENIALS.1
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
