//! The prompt cache of each recorded request (spec/interfaces.md §4.3): hit, cold start,
//! expected rebuild (a compaction), time-to-live expiry (the gap since the previous request),
//! or a broken prefix with its cause; priced with the provider's list prices.

use serde::Serialize;

use super::SessionAudit;

/// Token counts of one request as the provider reported them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedUsage {
    pub input: u64,
    pub cache_write: u64,
    pub cache_read: u64,
    pub output: u64,
}

impl ReportedUsage {
    /// An Anthropic `usage` object (Claude Code's `message.usage`); a missing count is 0.
    #[must_use]
    pub fn from_anthropic(usage: &serde_json::Value) -> Self {
        let n = |k: &str| usage[k].as_u64().unwrap_or(0);
        Self {
            input: n("input_tokens"),
            cache_write: n("cache_creation_input_tokens"),
            cache_read: n("cache_read_input_tokens"),
            output: n("output_tokens"),
        }
    }

    /// OpenAI-style counts, whose input includes its cached part (Codex `last_token_usage`, a
    /// chat completion's `usage`): no cache write is billed.
    #[must_use]
    pub const fn from_openai(input: u64, cached: u64, output: u64) -> Self {
        Self {
            input: input.saturating_sub(cached),
            cache_write: 0,
            cache_read: cached,
            output,
        }
    }

    /// The `usage` an alisio-ls store recorded on an assistant message (spec/sessions.md §1.4,
    /// §5.2): `input` there is the whole prompt, cached parts included, for both wire formats
    /// (Anthropic: `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`;
    /// OpenAI-compatible: `prompt_tokens`, of which `prompt_tokens_details.cached_tokens` is
    /// `cacheRead`, no write), so the uncached input is `input − cacheRead − cacheWrite`.
    /// `None` when the runner estimated it (`estimated: true`: the provider reported nothing, so
    /// it says nothing about the cache) or when no count was stored (not an object, no
    /// `input`); a missing `output`, `cacheRead` or `cacheWrite` is 0.
    #[must_use]
    pub fn from_stored(usage: &serde_json::Value) -> Option<Self> {
        if usage.get("estimated").and_then(serde_json::Value::as_bool) == Some(true) {
            return None;
        }
        let whole = usage.get("input")?.as_u64()?;
        let n = |k: &str| {
            usage
                .get(k)
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0)
        };
        let (read, write) = (n("cacheRead"), n("cacheWrite"));
        Some(Self {
            input: whole.saturating_sub(read).saturating_sub(write),
            cache_write: write,
            cache_read: read,
            output: n("output"),
        })
    }

    const fn prompt(self) -> u64 {
        self.input + self.cache_write + self.cache_read
    }
}

/// One request as observed in the file, before classification.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Obs {
    pub id: String,
    pub line: usize,
    pub at_ms: Option<i64>,
    pub model: Option<String>,
    /// The hash of the system prompt and tools (Claude Code `shapeHash`).
    pub shape: Option<String>,
    /// The request whose messages this one continues (Claude Code `base`).
    pub base: Option<String>,
    /// How many of the base's messages it kept.
    pub keep: Option<u64>,
    /// How many messages it sent.
    pub count: Option<u64>,
    pub usage: Option<ReportedUsage>,
    /// Whether the previous request's messages (by their recorded hashes) are a prefix of this
    /// one's, when both lists are known (Claude Code `tail` hashes; a new process names no
    /// `base` but lists every message it sends).
    pub hashes_kept: Option<bool>,
    /// The cache's lifetime after its last use; 0: it is never assumed expired.
    pub ttl_secs: u64,
    /// What happened since the previous request (`compaction`, `instruction-changed` …).
    pub events: Vec<&'static str>,
    /// A request outside the conversation's prefix (alisio-ls: a compaction's summary, sent with
    /// its own system text): `expected-rebuild` with this cause, unpriced as a miss, and not
    /// the previous request of the next one.
    pub aside: Option<&'static str>,
}

/// The class of a request's cache use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheClass {
    /// The first request: everything is written.
    Cold,
    /// The previous request's prefix was kept (and read, when the provider reported usage).
    Hit,
    /// A rebuild the agent cannot avoid: a compaction (alisio-ls: also a budget reduction, a
    /// rewind or a relay's handoff) rewrote the conversation, or the request is not part of it
    /// (alisio-ls: a compaction's summary).
    ExpectedRebuild,
    /// The gap since the previous request reached the cache's TTL (the prefix was kept, or the
    /// provider reported a miss no rewrite by design explains).
    TtlExpired,
    /// The prefix changed for a cause that could have been avoided.
    Broken,
    /// Neither the structure nor the usage tells.
    Unknown,
}

/// One request of the audit.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestCache {
    pub index: usize,
    pub line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Seconds since the previous request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gap_secs: Option<f64>,
    pub ttl_secs: u64,
    pub class: CacheClass,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<&'static str>,
    /// From the request's recorded structure: whether it kept the previous request's prefix
    /// (system, tools, model and every earlier message). `None` when the file does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_kept: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<ReportedUsage>,
    pub cost: f64,
    /// What the miss cost above a cache read of the reusable prefix (breaks and expiries).
    pub extra_cost: f64,
    /// Carried to classification (never serialised).
    #[serde(skip)]
    pub(crate) observed: Obs,
}

impl Obs {
    /// The request before [`classify_all`] classifies and prices it.
    #[must_use]
    pub fn into_request(self) -> RequestCache {
        RequestCache {
            index: 0,
            line: self.line,
            model: self.model.clone(),
            gap_secs: None,
            ttl_secs: self.ttl_secs,
            class: CacheClass::Unknown,
            cause: None,
            prefix_kept: None,
            messages: self.count,
            usage: self.usage,
            cost: 0.0,
            extra_cost: 0.0,
            observed: self,
        }
    }
}

/// List prices in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPrices {
    pub provider: &'static str,
    pub input: f64,
    pub cache_write_5m: f64,
    pub cache_write_1h: f64,
    pub cache_read: f64,
    pub output: f64,
}

/// The price table of spec/interfaces.md §4.3, by model name; `None` for a model it does not
/// know (the request is then not priced).
#[must_use]
pub fn price_table(model: &str) -> Option<ListPrices> {
    let m = model.to_ascii_lowercase();
    let anthropic =
        |[input, cache_write_5m, cache_write_1h, cache_read, output]: [f64; 5]| ListPrices {
            provider: "anthropic",
            input,
            cache_write_5m,
            cache_write_1h,
            cache_read,
            output,
        };
    if m.contains("claude") || m.contains("opus") || m.contains("sonnet") || m.contains("haiku") {
        return Some(if m.contains("opus") {
            anthropic([5.0, 6.25, 10.0, 0.5, 25.0])
        } else if m.contains("haiku") {
            anthropic([1.0, 1.25, 2.0, 0.1, 5.0])
        } else {
            anthropic([3.0, 3.75, 6.0, 0.3, 15.0])
        });
    }
    if m.starts_with("gpt-") || m.contains("codex") || m.starts_with("o3") || m.starts_with("o4") {
        return Some(ListPrices {
            provider: "openai",
            input: 1.25,
            cache_write_5m: 1.25,
            cache_write_1h: 1.25,
            cache_read: 0.125,
            output: 10.0,
        });
    }
    None
}

fn structural(prev: &Obs, o: &Obs) -> Option<bool> {
    let (Some(count), Some(keep), Some(_)) = (prev.count, o.keep, o.shape.as_ref()) else {
        return None;
    };
    let messages = if o.base.as_deref() == Some(prev.id.as_str()) {
        keep == count
    } else {
        o.hashes_kept == Some(true)
    };
    Some(messages && o.shape == prev.shape && !switched(prev, o))
}

/// Whether the model changed: both requests name one, and they differ (a request whose model
/// is unknown, such as a stored row whose JSON is not valid, switches nothing).
fn switched(prev: &Obs, o: &Obs) -> bool {
    matches!((&prev.model, &o.model), (Some(a), Some(b)) if a != b)
}

/// What rebuilds the prefix by design, in the order a cause is named: for alisio-ls's own
/// sessions a relay's handoff (spec/sessions.md §12.5: the request is sent without tools), then
/// a compaction (every client), and for alisio-ls a budget reduction in place (§6.8) and a
/// rewind (§13.3).
const EXPECTED: [&str; 4] = ["relay-handoff", "compaction", "budget-reduction", "rewind"];

fn expected(o: &Obs) -> Option<&'static str> {
    EXPECTED.into_iter().find(|e| o.events.contains(e))
}

fn cause_of(prev: &Obs, o: &Obs) -> (CacheClass, &'static str) {
    if switched(prev, o) {
        return (CacheClass::Broken, "model-switch");
    }
    if o.shape.is_some() && o.shape != prev.shape {
        return (CacheClass::Broken, "tools-or-system-changed");
    }
    if let Some(e) = expected(o) {
        return (CacheClass::ExpectedRebuild, e);
    }
    for e in ["instruction-changed", "skill-listing-changed", "tool-delta"] {
        if o.events.contains(&e) {
            return (CacheClass::Broken, e);
        }
    }
    (CacheClass::Broken, "prefix-changed")
}

fn classify(prev: Option<&Obs>, r: &mut RequestCache) {
    let Some(prev) = prev else {
        r.class = CacheClass::Cold;
        return;
    };
    let o = &r.observed;
    let gap = o
        .at_ms
        .zip(prev.at_ms)
        .map(|(a, b)| (a - b) as f64 / 1000.0);
    r.gap_secs = gap;
    // The runner's boundary (spec/sessions.md §5.1): expired once the lifetime has passed.
    let expired = o.ttl_secs > 0 && gap.is_some_and(|g| g >= o.ttl_secs as f64);
    r.prefix_kept = structural(prev, o);
    let (class, cause) = match r.prefix_kept {
        Some(true) if expired => (CacheClass::TtlExpired, Some("gap")),
        Some(true) => (CacheClass::Hit, None),
        Some(false) => {
            let (c, why) = cause_of(prev, o);
            (c, Some(why))
        }
        None => match o.usage {
            _ if switched(prev, o) => (CacheClass::Broken, Some("model-switch")),
            _ if expected(o).is_some() => (CacheClass::ExpectedRebuild, expected(o)),
            Some(u) if u.cache_read > 0 => (CacheClass::Hit, None),
            Some(u) if u.prompt() > 0 && expired => (CacheClass::TtlExpired, Some("gap")),
            Some(u) if u.prompt() > 0 => {
                let (c, why) = cause_of(prev, o);
                (c, Some(why))
            }
            _ => (CacheClass::Unknown, None),
        },
    };
    r.class = class;
    r.cause = cause;
}

fn price(prev: Option<&Obs>, r: &mut RequestCache, p: ListPrices) {
    let Some(u) = r.usage else { return };
    let write = if r.ttl_secs >= 3600 {
        p.cache_write_1h
    } else {
        p.cache_write_5m
    };
    r.cost = (u.input as f64 * p.input
        + u.cache_write as f64 * write
        + u.cache_read as f64 * p.cache_read
        + u.output as f64 * p.output)
        / 1e6;
    if matches!(r.class, CacheClass::Broken | CacheClass::TtlExpired)
        && let Some(pu) = prev.and_then(|o| o.usage)
    {
        let reusable = pu.prompt().min(u.prompt()).saturating_sub(u.cache_read);
        r.extra_cost = reusable as f64 * (write - p.cache_read) / 1e6;
    }
}

/// Classifies and prices every request of `out` and fills its totals. `prices` overrides the
/// table for every request.
pub fn classify_all(out: &mut SessionAudit, prices: Option<ListPrices>) {
    let mut prev: Option<Obs> = None;
    let mut t = super::CacheTotals::default();
    for (i, r) in out.requests.iter_mut().enumerate() {
        r.index = i + 1;
        let aside = r.observed.aside;
        if let Some(cause) = aside {
            r.class = CacheClass::ExpectedRebuild;
            r.cause = Some(cause);
        } else {
            classify(prev.as_ref(), r);
        }
        if let Some(p) = prices.or_else(|| r.model.as_deref().and_then(price_table)) {
            price(prev.as_ref(), r, p);
        }
        t.requests += 1;
        match r.class {
            CacheClass::Hit => t.hits += 1,
            CacheClass::Cold => t.cold += 1,
            CacheClass::ExpectedRebuild => t.expected_rebuilds += 1,
            CacheClass::TtlExpired => {
                t.ttl_expired += 1;
                t.ttl_cost += r.extra_cost;
            }
            CacheClass::Broken => {
                t.broken += 1;
                t.avoidable += r.extra_cost;
            }
            CacheClass::Unknown => {}
        }
        t.cost += r.cost;
        let observed = std::mem::take(&mut r.observed);
        if aside.is_none() {
            prev = Some(observed);
        }
    }
    out.cache = t;
}
