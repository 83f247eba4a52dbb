//! What the server computes from a [`Snapshot`]: the configuration of each workspace folder and
//! every diagnostic `check` would report, for all folders at once. Runs on a blocking thread;
//! the core modules do the work, this module only gathers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::state::Snapshot;
use crate::config::{self, Layer, Origin, Settings};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::text::{LineIndex, TextRange};
use crate::workspace::{self, Fs};

/// The configuration in effect for one workspace folder.
pub struct FolderConfig {
    pub folder: PathBuf,
    pub root: PathBuf,
    pub trusted: bool,
    pub settings: Settings,
    /// `config-invalid` diagnostics for the configuration files of this folder.
    pub diagnostics: Vec<Diagnostic>,
    /// Problems of the client-provided layer (shown with `window/showMessage`).
    pub client_problems: Vec<config::Problem>,
}

fn text_of(fs: &dyn Fs, path: &Path) -> String {
    fs.read(path).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
}

fn config_diag(fs: &dyn Fs, file: &Path, range: Option<TextRange>, message: &str) -> Diagnostic {
    let text = text_of(fs, file);
    let idx = LineIndex::new(&text);
    let span = idx.span(range.unwrap_or_default());
    Diagnostic::new(file, span, Severity::Error, Code::ConfigInvalid, message)
}

/// Loads the layers of one folder through `fs` (open buffers count). A file that is not valid
/// JSON is skipped as a whole, with a `config-invalid` diagnostic at the syntax error.
#[must_use]
pub fn folder_config(snap: &Snapshot, folder: &Path) -> FolderConfig {
    let fs = snap.fs();
    let root = workspace::find_root(&fs, folder);
    let trusted = snap.options.trusted || snap.extra_config.is_some();
    let mut layers: Vec<Layer> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut files: Vec<(Origin, PathBuf)> = Vec::new();
    if let Some(home) = snap.env.config_home() {
        files.push((Origin::User, home.join("config.json")));
    }
    if trusted {
        files.push((Origin::Project, root.join(".alisio").join("config.json")));
    }
    if let Some(extra) = &snap.extra_config {
        files.push((Origin::CommandLine, extra.clone()));
    }
    for (origin, path) in files {
        let Ok(bytes) = fs.read(&path) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        match Layer::from_file_text(origin, &path, &path.to_string_lossy(), &text) {
            Ok(layer) => {
                for p in &layer.problems {
                    diagnostics.push(config_diag(&fs, &path, p.span, &p.message));
                }
                layers.push(layer);
            }
            Err(e) => diagnostics.push(config_diag(&fs, &path, e.span, &e.message)),
        }
    }
    let client = Layer::from_client(snap.client_config.clone());
    let client_problems: Vec<config::Problem> = if client.problems.is_empty() {
        Vec::new()
    } else {
        // `(using <value>)`: what the layers below the client give for that key.
        let below = config::resolve(&layers, snap.env.home.as_deref());
        client
            .problems
            .iter()
            .map(|p| config::Problem { message: format!("{} (using {})", p.message, below.shown(&p.key)), ..p.clone() })
            .collect()
    };
    layers.push(client);
    let settings = config::resolve(&layers, snap.env.home.as_deref());
    FolderConfig { folder: folder.to_path_buf(), root, trusted, settings, diagnostics, client_problems }
}

/// Every diagnostic of every folder, keyed by file. Files with nothing to report are absent.
#[must_use]
pub fn compute(snap: &Snapshot) -> BTreeMap<PathBuf, Vec<Diagnostic>> {
    let mut out: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
    let mut folders = snap.folders.clone();
    if folders.is_empty() {
        // No folder: each open document's directory acts as one (instructions.md §1, "cwd").
        folders = snap.buffers.keys().filter_map(|p| p.parent().map(Path::to_path_buf)).collect();
        folders.sort();
        folders.dedup();
    }
    for folder in &folders {
        let cfg = folder_config(snap, folder);
        for d in cfg.diagnostics {
            out.entry(d.file.clone()).or_default().push(d);
        }
    }
    for diags in out.values_mut() {
        crate::diagnostic::sort(diags);
        diags.dedup();
    }
    out
}
