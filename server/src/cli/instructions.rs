//! `alisio-ls context explain PATH` and the instruction-file part of `check`.

use std::path::PathBuf;

use super::{Ctx, Exit, Failure};
use crate::diagnostic::Diagnostic;

#[derive(clap::Args, Debug)]
pub struct ExplainArgs {
    /// The path to explain (need not exist).
    pub path: PathBuf,
}

pub fn run(_ctx: &Ctx, _args: &ExplainArgs) -> Result<Exit, Failure> {
    Err(Failure("context explain is not implemented yet".into()))
}

/// Instruction-file diagnostics for the files under `paths`, and how many files were checked.
pub fn check_diagnostics(_ctx: &Ctx, _paths: &[PathBuf]) -> Result<(Vec<Diagnostic>, usize), Failure> {
    Ok((Vec::new(), 0))
}
