use super::*;
use crate::testkit::{shell_call as bash, turn};
use alisio_base::config::GovernorMode;

const P: Prices = Prices {
    read: 0.1,
    write: 1.25,
};

fn sums(tokens: &[u64]) -> Vec<u64> {
    let mut v = vec![0];
    for t in tokens {
        v.push(v.last().copied().unwrap_or(0) + t);
    }
    v
}

#[test]
fn an_append_only_stream_caches_the_whole_previous_request() {
    let base = sums(&[100, 10, 20, 30, 40]);
    let mut s = Stream::default();
    s.push(P, &base, 2, Vec::new(), None, false);
    s.push(P, &base, 4, Vec::new(), None, false);
    s.push(P, &base, 5, Vec::new(), None, false);
    assert_eq!(s.figures.input_tokens, 110 + 160 + 200);
    assert_eq!(s.figures.cached_tokens, 110 + 160);
    assert_eq!(s.figures.cache_breaks, 0);
    let cost = 1.25 * 110.0 + (0.1 * 110.0 + 1.25 * 50.0) + (0.1 * 160.0 + 1.25 * 40.0);
    assert!((s.figures.cost - cost).abs() < 1e-9);
}

#[test]
fn a_replaced_message_breaks_the_cache_from_its_position() {
    let base = sums(&[100, 10, 20, 30, 40]);
    let mut s = Stream::default();
    s.push(P, &base, 4, Vec::new(), None, false);
    // Position 2 (20 tokens) becomes a 5-token stub.
    s.push(P, &base, 5, vec![(2, 5, 7)], None, false);
    assert_eq!(s.figures.input_tokens, 160 + 185);
    assert_eq!(s.figures.cached_tokens, 110);
    assert_eq!(s.figures.cache_breaks, 1);
    // The same stub again: append-only, no break.
    s.push(P, &base, 5, vec![(2, 5, 7)], None, false);
    assert_eq!(s.figures.cached_tokens, 110 + 185);
    assert_eq!(s.figures.cache_breaks, 1);
    // A different stub text at the same position is a break too.
    s.push(P, &base, 5, vec![(2, 5, 8)], None, false);
    assert_eq!(s.figures.cached_tokens, 110 + 185 + 110);
    assert_eq!(s.figures.cache_breaks, 2);
}

#[test]
fn a_trailing_block_and_a_reset_are_not_cached() {
    let base = sums(&[100, 10, 20]);
    let mut s = Stream::default();
    s.push(P, &base, 2, Vec::new(), Some((9, 1)), false);
    assert_eq!(s.figures.input_tokens, 119);
    s.push(P, &base, 3, Vec::new(), Some((9, 1)), false);
    // The previous block sat where a message is now: cached up to it, a break.
    assert_eq!(s.figures.cached_tokens, 110);
    assert_eq!(s.figures.cache_breaks, 1);
    s.push(P, &base, 3, Vec::new(), None, true);
    assert_eq!(s.figures.cached_tokens, 110);
}

#[test]
fn the_replay_sums_equal_the_events_and_masking_is_recomputed_every_request() {
    let mut h = vec![Message::user("fix it")];
    for k in 0..12 {
        let id = format!("c{k}");
        h.push(bash(&id, &format!("python step{k}.py")));
        h.push(Message::tool(
            &id,
            // 4,804 characters: over the default spill threshold (4,000).
            format!("{}\n", "out ".repeat(300)).repeat(4),
            false,
        ));
    }
    h.push(Message::assistant("done", vec![]));
    let s = GovSettings {
        mode: GovernorMode::Shadow,
        epoch_messages: 8,
        ..GovSettings::default()
    };
    let parts = RequestParts {
        system: Some("sys".repeat(100)),
        ..RequestParts::default()
    };
    let src = Sources::default();
    let r = replay(&s, "s", &h, &parts, &src, &[2], Prices::default(), &[]);
    assert_eq!(r.requests, 14);
    // Σ tokensBefore / tokensAfter of the events of the same replay.
    let mut gov = SessionGovernor::new();
    let (mut before, mut after) = (0, 0);
    let ends: Vec<usize> = h
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_assistant())
        .map(|(i, _)| i)
        .chain([h.len()])
        .collect();
    for (k, end) in ends.into_iter().enumerate() {
        let ev = gov
            .request(&s, turn("s", &h[..end], &parts, &src, k as u64 + 1, false))
            .event
            .expect("shadow emits");
        before += ev.tokens_before;
        after += ev.tokens_after;
    }
    assert_eq!(r.off.input_tokens, before);
    assert_eq!(r.governed.input_tokens, after);
    assert!(r.governed.input_tokens < r.off.input_tokens);
    assert_eq!(r.off.cache_breaks, 0);
    assert_eq!(r.off.cached_tokens + (before - r.off.cached_tokens), before);
    // mask:2: every request after the third result masks one more result: a break each time.
    assert_eq!(r.baselines[0].name, "mask:2");
    assert_eq!(r.baselines[0].figures.cache_breaks, 10);
    assert!(r.governed.cost < r.off.cost);
    assert!(r.governed.cache_breaks < r.baselines[0].figures.cache_breaks);
    assert_eq!(mask_stub(4), "Old environment output: (4 lines omitted)");
}

/// A request the transcript recorded as answered from a cold cache (spec/governor.md §11.8)
/// starts every stream from an empty cache; the other requests are unchanged, and `off` pays
/// exactly (write − read) × what it would have read.
#[test]
fn a_recorded_cold_request_starts_every_stream_from_an_empty_cache() {
    let mut h = vec![Message::user("fix it")];
    for k in 0..4 {
        let id = format!("c{k}");
        h.push(bash(&id, &format!("python step{k}.py")));
        h.push(Message::tool(&id, "out\n".repeat(50), false));
    }
    h.push(Message::assistant("done", vec![]));
    let s = GovSettings {
        mode: GovernorMode::Shadow,
        ..GovSettings::default()
    };
    let (parts, src) = (RequestParts::default(), Sources::default());
    let warm = replay(&s, "s", &h, &parts, &src, &[1], P, &[]);
    // The third call (message 5) was answered from a cold cache: request 3 (index 2).
    let cold = replay(&s, "s", &h, &parts, &src, &[1], P, &[5]);
    let streams = |r: &Replay| {
        vec![
            r.per_request.off.clone(),
            r.per_request.governed.clone(),
            r.per_request.baselines[0].clone(),
        ]
    };
    for (w, c) in streams(&warm).iter().zip(streams(&cold)) {
        assert_eq!(w.input_tokens, c.input_tokens);
        assert!(w.cached_tokens[2] > 0);
        assert_eq!(c.cached_tokens[2], 0);
        for r in [0, 1, 3, 4] {
            assert_eq!(w.cached_tokens[r], c.cached_tokens[r], "request {}", r + 1);
        }
    }
    let lost = warm.per_request.off.cached_tokens[2] as f64;
    assert!((cold.off.cost - warm.off.cost - (P.write - P.read) * lost).abs() < 1e-9);
    assert_eq!((warm.off.cache_breaks, cold.off.cache_breaks), (0, 0));
    // A cold index that is no answer (the final request has none) changes nothing.
    assert_eq!(
        replay(&s, "s", &h, &parts, &src, &[1], P, &[h.len()]).per_request,
        warm.per_request
    );
}
