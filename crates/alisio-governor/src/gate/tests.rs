//! Tests of the cache gate (spec/governor.md §2.7).

use super::*;
use crate::model::{Call, Message};
use crate::policy2::{Aging, GateStart, Policy2};
use crate::rules::facts;
use crate::session::tokens_at;
use alisio_base::config::GovernorMode;

fn settings(policy_version: u32, epoch: u32) -> GovSettings {
    GovSettings {
        mode: GovernorMode::On,
        min_age_turns: 2,
        epoch_messages: epoch,
        policy_version,
        max_chars: 4000,
        policy2: Policy2 {
            threshold_chars: 4000,
            head_chars: 400,
            tail_chars: 400,
            min_chars: 100,
            keep_recent: 5,
            keep_denials: 1,
            gate: GateRule::Expected,
            gate_start: GateStart::Whole,
            aging: Aging::Entry,
        },
    }
}

/// `chat` exchanges of text, then a 2,000-character read of a.rs (507 tokens), an edit of a.rs
/// that supersedes it, and `talk` exchanges of 1,200-character answers (300 tokens) and "go on".
fn history(chat: usize, talk: usize) -> Vec<Message> {
    let mut h = vec![Message::user("go")];
    for _ in 0..chat {
        h.push(Message::assistant("noted", vec![]));
        h.push(Message::user("more"));
    }
    h.push(Message::assistant(
        "",
        vec![Call::new("r1", "read_file", r#"{"path":"a.rs"}"#)],
    ));
    h.push(Message::tool(
        "r1",
        format!(r#"{{"path":"a.rs","text":"{}"}}"#, "y".repeat(2000)),
        false,
    ));
    h.push(Message::assistant(
        "",
        vec![Call::new("e1", "edit_file", r#"{"path":"a.rs"}"#)],
    ));
    h.push(Message::tool("e1", r#"{"ok":true}"#, false));
    for _ in 0..talk {
        h.push(Message::assistant("x".repeat(1200), vec![]));
        h.push(Message::user("go on"));
    }
    h
}

/// E under the gate for `h` with one boundary: the epoch is the whole history.
fn e_of(h: &[Message], policy_version: u32) -> usize {
    let s = settings(policy_version, h.len() as u32);
    let f = facts(h, s.policy2());
    Gate::default().eligible(h, &f, &s, |i| tokens_at(h, &f, i))
}

#[test]
fn the_boundary_is_taken_where_the_prices_put_the_break_even() {
    // The elision saves 507 − 13 = 494 tokens per later request, 49.4 at the cache-read price;
    // it rewrites 13 + 4 + 3 + 5 × 302 = 1,530 tokens from the read on, 1,759.5 at write − read.
    // The session so far has chat + 7 requests: taken from chat + 7 ≥ 35.62, chat = 29.
    let taken: Vec<usize> = (20..40).filter(|&c| e_of(&history(c, 5), 2) > 0).collect();
    assert_eq!(taken, (29..40).collect::<Vec<_>>());
    // A short session keeps its prefix; ungated (policy 1) it would rewrite.
    let short = history(1, 5);
    assert_eq!(e_of(&short, 2), 0);
    assert_eq!(e_of(&short, 1), short.len());
}

#[test]
fn a_boundary_without_changes_is_taken_and_epoch_zero_is_not_gated() {
    let mut h = vec![Message::user("go")];
    for _ in 0..6 {
        h.push(Message::assistant("noted", vec![]));
        h.push(Message::user("more"));
    }
    let s = settings(2, 4);
    let f = facts(&h, s.policy2());
    assert_eq!(
        Gate::default().eligible(&h, &f, &s, |i| tokens_at(&h, &f, i)),
        12
    );
    let short = history(1, 5);
    let s = settings(2, 0);
    let f = facts(&short, s.policy2());
    let e = Gate::default().eligible(&short, &f, &s, |i| tokens_at(&short, &f, i));
    assert_eq!(e, short.len());
}

#[test]
fn a_skipped_boundary_is_asked_again_and_the_kept_gate_equals_a_fresh_one() {
    // The read and the edit, then one 4,000-character answer (1,000 tokens) and short exchanges,
    // boundaries every 8 messages. At 8 the rewrite (1.15 × 1,024 tokens) outweighs 49.4 × 4
    // requests; each later boundary adds 4 requests and 12 tokens, so the gate takes the one at
    // 56 (28 requests: 1,383.2 ≥ 1.15 × 1,096 = 1,260.4; at 48, 1,185.6 < 1,246.6) and every
    // boundary after it (nothing new changes). A Gate kept across requests gives a fresh one's E.
    let s = settings(2, 8);
    let mut h = history(0, 0);
    h.push(Message::assistant("w".repeat(4000), vec![]));
    h.push(Message::user("go on"));
    for _ in 0..40 {
        h.push(Message::assistant("sure", vec![]));
        h.push(Message::user("go on"));
    }
    let f = facts(&h, s.policy2());
    let mut kept = Gate::default();
    let mut seen = Vec::new();
    for n in 1..=h.len() {
        let e = kept.eligible(&h[..n], &f[..n], &s, |i| tokens_at(&h, &f, i));
        let fresh = Gate::default().eligible(&h[..n], &f[..n], &s, |i| tokens_at(&h, &f, i));
        assert_eq!(e, fresh, "n = {n}");
        seen.push(e);
    }
    seen.dedup();
    assert_eq!(seen, [0, 56, 64, 72, 80]);
}

fn with_rule(mut s: GovSettings, gate: GateRule) -> GovSettings {
    s.policy2.gate = gate;
    s
}

#[test]
fn the_bank_prices_each_request_as_the_replay_does() {
    // U, A, T, A, T, A: 10 tokens each as off sends them, the result at 2 sent as 20 of its 100.
    let h = vec![
        Message::user("go"),
        Message::assistant("a", vec![]),
        Message::tool("c1", "r", false),
        Message::assistant("a", vec![]),
        Message::tool("c2", "r", false),
        Message::assistant("a", vec![]),
    ];
    let sent = |i: usize| if i == 2 { (100, 20) } else { (10, 10) };
    let mut bank = Bank::default();
    // Request 1 sends message 0 (both write 10); request 2 sends 0..3 (reads 10, writes 110 and 30:
    // 137.5 − 37.5 = 100); request 3 sends 0..5 (reads 120 and 40, writes 20: 12 − 4 = 8).
    bank.account(&h, 6, &[], &sent);
    assert!((bank.saved - 108.0).abs() < 1e-9, "{}", bank.saved);
    assert_eq!(bank.previous_sent, Some(5));
    // A rewrite from message 2 owed 50: the next request reads only 0..2 of the governed stream.
    let mut h = h;
    h.extend([
        Message::tool("c3", "r", false),
        Message::assistant("a", vec![]),
    ]);
    bank.owed = 50.0;
    bank.first_changed = Some(2);
    bank.governed.truncate(3);
    // off: 0.1 × 140 + 1.25 × 20 = 39; governed: 0.1 × 20 + 1.25 × 60 (messages 2..7) = 77.
    bank.account(&h, 8, &[], &sent);
    assert!(
        (bank.saved - (108.0 + 39.0 - 77.0)).abs() < 1e-9,
        "{}",
        bank.saved
    );
    assert_eq!(
        (bank.owed, bank.first_changed, bank.previous_sent),
        (0.0, None, Some(7))
    );
}

#[test]
fn the_bank_lends_nothing_so_a_first_rewrite_without_savings_waits() {
    // The history of the break-even test: nothing is spilled, so nothing is banked, and the
    // rewrite's bound 1.15 × 1,530 − 0.1 × 494 = 1,710.1 is never covered; the expected-saving rule
    // takes it from chat = 29 (above), either bank rule never.
    for c in [1, 29, 39] {
        let h = history(c, 5);
        for gate in [GateRule::Bank, GateRule::ExpectedBank] {
            let s = with_rule(settings(2, h.len() as u32), gate);
            let f = facts(&h, s.policy2());
            let mut g = Gate::default();
            assert_eq!(g.eligible(&h, &f, &s, |i| tokens_at(&h, &f, i)), 0);
            assert_eq!(g.bank.saved, 0.0);
        }
    }
}

/// A 4,400-character output spilled at entry (1,100 tokens sent as 238), the read and the edit,
/// one 4,000-character answer and short exchanges.
fn spilled_then_superseded() -> Vec<Message> {
    let mut h = vec![Message::user("go")];
    h.push(crate::testkit::shell_call("s1", "python run.py"));
    h.push(Message::tool("s1", "z".repeat(4400), false));
    h.extend(history(0, 0).into_iter().skip(1));
    h.push(Message::assistant("w".repeat(4000), vec![]));
    h.push(Message::user("go on"));
    for _ in 0..40 {
        h.push(Message::assistant("sure", vec![]));
        h.push(Message::user("go on"));
    }
    h
}

#[test]
fn the_banked_savings_of_a_spill_pay_for_a_rewrite_the_expected_rule_defers() {
    // Tokens: 1, 7, 1,100 (spilled: 862 saved), 4, 507, 4, 3, 1,000. Requests before boundary 8
    // at messages 1, 3, 5, 7: the spill saves 1.25 × 862 = 1,077.5 at request 2 and
    // 0.1 × 862 = 86.2 at requests 3 and 4: 1,249.9 banked. The read's elision (494 saved) rewrites
    // 13 + 4 + 3 + 1,000 = 1,020 tokens: bound 1.15 × 1,020 − 0.1 × 494 = 1,123.6, less the 1,000
    // tokens of message 7, which the next request writes anyway (the last request sent 0..7):
    // 1,123.6 − 1.15 × 1,000 = −26.4 owed (the rewrite's own request is cheaper than without it:
    // 1.25 × 20 − 0.1 × 514), taken at 8; the expected saving 0.1 × 494 × 4 = 197.6 < 1,173 defers
    // it (to 56, as before).
    let h = spilled_then_superseded();
    let mut seen = Vec::new();
    for gate in [GateRule::Expected, GateRule::Bank, GateRule::ExpectedBank] {
        let s = with_rule(settings(2, 8), gate);
        let f = facts(&h, s.policy2());
        let mut kept = Gate::default();
        let mut es = Vec::new();
        for n in 1..=h.len() {
            let e = kept.eligible(&h[..n], &f[..n], &s, |i| tokens_at(&h, &f, i));
            let mut fresh = Gate::default();
            assert_eq!(
                e,
                fresh.eligible(&h[..n], &f[..n], &s, |i| tokens_at(&h, &f, i))
            );
            assert!((kept.bank.saved - fresh.bank.saved).abs() < 1e-9, "n = {n}");
            if n == 8 && gate == GateRule::Bank {
                assert!(
                    (kept.bank.saved - 1249.9).abs() < 1e-9,
                    "{}",
                    kept.bank.saved
                );
                assert!((kept.bank.owed + 26.4).abs() < 1e-9, "{}", kept.bank.owed);
            }
            es.push(e);
        }
        es.dedup();
        seen.push(es);
    }
    assert_eq!(seen[0], [0, 56, 64, 72, 80, 88]);
    assert_eq!(seen[1], [0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88]);
    assert_eq!(seen[2], seen[0]);
}

/// Cumulative governed cost minus off's, after each request of the replay (§11.8).
fn lead(r: &crate::replay::Replay) -> Vec<f64> {
    let cost = |c: &crate::figures::Columns| -> Vec<f64> {
        c.input_tokens
            .iter()
            .zip(&c.cached_tokens)
            .map(|(i, k)| 0.1 * *k as f64 + 1.25 * (i - k) as f64)
            .collect()
    };
    let (o, g) = (cost(&r.per_request.off), cost(&r.per_request.governed));
    let mut sum = 0.0;
    o.iter()
        .zip(&g)
        .map(|(o, g)| {
            sum += g - o;
            sum
        })
        .collect()
}

#[test]
fn under_the_bank_governed_never_costs_more_than_off_up_to_any_request() {
    use crate::invariants::Sources;
    use crate::replay::{Prices, replay};
    let parts = crate::RequestParts::default();
    let src = Sources::default();
    // A short session whose one boundary comes at its last request: the expected-saving rule
    // rewrites 1,228 cached tokens there to save 494 (1.15 × 1,228 − 0.1 × 494 = 1,362.8 above
    // off); the bank has nothing to pay with and sends what off sends.
    let h = history(29, 5);
    let mut s = settings(2, h.len() as u32);
    s.mode = GovernorMode::Shadow;
    let r = replay(&s, "s", &h, &parts, &src, &[], Prices::default(), &[]);
    assert!(
        (r.governed.cost - r.off.cost - 1362.8).abs() < 1e-6,
        "{}",
        r.governed.cost - r.off.cost
    );
    let r = replay(
        &with_rule(s, GateRule::Bank),
        "s",
        &h,
        &parts,
        &src,
        &[],
        Prices::default(),
        &[],
    );
    assert_eq!(r.governed, r.off);
    // With the spill and the rewrite, every prefix of the session is at or below off.
    let h = spilled_then_superseded();
    for gate in [GateRule::Bank, GateRule::ExpectedBank] {
        let mut s = with_rule(settings(2, 8), gate);
        s.mode = GovernorMode::Shadow;
        let r = replay(&s, "s", &h, &parts, &src, &[], Prices::default(), &[]);
        let lead = lead(&r);
        assert_eq!(lead.len(), 45);
        assert!(lead.iter().all(|d| *d <= 1e-9), "{gate:?} {lead:?}");
        assert!(r.governed.cost < r.off.cost);
    }
}

fn with_start(mut s: GovSettings, start: GateStart) -> GovSettings {
    s.policy2.gate_start = start;
    s
}

/// The read of a.rs and its edit (messages 1–4), `talk` exchanges of 300-token answers, then a
/// read of b.rs and its edit (messages j..j+3, j = 5 + 2 × talk) and two short exchanges: two
/// `superseded_read` elisions of 494 tokens each, one early and one late.
fn early_and_late(talk: usize) -> Vec<Message> {
    let mut h = history(0, talk);
    h.push(Message::assistant(
        "",
        vec![Call::new("r2", "read_file", r#"{"path":"b.rs"}"#)],
    ));
    h.push(Message::tool(
        "r2",
        format!(r#"{{"path":"b.rs","text":"{}"}}"#, "y".repeat(2000)),
        false,
    ));
    h.push(Message::assistant(
        "",
        vec![Call::new("e2", "edit_file", r#"{"path":"b.rs"}"#)],
    ));
    h.push(Message::tool("e2", r#"{"ok":true}"#, false));
    for _ in 0..2 {
        h.push(Message::assistant("sure", vec![]));
        h.push(Message::user("go on"));
    }
    h
}

/// The messages the gate's decisions on P elide.
fn elided(g: &Gate, s: &GovSettings) -> Vec<usize> {
    g.on_eligible(s)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, st)| matches!(st, Step::Elide { .. }))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn the_best_start_takes_the_late_change_a_whole_boundary_cannot_pay_for() {
    // One boundary, the whole history (13 + 2 × talk messages, talk + 6 requests). Changes at 2
    // (a.rs) and at j + 1 = 6 + 2 × talk (b.rs), 494 tokens saved each. From j + 1 the rewrite
    // re-sends the stub 13, 4 + 3 (the edit) and 1 + 2 + 1 + 2: 26 tokens; from 2 it re-sends
    // 13 + 4 + 3 + 302 × talk + 4 + 26 = 50 + 302 × talk. Expected net gains:
    //   from 2:     0.1 × 988 × (talk + 6) − 1.15 × (50 + 302 × talk) = 535.3 − 248.5 × talk
    //   from j + 1: 0.1 × 494 × (talk + 6) − 1.15 × 26                = 266.5 + 49.4 × talk
    // talk 5: −707.2 and 513.5: the whole boundary is not taken, the best start takes b.rs alone.
    // talk 1: 286.8 and 315.9: both are taken, the best start still takes b.rs alone.
    // talk 0: 535.3 and 266.5: the best start is the first change, as the whole boundary.
    let mut got = Vec::new();
    for talk in [5, 1, 0] {
        let h = early_and_late(talk);
        for start in [GateStart::Whole, GateStart::Best] {
            let s = with_start(settings(2, h.len() as u32), start);
            let f = facts(&h, s.policy2());
            let mut g = Gate::default();
            let e = g.eligible(&h, &f, &s, |i| tokens_at(&h, &f, i));
            got.push((talk, start, e, elided(&g, &s)));
        }
    }
    use GateStart::{Best, Whole};
    assert_eq!(
        got,
        [
            (5, Whole, 0, vec![]),
            (5, Best, 23, vec![16]),
            (1, Whole, 15, vec![2, 8]),
            (1, Best, 15, vec![8]),
            (0, Whole, 13, vec![2, 6]),
            (0, Best, 13, vec![2, 6]),
        ]
    );
}

#[test]
fn a_change_before_the_best_start_waits_for_a_boundary_at_which_it_pays() {
    // talk 5 with boundaries every 23 messages, then exchanges of "sure" (1 token) and "go on"
    // (2). At 23 the best start takes b.rs alone (above). At b = 23 + L the one change left is
    // a.rs, re-sending 1,560 + ceil(L/2) + 2 × floor(L/2) tokens (b.rs's stub 13 among them) with
    // 11 + ceil(L/2) requests: at 46 0.1 × 494 × 23 − 1.15 × 1,594 = −696.9, at 69 1,679.6 −
    // 1,873.35 = −193.75, at 92 2,272.4 − 1,912.45 = 359.95: taken. The whole boundary waits for
    // 46 and takes both there (0.1 × 988 × 23 − 1.15 × 1,594 = 439.3), then 69 and 92 (no
    // change). A Gate kept across requests gives a fresh one's E and decisions.
    let mut h = early_and_late(5);
    for _ in 0..40 {
        h.push(Message::assistant("sure", vec![]));
        h.push(Message::user("go on"));
    }
    let mut got = Vec::new();
    for start in [GateStart::Whole, GateStart::Best] {
        let s = with_start(settings(2, 23), start);
        let f = facts(&h, s.policy2());
        let mut kept = Gate::default();
        let mut seen = Vec::new();
        for n in 1..=h.len() {
            let e = kept.eligible(&h[..n], &f[..n], &s, |i| tokens_at(&h, &f, i));
            let mut fresh = Gate::default();
            assert_eq!(
                e,
                fresh.eligible(&h[..n], &f[..n], &s, |i| tokens_at(&h, &f, i))
            );
            assert_eq!(elided(&kept, &s), elided(&fresh, &s), "n = {n}");
            if seen.last().is_none_or(|(x, _)| *x != e) {
                seen.push((e, elided(&kept, &s)));
            }
        }
        got.push(seen);
    }
    let both = || vec![2, 16];
    assert_eq!(
        got[0],
        [(0, vec![]), (46, both()), (69, both()), (92, both())]
    );
    assert_eq!(got[1], [(0, vec![]), (23, vec![16]), (92, both())]);
}

#[test]
fn a_full_report_and_the_session_cache_send_what_the_best_start_decided() {
    // talk 5, one boundary at 23 (above): only b.rs's read (message 16) is elided, in `govern`
    // and in a session's requests alike; the read of a.rs is sent whole.
    use crate::invariants::Sources;
    use crate::session::SessionGovernor;
    use crate::testkit::{request, turn};
    let h = early_and_late(5);
    let s = with_start(settings(2, 23), GateStart::Best);
    let (parts, src) = (crate::RequestParts::default(), Sources::default());
    let g = crate::govern(
        &s,
        request("s", &h, &parts, &src, None, crate::Ledger::None),
    );
    assert_eq!(g.elided, ["r2"]);
    let mut session = SessionGovernor::new();
    let mut stubs = Vec::new();
    for n in [21, 22, 23] {
        let sent = session.request(&s, turn("s", &h[..n], &parts, &src, n as u64, false));
        stubs.push(sent.stubs.iter().map(|(i, _)| *i).collect::<Vec<_>>());
    }
    assert_eq!(stubs, [vec![], vec![], vec![16]]);
}

#[test]
fn rent_or_buy_takes_a_start_once_the_saving_forgone_since_its_justification_covers_it() {
    // early_and_late(talk): a.rs's read is superseded by the edit at 4, with talk + 4 requests
    // after it; b.rs's by the edit at j + 3, with 2 after it. Rent already paid from b.rs on:
    // 0.1 × 494 × 2 = 98.8 ≥ 1.15 × 26 = 29.9; from a.rs on 49.4 × (talk + 4) + 98.8 =
    // 49.4 × (talk + 6) against 1.15 × (50 + 302 × talk): talk 0: 296.4 ≥ 57.5 (both, the start
    // with the larger expected gain, 535.3 against 266.5); talk 1: 345.8 < 404.8 (b.rs alone under
    // the best start, nothing as a whole boundary); talk 5: 543.4 < 1,794.
    let mut got = Vec::new();
    for talk in [0, 1, 5] {
        let h = early_and_late(talk);
        for start in [GateStart::Whole, GateStart::Best] {
            let s = with_start(
                with_rule(settings(2, h.len() as u32), GateRule::Rent),
                start,
            );
            let f = facts(&h, s.policy2());
            let mut g = Gate::default();
            let e = g.eligible(&h, &f, &s, |i| tokens_at(&h, &f, i));
            got.push((talk, start, e, elided(&g, &s)));
        }
    }
    use GateStart::{Best, Whole};
    assert_eq!(
        got,
        [
            (0, Whole, 13, vec![2, 6]),
            (0, Best, 13, vec![2, 6]),
            (1, Whole, 0, vec![]),
            (1, Best, 15, vec![8]),
            (5, Whole, 0, vec![]),
            (5, Best, 23, vec![16]),
        ]
    );
}

/// A request that found the provider's cache cold (spec/governor.md §2.7, "Cold requests") takes
/// every change pending at the last boundary checked, at no price: the short session's boundary
/// (deferred: 1.15 × 1,530 > 0.1 × 494 × 9) is taken by a cold request sending its whole history,
/// and not by one that comes before it; a kept gate equals a fresh one with the same cold list.
#[test]
fn a_cold_request_takes_the_changes_a_boundary_deferred_at_no_price() {
    let h = history(1, 5);
    let n = h.len();
    let s = settings(2, n as u32);
    let f = facts(&h, s.policy2());
    let read = h
        .iter()
        .position(|m| matches!(m, Message::Tool(r) if r.call_id == "r1"))
        .unwrap();
    for (cold, want) in [(vec![], 0), (vec![n], n), (vec![n - 2], 0)] {
        let mut g = Gate::default();
        g.set_cold(&cold);
        assert_eq!(g.eligible(&h, &f, &s, |i| tokens_at(&h, &f, i)), want);
        let elided = g
            .on_eligible(&s)
            .is_some_and(|steps| matches!(steps.get(read), Some(Step::Elide { .. })));
        assert_eq!(elided, want == n, "cold at {cold:?}");
    }
    // Request by request, with the cold request known only when it comes.
    let mut kept = Gate::default();
    let mut generations = Vec::new();
    for k in 1..=n {
        if k == n {
            kept.set_cold(&[n]);
        }
        let e = kept.eligible(&h[..k], &f[..k], &s, |i| tokens_at(&h, &f, i));
        let mut fresh = Gate::default();
        let cold = if k == n { vec![n] } else { Vec::new() };
        fresh.set_cold(&cold);
        assert_eq!(
            e,
            fresh.eligible(&h[..k], &f[..k], &s, |i| tokens_at(&h, &f, i))
        );
        generations.push(kept.generation());
    }
    assert_eq!(generations.last(), Some(&1));
    assert!(generations[..n - 1].iter().all(|g| *g == 0));
}

/// The short session (its one boundary, at its end, deferred), then one more exchange and an
/// answer: the history and the boundary's message count.
fn short_then_answered() -> (Vec<Message>, usize) {
    let mut h = history(1, 5);
    let n0 = h.len();
    h.push(Message::assistant("x".repeat(1200), vec![]));
    h.push(Message::user("go on"));
    h.push(Message::assistant("done", vec![]));
    (h, n0)
}

#[test]
fn the_replay_sends_the_cold_rewrite_uncached_and_keeps_it() {
    use crate::invariants::Sources;
    use crate::replay::{Prices, replay};
    let parts = crate::RequestParts::default();
    let src = Sources::default();
    // The short session, an exchange longer: the boundary is at message n0 (deferred); the
    // request before the last assistant message sends n0 + 1 messages and found the cache cold.
    let (h, n0) = short_then_answered();
    let mut s = settings(2, n0 as u32);
    s.mode = GovernorMode::Shadow;
    let cold_at = h.len() - 1;
    let warm = replay(&s, "s", &h, &parts, &src, &[], Prices::default(), &[]);
    let cold = replay(
        &s,
        "s",
        &h,
        &parts,
        &src,
        &[],
        Prices::default(),
        &[cold_at],
    );
    let r = warm.requests as usize;
    // Requests: one per assistant message, then the final one; the cold one is the last but one.
    let at = r - 2;
    let (w, c) = (&warm.per_request, &cold.per_request);
    assert_eq!(w.off.input_tokens, c.off.input_tokens);
    assert_eq!(
        (c.off.cached_tokens[at], c.governed.cached_tokens[at]),
        (0, 0)
    );
    // Warm, the boundary stays deferred; cold, the read is elided there and stays elided.
    assert_eq!(w.governed.input_tokens, w.off.input_tokens);
    assert_eq!(
        w.off.input_tokens[at] - c.governed.input_tokens[at],
        494,
        "the read's 507 tokens sent as a 13-token stub"
    );
    assert_eq!(
        w.off.input_tokens[at + 1] - c.governed.input_tokens[at + 1],
        494
    );
    assert_eq!(
        c.governed.cached_tokens[at + 1],
        c.governed.input_tokens[at]
    );
    assert_eq!(cold.governed.cache_breaks, 0);
}

/// A session's governor marks its cold request in the event (`cacheCold`), and a later process
/// that restores the session's cold requests sends what the session sent (the free rewrite stays
/// taken) where a fresh one would send the read again and break the cache; a rewritten history
/// (a compaction) forgets them.
#[test]
fn a_restored_cold_request_keeps_its_free_rewrite_and_a_compaction_forgets_it() {
    use crate::invariants::Sources;
    use crate::session::SessionGovernor;
    use crate::testkit::turn;
    let parts = crate::RequestParts::default();
    let src = Sources::default();
    let h0 = history(1, 5);
    let n0 = h0.len();
    let mut h = h0;
    for _ in 0..3 {
        h.push(Message::assistant("x".repeat(1200), vec![]));
        h.push(Message::user("go on"));
    }
    let s = settings(2, n0 as u32);
    let ends: Vec<usize> = (0..h.len()).filter(|i| h[*i].is_assistant()).collect();
    let cold_at = ends[ends.iter().position(|e| *e > n0).unwrap()];
    let mut live = SessionGovernor::new();
    let mut flags = Vec::new();
    let mut last = Vec::new();
    for (k, end) in ends.iter().copied().enumerate() {
        if end == cold_at {
            live.cache_cold();
        }
        let sent = live.request(&s, turn("s", &h[..end], &parts, &src, k as u64 + 1, false));
        flags.push(sent.event.as_ref().is_some_and(|e| e.cache_cold));
        last = sent.stubs;
    }
    assert_eq!(flags.iter().filter(|f| **f).count(), 1);
    assert!(
        last.iter()
            .any(|(_, stub)| stub.starts_with("[elided: read_file")),
        "{last:?}"
    );
    let end = *ends.last().unwrap();
    let request = |g: &mut SessionGovernor| {
        g.request(&s, turn("s", &h[..end], &parts, &src, 1, false))
            .stubs
    };
    let mut restored = SessionGovernor::new();
    restored.restore_cold(vec![cold_at]);
    assert_eq!(request(&mut restored), last);
    assert!(request(&mut SessionGovernor::new()).is_empty());
    // A compaction rewrites the history: the cold request no longer indexes it.
    let compacted = vec![Message::checkpoint("summary"), Message::user("go on")];
    let _ = live.request(&s, turn("s", &compacted, &parts, &src, 1, false));
    let mut longer = compacted.clone();
    longer.extend(h[1..end].iter().cloned());
    let again = live.request(&s, turn("s", &longer, &parts, &src, 2, false));
    let mut fresh = SessionGovernor::new();
    let _ = fresh.request(&s, turn("s", &compacted, &parts, &src, 1, false));
    assert_eq!(
        again.stubs,
        fresh
            .request(&s, turn("s", &longer, &parts, &src, 2, false))
            .stubs
    );
}

/// `governor analyze --events` and the report take the recorded cold requests as the replay
/// does (spec/governor.md §11.8): Σ of the events' `tokensAfter` is the replay's governed input
/// (in shadow), and the report of the final request shows the free rewrite.
#[test]
fn the_events_and_the_report_see_the_cold_request_the_replay_sees() {
    use crate::audit::cache::ReportedUsage;
    use crate::readers::Session;
    use crate::recorded::{RecordedRequest, cold_answers};
    use crate::replay::{Prices, replay};
    use crate::{Ledger, Request, govern_with_cold};
    let (h, n0) = short_then_answered();
    let mut s = settings(2, n0 as u32);
    s.mode = GovernorMode::Shadow;
    let answers: Vec<usize> = (0..h.len()).filter(|i| h[*i].is_assistant()).collect();
    let cold_at = h.len() - 1;
    // Every answer read the whole previous prompt from cache, but the last read nothing.
    let recorded: Vec<RecordedRequest> = answers
        .iter()
        .map(|&a| RecordedRequest {
            message: a,
            cache_reported: true,
            usage: ReportedUsage {
                input: 10,
                cache_write: 100,
                cache_read: if a == cold_at { 0 } else { 1000 },
                output: 5,
            },
        })
        .collect();
    assert_eq!(cold_answers(&recorded), vec![cold_at]);
    let session = Session {
        history: h.clone(),
        recorded,
        ..Session::default()
    };
    let cold = cold_answers(&session.recorded);
    let r = replay(
        &s,
        "s",
        &h,
        &session.parts,
        &session.sources,
        &[],
        Prices::default(),
        &cold,
    );
    let events = crate::series::replay(&s, &session);
    let after: u64 = events.iter().map(|e| e.tokens_after).sum();
    assert_eq!(after, r.governed.input_tokens);
    assert_eq!(events.iter().filter(|e| e.cache_cold).count(), 1);
    let report = |cold: &[usize]| {
        let g = govern_with_cold(
            &s,
            Request {
                session_id: "s",
                history: &h,
                parts: &session.parts,
                sources: &session.sources,
                request: None,
                ledger: Ledger::All,
            },
            cold,
        );
        g.report.to_json()["totals"]["elided"].clone()
    };
    assert_eq!((report(&cold), report(&[])), (1.into(), 0.into()));
}
