//! What the server computes from a [`Snapshot`]: the configuration of each workspace folder and
//! every diagnostic `check` would report, for all folders at once. Runs on a blocking thread;
//! the core modules do the work, this module only gathers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::results::{Computed, FolderConfig, FolderResult, SkillsResult};
use super::state::Snapshot;
use alisio_base::config::{self, Host, Layer, Origin};
use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange};
use alisio_base::workspace::{self, Fs};
use alisio_rules::instructions;
use alisio_rules::skills::catalog::Discovery;

fn text_of(fs: &dyn Fs, path: &Path) -> String {
    fs.read_prefix(path, config::CONFIG_FILE_LIMIT)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
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
        let Ok(bytes) = fs.read_prefix(&path, config::CONFIG_FILE_LIMIT + 1) else {
            continue;
        };
        if bytes.len() as u64 > config::CONFIG_FILE_LIMIT {
            diagnostics.push(config_diag(&fs, &path, None, &config::too_large_message()));
            continue;
        }
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
    let client_problems: Vec<config::ConfigProblem> = if client.problems.is_empty() {
        Vec::new()
    } else {
        // `(using <value>)`: what the layers below the client give for that key.
        let below = config::resolve(&layers, snap.env.home.as_deref());
        client
            .problems
            .iter()
            .map(|p| config::ConfigProblem {
                message: format!("{} (using {})", p.message, below.shown(&p.key)),
                ..p.clone()
            })
            .collect()
    };
    layers.push(client);
    let settings = config::resolve(&layers, snap.env.home.as_deref());
    FolderConfig {
        layers,
        root,
        trusted,
        settings,
        diagnostics,
        client_problems,
    }
}

/// The folders a pass covers: the workspace folders, or, with none, the directory of each open
/// document (spec/instructions.md §1, "cwd").
#[must_use]
pub fn folders(snap: &Snapshot) -> Vec<PathBuf> {
    if !snap.folders.is_empty() {
        return snap.folders.clone();
    }
    let mut folders: Vec<PathBuf> = snap
        .buffers
        .keys()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// The instruction [`Setup`](instructions::Setup) of a folder.
pub fn with_setup<R>(
    snap: &Snapshot,
    cfg: &FolderConfig,
    host: Host,
    f: impl FnOnce(&instructions::Setup<'_>) -> R,
) -> R {
    let fs = snap.fs();
    let managed = snap
        .env
        .claude_managed_file
        .clone()
        .unwrap_or_else(instructions::default_claude_managed_file);
    let setup = instructions::Setup {
        fs: &fs,
        env: &snap.env,
        root: &cfg.root,
        settings: &cfg.settings,
        host,
        claude_managed: Some(&managed),
        claude_session: None,
    };
    f(&setup)
}

/// `true` when the global instruction file of the config home is open in the editor (its own
/// diagnostics are computed only then, spec/instructions.md §5.1).
fn global_open(snap: &Snapshot) -> bool {
    snap.env.config_home().is_some_and(|home| {
        ["AGENTS.md", "AGENTS.override.md"]
            .iter()
            .any(|n| snap.buffers.contains_key(&home.join(n)))
    })
}

pub fn analyze_folder(snap: &Snapshot, folder: &Path) -> FolderResult {
    let config = folder_config(snap, folder);
    let include_global = global_open(snap);
    // One walk of the workspace, shared by instruction analysis and skill vantages.
    let set = workspace::walk::walk(&snap.fs(), &config.root);
    let instructions = with_setup(snap, &config, snap.options.host, |setup| {
        let mut a = instructions::diagnostics::analyze_set(setup, &set, include_global);
        if a.truncated {
            tracing::warn!(
                "{}: more than {} directories; instruction files below the first {} are not checked",
                config.root.display(),
                workspace::walk::MAX_DIRS,
                workspace::walk::MAX_DIRS
            );
        }
        // Open files reached through a symlinked directory (spec/instructions.md §2.4 rule 2).
        for path in snap.buffers.keys() {
            if workspace::is_inside(path, &config.root)
                && let Some(d) = instructions::diagnostics::through_symlinked_directory(setup, path)
            {
                a.diagnostics.push(d);
            }
        }
        a
    });
    let skills = analyze_skills(snap, &config, &set);
    FolderResult {
        config,
        instructions,
        skills,
    }
}

/// The diagnostics of one folder after suppressions (spec/suppressions.md §3), as `check` prints
/// them, with those of the last audit of recent sessions (spec/interfaces.md §4.6).
fn suppressed(snap: &Snapshot, folder: &Path, r: &FolderResult) -> Vec<Diagnostic> {
    let files: Vec<PathBuf> = r
        .instructions
        .files
        .iter()
        .map(|f| f.path.clone())
        .chain(r.skills.files.iter().cloned())
        .collect();
    let mut diags: Vec<Diagnostic> = r
        .config
        .diagnostics
        .iter()
        .chain(&r.instructions.diagnostics)
        .chain(&r.skills.diagnostics)
        .cloned()
        .collect();
    diags.extend(super::audit::diagnostics(
        snap,
        folder,
        &r.instructions.diagnostics,
    ));
    let rules = &r.config.settings.diagnostics;
    alisio_base::suppress::apply(&snap.fs(), rules, &r.config.root, &files, diags)
}

/// The result of the folder that owns `path`: from the last pass, else computed now.
#[must_use]
pub fn folder_result(snap: &Snapshot, path: &Path) -> Arc<FolderResult> {
    let folder = snap.folder_of(path);
    if let Some(r) = snap.results.get(&folder) {
        return r.clone();
    }
    Arc::new(analyze_folder(snap, &folder))
}

/// Every diagnostic of every folder, and the per-folder results.
#[must_use]
pub fn compute(snap: &Snapshot) -> Computed {
    let mut out = Computed::default();
    for folder in folders(snap) {
        let r = analyze_folder(snap, &folder);
        for d in suppressed(snap, &folder, &r) {
            out.diagnostics.entry(d.file.clone()).or_default().push(d);
        }
        out.folders.insert(folder, Arc::new(r));
    }
    for diags in out.diagnostics.values_mut() {
        alisio_base::diagnostic::sort(diags);
        diags.dedup();
    }
    out
}

/// Discovery and diagnostics of the skills of one folder, from the shared directory set.
fn analyze_skills(
    snap: &Snapshot,
    cfg: &FolderConfig,
    set: &alisio_base::workspace::walk::DirSet,
) -> SkillsResult {
    let fs = snap.fs();
    let host = snap.options.host;
    let (vantages, walked) = alisio_rules::skills::report::workspace_files(&fs, set, &cfg.root);
    let input = cfg.input(&snap.env);
    let discoveries: Vec<Discovery> = vantages
        .iter()
        .map(|v| {
            let profile = Some(snap.options.profile);
            alisio_rules::skills::catalog::discover_host_for(&fs, input, v, host, profile)
        })
        .collect();
    let probes: Vec<alisio_rules::skills::discover::Walk> = if host == Host::Alisio && !cfg.trusted
    {
        vantages
            .iter()
            .map(|v| alisio_rules::skills::discover::probe(&fs, &cfg.root, v))
            .collect()
    } else {
        Vec::new()
    };
    let root = cfg.root.clone();
    let show = move |p: &Path| alisio_base::workspace::display_path(p, &root);
    let rep = alisio_rules::skills::report::run(
        &fs,
        &alisio_rules::skills::report::Scan {
            workspace_root: &cfg.root,
            profile: snap.options.profile,
            discoveries: &discoveries,
            probes: &probes,
            extra_files: &walked,
            not_discovered: host == Host::Alisio,
            show: &show,
        },
    );
    for n in &rep.notes {
        tracing::info!("{}", n.message());
    }
    let mut rep = rep;
    use alisio_rules::skills::listing;
    let enabled = cfg.settings.hosts.enabled.as_deref();
    let hosts = listing::diagnostic_hosts(enabled);
    let mut lens_hosts = listing::lens::hosts(enabled);
    for h in &hosts {
        if !lens_hosts.contains(h) {
            lens_hosts.push(*h);
        }
    }
    let o = listing::settings::Overrides::default();
    // One listing per host, for the lens (spec/skills.md §6.5) and the diagnostics (§9.5).
    let listings = listing::diagnostics::listings(&fs, input, &cfg.root, &lens_hosts, &o);
    for d in listing::diagnostics::of_listings(&fs, input, &listings, &hosts, &o) {
        if !rep.files.contains(&d.file) {
            rep.files.push(d.file.clone());
        }
        rep.diagnostics.push(d);
    }
    // The subagents, commands and MCP configurations beside the skills (spec/instructions.md
    // §10.4): their diagnostics travel with the skills'.
    let (fd, ff) = alisio_rules::families::check(&fs, input, set);
    rep.diagnostics.extend(fd);
    for f in ff {
        if !rep.files.contains(&f) {
            rep.files.push(f);
        }
    }
    // Keep what the features read (entries, walks), drop what only the pass needed: every
    // skill's text and parse tree (features re-read a file when asked; issue 14, memory).
    let mut discoveries = discoveries;
    for d in &mut discoveries {
        d.skills = Vec::new();
    }
    let lens_hosts = listing::lens::hosts(enabled);
    SkillsResult {
        discoveries,
        listings: listings
            .into_iter()
            .filter(|(h, _)| lens_hosts.contains(h))
            .collect(),
        diagnostics: rep.diagnostics,
        files: rep.files,
        scan_limit: rep.scan_limit,
    }
}
