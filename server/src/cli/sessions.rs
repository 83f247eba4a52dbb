//! `alisio-ls sessions list|show|report` (spec/sessions.md §1.9): the stored sessions, one
//! transcript, one context report. Read-only: reconciliation is applied in memory.

use clap::{Args, Subcommand};
use serde_json::Value;

use super::{Ctx, Exit, Failure, out};
use alisio_session::store::Store;

#[derive(Subcommand, Debug)]
pub enum SessionsCommand {
    /// Sessions of this workspace, newest first.
    List(ListArgs),
    /// One session's transcript.
    Show(ShowArgs),
    /// The context report of a session's next request.
    Report(ReportArgs),
    /// Rewind a session's files and conversation to a checkpoint (spec/sessions.md §13.3).
    Rewind(RewindArgs),
}

#[derive(Args, Debug)]
pub struct RewindArgs {
    /// Session id or a unique prefix of at least 8 characters.
    pub id: String,
    /// The checkpoint: the state before the session's N-th user turn (1 is the first).
    #[arg(long = "to", value_name = "N")]
    pub to: i64,
    /// Leave files you changed after the checkpoint as they are, and rewind the rest.
    #[arg(long, conflicts_with = "overwrite")]
    pub keep: bool,
    /// Rewind files you changed after the checkpoint too.
    #[arg(long)]
    pub overwrite: bool,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Sessions of every workspace, child sessions included.
    #[arg(long)]
    pub all: bool,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Session id or a unique prefix of at least 8 characters.
    pub id: String,
    /// Include the stored events.
    #[arg(long)]
    pub events: bool,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    pub id: String,
}

fn open(ctx: &Ctx) -> Result<Store, Failure> {
    let dir = ctx.env.state_home().ok_or_else(|| {
        Failure("cannot determine the state directory (set ALISIO_STATE_HOME or HOME)".into())
    })?;
    Store::open(&dir).map_err(|e| Failure(e.to_string()))
}

fn pretty(v: &impl serde::Serialize) -> String {
    format!("{}\n", serde_json::to_string(v).unwrap_or_default())
}

/// Runs the command.
///
/// # Errors
/// Unknown sessions and store failures (exit 2).
pub fn run(ctx: &Ctx, c: &SessionsCommand) -> Result<Exit, Failure> {
    let store = open(ctx)?;
    let ws = ctx.root.to_string_lossy().into_owned();
    match c {
        SessionsCommand::List(a) => {
            let list =
                alisio_session::read::list(&store, &ws, a.all, true).map_err(Failure::from)?;
            if ctx.args.json {
                out(&pretty(&Value::Array(list)));
            } else {
                for s in list {
                    // spec/sessions.md §12.5: the relay chain, `(relay of <id>)`.
                    let link = s["relayOf"]
                        .as_str()
                        .map(|o| format!("  (relay of {o})"))
                        .unwrap_or_default();
                    out(&format!(
                        "{}  {}  {:>4} messages  {}  {}{link}\n",
                        s["sessionId"].as_str().unwrap_or_default(),
                        s["updatedAt"].as_str().unwrap_or_default(),
                        s["messages"],
                        s["status"].as_str().unwrap_or_default(),
                        s["title"].as_str().unwrap_or_default()
                    ));
                }
            }
        }
        SessionsCommand::Show(a) => {
            let id = store
                .resolve_id(&a.id)
                .map_err(|e| Failure(e.to_string()))?;
            if ctx.args.json {
                out(&pretty(
                    &alisio_session::read::show(&store, &id, a.events).map_err(Failure::from)?,
                ));
            } else {
                for l in alisio_session::read::show_lines(&store, &id).map_err(Failure::from)? {
                    out(&format!("{l}\n"));
                }
            }
        }
        SessionsCommand::Rewind(a) => return rewind(ctx, store, a),
        SessionsCommand::Report(a) => {
            let id = store
                .resolve_id(&a.id)
                .map_err(|e| Failure(e.to_string()))?;
            let context = alisio_session::context::DiskContext::new(
                ctx.root.clone(),
                ctx.settings.clone(),
                ctx.trusted,
                ctx.env.clone(),
            );
            // As a headless `run` without `--allow` would offer its tools.
            let cfg = alisio_session::SessionConfig::from_layers(&ctx.layers);
            let policies = cfg.policies(&[], false, true);
            let r = alisio_session::read::report(&store, &id, &ctx.settings, policies, &context)
                .map_err(Failure::from)?;
            if ctx.args.json {
                out(&pretty(&r));
            } else {
                out(&super::report_table::render(&r.to_json()));
            }
        }
    }
    Ok(Exit::Ok)
}

/// `sessions rewind ID --to N`: without `--keep` or `--overwrite`, files the user changed after
/// the checkpoint stop the rewind (listed, exit 1) and nothing changes.
fn rewind(ctx: &Ctx, mut store: Store, a: &RewindArgs) -> Result<Exit, Failure> {
    use alisio_session::checkpoints::{self, Resolve, RewindRequest};
    let dir = ctx
        .env
        .state_home()
        .ok_or_else(|| Failure("cannot determine the state directory".into()))?;
    let resolve = if a.keep {
        Resolve::Keep
    } else if a.overwrite {
        Resolve::Overwrite
    } else {
        Resolve::Ask
    };
    let req = RewindRequest {
        state_dir: &dir,
        root: &ctx.root,
        session_id: &a.id,
        checkpoint: a.to,
        resolve,
    };
    let r = checkpoints::rewind(&mut store, &req).map_err(|e| Failure(e.to_string()))?;
    if ctx.args.json {
        out(&pretty(&serde_json::to_value(&r).unwrap_or_default()));
    } else if !r.rewound {
        out(&format!(
            "You changed these files after checkpoint {}; nothing was rewound:\n",
            r.checkpoint
        ));
        for f in r.files.iter().filter(|f| f.conflict) {
            out(&format!("  {} ({})\n", f.path, f.action));
        }
        out(
            "Run again with --keep to leave them as they are, or --overwrite to rewind them too.\n",
        );
    } else {
        for f in &r.files {
            let note = if r.kept.contains(&f.path) {
                " (kept: changed by you)"
            } else if r.unrestorable.contains(&f.path) {
                " (not restorable: over the snapshot size cap)"
            } else if r.failed.contains(&f.path) {
                " (failed: changed during the rewind)"
            } else {
                ""
            };
            out(&format!("{} {}{note}\n", f.action, f.path));
        }
        out(&format!(
            "Rewound session {} to checkpoint {}: {} messages left the transcript, {} came back.\n",
            r.session_id, r.checkpoint, r.messages.removed, r.messages.restored
        ));
    }
    Ok(if r.rewound { Exit::Ok } else { Exit::Findings })
}
