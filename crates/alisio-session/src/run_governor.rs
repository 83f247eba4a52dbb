//! The runner's side of the governor (spec/sessions.md §7): the stored transcript converted to the
//! governor's message model, the per-session governor state, and what comes back (stubs to
//! apply to the request, the invariants block, the `context_governed` payload, the report).
//! The stored rows are never touched: stubs are applied to copies of the request messages.

use serde_json::{Value, json};

use super::events::{ContextGovernedEvent, ReplayFigures};
use super::store::{MsgRow, Role, RowKind, Store, StoreError};
use alisio_base::config::GovernorMode;
use alisio_governor::invariants::{self, Criterion, Goal, Grants};
use alisio_governor::model::{Call, Message, Part, ToolResult, UserKind};
use alisio_governor::report::ContextReport;
use alisio_governor::session::{SessionGovernor, Turn};
use alisio_governor::stored::{ContextInvariants, SessionOptions};
use alisio_governor::{GovSettings, RequestParts};

/// Invariant sources the runner owns (spec/sessions.md §4.5, §7).
#[derive(Clone, Debug, Default)]
pub struct RunnerSources {
    pub quotes: Vec<String>,
    pub goal: Option<String>,
    pub criteria: Vec<(String, bool)>,
    pub grants: Vec<String>,
    /// Capabilities for "Active grants" (the process sandbox's mode, spec/sessions.md §10.4).
    pub capabilities: Vec<String>,
    pub external_dirs: usize,
}

impl RunnerSources {
    /// The sources the stored options give, with the run's grants.
    #[must_use]
    pub fn from_options(o: &SessionOptions, grants: Vec<String>, external_dirs: usize) -> Self {
        Self {
            quotes: o.quotes(),
            goal: o.goal.as_ref().map(|g| g.objective.clone()),
            criteria: o
                .criteria()
                .iter()
                .map(|c| (c.text.clone(), c.required))
                .collect(),
            grants,
            capabilities: Vec::new(),
            external_dirs,
        }
    }

    fn governor(&self) -> invariants::Sources {
        invariants::Sources {
            quotes: self.quotes.clone(),
            goal: self.goal.as_ref().map(|g| Goal {
                objective: g.clone(),
                status: "active".into(),
            }),
            plan: None,
            criteria: self
                .criteria
                .iter()
                .map(|(t, r)| Criterion {
                    text: t.clone(),
                    required: *r,
                    not_applicable: false,
                })
                .collect(),
            grants: Grants {
                effects: self.grants.clone(),
                capabilities: self.capabilities.clone(),
                external_directories: self.external_dirs as u64,
            },
        }
    }
}

/// What a built request sends.
#[derive(Clone, Debug, Default)]
pub struct Projected {
    /// Messages in the stored neutral form, after the projection.
    pub messages: Vec<Value>,
    /// The invariants block (mode `on`, after the first checkpoint).
    pub invariants: Option<String>,
    /// The `context_governed` payload (modes `shadow`, `on`).
    pub event: Option<ContextGovernedEvent>,
}

/// Request-level parts measured by the report.
#[derive(Clone, Debug, Default)]
pub struct Parts {
    pub system: String,
    /// The system text's blocks after the preamble (the section, the catalog), as sent.
    pub blocks: Vec<String>,
    /// `(path, text)` per instruction file (spec/governor.md §2.6).
    pub instructions: Vec<(String, String)>,
    pub skills: Option<String>,
    pub tools: String,
    /// The tool definitions as sent (`tools` is their measured JSON).
    pub definitions: Vec<super::tools::ToolDef>,
    /// The files the section and the catalog deliver ([`crate::Section::delivered`]).
    pub delivered: Vec<super::store::Delivered>,
}

impl Parts {
    fn governor(&self) -> RequestParts {
        RequestParts {
            system: (!self.system.is_empty()).then(|| self.system.clone()),
            instructions: self.instructions.clone(),
            skills: self.skills.clone(),
            tools: (!self.tools.is_empty()).then(|| self.tools.clone()),
        }
    }
}

fn text_parts(v: &Value) -> Vec<Part> {
    v.get("content")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .map(Part::text)
                .collect()
        })
        .unwrap_or_default()
}

/// A stored row as the governor's [`Message`].
#[must_use]
pub fn message(row: &MsgRow) -> Message {
    message_of(row, &row.value())
}

/// [`message`] from an already parsed row.
#[must_use]
pub fn message_of(row: &MsgRow, v: &Value) -> Message {
    let v = v.clone();
    match row.role {
        Role::Assistant => {
            let mut parts = text_parts(&v);
            if let Some(pd) = v.get("providerData") {
                parts.push(Part::opaque(pd.to_string()));
            }
            let calls = super::providers::calls_of(&v)
                .into_iter()
                .map(|(id, name, args)| Call::new(id, name, args))
                .collect();
            Message::Assistant { parts, calls }
        }
        Role::Tool => Message::Tool(ToolResult {
            call_id: v["callId"].as_str().unwrap_or_default().to_string(),
            parts: text_parts(&v),
            is_error: v["isError"].as_bool().unwrap_or(false),
            denial: v["denial"].as_str().map(String::from),
        }),
        Role::User => Message::User {
            kind: if row.kind == RowKind::Checkpoint {
                UserKind::Checkpoint
            } else {
                UserKind::Plain
            },
            parts: text_parts(&v),
            skill: v.get("skill").and_then(Value::as_str).map(String::from),
            origin: None,
        },
    }
}

/// What the model is shown of a stored result at most (issue 13 §1): results are stored whole,
/// and a longer text part is cut here, with a note naming `result_read`. Under policy 2 in `on`
/// the governor's `oversized` stub replaces such a result first.
pub const VIEW_CAP: usize = 32_000;

/// Whether a tool's results are never cut ([`Spec::whole`](crate::tools::Spec::whole): skill
/// bodies are protected; `result_read` pages itself; a sub-session's final answer (`task`)
/// reaches its parent whole, issue 21).
fn never_cut(name: &str) -> bool {
    crate::tools::spec(name).is_some_and(|s| s.whole)
}

/// Cuts every tool message text part longer than [`VIEW_CAP`] characters to its first
/// `VIEW_CAP` and a note: `[output cut at 32000 of N characters; result_read {"callId":…,
/// "offset":32000} returns the rest]`. `off` and `shadow` send exactly this (G4).
pub fn view_cap(messages: &mut [Value]) {
    for m in messages.iter_mut() {
        if m["role"] != "tool" || never_cut(m["name"].as_str().unwrap_or_default()) {
            continue;
        }
        let id = m["callId"].as_str().unwrap_or_default().to_owned();
        let Some(parts) = m.get_mut("content").and_then(Value::as_array_mut) else {
            continue;
        };
        if let Some(p) = parts.first_mut().filter(|p| p["type"] == "text") {
            let Some(t) = p["text"].as_str() else {
                continue;
            };
            let total = t.encode_utf16().count();
            if total <= VIEW_CAP {
                continue;
            }
            let mut cut = String::new();
            let mut u = 0;
            for c in t.chars() {
                u += c.len_utf16();
                if u > VIEW_CAP {
                    break;
                }
                cut.push(c);
            }
            let shown = cut.encode_utf16().count();
            cut.push_str(&format!(
                "\n[output cut at {shown} of {total} characters; result_read {{\"callId\":{},\"offset\":{shown}}} returns the rest]",
                serde_json::to_string(&id).unwrap_or_default()
            ));
            p["text"] = Value::String(cut);
        }
    }
}

/// Per-session governor state kept by the runner.
#[derive(Debug)]
pub struct RunGovernor {
    pub mode: GovernorMode,
    pub settings: GovSettings,
    state: SessionGovernor,
    /// The cache comparison of this session's requests (each request's `replay` figures).
    live: alisio_governor::replay::Live,
    /// The message count of the session's last request before this run (`resume_from`).
    resumed: Option<usize>,
    /// The session's earlier requests that found the provider's cache cold (`restore_cold`).
    cold: Vec<usize>,
}

impl RunGovernor {
    #[must_use]
    pub fn new(mode: GovernorMode, settings: &alisio_base::config::Settings) -> Self {
        let mut s = GovSettings::from_config(settings);
        s.mode = mode;
        Self {
            mode,
            settings: s,
            state: SessionGovernor::new(),
            live: alisio_governor::replay::Live::default(),
            resumed: None,
            cold: Vec::new(),
        }
    }

    /// The session's earlier requests that found the provider's cache cold ([`stored_cold`]):
    /// the gate takes the free rewrites it took there again (spec/governor.md §2.7), so this run
    /// sends what the session sent.
    pub fn restore_cold(&mut self, cold: Vec<usize>) {
        self.state.restore_cold(cold.clone());
        self.cold = cold;
    }

    /// This run continues a session whose last request (of an earlier run, maybe another
    /// process) had `messages` messages: the first request of the run is compared with that
    /// one (projected again, stubs being deterministic), not counted as a cold cache.
    pub fn resume_from(&mut self, messages: usize) {
        self.resumed = Some(messages);
    }

    /// Feeds the session's previous request (`resume_from`) to the cache comparison.
    fn seed(
        &mut self,
        session_id: &str,
        history: &[Message],
        rp: &RequestParts,
        src: &invariants::Sources,
    ) {
        let Some(m) = self.resumed.take().filter(|m| *m <= history.len()) else {
            return;
        };
        let mut g = SessionGovernor::new();
        g.restore_cold(self.cold.clone());
        let sent = g.request(
            &self.settings,
            Turn {
                session_id,
                history: &history[..m],
                parts: rp,
                sources: src,
                request: 0,
                recovery: false,
            },
        );
        let _ = self
            .live
            .push(rp, &history[..m], g.elisions(), sent.invariants.as_deref());
    }

    /// The budget rule (spec/governor.md §3.5): the text a stored tool row `v` (the result of
    /// `call`) is sent as from its first request on, when that is an `oversized` stub (mode `on`,
    /// policy 2): the row as the budget counts it. `None`: it counts as stored.
    #[must_use]
    pub fn entry_row(&self, call: &Call, row: &MsgRow, v: &Value) -> Option<Value> {
        if self.mode != GovernorMode::On || self.settings.policy_version < 2 {
            return None;
        }
        let Message::Tool(r) = message_of(row, v) else {
            return None;
        };
        let stub = alisio_governor::policy2::entry_stub(&self.settings.policy2, call, &r)?;
        let mut out = v.clone();
        out["content"] = json!([{"type":"text","text":stub}]);
        Some(out)
    }

    /// Projects one request. `values` are the parsed rows of `active`, in the same order;
    /// `turn` is (the request's number, a truncation recovery, the provider's cache expired
    /// since the previous request: it is sent uncached, and the governor rewrites for free,
    /// spec/governor.md §2.7).
    pub fn project(
        &mut self,
        session_id: &str,
        active: &[MsgRow],
        values: Vec<Value>,
        parts: &Parts,
        turn: (u64, bool, bool),
        sources: &RunnerSources,
    ) -> Projected {
        let (request, recovery, cold) = turn;
        let mut messages = values;
        if self.mode == GovernorMode::Off {
            view_cap(&mut messages);
            return Projected {
                messages,
                invariants: None,
                event: None,
            };
        }
        let history: Vec<Message> = active
            .iter()
            .zip(&messages)
            .map(|(r, v)| message_of(r, v))
            .collect();
        let rp = parts.governor();
        let src = sources.governor();
        self.seed(session_id, &history, &rp, &src);
        if cold {
            self.state.cache_cold();
            self.live.rewritten();
        }
        let sent = self.state.request(
            &self.settings,
            Turn {
                request,
                recovery,
                ..Turn::dry(session_id, &history, &rp, &src)
            },
        );
        let (off, governed) = self.live.push(
            &rp,
            &history,
            self.state.elisions(),
            sent.invariants.as_deref(),
        );
        for (i, stub) in &sent.stubs {
            if let Some(m) = messages.get_mut(*i) {
                let mut content: Vec<Value> = Vec::new();
                let mut placed = false;
                for p in m["content"].as_array().cloned().unwrap_or_default() {
                    if p["type"] == "text" {
                        if !placed {
                            content.push(json!({"type":"text","text":stub}));
                            placed = true;
                        }
                    } else {
                        content.push(p);
                    }
                }
                m["content"] = Value::Array(content);
            }
        }
        view_cap(&mut messages);
        Projected {
            messages,
            invariants: sent.invariants,
            // This request's cache-aware figures (spec/governor.md §7.1): what the session's
            // report sums into `replay` and the Context Report view charts.
            event: sent.event.map(|figures| ContextGovernedEvent {
                figures,
                replay: ReplayFigures { off, governed },
            }),
        }
    }

    /// The ContextReport of the next request (dry).
    #[must_use]
    pub fn report(
        &self,
        session_id: &str,
        active: &[MsgRow],
        parts: &Parts,
        sources: &RunnerSources,
    ) -> ContextReport {
        let history: Vec<Message> = active.iter().map(message).collect();
        let rp = parts.governor();
        let src = sources.governor();
        self.state.report(
            &self.settings,
            Turn::dry(session_id, &history, &rp, &src),
            None,
        )
    }

    /// The invariants block the next request over `active` would send (`on`, once the
    /// history holds a checkpoint, spec/sessions.md §5.1): what G5 counts as instruction length for the
    /// context budget and the compaction triggers.
    #[must_use]
    pub fn invariants_block(&self, active: &[MsgRow], sources: &RunnerSources) -> Option<String> {
        if self.mode != GovernorMode::On || !active.iter().any(|r| r.kind == RowKind::Checkpoint) {
            return None;
        }
        invariants::build(
            self.settings.policy_version,
            &sources.governor(),
            self.settings.max_chars,
        )
        .text
    }

    /// The invariants block a relay's handoff carries (spec/sessions.md §12.5): the standing
    /// items (quotes, goal, criteria, grants) whatever the mode; `None` when there are none.
    #[must_use]
    pub fn handoff_block(&self, sources: &RunnerSources) -> Option<String> {
        invariants::build(
            self.settings.policy_version,
            &sources.governor(),
            self.settings.max_chars,
        )
        .text
    }

    /// Records a stored result in the usage ledger (the governor's ledger follows the requests
    /// it governs; nothing else to record here).
    pub fn observe(&mut self, _call_id: &str) {}

    /// The stored history was rewritten in place (budget reduction).
    pub fn invalidate(&mut self) {
        self.state.invalidate();
        self.live.rewritten();
    }

    /// The extra summarizer field request (mode `on`), appended to the summarizer prompt.
    #[must_use]
    pub fn summarizer_extra(&self) -> Option<String> {
        (self.mode == GovernorMode::On).then(|| {
            "Also add a top-level field \"instructionQuotes\" to the object: an array of exact quotes, copied character for character, of the standing instructions the user gave in the USER messages of the transcript (for example rules about style, tools or files). Use [] when there are none.".to_string()
        })
    }

    /// New `options` with `contextInvariants` after a compaction (mode `on` only).
    #[must_use]
    pub fn accept_quotes(
        &self,
        options: &Value,
        returned: Option<&Value>,
        summarized: &[MsgRow],
    ) -> Option<Value> {
        if self.mode != GovernorMode::On {
            return None;
        }
        let stored = SessionOptions::from_value(options).quotes();
        let quotes = returned
            .and_then(|v| v.get("instructionQuotes"))
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        let history: Vec<Message> = summarized.iter().map(message).collect();
        let accepted = invariants::accept_quotes(&stored, &quotes, &history);
        let patch = SessionOptions {
            context_invariants: Some(ContextInvariants::new(accepted)),
            ..SessionOptions::default()
        };
        Some(patch.merge_into(options))
    }
}

/// Sets a measured report's `replay` (spec/governor.md §11.8) from the `replay` figures of the
/// session's stored `context_governed` events, one per request, in order: what the session's
/// requests cost with a prompt cache so far, whichever process ran them. Absent when no stored
/// event carries figures. Its `recorded` is the live session's recorded bill (spec/governor.md
/// §11.11, "Live sessions"): each `turn_completed` whose usage the provider reported (not
/// `estimated`), with the figures of the `context_governed` event of the request it answered
/// (the last one of the same run since the previous `turn_completed`).
///
/// # Errors
/// Store errors.
pub fn with_stored_replay(
    store: &Store,
    id: &str,
    r: &mut ContextReport,
) -> Result<(), StoreError> {
    if !matches!(r, ContextReport::Measured(_)) {
        return Ok(());
    }
    let figures =
        |v: &Value| serde_json::from_value::<alisio_governor::replay::Figures>(v.clone()).ok();
    let mut requests = Vec::new();
    let mut live = Vec::new();
    let mut other = Vec::new();
    // The figures of this run's last request not yet answered: (off, governed, sent governed).
    let mut pending: Option<(f64, f64, bool)> = None;
    // The events that carry a provider's answer: a turn, a relay's handoff, an answer the runner
    // discarded (it was cut off, the turn was invalid, or it ended the run: `run_failed` with a
    // `usage`) and a compaction's summary.
    let types = [
        "run_started",
        "context_governed",
        "turn_completed",
        "session_relayed",
        "truncation_recovery",
        "request_retry",
        "compaction_completed",
        "compaction_failed",
        "run_failed",
    ];
    for (ty, d) in store.events_of_types(id, &types)? {
        if ty == "run_started" {
            // A request of an earlier run that was never answered (it failed, was cancelled or
            // interrupted) answers nothing in this one (a run in mode `off` builds no event).
            pending = None;
            continue;
        }
        let Ok(mut v) = serde_json::from_str::<Value>(&d) else {
            continue;
        };
        if ty == "context_governed" {
            let rp = v["replay"].take();
            pending = None;
            if let (Some(o), Some(g)) = (figures(&rp["off"]), figures(&rp["governed"])) {
                pending = Some((o.cost, g.cost, v["mode"] == "on"));
                requests.push((o, g));
            }
            continue;
        }
        // The providers' usage as the runner stores it (`input` the whole prompt); `None` when
        // it was estimated, or when no answer came (a transport retry).
        let usage = alisio_governor::audit::cache::ReportedUsage::from_stored(&v["usage"]);
        if ty.starts_with("compaction_") {
            other.extend(usage);
            continue;
        }
        if matches!(ty.as_str(), "request_retry" | "run_failed") && v["usage"].is_null() {
            continue;
        }
        let request = pending.take();
        if let (Some((off_cost, governed_cost, sent_governed)), Some(usage)) = (request, usage) {
            live.push(alisio_governor::recorded::LiveRequest {
                usage,
                off_cost,
                governed_cost,
                sent_governed,
            });
        }
    }
    if !requests.is_empty() {
        let mut rp = alisio_governor::replay::of_requests(requests);
        rp.recorded = alisio_governor::recorded::live_bill(
            &live,
            &other,
            alisio_governor::figures::Prices::default(),
        );
        r.set_replay(rp);
    }
    Ok(())
}

/// The session's requests that found the provider's cache cold, by the messages each sent: the
/// stored `context_governed` events with `cacheCold`, since the last completed compaction (whose
/// history they no longer index).
///
/// # Errors
/// Store errors.
pub fn stored_cold(store: &Store, sid: &str) -> Result<Vec<usize>, StoreError> {
    let mut cold = Vec::new();
    for (ty, data) in store.events_of_types(sid, &["context_governed", "compaction_completed"])? {
        if ty == "compaction_completed" {
            cold.clear();
            continue;
        }
        let v: Value = serde_json::from_str(&data).unwrap_or_default();
        if let Some(m) = v["messages"].as_u64().filter(|_| v["cacheCold"] == true) {
            cold.push(m as usize);
        }
    }
    Ok(cold)
}
