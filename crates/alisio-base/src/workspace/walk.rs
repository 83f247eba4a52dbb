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
///
/// On more than one core the directories are listed in parallel, level by level (a listing and
/// its ignore files are most of the cost), and D is then put in the same depth-first byte order
/// as the sequential walk, so the result does not depend on the number of threads. Past `max`
/// directories the sequential walk decides which ones are kept (the bound keeps the first `max`
/// depth-first, which a level-by-level walk cannot know until it has listed them all).
#[must_use]
pub fn walk_bounded(fs: &dyn Fs, root: &Path, max: usize) -> DirSet {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if cores > 1
        && let Some(set) = walk_levels(fs, root, max)
    {
        return set;
    }
    walk_sequential(fs, root, max)
}

/// What decides whether a child directory is excluded: a directory's ignore files and its parent.
struct Chain {
    parent: Option<usize>,
    matchers: Matchers,
}

fn exclude_of(fs: &dyn Fs, root: &Path) -> Option<Gitignore> {
    let p = root.join(".git").join("info").join("exclude");
    matcher(fs, root, &p)
}

/// Lists one directory: its entries and its ignore files.
fn list(fs: &dyn Fs, path: &Path) -> (Vec<DirEntry>, Matchers) {
    let entries = match fs.read_dir(path) {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!("{}: cannot list directory: {e}", path.display());
            Vec::new()
        }
    };
    let m = Matchers {
        ignore: if has(&entries, ".ignore") {
            matcher(fs, path, &path.join(".ignore"))
        } else {
            None
        },
        gitignore: if has(&entries, ".gitignore") {
            matcher(fs, path, &path.join(".gitignore"))
        } else {
            None
        },
    };
    (entries, m)
}

/// The subdirectories of `path` that belong to D, in name order. `chain` holds `me`'s ancestors
/// (and may or may not hold `me` itself: `mine` are `me`'s own matchers).
fn children(
    path: &Path,
    entries: &[DirEntry],
    mine: &Matchers,
    parent: Option<usize>,
    chain: &[Chain],
    exclude: Option<&Gitignore>,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in entries {
        if e.file_type != FileType::Dir || e.name == ".git" || e.name == "node_modules" {
            continue;
        }
        // The agents' workbench (spec/sessions.md §12.4): scripts and artifacts, never
        // instructions of the workspace.
        if e.name == "workbench" && path.file_name().is_some_and(|n| n == ".alisio") {
            continue;
        }
        let child = path.join(&e.name);
        if !ignored(chain, mine, parent, exclude, &child) {
            out.push(child);
        }
    }
    out
}

fn walk_sequential(fs: &dyn Fs, root: &Path, max: usize) -> DirSet {
    let mut set = DirSet::default();
    let mut chain: Vec<Chain> = Vec::new();
    let exclude = exclude_of(fs, root);
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
        let (entries, matchers) = list(fs, &path);
        let me = set.dirs.len();
        let kids = children(&path, &entries, &matchers, parent, &chain, exclude.as_ref());
        chain.push(Chain { parent, matchers });
        for c in kids.into_iter().rev() {
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

/// One directory of a level-by-level walk, in discovery order.
struct Listed {
    path: PathBuf,
    depth: usize,
    entries: Vec<DirEntry>,
    kids: Vec<usize>,
}

/// The level-by-level walk; `None` when D has more than `max` directories.
fn walk_levels(fs: &dyn Fs, root: &Path, max: usize) -> Option<DirSet> {
    let exclude = exclude_of(fs, root);
    let mut chain: Vec<Chain> = Vec::new();
    let mut nodes: Vec<Listed> = Vec::new();
    // (path, parent in discovery order)
    let mut level: Vec<(PathBuf, Option<usize>)> = vec![(root.to_path_buf(), None)];
    let mut depth = 0;
    while !level.is_empty() {
        if nodes.len() + level.len() > max {
            return None;
        }
        let listed = super::par::par_map(&level, 2, |(path, parent)| {
            let (entries, matchers) = list(fs, path);
            let kids = children(path, &entries, &matchers, *parent, &chain, exclude.as_ref());
            (entries, matchers, kids)
        });
        let mut next = Vec::new();
        for ((path, parent), (entries, matchers, kids)) in level.into_iter().zip(listed) {
            let me = nodes.len();
            if let Some(p) = parent {
                nodes[p].kids.push(me);
            }
            chain.push(Chain { parent, matchers });
            next.extend(kids.into_iter().map(|k| (k, Some(me))));
            nodes.push(Listed {
                path,
                depth,
                entries,
                kids: Vec::new(),
            });
        }
        level = next;
        depth += 1;
    }
    // Depth first, children in name order: the sequential walk's order.
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![(0usize, None::<usize>)];
    let mut slots: Vec<Option<Listed>> = nodes.into_iter().map(Some).collect();
    while let Some((i, parent)) = stack.pop() {
        let Some(node) = slots.get_mut(i).and_then(Option::take) else {
            continue;
        };
        let me = order.len();
        for &k in node.kids.iter().rev() {
            stack.push((k, Some(me)));
        }
        order.push(DirNode {
            path: node.path,
            parent,
            depth: node.depth,
            entries: node.entries,
        });
    }
    Some(DirSet {
        dirs: order,
        truncated: false,
    })
}

/// Whether a child directory of the directory with `mine` (whose parent is `parent` in `chain`)
/// is excluded: the deepest matcher that has an opinion decides (`.ignore` before `.gitignore` in
/// one directory), `.git/info/exclude` last.
fn ignored(
    chain: &[Chain],
    mine: &Matchers,
    parent: Option<usize>,
    exclude: Option<&Gitignore>,
    child: &Path,
) -> bool {
    let verdict = |m: &Matchers| {
        for g in [&m.ignore, &m.gitignore].into_iter().flatten() {
            match g.matched(child, true) {
                Match::Ignore(_) => return Some(true),
                Match::Whitelist(_) => return Some(false),
                Match::None => {}
            }
        }
        None
    };
    if let Some(v) = verdict(mine) {
        return v;
    }
    let mut cur = parent;
    while let Some(i) = cur {
        let Some(c) = chain.get(i) else { break };
        if let Some(v) = verdict(&c.matchers) {
            return v;
        }
        cur = c.parent;
    }
    exclude.is_some_and(|g| g.matched(child, true).is_ignore())
}

/// Whether git ignores the file `file` of the workspace `root`: the `.gitignore` files from the
/// root down to the file's directory (the deepest with an opinion decides), then
/// `.git/info/exclude`, then the user's global ignore file `global` (git's default
/// `$XDG_CONFIG_HOME/git/ignore`; a `core.excludesFile` setting is not read). A file outside
/// `root` is not ignored.
#[must_use]
pub fn git_ignored(fs: &dyn Fs, root: &Path, file: &Path, global: Option<&Path>) -> bool {
    let Ok(rel) = file.strip_prefix(root) else {
        return false;
    };
    let mut dirs = vec![root.to_path_buf()];
    let mut cur = root.to_path_buf();
    if let Some(parent) = rel.parent() {
        for c in parent.components() {
            cur.push(c);
            dirs.push(cur.clone());
        }
    }
    for d in dirs.iter().rev() {
        if let Some(g) = matcher(fs, d, &d.join(".gitignore")) {
            match g.matched(file, false) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
    }
    // 1 ignored, -1 re-included, 0 no opinion.
    let decide = |g: Option<Gitignore>| {
        g.map_or(0, |g| match g.matched(file, false) {
            Match::Ignore(_) => 1,
            Match::Whitelist(_) => -1,
            Match::None => 0,
        })
    };
    match decide(exclude_of(fs, root)) {
        1 => return true,
        -1 => return false,
        _ => {}
    }
    global.is_some_and(|p| decide(matcher(fs, root, p)) == 1)
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
    /// The level-by-level walk gives exactly the sequential walk's D (paths, parents, depths,
    /// listings), and gives up past the bound so the sequential walk decides what is kept.
    #[test]
    fn the_parallel_walk_equals_the_sequential_walk() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().canonicalize().unwrap();
        for p in 0..6 {
            for m in 0..5 {
                for s in ["src", "out", "build", "keep"] {
                    std::fs::create_dir_all(r.join(format!("p{p}/m{m}/{s}/x"))).unwrap();
                }
                std::fs::write(r.join(format!("p{p}/m{m}/f.txt")), "x").unwrap();
            }
        }
        std::fs::create_dir_all(r.join(".git/info")).unwrap();
        std::fs::write(r.join(".gitignore"), "out/\n").unwrap();
        std::fs::write(r.join("p2/.gitignore"), "!out/\nbuild\n").unwrap();
        std::fs::write(r.join("p3/m1/.ignore"), "keep/\n").unwrap();
        std::fs::write(r.join(".git/info/exclude"), "p5\n").unwrap();
        let seq = walk_sequential(&DiskFs, &r, MAX_DIRS);
        let par = walk_levels(&DiskFs, &r, MAX_DIRS).unwrap();
        let shape = |set: &DirSet| -> Vec<(String, Option<usize>, usize, Vec<String>)> {
            set.dirs
                .iter()
                .map(|d| {
                    (
                        crate::workspace::display_path(&d.path, &r),
                        d.parent,
                        d.depth,
                        d.entries
                            .iter()
                            .map(|e| e.name.to_string_lossy().into_owned())
                            .collect(),
                    )
                })
                .collect()
        };
        assert_eq!(shape(&par), shape(&seq));
        // The root, and 5 packages (p5 excluded), each itself and 5 modules of 7 directories (the
        // module, src, src/x and two of out/build/keep with their x: out/ only under p2, build/
        // everywhere but p2), but p3/m1 without keep/: 1 + 4 x 36 + 34.
        assert_eq!(seq.dirs.len(), 179);
        assert!(walk_levels(&DiskFs, &r, 178).is_none());
        let bounded = walk_bounded(&DiskFs, &r, 178);
        assert_eq!((bounded.dirs.len(), bounded.truncated), (178, true));
        assert_eq!(shape(&bounded)[..], shape(&seq)[..178]);
    }

    #[test]
    fn git_ignored_reads_the_chain_the_exclude_file_and_the_global_file() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let w = |p: &str, t: &str| {
            let f = root.join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, t).unwrap();
        };
        w("a/CLAUDE.local.md", "x");
        w("b/CLAUDE.local.md", "x");
        w("c/CLAUDE.local.md", "x");
        w(".gitignore", "CLAUDE.local.md\n");
        w("b/.gitignore", "!CLAUDE.local.md\n");
        let fs = crate::workspace::DiskFs;
        assert!(git_ignored(
            &fs,
            &root,
            &root.join("a/CLAUDE.local.md"),
            None
        ));
        assert!(!git_ignored(
            &fs,
            &root,
            &root.join("b/CLAUDE.local.md"),
            None
        ));
        w(".gitignore", "*.log\n");
        assert!(!git_ignored(
            &fs,
            &root,
            &root.join("c/CLAUDE.local.md"),
            None
        ));
        w(".git/info/exclude", "/c/CLAUDE.local.md\n");
        assert!(git_ignored(
            &fs,
            &root,
            &root.join("c/CLAUDE.local.md"),
            None
        ));
        w("global-ignore", "*.local.md\n");
        let global = root.join("global-ignore");
        assert!(git_ignored(
            &fs,
            &root,
            &root.join("a/CLAUDE.local.md"),
            Some(&global)
        ));
        assert!(!git_ignored(
            &fs,
            &root,
            &root.join("a/CLAUDE.local.md"),
            None
        ));
    }
}
