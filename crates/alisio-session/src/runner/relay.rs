//! The relay (spec/sessions.md §12.5): past `relay.atFraction` of the window, the session ends
//! its turn with a handoff the model writes in a fixed structure, and the run continues in a
//! new session linked by `relayOf`, whose first message is the handoff. Nothing is summarised
//! and nothing is compacted: the old session is stored whole. The continuation itself is
//! `lifecycle.rs`'s loop over links.

use super::error::RunError;
use serde_json::{Value, json};

use super::{Run, RunResult, RunStatus};
use crate::events::{Event, Pending, SessionRelayed};
use crate::providers::{RequestFailure, RequestKind, TokenUsage};
use crate::store::{Role, RowKind};
use crate::util::{compact, estimate, uuid7};

/// The request for the handoff, stored as a user message of the old session.
pub const RELAY_NOTE: &str = "The context of this session is nearly full. Stop working now and write the handoff for a fresh session that will continue the work with nothing but your handoff. Use exactly these headings, in this order, each followed by its content: ## Goal (what the user asked for, with their constraints), ## Decisions (each decision with its reason), ## Current state (what is done and verified, what is not), ## Open items (what remains, in order), ## Paths (artifacts, workbench scripts and files that matter). Keep paths, commands, identifiers and error texts exact. Do not call tools.";

/// The headings a handoff must carry (in order) to count as structured.
pub const HEADINGS: [&str; 5] = [
    "## Goal",
    "## Decisions",
    "## Current state",
    "## Open items",
    "## Paths",
];

/// Whether a handoff carries the fixed structure.
#[must_use]
pub fn structured(text: &str) -> bool {
    let mut at = 0;
    for h in HEADINGS {
        match text[at..].find(h) {
            Some(i) => at += i + h.len(),
            None => return false,
        }
    }
    true
}

/// The new session's first message: a header, the model's handoff, the invariants block.
#[must_use]
pub fn first_message(of: &str, handoff: &str, invariants: Option<&str>) -> String {
    let mut t = format!(
        "[Handoff from session {of}, which reached the relay threshold; continue its work from here]\n\n{}",
        handoff.trim()
    );
    if let Some(b) = invariants {
        t.push_str("\n\n");
        t.push_str(b);
    }
    t
}

impl Run<'_> {
    /// Whether the next request passes the relay threshold (root sessions with the relay on,
    /// after at least one turn of this run, so every link does some work).
    pub(super) fn relay_due(&self) -> Result<bool, RunError> {
        if !self.relay_on || self.progress.turns == 0 {
            return Ok(false);
        }
        let active = self.active()?;
        let m = self.measure(&active);
        let f = self.options.config.relay_at_fraction;
        Ok(match self.provider_config.context_window.or(self.window) {
            Some(w) => m.used as f64 >= w as f64 * f,
            None => m.request as f64 >= self.options.config.max_context_chars as f64 * f,
        })
    }

    /// Asks for the handoff, stores it (the note and the answer) in this session with the
    /// link to the next one, and ends this session's run. The caller continues the chain.
    pub(super) fn relay(&mut self) -> Result<RunResult, RunError> {
        let sid = self.session_id.clone();
        let run_id = self.run_id.clone();
        let note = compact(&json!({"role":"user","content":[{"type":"text","text":RELAY_NOTE}]}));
        self.store.tx(|tx| {
            tx.append_message(
                &sid,
                None,
                Role::User,
                RowKind::Message,
                &note,
                Some(&run_id),
            )
            .map(|_| ())
        })?;
        let mut req = self.build_request(false)?;
        req.kind = RequestKind::Handoff;
        req.tools = Vec::new();
        let turn = self.progress.turns + 1;
        let resp = match self.call_provider(&req, Some(turn)) {
            Ok(r) => r,
            Err(RequestFailure::Cancelled) => {
                return Ok(self.finish(RunStatus::Cancelled, None, None));
            }
            Err(RequestFailure::Fatal { code, message }) => {
                return Ok(self.finish(
                    RunStatus::Failed,
                    Some(code),
                    Some(format!("The relay failed: {message}")),
                ));
            }
        };
        let text = resp.text.trim().to_string();
        if text.is_empty() {
            return Ok(self.finish(
                RunStatus::Failed,
                Some("relay_failed"),
                Some("The relay failed: the model wrote no handoff".into()),
            ));
        }
        let usage = resp.usage.unwrap_or_else(|| TokenUsage {
            input: estimate(&req.neutral_json()),
            output: estimate(&text),
            cache_read: 0,
            cache_write: 0,
            estimated: true,
        });
        self.progress.count(&usage);
        let next = uuid7();
        let model = if resp.model.is_empty() {
            self.model.clone()
        } else {
            resp.model.clone()
        };
        let msg = compact(
            &json!({"role":"assistant","content":[{"type":"text","text":text}],"model":model,"stopReason":"end_turn","usage":usage.json(),"handoff":true}),
        );
        let mut options = self.stored_options();
        if let Value::Object(m) = &mut options {
            m.insert("relayedTo".into(), json!(next));
        }
        let ev = Pending::new(
            &sid,
            None,
            Event::SessionRelayed(SessionRelayed {
                to: next.clone(),
                structured: structured(&text),
                at_fraction: self.options.config.relay_at_fraction,
                usage: usage.event(),
            }),
        );
        self.emitter.commit(&mut self.store, vec![ev], |tx| {
            tx.append_message(
                &sid,
                None,
                Role::Assistant,
                RowKind::Message,
                &msg,
                Some(&run_id),
            )?;
            tx.set_options(&sid, &options)
        })?;
        self.progress.last_text = text.clone();
        let invariants = self.governor.handoff_block(&self.sources());
        self.relay_next = Some((next, first_message(&sid, &text, invariants.as_deref())));
        Ok(self.finish(RunStatus::Completed, None, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handoff_is_structured_when_its_headings_come_in_order() {
        let t = "## Goal\ng\n## Decisions\n- d because r\n## Current state\ns\n## Open items\n- o\n## Paths\n- p";
        assert!(structured(t));
        assert!(!structured(
            "## Decisions\n## Goal\n## Current state\n## Open items\n## Paths"
        ));
        assert!(!structured("just text"));
        assert_eq!(
            first_message("s1", " body\n", Some("<invariants>")),
            "[Handoff from session s1, which reached the relay threshold; continue its work from here]\n\nbody\n\n<invariants>"
        );
    }
}
