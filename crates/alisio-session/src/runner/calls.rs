//! Call execution (spec/sessions.md §2.5–§2.8, §1.5): every call of a turn on its way through the
//! pipeline: lookup and argument validation, the turn's nested-instruction attachment,
//! scheduling (batches of up to four plain reads run in parallel, everything else alone),
//! confinement and approvals (`approve.rs`), the journal, `tool_started`/`tool_completed`, the
//! output cap, and the tool messages stored in call order.

use super::error::RunError;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, mpsc};
use std::time::Instant;

use serde_json::{Map, Value};

use super::Run;
use super::request::{DELEGATE, Seat, attached_of, offered_only};
use crate::AttachedFile;
use crate::events::{Event, Pending, ToolCompleted, ToolStarted};
use crate::providers::RawCall;
use crate::store::{Role, RowKind, tool_message};
use crate::tools::error::ToolError;
use crate::tools::{self, CallOutcome, Effect, Runs, Tool};
use crate::util::{fault, take_chars};
use alisio_governor::stored::{AttachedEntry, SessionOptions};

/// One call of a turn on its way through the pipeline.
pub(super) struct Slot {
    pub(super) id: String,
    pub(super) name: String,
    /// The arguments as the model sent them.
    raw: String,
    pub(super) tool: Option<&'static dyn Tool>,
    /// The validated arguments.
    pub(super) args: Option<Map<String, Value>>,
    /// A result decided before the call runs: `(outcome, text)`.
    pre: Option<(&'static str, String)>,
    /// The structural mark of a `pre` refusal by a tool policy (`unavailable`).
    pre_denial: Option<&'static str>,
    /// Text appended to the result (the turn's nested instructions).
    extra: Option<String>,
    done: Option<Done>,
    started: Option<Instant>,
    /// The child session of a `task` call.
    child: Option<String>,
}

/// A call's result.
#[derive(Clone)]
pub(super) struct Done {
    pub(super) outcome: &'static str,
    pub(super) is_error: bool,
    pub(super) texts: Vec<String>,
    pub(super) ms: u64,
    /// The structural refusal mark stored with the result (spec/sessions.md §1.4): `approval`,
    /// `confinement`, `unavailable` (issue 24 adds `coordinator`). Never inferred from text.
    pub(super) denial: Option<&'static str>,
}

impl Done {
    /// An error result decided without running the call.
    pub(super) fn error(outcome: &'static str, text: impl Into<String>) -> Self {
        Self {
            outcome,
            is_error: true,
            texts: vec![text.into()],
            ms: 0,
            denial: None,
        }
    }
}

impl Slot {
    fn batchable(&self) -> bool {
        self.pre.is_none()
            && self.tool.map(Tool::spec).is_some_and(|s| {
                s.effect == Effect::Read && !matches!(s.runs, Runs::Child | Runs::Skill)
            })
    }
}

impl Run<'_> {
    /// Runs the calls of one turn (spec/sessions.md §2.5–§2.8). Returns whether the run was cancelled.
    pub(super) fn execute_calls(
        &mut self,
        _asst_seq: i64,
        calls: &[RawCall],
        budget_spent: bool,
    ) -> Result<bool, RunError> {
        let mut slots = self.slots(calls, budget_spent);
        // spec/sessions.md §2.7 nested instructions: one lookup for the declared paths of the turn.
        let delivered = if budget_spent {
            Vec::new()
        } else {
            self.attach_nested(&mut slots)
        };
        let mut delivered = Some(delivered).filter(|d| !d.is_empty());
        let n = slots.len();
        let mut next_store = 0usize;
        let mut i = 0usize;
        let mut cancelled = false;
        while i < n {
            // A batch of consecutive plain reads (at most 4), or one call.
            let mut j = i + 1;
            if slots[i].batchable() {
                while j < n && j - i < 4 && slots[j].batchable() {
                    j += 1;
                }
            }
            if self.run_batch(&mut slots, i..j, &mut next_store, &mut delivered)? {
                cancelled = true;
            }
            self.flush(&mut slots, &mut next_store, &mut delivered)?;
            i = j;
        }
        self.flush(&mut slots, &mut next_store, &mut delivered)?;
        Ok(cancelled)
    }

    /// spec/sessions.md §2.5 steps 1–3: each call looked up among the offered tools and its arguments validated;
    /// nothing runs once the token budget is spent.
    fn slots(&self, calls: &[RawCall], budget_spent: bool) -> Vec<Slot> {
        let seat = self.seat();
        let offered: Vec<&'static str> = offered_only(
            &self.policies,
            self.context.skills_listed(&self.cwd()),
            seat,
            self.tool_filter.as_deref(),
        )
        .iter()
        .map(|t| t.spec().name)
        .collect();
        calls
            .iter()
            .map(|c| {
                let tool = tools::tool(&c.name);
                let mut s = Slot {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    raw: c.arguments.clone(),
                    tool,
                    args: None,
                    pre: None,
                    pre_denial: None,
                    extra: None,
                    done: None,
                    started: None,
                    child: None,
                };
                match tool.map(|t| (t, t.spec())) {
                    None => {
                        s.pre = Some(("refused", format!("Unknown tool: {}", c.name)));
                        s.pre_denial = Some("unavailable");
                    }
                    // spec/sessions.md §12.1: the coordinator delegates instead.
                    Some((_, sp)) if seat == Seat::Coordinator && sp.effect != Effect::Read => {
                        s.pre = Some(("refused", DELEGATE.to_string()));
                        s.pre_denial = Some("coordinator");
                    }
                    Some((_, sp)) if !offered.contains(&sp.name) => {
                        s.pre = Some((
                            "refused",
                            format!("Tool \"{}\" is not available in this session", c.name),
                        ));
                        s.pre_denial = Some("unavailable");
                    }
                    Some((t, sp)) => match sp.validate(&c.arguments) {
                        // spec/sessions.md §12.3: glance runs only what the ephemeral table holds.
                        Ok(a) => {
                            if let Some(refusal) = t.refusal(&a) {
                                s.pre = Some(("refused", refusal));
                                s.pre_denial = Some("glance");
                            }
                            s.args = Some(a);
                        }
                        Err(e) => s.pre = Some(("error", e.to_string())),
                    },
                }
                if s.pre.is_none() && budget_spent {
                    s.pre = Some((
                        "refused",
                        "Token budget exhausted; tool was not executed".into(),
                    ));
                }
                s
            })
            .collect()
    }

    /// spec/sessions.md §2.7: the nested instructions for the paths the turn's calls declare. The first plain
    /// read carries them; every other effect is refused with them. Returns the files delivered.
    fn attach_nested(&mut self, slots: &mut [Slot]) -> Vec<AttachedFile> {
        let mut paths = Vec::new();
        // Each call's first declared path (the `target` of a nested delivery).
        let mut firsts: Vec<Option<String>> = vec![None; slots.len()];
        for (k, s) in slots.iter().enumerate() {
            if let (Some(sp), Some(a)) = (s.tool.map(Tool::spec), &s.args)
                && s.pre
                    .as_ref()
                    .is_none_or(|p| p.0 != "error" && p.0 != "refused")
            {
                for p in sp.declared_paths(a) {
                    let pb = Path::new(&p);
                    let abs = if pb.is_absolute() {
                        pb.to_path_buf()
                    } else {
                        self.options.root.join(pb)
                    };
                    let abs = alisio_base::workspace::normalize_lexically(&abs);
                    if firsts[k].is_none() {
                        firsts[k] = Some(abs.to_string_lossy().into_owned());
                    }
                    paths.push(abs);
                }
            }
        }
        let attached = attached_of(&self.options());
        let Some(att) = self.context.attach(&self.cwd(), &attached, &paths) else {
            return Vec::new();
        };
        let mut first_read = true;
        // The call whose result carries the attachment first: the first plain read, else the
        // first call refused with it.
        let (mut read, mut refused) = (None, None);
        for (k, s) in slots.iter_mut().enumerate() {
            if s.pre.is_some() {
                continue;
            }
            let eff = s.tool.map_or(Effect::Read, |t| t.spec().effect);
            if eff != Effect::Read {
                s.pre = Some((
                    "refused",
                    format!(
                        "Context changed; reconsider this call before retrying.\n{}",
                        att.text
                    ),
                ));
                refused = refused.or(Some(k));
            } else if first_read {
                s.extra = Some(format!("\n{}", att.text));
                first_read = false;
                read = Some(k);
            }
        }
        let carrier = read.or(refused);
        self.nested = att
            .delivered
            .into_iter()
            .map(|mut d| {
                if let Some(k) = carrier {
                    d.call_id = Some(slots[k].id.clone());
                    d.tool = Some(slots[k].name.clone());
                    d.target = firsts[k].clone();
                }
                d
            })
            .collect();
        att.files
    }

    /// One batch: `tool_started` for each call in order, then each call's gate (a decided
    /// result, confinement, approval, cancellation); `task` runs its child session; the rest
    /// run in parallel threads and complete in completion order. Returns whether a call was
    /// cancelled.
    fn run_batch(
        &mut self,
        slots: &mut [Slot],
        batch: std::ops::Range<usize>,
        next_store: &mut usize,
        delivered: &mut Option<Vec<AttachedFile>>,
    ) -> Result<bool, RunError> {
        let sid = self.session_id.clone();
        let evs: Vec<Pending> = batch
            .clone()
            .map(|k| {
                let s = &slots[k];
                Pending::new(
                    &sid,
                    None,
                    Event::ToolStarted(ToolStarted {
                        id: s.id.clone(),
                        name: s.name.clone(),
                        arguments: s.raw.clone(),
                        effect: s.tool.map(|t| t.spec().effect.as_str()),
                    }),
                )
            })
            .collect();
        self.emitter.durable(&mut self.store, evs)?;
        let mut cancelled = false;
        let mut runnable = Vec::new();
        for k in batch {
            if let Some((o, t)) = slots[k].pre.clone() {
                let d = Done {
                    denial: slots[k].pre_denial,
                    ..Done::error(o, t)
                };
                self.complete_slot(&mut slots[k], d)?;
                continue;
            }
            if let Some(d) = self.gate(&slots[k])? {
                self.complete_slot(&mut slots[k], d)?;
                continue;
            }
            if self.cancel.load(Ordering::Relaxed) {
                cancelled = true;
                let d = Done::error(
                    "cancelled",
                    "Cancelled: the run was cancelled before this call ran.",
                );
                self.complete_slot(&mut slots[k], d)?;
                continue;
            }
            let id = slots[k].id.clone();
            self.store.tx(|tx| tx.start_call(&sid, &id))?;
            fault("after_call_started");
            slots[k].started = Some(Instant::now());
            let runs = slots[k].tool.map_or(Runs::Thread, |t| t.spec().runs);
            if runs == Runs::Store {
                let args = slots[k].args.clone().unwrap_or_default();
                let (is_error, text) = super::result_read::run(&self.store, &sid, &args);
                let d = Done {
                    outcome: if is_error { "error" } else { "ok" },
                    is_error,
                    texts: vec![text],
                    ms: 0,
                    denial: None,
                };
                self.complete_slot(&mut slots[k], d)?;
                continue;
            }
            if matches!(runs, Runs::Child | Runs::Skill) {
                let args = slots[k].args.clone().unwrap_or_default();
                let t0 = Instant::now();
                let (mut d, child) = if runs == Runs::Child {
                    self.run_child(&id, &args)?
                } else {
                    self.run_skill(&id, &args)?
                };
                d.ms = t0.elapsed().as_millis() as u64;
                if d.outcome == "cancelled" {
                    cancelled = true;
                }
                slots[k].child = child;
                self.complete_slot(&mut slots[k], d)?;
                continue;
            }
            if let Some(r) = self.edits.reviewed.remove(&id) {
                // spec/sessions.md §4.4: the write as the user approved it.
                let t0 = Instant::now();
                let mut d = match tools::review::write(&self.tool_context, &r) {
                    Ok(texts) => Done {
                        outcome: "ok",
                        is_error: false,
                        texts,
                        ms: 0,
                        denial: None,
                    },
                    Err(e @ ToolError::StaleApproval(_)) => Done::error("refused", e.to_string()),
                    Err(e) => Done::error("error", e.to_string()),
                };
                d.ms = t0.elapsed().as_millis() as u64;
                self.complete_slot(&mut slots[k], d)?;
                continue;
            }
            runnable.push(k);
        }
        if !runnable.is_empty() && self.run_parallel(slots, &runnable, next_store, delivered)? {
            cancelled = true;
        }
        Ok(cancelled)
    }

    /// Runs the tools of `runnable` on scoped threads; each result is completed (and the
    /// stored prefix flushed) as it arrives. Returns whether a call was cancelled.
    fn run_parallel(
        &mut self,
        slots: &mut [Slot],
        runnable: &[usize],
        next_store: &mut usize,
        delivered: &mut Option<Vec<AttachedFile>>,
    ) -> Result<bool, RunError> {
        let mut cancelled = false;
        let (tx, rx) = mpsc::channel::<(usize, CallOutcome)>();
        let jobs: Vec<(usize, String, Map<String, Value>)> = runnable
            .iter()
            .map(|&k| {
                (
                    k,
                    slots[k].name.clone(),
                    slots[k].args.clone().unwrap_or_default(),
                )
            })
            .collect();
        let tctx = Arc::clone(&self.tool_context);
        std::thread::scope(|scope| -> Result<(), RunError> {
            for (k, name, args) in jobs {
                let tx = tx.clone();
                let tctx = Arc::clone(&tctx);
                scope.spawn(move || {
                    // The table's tool of that name ([`Tool::execute`]).
                    let o = tools::execute(&tctx, &name, &args);
                    let _ = tx.send((k, o));
                });
            }
            drop(tx);
            for (k, o) in rx {
                let ms = slots[k]
                    .started
                    .map_or(0, |t| t.elapsed().as_millis() as u64);
                let d = match o {
                    CallOutcome::Ok(t) => Done {
                        outcome: "ok",
                        is_error: false,
                        texts: vec![t],
                        ms,
                        denial: None,
                    },
                    CallOutcome::Err(e) => Done {
                        outcome: "error",
                        is_error: true,
                        texts: vec![e],
                        ms,
                        denial: None,
                    },
                    CallOutcome::Cancelled => {
                        cancelled = true;
                        Done {
                            outcome: "cancelled",
                            is_error: true,
                            texts: vec![
                                "Cancelled: the run was cancelled while this call was running."
                                    .into(),
                            ],
                            ms,
                            denial: None,
                        }
                    }
                };
                self.complete_slot(&mut slots[k], d)?;
                self.flush(slots, next_store, delivered)?;
            }
            Ok(())
        })?;
        Ok(cancelled)
    }

    /// spec/sessions.md §1.5 step 3: the journal row and `tool_completed` (completion order).
    fn complete_slot(&mut self, s: &mut Slot, mut d: Done) -> Result<(), RunError> {
        if let Some(x) = &s.extra {
            d.texts.push(x.clone());
        }
        self.after_workbench_call(s, &d);
        let json = tool_message(&s.id, &s.name, d.is_error, d.outcome, d.denial, &d.texts);
        let preview = take_chars(&d.texts.concat(), 2000).to_string();
        let sid = self.session_id.clone();
        let id = s.id.clone();
        let data = ToolCompleted {
            id: s.id.clone(),
            name: s.name.clone(),
            is_error: d.is_error,
            outcome: d.outcome.to_string(),
            duration_ms: d.ms,
            preview,
            child_session_id: s.child.clone(),
        };
        let ev = Pending::new(&sid, None, Event::ToolCompleted(data));
        self.emitter.commit(&mut self.store, vec![ev], |tx| {
            tx.finish_call(&sid, &id, &json)
        })?;
        fault("after_call_done");
        s.done = Some(d);
        // spec/sessions.md §13.2: a mark after every call that may have changed files.
        let may_write = s
            .tool
            .map(Tool::spec)
            .is_some_and(|sp| sp.effect != Effect::Read || sp.runs == Runs::Child);
        if s.started.is_some() && may_write {
            self.mark_after_call();
        }
        Ok(())
    }

    /// spec/sessions.md §1.5 step 4: tool messages in call order, each once all earlier ones are stored.
    fn flush(
        &mut self,
        slots: &mut [Slot],
        next: &mut usize,
        delivered: &mut Option<Vec<AttachedFile>>,
    ) -> Result<(), RunError> {
        while *next < slots.len() {
            let Some(d) = slots[*next].done.clone() else {
                break;
            };
            let s = &slots[*next];
            let json = tool_message(&s.id, &s.name, d.is_error, d.outcome, d.denial, &d.texts);
            let sid = self.session_id.clone();
            let run_id = self.run_id.clone();
            let opts = delivered.take().map(|files| self.with_attached(files));
            // spec/sessions.md §1.3: the nested files, recorded with the turn's first tool
            // message, as the attach map is.
            let nested = if opts.is_some() {
                std::mem::take(&mut self.nested)
            } else {
                Vec::new()
            };
            let request = i64::try_from(self.progress.request_no).unwrap_or(i64::MAX);
            self.store.tx(|tx| {
                let seq = tx.append_message(
                    &sid,
                    None,
                    Role::Tool,
                    RowKind::Message,
                    &json,
                    Some(&run_id),
                )?;
                if let Some(o) = &opts {
                    tx.set_options(&sid, o)?;
                }
                if !nested.is_empty() {
                    tx.add_deliveries(&sid, &run_id, request, seq, &nested)?;
                }
                Ok(())
            })?;
            fault("after_result_commit");
            self.governor.observe(&s.id);
            *next += 1;
        }
        Ok(())
    }
}

impl Run<'_> {
    /// The stored options with `files` added to the attach map (a file delivered again
    /// replaces its entry, which moves to the end).
    fn with_attached(&self, files: Vec<AttachedFile>) -> Value {
        let mut list = self.options().attached().to_vec();
        for f in files {
            let path = f.path.to_string_lossy().into_owned();
            // A file already in the section stays there (its new text is read from disk);
            // a new one waits for the next compaction (spec/instructions.md §2.8 step 7).
            let pending = list
                .iter()
                .find(|e| e.path == path)
                .is_none_or(|e| e.pending);
            list.retain(|e| e.path != path);
            list.push(AttachedEntry {
                path,
                sha256: f.sha256,
                pending,
            });
        }
        SessionOptions {
            attached_instructions: Some(list),
            ..SessionOptions::default()
        }
        .merge_into(&self.stored_options())
    }
}

impl Run<'_> {
    /// spec/sessions.md §12.4: in a coordinator session (its root and its sub-sessions), a
    /// write or process call that ran refreshes the workbench index, and a process call that
    /// named a workbench script records its run. Workbench failures never fail the call.
    fn after_workbench_call(&self, s: &Slot, d: &Done) {
        let ran = d.denial.is_none() && d.outcome != "refused";
        let effect = s.tool.map_or(Effect::Read, |t| t.spec().effect);
        if self.mode != crate::settings::SessionMode::Coordinator || !ran || effect == Effect::Read
        {
            return;
        }
        let root = &self.options.root;
        if let Some(c) = s
            .args
            .as_ref()
            .zip(s.tool)
            .and_then(|(a, t)| t.command_line(a))
        {
            let _ = crate::workbench::note_runs(root, &c, &crate::util::now_rfc3339());
        }
        if let Err(e) = crate::workbench::refresh(root) {
            tracing::warn!("workbench index: {e}");
        }
    }
}
