//! Host `alisio` (spec/instructions.md §1, §2.1–§2.4): normalising a target path, the target directory, the global
//! file, the winner of one directory (by listing, never by opening a name) and the chain from
//! the workspace root down to the target directory with the symlink policy.

use std::ffi::OsStr;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::read::{ReadMode, Reader};
use super::{FileKind, FileScope, ListError, ListedFile, Setup, Skipped};
use alisio_base::workspace::{DirEntry, FileType, Fs, is_inside, normalize_lexically};

/// spec/instructions.md §1 "Normalising a target path": join to `base` when relative, resolve `.`/`..` lexically,
/// and resolve aliases *outside* the workspace through the deepest existing ancestor.
#[must_use]
pub fn normalize_target(fs: &dyn Fs, base: &Path, root: &Path, given: &Path) -> PathBuf {
    let lexical = normalize_lexically(&base.join(given));
    if is_inside(&lexical, root) {
        return lexical;
    }
    let mut existing = lexical.as_path();
    let mut rest: Vec<&OsStr> = Vec::new();
    loop {
        if fs.symlink_metadata(existing).is_ok() {
            break;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(p), Some(n)) => {
                rest.push(n);
                existing = p;
            }
            _ => return lexical,
        }
    }
    let Ok(mut canon) = fs.canonicalize(existing) else {
        return lexical;
    };
    for n in rest.iter().rev() {
        canon.push(n);
    }
    if is_inside(&canon, root) {
        canon
    } else {
        lexical
    }
}

/// spec/instructions.md §1 "target directory": the target itself when it is the workspace root, an existing
/// directory or written with a trailing `/`; otherwise its parent.
#[must_use]
pub fn target_dir(fs: &dyn Fs, root: &Path, target: &Path, trailing_slash: bool) -> PathBuf {
    let is_dir = fs
        .metadata(target)
        .is_ok_and(|m| m.file_type == FileType::Dir);
    if target == root || trailing_slash || is_dir {
        return target.to_path_buf();
    }
    target
        .parent()
        .map_or_else(|| target.to_path_buf(), Path::to_path_buf)
}

/// `true` when the path as the user wrote it ends with a separator.
#[must_use]
pub fn has_trailing_slash(given: &Path) -> bool {
    let s = given.as_os_str().as_encoded_bytes();
    s.len() > 1 && (s.ends_with(b"/") || (cfg!(windows) && s.ends_with(b"\\")))
}

/// The candidate names of host `alisio` in rank order (spec/instructions.md §2.1).
#[must_use]
pub fn alisio_candidates(fallback: bool) -> &'static [(&'static str, FileKind)] {
    const ALL: &[(&str, FileKind)] = &[
        ("AGENTS.override.md", FileKind::Override),
        ("AGENTS.md", FileKind::Agents),
        ("AGENT.md", FileKind::Legacy),
        ("CLAUDE.md", FileKind::Claude),
    ];
    if fallback { ALL } else { &ALL[..3] }
}

/// What one directory's listing means for host `alisio`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlisioDir {
    /// The winner's name and kind.
    pub winner: Option<(String, FileKind)>,
    /// Candidate entries that are symlinks (not eligible, spec/instructions.md §2.4 rule 1).
    pub symlinks: Vec<String>,
}

/// Picks the winner of one directory from its listing (spec/instructions.md §2.1, §2.4 rule 1).
#[must_use]
pub fn pick_alisio(entries: &[DirEntry], fallback: bool) -> AlisioDir {
    let mut out = AlisioDir::default();
    for &(name, kind) in alisio_candidates(fallback) {
        let Some(e) = find(entries, name) else {
            continue;
        };
        match e.file_type {
            FileType::File => {
                out.winner = Some((name.to_string(), kind));
                break;
            }
            FileType::Symlink => out.symlinks.push(name.to_string()),
            FileType::Dir | FileType::Other => {}
        }
    }
    out
}

/// The entry whose name is byte-equal to `name`.
#[must_use]
pub fn find<'e>(entries: &'e [DirEntry], name: &str) -> Option<&'e DirEntry> {
    entries
        .binary_search_by(|e| e.name.as_encoded_bytes().cmp(name.as_bytes()))
        .ok()
        .and_then(|i| entries.get(i))
}

/// Lists a directory. Not-found, permission and not-a-directory errors mean "nothing here"
/// (logged); any other error is a [`ListError`].
///
/// # Errors
/// An I/O error other than not-found or permission denied.
pub fn list(fs: &dyn Fs, dir: &Path) -> Result<Vec<DirEntry>, ListError> {
    match fs.read_dir(dir) {
        Ok(v) => Ok(v),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(Vec::new())
        }
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            tracing::warn!(
                "{}: cannot list directory: permission denied",
                dir.display()
            );
            Ok(Vec::new())
        }
        Err(e) => Err(ListError {
            path: dir.to_path_buf(),
            message: e.to_string(),
        }),
    }
}

/// The global file of host `alisio` (spec/instructions.md §2.2): `AGENTS.override.md`, else `AGENTS.md`, in the
/// config home; symlinks followed; the target must be a regular file.
#[must_use]
pub fn global_alisio(setup: &Setup<'_>, reader: &Reader<'_>) -> Option<ListedFile> {
    let home = setup.env.config_home()?;
    let entries = setup.fs.read_dir(&home).ok()?;
    for (name, kind) in [
        ("AGENTS.override.md", FileKind::Override),
        ("AGENTS.md", FileKind::Agents),
    ] {
        let Some(e) = find(&entries, name) else {
            continue;
        };
        let path = home.join(name);
        let is_file = match e.file_type {
            FileType::File => true,
            FileType::Symlink => setup
                .fs
                .metadata(&path)
                .is_ok_and(|m| m.file_type == FileType::File),
            _ => false,
        };
        if is_file {
            let file = reader.read(&path, ReadMode::Alisio);
            return Some(ListedFile::new(path, FileScope::Global, kind, file));
        }
    }
    None
}

/// The chain directories from `root` down to `dir` (root first); empty when `dir` is not
/// inside `root`.
#[must_use]
pub fn chain_dirs(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let Ok(rel) = dir.strip_prefix(root) else {
        return Vec::new();
    };
    let mut out = vec![root.to_path_buf()];
    let mut cur = root.to_path_buf();
    for c in rel.components() {
        if let Component::Normal(n) = c {
            cur.push(n);
            out.push(cur.clone());
        }
    }
    out
}

/// The project part of L for host `alisio` (spec/instructions.md §2.3, §2.4): the winners of the chain directories,
/// root first, and the chain directories skipped because they are symlinks.
///
/// # Errors
/// A directory listing error other than not-found or permission denied.
pub fn chain_alisio(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    dir: &Path,
) -> Result<(Vec<ListedFile>, Vec<Skipped>), ListError> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for (i, d) in chain_dirs(setup.root, dir).into_iter().enumerate() {
        if i > 0 {
            match setup.fs.symlink_metadata(&d) {
                Ok(m) if m.file_type == FileType::Symlink => {
                    skipped.push(Skipped {
                        path: d,
                        reason: "symlink",
                    });
                    break;
                }
                Ok(m) if m.file_type == FileType::Dir => {}
                _ => break,
            }
        }
        let entries = list(setup.fs, &d)?;
        let pick = pick_alisio(&entries, setup.settings.claude_md_fallback);
        for s in &pick.symlinks {
            skipped.push(Skipped {
                path: d.join(s),
                reason: "symlink",
            });
        }
        if let Some((name, kind)) = pick.winner {
            let path = d.join(&name);
            let file = reader.read(&path, ReadMode::Alisio);
            files.push(ListedFile::new(path, FileScope::Project, kind, file));
        }
    }
    Ok((files, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::workspace::DiskFs;

    #[test]
    fn outside_alias_is_resolved_through_its_existing_ancestor() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(real.join("ws/sub")).unwrap();
        let ws = real.join("ws");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&ws, real.join("alias")).unwrap();
            let got = normalize_target(&DiskFs, &real, &ws, Path::new("alias/sub/new/x.rs"));
            assert_eq!(got, ws.join("sub/new/x.rs"));
        }
        let got = normalize_target(&DiskFs, &ws, &ws, Path::new("./a/../b/./c"));
        assert_eq!(got, ws.join("b/c"));
    }

    #[test]
    fn target_dir_rules() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        std::fs::create_dir(ws.join("d")).unwrap();
        assert_eq!(target_dir(&DiskFs, &ws, &ws, false), ws);
        assert_eq!(target_dir(&DiskFs, &ws, &ws.join("d"), false), ws.join("d"));
        assert_eq!(target_dir(&DiskFs, &ws, &ws.join("new"), false), ws);
        assert_eq!(
            target_dir(&DiskFs, &ws, &ws.join("new"), true),
            ws.join("new")
        );
        assert!(has_trailing_slash(Path::new("a/b/")));
        assert!(!has_trailing_slash(Path::new("a/b")));
    }

    fn entry(name: &str, t: FileType) -> DirEntry {
        DirEntry {
            name: name.into(),
            file_type: t,
        }
    }

    #[test]
    fn symlinked_and_directory_candidates_fall_through_to_the_next_rank() {
        let entries = vec![
            entry("AGENT.md", FileType::File),
            entry("AGENTS.md", FileType::Dir),
            entry("AGENTS.override.md", FileType::Symlink),
        ];
        let d = pick_alisio(&entries, false);
        assert_eq!(d.winner, Some(("AGENT.md".to_string(), FileKind::Legacy)));
        assert_eq!(d.symlinks, ["AGENTS.override.md"]);
    }

    #[test]
    fn claude_md_is_a_candidate_only_with_the_fallback() {
        let entries = vec![entry("CLAUDE.md", FileType::File)];
        assert_eq!(pick_alisio(&entries, false).winner, None);
        assert_eq!(
            pick_alisio(&entries, true).winner,
            Some(("CLAUDE.md".to_string(), FileKind::Claude))
        );
    }

    #[test]
    fn chain_dirs_are_root_first() {
        assert_eq!(
            chain_dirs(Path::new("/ws"), Path::new("/ws/a/b")),
            [
                PathBuf::from("/ws"),
                PathBuf::from("/ws/a"),
                PathBuf::from("/ws/a/b")
            ]
        );
        assert!(chain_dirs(Path::new("/ws"), Path::new("/other")).is_empty());
    }
}
