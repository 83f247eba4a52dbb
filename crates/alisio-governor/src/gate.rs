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

use super::GovSettings;
use super::fact::{Fact, Step};
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
        while self.checked + epoch <= end {
            let b = self.checked + epoch;
            let steps = decide_policy(&h[..b], &facts[..b], b, s);
            if self.pays(h, facts, &steps, b, &tokens) {
                self.taken = b;
                self.steps = steps;
            }
            self.checked = b;
        }
        self.taken
    }

    /// Whether the boundary `b` with decisions `now` is taken.
    fn pays(
        &self,
        h: &[Message],
        facts: &[Option<Fact>],
        now: &[Step],
        b: usize,
        tokens: &impl Fn(usize) -> u64,
    ) -> bool {
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
        for (i, st) in now.iter().enumerate().take(b) {
            let (old_reason, old_saved) = before(i);
            if old_reason == reason(st) {
                continue;
            }
            first.get_or_insert(i);
            gain += saved(st).saturating_sub(old_saved) as f64;
        }
        let Some(first) = first else {
            return true;
        };
        let suffix: u64 = (first..b)
            .map(|i| tokens(i).saturating_sub(saved(&now[i])))
            .sum();
        gain * p.read * requests >= (p.write - p.read) * suffix as f64
    }
}

#[cfg(test)]
mod tests;
