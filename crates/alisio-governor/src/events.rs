//! Event payloads (spec/governor.md §7): `context_governed` per model request and `context_reduced`
//! for the in-place budget reduction. Never any text: ids and counts only.

use serde::Serialize;

use super::invariants::Counts;
use super::model::Message;
use super::report::ByReason;
use super::tokens::tokens_of;
use super::usage::Usage;

/// Newly elided ids listed at most (spec/governor.md §7.1).
pub const NEWLY_CAP: usize = 32;

/// The `context_governed` payload.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextGoverned {
    pub mode: &'static str,
    pub policy_version: u32,
    pub request: u64,
    pub recovery: bool,
    /// The request found the provider's prompt cache cold (spec/governor.md §2.7): a later
    /// process restores the session's cold requests from these events.
    pub cache_cold: bool,
    pub failed: bool,
    pub messages: usize,
    pub eligible_messages: usize,
    pub segments: u64,
    pub elided: u64,
    pub by_reason: ByReason,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub tokens_saved: u64,
    pub newly_elided: Vec<String>,
    pub newly_elided_more: u64,
    pub invariants: Counts,
    pub usage: Option<Usage>,
}

/// The `context_reduced` payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextReduced {
    pub messages: usize,
    pub reason: &'static str,
    pub tokens_saved: u64,
}

fn segment_tokens(m: &Message) -> u64 {
    match m {
        Message::Tool(r) => tokens_of(
            r.parts
                .iter()
                .filter(|p| p.kind == super::model::PartKind::Text)
                .map(|p| p.text.as_str()),
        ),
        _ => 0,
    }
}

/// `context_reduced` for a budget reduction: `before` and `after` are the clipped tool messages,
/// pairwise (spec/governor.md §7.2).
#[must_use]
pub fn context_reduced(before: &[Message], after: &[Message]) -> ContextReduced {
    let saved = before
        .iter()
        .zip(after)
        .map(|(b, a)| segment_tokens(b).saturating_sub(segment_tokens(a)))
        .sum();
    ContextReduced {
        messages: before.len().min(after.len()),
        reason: "budget",
        tokens_saved: saved,
    }
}
