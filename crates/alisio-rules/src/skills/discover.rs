//! Skill discovery (spec/skills.md §1): the roots seen from a vantage directory and their
//! precedence, trust gating and the untrusted probe, the bounded walk of spec/skills.md §1.3, the simulations
//! of other hosts (spec/skills.md §1.5), and the reasons a `SKILL.md` below a root is never discovered (§7).
//!
//! Invariant (host `alisio`): one walk per discovery with a shared 2000-directory budget, names in
//! byte order, symlinked directories never followed (so loops are impossible), a canonical
//! `visited` set so two roots reaching one directory add nothing.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Component, Path, PathBuf};

use alisio_base::config::Settings;
use alisio_base::workspace::{self, Env, FileType, Fs};

pub const MAX_DEPTH: usize = 5;
pub const MAX_DIRS: usize = 2000;
/// Codex's bounds (spec/skills.md §1.5): breadth-first, depth 6, 2000 directories per root.
pub const CODEX_MAX_DEPTH: usize = 6;
/// Bound of the walk that looks for undiscovered files below roots (spec/skills.md §7).
const ANALYSIS_MAX_DIRS: usize = 20_000;
const ANALYSIS_MAX_DEPTH: usize = 64;

/// Where a root comes from (spec/skills.md §1.1 `scope`; Codex's own scopes for `--host codex`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkillScope {
    Project,
    Config,
    User,
    Plugin,
    /// Codex: `$CODEX_HOME/skills/.system`.
    System,
    /// Codex: `/etc/codex/skills`.
    Admin,
}

impl SkillScope {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::Config => "config",
            Self::User => "user",
            Self::Plugin => "plugin",
            Self::System => "system",
            Self::Admin => "admin",
        }
    }
    /// The `source` field of spec/skills.md §1.1.
    #[must_use]
    pub const fn source(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::Config => "configured",
            Self::User => "user",
            Self::Plugin => "plugin",
            Self::System => "system",
            Self::Admin => "admin",
        }
    }
}

/// The plugin that registered a root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub id: String,
    pub name: String,
}

/// A skill root registered by a loaded plugin (root order 4). Plugins do not exist yet; callers
/// pass an empty slice until they do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginRoot {
    pub path: PathBuf,
    pub owner: Owner,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// As configured (not canonical).
    pub path: PathBuf,
    pub scope: SkillScope,
    pub owner: Option<Owner>,
    /// For project roots: the directory d of spec/skills.md §1.1 whose `.agents/skills` (…) this is.
    pub project_dir: Option<PathBuf>,
}

impl Root {
    /// A root with no plugin owner and no project directory.
    #[must_use]
    pub fn new(path: PathBuf, scope: SkillScope) -> Self {
        Self {
            path,
            scope,
            owner: None,
            project_dir: None,
        }
    }

    /// The project root `path` of the directory `dir` (spec/skills.md §1.1).
    #[must_use]
    pub fn project(path: PathBuf, dir: PathBuf) -> Self {
        Self {
            project_dir: Some(dir),
            ..Self::new(path, SkillScope::Project)
        }
    }
}

/// A directory holding an entry named `SKILL.md` (regular file or symlink).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// `<dir>/SKILL.md`, below the canonical root.
    pub file: PathBuf,
    pub dir: PathBuf,
    /// Index into the discovery's roots.
    pub root: usize,
    /// `SKILL.md` is a symbolic link (`skill-symlink`; not read).
    pub symlink: bool,
}

/// Something the CLI prints on stderr and the server logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    UnreadableRoot { path: PathBuf, reason: String },
    SkippedSymlink(PathBuf),
    UnreadableDir { path: PathBuf, reason: String },
}

impl Note {
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Self::UnreadableRoot { path, reason } => {
                format!("note: cannot read skill root {}: {reason}", path.display())
            }
            Self::SkippedSymlink(p) => format!(
                "note: skipped symbolic link {} (symlinked directories are not followed)",
                p.display()
            ),
            Self::UnreadableDir { path, reason } => {
                format!("note: cannot read directory {}: {reason}", path.display())
            }
        }
    }
}

/// The result of walking a list of roots.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    pub roots: Vec<Root>,
    /// Canonical path of each root that exists as a directory.
    pub canonical: Vec<Option<PathBuf>>,
    pub candidates: Vec<Candidate>,
    /// Directories where a scan stopped at its limit (one for `alisio`; one per root for Codex).
    pub scan_limit: Vec<PathBuf>,
    pub notes: Vec<Note>,
    /// Directories walked.
    pub count: usize,
}

/// The project directories d from the vantage up to the workspace root, closest first; none
/// when the vantage is outside the workspace.
#[must_use]
pub fn project_dirs(workspace_root: &Path, vantage: &Path) -> Vec<PathBuf> {
    if !workspace::is_inside(vantage, workspace_root) {
        return Vec::new();
    }
    vantage
        .ancestors()
        .take_while(|d| workspace::is_inside(d, workspace_root))
        .map(Path::to_path_buf)
        .collect()
}

/// The project roots of spec/skills.md §1.1 order 1 (9 roots for `/ws/pkg/app` in `/ws`).
#[must_use]
pub fn project_roots(workspace_root: &Path, vantage: &Path) -> Vec<Root> {
    let mut out = Vec::new();
    for d in project_dirs(workspace_root, vantage) {
        for base in [".agents", ".alisio", ".claude"] {
            out.push(Root::project(d.join(base).join("skills"), d.clone()));
        }
    }
    out
}

/// Every root of a host-`alisio` discovery from `vantage`, in precedence order.
#[must_use]
pub fn alisio_roots(
    workspace_root: &Path,
    vantage: &Path,
    trusted: bool,
    settings: &Settings,
    env: &Env,
    plugins: &[PluginRoot],
) -> Vec<Root> {
    let mut out = if trusted {
        project_roots(workspace_root, vantage)
    } else {
        Vec::new()
    };
    for r in &settings.skills {
        out.push(Root::new(r.path.clone(), SkillScope::Config));
    }
    if let Some(h) = &env.home {
        out.push(Root::new(
            h.join(".agents").join("skills"),
            SkillScope::User,
        ));
    }
    if let Some(c) = env.config_home() {
        out.push(Root::new(c.join("skills"), SkillScope::User));
    }
    for p in plugins {
        out.push(Root {
            path: p.path.clone(),
            scope: SkillScope::Plugin,
            owner: Some(p.owner.clone()),
            project_dir: None,
        });
    }
    out
}

fn is_not_found(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// Canonicalises a root: `Ok(None)` when absent or not a directory (skipped silently).
fn open_root(fs: &dyn Fs, root: &Path) -> Result<Option<PathBuf>, String> {
    match fs.canonicalize(root) {
        Ok(c) => match fs.metadata(&c) {
            Ok(m) if m.file_type == FileType::Dir => Ok(Some(c)),
            Ok(_) => Ok(None),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(e.to_string()),
        },
        Err(e) if is_not_found(&e) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// [`open_root`] over many roots side by side (`skills validate` of 1,000 skills opens 1,000
/// roots in a few directories): a root that is a directory and no link, in a directory met
/// before, is its directory's canonical form and its own name, one lstat instead of a readlink
/// per component and a stat. Anything else (a link, an error, a name such as `..`) is opened
/// as [`open_root`] does, so the result is the same.
#[derive(Default)]
struct RootOpener {
    /// A root's directory as written, and its canonical form.
    parents: HashMap<PathBuf, PathBuf>,
}

impl RootOpener {
    fn open(&mut self, fs: &dyn Fs, root: &Path) -> Result<Option<PathBuf>, String> {
        let (Some(parent), Some(Component::Normal(name))) =
            (root.parent(), root.components().next_back())
        else {
            return open_root(fs, root);
        };
        if let Some(canonical_parent) = self.parents.get(parent) {
            return match fs.symlink_metadata(root) {
                Ok(m) if m.file_type == FileType::Dir => Ok(Some(canonical_parent.join(name))),
                // A file or anything else canonicalises but is not a directory.
                Ok(m) if m.file_type != FileType::Symlink => Ok(None),
                _ => open_root(fs, root),
            };
        }
        let opened = open_root(fs, root);
        if let Ok(Some(c)) = &opened
            && let Some(canonical_parent) = c.parent()
            && fs
                .symlink_metadata(root)
                .is_ok_and(|m| m.file_type == FileType::Dir)
        {
            self.parents
                .insert(parent.to_path_buf(), canonical_parent.to_path_buf());
        }
        opened
    }
}

struct State<'a> {
    fs: &'a dyn Fs,
    visited: HashSet<PathBuf>,
    count: usize,
    stopped: bool,
    out: Walk,
}

impl State<'_> {
    fn walk(&mut self, dir: &Path, depth: usize, root: usize) {
        if self.stopped || depth > MAX_DEPTH || self.visited.contains(dir) {
            return;
        }
        if self.count == MAX_DIRS {
            self.stopped = true;
            self.out.scan_limit.push(dir.to_path_buf());
            return;
        }
        self.count += 1;
        self.visited.insert(dir.to_path_buf());
        let entries = match self.fs.read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                let reason = e.to_string();
                self.out.notes.push(if depth == 0 {
                    Note::UnreadableRoot {
                        path: self.out.roots[root].path.clone(),
                        reason,
                    }
                } else {
                    Note::UnreadableDir {
                        path: dir.to_path_buf(),
                        reason,
                    }
                });
                Vec::new()
            }
        };
        if let Some(e) = entries.iter().find(|e| {
            e.name == "SKILL.md" && matches!(e.file_type, FileType::File | FileType::Symlink)
        }) {
            self.out.candidates.push(Candidate {
                file: dir.join("SKILL.md"),
                dir: dir.to_path_buf(),
                root,
                symlink: e.file_type == FileType::Symlink,
            });
            return;
        }
        for e in &entries {
            let name = e.name.as_encoded_bytes();
            if name.starts_with(b".") || name == b"node_modules" {
                continue;
            }
            match e.file_type {
                FileType::Dir => self.walk(&dir.join(&e.name), depth + 1, root),
                FileType::Symlink => {
                    let p = dir.join(&e.name);
                    if self
                        .fs
                        .metadata(&p)
                        .is_ok_and(|m| m.file_type == FileType::Dir)
                    {
                        self.out.notes.push(Note::SkippedSymlink(p));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The walk of spec/skills.md §1.3 over `roots`, in order, with one shared budget.
#[must_use]
pub fn walk(fs: &dyn Fs, roots: Vec<Root>) -> Walk {
    let mut st = State {
        fs,
        visited: HashSet::new(),
        count: 0,
        stopped: false,
        out: Walk {
            roots,
            ..Walk::default()
        },
    };
    let mut opener = RootOpener::default();
    for i in 0..st.out.roots.len() {
        let path = st.out.roots[i].path.clone();
        match opener.open(fs, &path) {
            Ok(Some(c)) => {
                st.out.canonical.push(Some(c.clone()));
                st.walk(&c, 0, i);
            }
            Ok(None) => st.out.canonical.push(None),
            Err(reason) => {
                st.out.canonical.push(None);
                st.out.notes.push(Note::UnreadableRoot { path, reason });
            }
        }
    }
    st.out.count = st.count;
    st.out
}

/// The untrusted probe (spec/skills.md §1.2): the project roots that would exist, walked with the same rules
/// and a budget of their own.
#[must_use]
pub fn probe(fs: &dyn Fs, workspace_root: &Path, vantage: &Path) -> Walk {
    walk(fs, project_roots(workspace_root, vantage))
}

/// Codex's roots seen from `vantage` (spec/skills.md §1.5), in scope order.
#[must_use]
pub fn codex_roots(workspace_root: &Path, vantage: &Path, env: &Env) -> Vec<Root> {
    let mut dirs = project_dirs(workspace_root, vantage);
    dirs.reverse();
    let mut out: Vec<Root> = dirs
        .into_iter()
        .map(|d| Root::project(d.join(".agents").join("skills"), d))
        .collect();
    let codex_home = env.codex_home();
    if let Some(c) = &codex_home {
        out.push(Root::new(c.join("skills"), SkillScope::User));
    }
    if let Some(h) = &env.home {
        out.push(Root::new(
            h.join(".agents").join("skills"),
            SkillScope::User,
        ));
    }
    if let Some(c) = &codex_home {
        out.push(Root::new(
            c.join("skills").join(".system"),
            SkillScope::System,
        ));
    }
    out.push(Root::new(
        PathBuf::from("/etc/codex/skills"),
        SkillScope::Admin,
    ));
    out
}

/// Codex's walk: breadth-first per root, depth 6, 2000 directories per root, `.`-names skipped,
/// symlinked directories followed (not for the system root), descent continues below a skill;
/// candidates deduplicated by canonical `SKILL.md` path.
#[must_use]
pub fn walk_codex(fs: &dyn Fs, roots: Vec<Root>) -> Walk {
    let mut out = Walk {
        roots,
        ..Walk::default()
    };
    let mut seen_files: HashSet<PathBuf> = HashSet::new();
    for i in 0..out.roots.len() {
        let follow = out.roots[i].scope != SkillScope::System;
        let Ok(Some(c)) = open_root(fs, &out.roots[i].path) else {
            out.canonical.push(None);
            continue;
        };
        out.canonical.push(Some(c.clone()));
        let mut visited: HashSet<PathBuf> = HashSet::new();
        let mut queue: VecDeque<(PathBuf, usize)> = VecDeque::from([(c, 0)]);
        let mut count = 0usize;
        while let Some((dir, depth)) = queue.pop_front() {
            let key = fs.canonicalize(&dir).unwrap_or_else(|_| dir.clone());
            if !visited.insert(key) {
                continue;
            }
            if count == MAX_DIRS {
                out.scan_limit.push(dir);
                break;
            }
            count += 1;
            let Ok(entries) = fs.read_dir(&dir) else {
                continue;
            };
            for e in &entries {
                let p = dir.join(&e.name);
                if e.name == "SKILL.md" {
                    // A symlinked SKILL.md is not read (measured on Codex 0.171: not listed, no
                    // log line; spec/skills.md §12.3); a symlinked directory is followed.
                    let is_file = e.file_type == FileType::File;
                    if is_file {
                        let canon = fs.canonicalize(&p).unwrap_or_else(|_| p.clone());
                        if seen_files.insert(canon) {
                            out.candidates.push(Candidate {
                                file: p.clone(),
                                dir: dir.clone(),
                                root: i,
                                symlink: false,
                            });
                        }
                    }
                    continue;
                }
                if e.name.as_encoded_bytes().starts_with(b".") || depth + 1 > CODEX_MAX_DEPTH {
                    continue;
                }
                let is_dir = match e.file_type {
                    FileType::Dir => true,
                    FileType::Symlink => {
                        follow && fs.metadata(&p).is_ok_and(|m| m.file_type == FileType::Dir)
                    }
                    _ => false,
                };
                if is_dir {
                    queue.push_back((p, depth + 1));
                }
            }
        }
        out.count += count;
    }
    out
}

/// Claude Code's roots (spec/skills.md §1.5): personal first (it wins), then `.claude/skills` from the vantage
/// up to the workspace root.
#[must_use]
pub fn claude_roots(workspace_root: &Path, vantage: &Path, env: &Env) -> Vec<Root> {
    let mut out = Vec::new();
    if let Some(h) = &env.home {
        out.push(Root::new(
            h.join(".claude").join("skills"),
            SkillScope::User,
        ));
    }
    for d in project_dirs(workspace_root, vantage) {
        out.push(Root::project(d.join(".claude").join("skills"), d));
    }
    out
}

/// Claude Code's walk (assumption of spec/skills.md §1.5): only `<root>/<dir>/SKILL.md`, symlinks followed.
#[must_use]
pub fn walk_claude(fs: &dyn Fs, roots: Vec<Root>) -> Walk {
    let mut out = Walk {
        roots,
        ..Walk::default()
    };
    for i in 0..out.roots.len() {
        let Ok(Some(c)) = open_root(fs, &out.roots[i].path) else {
            out.canonical.push(None);
            continue;
        };
        out.canonical.push(Some(c.clone()));
        let Ok(entries) = fs.read_dir(&c) else {
            continue;
        };
        for e in entries {
            let dir = c.join(&e.name);
            if !fs
                .metadata(&dir)
                .is_ok_and(|m| m.file_type == FileType::Dir)
            {
                continue;
            }
            let file = dir.join("SKILL.md");
            if fs
                .metadata(&file)
                .is_ok_and(|m| m.file_type == FileType::File)
            {
                out.candidates.push(Candidate {
                    file,
                    dir,
                    root: i,
                    symlink: false,
                });
            }
        }
    }
    out
}

/// A `SKILL.md` below a root that discovery never reaches, with the reason of §7.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undiscovered {
    pub file: PathBuf,
    pub reason: String,
}

/// Looks below each canonical root (every depth, hidden and `node_modules` included, symlinks
/// not followed, bounded) for `SKILL.md` files not in `discovered`, and says why each is missed.
/// `show` renders a path for messages; `limit_hit` says whether a discovery stopped at its limit.
#[must_use]
pub fn undiscovered(
    fs: &dyn Fs,
    roots: &[PathBuf],
    discovered: &HashSet<PathBuf>,
    limit_hit: bool,
    show: &dyn Fn(&Path) -> String,
) -> Vec<Undiscovered> {
    let mut out = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut budget = ANALYSIS_MAX_DIRS;
    for root in roots {
        // (dir, depth)
        let mut stack: Vec<(PathBuf, usize)> = vec![(root.clone(), 0)];
        while let Some((dir, depth)) = stack.pop() {
            if budget == 0 || depth > ANALYSIS_MAX_DEPTH || !seen.insert(dir.clone()) {
                continue;
            }
            budget -= 1;
            let Ok(entries) = fs.read_dir(&dir) else {
                continue;
            };
            let has_skill = entries.iter().any(|e| {
                e.name == "SKILL.md" && matches!(e.file_type, FileType::File | FileType::Symlink)
            });
            if has_skill {
                let file = dir.join("SKILL.md");
                if !discovered.contains(&file)
                    && let Some(reason) = reason_for(fs, root, &dir, limit_hit, show)
                {
                    out.push(Undiscovered { file, reason });
                }
            }
            for e in entries.iter().rev() {
                if e.file_type == FileType::Dir && e.name != ".git" {
                    stack.push((dir.join(&e.name), depth + 1));
                }
            }
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out.dedup_by(|a, b| a.file == b.file);
    out
}

fn reason_for(
    fs: &dyn Fs,
    root: &Path,
    skill_dir: &Path,
    limit_hit: bool,
    show: &dyn Fn(&Path) -> String,
) -> Option<String> {
    let rel = skill_dir.strip_prefix(root).ok()?;
    let comps: Vec<_> = rel.components().collect();
    let depth = comps.len();
    if depth > MAX_DEPTH {
        return Some(format!(
            "it is {depth} directory levels below the root {}; discovery stops at {MAX_DEPTH}",
            show(root)
        ));
    }
    let mut cur = root.to_path_buf();
    let is_skill = |d: &Path| {
        fs.read_dir(d).is_ok_and(|es| {
            es.iter().any(|e| {
                e.name == "SKILL.md" && matches!(e.file_type, FileType::File | FileType::Symlink)
            })
        })
    };
    for c in comps.iter().take(depth) {
        if is_skill(&cur) {
            return Some(format!(
                "it is inside the skill {}; nested skills are not scanned",
                show(&cur)
            ));
        }
        cur.push(c);
    }
    if depth > 0 {
        let mut cur = root.to_path_buf();
        for c in &comps {
            cur.push(c);
            let n = c.as_os_str().as_encoded_bytes();
            if n.starts_with(b".") {
                return Some(format!("it is inside the hidden directory {}", show(&cur)));
            }
        }
        if comps.iter().any(|c| c.as_os_str() == "node_modules") {
            return Some("it is inside node_modules".to_string());
        }
    }
    limit_hit.then(|| "the scan stopped at the 2000-directory limit".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::workspace::DiskFs;

    #[test]
    fn project_roots_from_a_nested_vantage_are_nine_in_order() {
        let r: Vec<String> = project_roots(Path::new("/ws"), Path::new("/ws/pkg/app"))
            .iter()
            .map(|r| r.path.display().to_string())
            .collect();
        assert_eq!(
            r,
            [
                "/ws/pkg/app/.agents/skills",
                "/ws/pkg/app/.alisio/skills",
                "/ws/pkg/app/.claude/skills",
                "/ws/pkg/.agents/skills",
                "/ws/pkg/.alisio/skills",
                "/ws/pkg/.claude/skills",
                "/ws/.agents/skills",
                "/ws/.alisio/skills",
                "/ws/.claude/skills",
            ]
        );
        assert!(project_roots(Path::new("/ws"), Path::new("/elsewhere")).is_empty());
    }

    fn mk(p: &Path) {
        std::fs::create_dir_all(p).unwrap();
    }

    #[test]
    fn walk_stops_descending_at_a_skill_and_skips_hidden_and_node_modules() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in [
            "outer/inner",
            ".hidden/x",
            "node_modules/y",
            "a/b/c/d/e",
            "p/q/r/s/t/u",
        ] {
            mk(&root.join(d));
            std::fs::write(root.join(d).join("SKILL.md"), "x").unwrap();
        }
        std::fs::write(root.join("outer/SKILL.md"), "x").unwrap();
        let w = walk(&DiskFs, vec![Root::new(root.clone(), SkillScope::User)]);
        let found: Vec<_> = w
            .candidates
            .iter()
            .map(|c| c.dir.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(found, ["a/b/c/d/e", "outer"]);
        let disc: HashSet<PathBuf> = w.candidates.iter().map(|c| c.file.clone()).collect();
        let show = |p: &Path| {
            p.strip_prefix(&root).map_or_else(
                |_| p.display().to_string(),
                |r| {
                    if r.as_os_str().is_empty() {
                        "root".into()
                    } else {
                        r.display().to_string()
                    }
                },
            )
        };
        let u = undiscovered(&DiskFs, std::slice::from_ref(&root), &disc, false, &show);
        let got: Vec<_> = u
            .iter()
            .map(|u| {
                (
                    u.file.strip_prefix(&root).unwrap().display().to_string(),
                    u.reason.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    ".hidden/x/SKILL.md".to_string(),
                    "it is inside the hidden directory .hidden".to_string()
                ),
                (
                    "node_modules/y/SKILL.md".to_string(),
                    "it is inside node_modules".to_string()
                ),
                (
                    "outer/inner/SKILL.md".to_string(),
                    "it is inside the skill outer; nested skills are not scanned".to_string()
                ),
                (
                    "p/q/r/s/t/u/SKILL.md".to_string(),
                    "it is 6 directory levels below the root root; discovery stops at 5"
                        .to_string()
                ),
            ]
        );
    }
}
