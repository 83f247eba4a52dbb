//! `alisio-ls context explain PATH` and the instruction-file part of `check`: adapters from
//! the command line to `alisio_rules::instructions`.

use std::path::{Path, PathBuf};

use super::{Ctx, Exit, Failure};
use alisio_base::diagnostic::Diagnostic;
use alisio_base::workspace::{self, Fs as _, is_inside};
use alisio_rules::instructions::{
    Setup, default_claude_managed_file, diagnostics, explain, read::Reader,
};

#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The path to explain (need not exist).
    pub path: PathBuf,
    /// claude-code: the directory the session started in (relative to the cwd); files in
    /// directories below it are the ones Claude Code attaches when it reads PATH, which never
    /// include an AGENTS.md (spec/instructions.md §4, nested).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,
}

fn managed(ctx: &Ctx) -> PathBuf {
    ctx.env
        .claude_managed_file
        .clone()
        .unwrap_or_else(default_claude_managed_file)
}

fn setup<'a>(ctx: &'a Ctx, root: &'a Path, managed: &'a Path) -> Setup<'a> {
    Setup {
        fs: &ctx.fs,
        env: &ctx.env,
        root,
        settings: &ctx.settings,
        host: ctx.args.host,
        claude_managed: Some(managed),
        claude_session: None,
    }
}

pub fn run(ctx: &Ctx, args: &ExplainArgs) -> Result<Exit, Failure> {
    let managed = managed(ctx);
    // hosts.md H1: Gemini CLI's workspace is the directory it was started in, so for `gemini`
    // the session is opened on the cwd (inside the workspace), not on the `.git` ancestor.
    let root =
        if ctx.args.host == alisio_base::config::Host::Gemini && is_inside(&ctx.cwd, &ctx.root) {
            &ctx.cwd
        } else {
            &ctx.root
        };
    let mut setup = setup(ctx, root, &managed);
    let session = args.session_dir.as_ref().map(|d| {
        let d = ctx.cwd.join(d);
        ctx.fs.canonicalize(&d).unwrap_or(d)
    });
    setup.claude_session = session.as_deref();
    let reader = Reader::new(&ctx.fs);
    let ex = explain::explain_path(&setup, &reader, &ctx.cwd, &args.path)
        .map_err(|e| Failure(e.to_string()))?;
    // The families beside skills a session started there loads (spec/instructions.md §10).
    let vantage = session.clone().unwrap_or_else(|| {
        let p = ctx.cwd.join(&args.path);
        let p = ctx.fs.canonicalize(&p).unwrap_or(p);
        if ctx
            .fs
            .metadata(&p)
            .is_ok_and(|m| m.file_type == workspace::FileType::Dir)
        {
            p
        } else {
            p.parent()
                .map_or_else(|| ctx.cwd.clone(), Path::to_path_buf)
        }
    });
    let startup =
        alisio_rules::families::startup(&ctx.fs, ctx.skill_input(), &vantage, ctx.args.host);
    let show = |p: &Path| ctx.display(p);
    if ctx.args.json {
        let mut j = ex.to_json();
        if let serde_json::Value::Object(m) = &mut j {
            m.insert(
                "startup".into(),
                startup.as_ref().map_or(serde_json::Value::Null, |s| {
                    alisio_rules::families::startup_json(ctx.args.host, s, &show)
                }),
            );
        }
        super::out(&format!("{j:#}\n"));
    } else {
        let mut text = ex.to_human();
        if let Some(s) = &startup {
            text.push_str(&alisio_rules::families::startup_human(
                ctx.args.host,
                s,
                &show,
            ));
        }
        super::out(&text);
    }
    Ok(Exit::Ok)
}

/// Instruction-file diagnostics for the files under `paths`, and the files checked.
/// Effects are computed over the whole directory set of each path's workspace.
/// `workspace_walk` is D walked from `ctx.root`; other roots (paths outside the workspace) are
/// walked here.
pub fn check_diagnostics(
    ctx: &Ctx,
    paths: &[PathBuf],
    workspace_walk: &alisio_base::workspace::walk::DirSet,
) -> Result<(Vec<Diagnostic>, Vec<PathBuf>), Failure> {
    let managed = managed(ctx);
    let config_home = ctx.env.config_home();
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut include_global = false;
    for p in paths {
        if config_home
            .as_ref()
            .is_some_and(|h| is_inside(p, h) || p == h)
            && !is_inside(p, &ctx.root)
        {
            include_global = true;
            if !roots.contains(&ctx.root) {
                roots.push(ctx.root.clone());
            }
            continue;
        }
        let root = if is_inside(p, &ctx.root) {
            ctx.root.clone()
        } else {
            let dir = if ctx
                .fs
                .metadata(p)
                .is_ok_and(|m| m.file_type == workspace::FileType::Dir)
            {
                p.clone()
            } else {
                p.parent().map_or_else(|| p.clone(), Path::to_path_buf)
            };
            let canon = ctx
                .fs
                .canonicalize(&dir)
                .map_err(|e| Failure(format!("{}: {e}", p.display())))?;
            workspace::find_root(&ctx.fs, &canon)
        };
        if !roots.contains(&root) {
            roots.push(root);
        }
    }
    let mut diags = Vec::new();
    let mut files = Vec::new();
    let under = |f: &Path| paths.iter().any(|p| is_inside(f, p));
    for root in &roots {
        let setup = setup(ctx, root, &managed);
        let a = if *root == ctx.root {
            diagnostics::analyze_set(&setup, workspace_walk, include_global)
        } else {
            diagnostics::analyze(&setup, include_global)
        };
        if a.truncated {
            super::err_line(&format!(
                "warning: {}: more than {} directories; instruction files below the first {} were not checked",
                root.display(),
                alisio_base::workspace::walk::MAX_DIRS,
                alisio_base::workspace::walk::MAX_DIRS
            ));
        }
        files.extend(
            a.files
                .iter()
                .filter(|f| under(&f.path))
                .map(|f| f.path.clone()),
        );
        // A file that carries a diagnostic was checked, whatever the host (copilot, gemini
        // and cursor keep no per-file reports: spec/hosts.md §5).
        for d in &a.diagnostics {
            if under(&d.file) && !files.contains(&d.file) {
                files.push(d.file.clone());
            }
        }
        diags.extend(a.diagnostics.into_iter().filter(|d| under(&d.file)));
    }
    Ok((diags, files))
}
