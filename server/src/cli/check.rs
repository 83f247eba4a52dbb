//! `alisio-ls check [PATH...]`: every instruction-file and skill diagnostic under the paths.

use std::path::PathBuf;

use super::output::{self, OutputFormat};
use super::{Ctx, Exit, Failure};

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to check (default `.`).
    pub paths: Vec<PathBuf>,
    /// Output format (`--json` is `--format json`).
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Fail on warnings too.
    #[arg(long)]
    pub strict: bool,
    /// Apply the safe fixes (the editor's quick fixes that keep a file's meaning), then report
    /// what is left.
    #[arg(long)]
    pub fix: bool,
    /// Apply the unsafe fixes too (implies --fix).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them (exit 1 when there are some).
    #[arg(long)]
    pub diff: bool,
}

pub fn run(ctx: &Ctx, args: &CheckArgs) -> Result<Exit, Failure> {
    let format = if ctx.args.json {
        OutputFormat::Json
    } else {
        args.format
    };
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![ctx.cwd.clone()]
    } else {
        args.paths.iter().map(|p| ctx.resolve(p)).collect()
    };
    for p in &paths {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(Failure(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    if args.fix || args.unsafe_fixes || args.diff {
        return fix(ctx, args, format, &paths);
    }
    let progress = super::progress::Progress::spinner(format != OutputFormat::Human, "checking");
    let (diags, files) = collect(ctx, &paths)?;
    drop(progress);
    Ok(output::emit(
        &ctx.root,
        format,
        &diags,
        files.len(),
        args.strict,
    ))
}

/// `--fix`, `--unsafe-fixes`, `--diff` (spec/rules.md §4).
fn fix(
    ctx: &Ctx,
    args: &CheckArgs,
    format: OutputFormat,
    paths: &[PathBuf],
) -> Result<Exit, Failure> {
    let (diags, _) = collect(ctx, paths)?;
    let done = super::fix::run(ctx, &diags, args.unsafe_fixes, args.diff);
    for (f, why) in &done.skipped {
        super::err_line(&format!("note: not fixed: {}: {why}", ctx.display(f)));
    }
    if args.diff {
        super::out(&done.diff);
        return Ok(if done.files.is_empty() {
            Exit::Ok
        } else {
            Exit::Findings
        });
    }
    let n: usize = done.files.iter().map(|(_, a)| a.len()).sum();
    super::err_line(&format!(
        "fixed {n} problem(s) in {} file(s)",
        done.files.len()
    ));
    let (diags, files) = collect(ctx, paths)?;
    Ok(output::emit(
        &ctx.root,
        format,
        &diags,
        files.len(),
        args.strict,
    ))
}

/// The diagnostics of `paths` after suppressions, sorted, and the files checked.
fn collect(
    ctx: &Ctx,
    paths: &[PathBuf],
) -> Result<(Vec<alisio_base::diagnostic::Diagnostic>, Vec<PathBuf>), Failure> {
    let paths = paths.to_vec();
    let mut diags = Vec::new();
    let mut files = Vec::new();
    // Instruction files (spec/instructions.md §5) and skills (spec/skills.md §5.3), over one walk of the
    // workspace (the directory set D) shared by both, as the language server does.
    let walk = alisio_base::workspace::walk::walk(&ctx.fs, &ctx.root);
    let (d, n) = super::instructions::check_diagnostics(ctx, &paths, &walk)?;
    diags.extend(d);
    files.extend(n);
    let (d, n) = super::skills::check_diagnostics(ctx, &paths, &walk)?;
    diags.extend(d);
    files.extend(n);
    // Subagents, commands and MCP configurations (spec/instructions.md §10.4).
    let (d, n) = alisio_rules::families::check(&ctx.fs, ctx.skill_input(), &walk);
    let under = |f: &std::path::Path| paths.iter().any(|p| f.starts_with(p));
    diags.extend(d.into_iter().filter(|d| under(&d.file)));
    files.extend(n.into_iter().filter(|f| under(f)));
    // Suppressions: the one post-filter the language server applies too (spec/suppressions.md §3).
    let settings = &ctx.settings.diagnostics;
    let mut diags = alisio_base::suppress::apply(&ctx.fs, settings, &ctx.root, &files, diags);
    alisio_base::diagnostic::sort(&mut diags);
    Ok((diags, files))
}
