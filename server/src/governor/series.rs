//! The figures a chart of a replay draws (`governor analyze --html`): per request, the input
//! tokens of each mode. Every series comes from [`chart`], so a new figure (the cache-aware
//! replay's baselines and cached parts, spec/governor.md §11) is added in one place.
//!
//! Today's series, from the per-request `context_governed` payloads of the replay: `off` (the
//! history as the agent sent it, `tokensBefore`) and `governed` (the projected history,
//! `tokensAfter`). The cached part of each request is not known yet (`cached` is `None`). A
//! replay estimates what the governor saves; it cannot show how a model reacts to a stub.

use super::events::ContextGoverned;
use super::readers::Session;
use super::{GovSettings, SessionGovernor, Turn};

/// One line of the chart: a mode's input tokens per request, with the cached part if known.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Series {
    pub mode: &'static str,
    pub label: &'static str,
    pub tokens: Vec<u64>,
    pub cached: Vec<Option<u64>>,
}

/// The chart of one session: request numbers (x) and one series per mode (y).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Chart {
    pub requests: Vec<u64>,
    pub series: Vec<Series>,
}

/// The per-request payloads of a replay: one per assistant message (the request that produced
/// it), then the final one; `governor analyze --events` prints these. Empty in mode off.
#[must_use]
pub fn replay(settings: &GovSettings, s: &Session) -> Vec<ContextGoverned> {
    let mut gov = SessionGovernor::new();
    let ends = s
        .history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_assistant())
        .map(|(i, _)| i)
        .chain([s.history.len()]);
    let mut out = Vec::new();
    for (k, end) in ends.enumerate() {
        let turn = Turn {
            session_id: &s.source.session,
            history: &s.history[..end],
            parts: &s.parts,
            sources: &s.sources,
            request: k as u64 + 1,
            recovery: false,
        };
        if let Some(ev) = gov.request(settings, turn).event {
            out.push(ev);
        }
    }
    out
}

/// The series of a session's chart, from its per-request payloads: the one function every
/// series comes from.
#[must_use]
pub fn chart(events: &[ContextGoverned]) -> Chart {
    let series = |mode, label, f: fn(&ContextGoverned) -> u64| Series {
        mode,
        label,
        tokens: events.iter().map(f).collect(),
        cached: vec![None; events.len()],
    };
    Chart {
        requests: events.iter().map(|e| e.request).collect(),
        series: vec![
            series("off", "off (as sent)", |e| e.tokens_before),
            series("governed", "governed", |e| e.tokens_after),
        ],
    }
}
