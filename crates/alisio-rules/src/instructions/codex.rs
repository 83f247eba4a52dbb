//! Host `codex` (spec/instructions.md §3): the simulation of OpenAI Codex CLI's AGENTS.md loading: its
//! `config.toml` keys, project root markers, fallback names, the uncharged global file and the
//! root-first budget.

use std::path::{Path, PathBuf};

use super::read::{ReadMode, Reader};
use super::{FileKind, FileScope, ListError, ListedFile, Setup};
use alisio_base::workspace::{DirEntry, FileType, Fs};

/// Codex's budget default (`project_doc_max_bytes`).
pub const DEFAULT_MAX_BYTES: u64 = 32_768;
/// How much of a codex global file is read (it is loaded in full; this only bounds memory).
/// `$CODEX_HOME/config.toml` larger than this is not parsed.
const CONFIG_TOML_LIMIT: u64 = 1024 * 1024;
const GLOBAL_READ_LIMIT: u64 = 64 * 1024 * 1024;

/// The three keys of `$CODEX_HOME/config.toml` the simulation reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodexConfig {
    pub max_bytes: u64,
    pub fallbacks: Vec<String>,
    pub markers: Vec<String>,
}

impl Default for CodexConfig {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_BYTES,
            fallbacks: Vec::new(),
            markers: vec![".git".to_string()],
        }
    }
}

fn strings(v: &toml::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_string))
        .collect()
}

impl CodexConfig {
    /// Parses `config.toml` text; a key of the wrong type keeps its default (logged).
    #[must_use]
    pub fn parse(text: &str) -> Self {
        let mut c = Self::default();
        let table: toml::Table = match text.parse() {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!("codex config.toml is not valid TOML, using defaults: {e}");
                return c;
            }
        };
        if let Some(v) = table.get("project_doc_max_bytes") {
            match v.as_integer().and_then(|i| u64::try_from(i).ok()) {
                Some(n) => c.max_bytes = n,
                None => tracing::warn!(
                    "codex config.toml: project_doc_max_bytes must be an integer >= 0"
                ),
            }
        }
        if let Some(v) = table.get("project_doc_fallback_filenames") {
            match strings(v) {
                Some(list) => {
                    for name in list {
                        if !name.is_empty() && !c.fallbacks.contains(&name) {
                            c.fallbacks.push(name);
                        }
                    }
                }
                None => tracing::warn!(
                    "codex config.toml: project_doc_fallback_filenames must be an array of strings"
                ),
            }
        }
        if let Some(v) = table.get("project_root_markers") {
            match strings(v) {
                Some(list) => c.markers = list,
                None => tracing::warn!(
                    "codex config.toml: project_root_markers must be an array of strings"
                ),
            }
        }
        c
    }

    /// Reads `$CODEX_HOME/config.toml` (missing file: defaults).
    #[must_use]
    pub fn load(setup: &Setup<'_>) -> Self {
        let Some(home) = setup.env.codex_home() else {
            return Self::default();
        };
        match setup
            .fs
            .read_prefix(&home.join("config.toml"), CONFIG_TOML_LIMIT + 1)
        {
            Ok(bytes) if bytes.len() as u64 > CONFIG_TOML_LIMIT => {
                tracing::warn!(
                    "codex config.toml is larger than {CONFIG_TOML_LIMIT} bytes; using the defaults"
                );
                Self::default()
            }
            Ok(bytes) => Self::parse(&String::from_utf8_lossy(&bytes)),
            Err(_) => Self::default(),
        }
    }

    /// Candidate names in rank order with their kinds.
    #[must_use]
    pub fn candidates(&self) -> Vec<(String, FileKind)> {
        let mut v = vec![
            ("AGENTS.override.md".to_string(), FileKind::Override),
            ("AGENTS.md".to_string(), FileKind::Agents),
        ];
        for f in &self.fallbacks {
            if !v.iter().any(|(n, _)| n == f) {
                v.push((f.clone(), FileKind::Fallback));
            }
        }
        v
    }

    /// `true` when `dir` holds a project root marker (any type, symlinks followed).
    #[must_use]
    pub fn has_marker(&self, fs: &dyn Fs, dir: &Path) -> bool {
        self.markers
            .iter()
            .filter(|m| !m.is_empty())
            .any(|m| fs.metadata(&dir.join(m)).is_ok())
    }

    /// Codex's project root for a target directory (spec/instructions.md §3).
    #[must_use]
    pub fn project_root(&self, fs: &dyn Fs, dir: &Path) -> PathBuf {
        dir.ancestors()
            .find(|a| self.has_marker(fs, a))
            .unwrap_or(dir)
            .to_path_buf()
    }
}

/// A regular file after following symlinks.
fn is_file_following(fs: &dyn Fs, dir: &Path, e: &DirEntry) -> bool {
    match e.file_type {
        FileType::File => true,
        FileType::Symlink => fs
            .metadata(&dir.join(&e.name))
            .is_ok_and(|m| m.file_type == FileType::File),
        _ => false,
    }
}

/// The winner of one directory and the other candidates that are regular files (losers).
#[must_use]
pub fn pick(
    fs: &dyn Fs,
    dir: &Path,
    entries: &[DirEntry],
    cands: &[(String, FileKind)],
) -> (Option<(String, FileKind)>, Vec<String>) {
    let mut winner = None;
    let mut losers = Vec::new();
    for (name, kind) in cands {
        let Some(e) = super::chain::find(entries, name) else {
            continue;
        };
        if !is_file_following(fs, dir, e) {
            continue;
        }
        if winner.is_none() {
            winner = Some((name.clone(), *kind));
        } else {
            losers.push(name.clone());
        }
    }
    (winner, losers)
}

/// An entry of a codex file with raw sizes.
fn entry(
    reader: &Reader<'_>,
    path: PathBuf,
    scope: FileScope,
    kind: FileKind,
    limit: u64,
) -> ListedFile {
    let file = reader.read(&path, ReadMode::Raw { limit });
    let mut e = ListedFile::new(path, scope, kind, file);
    if e.file.empty || e.file.error.is_some() {
        e.bytes = 0;
    } else {
        e.bytes = usize::try_from(e.file.file_bytes).unwrap_or(usize::MAX);
    }
    e.kept_bytes = e.bytes;
    e
}

/// The codex global file: the first non-empty of `AGENTS.override.md`, `AGENTS.md` in
/// `CODEX_HOME`; not charged to the budget.
#[must_use]
pub fn global(setup: &Setup<'_>, reader: &Reader<'_>) -> Option<ListedFile> {
    let home = setup.env.codex_home()?;
    for (name, kind) in [
        ("AGENTS.override.md", FileKind::Override),
        ("AGENTS.md", FileKind::Agents),
    ] {
        let path = home.join(name);
        if !setup
            .fs
            .metadata(&path)
            .is_ok_and(|m| m.file_type == FileType::File)
        {
            continue;
        }
        let mut e = entry(reader, path, FileScope::Global, kind, GLOBAL_READ_LIMIT);
        if e.file.empty {
            continue;
        }
        e.charged = false;
        return Some(e);
    }
    None
}

/// The text Codex delivers for an entry of its list (`None` when it delivers nothing, `""` for a
/// cut that kept only whitespace): the global file trimmed; a project file's kept raw bytes
/// decoded lossily, untrimmed (spec/instructions.md §3).
#[must_use]
pub fn delivered_text(e: &ListedFile) -> Option<String> {
    if e.file.empty || e.file.error.is_some() || e.truncation == super::Truncation::Dropped {
        return None;
    }
    if e.scope == FileScope::Global {
        return Some(e.file.text.trim().to_string());
    }
    let raw = &e.file.raw[..e.kept_bytes.min(e.file.raw.len())];
    let text = String::from_utf8_lossy(raw).into_owned();
    // A cut that keeps only whitespace is not delivered (`""`: explain marks it empty).
    Some(if text.trim().is_empty() {
        String::new()
    } else {
        text
    })
}

/// The project files of a codex target directory: Codex's project root down to `dir`.
///
/// # Errors
/// A directory listing error other than not-found or permission denied.
pub fn chain(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    cfg: &CodexConfig,
    dir: &Path,
) -> Result<Vec<ListedFile>, ListError> {
    let root = cfg.project_root(setup.fs, dir);
    let cands = cfg.candidates();
    let limit = cfg.max_bytes.max(super::PER_FILE_LIMIT as u64) + 4;
    let mut files = Vec::new();
    for d in super::chain::chain_dirs(&root, dir) {
        let entries = super::chain::list(setup.fs, &d)?;
        if let (Some((name, kind)), _) = pick(setup.fs, &d, &entries, &cands) {
            files.push(entry(reader, d.join(name), FileScope::Project, kind, limit));
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_keys_and_defaults() {
        let c = CodexConfig::parse(
            "project_doc_max_bytes = 1024\nproject_doc_fallback_filenames = [\"CLAUDE.md\", \"\", \"CLAUDE.md\", \"AGENTS.md\"]\n",
        );
        assert_eq!(c.max_bytes, 1024);
        assert_eq!(c.fallbacks, ["CLAUDE.md", "AGENTS.md"]);
        assert_eq!(c.markers, [".git"]);
        let kinds: Vec<_> = c
            .candidates()
            .into_iter()
            .map(|(n, k)| (n, k.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("AGENTS.override.md".into(), "override"),
                ("AGENTS.md".into(), "agents"),
                ("CLAUDE.md".into(), "fallback")
            ]
        );
    }

    #[test]
    fn wrong_types_and_bad_toml_keep_defaults() {
        assert_eq!(
            CodexConfig::parse("project_doc_max_bytes = \"x\"\nproject_root_markers = 3"),
            CodexConfig::default()
        );
        assert_eq!(CodexConfig::parse("= nope"), CodexConfig::default());
        assert_eq!(
            CodexConfig::parse("project_root_markers = []").markers,
            Vec::<String>::new()
        );
    }
}
