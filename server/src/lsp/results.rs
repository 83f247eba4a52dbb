//! What a pass computes, as plain data: the configuration of a workspace folder, its analyses,
//! and the outcome of one pass over every folder. `analysis` and `skills` fill them; `state`
//! holds the last ones; the feature modules read them.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use alisio_base::config::{self, Layer, Settings};
use alisio_base::diagnostic::Diagnostic;
use alisio_base::workspace::Env;
use alisio_rules::instructions;
use alisio_rules::skills::catalog::{Discovery, Input};

/// The configuration in effect for one workspace folder.
pub struct FolderConfig {
    pub root: PathBuf,
    pub trusted: bool,
    pub settings: Settings,
    /// `config-invalid` diagnostics for the configuration files of this folder.
    pub diagnostics: Vec<Diagnostic>,
    /// Problems of the client-provided layer (shown with `window/showMessage`).
    pub client_problems: Vec<config::ConfigProblem>,
    /// Every layer that applied, lowest first (sessions read their own keys from them).
    pub layers: Vec<Layer>,
}

impl FolderConfig {
    /// The catalog input of this folder: its root, trust and settings, no plugins.
    pub fn input<'a>(&'a self, env: &'a Env) -> Input<'a> {
        Input {
            workspace_root: &self.root,
            trusted: self.trusted,
            settings: &self.settings,
            env,
            plugins: &[],
        }
    }
}

/// What one workspace folder looks like after a pass: its configuration and the analyses the
/// lenses, hovers and actions read.
pub struct FolderResult {
    pub config: FolderConfig,
    pub instructions: instructions::diagnostics::Analysis,
    pub skills: SkillsResult,
}

/// The outcome of one pass over every folder.
#[derive(Default)]
pub struct Computed {
    /// Every diagnostic, keyed by file. Files with nothing to report are absent.
    pub diagnostics: BTreeMap<PathBuf, Vec<Diagnostic>>,
    pub folders: HashMap<PathBuf, Arc<FolderResult>>,
}

/// Skills of one folder after a pass.
#[derive(Default)]
pub struct SkillsResult {
    /// One discovery per vantage of V (spec/skills.md §1.4), the root first, for the active host.
    pub discoveries: Vec<Discovery>,
    /// The listing each lens host sends, seen from the root (`None`: not simulated).
    pub listings: Vec<(
        alisio_base::config::Host,
        Option<alisio_rules::skills::listing::Listing>,
    )>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every `SKILL.md` validated (suppressions read their directives).
    pub files: Vec<PathBuf>,
    /// Directories where a discovery hit the 2000-directory bound.
    pub scan_limit: Vec<PathBuf>,
}

/// The last audit of recent sessions of one workspace folder (`lsp::audit`,
/// spec/interfaces.md §4.6).
pub struct FolderAudit {
    /// Newest first per client, each with its findings.
    pub sessions: Vec<(
        alisio_governor::audit::SessionAudit,
        Vec<alisio_session::audit::findings::SessionFinding>,
    )>,
    pub pending: Vec<alisio_session::audit::findings::PendingDiagnostic>,
    pub lenses: alisio_session::audit::findings::Lenses,
}
