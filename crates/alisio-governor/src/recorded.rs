//! The recorded bill of a replayed session (spec/governor.md §11.11): what the recorded run's
//! requests really sent, as the provider reported it in the transcript, and the governor's
//! modelled saving as a share of it.
//!
//! A replay (spec/governor.md §11.8) prices the messages it can see, with token counts it
//! estimates (§10). A foreign transcript does not record the system prompt and the tool
//! definitions an agent sends before them (for Claude Code, some 14,000 tokens on every request),
//! so the replay's `off` is a part of the real bill, and `governed / off` overstates the share a
//! user would save. Every format of the corpus records the provider's usage of each request
//! (Claude Code `message.usage`, Codex `token_count` events, mini-swe-agent
//! `extra.response.usage`); [`bill`] puts the replay's saving against it.
//!
//! A session alisio-ls ran has the same ground truth in its turns' usage: [`live_bill`] puts it
//! against the live replay of the same requests (§11.11, "Live sessions"), and [`live_line`] is
//! the sentence every surface prints.
//!
//! Pure: plain data in, plain data out.

use std::collections::HashMap;

use super::audit::cache::ReportedUsage;
pub use super::figures::Recorded;
use super::figures::{Columns, Prices, Replay};
use super::model::Message;

/// The usage the provider reported for one request, with the index in H of the assistant
/// message that answered it (the request before that message, spec/governor.md §11.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordedRequest {
    pub message: usize,
    pub usage: ReportedUsage,
    /// The provider reported its cache read (a usage without one says nothing of the cache).
    pub cache_reported: bool,
}

/// The assistant messages whose request found the provider's cache cold, as the transcript
/// recorded it (spec/governor.md §11.8): the reported cache read is under half of what the
/// previous recorded request sent (its uncached input, cache writes and reads). A hit reads the
/// whole previous prompt; an expiry (the cache's time to live) or a model switch reads nothing,
/// or only a system prompt another session keeps warm. Sorted.
#[must_use]
pub fn cold_answers(usage: &[RecordedRequest]) -> Vec<usize> {
    let mut by_message = usage.to_vec();
    by_message.sort_by_key(|r| r.message);
    let mut cold: Vec<usize> = by_message
        .windows(2)
        .filter(|w| w[0].cache_reported && w[1].cache_reported)
        .filter(|w| {
            let before = w[0].usage;
            let sent = before.input + before.cache_write + before.cache_read;
            2 * w[1].usage.cache_read < sent
        })
        .map(|w| w[1].message)
        .collect();
    cold.dedup();
    cold
}

/// Request r's cost in a stream's columns (spec/governor.md §11.8).
fn cost_at(c: &Columns, r: usize, p: Prices) -> f64 {
    let input = c.input_tokens.get(r).copied().unwrap_or(0);
    let cached = c.cached_tokens.get(r).copied().unwrap_or(0).min(input);
    p.read * cached as f64 + p.write * (input - cached) as f64
}

/// The recorded bill of a replay: `None` when the transcript records no usage for any of the
/// replayed requests. `history` is the replayed H, `usage` the reader's records, `replay` the
/// replay of that H with `prices`.
#[must_use]
pub fn bill(
    history: &[Message],
    usage: &[RecordedRequest],
    replay: &Replay,
    prices: Prices,
) -> Option<Recorded> {
    let by_message: HashMap<usize, ReportedUsage> =
        usage.iter().map(|u| (u.message, u.usage)).collect();
    let answers = history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_assistant())
        .map(|(i, _)| i);
    let mut b = Recorded::default();
    for (r, i) in answers.enumerate() {
        let Some(u) = by_message.get(&i) else {
            continue;
        };
        b.add_usage(*u, prices);
        b.off_cost += cost_at(&replay.per_request.off, r, prices);
        b.governed_cost += cost_at(&replay.per_request.governed, r, prices);
    }
    if b.requests == 0 {
        return None;
    }
    b.recovery_cost = replay
        .recovery
        .as_ref()
        .map_or(0.0, |x| x.governed.recovery_cost);
    b.saved = b.off_cost - b.governed_cost - b.recovery_cost;
    b.off_bill = b.cost;
    b.sent_cost = b.off_cost;
    b.saved_share = (b.off_bill > 0.0).then(|| b.saved / b.off_bill);
    Some(b)
}

/// One request of a live session (spec/governor.md §11.11, "Live sessions"): the usage the
/// provider reported for it and the live replay's figures of the same request (its
/// `context_governed` event, §7.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveRequest {
    pub usage: ReportedUsage,
    /// The live replay's `off` and `governed` costs of this request.
    pub off_cost: f64,
    pub governed_cost: f64,
    /// The request sent the governed stream (mode `on`), not `off`'s (`shadow`).
    pub sent_governed: bool,
}

/// The recorded bill of a live session: what the provider reported for its requests, against the
/// live replay's saving, and for `other` requests the replay does not see (compaction summaries).
/// A recovery there is a real request, in the bill: nothing is modelled (`recoveryCost` 0). `None`
/// without any request.
#[must_use]
pub fn live_bill(
    requests: &[LiveRequest],
    other: &[ReportedUsage],
    prices: Prices,
) -> Option<Recorded> {
    let mut b = Recorded::default();
    for u in other {
        let cost = b.add_usage(*u, prices);
        b.other_requests += 1;
        b.other_cost += cost;
        b.off_bill += cost;
    }
    for r in requests {
        let cost = b.add_usage(r.usage, prices);
        let saved = r.off_cost - r.governed_cost;
        b.off_cost += r.off_cost;
        b.governed_cost += r.governed_cost;
        b.saved += saved;
        if r.sent_governed {
            b.sent_cost += r.governed_cost;
            b.off_bill += cost + saved;
        } else {
            b.sent_cost += r.off_cost;
            b.shadow_saved += saved;
            b.off_bill += cost;
        }
    }
    if b.requests == 0 {
        return None;
    }
    b.saved_share = (b.off_bill > 0.0).then(|| b.saved / b.off_bill);
    Some(b)
}

fn share(a: f64, b: f64) -> String {
    if b > 0.0 {
        format!("{:.3}", a / b)
    } else {
        "-".into()
    }
}

/// The human line of a transcript's recorded bill (spec/governor.md §11.11): `  <label> recorded
/// (as the provider reported it): R requests, T input tokens (C cached), cost X; replay off Y
/// (Y/X of it); saved with recovery S (S/X of it)`.
#[must_use]
pub fn line(label: &str, b: &Recorded) -> String {
    format!(
        "  {label} recorded (as the provider reported it): {} requests, {} input tokens ({} cached), cost {:.1}; replay off {:.1} ({} of it); saved with recovery {:.1} ({} of it)\n",
        b.requests,
        b.input_tokens,
        b.cached_tokens,
        b.cost,
        b.off_cost,
        share(b.off_cost, b.cost),
        b.saved,
        share(b.saved, b.off_bill)
    )
}

/// The sentence of a live session's recorded bill (spec/governor.md §11.11, "Live sessions"),
/// the same in `sessions report`, a run's report and the editors' Context Report: `bill (tokens
/// as the provider reported them, at the replay's prices): R request(s), T input tokens (C
/// cached), cost X[, O of it for N compaction request(s) the replay does not see]; the replay
/// covers Y of it (Y/X); saved S of the B off would have been billed (S/B)`, then `, W of it in
/// shadow requests (not sent, no recovery charged)` when W is not 0.
#[must_use]
pub fn live_line(b: &Recorded) -> String {
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let other = if b.other_requests > 0 {
        format!(
            ", {:.1} of it for {} compaction request{} the replay does not see",
            b.other_cost,
            b.other_requests,
            plural(b.other_requests)
        )
    } else {
        String::new()
    };
    let mut s = format!(
        "bill (tokens as the provider reported them, at the replay's prices): {} request{}, {} input tokens ({} cached), cost {:.1}{other}; the replay covers {:.1} of it ({}); saved {:.1} of the {:.1} off would have been billed ({})",
        b.requests,
        plural(b.requests),
        b.input_tokens,
        b.cached_tokens,
        b.cost,
        b.sent_cost,
        share(b.sent_cost, b.cost),
        b.saved,
        b.off_bill,
        share(b.saved, b.off_bill)
    );
    if b.shadow_saved != 0.0 {
        s.push_str(&format!(
            ", {:.1} of it in shadow requests (not sent, no recovery charged)",
            b.shadow_saved
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::PerRequest;
    use crate::recovery::{Recovery, StreamRecovery};

    fn usage(message: usize, input: u64, cache_write: u64, cache_read: u64) -> RecordedRequest {
        RecordedRequest {
            message,
            cache_reported: true,
            usage: ReportedUsage {
                input,
                cache_write,
                cache_read,
                output: 7,
            },
        }
    }

    fn columns(input: &[u64], cached: &[u64]) -> Columns {
        Columns {
            input_tokens: input.to_vec(),
            cached_tokens: cached.to_vec(),
        }
    }

    /// H = user, assistant, tool, assistant: the replay has three requests (before each
    /// assistant message, then the final one); the transcript records the first two.
    #[test]
    fn the_bill_sums_the_recorded_requests_and_puts_the_saving_against_it() {
        let h = vec![
            Message::user("q"),
            Message::assistant("a", Vec::new()),
            Message::user("r"),
            Message::assistant("b", Vec::new()),
        ];
        let replay = Replay {
            requests: 3,
            per_request: PerRequest {
                off: columns(&[100, 300, 400], &[0, 100, 300]),
                governed: columns(&[100, 200, 300], &[0, 50, 200]),
                baselines: Vec::new(),
            },
            recovery: Some(Recovery {
                governed: StreamRecovery {
                    recovery_cost: 10.0,
                    ..StreamRecovery::default()
                },
                ..Recovery::default()
            }),
            ..Replay::default()
        };
        let recorded = [usage(1, 10, 2_000, 10_000), usage(3, 5, 300, 12_000)];
        let b = bill(&h, &recorded, &replay, Prices::default()).unwrap();
        // Recorded: 2,010 × 1.25 + 10,000 × 0.1 = 3,512.5; 305 × 1.25 + 12,000 × 0.1 = 1,581.25.
        // off: 100 × 1.25 = 125; 100 × 0.1 + 200 × 1.25 = 260. governed: 125; 5 + 187.5 = 192.5.
        assert_eq!(b.requests, 2);
        assert_eq!(b.input_tokens, 24_315);
        assert_eq!(b.cached_tokens, 22_000);
        assert!((b.cost - 5_093.75).abs() < 1e-9, "{}", b.cost);
        assert!((b.off_cost - 385.0).abs() < 1e-9, "{}", b.off_cost);
        assert!(
            (b.governed_cost - 317.5).abs() < 1e-9,
            "{}",
            b.governed_cost
        );
        assert!((b.recovery_cost - 10.0).abs() < 1e-9);
        assert!((b.saved - 57.5).abs() < 1e-9, "{}", b.saved);
        assert!(
            (b.off_bill - b.cost).abs() < f64::EPSILON,
            "a foreign bill is off's"
        );
        let share = b.saved_share.unwrap();
        assert!((share - 57.5 / 5_093.75).abs() < 1e-12, "{share}");
        let mut all = Recorded::default();
        all.add(&b);
        all.add(&b);
        assert_eq!((all.requests, all.input_tokens), (4, 48_630));
        assert!((all.saved - 115.0).abs() < 1e-9);
        assert!((all.saved_share.unwrap() - share).abs() < 1e-12);
    }

    /// Cold requests, as the corpus shows them: a hit reads the whole previous prompt; an
    /// expiry reads nothing, or only the system prompt another session keeps warm; a small
    /// shortfall (a changed last block) is no expiry.
    #[test]
    fn a_request_that_read_under_half_of_the_previous_prompt_was_cold() {
        let u = [
            usage(1, 4, 3675, 10491),  // sent 14,170
            usage(3, 6, 286, 14166),   // a hit: read 14,166 (≥ 7,085)
            usage(5, 3, 20000, 0),     // 341 s later: read nothing
            usage(7, 5, 1000, 20003),  // a hit again
            usage(9, 5, 11000, 10491), // only the system prompt: 10,491 < 21,008 / 2
            usage(11, 5, 3000, 19000), // 19,000 ≥ 21,496 / 2: a hit that rewrote a block
        ];
        assert_eq!(cold_answers(&u), vec![5, 9]);
        assert_eq!(cold_answers(&u[..1]), Vec::<usize>::new());
        // In any order, the same answer, sorted.
        let mut shuffled = u.to_vec();
        shuffled.reverse();
        assert_eq!(cold_answers(&shuffled), vec![5, 9]);
        // A usage that reports no cache read says nothing of the cache: never cold, and the
        // request after it is not compared with it.
        let mut silent = u.to_vec();
        silent[2].cache_reported = false;
        assert_eq!(cold_answers(&silent), vec![9]);
        silent[4].cache_reported = false;
        assert_eq!(cold_answers(&silent), Vec::<usize>::new());
    }

    #[test]
    fn no_recorded_usage_is_no_bill_and_a_zero_bill_has_no_share() {
        let h = vec![Message::user("q"), Message::assistant("a", Vec::new())];
        let replay = Replay {
            requests: 2,
            per_request: PerRequest {
                off: columns(&[10, 20], &[0, 10]),
                governed: columns(&[10, 20], &[0, 10]),
                baselines: Vec::new(),
            },
            ..Replay::default()
        };
        assert_eq!(bill(&h, &[], &replay, Prices::default()), None);
        // A usage that names a message that is no answer is not a request of the replay.
        assert_eq!(
            bill(&h, &[usage(0, 1, 1, 1)], &replay, Prices::default()),
            None
        );
        let b = bill(&h, &[usage(1, 0, 0, 0)], &replay, Prices::default()).unwrap();
        assert_eq!((b.requests, b.cost, b.saved_share), (1, 0.0, None));
    }

    /// A live session (spec/governor.md §11.11, "Live sessions"): one request in `shadow` and one
    /// in `on`. Each usage's cost at the default prices (0.1, 1.25): 1,000 uncached, 200 written
    /// and 3,000 read cost 1,500 + 300 = 1,800; 100, 0 and 4,000 cost 125 + 400 = 525. The saving of each
    /// is the live replay's off − governed (300 − 200 = 100, 500 − 150 = 350); the bill `off`
    /// would have run up is the shadow request's own cost and the governed request's cost plus
    /// its saving: 1,800 + 525 + 350 = 2,675, so 450 / 2,675 of it is saved.
    #[test]
    fn a_live_bill_counts_the_saving_of_a_governed_request_on_top_of_what_it_cost() {
        let req =
            |input, cache_write, cache_read, off_cost, governed_cost, sent_governed| LiveRequest {
                usage: ReportedUsage {
                    input,
                    cache_write,
                    cache_read,
                    output: 9,
                },
                off_cost,
                governed_cost,
                sent_governed,
            };
        let live = [
            req(1000, 200, 3000, 300.0, 200.0, false),
            req(100, 0, 4000, 500.0, 150.0, true),
        ];
        let b = live_bill(&live, &[], Prices::default()).unwrap();
        assert_eq!(b.requests, 2);
        assert_eq!(b.input_tokens, 1000 + 200 + 3000 + 100 + 4000);
        assert_eq!(b.cached_tokens, 7000);
        assert!((b.cost - 2325.0).abs() < 1e-9, "{}", b.cost);
        assert!((b.off_cost - 800.0).abs() < 1e-9);
        assert!((b.governed_cost - 350.0).abs() < 1e-9);
        assert!((b.recovery_cost - 0.0).abs() < f64::EPSILON);
        assert!((b.saved - 450.0).abs() < 1e-9);
        assert!((b.off_bill - 2675.0).abs() < 1e-9, "{}", b.off_bill);
        // What the replay sees of the bill: the shadow request's off, the governed one's governed.
        assert!((b.sent_cost - 450.0).abs() < 1e-9, "{}", b.sent_cost);
        assert!((b.shadow_saved - 100.0).abs() < 1e-9, "{}", b.shadow_saved);
        assert_eq!(
            live_line(&b),
            "bill (tokens as the provider reported them, at the replay's prices): 2 requests, 8300 \
             input tokens (7000 cached), cost 2325.0; the replay covers 450.0 of it (0.194); saved \
             450.0 of the 2675.0 off would have been billed (0.168), 100.0 of it in shadow \
             requests (not sent, no recovery charged)"
        );
        assert!((b.saved_share.unwrap() - 450.0 / 2675.0).abs() < 1e-12);
        assert_eq!(live_bill(&[], &[], Prices::default()), None);
        // A compaction summary the replay does not see: 2,000 uncached and 1,000 read cost 2,600,
        // in the bill and in what `off` would have been billed, not in the replay's costs.
        let summary = ReportedUsage {
            input: 2000,
            cache_write: 0,
            cache_read: 1000,
            output: 300,
        };
        let c = live_bill(&live, &[summary], Prices::default()).unwrap();
        assert_eq!((c.requests, c.other_requests), (3, 1));
        assert!((c.cost - 4925.0).abs() < 1e-9 && (c.other_cost - 2600.0).abs() < 1e-9);
        assert!((c.off_bill - 5275.0).abs() < 1e-9 && (c.saved - 450.0).abs() < 1e-9);
        assert!((c.sent_cost - 450.0).abs() < 1e-9);
        assert_eq!(
            live_line(&c),
            "bill (tokens as the provider reported them, at the replay's prices): 3 requests, \
             11300 input tokens (8000 cached), cost 4925.0, 2600.0 of it for 1 compaction request \
             the replay does not see; the replay covers 450.0 of it (0.091); saved 450.0 of the \
             5275.0 off would have been billed (0.085), 100.0 of it in shadow requests (not sent, \
             no recovery charged)"
        );
        // Two sessions' bills add up, the share that of the sums.
        let mut all = b.clone();
        all.add(&b);
        assert!((all.off_bill - 5350.0).abs() < 1e-9);
        assert!((all.saved_share.unwrap() - 900.0 / 5350.0).abs() < 1e-12);
    }
}
