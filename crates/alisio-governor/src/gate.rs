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
//! The **bank** (a measured alternative, `GateRule::Bank` and `GateRule::ExpectedBank`): the gate
//! also keeps what `off` and the governed stream paid for every request before b (the replay's
//! prices and cache, from H[0..b) alone), and takes a rewrite only when the savings banked so far,
//! less the price bounds of rewrites taken and not yet sent, cover this rewrite's price bound
//! (write − read) × suffix − read × (net tokens saved). Without recovery the governed stream then
//! never costs more than `off` up to any request.

use super::GovSettings;
use super::fact::{Fact, GateRule, Step};
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
    fn account(&mut self, h: &[Message], b: usize, sent: &impl Fn(usize) -> (u64, u64)) {
        let p = Prices::default();
        let start = self.next.min(b);
        for (a, m) in h.iter().enumerate().take(b).skip(start) {
            if !m.is_assistant() {
                continue;
            }
            self.extend(a, sent);
            let c = self.previous_sent.unwrap_or(0);
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

const fn saved(s: &Step) -> u64 {
    match s {
        Step::Elide { tokens_saved, .. } => *tokens_saved,
        _ => 0,
    }
}

impl Gate {
    /// E for `h` (spec/governor.md §2.5, §2.7): under policy 2 with epochs, the last boundary taken;
    /// otherwise the plain E. `tokens(i)` is message `i`'s tokens (spec/governor.md §10).
    pub fn eligible(
        &mut self,
        h: &[Message],
        facts: &[Option<Fact>],
        s: &GovSettings,
        tokens: impl Fn(usize) -> u64,
    ) -> usize {
        let epoch = s.epoch_messages as usize;
        if s.policy_version < 2 || epoch == 0 {
            return eligible(h.len(), s.epoch_messages);
        }
        let end = h.len().min(facts.len());
        let rule = s.policy2.gate;
        while self.checked + epoch <= end {
            let b = self.checked + epoch;
            if rule.banks() {
                let (taken, steps, bank) = (self.taken, &self.steps, &mut self.bank);
                bank.account(h, b, &|i| {
                    let t = tokens(i);
                    let st = if i < taken {
                        saved(&steps[i])
                    } else {
                        oversized(h, i, facts[i].as_ref()).map_or(0, |st| saved(&st))
                    };
                    (t, t.saturating_sub(st))
                });
            }
            let steps = decide_policy(&h[..b], &facts[..b], b, s);
            if let Some(first) = self.pays(h, facts, &steps, b, &tokens, rule) {
                if let Some(f) = first {
                    let bank = &mut self.bank;
                    bank.first_changed = Some(bank.first_changed.map_or(f, |x| x.min(f)));
                    bank.governed.truncate(f + 1);
                }
                self.taken = b;
                self.steps = steps;
            }
            self.checked = b;
        }
        self.taken
    }

    /// Whether the boundary `b` with decisions `now` is taken: `Some(the first message it
    /// changes)` (`Some(None)`: it changes nothing), `None` when not. Under a banking rule a
    /// boundary taken adds its price bound to what the bank owes.
    fn pays(
        &mut self,
        h: &[Message],
        facts: &[Option<Fact>],
        now: &[Step],
        b: usize,
        tokens: &impl Fn(usize) -> u64,
        rule: GateRule,
    ) -> Option<Option<usize>> {
        let before = |i: usize| {
            if i < self.taken {
                (reason(&self.steps[i]), saved(&self.steps[i]))
            } else {
                oversized(h, i, facts[i].as_ref()).map_or((None, 0), |st| (reason(&st), saved(&st)))
            }
        };
        let requests = h[..b].iter().filter(|m| m.is_assistant()).count() as f64;
        let p = Prices::default();
        let mut first = None;
        let mut gain = 0.0;
        let mut net = 0.0;
        for (i, st) in now.iter().enumerate().take(b) {
            let (old_reason, old_saved) = before(i);
            if old_reason == reason(st) {
                continue;
            }
            first.get_or_insert(i);
            gain += saved(st).saturating_sub(old_saved) as f64;
            net += saved(st) as f64 - old_saved as f64;
        }
        let Some(first) = first else {
            return Some(None);
        };
        let suffix: u64 = (first..b)
            .map(|i| tokens(i).saturating_sub(saved(&now[i])))
            .sum();
        let price = (p.write - p.read) * suffix as f64;
        if rule.expects() && gain * p.read * requests < price {
            return None;
        }
        if rule.banks() {
            let bound = price - p.read * net;
            if self.bank.available() < bound {
                return None;
            }
            self.bank.owed += bound;
        }
        Some(Some(first))
    }
}

#[cfg(test)]
mod tests;
