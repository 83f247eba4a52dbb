//! The Context Governor (governor.md): the per-request projection of a session's history, the
//! invariants block after a compaction, the ContextReport and the `context_governed` payload.
//!
//! Pure: no I/O, no async, no clock. [`govern`] is a function of (history, settings, request
//! parts, invariant sources); [`SessionGovernor`] adds the two pieces of per-session memory the
//! spec asks for (the "newly elided" set and the usage ledger). `readers` turns foreign
//! transcripts into the same [`model::Message`] list; `shell` classifies their shell commands.

pub mod attachment;
pub mod audit;
pub mod classify;
pub mod delegation;
pub mod events;
pub mod fact;
pub mod figures;
pub mod gate;
pub mod invariants;
pub mod model;
pub mod policy2;
pub mod readers;
pub mod recorded;
pub mod recovery;
pub mod replay;
pub mod report;
pub mod rules;
mod segments;
pub mod series;
pub mod session;
pub mod shell;
pub mod stored;
pub mod stubs;
pub mod tokens;
pub mod usage;

use std::borrow::Cow;
use std::collections::HashSet;

use alisio_base::config::{self, GovernorMode};
use invariants::{Counts, Sources};
use model::{Message, Part, PartKind, UserKind};
use report::{ContextReport, Measured, ReportSettings, Totals};
use rules::{Step, decide_policy, facts};

pub use session::{Sent, SessionGovernor, Turn};

/// The effective governor settings (spec/governor.md §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GovSettings {
    pub mode: GovernorMode,
    pub min_age_turns: u32,
    pub epoch_messages: u32,
    pub policy_version: u32,
    pub max_chars: u32,
    /// Policy 2's settings (used when `policy_version` ≥ 2).
    pub policy2: policy2::Policy2,
}

impl Default for GovSettings {
    fn default() -> Self {
        Self::from_config(&config::Settings::default())
    }
}

impl GovSettings {
    /// From resolved configuration; an absent `policyVersion` follows this build.
    #[must_use]
    pub fn from_config(s: &config::Settings) -> Self {
        Self {
            mode: s.governor,
            min_age_turns: s.elide_min_age_turns,
            epoch_messages: s
                .elide_epoch_messages
                .unwrap_or_else(|| config::epoch_default(s.policy_version)),
            policy_version: s.policy_version.unwrap_or(config::POLICY_VERSION as u32),
            max_chars: s.invariants_max_chars,
            policy2: policy2::Policy2::from_config(s),
        }
    }

    /// The policy-2 settings when the policy version has them.
    #[must_use]
    pub fn policy2(&self) -> Option<&policy2::Policy2> {
        (self.policy_version >= 2).then_some(&self.policy2)
    }
}

/// Request-level parts (spec/governor.md §2.6): not messages, never counted in n.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestParts {
    pub system: Option<String>,
    /// `(path, text)` per instruction file, root-first, then nested attachments.
    pub instructions: Vec<(String, String)>,
    pub skills: Option<String>,
    /// The tool catalog JSON as the runner measures it.
    pub tools: Option<String>,
}

/// Which results the usage heuristic covers (spec/governor.md §8).
#[derive(Debug, Default)]
pub enum Ledger<'a> {
    /// No ledger in this process: `usage: null`.
    #[default]
    None,
    /// Every result of H (`governor analyze` replays the whole transcript).
    All,
    /// A session's ledger; the results this request sends un-elided are added to it.
    Session(&'a mut HashSet<String>),
    /// A session's ledger, read only (a report asked for between requests).
    Known(&'a HashSet<String>),
}

/// One request to govern.
#[derive(Debug)]
pub struct Request<'a, 'l> {
    pub session_id: &'a str,
    /// H: the active history as stored (checkpoint first after a compaction).
    pub history: &'a [Message],
    pub parts: &'a RequestParts,
    pub sources: &'a Sources,
    /// The request number of the report (`null` when no run is active).
    pub request: Option<u64>,
    pub ledger: Ledger<'l>,
}

/// What the runner sends and reports.
#[derive(Debug)]
pub struct Governed<'a> {
    /// `on`: the projection; `shadow` and `off`: the history itself (byte-identical).
    pub messages: Cow<'a, [Message]>,
    /// The invariants block, sent as one trailing user message (only in `on`).
    pub invariants: Option<String>,
    pub report: ContextReport,
    /// Call ids of the results elided (`on`) or that would be (`shadow`), in history order.
    pub elided: Vec<String>,
}

/// The invariants block of a request (spec/governor.md §5): whether H holds a checkpoint, the counts and the
/// text to send (`on` only).
fn block(
    settings: &GovSettings,
    history: &[Message],
    sources: &Sources,
) -> (bool, Counts, Option<String>) {
    let compacted = history.iter().any(|m| {
        matches!(
            m,
            Message::User {
                kind: UserKind::Checkpoint,
                ..
            }
        )
    });
    let mut counts = Counts::default();
    let mut text = None;
    if compacted {
        let b = invariants::build(settings.policy_version, sources, settings.max_chars);
        counts = b.counts;
        if settings.mode == GovernorMode::On && b.text.is_some() {
            counts.sent = true;
            text = b.text;
        }
    }
    (compacted, counts, text)
}

/// The usage heuristic over the request's ledger (spec/governor.md §8); a session ledger gains the results this
/// request sends un-elided.
fn usage_of(
    settings: &GovSettings,
    ledger: Ledger<'_>,
    history: &[Message],
    facts: &[Option<rules::Fact>],
    steps: &[Step],
) -> Option<(usage::Usage, usage::Outcomes)> {
    match ledger {
        Ledger::None => None,
        Ledger::All => {
            let all: HashSet<String> = history
                .iter()
                .filter_map(|m| match m {
                    Message::Tool(r) => Some(r.call_id.clone()),
                    _ => None,
                })
                .collect();
            Some(usage::compute(history, facts, &all))
        }
        Ledger::Session(set) => {
            for (m, s) in history.iter().zip(steps) {
                if let Message::Tool(r) = m
                    && (settings.mode == GovernorMode::Shadow || !matches!(s, Step::Elide { .. }))
                {
                    set.insert(r.call_id.clone());
                }
            }
            Some(usage::compute(history, facts, set))
        }
        Ledger::Known(set) => Some(usage::compute(history, facts, set)),
    }
}

/// Governs one request (spec/governor.md §1–§6). Deterministic: same input, same output (G7).
#[must_use]
pub fn govern<'a>(settings: &GovSettings, req: Request<'a, '_>) -> Governed<'a> {
    govern_with_cold(settings, req, &[])
}

/// [`govern`] for a session some of whose requests found the provider's cache cold, by the
/// messages each sent (sorted): the cache gate's free rewrites there are taken (spec/governor.md
/// §2.7, "Cold requests"), as the session's own governor took them.
#[must_use]
pub fn govern_with_cold<'a>(
    settings: &GovSettings,
    req: Request<'a, '_>,
    cold: &[usize],
) -> Governed<'a> {
    govern_from(settings, req, cold, gate::Gate::default())
}

/// [`govern_with_cold`] continuing `gate`: a fresh gate, or the cache gate of a governor that saw
/// a prefix of this history under the same settings and cold requests. The gate's decision at a
/// boundary depends on H[0..b) and the cold requests alone (G7), so a kept gate decides what a
/// fresh one would; it only skips the boundaries already evaluated (O(n / E) passes over P).
pub(crate) fn govern_from<'a>(
    settings: &GovSettings,
    req: Request<'a, '_>,
    cold: &[usize],
    mut gate: gate::Gate,
) -> Governed<'a> {
    let history = req.history;
    if settings.mode == GovernorMode::Off {
        return Governed {
            messages: Cow::Borrowed(history),
            invariants: None,
            report: ContextReport::off(req.session_id),
            elided: Vec::new(),
        };
    }
    let n = history.len();
    let facts = facts(history, settings.policy2());
    gate.set_cold(cold);
    // Each message's tokens once, when the gate prices boundaries (it sums suffixes at each).
    let toks: Vec<u64> = if gate::gated(settings) {
        (0..facts.len().min(n))
            .map(|i| session::tokens_at(history, &facts, i))
            .collect()
    } else {
        Vec::new()
    };
    let e = gate.eligible(history, &facts, settings, |i| toks[i]);
    let plain = decide_policy(history, &facts, e, settings);
    let full = if e == n {
        plain.clone()
    } else {
        decide_policy(history, &facts, n, settings)
    };
    // Under the gate's best start, changes before a boundary's start kept their previous step.
    let mut steps = plain;
    if let Some(on_eligible) = gate.on_eligible(settings) {
        steps[..on_eligible.len()].clone_from_slice(on_eligible);
    }
    let (compacted, counts, block_text) = block(settings, history, req.sources);
    let elided_ids: Vec<String> = history
        .iter()
        .zip(&steps)
        .filter_map(|(m, s)| match (m, s) {
            (Message::Tool(r), Step::Elide { .. }) => Some(r.call_id.clone()),
            _ => None,
        })
        .collect();
    let usage = usage_of(settings, req.ledger, history, &facts, &steps);
    let segs = segments::all(
        req.parts,
        history,
        &facts,
        (&steps, &full),
        usage.as_ref().map(|(_, o)| o.as_slice()),
        block_text.as_deref(),
    );
    let totals = Totals::of(&segs, settings.policy_version);
    let (segments, segments_omitted) = report::cap(segs);
    let report = ContextReport::Measured(Box::new(Measured {
        mode: settings.mode.as_str(),
        measured: true,
        session_id: req.session_id.to_owned(),
        policy_version: settings.policy_version,
        request: req.request,
        settings: ReportSettings {
            min_age_turns: settings.min_age_turns,
            epoch_messages: settings.epoch_messages,
            max_chars: settings.max_chars,
            spill: settings.policy2().map(|p| report::SpillSettings {
                threshold_chars: p.threshold_chars,
                head_chars: p.head_chars,
                tail_chars: p.tail_chars,
            }),
            trim: settings.policy2().map(|p| report::TrimSettings {
                min_chars: p.min_chars,
                keep_recent: p.keep_recent,
            }),
        },
        messages: n,
        eligible_messages: e,
        compacted,
        segments,
        segments_omitted,
        totals,
        invariants: counts,
        usage: usage.map(|(u, _)| u),
        source: None,
        replay: None,
        delegation: None,
        relay: None,
    }));
    let messages = if settings.mode == GovernorMode::On && !elided_ids.is_empty() {
        Cow::Owned(project(history, &steps, &facts))
    } else {
        Cow::Borrowed(history)
    };
    Governed {
        messages,
        invariants: block_text,
        report,
        elided: elided_ids,
    }
}

/// Replaces a result's text parts by one text part holding `stub`; other parts stay (G2).
pub(crate) fn replace_text(r: &mut model::ToolResult, stub: &str) {
    let mut parts = Vec::with_capacity(r.parts.len());
    let mut placed = false;
    for p in r.parts.drain(..) {
        if p.kind == PartKind::Text {
            if !placed {
                parts.push(Part::text(stub));
                placed = true;
            }
        } else {
            parts.push(p);
        }
    }
    r.parts = parts;
}

/// The projection: every elided result's text parts become one text part holding its stub.
fn project(history: &[Message], steps: &[Step], facts: &[Option<rules::Fact>]) -> Vec<Message> {
    history
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let stub = match (m, steps.get(i), facts.get(i).and_then(Option::as_ref)) {
                (Message::Tool(_), Some(Step::Elide { reason, .. }), Some(f)) => {
                    policy2::stub_of(history, i, f, *reason)
                }
                _ => None,
            };
            match (m, stub) {
                (Message::Tool(r), Some(stub)) => {
                    let mut r = r.clone();
                    replace_text(&mut r, &stub);
                    Message::Tool(r)
                }
                _ => m.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod testkit;
#[cfg(test)]
mod tests;
