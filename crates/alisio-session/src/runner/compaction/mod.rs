//! Compaction (spec/sessions.md §6), as `impl Run`: measuring, the triggers before a turn, one
//! compaction (the summarizer request, the checkpoint persisted in place of the summarized
//! rows), budget reduction in place and the last chance before `context_budget`. Nothing is
//! ever deleted: replaced rows are marked compacted. The pure parts are in `checkpoint.rs`.

mod checkpoint;

use super::error::RunError;
use crate::events::TurnUsage;
use serde_json::{Value, json};

use super::Run;
use crate::events::{
    CompactionCompleted, CompactionFailed, CompactionSkipped, CompactionStarted, ContextReduced,
    Event, Pending,
};
use crate::providers::{ModelRequest, RequestFailure, RequestKind, Stop, texts};
use crate::store::{MsgRow, Role, RowKind};
use crate::util::{chars, compact, estimate, fault};
use checkpoint::{SUMMARIZER_SYSTEM, clip, clippable, parse, plan, render, transcript};

const CUT_OFF: &str = "Compaction summary was cut off before any usable text was produced; raise compaction.maxOutputTokens";

/// Sizes of spec/sessions.md §6.2.
#[derive(Clone, Copy, Debug, Default)]
pub struct Measure {
    pub instructions: u64,
    pub conversation: u64,
    pub request: u64,
    /// Token estimate of the texts `request` counts.
    pub request_tokens: u64,
    pub used: u64,
}

/// How the last compaction attempt of the turn went.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Attempt {
    None,
    Done,
    Skipped,
    Failed(String),
}

impl Run<'_> {
    /// Runs the compaction steps before a model turn. `Ok(Some((code, message)))` ends the self.
    ///
    /// # Errors
    /// Store errors.
    pub(super) fn before_turn(&mut self) -> Result<Option<(&'static str, String)>, RunError> {
        // spec/sessions.md §12.4: the coordinator's workbench index is current at every turn.
        if self.seat() == super::Seat::Coordinator
            && let Err(e) = crate::workbench::refresh(&self.options.root)
        {
            tracing::warn!("workbench index: {e}");
        }
        let mut cfg = self.options.config.clone();
        // spec/sessions.md §12.5: summarising compaction is off while the relay is on.
        if self.relay_on {
            cfg.compaction_auto = false;
        }
        let active = self.active()?;
        let m = self.measure(&active);
        let max = cfg.max_context_chars as f64;
        let window = self.provider_config.context_window.or(self.window);
        let a = match window {
            Some(w) => m.used as f64 >= w as f64 * cfg.compaction_threshold,
            None => m.request as f64 >= max,
        };
        let b = m.conversation as f64 >= max * cfg.compaction_threshold
            && m.conversation as f64 >= self.session.compacted_chars as f64 + max * 0.10;
        let mut attempt = Attempt::None;
        if cfg.compaction_auto && (a || b) {
            attempt = self.compact_once("auto")?;
        } else if m.conversation <= cfg.max_context_chars {
            // Nothing changed and the budget holds: no reduction, no last chance.
            return Ok(None);
        }
        self.reduce()?;
        let (still, _) = self.over_budget()?;
        if still && cfg.compaction_auto && attempt == Attempt::None {
            attempt = self.compact_once("budget")?;
            self.reduce()?;
        }
        let (still, n) = self.over_budget()?;
        if !still {
            return Ok(None);
        }
        let what = match (&attempt, cfg.compaction_auto) {
            (_, false) if self.relay_on => "Summarising compaction is off while the relay is on (session.relay), and the relay did not hand over before the limit.".to_string(),
            (_, false) => "Automatic compaction is disabled (compaction.auto is false).".to_string(),
            (Attempt::Done, _) => "Automatic compaction ran but could not reduce it enough.".to_string(),
            (Attempt::Failed(e), _) => format!("Automatic compaction failed ({e})."),
            _ => "Automatic compaction was skipped because there is no safe boundary to summarize (the conversation is a single long turn or too short).".to_string(),
        };
        Ok(Some((
            "context_budget",
            format!(
                "Context budget exceeded (about {n} characters of conversation; limit {}). {what} Start a new session, trim large tool outputs, or raise limits.maxContextChars.",
                cfg.max_context_chars
            ),
        )))
    }

    pub(super) fn measure(&self, active: &[MsgRow]) -> Measure {
        let (mut system, _, parts) = self.parts();
        let tools_json = parts.tools;
        // G5: the invariants block, when sent, counts as instruction length.
        if let Some(b) = self.governor.invariants_block(active, &self.sources()) {
            system.push_str(&b);
        }
        let instructions = chars(&system) as u64;
        // spec/governor.md §3.5: a result spilled at entry counts as its stub.
        let sizes: Vec<(u64, u64)> = self.budget_sizes(active);
        let conv_msgs: u64 = sizes.iter().map(|s| s.0).sum();
        let conversation = instructions + conv_msgs;
        let request = conversation + chars(&tools_json) as u64;
        let request_tokens =
            estimate(&system) + sizes.iter().map(|s| s.1).sum::<u64>() + estimate(&tools_json);
        let mut used = request_tokens;
        if let Some(i) = active.iter().rposition(|m| m.role == Role::Assistant) {
            let v = active[i].value();
            let u = &v["usage"];
            let later_rewrite = active[i + 1..].iter().any(|m| m.kind != RowKind::Message)
                || active
                    .iter()
                    .any(|m| m.kind != RowKind::Message && m.seq > active[i].seq);
            if u["estimated"] == json!(false) && !later_rewrite {
                used = u["input"].as_u64().unwrap_or(0)
                    + u["output"].as_u64().unwrap_or(0)
                    + sizes[i + 1..].iter().map(|s| s.1).sum::<u64>();
                // Mode `on`: the provider counted the projection; add back what it removed.
                if self.governor.mode == alisio_base::config::GovernorMode::On {
                    let saved = self
                        .store
                        .last_event_data(&self.session_id, "context_governed")
                        .ok()
                        .flatten();
                    let saved = saved
                        .and_then(|d| serde_json::from_str::<Value>(&d).ok())
                        .and_then(|v| v["tokensSaved"].as_u64())
                        .unwrap_or(0);
                    // spec/governor.md §3.5: what spilling at entry removed is not added back.
                    let at_entry: u64 = active[..=i]
                        .iter()
                        .zip(&sizes)
                        .map(|(r, s)| self.row_size(r).1.saturating_sub(s.1))
                        .sum();
                    used += saved.saturating_sub(at_entry);
                }
            }
        }
        Measure {
            instructions,
            conversation,
            request,
            request_tokens,
            used,
        }
    }

    fn max_summary_tokens(&self) -> u32 {
        let window = self.provider_config.context_window;
        let base = self.options.config.compaction_max_output.unwrap_or(8192);
        window.map_or(base, |w| {
            base.min(u32::try_from(w / 4).unwrap_or(u32::MAX)).max(256)
        })
    }

    /// One compaction (spec/sessions.md §6.4–§6.7).
    fn compact_once(&mut self, reason: &'static str) -> Result<Attempt, RunError> {
        let active = self.active()?;
        let m = self.measure(&active);
        let sid = self.session_id.clone();
        let Some(cut) = plan(&active, self.options.config.keep_turns) else {
            self.durable_event(Event::CompactionSkipped(CompactionSkipped {
                reason,
                before: m.request_tokens,
                detail: "Not enough history to compact",
            }))?;
            return Ok(Attempt::Skipped);
        };
        let summarized = &active[..cut];
        self.durable_event(Event::CompactionStarted(CompactionStarted {
            reason,
            before: m.request_tokens,
            messages: cut,
        }))?;
        let mut system = SUMMARIZER_SYSTEM.to_string();
        if let Some(extra) = self.governor.summarizer_extra() {
            system.push(' ');
            system.push_str(&extra);
        }
        let req = ModelRequest {
            kind: RequestKind::Summary,
            system,
            messages: vec![
                json!({"role":"user","content":[{"type":"text","text":transcript(summarized)}]}),
            ],
            tools: Vec::new(),
            max_output_tokens: self.max_summary_tokens(),
            invariants_at: None,
        };
        let resp = match self.call_provider(&req, None) {
            Ok(r) => r,
            Err(RequestFailure::Cancelled) => return Ok(Attempt::Failed("Cancelled".into())),
            Err(RequestFailure::Fatal { message, .. }) => {
                return self.compaction_failed(reason, message, None);
            }
        };
        // What the provider billed for the summary (estimated when it reported nothing).
        let resp_usage = resp.usage_or_estimate(&req).event();
        let raw = resp.text.trim().to_string();
        let partial = resp.stop == Some(Stop::MaxTokens);
        if raw.is_empty() {
            let e = if partial {
                CUT_OFF.to_string()
            } else {
                "Summarizer returned an empty summary".to_string()
            };
            return self.compaction_failed(reason, e, Some(resp_usage));
        }
        let parsed = parse(&raw);
        let structured = parsed.is_some();
        let body = parsed.as_ref().map_or_else(|| raw.clone(), render);
        let text = format!(
            "[Checkpoint of {cut} earlier messages, generated by context compaction]\n\n{body}"
        );
        let msg = json!({"role":"user","content":[{"type":"text","text":text}],"checkpoint":parsed.as_ref().map(|p| p["checkpoint"].clone()),"structured":structured,"replaced":cut,"partial":partial});
        let msg_s = compact(&msg);
        let first_kept_pos = active
            .get(cut)
            .map_or_else(|| active.last().map_or(1, |m| m.pos + 1), |m| m.pos);
        let pos = first_kept_pos - 1;
        let summarized_tokens: u64 = summarized.iter().map(|m| estimate(&m.json)).sum();
        let checkpoint_tokens = estimate(&text);
        let after_msgs: u64 =
            active[cut..].iter().map(|m| estimate(&m.json)).sum::<u64>() + estimate(&msg_s);
        let after = m
            .request_tokens
            .saturating_sub(active.iter().map(|m| estimate(&m.json)).sum::<u64>())
            + after_msgs;
        let new_conv = m.instructions
            + chars(&msg_s) as u64
            + active[cut..]
                .iter()
                .map(|m| chars(&m.json) as u64)
                .sum::<u64>();
        // The prefix is rewritten anyway: attached files join the section now (spec/sessions.md §2.8 step 7).
        let stored = self.stored_options();
        let joined = super::request::join_attached(&stored);
        let options = self
            .governor
            .accept_quotes(
                joined.as_ref().unwrap_or(&stored),
                parsed.as_ref(),
                summarized,
            )
            .or(joined);
        let seqs: Vec<i64> = summarized.iter().map(|m| m.seq).collect();
        let run_id = self.run_id.clone();
        fault("before_compaction_commit");
        let ev = Pending::new(
            &sid,
            None,
            Event::CompactionCompleted(CompactionCompleted {
                reason,
                before: m.request_tokens,
                after,
                replaced: cut,
                structured,
                summarized_tokens,
                checkpoint_tokens,
                partial,
                usage: resp_usage,
            }),
        );
        self.emitter.commit(&mut self.store, vec![ev], |tx| {
            let seq = tx.next_seq(&sid)?;
            for s in &seqs {
                tx.mark_compacted(&sid, *s, seq)?;
            }
            let got = tx.append_message(
                &sid,
                Some(pos),
                Role::User,
                RowKind::Checkpoint,
                &msg_s,
                Some(&run_id),
            )?;
            debug_assert_eq!(got, seq);
            tx.set_compacted_chars(&sid, new_conv as i64)?;
            if let Some(o) = &options {
                tx.set_options(&sid, o)?;
            }
            Ok(())
        })?;
        self.transcript.rewritten();
        fault("after_compaction_commit");
        if let Some(s) = self.store.session(&sid)? {
            self.session = s;
        }
        Ok(Attempt::Done)
    }

    fn originals(&self, m: &MsgRow) -> Value {
        // Clipping is always from the original: follow `replaced_by` back to the first row.
        let mut cur = m.clone();
        for _ in 0..100 {
            if cur.kind != RowKind::Reduced {
                break;
            }
            match self
                .store
                .replaced_by(&self.session_id, cur.seq)
                .ok()
                .flatten()
            {
                Some(prev) => cur = prev,
                None => break,
            }
        }
        cur.value()
    }

    /// spec/sessions.md §6.8. Returns whether anything was clipped.
    fn reduce(&mut self) -> Result<bool, RunError> {
        let active = self.active()?;
        let m = self.measure(&active);
        let max = self.options.config.max_context_chars;
        if m.conversation <= max {
            return Ok(false);
        }
        let target = 4000u64.max(max.saturating_sub(m.instructions)) as usize;
        let mut sizes: Vec<usize> = self
            .budget_sizes(&active)
            .iter()
            .map(|s| usize::try_from(s.0).unwrap_or(usize::MAX))
            .collect();
        let mut new_json: Vec<Option<String>> = vec![None; active.len()];
        let caps = [
            (8000usize, 16_000usize),
            (4096, 8192),
            (2048, 4096),
            (1024, 2048),
            (512, 1024),
        ];
        for (tool_cap, text_cap) in caps {
            loop {
                if sizes.iter().sum::<usize>() <= target {
                    break;
                }
                let mut best: Option<usize> = None;
                for (i, r) in active.iter().enumerate() {
                    let orig = self.originals(r);
                    // A result spilled at entry is already its stub (spec/governor.md §3.5).
                    if !clippable(r, &orig) || self.spilled_at_entry(r) {
                        continue;
                    }
                    let cap = if r.role == Role::Tool {
                        tool_cap
                    } else {
                        text_cap
                    };
                    if chars(&texts(&orig)) <= cap {
                        continue;
                    }
                    let current = new_json[i]
                        .as_ref()
                        .map_or_else(|| r.json.clone(), Clone::clone);
                    let candidate = compact(&clip(&orig, cap));
                    if chars(&candidate) >= chars(&current) {
                        continue;
                    }
                    if best.is_none_or(|b| sizes[i] > sizes[b]) {
                        best = Some(i);
                    }
                }
                let Some(i) = best else { break };
                let cap = if active[i].role == Role::Tool {
                    tool_cap
                } else {
                    text_cap
                };
                let c = compact(&clip(&self.originals(&active[i]), cap));
                sizes[i] = chars(&c);
                new_json[i] = Some(c);
            }
        }
        let changed: Vec<(MsgRow, String)> = active
            .iter()
            .zip(new_json)
            .filter_map(|(r, j)| j.map(|j| (r.clone(), j)))
            .collect();
        if changed.is_empty() {
            return Ok(false);
        }
        let saved: u64 = changed
            .iter()
            .map(|(r, j)| estimate(&r.json).saturating_sub(estimate(j)))
            .sum();
        let sid = self.session_id.clone();
        let run_id = self.run_id.clone();
        fault("before_reduction_commit");
        let ev = Pending::new(
            &sid,
            None,
            Event::ContextReduced(ContextReduced {
                messages: changed.len(),
                reason: "budget",
                tokens_saved: saved,
            }),
        );
        self.emitter.commit(&mut self.store, vec![ev], |tx| {
            for (r, j) in &changed {
                let seq = tx.next_seq(&sid)?;
                tx.mark_compacted(&sid, r.seq, seq)?;
                tx.append_message(
                    &sid,
                    Some(r.pos),
                    r.role,
                    RowKind::Reduced,
                    j,
                    Some(&run_id),
                )?;
            }
            Ok(())
        })?;
        self.transcript.rewritten();
        self.governor.invalidate();
        Ok(true)
    }

    /// Whether the conversation is still over `limits.maxContextChars`, and its size.
    fn over_budget(&self) -> Result<(bool, u64), RunError> {
        let act = self.active()?;
        let m = self.measure(&act);
        Ok((
            m.conversation > self.options.config.max_context_chars,
            m.conversation,
        ))
    }

    /// `compaction_failed`; the attempt failed with `error`.
    fn compaction_failed(
        &mut self,
        reason: &'static str,
        error: String,
        usage: Option<TurnUsage>,
    ) -> Result<Attempt, RunError> {
        self.durable_event(Event::CompactionFailed(CompactionFailed {
            reason,
            error: error.to_string(),
            usage,
        }))?;
        Ok(Attempt::Failed(error))
    }
}
