//! The figures a chart of a replay draws (`governor analyze --html`, the VS Code Context Report
//! view): per request, the input tokens of each stream of the cache-aware replay
//! (spec/governor.md §11.8) with its cached part. Every series comes from [`chart`], over the
//! replay's own per-request columns (`replay.perRequest`), so the chart and the `replay` figures
//! of `--json` are the same numbers: `off` (the history as the agent sent it), `governed` (the
//! projection `on` would send) and each `mask:N` baseline. A replay estimates what the governor
//! saves; it cannot show how a model reacts to a stub.

use super::events::ContextGoverned;
use super::figures::{Columns, Replay};
use super::readers::Session;
use super::{GovSettings, SessionGovernor, Turn};

/// One line of the chart: a stream's input tokens per request and the cached part of each.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Series {
    pub mode: String,
    pub label: String,
    pub tokens: Vec<u64>,
    pub cached: Vec<u64>,
    /// The recovery model's tokens per request (spec/governor.md §11.10; a model, not measured):
    /// the chart shades them above the line. Absent for `off` and without a recovery model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Vec<u64>>,
}

/// The chart of one session: request numbers (x) and one series per stream (y).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Chart {
    pub requests: Vec<u64>,
    pub series: Vec<Series>,
}

/// The per-request payloads of a replay: one per assistant message (the request that produced
/// it), then the final one; `governor analyze --events` prints these. Empty in mode off.
#[must_use]
pub fn replay(settings: &GovSettings, s: &Session) -> Vec<ContextGoverned> {
    let mut gov = SessionGovernor::new();
    let cold = crate::recorded::cold_answers(&s.recorded);
    let ends = s
        .history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_assistant())
        .map(|(i, _)| i)
        .chain([s.history.len()]);
    let mut out = Vec::new();
    for (k, end) in ends.enumerate() {
        if end < s.history.len() && cold.binary_search(&end).is_ok() {
            gov.cache_cold();
        }
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

/// The chart of a session's replay: one series per stream, in the order `off`, `governed`, then
/// the baselines as given. The one function every series comes from.
#[must_use]
pub fn chart(rp: &Replay) -> Chart {
    let series = |mode: &str, label: &str, c: &Columns, rec: Option<&Vec<u64>>| Series {
        mode: mode.to_owned(),
        label: label.to_owned(),
        tokens: c.input_tokens.clone(),
        cached: c.cached_tokens.clone(),
        recovery: rec.cloned(),
    };
    let p = &rp.per_request;
    let rec = rp.recovery.as_ref();
    let mut out = vec![
        series("off", "off (as sent)", &p.off, None),
        series(
            "governed",
            "governed",
            &p.governed,
            rec.map(|r| &r.governed.per_request),
        ),
    ];
    for (k, (b, c)) in rp.baselines.iter().zip(&p.baselines).enumerate() {
        let r = rec.and_then(|r| r.baselines.get(k)).map(|r| &r.per_request);
        out.push(series(&b.name, &b.name, c, r));
    }
    Chart {
        requests: (1..=rp.requests).collect(),
        series: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{Baseline, Figures, PerRequest};

    #[test]
    fn the_chart_is_the_replays_columns_one_series_per_stream() {
        let col = |i: &[u64], c: &[u64]| Columns {
            input_tokens: i.to_vec(),
            cached_tokens: c.to_vec(),
        };
        let rp = Replay {
            requests: 2,
            off: Figures::default(),
            governed: Figures::default(),
            baselines: vec![Baseline {
                name: "mask:3".into(),
                figures: Figures::default(),
            }],
            per_request: PerRequest {
                off: col(&[100, 160], &[0, 100]),
                governed: col(&[100, 120], &[0, 90]),
                baselines: vec![col(&[100, 130], &[0, 80])],
            },
            recovery: None,
            recorded: None,
        };
        let c = chart(&rp);
        assert_eq!(c.requests, [1, 2]);
        let modes: Vec<&str> = c.series.iter().map(|s| s.mode.as_str()).collect();
        assert_eq!(modes, ["off", "governed", "mask:3"]);
        assert_eq!(c.series[1].tokens, [100, 120]);
        assert_eq!(c.series[1].cached, [0, 90]);
        assert_eq!(c.series[2].label, "mask:3");
        assert_eq!(c.series[2].cached, [0, 80]);
        assert!(c.series.iter().all(|s| s.recovery.is_none()));
    }

    #[test]
    fn the_recovery_columns_are_the_replays_own() {
        let mut rp = Replay {
            requests: 2,
            baselines: vec![Baseline {
                name: "mask:3".into(),
                figures: Figures::default(),
            }],
            per_request: PerRequest {
                baselines: vec![Columns::default()],
                ..PerRequest::default()
            },
            ..Replay::default()
        };
        let rec = |name: &str, per: &[u64]| crate::recovery::StreamRecovery {
            name: name.into(),
            per_request: per.to_vec(),
            ..Default::default()
        };
        rp.recovery = Some(crate::recovery::Recovery {
            model: crate::recovery::MODEL.into(),
            governed: rec("governed", &[0, 70]),
            baselines: vec![rec("mask:3", &[5, 9])],
        });
        let c = chart(&rp);
        assert_eq!(c.series[0].recovery, None);
        assert_eq!(c.series[1].recovery.as_deref(), Some(&[0, 70][..]));
        assert_eq!(c.series[2].recovery.as_deref(), Some(&[5, 9][..]));
    }
}
