//! The cache-aware replay figures (spec/governor.md §11.8) as plain data: the `replay` object of a
//! ContextReport. Computed by `replay.rs`.

use serde::Serialize;

/// The figures of one stream of requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    pub input_tokens: u64,
    pub cached_tokens: u64,
    pub cost: f64,
    pub cache_breaks: u64,
}

/// A masking baseline's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    pub name: String,
    #[serde(flatten)]
    pub figures: Figures,
}

/// `replay` of a session's report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    pub requests: u64,
    pub off: Figures,
    pub governed: Figures,
    pub baselines: Vec<Baseline>,
}
