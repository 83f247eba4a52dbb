//! Cache-aware replay accounting (spec/governor.md §11.8): what a session's requests cost with a
//! provider prompt cache, for the history as it is (`off`), for the governor's projection
//! (`governed`) and for observation-masking baselines (`mask:N`, SWE-agent style).
//!
//! Pure. A [`Stream`] takes one request after another and compares each with the previous one
//! position by position through per-message hashes of the replaced texts only (the history
//! itself is append-only between rewrites), so a request costs O(replaced results), never a
//! re-serialisation of the messages.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::classify::result_text;
use super::invariants::Sources;
use super::model::Message;
use super::recovery::{self, HiddenResults, Index, Ranges, Recovery, Shape, StreamIn};
pub use super::session::message_tokens;
use super::session::{SessionGovernor, Turn};
use super::stubs::Reason;
use super::tokens::tokens;
use super::{GovSettings, RequestParts};

pub use super::figures::{Baseline, Columns, Figures, PerRequest, Prices, Replay};

/// A replaced message of a request: (position, tokens, hash of its text).
pub type Replaced = (usize, u64, u64);

/// The hash a replaced text is compared by.
#[must_use]
pub fn hash_of(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

#[derive(Clone, Debug, Default)]
struct Prev {
    /// Messages (request-level parts included), without the trailing one.
    messages: usize,
    replaced: Vec<Replaced>,
    trailing: Option<(u64, u64)>,
}

/// One stream of requests (off, governed or a baseline).
#[derive(Clone, Debug, Default)]
pub struct Stream {
    pub figures: Figures,
    /// The input and cached tokens of each request pushed.
    pub columns: Columns,
    previous: Option<Prev>,
}

/// The first position where two sorted replacement lists differ, below `limit`.
fn first_difference(a: &[Replaced], b: &[Replaced], limit: usize) -> usize {
    let (mut i, mut j) = (0, 0);
    loop {
        let x = a.get(i).filter(|x| x.0 < limit);
        let y = b.get(j).filter(|y| y.0 < limit);
        match (x, y) {
            (None, None) => return limit,
            (Some(x), None) => return x.0,
            (None, Some(y)) => return y.0,
            (Some(x), Some(y)) if x.0 == y.0 && x.2 == y.2 => {
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) => return x.0.min(y.0),
        }
    }
}

impl Stream {
    /// Accounts one request. `base[k]` is the sum of the unreplaced tokens of positions `0..k`
    /// (request-level parts first, then the messages; `base.len() > n`); `replaced` are sorted
    /// by position; `trailing` is a message sent after the `n` (the invariants block);
    /// `reset` says the history was rewritten (a compaction): nothing is cached.
    pub fn push(
        &mut self,
        prices: Prices,
        base: &[u64],
        n: usize,
        replaced: Vec<Replaced>,
        trailing: Option<(u64, u64)>,
        reset: bool,
    ) -> Figures {
        let at = |k: usize| base.get(k).copied().unwrap_or(0);
        let prefix = |d: usize| {
            let mut t = at(d.min(n));
            for r in replaced.iter().take_while(|r| r.0 < d.min(n)) {
                t = t - (at(r.0 + 1) - at(r.0)) + r.1;
            }
            if d > n {
                t += trailing.map_or(0, |x| x.0);
            }
            t
        };
        let input = prefix(n + 1);
        let cached = match (&self.previous, reset) {
            (Some(p), false) => {
                let mut d = first_difference(&p.replaced, &replaced, p.messages.min(n));
                let whole = p.messages + usize::from(p.trailing.is_some());
                if d == p.messages.min(n) && p.messages <= n {
                    // The previous trailing message, if any, sits where this request has a
                    // message (or its own trailing one).
                    d = match p.trailing {
                        None => p.messages,
                        Some(t) if p.messages == n && trailing.map(|x| x.1) == Some(t.1) => {
                            p.messages + 1
                        }
                        Some(_) => p.messages,
                    };
                }
                (prefix(d), u64::from(d < whole))
            }
            _ => (0, 0),
        };
        let (cached, breaks) = cached;
        let this = Figures {
            input_tokens: input,
            cached_tokens: cached,
            cost: prices.read * cached as f64 + prices.write * (input - cached) as f64,
            cache_breaks: breaks,
        };
        self.add(&this);
        self.previous = Some(Prev {
            messages: n,
            replaced,
            trailing,
        });
        this
    }

    /// Adds one request's figures (its columns and the sums).
    pub fn add(&mut self, f: &Figures) {
        self.figures.input_tokens += f.input_tokens;
        self.figures.cached_tokens += f.cached_tokens;
        self.figures.cost += f.cost;
        self.figures.cache_breaks += f.cache_breaks;
        self.columns.input_tokens.push(f.input_tokens);
        self.columns.cached_tokens.push(f.cached_tokens);
    }
}

/// The request-level parts' tokens, one position each (spec/governor.md §2.6 order).
#[must_use]
pub fn parts_tokens(p: &RequestParts) -> Vec<u64> {
    p.system
        .iter()
        .chain(p.instructions.iter().map(|(_, t)| t))
        .chain(p.skills.iter())
        .chain(p.tools.iter())
        .map(|t| tokens(t))
        .collect()
}

/// An observation-masking baseline: every tool result except the `keep` most recent becomes
/// `Old environment output: (K lines omitted)`, recomputed at every request.
#[derive(Clone, Debug)]
pub struct Mask {
    pub keep: usize,
    stream: Stream,
}

impl Mask {
    #[must_use]
    pub fn new(keep: usize) -> Self {
        Self {
            keep,
            stream: Stream::default(),
        }
    }
}

/// The masking stub of a result of `lines` lines.
#[must_use]
pub fn mask_stub(lines: usize) -> String {
    format!("Old environment output: ({lines} lines omitted)")
}

/// The replay figures of a live session's requests (spec/governor.md §11.8): the runner pushes
/// every request it builds and stores the request's figures in its `context_governed` event; the
/// session's report sums them ([`of_requests`]). A compaction or an in-place rewrite resets the
/// cache.
#[derive(Clone, Debug, Default)]
pub struct Live {
    off: Stream,
    governed: Stream,
    first: Option<u64>,
    messages: usize,
    reset: bool,
}

impl Live {
    /// The next request starts from an empty cache (the history was rewritten in place).
    pub fn rewritten(&mut self) {
        self.reset = true;
    }

    /// Accounts one request: the history, the elisions `on` sends and the trailing block.
    /// Returns this request's figures (`off`, `governed`): the `replay` of its
    /// `context_governed` event.
    pub fn push<'s>(
        &mut self,
        parts: &RequestParts,
        history: &[Message],
        stubs: impl Iterator<Item = (usize, &'s str)>,
        trailing: Option<&str>,
    ) -> (Figures, Figures) {
        let k = parts_tokens(parts);
        let mut base = Vec::with_capacity(k.len() + history.len() + 1);
        base.push(0);
        for t in k.iter().copied().chain(history.iter().map(message_tokens)) {
            base.push(base.last().copied().unwrap_or(0) + t);
        }
        let first = history.first().map(|m| hash_of(&format!("{m:?}")));
        let reset = self.reset || first != self.first || history.len() < self.messages;
        self.reset = false;
        self.first = first;
        self.messages = history.len();
        let n = k.len() + history.len();
        let p = Prices::default();
        let off = self.off.push(p, &base, n, Vec::new(), None, reset);
        let stubs = stubs
            .map(|(i, s)| (k.len() + i, tokens(s), hash_of(s)))
            .collect();
        let trailing = trailing.map(|b| (tokens(b), hash_of(b)));
        let governed = self.governed.push(p, &base, n, stubs, trailing, reset);
        (off, governed)
    }
}

/// The `replay` of a session from its requests' own figures (`off`, `governed`), in order: the
/// `replay` of its stored `context_governed` events (spec/governor.md §7.1), summed.
#[must_use]
pub fn of_requests(requests: impl IntoIterator<Item = (Figures, Figures)>) -> Replay {
    let (mut off, mut governed, mut n) = (Stream::default(), Stream::default(), 0);
    for (o, g) in requests {
        off.add(&o);
        governed.add(&g);
        n += 1;
    }
    Replay {
        requests: n,
        off: off.figures,
        governed: governed.figures,
        baselines: Vec::new(),
        per_request: PerRequest {
            off: off.columns,
            governed: governed.columns,
            baselines: Vec::new(),
        },
        recovery: None,
        recorded: None,
    }
}

/// The human line of a report's `replay` (`run`'s context report): requests, tokens and cost
/// governed/off, cache breaks.
#[must_use]
pub fn summary_line(rp: &serde_json::Value) -> String {
    let f = |m: &str, k: &str| rp[m][k].as_f64().unwrap_or(0.0);
    let ratio = |a: f64, b: f64| {
        if b == 0.0 {
            "-".to_owned()
        } else {
            format!("{:.3}", a / b)
        }
    };
    format!(
        "\n  replay: {} requests; tokens governed/off {}; cost governed/off {}; {} cache breaks",
        rp["requests"],
        ratio(f("governed", "inputTokens"), f("off", "inputTokens")),
        ratio(f("governed", "cost"), f("off", "cost")),
        rp["governed"]["cacheBreaks"]
    )
}

/// Replays one recorded session request by request (the requests of `--events`: one before
/// every assistant message, then the final one) and accounts every stream. `cold` (sorted) are
/// the assistant messages whose request the provider answered from a cold cache, as the
/// transcript recorded it (`recorded::cold_answers`, spec/governor.md §11.8): every stream's
/// request starts from an empty cache there.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn replay(
    settings: &GovSettings,
    session_id: &str,
    history: &[Message],
    parts: &RequestParts,
    sources: &Sources,
    masks: &[usize],
    prices: Prices,
    cold: &[usize],
) -> Replay {
    let k = parts_tokens(parts);
    let mut base = Vec::with_capacity(k.len() + history.len() + 1);
    base.push(0);
    for t in k.iter().copied().chain(history.iter().map(message_tokens)) {
        base.push(base.last().copied().unwrap_or(0) + t);
    }
    let off_k = k.len();
    // Per tool message: its masking stub's tokens and hash.
    let masked: Vec<Option<(u64, u64)>> = history
        .iter()
        .map(|m| match m {
            Message::Tool(r) => {
                let s = mask_stub(result_text(r).lines().count());
                Some((tokens(&s), hash_of(&s)))
            }
            _ => None,
        })
        .collect();
    let mut gov = SessionGovernor::new();
    let mut off = Stream::default();
    let mut governed = Stream::default();
    let mut baselines: Vec<Mask> = masks.iter().map(|n| Mask::new(*n)).collect();
    let ends: Vec<usize> = history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_assistant())
        .map(|(i, _)| i)
        .chain([history.len()])
        .collect();
    let mut requests = 0;
    let index = Index::new(history, parts, &ends);
    let p2 = settings.policy2;
    let spilling = settings.policy_version >= 2;
    let ranges = Ranges::new(history.len(), &index, |t| {
        if spilling {
            super::policy2::spill_hidden(&p2, t)
        } else {
            Vec::new()
        }
    });
    let mut hidden_gov = HiddenResults::new(history.len());
    let mut hidden_masks: Vec<HiddenResults> = masks
        .iter()
        .map(|_| HiddenResults::new(history.len()))
        .collect();
    for (r, end) in ends.iter().copied().enumerate() {
        let req = r as u64 + 1;
        let turn = Turn {
            session_id,
            history: &history[..end],
            parts,
            sources,
            request: r as u64 + 1,
            recovery: false,
        };
        let expired = end < history.len() && cold.binary_search(&end).is_ok();
        if expired {
            gov.cache_cold();
        }
        let sent = gov.request(settings, turn);
        requests += 1;
        let n = off_k + end;
        off.push(prices, &base, n, Vec::new(), None, expired);
        let stubs = gov
            .elisions()
            .map(|(i, s)| (off_k + i, tokens(s), hash_of(s)))
            .collect();
        let trailing = sent.invariants.as_deref().map(|b| (tokens(b), hash_of(b)));
        governed.push(prices, &base, n, stubs, trailing, expired);
        for (i, reason) in gov.reasons() {
            let shape = if reason == Reason::Oversized {
                Shape::Spill
            } else {
                Shape::Whole
            };
            hidden_gov.hide(req, i, shape);
        }
        for (m, hidden) in baselines.iter_mut().zip(&mut hidden_masks) {
            let tools: Vec<usize> = (0..end).filter(|i| masked[*i].is_some()).collect();
            let cut = tools.len().saturating_sub(m.keep);
            for i in &tools[..cut] {
                hidden.hide(req, *i, Shape::Whole);
            }
            let stubs = tools[..cut]
                .iter()
                .filter_map(|i| masked[*i].map(|(t, h)| (off_k + i, t, h)))
                .collect();
            m.stream.push(prices, &base, n, stubs, None, expired);
        }
    }
    let stream = |name: String, s: &Stream, tracker: &HiddenResults, mask: Option<usize>| {
        recovery::evaluate(
            history,
            &ends,
            &index,
            &ranges,
            &StreamIn {
                name,
                inputs: &s.columns.input_tokens,
                cost: s.figures.cost,
                read: prices.read,
                write: prices.write,
                tracker,
                mask,
            },
        )
    };
    let recovery = Recovery {
        model: recovery::MODEL.to_owned(),
        governed: stream("governed".into(), &governed, &hidden_gov, None),
        baselines: baselines
            .iter()
            .zip(&hidden_masks)
            .map(|(m, t)| stream(format!("mask:{}", m.keep), &m.stream, t, Some(m.keep)))
            .collect(),
    };
    Replay {
        requests,
        off: off.figures,
        governed: governed.figures,
        baselines: baselines
            .iter()
            .map(|m| Baseline {
                name: format!("mask:{}", m.keep),
                figures: m.stream.figures,
            })
            .collect(),
        per_request: PerRequest {
            off: off.columns,
            governed: governed.columns,
            baselines: baselines.into_iter().map(|m| m.stream.columns).collect(),
        },
        recovery: Some(recovery),
        recorded: None,
    }
}

#[cfg(test)]
mod tests;
