//! The ContextReport (spec/governor.md §6): segments in request order, criticality, totals, the
//! 400-segment cap. A report never holds text: only ids, counts, estimates, kinds, tool names and
//! paths.

use serde::Serialize;

use super::invariants::Counts;
use super::stubs::Reason;
use super::usage::Usage;

/// Segments listed at most (spec/governor.md §6.5).
pub const SEGMENT_CAP: usize = 400;

/// `{reason, by, tokensSaved}` of an elided result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Elided {
    pub reason: &'static str,
    pub by: String,
    pub tokens_saved: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Criticality {
    Pinned,
    High,
    Normal,
    Low,
}

impl Criticality {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pinned => "pinned",
            Self::High => "high",
            Self::Normal => "normal",
            Self::Low => "low",
        }
    }
}

/// One segment (spec/governor.md §6.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    pub index: usize,
    pub kind: &'static str,
    pub origin: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
    pub as_tool: Option<String>,
    pub tokens: u64,
    pub criticality: Criticality,
    pub reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elided: Option<Elided>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used: Option<&'static str>,
}

/// `{superseded_read, stale_bg_output, duplicate_search}`, always all three keys; policy 2 adds
/// `oversized`, `aged_output` and `expired` (always all three under policy 2, absent under 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByReason {
    pub superseded_read: u64,
    #[serde(rename = "stale_bg_output")]
    pub stale_background_output: u64,
    pub duplicate_search: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oversized: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aged_output: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expired: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub denied: Option<u64>,
}

impl ByReason {
    /// All zero, with the keys of `policy`.
    #[must_use]
    pub fn for_policy(policy: u32) -> Self {
        let z = (policy >= 2).then_some(0);
        Self {
            oversized: z,
            aged_output: z,
            expired: z,
            denied: z,
            ..Self::default()
        }
    }
    pub fn add(&mut self, r: Reason) {
        match r {
            Reason::SupersededRead => self.superseded_read += 1,
            Reason::StaleBgOutput => self.stale_background_output += 1,
            Reason::DuplicateSearch => self.duplicate_search += 1,
            Reason::Oversized => *self.oversized.get_or_insert(0) += 1,
            Reason::AgedOutput => *self.aged_output.get_or_insert(0) += 1,
            Reason::Expired => *self.expired.get_or_insert(0) += 1,
            Reason::Denied => *self.denied.get_or_insert(0) += 1,
        }
    }
    #[must_use]
    pub fn sum(&self) -> u64 {
        self.superseded_read
            + self.stale_background_output
            + self.duplicate_search
            + self.oversized.unwrap_or(0)
            + self.aged_output.unwrap_or(0)
            + self.expired.unwrap_or(0)
            + self.denied.unwrap_or(0)
    }

    /// Every reason with its count, in report order (the policy-2 reasons only when present):
    /// what every human summary prints (spec/governor.md §6.4).
    #[must_use]
    pub fn entries(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![
            ("superseded_read", self.superseded_read),
            ("stale_bg_output", self.stale_background_output),
            ("duplicate_search", self.duplicate_search),
        ];
        for (k, x) in [
            ("oversized", self.oversized),
            ("aged_output", self.aged_output),
            ("expired", self.expired),
            ("denied", self.denied),
        ] {
            if let Some(n) = x {
                v.push((k, n));
            }
        }
        v
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByCriticality {
    pub pinned: u64,
    pub high: u64,
    pub normal: u64,
    pub low: u64,
}

/// `totals` (spec/governor.md §6.4), over all segments, listed or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub segments: u64,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub tokens_saved: u64,
    pub elided: u64,
    pub by_reason: ByReason,
    pub by_criticality: ByCriticality,
}

impl Totals {
    #[must_use]
    pub fn of(segments: &[Segment], policy: u32) -> Self {
        let mut t = Self {
            segments: segments.len() as u64,
            by_reason: ByReason::for_policy(policy),
            ..Self::default()
        };
        for s in segments {
            t.tokens_before += s.tokens;
            match s.criticality {
                Criticality::Pinned => t.by_criticality.pinned += 1,
                Criticality::High => t.by_criticality.high += 1,
                Criticality::Normal => t.by_criticality.normal += 1,
                Criticality::Low => t.by_criticality.low += 1,
            }
            if let Some(e) = &s.elided {
                t.elided += 1;
                t.tokens_saved += e.tokens_saved;
                if let Some(r) = Reason::parse(e.reason) {
                    t.by_reason.add(r);
                }
            }
        }
        t.tokens_after = t.tokens_before.saturating_sub(t.tokens_saved);
        t
    }
}

/// `{minAgeTurns, epochMessages, maxChars}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportSettings {
    pub min_age_turns: u32,
    pub epoch_messages: u32,
    pub max_chars: u32,
    /// Policy 2: `{thresholdChars, headChars, tailChars}` and `{minChars, keepRecent}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spill: Option<SpillSettings>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<TrimSettings>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpillSettings {
    pub threshold_chars: u32,
    pub head_chars: u32,
    pub tail_chars: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrimSettings {
    pub min_chars: u32,
    pub keep_recent: u32,
}

/// A measured report (`shadow` or `on`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Measured {
    pub mode: &'static str,
    pub measured: bool,
    pub session_id: String,
    pub policy_version: u32,
    pub request: Option<u64>,
    pub settings: ReportSettings,
    pub messages: usize,
    pub eligible_messages: usize,
    pub compacted: bool,
    pub segments: Vec<Segment>,
    pub segments_omitted: usize,
    pub totals: Totals,
    pub invariants: Counts,
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<serde_json::Value>,
    /// Cache-aware replay figures (spec/governor.md §11.8): `governor analyze`, and live sessions so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<super::figures::Replay>,
    /// A coordinator session's brief measure (spec/sessions.md §12.2), added by the session layer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation: Option<serde_json::Value>,
    /// The session's links in a relay chain (spec/sessions.md §12.5): `{of, to}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay: Option<serde_json::Value>,
}

/// The report of `off`: `{"mode":"off","measured":false,"sessionId":…}` (+ `source` in analyze).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Off {
    pub mode: &'static str,
    pub measured: bool,
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<serde_json::Value>,
    /// A coordinator session's brief measure (spec/sessions.md §12.2), added by the session layer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation: Option<serde_json::Value>,
    /// The session's links in a relay chain (spec/sessions.md §12.5): `{of, to}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay: Option<serde_json::Value>,
}

/// A ContextReport.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ContextReport {
    Off(Box<Off>),
    Measured(Box<Measured>),
}

impl ContextReport {
    #[must_use]
    pub fn off(session_id: &str) -> Self {
        Self::Off(Box::new(Off {
            mode: "off",
            measured: false,
            session_id: session_id.to_owned(),
            source: None,
            delegation: None,
            relay: None,
        }))
    }
    /// Attaches `source` (governor analyze, spec/governor.md §11.1).
    pub fn set_source(&mut self, v: serde_json::Value) {
        match self {
            Self::Off(o) => o.source = Some(v),
            Self::Measured(m) => m.source = Some(v),
        }
    }
    /// Attaches a coordinator's brief measure (spec/sessions.md §12.2).
    pub fn set_delegation(&mut self, v: serde_json::Value) {
        match self {
            Self::Off(o) => o.delegation = Some(v),
            Self::Measured(m) => m.delegation = Some(v),
        }
    }
    /// Attaches the relay links (spec/sessions.md §12.5).
    pub fn set_relay(&mut self, v: serde_json::Value) {
        match self {
            Self::Off(o) => o.relay = Some(v),
            Self::Measured(m) => m.relay = Some(v),
        }
    }
    /// Attaches `replay` (spec/governor.md §11.8); `off` reports carry none.
    pub fn set_replay(&mut self, r: super::figures::Replay) {
        if let Self::Measured(m) = self {
            m.replay = Some(r);
        }
    }
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// Applies the 400-segment cap (spec/governor.md §6.5): pinned and low stay; others go oldest first.
#[must_use]
pub fn cap(mut segments: Vec<Segment>) -> (Vec<Segment>, usize) {
    if segments.len() <= SEGMENT_CAP {
        return (segments, 0);
    }
    let mut excess = segments.len() - SEGMENT_CAP;
    let mut omitted = 0;
    segments.retain(|s| {
        if excess > 0 && matches!(s.criticality, Criticality::High | Criticality::Normal) {
            excess -= 1;
            omitted += 1;
            false
        } else {
            true
        }
    });
    (segments, omitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(index: usize, c: Criticality) -> Segment {
        Segment {
            index,
            kind: "assistant",
            origin: "assistant".into(),
            message: Some(index),
            tool: None,
            call_id: None,
            as_tool: None,
            tokens: 1,
            criticality: c,
            reason: "default",
            elided: None,
            used: None,
        }
    }

    #[test]
    fn cap_of_401_drops_the_oldest_ordinary_segment() {
        let mut v = Vec::new();
        for i in 0..401 {
            let c = if i < 10 {
                Criticality::Pinned
            } else if (11..31).contains(&i) {
                Criticality::Low
            } else {
                Criticality::Normal
            };
            v.push(seg(i, c));
        }
        assert_eq!(
            v.iter()
                .filter(|s| s.criticality == Criticality::Low)
                .count(),
            20
        );
        let (kept, omitted) = cap(v);
        assert_eq!((kept.len(), omitted), (400, 1));
        let missing: Vec<usize> = (0..401)
            .filter(|i| !kept.iter().any(|s| s.index == *i))
            .collect();
        assert_eq!(missing, vec![10]);
    }

    #[test]
    fn cap_overflows_when_pinned_and_low_exceed_it() {
        let mut v = Vec::new();
        for i in 0..450 {
            let c = if i < 120 {
                Criticality::Pinned
            } else if i < 420 {
                Criticality::Low
            } else {
                Criticality::High
            };
            v.push(seg(i, c));
        }
        let (kept, omitted) = cap(v);
        assert_eq!((kept.len(), omitted), (420, 30));
    }
}
