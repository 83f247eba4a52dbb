//! Confinement and approvals of one call (spec/sessions.md §2.5 steps 6–7, spec/sessions.md §3): a path outside the
//! workspace asks for `external` access (or is refused headless), then an effect that is not
//! allowed or granted asks the approver with a one-line summary; `allow-session` grants last
//! for the session.

use super::error::RunError;
use crate::events::{ApprovalRequested, ApprovalResolved, Event, SandboxState};
use serde_json::Value;

use super::Run;
use super::calls::{Done, Slot};
use crate::approvals::{self, Policy, Reply};
use crate::tools::{Effect, confine::Refusal, review};
use crate::util::ellipsize;

impl Run<'_> {
    /// Steps 6–7: confinement (with `external` approval) and effect approval.
    pub(super) fn gate(&mut self, s: &Slot) -> Result<Option<Done>, RunError> {
        let (Some(tool), Some(args)) = (s.tool, &s.args) else {
            return Ok(None);
        };
        let sp = tool.spec();
        let refuse = |t: String| {
            Some(Done {
                outcome: "refused",
                is_error: true,
                texts: vec![t],
                ms: 0,
                denial: Some("confinement"),
            })
        };
        let mut paths_shown = Vec::new();
        let mut target = None;
        for p in sp.declared_paths(args) {
            let extra_dirs = self
                .grants
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .dirs
                .clone();
            let mut roots = self.tool_context.roots.clone();
            roots.external.extend(extra_dirs);
            match roots.confine(&p) {
                Ok(c) => {
                    paths_shown.push(c.shown.clone());
                    target.get_or_insert(c);
                }
                Err(Refusal::Escape(shown)) => return Ok(refuse(Refusal::Escape(shown).message())),
                Err(Refusal::Outside(shown, dir)) => {
                    if self.approver.is_none() {
                        return Ok(refuse(Refusal::Outside(shown, dir).message()));
                    }
                    let summary = ellipsize(
                        &format!("Access outside the workspace: {}", dir.display()),
                        200,
                    );
                    match self.ask(s, "external", summary, vec![shown.clone()], None)? {
                        Ok((session, _)) => {
                            if session {
                                self.grants
                                    .lock()
                                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                                    .dirs
                                    .push(dir);
                            }
                            paths_shown.push(shown);
                        }
                        Err(d) => return Ok(Some(d)),
                    }
                }
            }
        }
        if sp.effect == Effect::Read {
            return Ok(None);
        }
        let policy = self.policies.of(sp.effect);
        let granted = self
            .grants
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .effects
            .contains(sp.effect.as_str());
        if policy == Policy::Allow || granted {
            return Ok(None);
        }
        if policy == Policy::Deny || self.approver.is_none() {
            return Ok(Some(Done {
                outcome: "denied",
                is_error: true,
                texts: vec!["Denied: the user did not approve this call.".into()],
                ms: 0,
                denial: Some("approval"),
            }));
        }
        let summary = tool.summary(args, &paths_shown);
        let summary = if tool.command_line(args).is_some() {
            let note = self.tool_context.sandbox.note();
            let room = 200 - note.chars().count();
            format!("{}{note}", ellipsize(summary.trim_end(), room))
        } else {
            ellipsize(summary.trim_end(), 200)
        };
        let preview = tool.preview(&alisio_base::workspace::DiskFs, args, target.as_ref());
        let shown = preview.clone();
        match self.ask(s, sp.effect.as_str(), summary, paths_shown, preview)? {
            Ok((session, review)) => {
                if session {
                    self.grants
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .effects
                        .insert(sp.effect.as_str().to_string());
                }
                // spec/sessions.md §4.4: the write applies what the user approved, over the
                // file as it was shown.
                if let Some(writes) = tool.writes() {
                    match review::reviewed(writes, args, shown.as_ref(), review.as_ref()) {
                        Ok(Some(r)) => {
                            self.edits.reviewed.insert(s.id.clone(), r);
                        }
                        Ok(None) => {}
                        Err(t) => return Ok(refuse(t.to_string())),
                    }
                }
                Ok(None)
            }
            Err(d) => Ok(Some(d)),
        }
    }

    /// Asks the approver; `Ok((true, _))` for allow-session, `Ok((false, _))` for allow-once,
    /// with the user's review of a write.
    fn ask(
        &mut self,
        s: &Slot,
        effect: &str,
        summary: String,
        paths: Vec<String>,
        preview: Option<Value>,
    ) -> Result<Result<(bool, Option<approvals::Review>), Done>, RunError> {
        let Some(ap) = self.approver else {
            return Ok(Err(Done {
                outcome: "denied",
                is_error: true,
                texts: vec!["Denied: the user did not approve this call.".into()],
                ms: 0,
                denial: Some("approval"),
            }));
        };
        let sid = self.session_id.clone();
        self.durable_event(Event::ApprovalRequested(ApprovalRequested {
            call_id: s.id.clone(),
            tool: s.name.clone(),
            effect: effect.to_string(),
            summary: summary.clone(),
            paths: paths.clone(),
            sandbox: (effect == "process").then(|| SandboxState::of(&self.tool_context.sandbox)),
        }))?;
        let req = approvals::ApprovalRequest {
            session_id: sid.clone(),
            call_id: s.id.clone(),
            tool: s.name.clone(),
            effect: effect.to_string(),
            summary,
            paths,
            preview,
            sandbox: if effect == "process" {
                self.tool_context.sandbox.json()
            } else {
                Value::Null
            },
        };
        let (reply, review) = ap.approve_reviewed(&req, &self.cancel);
        let (decision, source, denial) = approvals::resolve(&reply);
        if reply == Reply::Cancelled {
            return Ok(Err(Done {
                outcome: "cancelled",
                is_error: true,
                texts: vec!["Cancelled: the run was cancelled before this call ran.".into()],
                ms: 0,
                denial: None,
            }));
        }
        self.durable_event(Event::ApprovalResolved(ApprovalResolved {
            call_id: s.id.clone(),
            decision,
            source,
        }))?;
        if reply == Reply::Unsupported {
            // The client counts as headless from now on: ask becomes deny.
            self.approver = None;
            self.policies = self.policies.effective(&[], false, true);
        }
        Ok(match denial {
            Some(t) => Err(Done {
                outcome: "denied",
                is_error: true,
                texts: vec![t],
                ms: 0,
                denial: Some("approval"),
            }),
            None => Ok((reply == Reply::AllowSession, review)),
        })
    }
}
