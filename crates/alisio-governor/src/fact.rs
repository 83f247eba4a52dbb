//! The per-result facts and decision steps the rules share (spec/governor.md §3), and policy 2's
//! settings and per-result facts (spec/governor.md §3.3): plain data, so `rules.rs` and `policy2.rs` both depend
//! on this file and not on each other.

use super::model::Class;
use super::stubs::Reason;
use alisio_base::config;

/// Per tool message: what the rules need, computed once per history.
#[derive(Clone, Debug)]
pub struct Fact {
    /// `(message, call)` of the paired call; `None`: orphan result.
    pub call: Option<(usize, usize)>,
    pub class: Class,
    pub is_error: bool,
    pub pinned: bool,
    /// tokens and UTF-16 length of the result text.
    pub tokens: u64,
    pub len: usize,
    pub stub: Option<String>,
    /// Policy 2 only: what its rules know of the result, and its `oversized` stub when the
    /// result is over `context.spill.thresholdChars` (spec/governor.md §3.3).
    pub info: Option<Box<Info>>,
    pub spill: Option<String>,
}

/// The outcome of spec/governor.md §3.2 for one message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Step 1: not an elidable tool result (or beyond P).
    NotCandidate,
    Error,
    Pinned,
    NoJustification,
    LastTurn,
    MinAge,
    StubNotShorter,
    Elide {
        reason: Reason,
        by: String,
        tokens_saved: u64,
    },
}

/// The policy-2 settings (spec/governor.md §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy2 {
    pub threshold_chars: u32,
    pub head_chars: u32,
    pub tail_chars: u32,
    pub min_chars: u32,
    pub keep_recent: u32,
    /// Denial pruning (spec/governor.md §3.4): the refusals of one kind kept whole.
    pub keep_denials: u32,
    /// The cache gate's rule (spec/governor.md §2.7). Not a configuration key: the default is
    /// the rule the spec argues; `governor analyze --cache-gate` measures the others.
    pub gate: GateRule,
    /// Where a boundary the gate takes starts its rewrite (spec/governor.md §2.7). Not a
    /// configuration key: `governor analyze --gate-start` measures the alternative.
    pub gate_start: GateStart,
    /// When `aged_output`'s clock starts (spec/governor.md §3.3, the working set). Not a
    /// configuration key: `governor analyze --trim-aging` measures the alternative.
    pub aging: Aging,
}

/// Where `aged_output` counts a result's `keepRecent` later results from (spec/governor.md §3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Aging {
    /// From the result itself (the default: the cheaper on the honest measure, docs/governor.md).
    #[default]
    Entry,
    /// From its last use: the last assistant message in P that writes, for the first time, a
    /// distinctive token (spec/governor.md §11.10) that the result is the latest to hold.
    LastUse,
}

impl Aging {
    /// The names `governor analyze --trim-aging` takes.
    pub const NAMES: [(&'static str, Self); 2] =
        [("entry", Self::Entry), ("last-use", Self::LastUse)];

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == s).map(|(_, r)| *r)
    }
}

/// Which rewrites the cache gate of policy 2 takes (spec/governor.md §2.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GateRule {
    /// The expected-saving test: read × gain × requests so far ≥ (write − read) × suffix.
    Expected,
    /// The bank: the rewrite's price bound is covered by what governing has saved so far.
    Bank,
    /// Both: the expected-saving test and the bank (the default since issue 21 follow-up 5).
    #[default]
    ExpectedBank,
    /// Rent-or-buy: the saving already forgone since each change's justification (read × gain ×
    /// the requests since then) reaches the rewrite's price.
    Rent,
}

impl GateRule {
    /// The names `governor analyze --cache-gate` takes, in the order of the variants.
    pub const NAMES: [(&'static str, Self); 4] = [
        ("expected", Self::Expected),
        ("bank", Self::Bank),
        ("expected+bank", Self::ExpectedBank),
        ("rent", Self::Rent),
    ];

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == s).map(|(_, r)| *r)
    }

    #[must_use]
    pub const fn expects(self) -> bool {
        matches!(self, Self::Expected | Self::ExpectedBank)
    }

    #[must_use]
    pub const fn banks(self) -> bool {
        matches!(self, Self::Bank | Self::ExpectedBank)
    }

    #[must_use]
    pub const fn rents(self) -> bool {
        matches!(self, Self::Rent)
    }
}

/// Which of a boundary's changes the cache gate takes (spec/governor.md §2.7).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GateStart {
    /// All of them or none: the rewrite starts at the first changed message (the rule before
    /// issue 21's follow-up; measured, not the default).
    Whole,
    /// Those at or after the start k (a changed message) with the largest expected net gain;
    /// the changes before k wait for a later boundary (the default: the cheaper on the honest
    /// measure, docs/governor.md).
    #[default]
    Best,
}

impl GateStart {
    /// The names `governor analyze --gate-start` takes, in the order of the variants.
    pub const NAMES: [(&'static str, Self); 2] = [("whole", Self::Whole), ("best", Self::Best)];

    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == s).map(|(_, r)| *r)
    }
}

impl Default for Policy2 {
    fn default() -> Self {
        Self::from_config(&config::Settings::default())
    }
}

impl Policy2 {
    #[must_use]
    pub const fn from_config(s: &config::Settings) -> Self {
        Self {
            threshold_chars: s.spill_threshold_chars,
            head_chars: s.spill_head_chars,
            tail_chars: s.spill_tail_chars,
            min_chars: s.trim_min_chars,
            keep_recent: s.trim_keep_recent,
            keep_denials: s.trim_keep_denials,
            gate: GateRule::ExpectedBank,
            gate_start: GateStart::Best,
            aging: Aging::Entry,
        }
    }
}

/// What policy 2 knows of one result, from the result and its call alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    /// `<tool> Q(short arguments)`: the pointer's first words.
    pub label: String,
    pub lines: u64,
    /// The measured length (redacted values count as their `len`, spec/governor.md §10): a sanitized
    /// transcript's results still age by their real size.
    pub size: usize,
    pub exit: Option<i64>,
    /// The signature of an ephemeral command (spec/governor.md §3.3), `None` otherwise.
    pub ephemeral: Option<String>,
    pub exempt: bool,
    /// A refused call (spec/governor.md §3.4): `(tool name, denial kind)` and its one-line stub.
    pub denial: Option<(String, String, String)>,
    /// Never `oversized` (a sub-session's final answer, the channel back to its parent).
    pub whole: bool,
}
