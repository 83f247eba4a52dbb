//! Tests of the cache gate (spec/governor.md §2.7).

use super::*;
use crate::model::{Call, Message};
use crate::policy2::Policy2;
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
        p2: Policy2 {
            threshold_chars: 4000,
            head_chars: 400,
            tail_chars: 400,
            min_chars: 100,
            keep_recent: 5,
            keep_denials: 1,
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
