//! `alisio-ls run PROMPT` (spec/sessions.md §2.1, §2.11): one headless agent session. `--json`
//! prints one event per line; otherwise text to stdout and notes to stderr.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use clap::Args;
use serde_json::{Value, json};

use super::{Ctx, Exit, Failure, err_line, out};
use alisio_base::config::GovernorMode;
use alisio_session::approvals::{SessionGrants, parse_allow};
use alisio_session::context::DiskContext;
use alisio_session::events::{Emitted, Event};
use alisio_session::settings::{RunOptions, SessionConfig};
use alisio_session::tools::bg::Tasks;
use alisio_session::{PreRunError, RunStatus, SessionRun, run_session};

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The prompt.
    pub prompt: String,
    /// Resume this session (full id or a unique prefix of at least 8 characters).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Allow effects without asking: write, process (comma-separated, repeatable).
    #[arg(long, value_name = "LIST")]
    pub allow: Vec<String>,
    /// Offer no write or process tools.
    #[arg(long)]
    pub read_only: bool,
    /// Governor mode for this run.
    #[arg(long, value_parser = ["off", "shadow", "on"])]
    pub governor: Option<String>,
    /// Session mode: coordinator delegates every write, edit and process (spec/sessions.md §12.1).
    #[arg(long, value_parser = ["default", "coordinator"])]
    pub mode: Option<String>,
    /// Provider kind: openai, anthropic, script.
    #[arg(long, value_name = "KIND")]
    pub provider: Option<String>,
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Play a JSONL script (implies --provider script).
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_turns: Option<u32>,
    /// Process sandbox for this run (spec/sessions.md §10.4).
    #[arg(long, value_name = "MODE", value_parser = ["workspace-write", "read-only", "off"])]
    pub sandbox: Option<String>,
    /// Approve an external directory for the run (repeatable).
    #[arg(long, value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    #[arg(long, value_name = "TEXT")]
    pub goal: Option<String>,
    #[arg(long, value_name = "TEXT")]
    pub criterion: Vec<String>,
    #[arg(long, value_name = "TEXT")]
    pub optional_criterion: Vec<String>,
}

/// Builds the run options from the context and flags.
///
/// # Errors
/// Usage errors.
pub fn options(ctx: &Ctx, a: &RunArgs) -> Result<RunOptions, Failure> {
    if a.read_only && !a.allow.is_empty() {
        return Err(Failure(
            "--read-only cannot be combined with --allow".into(),
        ));
    }
    let allow = parse_allow(&a.allow)?;
    if a.prompt.len() > 1_048_576 {
        return Err(Failure("Prompt exceeds 1 MiB".into()));
    }
    let state = ctx.env.state_home().ok_or_else(|| {
        Failure("cannot determine the state directory (set ALISIO_STATE_HOME or HOME)".into())
    })?;
    let mut o = RunOptions::new(&a.prompt, ctx.root.clone(), ctx.cwd.clone(), state);
    o.settings = ctx.settings.clone();
    o.governor = a
        .governor
        .as_deref()
        .and_then(GovernorMode::parse)
        .unwrap_or(ctx.settings.governor);
    o.config = SessionConfig::from_layers(&ctx.layers);
    if let Some(m) = a.sandbox.as_deref() {
        o.config.sandbox = alisio_sandbox::Mode::parse(m)
            .ok_or_else(|| Failure(alisio_sandbox::invalid_mode(m)))?;
    }
    let mut p = serde_json::Map::new();
    if let Some(k) = &a.provider {
        p.insert("kind".into(), json!(k));
    }
    if let Some(m) = &a.model {
        p.insert("model".into(), json!(m));
    }
    if let Some(u) = &a.base_url {
        p.insert("baseUrl".into(), json!(u));
    }
    if let Some(s) = &a.script {
        p.insert("kind".into(), json!("script"));
        p.insert("script".into(), json!(ctx.resolve(s).to_string_lossy()));
    }
    o.provider_overrides = p;
    o.allow = allow;
    o.read_only = a.read_only;
    o.headless = true;
    o.add_dirs = a.add_dir.iter().map(|d| ctx.resolve(d)).collect();
    o.goal = a.goal.clone();
    o.criteria = a
        .criterion
        .iter()
        .map(|c| (c.clone(), true))
        .chain(a.optional_criterion.iter().map(|c| (c.clone(), false)))
        .collect();
    o.max_turns = a.max_turns;
    o.mode = a
        .mode
        .as_deref()
        .and_then(alisio_session::settings::SessionMode::parse);
    o.session_id = a.session.clone();
    o.cancel_reason = "signal".into();
    o.kill_tasks_at_end = true;
    Ok(o)
}

fn human(ev: &Event, mid_text: &mut bool) {
    match ev {
        Event::TextDelta(d) => {
            *mid_text = true;
            out(&d.text);
        }
        Event::ToolStarted(d) => {
            // The model's text ends its line before the tool line (stdout and stderr share a
            // terminal: "Let me look.→ read_file" otherwise).
            if std::mem::take(mid_text) {
                out("\n");
            }
            err_line(&format!(
                "→ {} {}",
                d.name,
                alisio_session::util::take_chars(&d.arguments, 80)
            ));
        }
        Event::ToolCompleted(d) if d.outcome == "denied" || d.outcome == "refused" => {
            err_line(&format!(
                "  {}: {}",
                d.outcome,
                d.preview.lines().next().unwrap_or_default()
            ));
        }
        Event::CompactionCompleted(d) => err_line(&format!("[compacted {} messages]", d.replaced)),
        Event::CompactionSkipped(d) => err_line(&format!("[compaction: {}]", d.detail)),
        Event::CompactionFailed(d) => err_line(&format!("[compaction: {}]", d.error)),
        Event::ContextReduced(d) => err_line(&format!(
            "[context reduced: {} messages clipped]",
            d.messages
        )),
        Event::TurnCompleted(_) if *mid_text => {
            *mid_text = false;
            out("\n");
        }
        Event::RunFailed(d) => err_line(&format!(
            "error: {}",
            d.error.as_deref().unwrap_or_default()
        )),
        Event::RunCancelled(_) => err_line("cancelled"),
        _ => {}
    }
}

/// The human rendering of a ContextReport (modes `shadow` and `on`).
fn report_lines(r: &Value) -> String {
    let mut out = format!(
        "Context report (governor {}): {} messages, {} segments",
        r["mode"].as_str().unwrap_or_default(),
        r["messages"],
        r["segments"].as_array().map_or(0, Vec::len) as u64
            + r["segmentsOmitted"].as_u64().unwrap_or(0)
    );
    if let Some(t) = r["totals"].as_object() {
        let parts: Vec<String> = t
            .iter()
            .filter_map(|(k, v)| match v {
                Value::Number(n) => Some(format!("{k} {n}")),
                Value::Object(o) => {
                    let inner: Vec<String> = o
                        .iter()
                        .filter_map(|(k2, v2)| v2.as_u64().map(|n| format!("{k2} {n}")))
                        .collect();
                    (!inner.is_empty()).then(|| format!("{k} ({})", inner.join(", ")))
                }
                _ => None,
            })
            .collect();
        out.push_str(&format!("\n  {}", parts.join("; ")));
    }
    if let Some(rp) = r.get("replay").filter(|v| v.is_object()) {
        out.push_str(&alisio_governor::replay::summary_line(rp));
        if let Ok(b) = serde_json::from_value(rp["recorded"].clone()) {
            out.push_str("\n  ");
            out.push_str(&alisio_governor::recorded::live_line(&b));
        }
    }
    out
}

/// Runs the command.
///
/// # Errors
/// Usage and configuration errors (exit 2).
pub fn run(ctx: &Ctx, a: &RunArgs) -> Result<Exit, Failure> {
    let opts = options(ctx, a)?;
    let cancel = Arc::new(AtomicBool::new(false));
    // SIGINT/SIGTERM cancel the run; a second SIGINT within 2 s sends SIGKILL to the tools'
    // process groups and exits 130 at once (spec/sessions.md §2.10 step 6).
    match signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ]) {
        Ok(mut signals) => {
            let flag = Arc::clone(&cancel);
            std::thread::spawn(move || {
                let mut first_int: Option<std::time::Instant> = None;
                for sig in signals.forever() {
                    if sig == signal_hook::consts::SIGINT {
                        if first_int
                            .is_some_and(|t| t.elapsed() <= std::time::Duration::from_secs(2))
                        {
                            alisio_session::tools::process::kill_live_groups();
                            std::process::exit(130);
                        }
                        first_int = Some(std::time::Instant::now());
                    }
                    flag.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            });
        }
        Err(e) => tracing::warn!("cannot install signal handlers: {e}"),
    }
    let context = Arc::new(DiskContext::new(
        ctx.root.clone(),
        ctx.settings.clone(),
        ctx.trusted,
        ctx.env.clone(),
    ));
    let json_mode = ctx.args.json;
    let mut mid_text = false;
    let mut sink = |ev: &Emitted<'_>| {
        if json_mode {
            out(&format!("{}\n", ev.json));
        } else {
            human(ev.event, &mut mid_text);
        }
    };
    let r = run_session(SessionRun {
        options: &opts,
        context,
        sink: &mut sink,
        approver: None,
        grants: Arc::new(Mutex::new(SessionGrants::default())),
        tasks: Arc::new(Mutex::new(Tasks::default())),
        cancel,
    });
    match r {
        Err(PreRunError::Usage(m)) => Err(Failure(m)),
        Err(e) => {
            err_line(&format!("error: {}", e.message()));
            Ok(Exit::Findings)
        }
        Ok(res) => {
            if !json_mode {
                let report = res.report.to_json();
                if report["measured"] == Value::Bool(true) {
                    err_line(&report_lines(&report));
                }
                err_line(&format!("Session: {}", res.session_id));
            }
            Ok(match res.status {
                RunStatus::Completed => Exit::Ok,
                RunStatus::Failed => Exit::Findings,
                RunStatus::Cancelled => Exit::Cancelled,
            })
        }
    }
}
