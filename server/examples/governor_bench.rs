//! Benchmark: the cost of governing request N+1 after request N on a 10,000-message history
//! (incremental `SessionGovernor`) against governing it from scratch. Prints ratios; run with
//! `cargo run --release --example governor_bench` (bench/governor.sh does).
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use alisio_ls::config::GovernorMode;
use alisio_ls::governor::invariants::Sources;
use alisio_ls::governor::model::{Call, Message};
use alisio_ls::governor::{
    GovSettings, Ledger, Request, RequestParts, SessionGovernor, Turn, govern,
};

fn history(n: usize) -> Vec<Message> {
    let mut h = vec![Message::user("start")];
    let mut k = 0;
    while h.len() < n {
        let id = format!("c{k}");
        let path = format!("src/f{}.rs", k % 50);
        let (call, result) = match k % 4 {
            0 | 1 => (
                Call::new(&id, "read_file", format!(r#"{{"path":"{path}"}}"#)),
                Message::tool(
                    &id,
                    format!(
                        r#"{{"sha256":"{:064x}","content":"{}"}}"#,
                        k % 7,
                        "x".repeat(2000)
                    ),
                    false,
                ),
            ),
            2 => (
                Call::new(&id, "edit_file", format!(r#"{{"path":"{path}"}}"#)),
                Message::tool(&id, r#"{"ok":true}"#, false),
            ),
            _ => (
                Call::new(&id, "search_text", r#"{"pattern":"TODO"}"#),
                Message::tool(
                    &id,
                    r#"{"stdout":"a:1:TODO\n","stderr":"","exitCode":0}"#,
                    false,
                ),
            ),
        };
        h.push(Message::assistant("step", vec![call]));
        h.push(result);
        k += 1;
    }
    h.truncate(n);
    h
}

fn time<F: FnMut()>(reps: u32, mut f: F) -> Duration {
    let start = Instant::now();
    for _ in 0..reps {
        f();
    }
    start.elapsed() / reps
}

fn main() {
    let h = history(10_064);
    let parts = RequestParts::default();
    let src = Sources::default();
    for mode in [GovernorMode::Shadow, GovernorMode::On] {
        let s = GovSettings {
            mode,
            ..GovSettings::default()
        };
        let turn = |n: usize, r: u64| Turn {
            session_id: "s",
            history: &h[..n],
            parts: &parts,
            sources: &src,
            request: r,
            recovery: false,
        };
        // From scratch: a fresh session governor on 10,001 messages, and the full report path.
        let scratch = time(20, || {
            let mut g = SessionGovernor::new();
            std::hint::black_box(g.request(&s, turn(10_001, 1)));
        });
        let report = time(10, || {
            std::hint::black_box(govern(
                &s,
                Request {
                    session_id: "s",
                    history: &h[..10_001],
                    parts: &parts,
                    sources: &src,
                    request: None,
                    ledger: Ledger::All,
                },
            ));
        });
        // Incremental: request N+1 after request N, no epoch boundary (E stays 9,984 for n in 10,001..10,015).
        let mut g = SessionGovernor::new();
        g.request(&s, turn(10_000, 1));
        let start = Instant::now();
        for n in 10_001..10_016 {
            std::hint::black_box(g.request(&s, turn(n, 2)));
        }
        let incremental = start.elapsed() / 15;
        // Amortized over a full epoch, boundary included (n = 10,016 crosses to E = 10,016).
        let mut g = SessionGovernor::new();
        g.request(&s, turn(10_000, 1));
        let start = Instant::now();
        for n in 10_001..10_033 {
            std::hint::black_box(g.request(&s, turn(n, 2)));
        }
        let amortized = start.elapsed() / 32;
        println!(
            "{:<6} scratch {:>9.3} ms | full report {:>9.3} ms | incremental N+1 {:>8.3} ms ({:.2}% of scratch) | amortized over an epoch {:>8.3} ms ({:.2}%)",
            mode.as_str(),
            scratch.as_secs_f64() * 1e3,
            report.as_secs_f64() * 1e3,
            incremental.as_secs_f64() * 1e3,
            100.0 * incremental.as_secs_f64() / scratch.as_secs_f64(),
            amortized.as_secs_f64() * 1e3,
            100.0 * amortized.as_secs_f64() / scratch.as_secs_f64(),
        );
    }
}
