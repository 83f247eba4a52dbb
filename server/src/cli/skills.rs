//! `alisio-ls skills list` / `skills validate`, and the skill part of `check` (spec/skills.md §5):
//! adapts discovery, catalog and report results to the terminal.

use std::path::{Path, PathBuf};

use super::output::{self, OutputFormat};
use super::{Ctx, Exit, Failure, err_line, out};
use alisio_base::config::Host;
use alisio_base::diagnostic::Diagnostic;
use alisio_base::workspace::{FileType, Fs as _};
use alisio_rules::skills::catalog::{self, Discovery};
use alisio_rules::skills::discover::{self, Root, SkillScope, Walk};
use alisio_rules::skills::listing;
use alisio_rules::skills::report::{self, Report, Scan};

#[derive(clap::Subcommand, Debug)]
pub enum SkillsCommand {
    /// The effective skill catalog seen from PATH (default `.`).
    List {
        path: Option<PathBuf>,
        /// The listing the host sends its model: order, entries as sent, shortened and dropped
        /// descriptions, the total and the budget (spec/skills.md §9).
        #[arg(long)]
        listing: bool,
        #[command(flatten)]
        budget: super::skills_listing::BudgetArgs,
    },
    /// Route the prompts of each skill's evals/triggers.json over the catalog as each host lists
    /// it (the offline trigger lab, spec/skills.md §10).
    Test {
        paths: Vec<PathBuf>,
        #[command(flatten)]
        budget: super::skills_listing::BudgetArgs,
        #[command(flatten)]
        live: super::skills_live::LiveArgs,
    },
    /// Validate skill directories or SKILL.md files.
    Validate {
        paths: Vec<PathBuf>,
        /// Fail on warnings too.
        #[arg(long)]
        strict: bool,
        /// One answer per skill and host instead of diagnostics: loads, loads with warnings,
        /// skipped, rejected (spec/skills.md §12).
        #[arg(long)]
        matrix: bool,
    },
}

pub fn run(ctx: &Ctx, cmd: &SkillsCommand) -> Result<Exit, Failure> {
    match cmd {
        SkillsCommand::List {
            path,
            listing: true,
            budget,
        } => super::skills_listing::list(
            ctx,
            &vantage(ctx, path.as_deref().unwrap_or(Path::new(".")))?,
            budget,
        ),
        SkillsCommand::List { path, .. } => list(ctx, path.as_deref()),
        SkillsCommand::Test {
            paths,
            budget,
            live,
        } => super::skills_test::run(ctx, paths, budget, live),
        SkillsCommand::Validate {
            paths,
            matrix: true,
            ..
        } => super::skills_matrix::run(ctx, paths),
        SkillsCommand::Validate { paths, strict, .. } => validate(ctx, paths, *strict),
    }
}

/// A command-line vantage: resolved against the cwd, must exist; a file means its directory.
pub(super) fn vantage(ctx: &Ctx, p: &Path) -> Result<PathBuf, Failure> {
    let abs = ctx.resolve(p);
    let canon = ctx
        .fs
        .canonicalize(&abs)
        .map_err(|_| Failure(format!("{}: no such file or directory", p.display())))?;
    match ctx.fs.metadata(&canon) {
        Ok(m) if m.file_type == FileType::Dir => Ok(canon),
        Ok(_) => Ok(canon.parent().map_or(canon.clone(), Path::to_path_buf)),
        Err(_) => Err(Failure(format!(
            "{}: no such file or directory",
            p.display()
        ))),
    }
}

fn print_notes(ctx: &Ctx, rep_notes: &[discover::Note], untrusted: usize, limits: &[PathBuf]) {
    for n in rep_notes {
        err_line(&n.message());
    }
    if untrusted > 0 {
        err_line(&format!(
            "note: {untrusted} project skill(s) not loaded: the workspace is not trusted (pass --trust-project)"
        ));
    }
    for l in limits {
        err_line(&format!(
            "warning: Skill scan limit of {} directories reached; stopped at {}",
            discover::MAX_DIRS,
            ctx.display(l)
        ));
    }
}

fn list(ctx: &Ctx, path: Option<&Path>) -> Result<Exit, Failure> {
    let v = vantage(ctx, path.unwrap_or(Path::new(".")))?;
    let host = ctx.args.host;
    let d = catalog::discover_host(&ctx.fs, ctx.skill_input(), &v, host);
    let probe =
        (host == Host::Alisio && !ctx.trusted).then(|| discover::probe(&ctx.fs, &ctx.root, &v));
    if ctx.args.json {
        let arr: Vec<serde_json::Value> = d
            .entries
            .iter()
            .map(|e| catalog::entry_json(e, &ctx.root))
            .collect();
        out(&format!("{}\n", serde_json::Value::Array(arr)));
    } else {
        let rows: Vec<[String; 6]> = d
            .entries
            .iter()
            .map(|e| {
                let (marker, mut status) = match (&e.shadowed_by, e.enabled) {
                    (Some(w), _) => ("↳", format!("shadowed by {w}")),
                    (None, true) => ("✔", "effective".to_string()),
                    (None, false) => ("○", "disabled".to_string()),
                };
                if !e.model_invocable {
                    status.push_str(" · user-only");
                }
                [
                    marker.into(),
                    e.display_id.clone(),
                    e.scope.as_str().into(),
                    status,
                    format!("~{} tok", e.approximate_tokens),
                    ctx.display(&e.file),
                ]
            })
            .collect();
        let mut widths = [0usize; 6];
        for r in &rows {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        let mut s = String::new();
        for r in &rows {
            let mut line = String::new();
            for (i, c) in r.iter().enumerate() {
                if i + 1 == r.len() {
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.push_str(&" ".repeat(widths[i] - c.chars().count() + 2));
                }
            }
            s.push_str(line.trim_end());
            s.push('\n');
        }
        out(&s);
    }
    let untrusted = probe.as_ref().map_or(0, |p| p.candidates.len());
    let mut notes = d.walk.notes.clone();
    if let Some(p) = &probe {
        notes.extend(p.notes.iter().cloned());
    }
    print_notes(ctx, &notes, untrusted, &d.walk.scan_limit);
    let not_loaded = d
        .skills
        .iter()
        .filter(|s| s.checked.load_error.is_some())
        .count();
    if host == Host::Alisio && not_loaded > 0 {
        err_line(&format!(
            "note: {not_loaded} skill(s) not loaded because of errors; run alisio-ls skills validate"
        ));
    }
    Ok(Exit::Ok)
}

fn emit(ctx: &Ctx, rep: &Report, strict: bool) -> Exit {
    let format = if ctx.args.json {
        OutputFormat::Json
    } else {
        OutputFormat::Human
    };
    // Suppressions apply here as in `check` and the editor (spec/suppressions.md §3).
    let rules = &ctx.settings.diagnostics;
    let diags = rep.diagnostics.clone();
    let mut diags = alisio_base::suppress::apply(&ctx.fs, rules, &ctx.root, &rep.files, diags);
    alisio_base::diagnostic::sort(&mut diags);
    let code = output::emit(&ctx.root, format, &diags, rep.files.len(), strict);
    print_notes(ctx, &rep.notes, rep.untrusted, &[]);
    code
}

fn validate(ctx: &Ctx, paths: &[PathBuf], strict: bool) -> Result<Exit, Failure> {
    let host = ctx.args.host;
    if paths.is_empty() {
        let profile = Some(ctx.args.profile);
        let d = catalog::discover_host_for(&ctx.fs, ctx.skill_input(), &ctx.cwd, host, profile);
        let probes: Vec<Walk> = if host == Host::Alisio && !ctx.trusted {
            vec![discover::probe(&ctx.fs, &ctx.root, &ctx.cwd)]
        } else {
            Vec::new()
        };
        return Ok(validate_one(ctx, d, &probes, strict, true));
    }
    let mut roots = Vec::new();
    for p in paths {
        let abs = ctx.resolve(p);
        let Ok(meta) = ctx.fs.symlink_metadata(&abs) else {
            return Err(Failure(format!(
                "{}: no such file or directory",
                p.display()
            )));
        };
        let dir = if meta.file_type == FileType::Dir {
            abs.clone()
        } else if abs.file_name().is_some_and(|n| n == "SKILL.md") {
            abs.parent().map_or(abs.clone(), Path::to_path_buf)
        } else if meta.file_type == FileType::Symlink
            && ctx
                .fs
                .metadata(&abs)
                .is_ok_and(|m| m.file_type == FileType::Dir)
        {
            abs.clone()
        } else {
            return Err(Failure(format!("{}: not a SKILL.md file", p.display())));
        };
        roots.push(Root {
            path: dir,
            scope: SkillScope::User,
            owner: None,
            project_dir: None,
        });
    }
    let d: Discovery = catalog::discover_roots(
        &ctx.fs,
        roots,
        &ctx.settings.skill_overrides,
        &ctx.cwd,
        Some(ctx.args.profile),
    );
    let found: std::collections::HashSet<usize> =
        d.walk.candidates.iter().map(|c| c.root).collect();
    for (i, p) in paths.iter().enumerate() {
        if !found.contains(&i) && d.walk.scan_limit.is_empty() {
            let reason = match d.walk.canonical.get(i) {
                Some(Some(_)) => "no SKILL.md found",
                _ => "cannot read the directory",
            };
            return Err(Failure(format!("{}: {reason}", p.display())));
        }
    }
    Ok(validate_one(ctx, d, &[], strict, false))
}

/// The report of one discovery (and the untrusted `probes`), emitted; with `listing`, the
/// listing diagnostics of the hosts seen from that discovery's vantage too.
fn validate_one(
    ctx: &Ctx,
    d: catalog::Discovery,
    probes: &[Walk],
    strict: bool,
    listing: bool,
) -> Exit {
    let vantage = d.vantage.clone();
    let mut rep = scan(ctx, &[d], probes, &[], false);
    if listing {
        add_listing(ctx, &vantage, &mut rep.diagnostics, &mut rep.files);
    }
    emit(ctx, &rep, strict)
}

/// Appends `skill-description-shortened` / `-dropped` seen from `vantage`.
pub(super) fn add_listing(
    ctx: &Ctx,
    vantage: &Path,
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<PathBuf>,
) {
    let o = listing::settings::Overrides::default();
    let found = listing::diagnostics::for_hosts(
        &ctx.fs,
        ctx.skill_input(),
        vantage,
        &listing::diagnostic_hosts(ctx.settings.hosts.enabled.as_deref()),
        &o,
    );
    for d in found {
        if !files.contains(&d.file) {
            files.push(d.file.clone());
        }
        diags.push(d);
    }
}

/// [`report::run`] over `discoveries` under the command line's profile.
fn scan(
    ctx: &Ctx,
    discoveries: &[catalog::Discovery],
    probes: &[Walk],
    extra_files: &[PathBuf],
    not_discovered: bool,
) -> report::Report {
    let show = |p: &Path| ctx.display(p);
    report::run(
        &ctx.fs,
        &Scan {
            workspace_root: &ctx.root,
            profile: ctx.args.profile,
            discoveries,
            probes,
            extra_files,
            not_discovered,
            show: &show,
        },
    )
}

/// `walk` is D walked from `ctx.root` (shared with the instruction checks).
pub fn check_diagnostics(
    ctx: &Ctx,
    paths: &[PathBuf],
    walk: &alisio_base::workspace::walk::DirSet,
) -> Result<(Vec<Diagnostic>, Vec<PathBuf>), Failure> {
    let (vantages, walked) = report::workspace_files(&ctx.fs, walk, &ctx.root);
    let mut discoveries = Vec::new();
    let mut probes = Vec::new();
    for v in &vantages {
        discoveries.push(catalog::discover_host_for(
            &ctx.fs,
            ctx.skill_input(),
            v,
            ctx.args.host,
            Some(ctx.args.profile),
        ));
        if ctx.args.host == Host::Alisio && !ctx.trusted {
            probes.push(discover::probe(&ctx.fs, &ctx.root, v));
        }
    }
    // The reasons of spec/skills.md §7 are host `alisio`'s rules.
    let mut rep = scan(
        ctx,
        &discoveries,
        &probes,
        &walked,
        ctx.args.host == Host::Alisio,
    );
    add_listing(ctx, &ctx.root, &mut rep.diagnostics, &mut rep.files);
    for n in &rep.notes {
        err_line(&n.message());
    }
    let whole = paths.iter().any(|p| p == &ctx.root);
    let keep =
        |f: &Path| paths.iter().any(|p| f.starts_with(p)) || (whole && !f.starts_with(&ctx.root));
    let diags: Vec<Diagnostic> = rep
        .diagnostics
        .into_iter()
        .filter(|d| keep(&d.file))
        .collect();
    let files = rep.files.into_iter().filter(|f| keep(f)).collect();
    Ok((diags, files))
}
