//! The directory set D of a workspace (spec/instructions.md §5.1): the root and every directory below it, depth
//! first in byte order, without following symlinks, skipping `.git`, `node_modules` and what
//! the workspace's own ignore files exclude, bounded at [`MAX_DIRS`]. One listing per
//! directory; the listings are kept so no later step lists a directory again.

use std::path::{Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::workspace::{DirEntry, FileType, Fs};

/// The bound on D.
pub const MAX_DIRS: usize = 20_000;

/// One directory of D.
#[derive(Debug)]
pub struct DirNode {
    pub path: PathBuf,
    pub parent: Option<usize>,
    /// Components below the root (0 for the root).
    pub depth: usize,
    /// The directory's listing, sorted by name bytes.
    pub entries: Vec<DirEntry>,
}

/// D, in walk order (parents before children).
#[derive(Debug, Default)]
pub struct DirSet {
    pub dirs: Vec<DirNode>,
    /// The bound was reached.
    pub truncated: bool,
}

#[derive(Default)]
struct Matchers {
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
}

/// Ignore files are read up to this size; the rest is not used (a hostile repository can
/// make `.gitignore` as large as it likes).
pub const IGNORE_FILE_LIMIT: u64 = 1024 * 1024;

fn matcher(fs: &dyn Fs, dir: &Path, file: &Path) -> Option<Gitignore> {
    let bytes = fs.read_prefix(file, IGNORE_FILE_LIMIT).ok()?;
    if bytes.len() as u64 == IGNORE_FILE_LIMIT {
        tracing::warn!(
            "{}: only the first {IGNORE_FILE_LIMIT} bytes are used",
            file.display()
        );
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut b = GitignoreBuilder::new(dir);
    for line in text.lines() {
        let _ = b.add_line(Some(file.to_path_buf()), line);
    }
    b.build().ok()
}

fn has(entries: &[DirEntry], name: &str) -> bool {
    entries
        .iter()
        .any(|e| e.name == name && e.file_type == FileType::File)
}

/// Walks D from `root`.
#[must_use]
pub fn walk(fs: &dyn Fs, root: &Path) -> DirSet {
    walk_bounded(fs, root, MAX_DIRS)
}

/// Walks D from `root`, keeping at most `max` directories.
#[must_use]
pub fn walk_bounded(fs: &dyn Fs, root: &Path, max: usize) -> DirSet {
    let mut set = DirSet::default();
    let mut matchers: Vec<Matchers> = Vec::new();
    let exclude = {
        let p = root.join(".git").join("info").join("exclude");
        matcher(fs, root, &p)
    };
    let mut stack: Vec<(PathBuf, Option<usize>, usize)> = vec![(root.to_path_buf(), None, 0)];
    while let Some((path, parent, depth)) = stack.pop() {
        if set.dirs.len() >= max {
            set.truncated = true;
            tracing::debug!(
                "{}: more than {max} directories; instruction diagnostics cover the first {max}",
                root.display()
            );
            break;
        }
        let entries = match fs.read_dir(&path) {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!("{}: cannot list directory: {e}", path.display());
                Vec::new()
            }
        };
        let m = Matchers {
            ignore: if has(&entries, ".ignore") {
                matcher(fs, &path, &path.join(".ignore"))
            } else {
                None
            },
            gitignore: if has(&entries, ".gitignore") {
                matcher(fs, &path, &path.join(".gitignore"))
            } else {
                None
            },
        };
        let me = set.dirs.len();
        matchers.push(m);
        let mut children = Vec::new();
        for e in &entries {
            if e.file_type != FileType::Dir || e.name == ".git" || e.name == "node_modules" {
                continue;
            }
            // The agents' workbench (spec/sessions.md §12.4): scripts and artifacts, never
            // instructions of the workspace.
            if e.name == "workbench" && path.file_name().is_some_and(|n| n == ".alisio") {
                continue;
            }
            let child = path.join(&e.name);
            if !ignored(&set.dirs, &matchers, me, parent, exclude.as_ref(), &child) {
                children.push(child);
            }
        }
        for c in children.into_iter().rev() {
            stack.push((c, Some(me), depth + 1));
        }
        set.dirs.push(DirNode {
            path,
            parent,
            depth,
            entries,
        });
    }
    set
}

/// Whether a child directory of node `me` is excluded: the deepest matcher that has an opinion
/// decides (`.ignore` before `.gitignore` in one directory), `.git/info/exclude` last.
fn ignored(
    dirs: &[DirNode],
    matchers: &[Matchers],
    me: usize,
    me_parent: Option<usize>,
    exclude: Option<&Gitignore>,
    child: &Path,
) -> bool {
    let mut cur = Some(me);
    let mut first = true;
    while let Some(i) = cur {
        if let Some(m) = matchers.get(i) {
            for g in [&m.ignore, &m.gitignore].into_iter().flatten() {
                match g.matched(child, true) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
        }
        cur = if first {
            me_parent
        } else {
            dirs.get(i).and_then(|d| d.parent)
        };
        first = false;
    }
    exclude.is_some_and(|g| g.matched(child, true).is_ignore())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directories of the set, relative to `r`, in walk order.
    fn rels(set: &DirSet, r: &std::path::Path) -> Vec<String> {
        set.dirs
            .iter()
            .map(|d| crate::workspace::display_path(&d.path, r))
            .collect()
    }
    use crate::workspace::DiskFs;

    #[test]
    fn walk_skips_git_node_modules_ignored_and_symlinked_directories() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().canonicalize().unwrap();
        for d in [
            ".git/info",
            "node_modules/x",
            "a/b",
            "a/build",
            ".github",
            "gen",
            "keep/gen",
            "ex",
            ".alisio/workbench/artifacts",
            "x/workbench",
        ] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        std::fs::write(r.join(".gitignore"), "build/\n/gen\n").unwrap();
        std::fs::write(r.join(".git/info/exclude"), "ex\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(r.join("a"), r.join("link")).unwrap();
        let set = walk(&DiskFs, &r);
        let rels = rels(&set, &r);
        // `.alisio/workbench` is pruned (spec/sessions.md §12.4); another `workbench` is not.
        assert_eq!(
            rels,
            [
                ".",
                ".alisio",
                ".github",
                "a",
                "a/b",
                "keep",
                "keep/gen",
                "x",
                "x/workbench"
            ]
        );
        assert_eq!(set.dirs[4].parent, Some(3));
        assert_eq!(set.dirs[4].depth, 2);
    }

    #[test]
    fn the_bound_truncates_depth_first_in_byte_order() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().canonicalize().unwrap();
        for d in ["b/x", "a/y", "a/z", "c"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        let set = walk_bounded(&DiskFs, &r, 4);
        let rels = rels(&set, &r);
        assert_eq!(rels, [".", "a", "a/y", "a/z"]);
        assert!(set.truncated);
        assert!(!walk_bounded(&DiskFs, &r, 7).truncated);
    }

    #[test]
    fn nested_negation_wins_over_the_parent() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().canonicalize().unwrap();
        for d in ["a/out", "a/b/out"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        std::fs::write(r.join(".gitignore"), "out/\n").unwrap();
        std::fs::write(r.join("a/b/.gitignore"), "!out/\n").unwrap();
        let set = walk(&DiskFs, &r);
        let rels = rels(&set, &r);
        assert_eq!(rels, [".", "a", "a/b", "a/b/out"]);
    }
}
