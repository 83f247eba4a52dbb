//! Child sessions (spec/sessions.md §9): a `task` call runs a sub-agent as a new session with the
//! parent as `parent_id`, in the same run: same provider (lent for the duration), same event
//! sequence, approvals and grants; its final answer becomes the call's result.

use super::error::RunError;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Map, Value, json};

use super::calls::Done;
use super::request::Seat;
use super::{ActiveTranscript, Progress, Run, RunStatus};
use crate::events::Emitter;
use crate::providers::{self, ModelRequest, Provider};
use crate::run_governor::RunGovernor;
use crate::settings::SessionMode;
use crate::store::{SessionRow, Store};
use crate::tools::ToolCtx;
use crate::tools::args::{self, Task};
use crate::util::{compact, now_rfc3339, uuid7};

/// Stands in for the provider while a child run borrows it.
pub(super) struct Lent;

impl Provider for Lent {
    fn attempt(
        &mut self,
        _req: &ModelRequest,
        _on_text: &mut providers::OnText,
        _cancel: &AtomicBool,
    ) -> providers::Attempt {
        Err(providers::AttemptError::Fatal {
            code: "internal",
            message: "provider in use".into(),
        })
    }
}

impl Run<'_> {
    /// Which session this run is for (spec/sessions.md §4.3, §9, §12.1).
    pub(super) fn seat(&self) -> Seat {
        let coordinator = self.mode == SessionMode::Coordinator;
        if self.is_child {
            Seat::Child {
                worker: coordinator,
            }
        } else if coordinator {
            Seat::Coordinator
        } else {
            Seat::Root {
                task: self.options.config.subagents,
            }
        }
    }

    /// Runs a `task` call: a child session in the same run (spec/sessions.md §9).
    pub(super) fn run_child(
        &mut self,
        call_id: &str,
        args: &Map<String, Value>,
    ) -> Result<(Done, Option<String>), RunError> {
        let Task {
            description,
            prompt,
        } = match args::decode(args) {
            Ok(t) => t,
            // Validated against the schema: only a struct/schema disagreement gets here.
            Err(e) => return Ok((Done::error("error", e.to_string()), None)),
        };
        self.child_session(call_id, description, prompt, None)
    }

    /// Runs a skill in a child session (spec/sessions.md §12.7): its `skill_load` text and the
    /// request as the first message, its `allowed-tools` (when given) as the only tools.
    pub(super) fn run_skill(
        &mut self,
        call_id: &str,
        args: &Map<String, Value>,
    ) -> Result<(Done, Option<String>), RunError> {
        let name = args.get("name").and_then(Value::as_str).unwrap_or_default();
        let prompt = args
            .get("prompt")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let skill = match self.context.skill_fork(name, &self.cwd()) {
            Some(Ok(s)) => s,
            Some(Err(e)) => return Ok((Done::error("error", e.to_string()), None)),
            None => return Ok((Done::error("error", format!("Unknown skill: {name}")), None)),
        };
        let only = skill.allowed_tools.as_ref().map(|t| tool_names(t));
        let text = format!("{}\n\nUser request: {prompt}", skill.text);
        self.child_session(call_id, format!("Skill {}", skill.display_id), text, only)
    }

    fn child_session(
        &mut self,
        call_id: &str,
        description: String,
        prompt: String,
        only: Option<Vec<String>>,
    ) -> Result<(Done, Option<String>), RunError> {
        let mut copts = self.options.clone();
        copts.prompt = prompt;
        copts.attachments = Vec::new();
        copts.session_id = None;
        copts.max_turns = Some(self.options.config.subagent_max_turns);
        copts.cancel_reason = "parent".into();
        copts.kill_tasks_at_end = false;
        copts.cwd = self.cwd();
        let store = Store::open(&self.options.state_dir)?;
        let child_sid = uuid7();
        let session = SessionRow {
            id: child_sid.clone(),
            title: description,
            workspace: self.session.workspace.clone(),
            cwd: self.session.cwd.clone(),
            created_at: now_rfc3339(),
            updated_at: now_rfc3339(),
            parent_id: Some(self.session_id.clone()),
            parent_call_id: Some(call_id.to_string()),
            provider: self.provider_config.stored(),
            options: json!({"mode": self.mode.as_str()}),
            compacted_chars: 0,
        };
        let tctx = Arc::new(ToolCtx {
            roots: self.tool_context.roots.clone(),
            session_id: child_sid.clone(),
            state_dir: self.tool_context.state_dir.clone(),
            cancel: Arc::clone(&self.cancel),
            background_tasks: Arc::clone(&self.tool_context.background_tasks),
            env: self.tool_context.env.clone(),
            sandbox: Arc::clone(&self.tool_context.sandbox),
            glance_sandbox: None,
            context: Arc::clone(&self.context),
            cwd: self.tool_context.cwd.clone(),
        });
        let provider = std::mem::replace(&mut self.provider, Box::new(Lent));
        let parent_seq = self.emitter.seq();
        let parent_sid = self.session_id.clone();
        let (result, seq, provider) = {
            let mut em = Emitter::new(&self.run_id, self.emitter.sink());
            em.set_seq(parent_seq);
            em.parent = Some(parent_sid);
            let mut child = Run {
                options: &copts,
                store,
                emitter: em,
                session_id: child_sid.clone(),
                run_id: self.run_id.clone(),
                session,
                provider,
                provider_config: self.provider_config.clone(),
                model: self.model.clone(),
                tool_context: tctx,
                context: Arc::clone(&self.context),
                approver: self.approver,
                grants: Arc::clone(&self.grants),
                policies: self.policies,
                cancel: Arc::clone(&self.cancel),
                progress: Progress::default(),
                governor: RunGovernor::new(self.options.governor, &self.options.settings),
                max_turns: self.options.config.subagent_max_turns,
                max_tokens: self.max_tokens.saturating_sub(self.progress.tokens),
                max_output: self.max_output,
                compacted_this_turn: false,
                window: self.window,
                is_child: true,
                mode: self.mode,
                relay_on: false,
                relay_next: None,
                tool_filter: only,
                expanded: None,
                transcript: ActiveTranscript::default(),
                first_text: std::cell::Cell::new(None),
                edits: super::marks::Edits::default(),
                nested: Vec::new(),
            };
            let r = child.run(false);
            (
                r,
                child.emitter.seq(),
                std::mem::replace(&mut child.provider, Box::new(Lent)),
            )
        };
        self.provider = provider;
        self.emitter.set_seq(seq);
        self.progress.tokens += result.tokens;
        let done = match result.status {
            RunStatus::Completed => {
                // Whole (issue 21, flower: the report is the only channel back to the parent);
                // the parent's governor never spills it (policy2::NEVER_SPILLED) and may age it.
                let text = result.text.clone();
                let out = json!({"sessionId":child_sid,"status":"completed","text":text,"turns":result.turns});
                Done {
                    outcome: "ok",
                    is_error: false,
                    texts: vec![compact(&out)],
                    ms: 0,
                    denial: None,
                }
            }
            RunStatus::Cancelled => Done {
                outcome: "cancelled",
                is_error: true,
                texts: vec!["Cancelled: the run was cancelled while this call was running.".into()],
                ms: 0,
                denial: None,
            },
            RunStatus::Failed => Done {
                outcome: "error",
                is_error: true,
                texts: vec![format!(
                    "Sub-agent failed: {}",
                    result.error.unwrap_or_default()
                )],
                ms: 0,
                denial: None,
            },
        };
        Ok((done, Some(child_sid)))
    }
}

/// `allowed-tools` entries as alisio tool names: alisio's own names as they are, the common
/// Claude Code names mapped by the table ([`Spec::aliases`](crate::tools::Spec::aliases):
/// `Read` → `read_file`, `Bash` → `run_process` and `shell`, …), a rule's argument part
/// (`Bash(git:*)`) dropped.
fn tool_names(allowed: &[String]) -> Vec<String> {
    let mut v = Vec::new();
    for a in allowed {
        let base = a.split('(').next().unwrap_or_default().trim();
        let mapped: Vec<&str> = crate::tools::table::TOOLS
            .iter()
            .map(|t| t.spec())
            .filter(|s| s.aliases.contains(&base))
            .map(|s| s.name)
            .collect();
        if mapped.is_empty() {
            v.push(base.to_string());
        } else {
            v.extend(mapped.iter().map(|m| (*m).to_string()));
        }
    }
    v
}
