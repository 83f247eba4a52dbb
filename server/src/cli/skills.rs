//! `alisio-ls skills list` / `skills validate`, and the skill part of `check`.

use std::path::PathBuf;

use super::{Ctx, Exit, Failure};
use crate::diagnostic::Diagnostic;

#[derive(clap::Subcommand, Debug)]
pub enum SkillsCommand {
    /// The effective skill catalog seen from PATH (default `.`).
    List { path: Option<PathBuf> },
    /// Validate skill directories or SKILL.md files.
    Validate {
        paths: Vec<PathBuf>,
        /// Fail on warnings too.
        #[arg(long)]
        strict: bool,
    },
}

pub fn run(_ctx: &Ctx, _cmd: &SkillsCommand) -> Result<Exit, Failure> {
    Err(Failure("skills commands are not implemented yet".into()))
}

/// Skill diagnostics for the files under `paths`, and how many files were checked.
pub fn check_diagnostics(_ctx: &Ctx, _paths: &[PathBuf]) -> Result<(Vec<Diagnostic>, usize), Failure> {
    Ok((Vec::new(), 0))
}
