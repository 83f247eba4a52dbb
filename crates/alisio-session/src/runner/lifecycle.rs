//! The run lifecycle (spec/sessions.md §1.7, §2.1, §2.9): the checks before a run, opening or
//! resuming the session under its lock, the provider, reconciliation of an interrupted run, the
//! run row and `run_started`, the prompt, and the end: the `runs` row, the terminal event and
//! the task table.

use super::error::RunError;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::{ActiveTranscript, PreRunError, Progress, Run, RunResult, RunStatus};
use crate::SessionContext;
use crate::approvals::{Approver, Policy, SessionGrants};
use crate::events::{
    Emitter, Event, Pending, ReconciledCall, RunCancelled, RunCompleted, RunFailed, RunStarted,
    RunUsage, SandboxState, SandboxUnavailable, SessionReconciled, ToolCompleted,
};
use crate::providers::{self, Provider, ProviderSetupError, TokenUsage};
use crate::run_governor::RunGovernor;
use crate::settings::{ProviderConfig, ProviderKind, RunOptions, SessionMode};
use crate::store::{self, Reconciled, Role, RowKind, RunEnd, SessionRow, Store, TaskRow};
use crate::tools::{self, ToolCtx, bg::Tasks, confine::Roots};
use crate::util::{compact, fault, now_rfc3339, take_chars, uuid7};
use alisio_governor::stored::{SessionOptions, StoredCriterion, StoredGoal};

const MAX_PROMPT: usize = 1_048_576;

/// Everything one run needs from the surface that starts it (the CLI, the language server,
/// tests): what to run, where its events go, who approves, and the state shared across runs.
pub struct SessionRun<'a> {
    /// The prompt, the session to resume, flags and configuration.
    pub options: &'a RunOptions,
    /// The instruction and skill side (spec/instructions.md §2.7–2.8).
    pub context: Arc<dyn SessionContext>,
    /// Receives every event envelope, in order, after its transaction commits.
    pub sink: crate::events::Sink<'a>,
    /// Asks the user for approvals; `None` (or a headless approver) runs headless.
    pub approver: Option<&'a dyn Approver>,
    /// Approvals given "for the session" (an editor session keeps them across runs).
    pub grants: Arc<Mutex<SessionGrants>>,
    /// The background task table (an editor session keeps it across runs).
    pub tasks: Arc<Mutex<Tasks>>,
    /// Set to stop the run.
    pub cancel: Arc<AtomicBool>,
}

/// Runs one prompt in a session: creates or resumes it, streams events to the sink, asks the
/// approver for approvals (none: headless), stops when `cancel` becomes true.
///
/// # Errors
/// [`PreRunError`] when the run could not start (no events were emitted then).
pub fn run_session(req: SessionRun<'_>) -> Result<RunResult, PreRunError> {
    let SessionRun {
        options,
        context,
        sink,
        approver,
        grants,
        tasks,
        cancel,
    } = req;
    let mut opts = options.clone();
    // The provider continues from link to link (a script goes on with its next line).
    let mut carried = None;
    loop {
        let r = run_link(
            &mut carried,
            SessionRun {
                options: &opts,
                context: Arc::clone(&context),
                sink: &mut *sink,
                approver,
                grants: Arc::clone(&grants),
                tasks: Arc::clone(&tasks),
                cancel: Arc::clone(&cancel),
            },
        )?;
        // spec/sessions.md §12.5: a relay continues the run in the next link of the chain.
        let Some((next, first)) = r.relay.clone().filter(|_| r.status == RunStatus::Completed)
        else {
            return Ok(r);
        };
        let store = Store::open(&opts.state_dir).map_err(PreRunError::from)?;
        let old = store
            .session(&r.session_id)
            .map_err(PreRunError::from)?
            .ok_or_else(|| PreRunError::Other(format!("Session not found: {}", r.session_id)))?;
        let max = opts.max_turns.unwrap_or(opts.config.max_turns);
        opts.max_turns = Some(max.saturating_sub(r.turns).max(1));
        opts.mode = old.options["mode"].as_str().and_then(SessionMode::parse);
        opts.relay = Some(crate::settings::RelayLink {
            of: r.session_id.clone(),
            id: next,
            title: old.title,
        });
        opts.session_id = None;
        opts.prompt = first;
        opts.attachments = Vec::new();
    }
}

/// The options a relay's new session starts with: the standing ones of the session it
/// continues (goal, criteria, mode, governor, instruction quotes) and the link `relayOf`.
fn relay_options(old: &Value, of: &str) -> Value {
    let mut m = serde_json::Map::new();
    for k in ["governor", "goal", "criteria", "mode", "contextInvariants"] {
        if let Some(v) = old.get(k) {
            m.insert(k.into(), v.clone());
        }
    }
    m.insert("relayOf".into(), json!(of));
    Value::Object(m)
}

/// One link of a run: one session from its lock to its terminal event.
fn run_link(
    carried: &mut Option<(Box<dyn Provider>, String)>,
    req: SessionRun<'_>,
) -> Result<RunResult, PreRunError> {
    let SessionRun {
        options: opts,
        context: ctx,
        sink,
        approver,
        grants,
        tasks,
        cancel,
    } = req;
    if opts.prompt.len() > MAX_PROMPT {
        return Err(PreRunError::Usage("Prompt exceeds 1 MiB".into()));
    }
    if opts.read_only && !opts.allow.is_empty() {
        return Err(PreRunError::Usage(
            "--read-only cannot be combined with --allow".into(),
        ));
    }
    let store = Store::open(&opts.state_dir).map_err(PreRunError::from)?;
    let (sid, existing) = resolve_session(&store, opts)?;
    let lock = store::lock(&opts.state_dir, &sid)?;
    let pcfg = provider_config(opts).map_err(|e| PreRunError::Other(e.to_string()))?;
    let run_number: i64 = store.run_count(&sid).unwrap_or(0);
    let (provider, model) = match carried.take() {
        Some(p) => p,
        None => build_provider(&pcfg, &opts.cwd, run_number as u64 + 1)
            .map_err(|e| PreRunError::Other(e.to_string()))?,
    };
    let headless = opts.headless || approver.is_none_or(Approver::headless);
    let cfg = &opts.config;
    let policies = cfg.policies(&opts.allow, opts.read_only, headless);
    // spec/sessions.md §10.4: the sandbox is probed only when process tools can run at all.
    let sandbox = Arc::new(if policies.process == Policy::Deny {
        alisio_sandbox::Sandbox::off()
    } else {
        alisio_sandbox::Sandbox::prepare(
            cfg.sandbox,
            cfg.network,
            alisio_sandbox::tmp_dir(&opts.state_dir, &sid),
        )
    });
    let policies = policies.with_sandbox(sandbox.active(), headless);
    {
        let mut g = grants
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for e in &opts.allow {
            g.effects.insert(e.as_str().to_string());
        }
    }
    let mode = mode_of(opts, existing.as_ref());
    let tctx = tool_ctx(opts, &sid, &pcfg, tasks, &cancel, &ctx, sandbox, mode);
    let window = pcfg.context_window.or_else(|| {
        if pcfg.kind == ProviderKind::Script {
            script_window(&pcfg, &opts.cwd)
        } else {
            None
        }
    });
    let max_tokens = cfg
        .max_tokens
        .unwrap_or_else(|| window.map_or(1_000_000, |w| (8 * w).clamp(400_000, 8_000_000)));
    let max_output = cfg.max_output_tokens.unwrap_or(pcfg.max_output_tokens);
    // A `/skill:` prompt is expanded before anything is written: a bad skill is a pre-run failure.
    let expanded = match ctx.expand_prompt(&opts.prompt, &opts.cwd) {
        None => None,
        Some(Ok((text, id))) => Some((text, Some(id))),
        Some(Err(e)) => return Err(PreRunError::Other(e.to_string())),
    };
    let run_id = uuid7();
    let session = existing
        .clone()
        .unwrap_or_else(|| new_row(opts, &store, &sid, &pcfg));
    let mut run = Run {
        options: opts,
        store,
        emitter: Emitter::new(&run_id, sink),
        session_id: sid.clone(),
        run_id: run_id.clone(),
        session,
        provider,
        provider_config: pcfg,
        model,
        tool_context: tctx,
        context: ctx,
        approver: if headless { None } else { approver },
        grants,
        policies,
        cancel,
        progress: Progress::default(),
        governor: RunGovernor::new(opts.governor, &opts.settings),
        max_turns: opts.max_turns.unwrap_or(cfg.max_turns),
        max_tokens,
        max_output,
        compacted_this_turn: false,
        window,
        is_child: false,
        mode,
        relay_on: cfg.relay_on(mode),
        relay_next: None,
        tool_filter: None,
        expanded,
        transcript: ActiveTranscript::default(),
        first_text: std::cell::Cell::new(None),
        edits: super::marks::Edits::default(),
        nested: Vec::new(),
    };
    let result = match run
        .start(existing.is_some())
        .and_then(|()| run.sandbox_notice())
    {
        Ok(()) => run.turns_loop(),
        Err(e) => run.finish(RunStatus::Failed, Some("store_error"), Some(e.to_string())),
    };
    if opts.kill_tasks_at_end {
        run.tool_context
            .background_tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .kill_all();
        run.tool_context.sandbox.cleanup();
    }
    run.sync_tasks();
    *carried = Some((
        std::mem::replace(&mut run.provider, Box::new(super::child::Lent)),
        run.model.clone(),
    ));
    drop(lock);
    Ok(result)
}

/// A new session's row; a relay's link takes the chain's title and the standing options of
/// the session it continues (spec/sessions.md §12.5).
fn new_row(opts: &RunOptions, store: &Store, sid: &str, pcfg: &ProviderConfig) -> SessionRow {
    let relay_of = opts.relay.as_ref().and_then(|l| {
        let old = store.session(&l.of).ok().flatten()?;
        Some((l.title.clone(), relay_options(&old.options, &l.of)))
    });
    SessionRow {
        id: sid.to_string(),
        title: relay_of
            .as_ref()
            .map_or_else(|| title_of(&opts.prompt), |r| r.0.clone()),
        workspace: opts.root.to_string_lossy().into_owned(),
        cwd: opts.cwd.to_string_lossy().into_owned(),
        created_at: now_rfc3339(),
        updated_at: now_rfc3339(),
        parent_id: None,
        parent_call_id: None,
        provider: pcfg.stored(),
        options: relay_of.map_or_else(|| json!({}), |r| r.1),
        compacted_chars: 0,
    }
}

/// The session to resume (`--session`, a full id or a unique prefix, of this workspace) or a
/// new id.
fn resolve_session(
    store: &Store,
    opts: &RunOptions,
) -> Result<(String, Option<SessionRow>), PreRunError> {
    let Some(id) = &opts.session_id else {
        return Ok((
            opts.relay.as_ref().map_or_else(uuid7, |l| l.id.clone()),
            None,
        ));
    };
    let root_s = opts.root.to_string_lossy();
    let mut id = store.resolve_id(id)?;
    // spec/sessions.md §12.5: resuming a relayed session continues the newest link.
    for _ in 0..10_000 {
        let next = store
            .session(&id)
            .map_err(PreRunError::from)?
            .and_then(|s| s.options["relayedTo"].as_str().map(String::from));
        match next {
            Some(n) if store.session(&n).ok().flatten().is_some() => id = n,
            _ => break,
        }
    }
    let s = store
        .session(&id)
        .map_err(PreRunError::from)?
        .ok_or_else(|| PreRunError::Other(format!("Session not found: {id}")))?;
    if s.workspace != root_s {
        return Err(PreRunError::Other(format!(
            "Session {id} belongs to another workspace: {}",
            s.workspace
        )));
    }
    Ok((id, Some(s)))
}

/// spec/sessions.md §12.1: the flag, else the resumed session's mode, else `session.mode`.
fn mode_of(opts: &RunOptions, existing: Option<&SessionRow>) -> SessionMode {
    opts.mode
        .or_else(|| {
            existing
                .and_then(|s| s.options["mode"].as_str())
                .and_then(SessionMode::parse)
        })
        .unwrap_or(opts.config.mode)
}

/// What the tools of a run see: the roots (workspace and external directories), the task
/// table with its configured limits, the child environment.
#[allow(clippy::too_many_arguments)]
fn tool_ctx(
    opts: &RunOptions,
    sid: &str,
    pcfg: &ProviderConfig,
    bg: Arc<Mutex<Tasks>>,
    cancel: &Arc<AtomicBool>,
    ctx: &Arc<dyn SessionContext>,
    sandbox: Arc<alisio_sandbox::Sandbox>,
    mode: SessionMode,
) -> Arc<ToolCtx> {
    let cfg = &opts.config;
    let mut external: Vec<PathBuf> = Vec::new();
    for d in cfg.external_dirs.iter().chain(&opts.add_dirs) {
        let d = if d.is_absolute() {
            d.clone()
        } else {
            opts.cwd.join(d)
        };
        if let Ok(c) = d.canonicalize() {
            external.push(c);
        }
    }
    {
        let mut b = bg.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        b.max_running = cfg.tasks_max_running;
        b.max_run_ms = cfg.tasks_max_run_ms;
        b.max_output = cfg.tasks_max_output;
    }
    let key_env = (pcfg.kind != ProviderKind::Script).then(|| pcfg.api_key_env.clone());
    Arc::new(ToolCtx {
        roots: Roots {
            root: opts.root.clone(),
            external,
        },
        session_id: sid.to_string(),
        state_dir: opts.state_dir.clone(),
        cancel: Arc::clone(cancel),
        background_tasks: bg,
        env: tools::process::ChildEnv::from_process(&cfg.pass_env, key_env.as_deref()),
        sandbox,
        // spec/sessions.md §12.3: glance commands run read-only, without network.
        glance_sandbox: (mode == SessionMode::Coordinator).then(|| {
            Arc::new(alisio_sandbox::Sandbox::prepare(
                alisio_sandbox::Mode::ReadOnly,
                false,
                alisio_sandbox::tmp_dir(&opts.state_dir, sid),
            ))
        }),
        context: Arc::clone(ctx),
        cwd: opts.cwd.clone(),
    })
}

/// Builds the provider for a run.
///
/// # Errors
/// `Provider model is not configured`, a missing key variable, an unreadable script.
pub fn build_provider(
    p: &ProviderConfig,
    cwd: &Path,
    run_number: u64,
) -> Result<(Box<dyn Provider>, String), ProviderSetupError> {
    let key = std::env::var(&p.api_key_env).ok().filter(|k| !k.is_empty());
    let http = |key: Option<String>| providers::http::HttpConfig {
        base_url: p.base_url.clone(),
        headers: p.headers.clone(),
        key,
        connect_timeout: p.connect_timeout,
        idle_timeout: p.idle_timeout,
        request_timeout: p.request_timeout,
        max_retries: p.max_retries,
        retry_base_ms: p.retry_base_ms,
    };
    match p.kind {
        ProviderKind::Script => {
            let path = p
                .script
                .as_ref()
                .ok_or(ProviderSetupError::ScriptNotConfigured)?;
            let path = if path.is_absolute() {
                path.clone()
            } else {
                cwd.join(path)
            };
            let text = std::fs::read_to_string(&path)
                .map_err(|source| ProviderSetupError::ScriptUnreadable { path, source })?;
            let s = providers::script::Script::parse(&text, run_number)?;
            let model = s.model.clone();
            Ok((Box::new(s), model))
        }
        ProviderKind::OpenAi => {
            let model = p
                .model
                .clone()
                .ok_or(ProviderSetupError::ModelNotConfigured)?;
            let o = providers::openai::OpenAi {
                http: http(key),
                model: model.clone(),
                temperature: p.temperature,
                max_tokens_param: p.max_tokens_param.clone(),
                stream_usage: p.stream_usage,
            };
            Ok((Box::new(o), model))
        }
        ProviderKind::Anthropic => {
            let model = p
                .model
                .clone()
                .ok_or(ProviderSetupError::ModelNotConfigured)?;
            let key = key.ok_or_else(|| ProviderSetupError::KeyNotSet(p.api_key_env.clone()))?;
            let a = providers::anthropic::Anthropic {
                http: http(Some(key)),
                model: model.clone(),
                temperature: p.temperature,
                prompt_cache: p.prompt_cache,
            };
            Ok((Box::new(a), model))
        }
    }
}

/// The resolved provider configuration of a run (config, then overrides).
///
/// # Errors
/// An unknown kind.
pub fn provider_config(opts: &RunOptions) -> Result<ProviderConfig, ProviderSetupError> {
    let mut p = opts.config.provider.clone();
    for (k, v) in &opts.provider_overrides {
        p.insert(k.clone(), v.clone());
    }
    ProviderConfig::from_json(&p)
}

/// The title of a session: first line of the prompt, trimmed, cut to 80 chars with `…`.
#[must_use]
pub fn title_of(prompt: &str) -> String {
    let first = prompt.lines().next().unwrap_or_default().trim();
    if first.chars().count() > 80 {
        format!("{}…", take_chars(first, 80))
    } else {
        first.to_string()
    }
}

fn script_window(p: &ProviderConfig, cwd: &Path) -> Option<u64> {
    let path = p.script.as_ref()?;
    let path = if path.is_absolute() {
        path.clone()
    } else {
        cwd.join(path)
    };
    let text = std::fs::read_to_string(path).ok()?;
    providers::script::Script::parse(&text, 1)
        .ok()?
        .context_window
}

fn run_usage(u: &TokenUsage) -> RunUsage {
    RunUsage {
        input: u.input,
        output: u.output,
        cache_read: u.cache_read,
        cache_write: u.cache_write,
    }
}

fn usage_value(u: &TokenUsage) -> Value {
    json!({"input":u.input,"output":u.output,"cacheRead":u.cache_read,"cacheWrite":u.cache_write})
}

impl Run<'_> {
    /// Starts the run and runs its turns to the end (a root run or a child's).
    pub(super) fn run(&mut self, resumed: bool) -> RunResult {
        match self.start(resumed) {
            Ok(()) => self.turns_loop(),
            Err(e) => self.finish(RunStatus::Failed, Some("store_error"), Some(e.to_string())),
        }
    }

    /// The fallback notice of spec/sessions.md §10.4, once per run: an event and a line on stderr.
    fn sandbox_notice(&mut self) -> Result<(), RunError> {
        let sb = Arc::clone(&self.tool_context.sandbox);
        let (Some(reason), Some(notice)) = (sb.unavailable.clone(), sb.notice()) else {
            return Ok(());
        };
        tracing::warn!("{notice}");
        self.durable_event(Event::SandboxUnavailable(SandboxUnavailable {
            requested: sb.requested.as_str(),
            mode: "off",
            reason,
        }))
    }

    /// Reconciliation, the session row, the run row and `run_started` (+ `session_reconciled`),
    /// then the prompt.
    fn start(&mut self, resumed: bool) -> Result<(), RunError> {
        let sid = self.session_id.clone();
        let reconciled = if resumed { self.reconcile()? } else { None };
        let options = self.run_options();
        let active_before = self.store.active_messages(&sid)?.len();
        let new_cwd = self.options.cwd.to_string_lossy().into_owned();
        let session = self.session.clone();
        let run_id = self.run_id.clone();
        let data = RunStarted {
            model: self.model.clone(),
            provider: self.provider_config.kind.as_str(),
            governor: self.options.governor.as_str(),
            resumed,
            messages: active_before,
            cwd: self.tool_context.roots.show(&self.options.cwd),
            sandbox: (self.policies.process != Policy::Deny)
                .then(|| SandboxState::of(&self.tool_context.sandbox)),
            prompt_cache_ttl_seconds: self
                .provider_config
                .prompt_cache_ttl
                .map_or(0, |d| d.as_secs()),
            relay_of: self.options.relay.as_ref().map(|l| l.of.clone()),
        };
        let stored_provider = self.provider_config.stored();
        self.emitter.commit(
            &mut self.store,
            vec![Pending::new(&sid, None, Event::RunStarted(data))],
            |tx| {
                if resumed {
                    tx.resume_session(&sid, &new_cwd, &stored_provider, &options)?;
                } else {
                    let mut s = session.clone();
                    s.options = options.clone();
                    tx.insert_session(&s)?;
                }
                tx.start_run(&run_id, &sid)
            },
        )?;
        self.session = self
            .store
            .session(&sid)?
            .unwrap_or_else(|| self.session.clone());
        if let Some((interrupted_runs, calls)) = reconciled {
            self.report_reconciled(interrupted_runs, &calls)?;
        }
        // spec/sessions.md §13.1: the checkpoint of this user turn, before its prompt.
        self.checkpoint();
        self.store_prompt()
    }

    /// spec/sessions.md §1.7, one transaction: interrupted runs, a result for every unanswered call, lost
    /// tasks; then the temporary files of interrupted writes. `None` when nothing needed it.
    fn reconcile(&mut self) -> Result<Option<(usize, Vec<Reconciled>)>, RunError> {
        let sid = self.session_id.clone();
        let missing = store::unanswered(&self.store, &sid)?;
        let run_id = self.run_id.clone();
        let (n, lost) = self.store.tx(|tx| {
            let n = tx.interrupt_running_runs(&sid)?;
            for r in &missing {
                tx.append_message(
                    &sid,
                    None,
                    Role::Tool,
                    RowKind::Message,
                    &r.json,
                    Some(&run_id),
                )?;
                tx.reconcile_call(&sid, &r.id, &r.json)?;
            }
            let lost = tx.lose_running_tasks(&sid)?;
            Ok((n, lost))
        })?;
        for r in &missing {
            if let Some(p) = &r.write_path {
                remove_temps(&self.options.root, p);
            }
        }
        Ok((n > 0 || !missing.is_empty() || lost > 0).then_some((n, missing)))
    }

    /// `session_reconciled` and a `tool_completed` for every reconciled call.
    fn report_reconciled(
        &mut self,
        interrupted_runs: usize,
        reconciled: &[Reconciled],
    ) -> Result<(), RunError> {
        let sid = self.session_id.clone();
        let calls = reconciled
            .iter()
            .map(|r| ReconciledCall {
                id: r.id.clone(),
                name: r.name.clone(),
                outcome: r.outcome.to_string(),
            })
            .collect();
        let mut evs = vec![Pending::new(
            &sid,
            None,
            Event::SessionReconciled(SessionReconciled {
                interrupted_runs,
                calls,
            }),
        )];
        for r in reconciled {
            let v: Value = serde_json::from_str(&r.json).unwrap_or(Value::Null);
            let text = providers::texts(&v);
            evs.push(Pending::new(
                &sid,
                None,
                Event::ToolCompleted(ToolCompleted {
                    id: r.id.clone(),
                    name: r.name.clone(),
                    is_error: v.get("isError").and_then(Value::as_bool).unwrap_or(true),
                    outcome: r.outcome.to_string(),
                    duration_ms: 0,
                    preview: take_chars(&text, 2000).to_string(),
                    child_session_id: None,
                }),
            ));
        }
        Ok(self.emitter.durable(&mut self.store, evs)?)
    }

    /// The session options this run stores: the stored ones with this run's governor mode,
    /// read-only flag, goal and criteria.
    fn run_options(&self) -> Value {
        let patch = SessionOptions {
            governor: Some(self.options.governor.as_str().to_string()),
            read_only: Some(self.options.read_only),
            goal: self.options.goal.as_ref().map(|g| StoredGoal {
                objective: g.clone(),
                status: "active".into(),
            }),
            criteria: (!self.options.criteria.is_empty()).then(|| {
                self.options
                    .criteria
                    .iter()
                    .map(|(t, r)| StoredCriterion {
                        text: t.clone(),
                        required: *r,
                    })
                    .collect()
            }),
            ..SessionOptions::default()
        };
        let mut v = patch.merge_into(&self.stored_options());
        if let Value::Object(m) = &mut v {
            m.insert("mode".into(), json!(self.mode.as_str()));
        }
        v
    }

    /// The prompt message (after a `/skill:` expansion) and the run's `prompt_seq`.
    fn store_prompt(&mut self) -> Result<(), RunError> {
        let (text, skill) = self.expand_prompt()?;
        let mut content: Vec<Value> = (self.options.attachments.iter())
            .map(|a| json!({"type":"text","text":a}))
            .collect();
        content.push(json!({"type":"text","text":text}));
        let mut msg = json!({"role":"user","content":content});
        if let Some(s) = skill {
            msg["skill"] = json!(s);
        }
        let run_id = self.run_id.clone();
        let sid = self.session_id.clone();
        self.store.tx(|tx| {
            let seq = tx.append_message(
                &sid,
                None,
                Role::User,
                RowKind::Message,
                &compact(&msg),
                Some(&run_id),
            )?;
            tx.set_prompt_seq(&run_id, &sid, seq)
        })?;
        fault("after_user_commit");
        Ok(())
    }

    fn expand_prompt(&self) -> Result<(String, Option<String>), RunError> {
        if let Some(pre) = &self.expanded {
            return Ok(pre.clone());
        }
        Ok((self.options.prompt.clone(), None))
    }

    fn sync_tasks(&mut self) {
        let rows = self
            .tool_context
            .background_tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .rows();
        let sid = self.session_id.clone();
        let _ = self.store.tx(|tx| {
            for r in &rows {
                tx.upsert_task(&sid, &task_row(r))?;
            }
            Ok(())
        });
    }

    /// Stores the run's end and its terminal event.
    pub(super) fn finish(
        &mut self,
        status: RunStatus,
        code: Option<&'static str>,
        error: Option<String>,
    ) -> RunResult {
        let sid = self.session_id.clone();
        let run_id = self.run_id.clone();
        let event = match status {
            RunStatus::Completed => Event::RunCompleted(RunCompleted {
                text: self.progress.last_text.clone(),
                turns: self.progress.turns,
                tokens: self.progress.tokens,
                usage: run_usage(&self.progress.usage),
                truncated: self.progress.truncated,
            }),
            RunStatus::Failed => Event::RunFailed(RunFailed {
                error: error.clone(),
                code,
                turns: self.progress.turns,
                tokens: self.progress.tokens,
                usage: self.progress.ended_by.take(),
            }),
            RunStatus::Cancelled => Event::RunCancelled(RunCancelled {
                reason: self.options.cancel_reason.clone(),
                error: "Cancelled",
            }),
        };
        let usage = compact(&usage_value(&self.progress.usage));
        let st = status.as_str();
        let (err2, code2) = (error.clone(), code);
        let pending = Pending::new(&sid, None, event);
        let end = RunEnd {
            status: st,
            usage: &usage,
            error: err2.as_deref(),
            code: code2,
        };
        let stored = self
            .emitter
            .commit(&mut self.store, vec![pending.clone()], |tx| {
                tx.finish_run(&run_id, &sid, end)
            });
        if let Err(e) = stored {
            // The store failed: still tell the consumer how the run ended.
            let p = Pending::new(
                &sid,
                None,
                Event::RunFailed(RunFailed {
                    error: Some(e.to_string()),
                    code: Some("store_error"),
                    turns: self.progress.turns,
                    tokens: self.progress.tokens,
                    usage: None,
                }),
            );
            self.emitter.transient(&p);
        }
        let report = self.report();
        RunResult {
            session_id: sid,
            run_id,
            status,
            text: self.progress.last_text.clone(),
            code: code.map(String::from),
            error,
            turns: self.progress.turns,
            tokens: self.progress.tokens,
            report,
            relay: self.relay_next.take(),
        }
    }
}

/// A row of the background task table as the store keeps it.
fn task_row(r: &Value) -> TaskRow {
    let s = |k: &str| r.get(k).and_then(Value::as_str).map(String::from);
    TaskRow {
        id: s("id"),
        label: s("label"),
        command: s("command"),
        cwd: s("cwd"),
        status: s("status"),
        exit_code: r.get("exit_code").and_then(Value::as_i64),
        log_path: s("log_path"),
        output_bytes: r.get("output_bytes").and_then(Value::as_i64).unwrap_or(0),
        created_at: s("created_at"),
        ended_at: s("ended_at"),
    }
}

/// spec/sessions.md §1.7 step 3: removes `.<name>.alisio-*.tmp` beside an interrupted write's target.
fn remove_temps(root: &Path, path: &str) {
    let p = Path::new(path);
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    };
    let (Some(dir), Some(name)) = (abs.parent(), abs.file_name()) else {
        return;
    };
    let prefix = format!(".{}.alisio-", name.to_string_lossy());
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.starts_with(&prefix) && n.ends_with(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}
