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
    Store::open(&dir).map_err(Failure)
}

fn pretty(v: &Value) -> String {
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
            let list = alisio_session::read::list(&store, &ws, a.all, true).map_err(Failure)?;
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
            let id = store.resolve_id(&a.id).map_err(Failure)?;
            if ctx.args.json {
                out(&pretty(
                    &alisio_session::read::show(&store, &id, a.events).map_err(Failure)?,
                ));
            } else {
                for l in alisio_session::read::show_lines(&store, &id).map_err(Failure)? {
                    out(&format!("{l}\n"));
                }
            }
        }
        SessionsCommand::Report(a) => {
            let id = store.resolve_id(&a.id).map_err(Failure)?;
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
                .map_err(Failure)?;
            if ctx.args.json {
                out(&pretty(&r));
            } else {
                out(&super::report_table::render(&r));
            }
        }
    }
    Ok(Exit::Ok)
}
