//! The cache gate of policy 2 (spec/governor.md §2.7): an epoch boundary rewrites the request
//! only when the rewrite is expected to pay for itself.
//!
//! At an epoch boundary the new elisions inside P change the request from the first changed
//! result on, so the provider writes that suffix to its cache again instead of reading it: an
//! extra (write − read) × suffix tokens, once. In exchange every later request reads the saved
//! tokens no more: read × saved per request. How many requests are left is unknown; the gate
//! expects as many as the session has had so far (its past length, the simplest estimate of an
//! unknown remaining length, with no parameter of its own). A boundary is **taken** when
//! read × saved × (requests so far) ≥ (write − read) × suffix, with the prices of
//! spec/governor.md §11.8; otherwise E stays at the last boundary taken, and the next boundary
//! weighs everything pending then against one rewrite.
//!
//! The decision at boundary b depends on H[0..b) alone (G7), and E still changes only at
//! boundaries (G8).
//!
//! The **bank** (part of the default, `GateRule::ExpectedBank`, since issue 21's follow-up 5;
//! `GateRule::Bank` alone is a measured alternative, and `GateRule::Expected` alone the rule
//! before): the gate also keeps what `off` and the governed stream paid for every request before b
//! (the replay's prices and cache, from H[0..b) alone), and takes a rewrite only when the savings
//! banked so far, less the prices of rewrites taken and not yet sent, cover this rewrite's price.
//! Without recovery the governed stream then never costs more than `off` up to any request.

use super::GovSettings;
use super::fact::{Fact, GateRule, GateStart, Step};
use super::figures::Prices;
use super::model::Message;
use super::policy2::oversized;
use super::rules::{decide_policy, eligible};
use super::stubs::Reason;

/// The boundaries evaluated so far and the last one taken, with its decisions.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    checked: usize,
    taken: usize,
    steps: Vec<Step>,
    bank: Bank,
    /// The requests that found the provider's cache cold, by the messages they sent (sorted):
    /// a rewrite there costs nothing more (spec/governor.md §2.7, "Cold requests").
    cold: Vec<usize>,
    /// How many of `cold` were applied.
    cold_done: usize,
    /// Bumped whenever the decisions on P change, E or not.
    generation: u64,
}

/// The bank's accounts (spec/governor.md §2.7): the requests before the last boundary checked,
/// priced as the replay prices them (spec/governor.md §11.8), for `off` and for the governed
/// stream under the boundaries taken.
#[derive(Clone, Debug, Default)]
struct Bank {
    /// Σ (off − governed) over the requests accounted.
    saved: f64,
    /// The price bounds of the rewrites taken since the last request accounted.
    owed: f64,
    /// The messages the last request accounted sent (`None`: no request yet).
    previous_sent: Option<usize>,
    /// The first message that a rewrite taken since the last request accounted changes.
    first_changed: Option<usize>,
    /// Prefix sums of the messages' tokens as `off` sends them (`off[k]`: messages `0..k`).
    off: Vec<u64>,
    /// Prefix sums as the governed stream sends them under the boundaries taken.
    governed: Vec<u64>,
    /// Requests (assistant messages) at indices below `next` are accounted.
    next: usize,
}

impl Bank {
    /// What governing has saved and not yet promised to a rewrite.
    fn available(&self) -> f64 {
        self.saved - self.owed
    }

    /// Extends both prefix sums to message `k` (exclusive).
    fn extend(&mut self, k: usize, sent: &impl Fn(usize) -> (u64, u64)) {
        if self.off.is_empty() {
            self.off.push(0);
        }
        if self.governed.is_empty() {
            self.governed.push(0);
        }
        while self.off.len() <= k {
            let i = self.off.len() - 1;
            let (t, _) = sent(i);
            self.off.push(self.off[i] + t);
        }
        while self.governed.len() <= k {
            let i = self.governed.len() - 1;
            let (_, g) = sent(i);
            self.governed.push(self.governed[i] + g);
        }
    }

    /// Accounts the requests before message `b` not yet accounted: one per assistant message at
    /// index `a`, sending messages `0..a` (spec/governor.md §11.8). `sent(i)` is message `i`'s
    /// tokens as `off` and as the governed stream (under the boundaries taken) send it.
    fn account(
        &mut self,
        h: &[Message],
        b: usize,
        cold: &[usize],
        sent: &impl Fn(usize) -> (u64, u64),
    ) {
        let p = Prices::default();
        let start = self.next.min(b);
        for (a, m) in h.iter().enumerate().take(b).skip(start) {
            if !m.is_assistant() {
                continue;
            }
            self.extend(a, sent);
            // A cold request writes everything, in both streams.
            let c = if cold.binary_search(&a).is_ok() {
                0
            } else {
                self.previous_sent.unwrap_or(0)
            };
            let cg = self.first_changed.map_or(c, |f| f.min(c));
            let off = p.read * self.off[c] as f64 + p.write * (self.off[a] - self.off[c]) as f64;
            let gov = p.read * self.governed[cg] as f64
                + p.write * (self.governed[a] - self.governed[cg]) as f64;
            self.saved += off - gov;
            self.owed = 0.0;
            self.first_changed = None;
            self.previous_sent = Some(a);
        }
        self.next = self.next.max(b);
    }
}

fn reason(s: &Step) -> Option<Reason> {
    match s {
        Step::Elide { reason, .. } => Some(*reason),
        _ => None,
    }
}

/// Message `i`'s tokens as `off` and as the governed stream send it under the boundaries taken
/// (`taken`, with their `steps`; after them, its `oversized` step): the bank's accounts.
fn sent_as(
    h: &[Message],
    facts: &[Option<Fact>],
    tokens: &impl Fn(usize) -> u64,
    (taken, steps): (usize, &[Step]),
    i: usize,
) -> (u64, u64) {
    let t = tokens(i);
    let st = if i < taken {
        saved(&steps[i])
    } else {
        oversized(h, i, facts[i].as_ref()).map_or(0, |st| saved(&st))
    };
    (t, t.saturating_sub(st))
}

const fn saved(s: &Step) -> u64 {
    match s {
        Step::Elide { tokens_saved, .. } => *tokens_saved,
        _ => 0,
    }
}

impl Gate {
    /// The requests that found the provider's cache cold, by the messages each sent (sorted; a
    /// list that only grows: those applied stay applied).
    pub fn set_cold(&mut self, cold: &[usize]) {
        if cold.len() > self.cold.len() {
            self.cold = cold.to_vec();
        }
    }

    /// Changes whenever the decisions on P change (a boundary taken, or a cold request's free
    /// rewrite at the same E).
    #[must_use]
    pub const fn generation(&self) -> u64 {
        self.generation
    }

    /// E for `h` (spec/governor.md §2.5, §2.7): under policy 2 with epochs, the last boundary taken;
    /// otherwise the plain E. `tokens(i)` is message `i`'s tokens (spec/governor.md §10).
    pub fn eligible(
        &mut self,
        h: &[Message],
        facts: &[Option<Fact>],
        s: &GovSettings,
        tokens: impl Fn(usize) -> u64,
    ) -> usize {
        if !gated(s) {
            return eligible(h.len(), s.epoch_messages);
        }
        let end = h.len().min(facts.len());
        // Boundaries and cold requests in the order of the messages they reach: a cold request
        // sending n messages comes after the boundaries b ≤ n.
        while let Some(c) = self.cold.get(self.cold_done).copied().filter(|c| *c <= end) {
            self.boundaries(h, facts, s, &tokens, c);
            self.expire(h, facts, s, &tokens, c);
            self.cold_done += 1;
        }
        self.boundaries(h, facts, s, &tokens, end);
        self.taken
    }

    /// The per-message tokens `off` and the governed stream send under the decisions taken,
    /// for the bank's accounts.
    fn account(
        &mut self,
        h: &[Message],
        facts: &[Option<Fact>],
        tokens: &impl Fn(usize) -> u64,
        b: usize,
    ) {
        let (taken, steps, bank, cold) = (self.taken, &self.steps, &mut self.bank, &self.cold);
        bank.account(h, b, cold, &|i| {
            sent_as(h, facts, tokens, (taken, steps), i)
        });
    }

    /// Evaluates the boundaries b ≤ `end` not yet checked (spec/governor.md §2.7 steps 1–4).
    fn boundaries(
        &mut self,
        h: &[Message],
        facts: &[Option<Fact>],
        s: &GovSettings,
        tokens: &impl Fn(usize) -> u64,
        end: usize,
    ) {
        let epoch = s.epoch_messages as usize;
        let rule = s.policy2.gate;
        while self.checked + epoch <= end {
            let b = self.checked + epoch;
            if rule.banks() {
                self.account(h, facts, tokens, b);
            }
            let now = decide_policy(&h[..b], &facts[..b], b, s);
            let gate = (rule, s.policy2.gate_start);
            if let Some((first, steps)) = self.pays(h, facts, now, b, tokens, gate) {
                self.changed_from(first);
                self.taken = b;
                self.steps = steps;
                self.generation += 1;
            }
            self.checked = b;
        }
    }

    /// The bank's view of a rewrite from message `first` (`None`: nothing changes).
    fn changed_from(&mut self, first: Option<usize>) {
        if let Some(f) = first {
            let bank = &mut self.bank;
            bank.first_changed = Some(bank.first_changed.map_or(f, |x| x.min(f)));
            bank.governed.truncate(f + 1);
        }
    }

    /// A request sending `n` messages found the cache cold (spec/governor.md §2.7, "Cold
    /// requests"): it writes its whole prefix whatever it holds, so the last boundary checked is
    /// taken with every change, at no price.
    fn expire(
        &mut self,
        h: &[Message],
        facts: &[Option<Fact>],
        s: &GovSettings,
        tokens: &impl Fn(usize) -> u64,
        n: usize,
    ) {
        let b = self.checked;
        if b == 0 {
            return;
        }
        if s.policy2.gate.banks() {
            // The requests before this one, under the decisions they were sent with.
            self.account(h, facts, tokens, n);
        }
        let now = decide_policy(&h[..b], &facts[..b], b, s);
        let before = |i: usize| -> Option<Reason> {
            if i < self.taken {
                reason(&self.steps[i])
            } else {
                oversized(h, i, facts[i].as_ref()).and_then(|o| reason(&o))
            }
        };
        let first = (0..b).find(|&i| before(i) != reason(&now[i]));
        if first.is_none() && self.taken == b {
            return;
        }
        self.changed_from(first);
        self.taken = b;
        self.steps = now;
        self.generation += 1;
    }

    /// Whether the boundary `b` with decisions `now` is taken: `Some((the first message it
    /// changes, the decisions on H[0..b) then))` (`None` as the first: it changes nothing),
    /// `None` when not. Under `GateStart::Best` the start k is the changed message with the
    /// largest expected net gain among the admissible ones, and the changes before k keep their
    /// previous step. Under a banking rule a boundary taken adds its price bound to what the
    /// bank owes.
    fn pays(
        &mut self,
        h: &[Message],
        facts: &[Option<Fact>],
        mut now: Vec<Step>,
        b: usize,
        tokens: &impl Fn(usize) -> u64,
        settings: (GateRule, GateStart),
    ) -> Option<(Option<usize>, Vec<Step>)> {
        let (rule, start) = settings;
        let (taken, steps) = (self.taken, &self.steps);
        let before = |i: usize| {
            if i < taken {
                steps[i].clone()
            } else {
                oversized(h, i, facts[i].as_ref()).unwrap_or(Step::NotCandidate)
            }
        };
        // The changed messages, each with (tokens saved now − before) clipped at 0 and signed.
        let changed: Vec<(usize, f64, f64)> = now
            .iter()
            .enumerate()
            .take(b)
            .filter_map(|(i, st)| {
                let (old_reason, old) = if i < taken {
                    (reason(&steps[i]), saved(&steps[i]))
                } else {
                    oversized(h, i, facts[i].as_ref())
                        .map_or((None, 0), |o| (reason(&o), saved(&o)))
                };
                (old_reason != reason(st)).then(|| {
                    let new = saved(st);
                    (i, new.saturating_sub(old) as f64, new as f64 - old as f64)
                })
            })
            .collect();
        let Some(&(first, _, _)) = changed.first() else {
            return Some((None, now));
        };
        let requests = h[..b].iter().filter(|m| m.is_assistant()).count() as f64;
        // Rent-or-buy: per change, the requests of H[0..b) after its justification (the message
        // of the result its `by` names; the change's own message when none is found).
        let rent: Vec<f64> = if rule.rents() {
            let mut after = vec![0u32; b + 1];
            for i in (0..b).rev() {
                after[i] = after[i + 1] + u32::from(h[i].is_assistant());
            }
            let index: std::collections::HashMap<&str, usize> = h[..b]
                .iter()
                .enumerate()
                .filter_map(|(i, m)| match m {
                    Message::Tool(r) => Some((r.call_id.as_str(), i)),
                    _ => None,
                })
                .collect();
            changed
                .iter()
                .map(|&(i, gain, _)| {
                    let j = match &now[i] {
                        Step::Elide { by, .. } => index.get(by.as_str()).copied().unwrap_or(i),
                        _ => i,
                    };
                    gain * f64::from(after[j.max(i)])
                })
                .collect()
        } else {
            Vec::new()
        };
        let p = Prices::default();
        let available = self.bank.available();
        // The bank's price of a start k is the exact change of the next request's cost
        // (spec/governor.md §2.7, the bank's proof (ii)): B(k) − (write − read) × G_old(max(k, c′)..b),
        // c′ the cached end that request would have without this rewrite; the messages from c′
        // on are written by that request anyway.
        if rule.banks() {
            let sent = |i: usize| sent_as(h, facts, tokens, (taken, steps), i);
            self.bank.extend(b, &sent);
        }
        let old: &[u64] = if rule.banks() {
            &self.bank.governed[..=b]
        } else {
            &[]
        };
        let cached_end = {
            let c = self.bank.previous_sent.unwrap_or(0);
            self.bank.first_changed.map_or(c, |f| f.min(c))
        };
        let written_anyway = |k: usize| -> f64 {
            let from = k.max(cached_end);
            match (old.get(from), old.get(b)) {
                (Some(x), Some(y)) if from < b => (p.write - p.read) * (y - x) as f64,
                _ => 0.0,
            }
        };
        // From the last changed message back: each changed message k is a start, whose rewrite
        // re-sends suffix(k) and whose gain is that of the changes at or after k.
        let (mut suffix, mut gain, mut net, mut paid) = (0u64, 0.0, 0.0, 0.0);
        let mut pending = changed.len();
        let mut best: Option<(usize, f64, f64)> = None;
        for i in (first..b).rev() {
            suffix += tokens(i).saturating_sub(saved(&now[i]));
            if pending == 0 || changed[pending - 1].0 != i {
                continue;
            }
            pending -= 1;
            gain += changed[pending].1;
            net += changed[pending].2;
            paid += rent.get(pending).copied().unwrap_or(0.0);
            if start == GateStart::Whole && pending > 0 {
                continue;
            }
            let price = (p.write - p.read) * suffix as f64;
            let bound = price - p.read * net - written_anyway(i);
            let expected = gain * p.read * requests;
            let admissible = (!rule.expects() || expected >= price)
                && (!rule.banks() || available >= bound)
                && (!rule.rents() || paid * p.read >= price);
            let value = expected - price;
            // On a tie the earlier start (more changes now) wins: k runs backwards.
            if admissible && best.is_none_or(|(_, v, _)| value >= v) {
                best = Some((i, value, bound));
            }
        }
        let (k, _, bound) = best?;
        if rule.banks() {
            self.bank.owed += bound;
        }
        for &(i, _, _) in changed.iter().take_while(|(i, _, _)| *i < k) {
            now[i] = before(i);
        }
        Some((Some(k), now))
    }

    /// The decisions on P = H[0..E) under the boundaries taken, when the gate decides them
    /// (policy 2 with epochs): those of the last boundary taken, whose changes before its start
    /// kept their previous step. `None`: spec/governor.md §3.2 on P is the answer.
    #[must_use]
    pub fn on_eligible(&self, s: &GovSettings) -> Option<&[Step]> {
        gated(s).then_some(self.steps.as_slice())
    }
}

/// Whether the gate decides E (policy 2 with epochs); otherwise E is the plain one and the gate
/// never asks a message's tokens.
#[must_use]
pub(crate) const fn gated(s: &GovSettings) -> bool {
    s.policy_version >= 2 && s.epoch_messages > 0
}

#[cfg(test)]
mod tests;
