//! The elision rules and the decision procedure (spec/governor.md §3), evaluated on the eligible
//! prefix P = H[0..E) (spec/governor.md §2.5, epochs) as if P were the whole history.

use foldhash::{HashMap, HashSet, HashSetExt};

use super::classify::{classify_native, has_attached_instructions, pair_calls, result_text};
use super::model::{Class, Message};
use super::policy2::{self, Policy2};
use super::stubs::{Reason, stub};
use super::tokens::{tokens, utf16_len};

/// E for n messages (spec/governor.md §2.5).
#[must_use]
pub const fn eligible(n: usize, epoch_messages: u32) -> usize {
    if epoch_messages == 0 {
        n
    } else {
        let e = epoch_messages as usize;
        (n / e) * e
    }
}

pub use super::fact::{Fact, Step};

/// Facts for every message (`None` for non-tool messages); `p2` under policy 2.
#[must_use]
pub fn facts(history: &[Message], p2: Option<&Policy2>) -> Vec<Option<Fact>> {
    let pairs = pair_calls(history);
    (0..history.len())
        .map(|i| fact_at(history, i, pairs.get(i).copied().flatten(), p2))
        .collect()
}

/// The fact of message `i`, given its paired call; `p2` under policy 2.
#[must_use]
pub fn fact_at(
    history: &[Message],
    i: usize,
    call: Option<(usize, usize)>,
    p2: Option<&Policy2>,
) -> Option<Fact> {
    let Some(Message::Tool(r)) = history.get(i) else {
        return None;
    };
    let the_call = call.and_then(|(mi, ci)| match history.get(mi) {
        Some(Message::Assistant { calls, .. }) => calls.get(ci),
        _ => None,
    });
    let class = the_call
        .map(|c| {
            c.foreign
                .as_ref()
                .map_or_else(|| classify_native(c, r), |f| f.class.clone())
        })
        .unwrap_or_default();
    let text = result_text(r);
    let stub = stub(&class);
    let mut f = Fact {
        call,
        class,
        is_error: r.is_error,
        pinned: has_attached_instructions(r),
        tokens: tokens(&text),
        len: utf16_len(&text),
        stub,
        info: None,
        spill: None,
    };
    if let Some(p) = p2 {
        f.info = policy2::info(the_call, &text, r.denial.as_deref(), p.keep_denials).map(Box::new);
        f.spill = policy2::spill_of(p, &f, r, &text);
    }
    Some(f)
}

/// spec/governor.md §3.2 on P under the settings' policy: policy 1's rules, then policy 2's (spec/governor.md §3.3).
#[must_use]
pub fn decide_policy(
    history: &[Message],
    facts: &[Option<Fact>],
    e: usize,
    s: &super::GovSettings,
) -> Vec<Step> {
    let mut steps = decide(history, facts, e, s.min_age_turns);
    if s.policy_version >= 2 {
        policy2::decide(history, facts, e, s, &mut steps);
    }
    steps
}

fn reason_of(c: &Class) -> Option<Reason> {
    match c {
        Class::Read { .. } => Some(Reason::SupersededRead),
        Class::Bg { .. } => Some(Reason::StaleBgOutput),
        Class::Search { .. } => Some(Reason::DuplicateSearch),
        _ => None,
    }
}

fn first(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn ok(f: &Fact) -> bool {
    !f.is_error && f.call.is_some()
}

/// Which `bg_output` results are continuations (spec/governor.md §3.1): a forward pass over `[0, e)`.
fn continuations(facts: &[Option<Fact>], e: usize) -> Vec<bool> {
    let mut seen_next: HashSet<(&str, u64)> = HashSet::new();
    let mut continuation = vec![false; e];
    for (i, f) in facts.iter().enumerate().take(e) {
        if let Some(f) = f.as_ref().filter(|f| ok(f))
            && let Class::Bg {
                task,
                offset,
                next_offset,
                cursor: false,
                ..
            } = &f.class
        {
            continuation[i] = *offset > 0 && seen_next.contains(&(task.as_str(), *offset));
            if let Some(n) = next_offset {
                seen_next.insert((task.as_str(), *n));
            }
        }
    }
    continuation
}

/// The backward pass's memory: per key, the earliest justifier after the current index.
#[derive(Default)]
struct Later<'f> {
    writes: HashMap<&'f str, usize>,
    reads: HashMap<&'f str, HashMap<&'f str, usize>>,
    background_exact: HashMap<(&'f str, u64, u64), usize>,
    background_any: HashMap<&'f str, usize>,
    searches: HashMap<(&'f str, &'f str), usize>,
}

impl<'f> Later<'f> {
    /// The earliest justification of a result of class `c` (spec/governor.md §3.1).
    fn justification(&self, c: &Class, continuation: bool) -> Option<usize> {
        match c {
            Class::Read { key, compare, .. } => {
                let a = key.as_deref().and_then(|k| self.writes.get(k).copied());
                let b = compare.as_ref().and_then(|(g, v)| {
                    self.reads.get(g.as_str()).and_then(|m| {
                        m.iter()
                            .filter(|(w, _)| **w != v.as_str())
                            .map(|(_, j)| *j)
                            .min()
                    })
                });
                first(a, b)
            }
            Class::Bg {
                task,
                offset,
                limit,
                cursor,
                empty,
                ..
            } => {
                if continuation {
                    return None;
                }
                let a = if *cursor {
                    None
                } else {
                    self.background_exact
                        .get(&(task.as_str(), *offset, *limit))
                        .copied()
                };
                let b = if *empty {
                    self.background_any.get(task.as_str()).copied()
                } else {
                    None
                };
                first(a, b)
            }
            Class::Search {
                signature,
                records: Some(r),
                ..
            } => self
                .searches
                .get(&(signature.as_str(), r.as_str()))
                .copied(),
            _ => None,
        }
    }

    /// Records result `i` so that it may justify earlier ones.
    fn remember(&mut self, i: usize, f: &'f Fact) {
        if !ok(f) {
            return;
        }
        match &f.class {
            Class::Write { keys } => {
                for k in keys {
                    self.writes.insert(k.as_str(), i);
                }
            }
            Class::Read {
                compare: Some((g, v)),
                ..
            } => {
                self.reads
                    .entry(g.as_str())
                    .or_default()
                    .insert(v.as_str(), i);
            }
            Class::Bg {
                task,
                offset,
                limit,
                ..
            } => {
                self.background_exact
                    .insert((task.as_str(), *offset, *limit), i);
                self.background_any.insert(task.as_str(), i);
            }
            Class::Search {
                signature,
                records: Some(r),
                ..
            } => {
                self.searches.insert((signature.as_str(), r.as_str()), i);
            }
            _ => {}
        }
    }
}

/// Runs spec/governor.md §3.2 on the prefix `[0, e)`. The result has one step per message of `history`.
#[must_use]
pub fn decide(history: &[Message], facts: &[Option<Fact>], e: usize, min_age: u32) -> Vec<Step> {
    let e = e.min(history.len());
    let mut steps = vec![Step::NotCandidate; history.len()];
    let continuation = continuations(facts, e);

    // Assistant counts for ages and the last turn of P.
    let mut before = vec![0u32; e + 1];
    let mut last_assistant = None;
    for i in 0..e {
        let a = history[i].is_assistant();
        before[i + 1] = before[i] + u32::from(a);
        if a {
            last_assistant = Some(i);
        }
    }
    let last_turn_start = last_assistant.unwrap_or(0);
    let call_id = |j: usize| match &history[j] {
        Message::Tool(r) => r.call_id.clone(),
        _ => String::new(),
    };

    let mut later = Later::default();
    for i in (0..e).rev() {
        let Some(f) = facts.get(i).and_then(Option::as_ref) else {
            continue;
        };
        let Some(reason) = reason_of(&f.class) else {
            later.remember(i, f);
            continue;
        };
        let justification = if f.call.is_none() {
            None
        } else {
            later.justification(&f.class, continuation.get(i).copied().unwrap_or(false))
        };
        steps[i] = if f.call.is_none() {
            Step::NotCandidate
        } else if f.is_error {
            Step::Error
        } else if f.pinned {
            Step::Pinned
        } else if let Some(j) = justification {
            let age = before[e] - before[i + 1];
            if last_assistant.is_none() || i >= last_turn_start {
                Step::LastTurn
            } else if age < min_age {
                Step::MinAge
            } else {
                match &f.stub {
                    Some(s) if s.len() < f.len => Step::Elide {
                        reason,
                        by: call_id(j),
                        tokens_saved: f.tokens.saturating_sub(tokens(s)),
                    },
                    _ => Step::StubNotShorter,
                }
            }
        } else {
            Step::NoJustification
        };
        later.remember(i, f);
    }
    steps
}
