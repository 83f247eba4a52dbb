//! `alisio-ls init [--cwd DIR]`: creates or updates the workspace root's `AGENTS.md`
//! (instructions/init.rs has the template and the rules; this file only writes and reports).

use super::{Ctx, Exit, Failure};
use alisio_rules::instructions::init;

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// Print the proposed file on stdout and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(ctx: &Ctx, args: &InitArgs) -> Result<Exit, Failure> {
    let shown = ctx.display(&ctx.root.join("AGENTS.md"));
    let p = init::propose(&ctx.fs, &ctx.root, ctx.settings.max_bytes)
        .map_err(|r| Failure(format!("{shown}: {}", r.message())))?;
    let status = match (&p.current, p.changed()) {
        (_, false) => "unchanged",
        (None, true) => "created",
        (Some(_), true) => "updated",
    };
    if args.dry_run {
        super::out(&String::from_utf8_lossy(&p.proposed));
        return Ok(Exit::Ok);
    }
    if p.changed() {
        alisio_base::workspace::write::replace_bytes(
            &p.path,
            &shown,
            &p.proposed,
            p.current.as_deref(),
            || {},
        )
        .map_err(|e| Failure(e.to_string()))?;
    }
    if ctx.args.json {
        let v = serde_json::json!({
            "path": p.path.to_string_lossy(),
            "status": status,
            "bytes": p.proposed.len(),
        });
        super::out(&format!("{v}\n"));
    } else {
        super::out(&format!("{shown}: {status} ({} bytes)\n", p.proposed.len()));
    }
    Ok(Exit::Ok)
}
