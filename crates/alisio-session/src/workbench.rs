//! The workbench of a coordinator session (spec/sessions.md §12.4): `.alisio/workbench/` with
//! `scripts/`, `artifacts/` and `spill/`, a folder that travels with the workspace, and its
//! generated `INDEX.md` (at most [`MAX_ENTRIES`] entries: path, one line from the file's first
//! comment or heading, size, last run). The index text goes into the coordinator's system
//! text (never into the history); the file on disk is refreshed before each coordinator turn
//! and after a write or process call of the coordinator's sessions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The workbench, relative to the workspace root.
pub const DIR: &str = ".alisio/workbench";
/// Its folders.
pub const FOLDERS: [&str; 3] = ["scripts", "artifacts", "spill"];
/// The origin of the index in the ContextReport (an `instructions` segment).
pub const INDEX_LABEL: &str = ".alisio/workbench/INDEX.md";
/// The most entries the index lists.
pub const MAX_ENTRIES: usize = 40;
/// Where the last runs of scripts are kept (`{"scripts/x.py": "<RFC 3339>"}`).
const RUNS: &str = "runs.json";
/// The longest line taken from a file's first comment or heading.
const LINE_CHARS: usize = 100;

/// One file of the workbench.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkbenchFile {
    /// Relative to the workbench (`scripts/count.py`).
    pub path: String,
    /// The first comment or heading line, without its markers (empty when none).
    pub line: String,
    pub size: u64,
    /// When a process call last ran it (scripts only).
    pub last_run: Option<String>,
}

fn dir(root: &Path) -> PathBuf {
    root.join(DIR)
}

/// The first comment or heading of a text (a shebang skipped), cut to [`LINE_CHARS`].
#[must_use]
pub fn first_line(text: &str) -> String {
    for l in text.lines().take(20) {
        let t = l.trim();
        if t.is_empty() || t.starts_with("#!") {
            continue;
        }
        let marked = ["#", "//", "--", ";", "/*", "<!--", "\"\"\"", "*"]
            .iter()
            .any(|m| t.starts_with(m));
        if !marked {
            return String::new();
        }
        let mut body = t.trim_start_matches(['#', '/', '-', ';', '*', '<', '!', '"', ' ']);
        for end in ["*/", "-->", "\"\"\""] {
            body = body.strip_suffix(end).unwrap_or(body);
        }
        let body = body.trim_end();
        return crate::util::take_chars(body, LINE_CHARS).to_string();
    }
    String::new()
}

fn runs(root: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(dir(root).join(RUNS))
        .ok()
        .and_then(|t| serde_json::from_str::<BTreeMap<String, String>>(&t).ok())
        .unwrap_or_default()
}

/// The workbench's files, the [`MAX_ENTRIES`] most recently changed sorted by path, and how
/// many there are in all.
#[must_use]
pub fn entries(root: &Path) -> (Vec<WorkbenchFile>, usize) {
    let runs = runs(root);
    let mut all: Vec<(SystemTime, WorkbenchFile)> = Vec::new();
    for folder in FOLDERS {
        let Ok(rd) = std::fs::read_dir(dir(root).join(folder)) else {
            continue;
        };
        let mut stack: Vec<(PathBuf, String)> = rd
            .flatten()
            .map(|e| {
                (
                    e.path(),
                    format!("{folder}/{}", e.file_name().to_string_lossy()),
                )
            })
            .collect();
        while let Some((p, rel)) = stack.pop() {
            let Ok(md) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if md.is_dir() {
                if let Ok(rd) = std::fs::read_dir(&p) {
                    stack.extend(rd.flatten().map(|e| {
                        (
                            e.path(),
                            format!("{rel}/{}", e.file_name().to_string_lossy()),
                        )
                    }));
                }
                continue;
            }
            if !md.is_file() {
                continue;
            }
            let head = read_head(&p);
            all.push((
                md.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                WorkbenchFile {
                    line: first_line(&head),
                    size: md.len(),
                    last_run: runs.get(&rel).cloned(),
                    path: rel,
                },
            ));
        }
    }
    let total = all.len();
    all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
    let mut kept: Vec<WorkbenchFile> = all.into_iter().take(MAX_ENTRIES).map(|(_, e)| e).collect();
    kept.sort_by(|a, b| a.path.cmp(&b.path));
    (kept, total)
}

fn read_head(p: &Path) -> String {
    use std::io::Read as _;
    let mut buf = vec![0u8; 4096];
    let n = std::fs::File::open(p)
        .and_then(|mut f| f.read(&mut buf))
        .unwrap_or(0);
    buf.truncate(n);
    if buf.contains(&0) {
        return String::new();
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// The text of `INDEX.md` (and of the coordinator's system block).
#[must_use]
pub fn index_text(root: &Path) -> String {
    let (entries, total) = entries(root);
    let mut t = format!(
        "# Workbench index\nGenerated by alisio-ls; do not edit. Workbench: {DIR}/ (scripts/ for reusable scripts, artifacts/ for long output, spill/ for spilled results)."
    );
    if entries.is_empty() {
        t.push_str("\n(empty)");
    }
    for e in &entries {
        let what = if e.line.is_empty() { "-" } else { &e.line };
        let run = e
            .last_run
            .as_deref()
            .map_or_else(|| "never run".to_string(), |r| format!("last run {r}"));
        t.push_str(&format!("\n- {}: {what} ({} bytes, {run})", e.path, e.size));
    }
    if total > entries.len() {
        t.push_str(&format!(
            "\n({} more files not listed: the index shows the {MAX_ENTRIES} most recently changed)",
            total - entries.len()
        ));
    }
    t
}

/// The block the coordinator's system text carries (pure: reads the disk, writes nothing).
#[must_use]
pub fn index_block(root: &Path) -> String {
    index_text(root)
}

/// Why the workbench's folders or files could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WorkbenchError {
    /// A folder of [`FOLDERS`] cannot be created.
    #[error("{DIR}/{folder}: {source}")]
    CreateFolder {
        folder: &'static str,
        source: std::io::Error,
    },
    /// `INDEX.md` or the runs file cannot be replaced.
    #[error("{}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Creates the folders and rewrites `INDEX.md` when its text changed (atomically, through the
/// one writer). Returns whether the file was written.
///
/// # Errors
/// I/O errors.
pub fn refresh(root: &Path) -> Result<bool, WorkbenchError> {
    for folder in FOLDERS {
        std::fs::create_dir_all(dir(root).join(folder))
            .map_err(|source| WorkbenchError::CreateFolder { folder, source })?;
    }
    let text = index_text(root);
    write_if_changed(&dir(root).join("INDEX.md"), &text)
}

fn write_if_changed(path: &Path, text: &str) -> Result<bool, WorkbenchError> {
    use alisio_base::workspace::write::NewContent;
    use alisio_base::workspace::{DiskFs, Fs as _};
    let old = std::fs::read_to_string(path).ok();
    if old.as_deref() == Some(text) {
        return Ok(false);
    }
    let expected = DiskFs.symlink_metadata(path).ok();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = format!(".{name}.alisio-{}.tmp", crate::util::uuid7());
    DiskFs
        .replace_file(
            path,
            &NewContent {
                bytes: text.as_bytes(),
                temp_name: &tmp,
                expected: expected.as_ref(),
            },
        )
        .map(|_| true)
        .map_err(|source| WorkbenchError::Write {
            path: path.to_path_buf(),
            source,
        })
}

/// Records that `command` (a process call's command line) ran workbench scripts: every
/// script whose name is a word of the command, alone or as the end of a path.
///
/// # Errors
/// I/O errors.
pub fn note_runs(root: &Path, command: &str, now: &str) -> Result<(), WorkbenchError> {
    let Ok(rd) = std::fs::read_dir(dir(root).join("scripts")) else {
        return Ok(());
    };
    let names: Vec<String> = rd
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || "\"'`;|&()<>=".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let mut map = runs(root);
    let mut changed = false;
    for n in names {
        if words
            .iter()
            .any(|w| *w == n || w.ends_with(&format!("/{n}")))
        {
            map.insert(format!("scripts/{n}"), now.to_string());
            changed = true;
        }
    }
    if !changed {
        return Ok(());
    }
    let text = serde_json::to_string(&map).unwrap_or_default();
    write_if_changed(&dir(root).join(RUNS), &text).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_line_takes_the_first_comment_or_heading() {
        assert_eq!(
            first_line("#!/bin/sh\n# Count the lines\nwc -l"),
            "Count the lines"
        );
        assert_eq!(
            first_line("// Parse the logs\nfn main() {}"),
            "Parse the logs"
        );
        assert_eq!(first_line("\n## Findings\n\ntext"), "Findings");
        assert_eq!(
            first_line("\"\"\"Audit the fake server.\"\"\"\n"),
            "Audit the fake server."
        );
        assert_eq!(first_line("import os\n# later"), "");
        assert_eq!(first_line("/* Count data/ */"), "Count data/");
    }

    #[test]
    fn the_index_lists_at_most_40_files_the_newest_ones_with_their_runs() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        refresh(root).unwrap();
        let s = root.join(DIR).join("scripts");
        for i in 0..45 {
            std::fs::write(s.join(format!("s{i:02}.sh")), format!("# script {i}\n")).unwrap();
            let when = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + i);
            std::fs::File::options()
                .write(true)
                .open(s.join(format!("s{i:02}.sh")))
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        note_runs(
            root,
            "sh .alisio/workbench/scripts/s44.sh && ls",
            "2026-12-02T07:00:00.000Z",
        )
        .unwrap();
        assert!(refresh(root).unwrap());
        assert!(
            !refresh(root).unwrap(),
            "unchanged text is not written again"
        );
        let text = std::fs::read_to_string(root.join(DIR).join("INDEX.md")).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("- ")).collect();
        assert_eq!(lines.len(), 40);
        assert_eq!(lines[0], "- scripts/s05.sh: script 5 (11 bytes, never run)");
        assert_eq!(
            lines[39],
            "- scripts/s44.sh: script 44 (12 bytes, last run 2026-12-02T07:00:00.000Z)"
        );
        assert!(
            text.ends_with(
                "(5 more files not listed: the index shows the 40 most recently changed)"
            )
        );
    }
}
