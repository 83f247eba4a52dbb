//! The stored session format as types (spec/sessions.md §1.3–§1.4), shared by the session layer,
//! which writes it, and the governor's reader of our own transcript export, which reads it:
//! the role and kind of a message row, and the session `options` object.
//!
//! [`SessionOptions::from_value`] is the one place the `options` object is decoded. Decoding
//! is lenient as the store has always been: a key with the wrong shape reads as absent, and a
//! malformed list entry is skipped, so one bad value never hides the rest. Writes go through
//! [`SessionOptions::merge_into`], which replaces only the keys a patch sets and keeps every
//! other key (and the key order) of the stored object.

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::invariants::{Criterion, Goal, Sources};

/// Who a stored message is from (`messages.role`, the message JSON's `role`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    Tool,
}

impl Role {
    /// The stored string.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }

    /// The role a stored string names.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "user" => Some(Self::User),
            "assistant" => Some(Self::Assistant),
            "tool" => Some(Self::Tool),
            _ => None,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a stored message row is (`messages.kind`): a message as the conversation produced it,
/// a compaction checkpoint, or a copy clipped by budget reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowKind {
    Message,
    Checkpoint,
    Reduced,
}

impl RowKind {
    /// The stored string.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Message => "message",
            Self::Checkpoint => "checkpoint",
            Self::Reduced => "reduced",
        }
    }

    /// The kind a stored string names.
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "message" => Some(Self::Message),
            "checkpoint" => Some(Self::Checkpoint),
            "reduced" => Some(Self::Reduced),
            _ => None,
        }
    }
}

impl std::fmt::Display for RowKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `options.goal`: the run's `--goal`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredGoal {
    pub objective: String,
    #[serde(default = "active", deserialize_with = "status")]
    pub status: String,
}

fn active() -> String {
    "active".to_string()
}

fn status<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        _ => active(),
    })
}

/// One entry of `options.criteria` (`--criteria`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredCriterion {
    pub text: String,
    /// `true` unless stored as `false`.
    #[serde(default = "yes", deserialize_with = "required")]
    pub required: bool,
}

const fn yes() -> bool {
    true
}

fn required<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(Value::deserialize(d)?.as_bool().unwrap_or(true))
}

/// One entry of `options.attachedInstructions`: an instruction file already delivered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachedEntry {
    /// Absolute path.
    pub path: String,
    pub sha256: String,
    /// Delivered attached to a tool result but not yet part of the instruction section: it
    /// joins at the next compaction, when the request's start is rewritten anyway
    /// (spec/instructions.md §2.8 step 7). Absent (older sessions) means joined.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
}

/// `options.contextInvariants` (spec/sessions.md §7): the instruction quotes kept across
/// compactions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextInvariants {
    #[serde(default = "one", deserialize_with = "lenient")]
    pub version: u64,
    /// The quotes, oldest first (entries that are not strings are skipped).
    #[serde(default, deserialize_with = "strings")]
    pub instructions: Vec<String>,
}

const fn one() -> u64 {
    1
}

impl ContextInvariants {
    /// The stored form of `quotes` (version 1).
    #[must_use]
    pub const fn new(quotes: Vec<String>) -> Self {
        Self {
            version: 1,
            instructions: quotes,
        }
    }
}

/// The session `options` object (spec/sessions.md §1.3). Every field is optional: a patch sets only
/// some of them (see [`SessionOptions::merge_into`]); a stored object may lack any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionOptions {
    /// The governor mode of the last run (`off`, `shadow`, `on`).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "lenient")]
    pub governor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "lenient")]
    pub read_only: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "lenient")]
    pub goal: Option<StoredGoal>,
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "items")]
    pub criteria: Option<Vec<StoredCriterion>>,
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "items")]
    pub attached_instructions: Option<Vec<AttachedEntry>>,
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "lenient")]
    pub context_invariants: Option<ContextInvariants>,
}

/// A value of the wrong shape reads as the default.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<T, D::Error> {
    Ok(serde_json::from_value(Value::deserialize(d)?).unwrap_or_default())
}

/// A list whose malformed entries are skipped; not a list reads as absent.
fn items<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<Vec<T>>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(a) => Some(
            a.into_iter()
                .filter_map(|x| serde_json::from_value(x).ok())
                .collect(),
        ),
        _ => None,
    })
}

fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(items(d)?.unwrap_or_default())
}

impl SessionOptions {
    /// Decodes a stored `options` object (anything else reads as empty options).
    #[must_use]
    pub fn from_value(v: &Value) -> Self {
        Self::deserialize(v).unwrap_or_default()
    }

    /// `stored` with every key this patch sets replaced in place (or appended), the other keys
    /// kept. A stored value that is not an object starts from an empty object.
    #[must_use]
    pub fn merge_into(&self, stored: &Value) -> Value {
        let mut m = match stored {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        if let Ok(Value::Object(patch)) = serde_json::to_value(self) {
            for (k, v) in patch {
                m.insert(k, v);
            }
        }
        Value::Object(m)
    }

    /// The stored instruction quotes, oldest first.
    #[must_use]
    pub fn quotes(&self) -> Vec<String> {
        self.context_invariants
            .as_ref()
            .map(|c| c.instructions.clone())
            .unwrap_or_default()
    }

    /// The stored criteria.
    #[must_use]
    pub fn criteria(&self) -> &[StoredCriterion] {
        self.criteria.as_deref().unwrap_or_default()
    }

    /// The instruction files already delivered.
    #[must_use]
    pub fn attached(&self) -> &[AttachedEntry] {
        self.attached_instructions.as_deref().unwrap_or_default()
    }

    /// The governor's invariant sources as the stored options give them (no plan, no grants:
    /// an export does not carry them).
    #[must_use]
    pub fn sources(&self) -> Sources {
        Sources {
            quotes: self.quotes(),
            goal: self.goal.as_ref().map(|g| Goal {
                objective: g.objective.clone(),
                status: g.status.clone(),
            }),
            plan: None,
            criteria: self
                .criteria()
                .iter()
                .map(|c| Criterion {
                    text: c.text.clone(),
                    required: c.required,
                    not_applicable: false,
                })
                .collect(),
            grants: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn options_decode_leniently_and_merge_in_place() {
        let stored = json!({"zeta":1,"governor":"on","criteria":[{"text":"a"},{"required":false},{"text":"b","required":false}],
            "attachedInstructions":[{"path":"/w/AGENTS.md","sha256":"ab"},{"path":3}],"goal":{"objective":"g","status":7},
            "contextInvariants":{"version":1,"instructions":["q",5]},"readOnly":"yes"});
        let o = SessionOptions::from_value(&stored);
        assert_eq!(o.governor.as_deref(), Some("on"));
        assert_eq!(o.read_only, None);
        assert_eq!(
            o.criteria()
                .iter()
                .map(|c| (c.text.as_str(), c.required))
                .collect::<Vec<_>>(),
            vec![("a", true), ("b", false)]
        );
        assert_eq!(o.attached().len(), 1);
        assert_eq!(o.goal.as_ref().map(|g| g.status.as_str()), Some("active"));
        assert_eq!(o.quotes(), vec!["q".to_string()]);
        assert_eq!(
            SessionOptions::from_value(&json!([1])),
            SessionOptions::default()
        );
        let patch = SessionOptions {
            governor: Some("off".into()),
            read_only: Some(true),
            ..SessionOptions::default()
        };
        assert_eq!(
            serde_json::to_string(&patch.merge_into(&json!({"a":1,"governor":"on"}))).unwrap(),
            r#"{"a":1,"governor":"off","readOnly":true}"#
        );
    }

    #[test]
    fn roles_and_kinds_are_the_stored_strings() {
        for r in [Role::User, Role::Assistant, Role::Tool] {
            assert_eq!(Role::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), json!(r.as_str()));
        }
        for k in [RowKind::Message, RowKind::Checkpoint, RowKind::Reduced] {
            assert_eq!(RowKind::parse(k.as_str()), Some(k));
            assert_eq!(serde_json::to_value(k).unwrap(), json!(k.as_str()));
        }
        assert_eq!(Role::parse("system"), None);
    }
}
