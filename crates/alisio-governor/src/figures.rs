//! The cache-aware replay figures (spec/governor.md §11.8) as plain data: the `replay` object of a
//! ContextReport. Computed by `replay.rs`.

use serde::{Deserialize, Serialize};

/// Prices relative to uncached input: a cache read and a cache write (spec/governor.md §11.8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prices {
    pub read: f64,
    pub write: f64,
}

impl Default for Prices {
    fn default() -> Self {
        Self {
            read: 0.1,
            write: 1.25,
        }
    }
}

/// The figures of one stream of requests (or of one request: `cacheBreaks` 0 or 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
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

/// One stream's figures request by request (index r−1 is request r): what a chart draws.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Columns {
    pub input_tokens: Vec<u64>,
    pub cached_tokens: Vec<u64>,
}

/// `replay.perRequest`: the columns of `off`, `governed` and each baseline (in the order of
/// `baselines`); their sums are the streams' `inputTokens` and `cachedTokens`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PerRequest {
    pub off: Columns,
    pub governed: Columns,
    pub baselines: Vec<Columns>,
}

/// `replay` of a session's report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    pub requests: u64,
    pub off: Figures,
    pub governed: Figures,
    pub baselines: Vec<Baseline>,
    pub per_request: PerRequest,
    /// The recovery model (spec/governor.md §11.10; a model, not measured behaviour): absent in a
    /// live session's report, whose recoveries are real `result_read` requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<super::recovery::Recovery>,
    /// The recorded bill (spec/governor.md §11.11): the provider's reported usage of the same
    /// requests, when the transcript records it (set by `governor analyze`, `recorded::bill`) or
    /// the live session's turns carry it (set by the session's report, `recorded::live_bill`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Recorded>,
}

/// `replay.recorded` (spec/governor.md §11.11).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    /// The replayed requests whose usage the transcript records.
    pub requests: u64,
    /// Σ over them of the input tokens the provider reported (uncached, cache writes, cache reads).
    pub input_tokens: u64,
    /// Σ of the cache reads among them.
    pub cached_tokens: u64,
    /// Their input priced as the replay prices (§11.8): cache reads at `cacheRead`, every other
    /// input token at `cacheWrite`.
    pub cost: f64,
    /// The replay's `off` and `governed` costs over the same requests.
    pub off_cost: f64,
    pub governed_cost: f64,
    /// The governed stream's modelled recovery cost (§11.10), all of it.
    pub recovery_cost: f64,
    /// offCost − governedCost − recoveryCost: what governing would have saved of the bill.
    pub saved: f64,
    /// The replay's cost of the stream each request really sent (`offCost` for a transcript; a
    /// live request's `governed` in `on`, `off` in `shadow`): the part of the bill the replay sees.
    #[serde(default)]
    pub sent_cost: f64,
    /// Of `requests`, those of a live session with no replay of their own (compaction summaries),
    /// and their cost: in `cost`, and in `offBill` (`off` is taken to have paid them too).
    #[serde(default)]
    pub other_requests: u64,
    #[serde(default)]
    pub other_cost: f64,
    /// The part of `saved` from live requests sent in `shadow`: what governing would have saved
    /// there, not sent, so without the recovery model (§11.10). 0 for a transcript.
    #[serde(default)]
    pub shadow_saved: f64,
    /// The bill `off` would have run up: `cost` where what was sent is `off`'s (a foreign
    /// transcript, a live request in `shadow`), `cost` + that request's saving where the governed
    /// stream was sent (a live request in `on`).
    #[serde(default)]
    pub off_bill: f64,
    /// saved / offBill (`None` when offBill is 0).
    pub saved_share: Option<f64>,
}

impl Recorded {
    /// Counts one request's reported usage: its input tokens (uncached, written, read) and their
    /// cost at `prices` (cache reads at `cacheRead`, every other input token at `cacheWrite`),
    /// which it returns.
    pub fn add_usage(&mut self, u: crate::audit::cache::ReportedUsage, prices: Prices) -> f64 {
        let uncached = u.input + u.cache_write;
        let cost = prices.write * uncached as f64 + prices.read * u.cache_read as f64;
        self.requests += 1;
        self.input_tokens += uncached + u.cache_read;
        self.cached_tokens += u.cache_read;
        self.cost += cost;
        cost
    }

    /// Adds another session's bill (the `all` sums of `governor analyze`); the share is that of
    /// the sums.
    pub fn add(&mut self, o: &Self) {
        self.requests += o.requests;
        self.input_tokens += o.input_tokens;
        self.cached_tokens += o.cached_tokens;
        self.cost += o.cost;
        self.off_cost += o.off_cost;
        self.governed_cost += o.governed_cost;
        self.recovery_cost += o.recovery_cost;
        self.saved += o.saved;
        self.off_bill += o.off_bill;
        self.sent_cost += o.sent_cost;
        self.shadow_saved += o.shadow_saved;
        self.other_requests += o.other_requests;
        self.other_cost += o.other_cost;
        self.saved_share = (self.off_bill > 0.0).then(|| self.saved / self.off_bill);
    }
}
