//! `alisio-ls governor analyze TRANSCRIPT...` (governor.md §11.1): reads recorded transcripts,
//! replays them through the governor and prints ContextReports (human or `--json`) or the
//! per-request `context_governed` payloads (`--events`).

use std::fmt::Write as _;
use std::path::PathBuf;

use super::{Ctx, Exit, Failure, err_line, out};
use crate::config::GovernorMode;
use crate::governor::readers::{self, Format, Session};
use crate::governor::report::{ContextReport, Criticality, Measured};
use crate::governor::{GovSettings, Ledger, Request, SessionGovernor, Turn, govern};

#[derive(clap::Subcommand, Debug)]
pub enum GovernorCommand {
    /// Replay recorded agent transcripts and report what the Context Governor would elide.
    Analyze(AnalyzeArgs),
}

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// Transcript files: Claude Code JSONL, Codex rollout JSONL, mini-swe-agent traj.json or an
    /// alisio-ls session export.
    #[arg(required = true, value_name = "TRANSCRIPT")]
    pub transcripts: Vec<PathBuf>,
    /// The transcript format: auto, alisio, claude-code, codex or mini-swe-agent.
    #[arg(long, value_name = "FORMAT", default_value = "auto")]
    pub input_format: String,
    /// Governor mode for the replay (default shadow, whatever context.governor says).
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
    /// Override context.elide.minAgeTurns (1 to 20).
    #[arg(long, value_name = "N")]
    pub min_age_turns: Option<String>,
    /// Override context.elide.epochMessages (0 to 1000).
    #[arg(long, value_name = "N")]
    pub epoch_messages: Option<String>,
    /// Override context.policyVersion.
    #[arg(long, value_name = "N")]
    pub policy_version: Option<String>,
    /// Print one context_governed payload per replayed request (JSON lines) instead of reports.
    #[arg(long)]
    pub events: bool,
    /// Also write a self-contained HTML page charting the input tokens per request (no network).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// How a flag value is shown in a message: its JSON text (a number as is, else a JSON string).
fn shown(v: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(v) {
        Ok(serde_json::Value::Number(_)) => v.to_owned(),
        _ => serde_json::to_string(v).unwrap_or_default(),
    }
}

fn int_flag(flag: &str, v: &str, min: i64, max: i64) -> Result<u32, Failure> {
    let ok = !v.contains(['.', 'e', 'E', '+']);
    match v.parse::<i64>() {
        Ok(n) if ok && (min..=max).contains(&n) => {
            u32::try_from(n).map_err(|e| Failure(e.to_string()))
        }
        _ => Err(Failure(format!(
            "{flag} must be an integer from {min} to {max}; got {}",
            shown(v)
        ))),
    }
}

/// The effective settings: flags, then configuration, then defaults; mode defaults to shadow.
fn settings(ctx: &Ctx, a: &AnalyzeArgs) -> Result<GovSettings, Failure> {
    let mut s = GovSettings::from_config(&ctx.settings);
    s.mode = match a.mode.as_deref() {
        None => GovernorMode::Shadow,
        Some(m) => GovernorMode::parse(m).ok_or_else(|| {
            Failure(format!(
                "--mode must be \"off\", \"shadow\" or \"on\"; got {}",
                shown(m)
            ))
        })?,
    };
    if let Some(v) = &a.min_age_turns {
        s.min_age_turns = int_flag("--min-age-turns", v, 1, 20)?;
    }
    if let Some(v) = &a.epoch_messages {
        s.epoch_messages = int_flag("--epoch-messages", v, 0, 1000)?;
    }
    if let Some(v) = &a.policy_version {
        s.policy_version = int_flag("--policy-version", v, 1, crate::config::POLICY_VERSION)?;
    }
    Ok(s)
}

fn input_format(v: &str) -> Result<Option<Format>, Failure> {
    if v == "auto" {
        return Ok(None);
    }
    Format::parse(v).map(Some).ok_or_else(|| {
        Failure(format!("--input-format must be \"auto\", \"alisio\", \"claude-code\", \"codex\" or \"mini-swe-agent\"; got {}", shown(v)))
    })
}

fn assistants(s: &Session) -> u64 {
    s.history.iter().filter(|m| m.is_assistant()).count() as u64
}

/// The report of one session (the final request, every result in the ledger).
#[must_use]
pub fn report(settings: &GovSettings, s: &Session) -> ContextReport {
    let g = govern(
        settings,
        Request {
            session_id: &s.source.session,
            history: &s.history,
            parts: &s.parts,
            sources: &s.sources,
            request: Some(assistants(s) + 1),
            ledger: Ledger::All,
        },
    );
    let mut r = g.report;
    r.set_source(serde_json::to_value(&s.source).unwrap_or_default());
    r
}

/// `context_governed` payloads of the replay: one per assistant message, then the final one.
fn events(settings: &GovSettings, s: &Session, file: &str) -> String {
    let mut gov = SessionGovernor::new();
    let mut text = String::new();
    let ends: Vec<usize> = s
        .history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_assistant())
        .map(|(i, _)| i)
        .chain([s.history.len()])
        .collect();
    for (k, end) in ends.into_iter().enumerate() {
        let turn = Turn {
            session_id: &s.source.session,
            history: &s.history[..end],
            parts: &s.parts,
            sources: &s.sources,
            request: k as u64 + 1,
            recovery: false,
        };
        if let Some(ev) = gov.request(settings, turn).event {
            let mut v = serde_json::to_value(&ev).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("file".into(), file.into());
                o.insert("session".into(), s.source.session.clone().into());
            }
            let _ = writeln!(text, "{v}");
        }
    }
    text
}

fn human(r: &ContextReport, s: &Session) -> String {
    let src = &s.source;
    let mut t = format!("{} [{}] {}\n", src.file, src.session, src.format);
    let ContextReport::Measured(m) = r else {
        t.push_str("  governor off: nothing measured\n");
        return t;
    };
    let m: &Measured = m;
    let results = s
        .history
        .iter()
        .filter(|x| matches!(x, crate::governor::model::Message::Tool(_)))
        .count();
    let tt = &m.totals;
    let pct = if tt.tokens_before == 0 {
        0.0
    } else {
        tt.tokens_saved as f64 * 100.0 / tt.tokens_before as f64
    };
    let _ = writeln!(
        t,
        "  {} messages, {results} tool results, {} elided (superseded_read {}, stale_bg_output {}, duplicate_search {}); tokens {} -> {} (saved {}, {pct:.1}%)",
        m.messages,
        tt.elided,
        tt.by_reason.superseded_read,
        tt.by_reason.stale_bg_output,
        tt.by_reason.duplicate_search,
        tt.tokens_before,
        tt.tokens_after,
        tt.tokens_saved
    );
    let _ = writeln!(
        t,
        "  mode {}, eligible {}, compactions {}, compacted messages {}, skipped lines {}, orphan calls {}, orphan results {}, redacted values {}, unclassified repeats {}",
        m.mode,
        m.eligible_messages,
        src.compactions,
        src.compacted_messages,
        src.skipped_lines,
        src.orphan_calls,
        src.orphan_results,
        src.redacted_values,
        src.unclassified_repeats
    );
    for p in &src.problems {
        let _ = writeln!(
            t,
            "  problem{}: {}",
            p.line.map(|l| format!(" at line {l}")).unwrap_or_default(),
            p.message
        );
    }
    let rows: Vec<_> = m
        .segments
        .iter()
        .filter(|x| {
            matches!(x.criticality, Criticality::Pinned | Criticality::Low) || x.elided.is_some()
        })
        .collect();
    if !rows.is_empty() {
        let _ = writeln!(
            t,
            "  {:>6}  {:<12} {:<8} {:<22} {:>7}  origin",
            "index", "kind", "crit", "reason", "tokens"
        );
        for x in rows {
            let extra = x
                .elided
                .as_ref()
                .map(|e| format!("  [{} by {}, saves {}]", e.reason, e.by, e.tokens_saved))
                .unwrap_or_default();
            let _ = writeln!(
                t,
                "  {:>6}  {:<12} {:<8} {:<22} {:>7}  {}{extra}",
                x.index,
                x.kind,
                x.criticality.as_str(),
                x.reason,
                x.tokens,
                x.origin
            );
        }
    }
    t
}

pub fn run(ctx: &Ctx, cmd: &GovernorCommand) -> Result<Exit, Failure> {
    let GovernorCommand::Analyze(a) = cmd;
    let settings = settings(ctx, a)?;
    let format = input_format(&a.input_format)?;
    let mut failed = false;
    let mut reports = Vec::new();
    let mut text = String::new();
    let mut html = Vec::new();
    let progress = super::progress::Progress::bar(
        ctx.args.json || a.events,
        a.transcripts.len() as u64,
        "analyzing",
    );
    for p in &a.transcripts {
        let shown_path = p.display().to_string();
        progress.message(&shown_path);
        progress.inc();
        let bytes = match std::fs::read(ctx.resolve(p)) {
            Ok(b) => b,
            Err(e) => {
                err_line(&format!("error: {shown_path}: {e}"));
                failed = true;
                continue;
            }
        };
        let sessions = match readers::read(&bytes, format, &shown_path) {
            Ok((_, s)) => s,
            Err(e) => {
                err_line(&format!("error: {shown_path}: {e}"));
                failed = true;
                continue;
            }
        };
        for s in &sessions {
            if a.html.is_some() {
                html.push(super::governor_html::session(&settings, s, &shown_path));
            }
            if a.events {
                text.push_str(&events(&settings, s, &shown_path));
                continue;
            }
            let r = report(&settings, s);
            if ctx.args.json {
                reports.push(r.to_json());
            } else {
                text.push_str(&human(&r, s));
            }
        }
    }
    drop(progress);
    if let Some(f) = &a.html {
        super::governor_html::write(&ctx.resolve(f), &f.display().to_string(), &html)?;
    }
    if ctx.args.json && !a.events {
        text = serde_json::to_string(&reports).unwrap_or_default();
        text.push('\n');
    }
    out(&text);
    Ok(if failed { Exit::Usage } else { Exit::Ok })
}
