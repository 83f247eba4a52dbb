//! `alisio-ls audit [FILE|DIR...]` (spec/interfaces.md §4): what recorded agent sessions
//! received. Streams each session file through `alisio_governor::audit` (bounded memory), then
//! compares what was delivered with the files on disk now and with `context explain`'s
//! prediction for the session's cwd and host. Read only: nothing is written but `--html`'s page,
//! nothing is sent anywhere.

use std::path::PathBuf;

use serde_json::json;

use super::{Ctx, Exit, Failure, err_line, out};
use alisio_session::audit::{Place, compare, default_files, jsonl_below, own, read_file};

#[derive(clap::Args, Debug)]
pub struct AuditArgs {
    /// Session files or directories (searched for `*.jsonl`), or an alisio-ls store
    /// (`sessions.db`). Without one: this workspace's sessions in ~/.claude/projects/,
    /// $CODEX_HOME/sessions/ and alisio-ls's own store ($ALISIO_STATE_HOME).
    #[arg(value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    /// Also write a self-contained HTML page (tables and the per-request cache chart).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// The place of this invocation: the disk, the environment, the workspace and its settings.
fn place(ctx: &Ctx) -> Place<'_> {
    Place {
        fs: &ctx.fs,
        env: &ctx.env,
        root: &ctx.root,
        cwd: &ctx.cwd,
        settings: &ctx.settings,
    }
}

pub fn run(ctx: &Ctx, a: &AuditArgs) -> Result<Exit, Failure> {
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    if a.paths.is_empty() {
        let (claude, codex) = default_files(&ctx.env, &ctx.root);
        files.extend(claude.into_iter().map(|p| (p, false)));
        files.extend(codex.into_iter().map(|p| (p, true)));
    } else {
        for p in &a.paths {
            let abs = ctx.resolve(p);
            match std::fs::metadata(&abs) {
                Ok(m) if m.is_dir() => {
                    files.extend(jsonl_below(&abs).into_iter().map(|p| (p, false)))
                }
                Ok(_) => files.push((abs, false)),
                Err(e) => return Err(Failure(format!("{}: {e}", p.display()))),
            }
        }
    }
    let mut sessions = Vec::new();
    for (f, only_workspace) in files {
        let shown = ctx.display(&f);
        if own::is_store(&f) {
            for mut s in own::all_sessions(&f, &shown)? {
                compare(&place(ctx), &mut s);
                sessions.push(s);
            }
            continue;
        }
        let mut s = read_file(&f, &shown)?;
        compare(&place(ctx), &mut s);
        if only_workspace && s.workspace_match != Some(true) {
            continue;
        }
        sessions.push(s);
    }
    if a.paths.is_empty() {
        sessions.extend(alisio_session::audit::own_sessions(
            &place(ctx),
            usize::MAX,
        )?);
    }
    if let Some(h) = &a.html {
        super::audit_html::write(&ctx.resolve(h), &h.display().to_string(), &sessions)?;
    }
    if ctx.args.json {
        let v = json!({"version": 1, "sessions": sessions});
        out(&format!("{v:#}\n"));
    } else {
        out(&super::audit_human::render(&sessions));
    }
    if sessions.is_empty() && a.paths.is_empty() {
        err_line(
            "note: no session of this workspace was found in ~/.claude/projects/, $CODEX_HOME/sessions/ or alisio-ls's store",
        );
    }
    Ok(Exit::Ok)
}
