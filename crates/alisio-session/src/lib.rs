//! Agent sessions (sessions.md): the durable store, the loop, the tools, approvals, providers,
//! compaction and the event stream. Plain Rust, synchronous: the CLI calls [`run_session`] on
//! its main thread, the language server on a blocking thread, both with a cancellation flag.
//!
//! Invariant: nothing reaches a consumer (stdout, `alisio/sessionEvent`) before the
//! transaction holding it commits, and every call in the active transcript ends up with exactly
//! one result.

pub mod approvals;
pub mod audit;
pub mod briefs;
pub mod checkpoints;
pub mod context;
pub mod diff;
pub mod events;
pub mod providers;
pub mod read;
pub mod run_governor;
pub mod runner;
#[cfg(test)]
mod sandbox_tests;
pub mod settings;
pub mod store;
#[cfg(test)]
mod tests;
pub mod tools;
pub mod util;
pub mod workbench;

use std::path::{Path, PathBuf};

pub use approvals::{ApprovalRequest, Approver, Reply, Review, SessionGrants};
pub use runner::{PreRunError, RunResult, RunStatus, SessionRun, run_session};
pub use settings::{RunOptions, SessionConfig};

/// One instruction file in the attach map (`options.attachedInstructions`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachedFile {
    /// Absolute path.
    pub path: PathBuf,
    pub sha256: String,
}

/// The nested instruction files a tool call attaches, returned by [`SessionContext::attach`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NestedAttachment {
    /// The `<instructions>` … `</instructions>` block.
    pub text: String,
    /// The files it delivers (added to the attach map).
    pub files: Vec<AttachedFile>,
    /// The same files as the store's `deliveries` records them (`nested`, with the bytes of
    /// each text; the caller adds the call that carries them).
    pub delivered: Vec<store::Delivered>,
}

/// The instruction section and the skill catalog of a request, cut at their files
/// (spec/governor.md §2.6: one `instructions` segment per file, the catalog as `skills`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// `(label, text)` per kept instruction file, root first; the first text begins with the
    /// section's header and notice. Joined by blank lines they are the section.
    pub files: Vec<(String, String)>,
    /// The skill catalog text, the section's extras (spec/instructions.md §2.7 item 5).
    pub skills: Option<String>,
    /// The values of `skill_load`'s `name` enum when they fit its bound (spec/skills.md §4.2);
    /// `None` leaves the parameter a plain string.
    pub skill_names: Option<Vec<String>>,
    /// What the section and the catalog deliver, file by file (the request's set in the store's
    /// `deliveries`, spec/sessions.md §1.3): the kept instruction files in section order, then
    /// the catalog and each listed skill.
    pub delivered: Vec<store::Delivered>,
}

impl Section {
    /// The blocks the system text carries after the preamble, each joined with one blank
    /// line: the section, then the catalog.
    #[must_use]
    pub fn blocks(&self) -> Vec<String> {
        let mut v = Vec::new();
        if !self.files.is_empty() {
            let texts: Vec<&str> = self.files.iter().map(|(_, t)| t.as_str()).collect();
            v.push(texts.join("\n\n"));
        }
        v.extend(self.skills.clone());
        v
    }
}

/// A skill that runs in a sub-session (spec/sessions.md §12.7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForkSkill {
    pub display_id: String,
    /// The `skill_load` text (instructions and skill root).
    pub text: String,
    /// `context: fork` in the frontmatter.
    pub fork: bool,
    /// `allowed-tools` of the frontmatter, as written; `None` when absent.
    pub allowed_tools: Option<Vec<String>>,
}

/// What sessions need from the instruction and skill modules (spec/instructions.md §2.7–2.8,
/// spec/skills.md §4). The runner holds one per run; [`context::DiskContext`] is the real one.
pub trait SessionContext: Send + Sync {
    /// Blocks b–c' of spec/sessions.md §2.2: the instruction section for `cwd` with the attached
    /// files that joined it, and the skill catalog text as its extras.
    fn instruction_section(&self, cwd: &Path, attached: &[AttachedFile]) -> Section;
    /// Whether the listed skill set seen from `cwd` is non-empty (the skill tools are offered).
    fn skills_listed(&self, cwd: &Path) -> bool;
    /// The nested lookup for the declared paths of one turn.
    fn attach(
        &self,
        cwd: &Path,
        attached: &[AttachedFile],
        paths: &[PathBuf],
    ) -> Option<NestedAttachment>;
    /// `context_explain`, `skill_load`, `skill_search`, `skill_resource`.
    ///
    /// # Errors
    /// The tool's error ([`tools::error::ToolError::Failed`] with the skills' text).
    fn tool(&self, call: &tools::args::ContextTool, cwd: &Path) -> tools::error::ToolReturn;
    /// A `/skill:<name> <rest>` prompt: `None` when the prompt is not one, else the expanded
    /// text and the skill's displayId, or the `skill_load` error (a pre-run failure).
    fn expand_prompt(
        &self,
        _prompt: &str,
        _cwd: &Path,
    ) -> Option<tools::error::ToolReturn<(String, String)>> {
        None
    }
    /// `skill_run` and `context: fork` (spec/sessions.md §12.7): the skill `name` as a
    /// sub-session needs it; `None` when this context has no skills.
    ///
    /// # Errors
    /// The `skill_load` error of an unknown, disabled or unloadable skill.
    fn skill_fork(&self, _name: &str, _cwd: &Path) -> Option<tools::error::ToolReturn<ForkSkill>> {
        None
    }
    /// The "Loaded skills" block re-attached after a compaction (spec/skills.md §4.5) for the skills
    /// (names or ids, most recent first) whose load was summarised away.
    fn loaded_block(&self, _ids: &[String], _cwd: &Path) -> Option<String> {
        None
    }
}
