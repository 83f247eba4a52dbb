//! The loop (spec/sessions.md §2.3–§2.4, §2.9): turn after turn until the model stops calling
//! tools or a limit, a failure or a cancellation ends the run. One turn: build the request
//! (`request.rs`), call the provider with retries and truncation recovery, validate the turn,
//! store the assistant message with its calls, execute them (`calls.rs`), check the limits.

use super::error::RunError;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde_json::json;

use super::{Run, RunResult, RunStatus};
use crate::events::{
    Event, Pending, RequestRetry, ResponseTruncated, TextDelta, TruncationRecovery, TurnCompleted,
};
use crate::providers::{
    self, ModelRequest, ModelResponse, RawCall, RequestFailure, Stop, TokenUsage,
};
use crate::store::{Role, RowKind};
use crate::tools;
use crate::util::{compact, fault};

/// How a turn ended.
enum TurnEnd {
    Continue,
    Done(Box<RunResult>),
}

/// A usable model answer of one turn.
struct Answer {
    response: ModelResponse,
    /// The calls, with ids filled in and incomplete ones dropped after a truncation.
    calls: Vec<RawCall>,
    usage: TokenUsage,
    ttft: u64,
}

impl Run<'_> {
    pub(super) fn turns_loop(&mut self) -> RunResult {
        loop {
            if self.cancel.load(Ordering::Relaxed) {
                return self.finish(RunStatus::Cancelled, None, None);
            }
            self.compacted_this_turn = false;
            // spec/sessions.md §12.5: past the threshold, hand over instead of compacting.
            match self.relay_due() {
                Ok(false) => {}
                Ok(true) => {
                    return self.relay().unwrap_or_else(|e| {
                        self.finish(RunStatus::Failed, Some("store_error"), Some(e.to_string()))
                    });
                }
                Err(e) => {
                    return self.finish(
                        RunStatus::Failed,
                        Some("store_error"),
                        Some(e.to_string()),
                    );
                }
            }
            match self.before_turn() {
                Ok(None) => {}
                Ok(Some((code, msg))) => {
                    return self.finish(RunStatus::Failed, Some(code), Some(msg));
                }
                Err(e) => {
                    return self.finish(
                        RunStatus::Failed,
                        Some("store_error"),
                        Some(e.to_string()),
                    );
                }
            }
            match self.turn() {
                Ok(TurnEnd::Continue) => {}
                Ok(TurnEnd::Done(r)) => return *r,
                Err(e) => {
                    return self.finish(
                        RunStatus::Failed,
                        Some("store_error"),
                        Some(e.to_string()),
                    );
                }
            }
        }
    }

    fn turn(&mut self) -> Result<TurnEnd, RunError> {
        let turn_no = self.progress.turns + 1;
        let started = Instant::now();
        let a = match self.answer(turn_no)? {
            Ok(a) => a,
            Err(end) => return Ok(end),
        };
        let stop = if a.calls.is_empty() {
            a.response.stop.unwrap_or(Stop::EndTurn)
        } else if a.response.stop == Some(Stop::MaxTokens) {
            Stop::MaxTokens
        } else {
            Stop::ToolCalls
        };
        let stop = if stop == Stop::ToolCalls && a.calls.is_empty() {
            Stop::EndTurn
        } else {
            stop
        };
        let (asst_seq, model) = self.store_assistant(turn_no, &a, stop)?;
        self.progress.turns = turn_no;
        let usage = &a.usage;
        self.progress.count(usage);
        self.progress.last_text = a.response.text.clone();
        let budget_spent = self.progress.tokens >= self.max_tokens;
        let calls = &a.calls;
        let cancelled = if calls.is_empty() {
            false
        } else {
            self.execute_calls(asst_seq, calls, budget_spent)?
        };
        let data = TurnCompleted {
            turn: turn_no,
            calls: calls.len(),
            stop_reason: stop.as_str(),
            model,
            usage: usage.event(),
            tokens: self.progress.tokens,
            duration_ms: started.elapsed().as_millis() as u64,
            ttft_ms: a.ttft,
        };
        self.durable_event(Event::TurnCompleted(data))?;
        Ok(self.after_turn(turn_no, cancelled, calls.is_empty(), budget_spent))
    }

    /// Requests the turn until the answer is usable: a truncated empty answer is retried with
    /// the recovery note (twice), an invalid turn once. `Err` ends the run.
    fn answer(&mut self, turn_no: u32) -> Result<Result<Answer, TurnEnd>, RunError> {
        let mut recoveries = 0u32;
        let mut invalid_retried = false;
        let mut recovery = false;
        loop {
            let req = self.build_request(recovery)?;
            let t0 = Instant::now();
            let resp = match self.call_provider(&req, Some(turn_no)) {
                Ok(r) => r,
                Err(RequestFailure::Cancelled) => {
                    return Ok(Err(self.end(RunStatus::Cancelled, None, None)));
                }
                Err(RequestFailure::Fatal { code, message }) => {
                    return Ok(Err(self.end(RunStatus::Failed, Some(code), Some(message))));
                }
            };
            // Time to the first streamed text, else to the complete response.
            let ttft = self
                .first_text
                .get()
                .map_or_else(|| t0.elapsed(), |f| f.saturating_duration_since(t0))
                .as_millis() as u64;
            let usage = resp.usage_or_estimate(&req);
            let seq = self.next_seq()?;
            let mut calls: Vec<RawCall> = resp.calls.clone();
            for (i, c) in calls.iter_mut().enumerate() {
                if c.id.is_empty() {
                    c.id = format!("alisio_{seq}_{i}");
                }
            }
            if resp.stop == Some(Stop::MaxTokens) {
                calls.retain(|c| c.complete);
                if calls.is_empty() && resp.text.trim().is_empty() {
                    let p = &mut self.progress;
                    p.tokens = p
                        .tokens
                        .saturating_add(usage.input.saturating_add(usage.output));
                    recoveries += 1;
                    if recoveries > 2 {
                        self.progress.ended_by = Some(usage.event());
                        let m = format!(
                            "Model output was cut off before it was usable (maxOutputTokens {})",
                            self.max_output
                        );
                        return Ok(Err(self.end(
                            RunStatus::Failed,
                            Some("output_truncated"),
                            Some(m),
                        )));
                    }
                    self.durable_event(Event::TruncationRecovery(TruncationRecovery {
                        attempt: recoveries,
                        of: 2,
                        max_output_tokens: self.max_output,
                        usage: usage.event(),
                    }))?;
                    recovery = true;
                    continue;
                }
            }
            if let Some(why) = self.validate(&calls)? {
                if invalid_retried {
                    self.progress.ended_by = Some(usage.event());
                    return Ok(Err(self.end(
                        RunStatus::Failed,
                        Some("invalid_turn"),
                        Some(why),
                    )));
                }
                invalid_retried = true;
                self.durable_event(Event::RequestRetry(RequestRetry {
                    attempt: 1,
                    of: 1,
                    reason: "invalid_turn",
                    status: None,
                    delay_ms: 0,
                    discarded_text: !resp.text.is_empty(),
                    usage: Some(usage.event()),
                }))?;
                recovery = false;
                continue;
            }
            return Ok(Ok(Answer {
                response: resp,
                calls,
                usage,
                ttft,
            }));
        }
    }

    /// spec/sessions.md §1.5 step 1: the assistant message and its journaled calls in one transaction (with
    /// `response_truncated`). Returns its seq and the model it names.
    fn store_assistant(
        &mut self,
        turn_no: u32,
        a: &Answer,
        stop: Stop,
    ) -> Result<(i64, String), RunError> {
        let mut content = Vec::new();
        if !a.response.text.is_empty() {
            content.push(json!({"type":"text","text":a.response.text}));
        }
        for c in &a.calls {
            content
                .push(json!({"type":"tool_call","id":c.id,"name":c.name,"arguments":c.arguments}));
        }
        let model = if a.response.model.is_empty() {
            self.model.clone()
        } else {
            a.response.model.clone()
        };
        let mut msg = json!({"role":"assistant","content":content,"model":model,"stopReason":stop.as_str(),"usage":a.usage.json()});
        if let Some(pd) = &a.response.provider_data {
            msg["providerData"] = pd.clone();
        }
        fault("before_assistant_commit");
        let sid = self.session_id.clone();
        let run_id = self.run_id.clone();
        let mut evs = Vec::new();
        if stop == Stop::MaxTokens {
            self.progress.truncated = a.calls.is_empty();
            evs.push(Pending::new(
                &sid,
                None,
                Event::ResponseTruncated(ResponseTruncated {
                    turn: turn_no,
                    max_output_tokens: self.max_output,
                }),
            ));
        }
        let msg_s = compact(&msg);
        let calls = &a.calls;
        let asst_seq = self.emitter.commit(&mut self.store, evs, |tx| {
            let seq = tx.append_message(
                &sid,
                None,
                Role::Assistant,
                RowKind::Message,
                &msg_s,
                Some(&run_id),
            )?;
            for c in calls {
                let effect = tools::spec(&c.name).map(|s| s.effect.as_str());
                tx.add_call(&sid, &c.id, seq, &c.name, effect)?;
            }
            Ok(seq)
        })?;
        fault("after_assistant_commit");
        Ok((asst_seq, model))
    }

    /// After the calls: the run ends on a cancellation, a final answer, the token budget or
    /// the turn limit; otherwise the next turn follows.
    fn after_turn(
        &mut self,
        turn_no: u32,
        cancelled: bool,
        final_answer: bool,
        budget_spent: bool,
    ) -> TurnEnd {
        if cancelled || self.cancel.load(Ordering::Relaxed) {
            return self.end(RunStatus::Cancelled, None, None);
        }
        if final_answer {
            return self.end(RunStatus::Completed, None, None);
        }
        if budget_spent {
            let m = format!(
                "Token budget exhausted ({} of {} tokens)",
                self.progress.tokens, self.max_tokens
            );
            return self.end(RunStatus::Failed, Some("token_budget"), Some(m));
        }
        if turn_no >= self.max_turns {
            let m = format!("Maximum turns reached ({})", self.max_turns);
            return self.end(RunStatus::Failed, Some("max_turns"), Some(m));
        }
        TurnEnd::Continue
    }

    /// Finishes the run from inside a turn.
    fn end(
        &mut self,
        status: RunStatus,
        code: Option<&'static str>,
        error: Option<String>,
    ) -> TurnEnd {
        TurnEnd::Done(Box::new(self.finish(status, code, error)))
    }

    fn validate(&self, calls: &[RawCall]) -> Result<Option<String>, RunError> {
        if calls.len() > 64 {
            return Ok(Some(format!(
                "Provider turn rejected: more than 64 tool calls ({})",
                calls.len()
            )));
        }
        let mut seen = BTreeSet::new();
        for c in calls {
            if !seen.insert(c.id.as_str()) {
                return Ok(Some(format!(
                    "Provider turn rejected: duplicate tool call id \"{}\"",
                    c.id
                )));
            }
        }
        for c in calls {
            if self.store.call_exists(&self.session_id, &c.id)? {
                return Ok(Some(format!(
                    "Provider turn rejected: tool call id \"{}\" was used in an earlier turn",
                    c.id
                )));
            }
        }
        Ok(None)
    }

    fn next_seq(&self) -> Result<i64, RunError> {
        Ok(self.store.next_seq(&self.session_id)?)
    }

    /// Sends a request with retries, streaming `text_delta` for turn `turn` (summarizer
    /// requests pass `None`: no deltas). Each retry is stored and emitted as `request_retry`.
    pub(super) fn call_provider(
        &mut self,
        req: &ModelRequest,
        turn: Option<u32>,
    ) -> Result<ModelResponse, RequestFailure> {
        let sid = self.session_id.clone();
        let em = std::cell::RefCell::new(&mut self.emitter);
        let store = &mut self.store;
        let first = &self.first_text;
        first.set(None);
        let mut on_text = |t: &str| {
            if first.get().is_none() {
                first.set(Some(Instant::now()));
            }
            if let Some(n) = turn {
                em.borrow_mut().transient(&Pending::new(
                    &sid,
                    None,
                    Event::TextDelta(TextDelta {
                        turn: n,
                        text: t.to_string(),
                    }),
                ));
            }
        };
        let mut on_retry = |info: &providers::RetryInfo| {
            let ev = Pending::new(
                &sid,
                None,
                Event::RequestRetry(RequestRetry {
                    attempt: info.attempt,
                    of: info.of,
                    reason: info.reason,
                    status: info.status,
                    delay_ms: info.delay_ms,
                    discarded_text: info.discarded_text,
                    usage: None,
                }),
            );
            // A store failure here surfaces at the next commit of the turn.
            let _ = em.borrow_mut().durable(store, vec![ev]);
        };
        providers::complete(
            self.provider.as_mut(),
            req,
            &mut on_text,
            &mut on_retry,
            &self.cancel,
        )
    }
}
