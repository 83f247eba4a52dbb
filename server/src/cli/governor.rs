//! `alisio-ls governor analyze TRANSCRIPT...` (spec/governor.md §11.1): reads recorded transcripts,
//! replays them through the governor and prints ContextReports (human or `--json`) or the
//! per-request `context_governed` payloads (`--events`).

use std::fmt::Write as _;
use std::path::PathBuf;

use super::{Ctx, Exit, Failure, err_line, out};
use alisio_base::config::GovernorMode;
use alisio_governor::policy2::{Aging, GateRule, GateStart};
use alisio_governor::readers::{self, Format, Session};
use alisio_governor::recorded::{self, Recorded};
use alisio_governor::replay::{self, Prices, Replay};
use alisio_governor::report::{ContextReport, Criticality, Measured};
use alisio_governor::series;
use alisio_governor::{GovSettings, Ledger, Request, govern_with_cold};

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
    /// Override context.spill.thresholdChars (policy 2).
    #[arg(long, value_name = "N")]
    pub spill_threshold_chars: Option<String>,
    /// Override context.spill.headChars (policy 2).
    #[arg(long, value_name = "N")]
    pub spill_head_chars: Option<String>,
    /// Override context.spill.tailChars (policy 2).
    #[arg(long, value_name = "N")]
    pub spill_tail_chars: Option<String>,
    /// Override context.trim.minChars (policy 2).
    #[arg(long, value_name = "N")]
    pub trim_min_chars: Option<String>,
    /// Override context.trim.keepRecent (policy 2).
    #[arg(long, value_name = "N")]
    pub trim_keep_recent: Option<String>,
    /// Override context.trim.keepDenials (policy 2, denial pruning; 0 to 1000).
    #[arg(long, value_name = "N")]
    pub trim_keep_denials: Option<String>,
    /// The cache gate's rule (policy 2, spec/governor.md §2.7): expected+bank (the default),
    /// expected, bank or rent; for measuring the alternatives, not a configuration key.
    #[arg(long, value_name = "RULE")]
    pub cache_gate: Option<String>,
    /// Where a boundary the cache gate takes starts its rewrite (policy 2, spec/governor.md
    /// §2.7): whole (the first changed message) or best (the start with the largest expected
    /// net gain); for measuring the alternative, not a configuration key.
    #[arg(long, value_name = "START")]
    pub gate_start: Option<String>,
    /// Where aged_output counts a result's keepRecent later results from (policy 2,
    /// spec/governor.md §3.3): last-use or entry (the default); for measuring the
    /// alternative, not a configuration key.
    #[arg(long, value_name = "FROM")]
    pub trim_aging: Option<String>,
    /// Price of a cached input token relative to an uncached one (replay cost; default 0.1).
    #[arg(long, value_name = "PRICE")]
    pub cache_read: Option<String>,
    /// Price of a cache write relative to an uncached input token (replay cost; default 1.25).
    #[arg(long, value_name = "PRICE")]
    pub cache_write: Option<String>,
    /// A baseline for the replay figures: mask:N (observation masking keeping N results);
    /// may be repeated.
    #[arg(long, value_name = "BASELINE")]
    pub baseline: Vec<String>,
    /// Print one context_governed payload per replayed request (JSON lines) instead of reports.
    #[arg(long)]
    pub events: bool,
    /// Also write a self-contained HTML page charting the input tokens per request (no network).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print the main-thread share of transcripts with sub-agents instead of reports
    /// (spec/governor.md §11.9).
    #[arg(long)]
    pub delegation: bool,
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
        s.policy_version = int_flag(
            "--policy-version",
            v,
            1,
            alisio_base::config::POLICY_VERSION,
        )?;
        if ctx.settings.elide_epoch_messages.is_none() && a.epoch_messages.is_none() {
            s.epoch_messages = alisio_base::config::epoch_default(Some(s.policy_version));
        }
    }
    use alisio_base::config::{
        SPILL_HEAD_CHARS, SPILL_TAIL_CHARS, SPILL_THRESHOLD_CHARS, TRIM_KEEP_DENIALS,
        TRIM_KEEP_RECENT, TRIM_MIN_CHARS,
    };
    let p = &mut s.policy2;
    #[rustfmt::skip]
    let flags = [
        ("--spill-threshold-chars", &a.spill_threshold_chars, SPILL_THRESHOLD_CHARS, &mut p.threshold_chars),
        ("--spill-head-chars", &a.spill_head_chars, SPILL_HEAD_CHARS, &mut p.head_chars),
        ("--spill-tail-chars", &a.spill_tail_chars, SPILL_TAIL_CHARS, &mut p.tail_chars),
        ("--trim-min-chars", &a.trim_min_chars, TRIM_MIN_CHARS, &mut p.min_chars),
        ("--trim-keep-recent", &a.trim_keep_recent, TRIM_KEEP_RECENT, &mut p.keep_recent),
        ("--trim-keep-denials", &a.trim_keep_denials, TRIM_KEEP_DENIALS, &mut p.keep_denials),
    ];
    for (flag, v, (min, max, _), slot) in flags {
        if let Some(v) = v {
            *slot = int_flag(flag, v, min, max)?;
        }
    }
    if let Some(v) = &a.cache_gate {
        let choices = ["expected", "bank", "expected+bank", "rent"];
        s.policy2.gate = word_flag("--cache-gate", v, &choices, GateRule::parse)?;
    }
    if let Some(v) = &a.gate_start {
        s.policy2.gate_start = word_flag("--gate-start", v, &["whole", "best"], GateStart::parse)?;
    }
    if let Some(v) = &a.trim_aging {
        s.policy2.aging = word_flag("--trim-aging", v, &["entry", "last-use"], Aging::parse)?;
    }
    Ok(s)
}

/// A flag whose value is one of `choices`: `parse` reads it, else the error names the choices
/// (`--flag must be "a", "b" or "c"; got …`).
fn word_flag<T>(
    flag: &str,
    v: &str,
    choices: &[&str],
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, Failure> {
    parse(v).ok_or_else(|| {
        let quoted: Vec<String> = choices.iter().map(|c| format!("\"{c}\"")).collect();
        let listed = match quoted.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        Failure(format!("{flag} must be {listed}; got {}", shown(v)))
    })
}

/// A price flag: a finite number from 0 to 100.
fn price_flag(flag: &str, v: Option<&String>, default: f64) -> Result<f64, Failure> {
    let Some(v) = v else { return Ok(default) };
    match v.parse::<f64>() {
        Ok(p) if p.is_finite() && (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(Failure(format!(
            "{flag} must be a number from 0 to 100; got {}",
            shown(v)
        ))),
    }
}

/// The replay options: prices and the `mask:N` baselines.
fn replay_options(a: &AnalyzeArgs) -> Result<(Prices, Vec<usize>), Failure> {
    let d = Prices::default();
    let prices = Prices {
        read: price_flag("--cache-read", a.cache_read.as_ref(), d.read)?,
        write: price_flag("--cache-write", a.cache_write.as_ref(), d.write)?,
    };
    let mut masks = Vec::new();
    for b in &a.baseline {
        let n = b
            .strip_prefix("mask:")
            .filter(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| (1..=1000).contains(n));
        match n {
            Some(n) => masks.push(n),
            None => {
                return Err(Failure(format!(
                    "--baseline must be mask:N with N an integer from 1 to 1000; got {}",
                    shown(b)
                )));
            }
        }
    }
    Ok((prices, masks))
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

/// The replay figures of one session (spec/governor.md §11.8); `None` in `off`.
fn replay_of(settings: &GovSettings, s: &Session, opts: &(Prices, Vec<usize>)) -> Option<Replay> {
    (settings.mode != GovernorMode::Off).then(|| {
        let mut rp = replay::replay(
            settings,
            &s.source.session,
            &s.history,
            &s.parts,
            &s.sources,
            &opts.1,
            opts.0,
            &recorded::cold_answers(&s.recorded),
        );
        rp.recorded = recorded::bill(&s.history, &s.recorded, &rp, opts.0);
        rp
    })
}

/// The report of one session (the final request, every result in the ledger).
#[must_use]
pub fn report(settings: &GovSettings, s: &Session) -> ContextReport {
    let g = govern_with_cold(
        settings,
        Request {
            session_id: &s.source.session,
            history: &s.history,
            parts: &s.parts,
            sources: &s.sources,
            request: Some(assistants(s) + 1),
            ledger: Ledger::All,
        },
        &recorded::cold_answers(&s.recorded),
    );
    let mut r = g.report;
    r.set_source(serde_json::to_value(&s.source).unwrap_or_default());
    r
}

/// `context_governed` payloads of the replay ([`series::replay`]), one JSON line each, with the
/// file and the session added.
fn events(settings: &GovSettings, s: &Session, file: &str) -> String {
    let mut text = String::new();
    for ev in series::replay(settings, s) {
        let mut v = serde_json::to_value(&ev).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("file".into(), file.into());
            o.insert("session".into(), s.source.session.clone().into());
        }
        let _ = writeln!(text, "{v}");
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
        .filter(|x| matches!(x, alisio_governor::model::Message::Tool(_)))
        .count();
    let tt = &m.totals;
    let pct = if tt.tokens_before == 0 {
        0.0
    } else {
        tt.tokens_saved as f64 * 100.0 / tt.tokens_before as f64
    };
    let reasons: Vec<String> = tt
        .by_reason
        .entries()
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let _ = writeln!(
        t,
        "  {} messages, {results} tool results, {} elided ({}); tokens {} -> {} (saved {}, {pct:.1}%)",
        m.messages,
        tt.elided,
        reasons.join(", "),
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

/// Sums of replay figures over sessions (the summary line).
#[derive(Default)]
struct Sums {
    sessions: u64,
    off: replay::Figures,
    governed: replay::Figures,
    baselines: Vec<(String, replay::Figures)>,
    /// Per stream (governed, then the baselines): the recovery model's sums.
    recovery: Vec<Rec>,
    /// The recorded bills (spec/governor.md §11.11) of the sessions that have one.
    recorded: Option<Recorded>,
}

/// One stream's recovery sums (spec/governor.md §11.10).
#[derive(Clone, Default)]
struct Rec {
    name: String,
    hidden: u64,
    needed: u64,
    chars: u64,
    input: u64,
    cost: f64,
}

fn recs(r: &Replay) -> Vec<Rec> {
    r.recovery
        .iter()
        .flat_map(|x| std::iter::once(&x.governed).chain(&x.baselines))
        .map(|x| Rec {
            name: x.name.clone(),
            hidden: x.hidden,
            needed: x.needed,
            chars: x.recovered_chars,
            input: x.input_tokens,
            cost: x.cost,
        })
        .collect()
}

/// `<label> with recovery (modelled, not measured): governed hidden H, needed N, recovered C
/// chars, tokens/off R, cost/off R; mask:N …`
fn recovery_line(label: &str, off: &replay::Figures, recs: &[Rec]) -> String {
    if recs.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = recs
        .iter()
        .map(|x| {
            format!(
                "{} hidden {}, needed {}, recovered {} chars, tokens/off {}, cost/off {}",
                x.name,
                x.hidden,
                x.needed,
                x.chars,
                ratio(x.input as f64, off.input_tokens as f64),
                ratio(x.cost, off.cost)
            )
        })
        .collect();
    format!(
        "  {label} with recovery (a model of recovery, not measured behaviour): {}\n",
        parts.join("; ")
    )
}

fn add(to: &mut replay::Figures, f: &replay::Figures) {
    to.input_tokens += f.input_tokens;
    to.cached_tokens += f.cached_tokens;
    to.cost += f.cost;
    to.cache_breaks += f.cache_breaks;
}

impl Sums {
    fn add(&mut self, r: &Replay) {
        self.sessions += 1;
        add(&mut self.off, &r.off);
        add(&mut self.governed, &r.governed);
        for (k, b) in r.baselines.iter().enumerate() {
            if self.baselines.len() <= k {
                self.baselines
                    .push((b.name.clone(), replay::Figures::default()));
            }
            add(&mut self.baselines[k].1, &b.figures);
        }
        for (k, x) in recs(r).into_iter().enumerate() {
            if self.recovery.len() <= k {
                self.recovery.push(Rec {
                    name: x.name.clone(),
                    ..Rec::default()
                });
            }
            let y = &mut self.recovery[k];
            y.hidden += x.hidden;
            y.needed += x.needed;
            y.chars += x.chars;
            y.input += x.input;
            y.cost += x.cost;
        }
        if let Some(b) = &r.recorded {
            self.recorded.get_or_insert_with(Recorded::default).add(b);
        }
    }
}

/// The recorded bill's line (spec/governor.md §11.11), or nothing.
fn recorded_line(label: &str, b: Option<&Recorded>) -> String {
    b.map(|b| recorded::line(label, b)).unwrap_or_default()
}

fn ratio(a: f64, b: f64) -> String {
    if b == 0.0 {
        "-".into()
    } else {
        format!("{:.3}", a / b)
    }
}

/// `<label>: tokens governed/off R[, mask:N/off R]; cost governed/off R[, …]; …`
fn replay_line(
    label: &str,
    requests: String,
    off: &replay::Figures,
    governed: &replay::Figures,
    baselines: &[(String, replay::Figures)],
) -> String {
    let mut tokens = format!(
        "governed/off {}",
        ratio(governed.input_tokens as f64, off.input_tokens as f64)
    );
    let mut cost = format!("governed/off {}", ratio(governed.cost, off.cost));
    for (name, b) in baselines {
        let _ = write!(
            tokens,
            ", {name}/off {}",
            ratio(b.input_tokens as f64, off.input_tokens as f64)
        );
        let _ = write!(cost, ", {name}/off {}", ratio(b.cost, off.cost));
    }
    format!(
        "  {label}: {requests}; tokens {tokens}; cost {cost}; off {} tokens, cost {:.0}, governed {} tokens, cost {:.0}, {} cache breaks\n",
        off.input_tokens, off.cost, governed.input_tokens, governed.cost, governed.cache_breaks
    )
}

pub fn run(ctx: &Ctx, cmd: &GovernorCommand) -> Result<Exit, Failure> {
    let GovernorCommand::Analyze(a) = cmd;
    if a.delegation {
        return super::governor_delegation::run(
            ctx,
            &a.transcripts,
            input_format(&a.input_format)?,
        );
    }
    let settings = settings(ctx, a)?;
    let opts = replay_options(a)?;
    let mut sums = Sums::default();
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
            let rp = (a.html.is_some() || !a.events)
                .then(|| replay_of(&settings, s, &opts))
                .flatten();
            if a.html.is_some() {
                html.push(super::governor_html::session_data(
                    &shown_path,
                    s,
                    &report(&settings, s),
                    rp.as_ref(),
                ));
            }
            if a.events {
                text.push_str(&events(&settings, s, &shown_path));
                continue;
            }
            let mut r = report(&settings, s);
            if let Some(rp) = &rp {
                sums.add(rp);
            }
            if ctx.args.json {
                if let Some(rp) = rp {
                    r.set_replay(rp);
                }
                reports.push(r.to_json());
            } else {
                text.push_str(&human(&r, s));
                if let Some(rp) = rp {
                    let b: Vec<_> = rp
                        .baselines
                        .iter()
                        .map(|b| (b.name.clone(), b.figures))
                        .collect();
                    text.push_str(&replay_line(
                        "replay",
                        format!("{} requests", rp.requests),
                        &rp.off,
                        &rp.governed,
                        &b,
                    ));
                    text.push_str(&recovery_line("replay", &rp.off, &recs(&rp)));
                    text.push_str(&recorded_line("replay", rp.recorded.as_ref()));
                }
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
    } else if !a.events && sums.sessions > 0 {
        text.push_str(&replay_line(
            "all",
            format!("{} sessions", sums.sessions),
            &sums.off,
            &sums.governed,
            &sums.baselines,
        ));
        text.push_str(&recovery_line("all", &sums.off, &sums.recovery));
        text.push_str(&recorded_line("all", sums.recorded.as_ref()));
    }
    out(&text);
    Ok(if failed { Exit::Usage } else { Exit::Ok })
}
