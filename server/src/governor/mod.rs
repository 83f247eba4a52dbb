//! The Context Governor (governor.md): the per-request projection of a session's history, the
//! invariants block after a compaction, the ContextReport and the `context_governed` payload.
//!
//! Pure: no I/O, no async, no clock. [`govern`] is a function of (history, settings, request
//! parts, invariant sources); [`SessionGovernor`] adds the two pieces of per-session memory the
//! spec asks for (the "newly elided" set and the usage ledger). `readers` turns foreign
//! transcripts into the same [`model::Message`] list; `shell` classifies their shell commands.

pub mod attachment;
pub mod classify;
pub mod events;
pub mod invariants;
pub mod model;
pub mod readers;
pub mod report;
pub mod rules;
pub mod series;
pub mod session;
pub mod shell;
pub mod stored;
pub mod stubs;
pub mod tokens;
pub mod usage;

use std::borrow::Cow;
use std::collections::HashSet;

use crate::config::{self, GovernorMode};
use classify::{canonical_of, origin_of, result_text};
use invariants::{Counts, Sources};
use model::{Call, Class, Message, Part, PartKind, UserKind};
use report::{ContextReport, Criticality, Elided, Measured, ReportSettings, Segment, Totals};
use rules::{Step, decide, eligible, facts};
use tokens::{tokens, tokens_of};

pub use session::{Sent, SessionGovernor, Turn};

/// The effective governor settings (§9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GovSettings {
    pub mode: GovernorMode,
    pub min_age_turns: u32,
    pub epoch_messages: u32,
    pub policy_version: u32,
    pub max_chars: u32,
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
            epoch_messages: s.elide_epoch_messages,
            policy_version: s.policy_version.unwrap_or(config::POLICY_VERSION as u32),
            max_chars: s.invariants_max_chars,
        }
    }
}

/// Request-level parts (§2.6): not messages, never counted in n.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestParts {
    pub system: Option<String>,
    /// `(path, text)` per instruction file, root-first, then nested attachments.
    pub instructions: Vec<(String, String)>,
    pub skills: Option<String>,
    /// The tool catalog JSON as the runner measures it.
    pub tools: Option<String>,
}

/// Which results the usage heuristic covers (§8).
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

fn text_of(parts: &[Part], reasoning: bool) -> u64 {
    tokens_of(
        parts
            .iter()
            .filter(|p| p.kind == PartKind::Text || (reasoning && p.kind == PartKind::Reasoning))
            .map(|p| p.text.as_str()),
    )
}

fn call_at(history: &[Message], at: Option<(usize, usize)>) -> Option<&Call> {
    let (mi, ci) = at?;
    match history.get(mi)? {
        Message::Assistant { calls, .. } => calls.get(ci),
        _ => None,
    }
}

/// Governs one request (§1–§6). Deterministic: same input, same output (G7).
#[must_use]
pub fn govern<'a>(settings: &GovSettings, req: Request<'a, '_>) -> Governed<'a> {
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
    let e = eligible(n, settings.epoch_messages);
    let facts = facts(history);
    let steps = decide(history, &facts, e, settings.min_age_turns);
    let full = if e == n {
        steps.clone()
    } else {
        decide(history, &facts, n, settings.min_age_turns)
    };

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
    let mut block_text = None;
    if compacted {
        let b = invariants::build(settings.policy_version, req.sources, settings.max_chars);
        counts = b.counts;
        if settings.mode == GovernorMode::On && b.text.is_some() {
            counts.sent = true;
            block_text = b.text;
        }
    }

    let elided_ids: Vec<String> = history
        .iter()
        .zip(&steps)
        .filter_map(|(m, s)| match (m, s) {
            (Message::Tool(r), Step::Elide { .. }) => Some(r.call_id.clone()),
            _ => None,
        })
        .collect();

    let usage = match req.ledger {
        Ledger::None => None,
        Ledger::All => {
            let all: HashSet<String> = history
                .iter()
                .filter_map(|m| {
                    if let Message::Tool(r) = m {
                        Some(r.call_id.clone())
                    } else {
                        None
                    }
                })
                .collect();
            Some(usage::compute(history, &facts, &all))
        }
        Ledger::Session(set) => {
            for (m, s) in history.iter().zip(&steps) {
                if let Message::Tool(r) = m
                    && (settings.mode == GovernorMode::Shadow || !matches!(s, Step::Elide { .. }))
                {
                    set.insert(r.call_id.clone());
                }
            }
            Some(usage::compute(history, &facts, set))
        }
        Ledger::Known(set) => Some(usage::compute(history, &facts, set)),
    };

    // Segments in request order (§2.6).
    let mut segs: Vec<Segment> = Vec::new();
    let mut push = |kind: &'static str,
                    origin: String,
                    tokens: u64,
                    crit: Criticality,
                    reason: &'static str| {
        let index = segs.len();
        segs.push(Segment {
            index,
            kind,
            origin,
            message: None,
            tool: None,
            call_id: None,
            as_tool: None,
            tokens,
            criticality: crit,
            reason,
            elided: None,
            used: None,
        });
    };
    if let Some(s) = &req.parts.system {
        push(
            "system",
            "system".into(),
            tokens(s),
            Criticality::Pinned,
            "system_prompt",
        );
    }
    for (path, text) in &req.parts.instructions {
        push(
            "instructions",
            path.clone(),
            tokens(text),
            Criticality::Pinned,
            "instruction_file",
        );
    }
    if let Some(s) = &req.parts.skills {
        push(
            "skills",
            "skills".into(),
            tokens(s),
            Criticality::Pinned,
            "skill_catalog",
        );
    }
    if let Some(s) = &req.parts.tools {
        push(
            "tools",
            "tools".into(),
            tokens(s),
            Criticality::Pinned,
            "tool_catalog",
        );
    }
    let last_turn_start = history.iter().rposition(Message::is_assistant).unwrap_or(0);
    for (i, m) in history.iter().enumerate() {
        let last = i >= last_turn_start;
        let base = |kind: &'static str,
                    origin: String,
                    tokens: u64,
                    crit: Criticality,
                    reason: &'static str| Segment {
            index: 0,
            kind,
            origin,
            message: Some(i),
            tool: None,
            call_id: None,
            as_tool: None,
            tokens,
            criticality: crit,
            reason,
            elided: None,
            used: None,
        };
        let high_or = |c: Criticality, r: &'static str| {
            if last {
                (Criticality::High, "last_turn")
            } else {
                (c, r)
            }
        };
        match m {
            Message::User {
                kind,
                parts,
                skill,
                origin,
            } => {
                let t = text_of(parts, false);
                let (k, o, c, r) = match kind {
                    UserKind::Checkpoint => (
                        "checkpoint",
                        "user",
                        Criticality::Pinned,
                        "compaction_checkpoint",
                    ),
                    UserKind::System => ("system", "system", Criticality::Pinned, "system_prompt"),
                    UserKind::Instructions => (
                        "instructions",
                        "user",
                        Criticality::Pinned,
                        "instruction_file",
                    ),
                    _ if skill.is_some() => ("user", "user", Criticality::Pinned, "skill_body"),
                    UserKind::Plain => {
                        let (c, r) = high_or(Criticality::High, "user_message");
                        ("user", "user", c, r)
                    }
                    UserKind::Injected => {
                        let (c, r) = high_or(Criticality::Normal, "default");
                        ("injected", "user", c, r)
                    }
                };
                let origin = origin.clone().unwrap_or_else(|| o.to_owned());
                // Editor attachments are segments of their own (attachment.rs).
                let t = match attachment::split(parts).filter(|_| k == "user") {
                    None => t,
                    Some((attached, rest)) => {
                        for (path, text) in attached {
                            segs.push(base("attachment", path, tokens(text), c, r));
                        }
                        tokens_of(rest)
                    }
                };
                segs.push(base(k, origin, t, c, r));
            }
            Message::Assistant { parts, calls } => {
                let (c, r) = high_or(Criticality::Normal, "default");
                segs.push(base(
                    "assistant",
                    "assistant".into(),
                    text_of(parts, true),
                    c,
                    r,
                ));
                for call in calls {
                    let mut s = base("tool_call", origin_of(call), tokens(&call.arguments), c, r);
                    s.tool = Some(call.name.clone());
                    s.call_id = Some(call.id.clone());
                    s.as_tool = canonical_of(call).map(str::to_owned);
                    segs.push(s);
                }
            }
            Message::Tool(res) => {
                let fact = facts.get(i).and_then(Option::as_ref);
                let call = call_at(history, fact.and_then(|f| f.call));
                let t = fact.map_or_else(|| tokens(&result_text(res)), |f| f.tokens);
                let is_skill = fact.is_some_and(|f| matches!(f.class, Class::Skill));
                let (c, r, elided) = match (&steps[i], &full[i]) {
                    (
                        Step::Elide {
                            reason,
                            by,
                            tokens_saved,
                        },
                        _,
                    ) => (
                        Criticality::Low,
                        "elided",
                        Some(Elided {
                            reason: reason.as_str(),
                            by: by.clone(),
                            tokens_saved: *tokens_saved,
                        }),
                    ),
                    _ if is_skill => (Criticality::Pinned, "skill_body", None),
                    _ if fact.is_some_and(|f| f.pinned) => {
                        (Criticality::Pinned, "attached_instructions", None)
                    }
                    _ if last => (Criticality::High, "last_turn", None),
                    _ if res.is_error => (Criticality::High, "error_result", None),
                    (_, Step::Elide { .. }) => (Criticality::Low, "redundant_epoch", None),
                    (_, Step::MinAge) => (Criticality::Low, "redundant_min_age", None),
                    (_, Step::StubNotShorter) => (Criticality::Normal, "stub_not_shorter", None),
                    _ => (Criticality::Normal, "default", None),
                };
                let mut s = base(
                    "tool_result",
                    call.map_or_else(|| "unknown".to_owned(), origin_of),
                    t,
                    c,
                    r,
                );
                s.tool = Some(call.map_or_else(|| "unknown".to_owned(), |c| c.name.clone()));
                s.call_id = Some(res.call_id.clone());
                s.as_tool = call.and_then(canonical_of).map(str::to_owned);
                s.elided = elided;
                s.used = usage
                    .as_ref()
                    .and_then(|(_, o)| o.get(i).copied().flatten());
                segs.push(s);
            }
        }
    }
    for (k, s) in segs.iter_mut().enumerate() {
        s.index = k;
    }
    if let Some(b) = &block_text {
        let index = segs.len();
        segs.push(Segment {
            index,
            kind: "invariants",
            origin: "invariants".into(),
            message: None,
            tool: None,
            call_id: None,
            as_tool: None,
            tokens: tokens(b),
            criticality: Criticality::Pinned,
            reason: "invariants_block",
            elided: None,
            used: None,
        });
    }
    let totals = Totals::of(&segs);
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

/// The projection: every elided result's text parts become one text part holding its stub.
fn project(history: &[Message], steps: &[Step], facts: &[Option<rules::Fact>]) -> Vec<Message> {
    history
        .iter()
        .enumerate()
        .map(|(i, m)| {
            match (
                m,
                steps.get(i),
                facts
                    .get(i)
                    .and_then(Option::as_ref)
                    .and_then(|f| f.stub.as_ref()),
            ) {
                (Message::Tool(r), Some(Step::Elide { .. }), Some(stub)) => {
                    let mut r = r.clone();
                    let mut parts = Vec::with_capacity(r.parts.len());
                    let mut placed = false;
                    for p in r.parts {
                        if p.kind == PartKind::Text {
                            if !placed {
                                parts.push(Part::text(stub.clone()));
                                placed = true;
                            }
                        } else {
                            parts.push(p);
                        }
                    }
                    r.parts = parts;
                    Message::Tool(r)
                }
                _ => m.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
