//! The explain object (spec/instructions.md §2.9, spec/interfaces.md §1.1): what a session whose cwd is the target directory
//! loads at startup, for any host; its JSON form and its human table.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::codex::CodexConfig;
use super::host_files::HostList;
use super::read::Reader;
use super::{
    ListError, ListedFile, NotLoaded, Setup, Skipped, budget, chain, claude, codex, copilot,
    cursor, gemini,
};
use alisio_base::config::Host;
use alisio_base::workspace::{display_path, is_inside};

/// The explain object of spec/interfaces.md §1.1 (the fields of spec/instructions.md §2.9), in
/// the order it is printed. Paths are workspace-relative inside the workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainObject {
    pub path: String,
    pub workspace: String,
    pub host: Host,
    /// The client version the host's rules were measured on (tests/real/pins.txt), when one was.
    pub host_version: Option<&'static str>,
    /// `null` for claude-code (no shared budget).
    pub max_bytes: Option<u64>,
    pub files: Vec<ExplainedFile>,
    pub omitted_bytes: u64,
    pub notice: Option<String>,
    pub outside_workspace: bool,
    pub skipped: Vec<PathReason>,
    pub not_loaded: Vec<PathReason>,
    /// cursor only: how its rules are known (hosts.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<&'static str>,
}

/// One file of the explain object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainedFile {
    pub path: String,
    pub scope: &'static str,
    pub kind: &'static str,
    pub bytes: u64,
    pub kept_bytes: u64,
    pub truncation: &'static str,
    pub file_bytes: u64,
    /// Present (`true`) when the read stopped at the size cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_cut: Option<bool>,
    /// Present (`true`) for an empty file that was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub load: &'static str,
    pub delivery: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// gemini and claude-code only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imports: Option<Vec<ExplainedImport>>,
    /// claude-code only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stripped_bytes: Option<u64>,
    /// claude-code, codex, gemini: the sha256 of the file's text as the client delivers it
    /// (claude-code: comments stripped; codex: the kept bytes, the global file trimmed; gemini:
    /// imports expanded, trimmed), unless it delivers nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// One `@import` of a file (gemini, claude-code; `approval` for claude-code only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainedImport {
    pub path: String,
    pub depth: u32,
    pub bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<bool>,
    /// Claude Code: the sha256 of the imported text as delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// A skipped or not-loaded path and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PathReason {
    pub path: String,
    pub reason: String,
}

/// The answer of `context explain`.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The normalised absolute target.
    pub target: PathBuf,
    pub target_dir: PathBuf,
    /// The workspace root.
    pub root: PathBuf,
    pub host: Host,
    /// `None` for claude-code (no shared budget).
    pub max_bytes: Option<u64>,
    pub files: Vec<ListedFile>,
    pub omitted_bytes: u64,
    pub notice: Option<String>,
    pub outside_workspace: bool,
    pub skipped: Vec<Skipped>,
    /// claude-code: AGENTS files the AGENTS mode left out, with the CLAUDE file responsible.
    pub excluded_agents: Vec<(PathBuf, PathBuf)>,
    /// hosts.md H4: files found but not delivered.
    pub not_loaded: Vec<NotLoaded>,
}

/// Explains a path as the user gave it, relative to `base` (the canonical cwd).
///
/// # Errors
/// A directory listing error other than not-found or permission denied.
pub fn explain_path(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    base: &Path,
    given: &Path,
) -> Result<Explanation, ListError> {
    let target = chain::normalize_target(setup.fs, base, setup.root, given);
    explain(setup, reader, &target, chain::has_trailing_slash(given))
}

/// Explains a normalised absolute target.
///
/// # Errors
/// A directory listing error other than not-found or permission denied.
pub fn explain(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    target: &Path,
    trailing_slash: bool,
) -> Result<Explanation, ListError> {
    let dir = chain::target_dir(setup.fs, setup.root, target, trailing_slash);
    let inside = is_inside(&dir, setup.root);
    let mut ex = Explanation {
        target: target.to_path_buf(),
        target_dir: dir.clone(),
        root: setup.root.to_path_buf(),
        host: setup.host,
        max_bytes: None,
        files: Vec::new(),
        omitted_bytes: 0,
        notice: None,
        outside_workspace: !inside,
        skipped: Vec::new(),
        excluded_agents: Vec::new(),
        not_loaded: Vec::new(),
    };
    let mut host_list = |l: HostList| {
        ex.files = l.files;
        ex.not_loaded = l.not_loaded;
    };
    match setup.host {
        Host::Alisio => {
            let global = chain::global_alisio(setup, reader);
            let (mut files, skipped) = if inside {
                chain::chain_alisio(setup, reader, &dir)?
            } else {
                (Vec::new(), Vec::new())
            };
            if let Some(g) = global {
                let canon = setup
                    .fs
                    .canonicalize(&g.path)
                    .unwrap_or_else(|_| g.path.clone());
                files.retain(|f| f.path != canon);
                files.insert(0, g);
            }
            let max = setup.settings.max_bytes;
            let (omitted, notice) = budget::apply_alisio(&mut files, max);
            ex.files = files;
            ex.skipped = skipped;
            ex.max_bytes = Some(u64::from(max));
            ex.omitted_bytes = omitted;
            ex.notice = notice;
        }
        Host::Codex => {
            let cfg = CodexConfig::load(setup);
            let mut files: Vec<ListedFile> = codex::global(setup, reader).into_iter().collect();
            // spec/instructions.md §2.9: outside the workspace the chain is empty for every budgeted host.
            if inside {
                files.extend(codex::chain(setup, reader, &cfg, &dir)?);
            }
            let (omitted, notice) = budget::apply_codex(&mut files, cfg.max_bytes);
            ex.files = files;
            ex.max_bytes = Some(cfg.max_bytes);
            ex.omitted_bytes = omitted;
            ex.notice = notice;
        }
        Host::ClaudeCode => {
            let l = claude::list(setup, reader, target, &dir);
            ex.omitted_bytes = l
                .files
                .iter()
                .map(|f| (f.bytes - f.kept_bytes) as u64)
                .sum();
            ex.files = l.files;
            ex.excluded_agents = l.excluded_agents;
        }
        Host::Copilot => host_list(copilot::list(setup, reader, target, &dir)),
        Host::Gemini => host_list(gemini::list(setup, reader, &dir)),
        Host::Cursor => host_list(cursor::list(setup, reader, target, &dir)),
    }
    Ok(ex)
}

impl Explanation {
    /// How a path is shown: workspace-relative when inside, absolute otherwise.
    #[must_use]
    pub fn show(&self, p: &Path) -> String {
        display_path(p, &self.root)
    }

    /// The JSON object of spec/interfaces.md §1.1 with the fields of spec/instructions.md §2.9.
    #[must_use]
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.object()).unwrap_or(Value::Null)
    }

    /// The explain object as a type: what `context explain --json` prints and
    /// `alisio/contextExplain` answers.
    #[must_use]
    pub fn object(&self) -> ExplainObject {
        let files = self
            .files
            .iter()
            .map(|f| {
                let import = |i: &super::Import, approval: bool| ExplainedImport {
                    path: self.show(&i.path),
                    depth: i.depth,
                    bytes: i.bytes,
                    approval: approval.then_some(i.approval),
                    sha256: if approval { i.sha256.clone() } else { None },
                };
                let imports = match self.host {
                    Host::Gemini => Some(f.imports.iter().map(|i| import(i, false)).collect()),
                    Host::ClaudeCode => Some(f.imports.iter().map(|i| import(i, true)).collect()),
                    _ => None,
                };
                let delivered = match self.host {
                    Host::ClaudeCode if f.truncation != super::Truncation::Dropped => {
                        Some(claude::delivered_text(&f.file.text))
                    }
                    Host::Codex => codex::delivered_text(f),
                    Host::Gemini => f.delivered.clone(),
                    _ => None,
                };
                let delivered_empty = delivered.as_ref().is_some_and(String::is_empty);
                let delivered =
                    delivered.filter(|d| self.host == Host::ClaudeCode || !d.is_empty());
                ExplainedFile {
                    path: self.show(&f.path),
                    scope: f.scope.as_str(),
                    kind: f.kind.as_str(),
                    bytes: f.bytes as u64,
                    kept_bytes: f.kept_bytes as u64,
                    truncation: f.truncation.as_str(),
                    file_bytes: f.file.file_bytes,
                    file_cut: f.file.cut.then_some(true),
                    empty: ((f.file.empty && f.file.error.is_none()) || delivered_empty)
                        .then_some(true),
                    error: f.file.error.clone(),
                    load: f.load.as_str(),
                    delivery: f.delivery.as_str(),
                    reason: f.reason.clone(),
                    imports,
                    stripped_bytes: (self.host == Host::ClaudeCode)
                        .then(|| f.stripped_bytes.unwrap_or(0) as u64),
                    sha256: delivered.map(|d| alisio_base::text::sha256_hex(&d)),
                }
            })
            .collect();
        let path_reason = |path: &Path, reason: &str| PathReason {
            path: self.show(path),
            reason: reason.to_owned(),
        };
        ExplainObject {
            path: self.show(&self.target),
            workspace: self.root.to_string_lossy().into_owned(),
            host: self.host,
            host_version: super::host_version(self.host),
            max_bytes: self.max_bytes,
            files,
            omitted_bytes: self.omitted_bytes,
            notice: self.notice.clone(),
            outside_workspace: self.outside_workspace,
            skipped: self
                .skipped
                .iter()
                .map(|s| path_reason(&s.path, s.reason))
                .collect(),
            not_loaded: self
                .not_loaded
                .iter()
                .map(|n| path_reason(&n.path, &n.reason))
                .collect(),
            evidence: (self.host == Host::Cursor).then_some(cursor::EVIDENCE),
        }
    }

    /// The human form of spec/instructions.md §2.9: header, one row per file, notice, skipped lines.
    #[must_use]
    pub fn to_human(&self) -> String {
        let path = self.show(&self.target);
        let budget = self.max_bytes.map_or_else(
            || "no shared budget".to_string(),
            |m| format!("max {m} bytes"),
        );
        let mut out = format!(
            "Instructions for {path} (host {}, {budget})\n",
            self.host.as_str()
        );
        if self.outside_workspace {
            out.push_str(&format!(
                "{path} is outside the workspace {}; only the global file applies\n",
                self.root.display()
            ));
        }
        let tiered = matches!(self.host, Host::Copilot | Host::Gemini | Host::Cursor);
        let fifth = if tiered { "delivery" } else { "truncation" };
        let mut rows: Vec<[String; 6]> =
            vec![["#", "scope", "kind", "kept/bytes", fifth, "file"].map(str::to_string)];
        for (i, f) in self.files.iter().enumerate() {
            let mut file = self.show(&f.path);
            if f.load == super::Load::OnRead {
                file.push_str(" (on read)");
            }
            if let Some(r) = &f.reason {
                file.push_str(&format!(" ({r})"));
            }
            if let Some(e) = &f.file.error {
                file.push_str(&format!(" ({e})"));
            } else if f.file.empty {
                file.push_str(" (empty)");
            }
            rows.push([
                (i + 1).to_string(),
                f.scope.as_str().to_string(),
                f.kind.as_str().to_string(),
                format!("{}/{}", f.kept_bytes, f.bytes),
                if tiered {
                    f.delivery.as_str().to_string()
                } else {
                    f.truncation.as_str().to_string()
                },
                file,
            ]);
        }
        if self.files.is_empty() {
            out.push_str("no instruction file applies\n");
        } else {
            let widths: Vec<usize> = (0..6)
                .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
                .collect();
            for r in &rows {
                let mut line = String::new();
                for (c, cell) in r.iter().enumerate() {
                    if c == 5 {
                        line.push_str(cell);
                    } else {
                        line.push_str(cell);
                        line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
                    }
                }
                out.push_str(line.trim_end());
                out.push('\n');
                for imp in self
                    .files
                    .get(r[0].parse::<usize>().unwrap_or(0).wrapping_sub(1))
                    .map(|f| f.imports.as_slice())
                    .unwrap_or(&[])
                {
                    out.push_str(&format!(
                        "   imports {} (depth {})\n",
                        self.show(&imp.path),
                        imp.depth
                    ));
                }
            }
        }
        if let Some(n) = &self.notice {
            out.push_str(n);
            out.push('\n');
        }
        for s in &self.skipped {
            out.push_str(&format!("skipped {}: {}\n", self.show(&s.path), s.reason));
        }
        for n in &self.not_loaded {
            out.push_str(&format!(
                "not loaded {}: {}\n",
                self.show(&n.path),
                n.reason
            ));
        }
        if self.host == Host::Cursor {
            out.push_str("cursor: documented behaviour, not verified against Cursor\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;
    use alisio_base::config::Settings;
    use alisio_base::workspace::{DirEntry, DiskFs, Env, Fs, Metadata};

    /// The disk, except that one file cannot be read (as with EACCES when not root).
    struct Denied(PathBuf);

    impl Fs for Denied {
        fn read_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
            DiskFs.read_dir(dir)
        }
        fn symlink_metadata(&self, p: &Path) -> io::Result<Metadata> {
            DiskFs.symlink_metadata(p)
        }
        fn metadata(&self, p: &Path) -> io::Result<Metadata> {
            DiskFs.metadata(p)
        }
        fn read_prefix(&self, p: &Path, limit: u64) -> io::Result<Vec<u8>> {
            if p == self.0 {
                Err(io::Error::from(io::ErrorKind::PermissionDenied))
            } else {
                DiskFs.read_prefix(p, limit)
            }
        }
        fn canonicalize(&self, p: &Path) -> io::Result<PathBuf> {
            DiskFs.canonicalize(p)
        }
        fn read_link(&self, p: &Path) -> io::Result<PathBuf> {
            DiskFs.read_link(p)
        }
    }

    #[test]
    fn unreadable_winner_still_wins_with_an_error_field() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        std::fs::write(ws.join("AGENTS.md"), "secret").unwrap();
        std::fs::write(ws.join("AGENT.md"), "legacy").unwrap();
        let fs = Denied(ws.join("AGENTS.md"));
        let env = Env::default();
        let s = Settings::default();
        let setup = Setup::for_test(&fs, &env, &ws, &s, Host::Alisio);
        let ex = explain_path(&setup, &Reader::new(&fs), &ws, Path::new(".")).unwrap();
        let j = ex.to_json();
        assert_eq!(j["files"].as_array().unwrap().len(), 1);
        let f = &j["files"][0];
        assert_eq!(
            (
                f["path"].as_str(),
                f["bytes"].as_u64(),
                f["keptBytes"].as_u64()
            ),
            (Some("AGENTS.md"), Some(0), Some(0))
        );
        assert_eq!(f["error"], "permission denied");
        assert_eq!(f["fileBytes"], 6);
        assert!(f.get("empty").is_none());
        assert!(ex.to_human().contains("AGENTS.md (permission denied)"));
        assert_eq!(
            super::super::model_text::section(&ex.files, None, &ws),
            None
        );
    }
}
