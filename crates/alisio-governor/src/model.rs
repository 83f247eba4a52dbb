//! The message model the governor reads (spec/governor.md §2.1–2.2): plain, serde-able data that the
//! session runner and every transcript reader produce. Nothing here decides anything.

use serde::{Deserialize, Serialize};

/// What a user-role (or foreign system-role) message is (spec/governor.md §2.1, §11.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserKind {
    /// Typed by the user, or the prompt.
    Plain,
    /// The summary a compaction wrote.
    Checkpoint,
    /// Host text in the user role (session-start context, memory recall, meta messages).
    Injected,
    /// A foreign `system` / `developer` message: a pinned `system` segment counted as a message.
    System,
    /// A foreign instruction-file message (Codex `<user_instructions>`): a pinned `instructions` segment.
    Instructions,
}

/// The kind of one content part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    Text,
    /// Visible reasoning text (counts for tokens).
    Reasoning,
    /// Provider continuation data, signatures, encrypted reasoning: never shown, counts 0.
    Opaque,
    /// Images and attachments: count 0.
    Image,
}

/// One content part. For `Opaque` and `Image` the text is the raw payload (kept byte-identical).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub kind: PartKind,
    pub text: String,
}

impl Part {
    #[must_use]
    pub fn text(s: impl Into<String>) -> Self {
        Self {
            kind: PartKind::Text,
            text: s.into(),
        }
    }
    #[must_use]
    pub fn reasoning(s: impl Into<String>) -> Self {
        Self {
            kind: PartKind::Reasoning,
            text: s.into(),
        }
    }
    #[must_use]
    pub fn opaque(s: impl Into<String>) -> Self {
        Self {
            kind: PartKind::Opaque,
            text: s.into(),
        }
    }
}

/// A tool call `{callId, name, arguments}` (arguments as the raw JSON text the model wrote).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// Set by foreign readers (spec/governor.md §11): what the call means in canonical terms. Absent for
    /// Alisio's own calls, which the governor classifies from `name` and `arguments` (spec/governor.md §2.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign: Option<Box<Foreign>>,
}

impl Call {
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            foreign: None,
        }
    }
}

/// One tool result (a tool message holds exactly one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub call_id: String,
    pub parts: Vec<Part>,
    pub is_error: bool,
    /// The structural refusal mark (spec/sessions.md §1.4 `denial`, spec/governor.md §3.4): the
    /// kind of refusal when an approval, the sandbox, confinement or a tool policy refused the
    /// call. Never inferred from text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denial: Option<String>,
}

/// A stored message (spec/governor.md §2.1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User {
        kind: UserKind,
        parts: Vec<Part>,
        /// Set for a `/skill:<name>` expansion (spec/sessions.md §1.4): a pinned skill body.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        skill: Option<String>,
        /// The role as recorded for foreign `system`/`developer` messages (segment origin).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
    },
    Assistant {
        parts: Vec<Part>,
        calls: Vec<Call>,
    },
    Tool(ToolResult),
}

impl Message {
    #[must_use]
    pub fn user(text: impl Into<String>) -> Self {
        Self::User {
            kind: UserKind::Plain,
            parts: vec![Part::text(text)],
            skill: None,
            origin: None,
        }
    }
    #[must_use]
    pub fn checkpoint(text: impl Into<String>) -> Self {
        Self::User {
            kind: UserKind::Checkpoint,
            parts: vec![Part::text(text)],
            skill: None,
            origin: None,
        }
    }
    #[must_use]
    pub fn assistant(text: impl Into<String>, calls: Vec<Call>) -> Self {
        let t: String = text.into();
        let parts = if t.is_empty() {
            Vec::new()
        } else {
            vec![Part::text(t)]
        };
        Self::Assistant { parts, calls }
    }
    #[must_use]
    pub fn tool(call_id: impl Into<String>, text: impl Into<String>, is_error: bool) -> Self {
        Self::Tool(ToolResult {
            call_id: call_id.into(),
            parts: vec![Part::text(text)],
            is_error,
            denial: None,
        })
    }
    #[must_use]
    pub const fn is_assistant(&self) -> bool {
        matches!(self, Self::Assistant { .. })
    }
}

/// The canonical meaning of a foreign call and its result, computed by a reader (spec/governor.md §11.3–11.7).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Foreign {
    /// The canonical tool (`as` in the report), when the call maps onto one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    /// What the rules see (filled once the result is known).
    pub class: Class,
    /// Segment origin for read/write/edit calls: the path exactly as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Paths this call names, as written and as keys (spec/governor.md §8).
    #[serde(default)]
    pub named: Vec<String>,
    /// The path key this call reads, for `reread` (spec/governor.md §8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<String>,
    /// The result's attributable paths (usage), `None` when not attributable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributable: Option<Vec<String>>,
    /// The exit status the transcript recorded (policy-2 pointers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i64>,
    /// The signature of an ephemeral command (`governor::shell::ephemeral`), for `expired`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<String>,
}

/// What the elision rules see of one classified call and its successful result (spec/governor.md §3.1, §11.3).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Class {
    /// Unclassified, a plain process, a failed shell command: never elided, never justifies.
    #[default]
    Other,
    Read {
        /// The path key (rule (a) and (b) compare it); `None`: matches nothing.
        key: Option<String>,
        /// The value the stub quotes.
        shown: String,
        /// `Some((startLine, limit))` when the stub carries ` lines S+L`.
        lines: Option<(u64, u64)>,
        /// hash8 source: the 64-hex sha256, lowercase.
        sha256: Option<String>,
        /// Rule (b) comparison: `(group, value)`; two reads compare only within one group.
        compare: Option<(String, String)>,
    },
    /// A successful write or edit of every key.
    Write {
        keys: Vec<String>,
    },
    Bg {
        task: String,
        offset: u64,
        limit: u64,
        /// `true` for cursor polls (spec/governor.md §11.3): only the empty rule applies.
        cursor: bool,
        next_offset: Option<u64>,
        /// Whether the returned text is known to be `""`.
        empty: bool,
    },
    Search {
        /// The normalised arguments / search signature.
        signature: String,
        shown: String,
        /// Exit code and match records; `None`: unknown, never equal.
        records: Option<String>,
    },
    Skill,
}
