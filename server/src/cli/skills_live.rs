//! `alisio-ls skills test --live` (spec/skills.md §10.3): each prompt of a skill's eval file is
//! asked of the configured session provider, N times, in the host's own listing format, over the
//! listing seen from a temporary workspace where the candidates are installed; a same-name
//! installed copy is moved aside for the run and put back after it, also when the run is
//! interrupted (the guard restores on every way out; SIGINT and SIGTERM cancel the request in
//! flight and end the loop; a journal restores what a killed run left). A hard cap on requests
//! and tokens is stated before the first request and checked before every one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use super::skills_listing::BudgetArgs;
use super::{Ctx, Exit, Failure, err_line, out};
use alisio_base::config::Host;
use alisio_rules::skills::catalog::Input;
use alisio_rules::skills::listing::{self, Listing};
use alisio_rules::skills::triggers::live::{self, Trials};
use alisio_rules::skills::triggers::{Evals, NONE};
use alisio_session::providers::{self, ModelRequest, RequestKind};
use alisio_session::tools::ToolDef;

/// The options of a live run.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LiveArgs {
    /// Ask the configured provider instead of the offline router (opt-in; spends tokens).
    #[arg(long)]
    pub live: bool,
    /// Requests per prompt (live).
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub repeats: u32,
    /// The most requests a live run sends (default: the prompts times the repeats).
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
    /// The most tokens a live run spends, input and output (default 200000).
    #[arg(long, default_value_t = 200_000, value_name = "N")]
    pub max_tokens: u64,
    /// The provider kind for a live run (`openai`, `anthropic`), over the configuration.
    #[arg(long)]
    pub provider: Option<String>,
    /// The provider's base URL for a live run, over the configuration.
    #[arg(long)]
    pub base_url: Option<String>,
}

/// The output limit of one live request: room for one tool call.
const MAX_OUTPUT: u32 = 1024;
/// The journal of moved copies, below the state directory.
const JOURNAL: &str = "skills-live-moved.json";
/// Where a moved copy waits, beside its skill root.
const MOVED: &str = ".alisio-moved";

/// Same-name installed copies moved aside; put back when dropped.
struct Aside {
    journal: PathBuf,
    moves: Vec<(PathBuf, PathBuf)>,
}

impl Aside {
    /// Moves `dir` (`<root>/<name>`) to `<root>/../.alisio-moved/<root name>/<name>`: out of
    /// every skill root, on the same file system.
    fn move_aside(&mut self, dir: &Path) -> Result<(), String> {
        let (Some(name), Some(root)) = (dir.file_name(), dir.parent()) else {
            return Err(format!("{}: not a skill directory", dir.display()));
        };
        let base = root.parent().unwrap_or(root).join(MOVED);
        let to = base.join(root.file_name().unwrap_or_default()).join(name);
        if to.exists() {
            return Err(format!("{} exists; move it away first", to.display()));
        }
        self.moves.push((dir.to_path_buf(), to.clone()));
        self.write_journal()?;
        if let Some(p) = to.parent() {
            std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        std::fs::rename(dir, &to).map_err(|e| format!("cannot move {} aside: {e}", dir.display()))
    }

    fn write_journal(&self) -> Result<(), String> {
        let v: Vec<Value> = self
            .moves
            .iter()
            .map(|(a, b)| json!({"from": a, "to": b}))
            .collect();
        if let Some(p) = self.journal.parent() {
            std::fs::create_dir_all(p).map_err(|e| e.to_string())?;
        }
        std::fs::write(&self.journal, Value::Array(v).to_string())
            .map_err(|e| format!("cannot write {}: {e}", self.journal.display()))
    }

    /// Puts every copy back; what could not be is reported and kept in the journal.
    fn restore(&mut self) -> Vec<String> {
        let mut failed = Vec::new();
        let mut kept = Vec::new();
        for (from, to) in self.moves.drain(..).rev() {
            if !to.exists() {
                continue;
            }
            if let Err(e) = std::fs::rename(&to, &from) {
                failed.push(format!(
                    "cannot put {} back from {}: {e}",
                    from.display(),
                    to.display()
                ));
                kept.push((from, to));
                continue;
            }
            // The emptied `.alisio-moved/<root>` and `.alisio-moved` directories.
            for d in to.ancestors().skip(1).take(2) {
                let _ = std::fs::remove_dir(d);
            }
        }
        self.moves = kept;
        if self.moves.is_empty() {
            let _ = std::fs::remove_file(&self.journal);
        } else {
            let _ = self.write_journal();
        }
        failed
    }
}

impl Drop for Aside {
    fn drop(&mut self) {
        for e in self.restore() {
            err_line(&format!("error: {e}"));
        }
    }
}

/// Puts back what an earlier run that was killed left moved aside.
fn recover(journal: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(journal) else {
        return Vec::new();
    };
    let moves: Vec<(PathBuf, PathBuf)> = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|m| Some((m["from"].as_str()?.into(), m["to"].as_str()?.into())))
        .collect();
    let mut a = Aside {
        journal: journal.to_path_buf(),
        moves,
    };
    let failed = a.restore();
    std::mem::forget(a);
    failed
}

/// The temporary workspace; removed when dropped.
struct TempWs(PathBuf);

impl Drop for TempWs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let t = e.file_type().map_err(|e| e.to_string())?;
        let dst = to.join(e.file_name());
        if t.is_dir() {
            copy_dir(&e.path(), &dst)?;
        } else if t.is_file() {
            std::fs::copy(e.path(), &dst).map_err(|x| format!("{}: {x}", e.path().display()))?;
        }
    }
    Ok(())
}

/// Where `host` finds project skills in the temporary workspace.
fn project_root(host: Host) -> &'static str {
    match host {
        Host::ClaudeCode => ".claude/skills",
        Host::Gemini => ".gemini/skills",
        _ => ".agents/skills",
    }
}

fn listing_of(ctx: &Ctx, ws: &Path, host: Host, b: &BudgetArgs) -> Option<Listing> {
    let input = Input {
        workspace_root: ws,
        trusted: true,
        settings: &ctx.settings,
        env: &ctx.env,
        plugins: &[],
    };
    listing::for_host(&ctx.fs, input, ws, host, &b.overrides()).map(|(_, l)| l)
}

/// The listed name of the candidate installed at `dir` (below the temporary workspace).
fn candidate_name(l: &Listing, dir: &Path) -> Option<String> {
    l.items
        .iter()
        .find(|i| i.file.as_ref().is_some_and(|f| f.starts_with(dir)))
        .map(|i| i.name.clone())
}

fn request(ask: &live::Ask, prompt: &str) -> ModelRequest {
    let mut parts = Vec::new();
    if let Some(b) = &ask.before_prompt {
        parts.push(json!({"type": "text", "text": b}));
    }
    parts.push(json!({"type": "text", "text": prompt}));
    ModelRequest {
        kind: RequestKind::Turn,
        system: ask.system.clone(),
        messages: vec![json!({"role": "user", "content": parts})],
        tools: vec![ToolDef {
            name: ask.tool.name.to_string(),
            description: ask.tool.description.to_string(),
            input_schema: ask.tool.schema.clone(),
        }],
        max_output_tokens: MAX_OUTPUT,
        invariants_at: None,
    }
}

/// The configured provider; `--provider`, `--model` (also the model the host's budget is
/// computed for) and `--base-url` over the configuration.
fn provider(
    ctx: &Ctx,
    a: &LiveArgs,
    b: &BudgetArgs,
) -> Result<Box<dyn providers::Provider>, Failure> {
    let mut p = alisio_session::settings::SessionConfig::from_layers(&ctx.layers).provider;
    for (k, v) in [
        ("kind", &a.provider),
        ("model", &b.model),
        ("baseUrl", &a.base_url),
    ] {
        if let Some(v) = v {
            p.insert(k.into(), json!(v));
        }
    }
    let pc = alisio_session::settings::ProviderConfig::from_json(&p)?;
    if pc.kind == alisio_session::settings::ProviderKind::Script {
        return Err(Failure(
            "skills test --live needs an openai or anthropic provider".into(),
        ));
    }
    let (prov, _) = alisio_session::runner::build_provider(&pc, &ctx.cwd, 0)?;
    Ok(prov)
}

/// The candidates installed in a fresh temporary workspace, same-name installed copies moved
/// aside, and the listing seen from there.
struct Setup {
    workspace: TempWs,
    aside: Aside,
    listing: Listing,
    names: Vec<String>,
}

fn set_up(
    ctx: &Ctx,
    host: Host,
    b: &BudgetArgs,
    evals: &[Evals],
    state: &Path,
) -> Result<Setup, Failure> {
    let tmp = state.join(format!("skills-live/{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let ws = TempWs(tmp.join("ws"));
    std::fs::create_dir_all(ws.0.join(".git")).map_err(|e| Failure(e.to_string()))?;
    let root = ws.0.join(project_root(host));
    let mut dirs = Vec::new();
    for e in evals {
        let src = e.skill_file.parent().unwrap_or(Path::new("."));
        let dst = root.join(src.file_name().unwrap_or_default());
        copy_dir(src, &dst).map_err(Failure)?;
        dirs.push(dst);
    }
    let not_listed = || Failure(listing::not_simulated(host));
    let before = listing_of(ctx, &ws.0, host, b).ok_or_else(not_listed)?;
    // A same-name copy: an installed skill listed under the candidate's directory name or its
    // frontmatter name (an installed copy may shadow the candidate, so it is found by name).
    let mut wanted: Vec<String> = Vec::new();
    for d in &dirs {
        wanted.extend(d.file_name().map(|n| n.to_string_lossy().into_owned()));
        let text = std::fs::read_to_string(d.join("SKILL.md")).unwrap_or_default();
        wanted.extend(listing::gemini::load(&text).map(|(n, _)| n));
    }
    let mut aside = Aside {
        journal: state.join(JOURNAL),
        moves: Vec::new(),
    };
    for i in &before.items {
        let Some(f) = &i.file else { continue };
        if wanted.contains(&i.name) && !f.starts_with(&ws.0) {
            let dir = f.parent().unwrap_or(f);
            aside.move_aside(dir).map_err(Failure)?;
        }
    }
    let listing = listing_of(ctx, &ws.0, host, b).ok_or_else(not_listed)?;
    let names: Vec<String> = dirs
        .iter()
        .map(|d| {
            candidate_name(&listing, d).ok_or_else(|| {
                Failure(format!(
                    "{}: {} does not list it",
                    d.display(),
                    host.as_str()
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Setup {
        workspace: ws,
        aside,
        listing,
        names,
    })
}

fn trials_of(evals: &[Evals], names: &[String]) -> Vec<Trials> {
    evals
        .iter()
        .zip(names)
        .flat_map(|(e, n)| {
            e.cases.iter().map(move |c| Trials {
                skill: n.clone(),
                prompt: c.prompt.clone(),
                expected: if c.trigger {
                    Some(n.clone())
                } else {
                    c.winner.clone()
                },
                should_trigger: c.trigger,
                routed: Default::default(),
            })
        })
        .collect()
}

/// Runs the live lab for `evals` (their SKILL.md files are the candidates).
pub fn run(ctx: &Ctx, evals: &[Evals], b: &BudgetArgs, a: &LiveArgs) -> Result<Exit, Failure> {
    let host = ctx.args.host;
    let state = ctx.env.state_home().ok_or_else(|| {
        Failure("cannot determine the state directory (set ALISIO_STATE_HOME or HOME)".into())
    })?;
    for e in recover(&state.join(JOURNAL)) {
        err_line(&format!("error: {e}"));
    }
    let mut prov = provider(ctx, a, b)?;
    let cancel = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(e) = signal_hook::flag::register(sig, Arc::clone(&cancel)) {
            return Err(Failure(format!("cannot install signal handlers: {e}")));
        }
    }
    let mut setup = set_up(ctx, host, b, evals, &state)?;
    let mut trials = trials_of(evals, &setup.names);
    let planned = trials.len() as u64 * u64::from(a.repeats);
    let max_requests = a.max_requests.unwrap_or(planned);
    let ask = live::ask(host, &setup.listing);
    err_line(&format!(
        "skills test --live: {} prompts × {} repeats = {planned} requests to the provider as {}; cap: {max_requests} requests and {} tokens",
        trials.len(),
        a.repeats,
        host.as_str(),
        a.max_tokens
    ));
    let (mut requests, mut tokens) = (0u64, 0u64);
    let mut stopped: Option<String> = None;
    'all: for t in &mut trials {
        let req = request(&ask, &t.prompt);
        let reserve = alisio_session::util::estimate(&req.neutral_json()) + u64::from(MAX_OUTPUT);
        for _ in 0..a.repeats {
            if cancel.load(Ordering::SeqCst) {
                stopped = Some("interrupted".into());
                break 'all;
            }
            if requests >= max_requests {
                stopped = Some(format!("the request cap ({max_requests}) was reached"));
                break 'all;
            }
            if tokens + reserve > a.max_tokens {
                stopped = Some(format!(
                    "the token cap ({}) was reached: {tokens} spent, the next request may take {reserve}",
                    a.max_tokens
                ));
                break 'all;
            }
            let resp =
                match providers::complete(prov.as_mut(), &req, &mut |_| {}, &mut |_| {}, &cancel) {
                    Ok(r) => r,
                    Err(providers::RequestFailure::Cancelled) => {
                        stopped = Some("interrupted".into());
                        break 'all;
                    }
                    Err(providers::RequestFailure::Fatal { code, message }) => {
                        stopped = Some(format!("{code}: {message}"));
                        break 'all;
                    }
                };
            requests += 1;
            tokens += resp.usage.map_or(reserve, |u| u.input + u.output);
            let routed = resp
                .calls
                .iter()
                .find_map(|c| live::loaded(host, &setup.listing, &c.name, &c.arguments))
                .unwrap_or_else(|| NONE.to_string());
            *t.routed.entry(routed).or_default() += 1;
        }
    }
    let failed = setup.aside.restore();
    drop(setup.workspace);
    for e in &failed {
        err_line(&format!("error: {e}"));
    }
    let v = live::result_json(
        host,
        a.repeats,
        &trials,
        (requests, tokens),
        stopped.as_deref(),
    );
    if ctx.args.json {
        out(&format!("{v}\n"));
    } else {
        out(&human(&v));
    }
    if let Some(s) = &stopped {
        err_line(&format!("skills test --live stopped: {s}"));
    }
    Ok(match stopped.as_deref() {
        _ if !failed.is_empty() => Exit::Usage,
        Some("interrupted") => Exit::Cancelled,
        Some(s) if s.contains("cap") => Exit::Findings,
        Some(_) => Exit::Usage,
        None => Exit::Ok,
    })
}

fn human(v: &Value) -> String {
    let mut s = format!(
        "{} (live, {} repeats; {} requests, {} tokens):\n",
        v["host"].as_str().unwrap_or_default(),
        v["repeats"],
        v["requests"],
        v["tokens"]
    );
    // From the counts, not the rounded JSON: 9.45% shows as 9.5%.
    let show = |r: &Value| {
        let (hits, n) = (
            r["hits"].as_u64().unwrap_or(0),
            r["trials"].as_u64().unwrap_or(0),
        );
        match live::wilson(hits, n, live::Z95) {
            Some((lo, hi)) => format!(
                "{hits}/{n} ({:.1}%, 95% CI {:.1}–{:.1}%)",
                hits as f64 / n as f64 * 100.0,
                lo * 100.0,
                hi * 100.0
            ),
            None => "no trials".to_string(),
        }
    };
    for k in v["skills"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "  {:<28} triggered {}; on prompts that should not: {}\n",
            k["name"].as_str().unwrap_or_default(),
            show(&k["trigger"]),
            show(&k["noTrigger"])
        ));
    }
    s
}
