//! Per-session governor state (spec/governor.md §7.1, §8): the "newly elided" set, the usage ledger
//! and an incremental cache, so that request N+1 after request N costs what was appended, not
//! the whole history. Between epoch boundaries the eligible prefix P does not change, so its
//! decisions are reused as they are (spec/governor.md §2.5).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::classify::{attributable, named_paths, result_text};
use super::events::{ContextGoverned, NEWLY_CAP};
use super::gate::Gate;
use super::invariants::{self, Counts, Sources};
use super::model::{Message, PartKind, UserKind};
use super::policy2::oversized;
use super::report::{ByReason, ContextReport};
use super::rules::{Fact, Step, decide_policy, fact_at};
use super::stubs::Reason;
use super::tokens::{tokens, tokens_of};
use super::usage::Usage;
use super::{GovSettings, Ledger, Request, RequestParts};
use alisio_base::config::GovernorMode;

/// One model request of a session, as the runner builds it (spec/sessions.md §7).
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a> {
    pub session_id: &'a str,
    /// H: the active history as stored, full.
    pub history: &'a [Message],
    pub parts: &'a RequestParts,
    pub sources: &'a Sources,
    /// 1-based number of this request within the run (every built request counts).
    pub request: u64,
    /// A truncation-recovery retry.
    pub recovery: bool,
}

impl<'a> Turn<'a> {
    /// The dry turn of a report: request 0, not a recovery.
    #[must_use]
    pub fn dry(
        session_id: &'a str,
        history: &'a [Message],
        parts: &'a RequestParts,
        sources: &'a Sources,
    ) -> Self {
        Turn {
            session_id,
            history,
            parts,
            sources,
            request: 0,
            recovery: false,
        }
    }
}

/// What one request sends, and its event.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    /// `on` only: `(message index, stub)` for every elided result, in history order. The
    /// projection is the history with these results' text parts replaced (see [`Sent::messages`]).
    pub stubs: Vec<(usize, String)>,
    /// The invariants block, sent as one trailing user message (`on`, after a compaction).
    pub invariants: Option<String>,
    /// The `context_governed` payload; `None` in `off` (G3).
    pub event: Option<ContextGoverned>,
}

impl Sent {
    /// The projected message list: `history` itself when nothing is replaced (`off`, `shadow`).
    #[must_use]
    pub fn messages<'h>(&self, history: &'h [Message]) -> Cow<'h, [Message]> {
        if self.stubs.is_empty() {
            return Cow::Borrowed(history);
        }
        let mut out = history.to_vec();
        for (i, stub) in &self.stubs {
            if let Some(Message::Tool(r)) = out.get_mut(*i) {
                super::replace_text(r, stub);
            }
        }
        Cow::Owned(out)
    }
}

#[derive(Clone, Debug)]
struct Attributed {
    is_read: bool,
    tool: String,
    /// 0 unused, 1 reread, 2 used.
    outcome: u8,
}

/// Usage counted as messages arrive: outcomes only move up (unused → reread → used).
#[derive(Clone, Debug, Default)]
struct UsageState {
    results: Vec<Attributed>,
    by_path: HashMap<String, Vec<usize>>,
    usage: Usage,
}

impl UsageState {
    fn set(&mut self, k: usize, outcome: u8) {
        let Some(r) = self.results.get_mut(k) else {
            return;
        };
        if outcome <= r.outcome {
            return;
        }
        let e = self.usage.per_tool.entry(r.tool.clone()).or_default();
        match r.outcome {
            1 => e.reread -= 1,
            2 => e.used -= 1,
            _ => {}
        }
        match outcome {
            1 => e.reread += 1,
            _ => e.used += 1,
        }
        r.outcome = outcome;
    }

    fn calls(&mut self, m: &Message) {
        let Message::Assistant { calls, .. } = m else {
            return;
        };
        for c in calls {
            let (mut named, reads) = named_paths(c);
            named.sort();
            named.dedup();
            for p in &named {
                for k in self.by_path.get(p).cloned().unwrap_or_default() {
                    let read = self.results.get(k).is_some_and(|r| r.is_read);
                    self.set(
                        k,
                        if read && reads.as_deref() == Some(p.as_str()) {
                            1
                        } else {
                            2
                        },
                    );
                }
            }
            if let Some(r) = reads.filter(|r| !named.contains(r)) {
                for k in self.by_path.get(&r).cloned().unwrap_or_default() {
                    if self.results.get(k).is_some_and(|x| x.is_read) {
                        self.set(k, 1);
                    }
                }
            }
        }
    }
}

/// One elision: (message, call id, reason, tokens saved, stub).
type Elision = (usize, String, Reason, u64, String);

fn elision(h: &[Message], i: usize, step: Step, fact: Option<&Fact>) -> Option<Elision> {
    match (step, h.get(i), fact) {
        (
            Step::Elide {
                reason,
                tokens_saved,
                ..
            },
            Some(Message::Tool(r)),
            Some(f),
        ) => super::policy2::stub_of(h, i, f, reason)
            .map(|stub| (i, r.call_id.clone(), reason, tokens_saved, stub)),
        _ => None,
    }
}

#[derive(Clone, Debug)]
struct Cache {
    settings: GovSettings,
    messages: usize,
    first: Option<Message>,
    last: Option<Message>,
    calls: HashMap<String, (usize, usize)>,
    facts: Vec<Option<Fact>>,
    /// Each message's spec/governor.md §10 tokens as the gate prices it ([`tokens_at`]), computed
    /// once: the gate sums suffixes at every epoch boundary.
    message_tokens: Vec<u64>,
    segments: u64,
    tokens: u64,
    compacted: bool,
    eligible: usize,
    /// The cache gate's boundaries (spec/governor.md §2.7).
    gate: Gate,
    /// The gate's generation the decisions on P were computed at.
    generation: u64,
    /// Elisions on P: (message, call id, reason, tokens saved, stub).
    elided: Vec<Elision>,
    /// `oversized` elisions beyond P, recomputed at every request (policy 2).
    tail: Vec<Elision>,
    usage: UsageState,
}

impl Cache {
    fn new(settings: &GovSettings) -> Self {
        Self {
            settings: *settings,
            messages: 0,
            first: None,
            last: None,
            calls: HashMap::new(),
            facts: Vec::new(),
            message_tokens: Vec::new(),
            segments: 0,
            tokens: 0,
            compacted: false,
            eligible: 0,
            gate: Gate::default(),
            generation: 0,
            elided: Vec::new(),
            tail: Vec::new(),
            usage: UsageState::default(),
        }
    }

    /// `history` is not the one this cache saw grown by appending (a compaction rewrote it).
    fn rewritten(&self, history: &[Message]) -> bool {
        self.messages > history.len()
            || (self.messages > 0
                && (history.first() != self.first.as_ref()
                    || history.get(self.messages - 1) != self.last.as_ref()))
    }

    /// Facts and running sums of the messages appended since the previous request.
    fn ingest(&mut self, settings: &GovSettings, h: &[Message]) {
        let c = self;
        let start = c.messages;
        for (i, m) in h.iter().enumerate().skip(start) {
            match m {
                Message::Assistant { calls, .. } => {
                    for (k, call) in calls.iter().enumerate() {
                        c.calls.entry(call.id.clone()).or_insert((i, k));
                    }
                }
                Message::User {
                    kind: UserKind::Checkpoint,
                    ..
                } => c.compacted = true,
                _ => {}
            }
            let call = match m {
                Message::Tool(r) => c.calls.get(&r.call_id).copied(),
                _ => None,
            };
            let fact = fact_at(h, i, call, settings.policy2());
            let (segs, toks) = measure(m, fact.as_ref());
            c.segments += segs;
            c.tokens += toks;
            // `measure`'s tokens, but a result without a fact is priced by its text.
            c.message_tokens.push(match (m, &fact) {
                (Message::Tool(_), None) => message_tokens(m),
                _ => toks,
            });
            c.facts.push(fact);
        }
    }

    /// Decisions on P, reused until E changes (G8) or a cold request's free rewrite changes them
    /// (spec/governor.md §2.7); policy 2's `oversized` after P. `cold`: the requests of the
    /// session that found the provider's cache cold, by the messages they sent.
    fn decide(&mut self, settings: &GovSettings, h: &[Message], start: usize, cold: &[usize]) {
        let c = self;
        let n = h.len();
        let (facts, toks) = (&c.facts, &c.message_tokens);
        c.gate.set_cold(cold);
        let e = c.gate.eligible(h, facts, settings, |i| toks[i]);
        if e != c.eligible || start == 0 || c.gate.generation() != c.generation {
            c.generation = c.gate.generation();
            let steps = match c.gate.on_eligible(settings) {
                Some(steps) => steps.to_vec(),
                None => decide_policy(&h[..e], &c.facts[..e], e, settings),
            };
            c.elided = steps
                .into_iter()
                .enumerate()
                .filter_map(|(i, s)| elision(h, i, s, c.facts[i].as_ref()))
                .collect();
            c.eligible = e;
        }
        c.tail = if settings.policy_version >= 2 {
            (e..n)
                .filter_map(|i| {
                    let f = c.facts[i].as_ref();
                    oversized(h, i, f).and_then(|s| elision(h, i, s, f))
                })
                .collect()
        } else {
            Vec::new()
        };
    }

    /// The ledger and usage, over the appended messages in order.
    fn account(
        &mut self,
        settings: &GovSettings,
        h: &[Message],
        start: usize,
        ledger: &mut HashSet<String>,
    ) {
        let c = self;
        let elided_now: HashSet<usize> = c.elided.iter().chain(&c.tail).map(|x| x.0).collect();
        for (i, m) in h.iter().enumerate().skip(start) {
            match m {
                Message::Tool(r) => {
                    if settings.mode == GovernorMode::On
                        && elided_now.contains(&i)
                        && !ledger.contains(&r.call_id)
                    {
                        continue;
                    }
                    ledger.insert(r.call_id.clone());
                    let fact = c.facts[i].as_ref();
                    let call = fact.and_then(|f| f.call).and_then(|(mi, ci)| match &h[mi] {
                        Message::Assistant { calls, .. } => calls.get(ci),
                        _ => None,
                    });
                    match call
                        .zip(fact)
                        .and_then(|(cl, f)| attributable(cl, r, &f.class))
                    {
                        Some((tool, paths)) => {
                            let k = c.usage.results.len();
                            c.usage.usage.per_tool.entry(tool.clone()).or_default().seen += 1;
                            c.usage.results.push(Attributed {
                                is_read: tool == "read_file",
                                tool,
                                outcome: 0,
                            });
                            let mut paths = paths;
                            paths.sort();
                            paths.dedup();
                            for p in paths {
                                c.usage.by_path.entry(p).or_default().push(k);
                            }
                        }
                        None => c.usage.usage.not_attributable += 1,
                    }
                }
                Message::Assistant { .. } => c.usage.calls(m),
                Message::User { .. } => {}
            }
        }
    }
}

/// Per-session memory (spec/governor.md §7.1, §8): call ids already reported as elided, the usage ledger and the
/// incremental cache. Lost on restart by design. One per session, sub-agents included (G6).
#[derive(Clone, Debug, Default)]
pub struct SessionGovernor {
    reported: HashSet<String>,
    ledger: HashSet<String>,
    cache: Option<Cache>,
    /// The requests that found the provider's cache cold, by the messages they sent (kept
    /// across a rebuilt cache, so a rebuilt gate takes the same free rewrites).
    cold: Vec<usize>,
    /// The next request finds the cache cold ([`SessionGovernor::cache_cold`]).
    cold_next: bool,
}

/// The spec/governor.md §10 tokens of one message (its segments).
#[must_use]
pub fn message_tokens(m: &Message) -> u64 {
    let text = |parts: &[super::model::Part], reasoning: bool| {
        tokens_of(
            parts
                .iter()
                .filter(|p| {
                    p.kind == PartKind::Text || (reasoning && p.kind == PartKind::Reasoning)
                })
                .map(|p| p.text.as_str()),
        )
    };
    match m {
        Message::User { parts, .. } => text(parts, false),
        Message::Assistant { parts, calls } => {
            text(parts, true) + calls.iter().map(|c| tokens(&c.arguments)).sum::<u64>()
        }
        Message::Tool(r) => tokens(&result_text(r)),
    }
}

/// Message `i`'s tokens: a result's from its fact, others measured.
pub(crate) fn tokens_at(h: &[Message], facts: &[Option<Fact>], i: usize) -> u64 {
    match (&h[i], facts.get(i).and_then(Option::as_ref)) {
        (Message::Tool(_), Some(f)) => f.tokens,
        (m, _) => message_tokens(m),
    }
}

fn measure(m: &Message, fact: Option<&Fact>) -> (u64, u64) {
    match m {
        Message::User { .. } => (1, message_tokens(m)),
        Message::Assistant { calls, .. } => (1 + calls.len() as u64, message_tokens(m)),
        Message::Tool(_) => (1, fact.map_or(0, |f| f.tokens)),
    }
}

impl SessionGovernor {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The next request finds the provider's prompt cache cold (it expired, or a transcript
    /// recorded it so): it is sent whole and uncached whatever it holds, so the cache gate takes
    /// every change pending at the last boundary at no price (spec/governor.md §2.7, "Cold
    /// requests").
    pub fn cache_cold(&mut self) {
        self.cold_next = true;
    }

    /// The session's earlier requests that found the cache cold, by the messages each sent (a
    /// later process restores them from the stored `context_governed` events, `cacheCold`), so
    /// that it sends what the session sent: the free rewrites taken there stay taken.
    pub fn restore_cold(&mut self, mut cold: Vec<usize>) {
        cold.sort_unstable();
        cold.dedup();
        self.cold = cold;
        self.cache = None;
    }

    /// Drops the incremental cache. Call it when the stored history was rewritten in place
    /// (budget reduction); compactions and shorter histories are detected on their own.
    pub fn invalidate(&mut self) {
        self.cache = None;
    }

    fn valid(&self, settings: &GovSettings, history: &[Message]) -> bool {
        self.cache
            .as_ref()
            .is_some_and(|c| c.settings == *settings && !c.rewritten(history))
    }

    /// Governs one model request of this session: what to send and the `context_governed`
    /// payload. Costs what was appended since the previous request, plus a decision pass over
    /// P when an epoch boundary is crossed.
    pub fn request(&mut self, settings: &GovSettings, turn: Turn<'_>) -> Sent {
        let none = || Sent {
            stubs: Vec::new(),
            invariants: None,
            event: None,
        };
        if settings.mode == GovernorMode::Off {
            return none();
        }
        let h = turn.history;
        if !self.valid(settings, h) {
            if self.cache.as_ref().is_some_and(|c| c.rewritten(h)) {
                // A compaction rewrote the history: the cold requests indexed the old one.
                self.cold.clear();
            }
            self.cache = Some(Cache::new(settings));
        }
        let Some(c) = self.cache.as_mut() else {
            return none();
        };
        let start = c.messages;
        c.ingest(settings, h);
        let n = h.len();
        let cache_cold = std::mem::take(&mut self.cold_next);
        if cache_cold && self.cold.last().is_none_or(|l| *l < n) {
            self.cold.push(n);
        }
        c.decide(settings, h, start, &self.cold);
        let e = c.eligible;
        c.account(settings, h, start, &mut self.ledger);
        c.messages = n;
        if start == 0 {
            c.first = h.first().cloned();
        }
        if n > start {
            c.last = h.last().cloned();
        }

        let mut counts = Counts::default();
        let mut block = None;
        if c.compacted {
            let b = invariants::build(settings.policy_version, turn.sources, settings.max_chars);
            counts = b.counts;
            if settings.mode == GovernorMode::On && b.text.is_some() {
                counts.sent = true;
                block = b.text;
            }
        }
        let p = turn.parts;
        let mut segments = c.segments;
        let mut tokens_before = c.tokens;
        for t in p
            .system
            .iter()
            .chain(p.skills.iter())
            .chain(p.tools.iter())
            .chain(p.instructions.iter().map(|(_, t)| t))
        {
            segments += 1;
            tokens_before += tokens(t);
        }
        if let Some(b) = &block {
            segments += 1;
            tokens_before += tokens(b);
        }
        let mut by_reason = ByReason::for_policy(settings.policy_version);
        let mut saved = 0;
        let mut newly = Vec::new();
        for (_, id, reason, s, _) in c.elided.iter().chain(&c.tail) {
            by_reason.add(*reason);
            saved += s;
            if self.reported.insert(id.clone()) {
                newly.push(id.clone());
            }
        }
        let more = newly.len().saturating_sub(NEWLY_CAP) as u64;
        newly.truncate(NEWLY_CAP);
        let event = ContextGoverned {
            mode: settings.mode.as_str(),
            policy_version: settings.policy_version,
            request: turn.request,
            recovery: turn.recovery,
            cache_cold,
            failed: false,
            messages: n,
            eligible_messages: e,
            segments,
            elided: (c.elided.len() + c.tail.len()) as u64,
            by_reason,
            tokens_before,
            tokens_after: tokens_before.saturating_sub(saved),
            tokens_saved: saved,
            newly_elided: newly,
            newly_elided_more: more,
            invariants: counts,
            usage: Some(c.usage.usage.clone()),
        };
        let stubs = if settings.mode == GovernorMode::On {
            c.elided
                .iter()
                .chain(&c.tail)
                .map(|x| (x.0, x.4.clone()))
                .collect()
        } else {
            Vec::new()
        };
        Sent {
            stubs,
            invariants: block,
            event: Some(event),
        }
    }

    /// The elisions of the last request, `(message index, stub)` in history order, whatever the
    /// mode: what `on` sends (the replay's `governed` figures use them in `shadow` too).
    pub fn elisions(&self) -> impl Iterator<Item = (usize, &str)> {
        self.cache
            .iter()
            .flat_map(|c| c.elided.iter().chain(&c.tail).map(|x| (x.0, x.4.as_str())))
    }

    /// The elisions of the last request with their reasons, `(message index, reason)` in
    /// history order (the replay's recovery model: what each stub hides).
    pub fn reasons(&self) -> impl Iterator<Item = (usize, Reason)> + '_ {
        self.cache
            .iter()
            .flat_map(|c| c.elided.iter().chain(&c.tail).map(|x| (x.0, x.2)))
    }

    /// The ContextReport of the next request (spec/governor.md §6), with this session's ledger.
    #[must_use]
    pub fn report(
        &self,
        settings: &GovSettings,
        turn: Turn<'_>,
        request: Option<u64>,
    ) -> ContextReport {
        // The gate this session's requests kept, when it saw a prefix of this history under these
        // settings: the report then re-evaluates no boundary already decided.
        let gate = match &self.cache {
            Some(c) if self.valid(settings, turn.history) => c.gate.clone(),
            _ => Gate::default(),
        };
        self.report_with(settings, turn, request, gate)
    }

    /// [`SessionGovernor::report`] with a fresh gate: what the kept gate must equal (G7).
    #[cfg(test)]
    pub(crate) fn report_fresh(
        &self,
        settings: &GovSettings,
        turn: Turn<'_>,
        request: Option<u64>,
    ) -> ContextReport {
        self.report_with(settings, turn, request, Gate::default())
    }

    fn report_with(
        &self,
        settings: &GovSettings,
        turn: Turn<'_>,
        request: Option<u64>,
        gate: Gate,
    ) -> ContextReport {
        let ledger = if self.ledger.is_empty() {
            Ledger::None
        } else {
            Ledger::Known(&self.ledger)
        };
        super::govern_from(
            settings,
            Request {
                session_id: turn.session_id,
                history: turn.history,
                parts: turn.parts,
                sources: turn.sources,
                request,
                ledger,
            },
            &self.cold,
            gate,
        )
        .report
    }
}
