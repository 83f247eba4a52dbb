//! Compaction (sessions.md §6): measuring, triggers, planning the cut, the summarizer request,
//! parsing and rendering the checkpoint, persisting it, budget reduction in place and the last
//! chance before `context_budget`.

use super::runner::Run;

/// Runs the compaction steps before a model turn. `Ok(Some((code, message)))` ends the run.
///
/// # Errors
/// Store errors.
pub fn before_turn(_run: &mut Run<'_>) -> Result<Option<(&'static str, String)>, String> {
    Ok(None)
}
