//! Host `claude-code` (spec/instructions.md §4): the simulation of Claude Code's memory files: the managed and user
//! files, the ancestor walk from the filesystem root, the AGENTS mode, `.claude/rules` with
//! `paths:` globs, `@imports` and the 4 MiB skip.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::claude_text;
use super::read::{ReadMode, Reader};
use super::{FileKind, FileScope, Import, ListedFile, Load, Setup, Truncation};
use alisio_base::config::ClaudeInstructionFiles;
use alisio_base::workspace::{FileType, Fs, is_inside};

/// How deep `@imports` recurse.
pub const MAX_IMPORT_DEPTH: u32 = 4;
/// At most this many imports are listed for one file. Depth alone does not bound the work: a
/// file importing 50 files that each import 50 files … is 50^4 imports at depth 4.
pub const MAX_IMPORTS: usize = 256;
/// A rules directory walk examines at most this many directory entries (symlinks are followed,
/// so a rules directory may point at a large tree).
pub const MAX_RULE_ENTRIES: usize = 10_000;

/// The claude-code list for a target, plus the AGENTS files the AGENTS mode excluded (with the
/// CLAUDE file that excluded them), for `instructions-dropped`.
#[derive(Clone, Debug, Default)]
pub struct ClaudeList {
    pub files: Vec<ListedFile>,
    pub excluded_agents: Vec<(PathBuf, PathBuf)>,
}

fn is_file(fs: &dyn Fs, p: &Path) -> bool {
    fs.metadata(p).is_ok_and(|m| m.file_type == FileType::File)
}

/// The `paths:` list of a rule's frontmatter, if it has one. A small reader of the YAML forms a
/// rule uses: a block list (`- "src/**"`), a flow list (`["a", "b"]`) or one scalar.
#[must_use]
pub fn rule_paths(text: &str) -> Option<Vec<String>> {
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let fm: Vec<&str> = lines.take_while(|l| l.trim_end() != "---").collect();
    let unquote = |s: &str| {
        let s = s.trim();
        let s = s.split(" #").next().unwrap_or(s).trim();
        if s.len() >= 2
            && ((s.starts_with('"') && s.ends_with('"'))
                || (s.starts_with('\'') && s.ends_with('\'')))
        {
            s[1..s.len() - 1].to_string()
        } else {
            s.to_string()
        }
    };
    for (i, line) in fm.iter().enumerate() {
        let Some(rest) = line.strip_prefix("paths:") else {
            continue;
        };
        let rest = rest.trim();
        if rest.is_empty() || rest.starts_with('#') {
            let mut items = Vec::new();
            for l in fm.iter().skip(i + 1) {
                let t = l.trim_start();
                if t.is_empty() {
                    continue;
                }
                match t.strip_prefix("- ").or_else(|| (t == "-").then_some("")) {
                    Some(item) if l.starts_with([' ', '-']) => items.push(unquote(item)),
                    _ => break,
                }
            }
            return Some(items.into_iter().filter(|s| !s.is_empty()).collect());
        }
        if let Some(inner) = rest
            .strip_prefix('[')
            .and_then(|r| r.trim_end().strip_suffix(']'))
        {
            return Some(
                inner
                    .split(',')
                    .map(unquote)
                    .filter(|s| !s.is_empty())
                    .collect(),
            );
        }
        return Some(
            vec![unquote(rest)]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect(),
        );
    }
    None
}

/// `true` when `rel` (workspace-relative, `/` separators) matches one of the globs; an invalid
/// glob matches nothing.
#[must_use]
pub fn globs_match(globs: &[String], rel: &str) -> bool {
    globs.iter().any(|g| {
        globset::GlobBuilder::new(g)
            .literal_separator(true)
            .build()
            .is_ok_and(|g| g.compile_matcher().is_match(rel))
    })
}

/// Bytes of block-level HTML comments (`<!--` starting an HTML block, outside code), which
/// Claude Code strips before injection.
#[must_use]
pub fn stripped_bytes(text: &str) -> usize {
    let body = &text[claude_text::frontmatter_len(text)..];
    claude_text::block_comments(body)
        .iter()
        .map(|r| r.len())
        .sum()
}

pub use super::claude_text::{delivered_text, import_tokens};

fn resolve_import(setup: &Setup<'_>, importer: &Path, p: &str) -> Option<PathBuf> {
    let path = if let Some(rest) = p.strip_prefix("~/") {
        setup.env.home.as_ref()?.join(rest)
    } else if Path::new(p).is_absolute() {
        PathBuf::from(p)
    } else {
        importer.parent()?.join(p)
    };
    let path = alisio_base::workspace::normalize_lexically(&path);
    (is_file(setup.fs, &path) && claude_text::readable_extension(&path)).then_some(path)
}

/// The files already taken into a list (as written and as resolved): Claude Code reads each
/// file once per session, whichever file names it first.
#[derive(Default)]
pub struct Seen(HashSet<PathBuf>);

impl Seen {
    /// Records `path` (and its canonical form); `false` when one of them was seen before.
    pub fn insert(&mut self, fs: &dyn Fs, path: &Path) -> bool {
        let canon = fs.canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if self.0.contains(path) || self.0.contains(&canon) {
            return false;
        }
        self.0.insert(path.to_path_buf());
        self.0.insert(canon);
        true
    }
}

/// The imports of one listed file, depth first, up to [`MAX_IMPORT_DEPTH`] hops. A file
/// already taken into the list (`seen`: by an earlier file or import) is not listed again. An
/// import of a project file that lies outside `cwd` (the session's directory), as written or
/// resolved, is listed with `approval: true` and not expanded: Claude Code waits for an
/// approval a fresh user has not given (user files are exempt).
#[must_use]
#[allow(
    clippy::too_many_arguments,
    reason = "the walk's inputs; a struct would only rename them"
)]
pub fn imports(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    seen: &mut Seen,
    cwd: &Path,
    file: &Path,
    text: &str,
    user_file: bool,
    excludes: &Excludes,
) -> Vec<Import> {
    let mut out = Vec::new();
    let mut w = ImportWalk {
        setup,
        reader,
        seen,
        cwd,
        user_file,
        excludes,
        out: &mut out,
    };
    w.walk(file, text, 1);
    out
}

struct ImportWalk<'a, 's> {
    setup: &'a Setup<'s>,
    reader: &'a Reader<'a>,
    seen: &'a mut Seen,
    cwd: &'a Path,
    user_file: bool,
    excludes: &'a Excludes,
    out: &'a mut Vec<Import>,
}

impl ImportWalk<'_, '_> {
    fn walk(&mut self, file: &Path, text: &str, depth: u32) {
        if depth > MAX_IMPORT_DEPTH {
            return;
        }
        for tok in import_tokens(text) {
            if self.out.len() >= MAX_IMPORTS {
                tracing::warn!(
                    "{}: more than {MAX_IMPORTS} imports; the rest are not listed",
                    file.display()
                );
                return;
            }
            let Some(path) = resolve_import(self.setup, file, &tok) else {
                continue;
            };
            if self.excludes.excludes(self.setup.fs, &path) {
                continue;
            }
            let canon = self
                .setup
                .fs
                .canonicalize(&path)
                .unwrap_or_else(|_| path.clone());
            let outside =
                !(self.user_file || is_inside(&path, self.cwd) && is_inside(&canon, self.cwd));
            if !self.seen.insert(self.setup.fs, &path) {
                continue;
            }
            let ft = self.reader.read(&path, ReadMode::Claude);
            let delivered = delivered_text(&ft.text);
            if !outside && (ft.too_large || delivered.is_empty()) {
                continue;
            }
            self.out.push(Import {
                approval: outside,
                path: path.clone(),
                depth,
                bytes: ft.file_bytes,
                sha256: (!outside).then(|| alisio_base::text::sha256_hex(&delivered)),
            });
            if !outside {
                self.walk(&path, &ft.text, depth + 1);
            }
        }
    }
}

/// An `@import` Claude Code does not follow because its file is already [`MAX_IMPORT_DEPTH`]
/// hops from the listed file (`instructions-import-too-deep`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooDeep {
    /// The file at the last hop, whose import is not followed.
    pub importer: PathBuf,
    /// The token as Claude Code reads it (`#fragment` cut, `\ ` unescaped).
    pub token: String,
    pub target: PathBuf,
    /// The listed file, then each import down to `importer`.
    pub chain: Vec<PathBuf>,
}

/// The imports of `entry`'s last hop that name a readable file not already in the list
/// (`listed`: every file and import of the startup list, as written and resolved).
#[must_use]
pub fn too_deep(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    entry: &ListedFile,
    listed: &HashSet<PathBuf>,
) -> Vec<TooDeep> {
    let mut out = Vec::new();
    let mut chain: Vec<PathBuf> = vec![entry.path.clone()];
    for i in &entry.imports {
        chain.truncate(i.depth as usize);
        chain.push(i.path.clone());
        if i.approval || i.depth < MAX_IMPORT_DEPTH {
            continue;
        }
        let t = reader.read(&i.path, ReadMode::Claude);
        for tok in import_tokens(&t.text) {
            let Some(target) = resolve_import(setup, &i.path, &tok) else {
                continue;
            };
            let canon = setup
                .fs
                .canonicalize(&target)
                .unwrap_or_else(|_| target.clone());
            if listed.contains(&target) || listed.contains(&canon) {
                continue;
            }
            out.push(TooDeep {
                importer: i.path.clone(),
                token: tok,
                target,
                chain: chain.clone(),
            });
        }
    }
    out
}

/// The `.md` files below a rules directory as Claude Code walks them (measured, 2.1.332): in
/// the order the operating system lists each directory (it does not sort), a subdirectory's
/// files at the subdirectory's place, symlinks followed, each file named by its resolved path.
/// A directory reached twice (a symlink loop, or two links to one place) is walked once, and
/// the walk stops after [`MAX_RULE_ENTRIES`] entries.
fn rule_files(fs: &dyn Fs, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut seen_dirs: HashSet<PathBuf> = HashSet::new();
    let mut budget = MAX_RULE_ENTRIES;
    rule_walk(fs, dir, 0, &mut seen_dirs, &mut budget, &mut out);
    out
}

fn rule_walk(
    fs: &dyn Fs,
    d: &Path,
    depth: u32,
    seen_dirs: &mut HashSet<PathBuf>,
    budget: &mut usize,
    out: &mut Vec<PathBuf>,
) {
    let canon_dir = fs.canonicalize(d).unwrap_or_else(|_| d.to_path_buf());
    if !seen_dirs.insert(canon_dir.clone()) {
        return;
    }
    let Ok(entries) = fs.read_dir_unsorted(d) else {
        return;
    };
    if entries.len() > *budget {
        tracing::warn!(
            "{}: more than {MAX_RULE_ENTRIES} entries below the rules directory; the rest are not read",
            d.display()
        );
        *budget = 0;
        return;
    }
    *budget -= entries.len();
    for e in entries {
        let p = canon_dir.join(&e.name);
        let t = if e.file_type == FileType::Symlink {
            fs.metadata(&p)
                .map(|m| m.file_type)
                .unwrap_or(FileType::Other)
        } else {
            e.file_type
        };
        match t {
            FileType::Dir if depth < 32 => rule_walk(fs, &p, depth + 1, seen_dirs, budget, out),
            FileType::File if p.extension().is_some_and(|x| x == "md") => {
                out.push(fs.canonicalize(&p).unwrap_or(p));
            }
            _ => {}
        }
    }
}

/// Claude Code's `claudeMdExcludes` (measured, 2.1.332): globs or absolute paths matched
/// against the absolute path of every user, project and local memory file and of every file
/// they import (never a managed file); `*` stops at `/`, `**` crosses directories, dot files
/// match. Read from the settings files Claude reads: `~/.claude/settings.json`, then the
/// workspace's `.claude/settings.json` and `.claude/settings.local.json` (the lists add up).
#[derive(Default)]
pub struct Excludes(Option<globset::GlobSet>);

impl Excludes {
    /// The excludes of the settings files of `setup`.
    #[must_use]
    pub fn load(setup: &Setup<'_>) -> Self {
        let mut files = Vec::new();
        if let Some(h) = &setup.env.home {
            files.push(h.join(".claude").join("settings.json"));
        }
        files.push(setup.root.join(".claude").join("settings.json"));
        files.push(setup.root.join(".claude").join("settings.local.json"));
        let mut b = globset::GlobSetBuilder::new();
        let mut any = false;
        for f in files {
            let Ok(bytes) = setup.fs.read_prefix(&f, 1 << 20) else {
                continue;
            };
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
                continue;
            };
            for g in v["claudeMdExcludes"].as_array().into_iter().flatten() {
                let Some(g) = g.as_str() else { continue };
                if let Ok(glob) = globset::GlobBuilder::new(&g.replace('\\', "/"))
                    .literal_separator(true)
                    .build()
                {
                    b.add(glob);
                    any = true;
                }
            }
        }
        Self(any.then(|| b.build().ok()).flatten())
    }

    /// Whether `path` (as listed, or resolved) is excluded.
    #[must_use]
    pub fn excludes(&self, fs: &dyn Fs, path: &Path) -> bool {
        let Some(set) = &self.0 else { return false };
        set.is_match(path)
            || fs
                .canonicalize(path)
                .is_ok_and(|c| c != path && set.is_match(&c))
    }
}

struct Builder<'s, 'r> {
    setup: &'s Setup<'s>,
    reader: &'r Reader<'r>,
    seen: Seen,
    /// The session's directory (imports outside it wait for an approval).
    cwd: PathBuf,
    excludes: Excludes,
    files: Vec<ListedFile>,
}

impl Builder<'_, '_> {
    fn push(&mut self, path: PathBuf, scope: FileScope, kind: FileKind, load: Load) {
        if scope != FileScope::Managed && self.excludes.excludes(self.setup.fs, &path) {
            return;
        }
        if !self.seen.insert(self.setup.fs, &path) {
            return;
        }
        let file = self.reader.read(&path, ReadMode::Claude);
        let mut e = ListedFile::new(path, scope, kind, file);
        e.load = load;
        if load == Load::OnRead {
            e.delivery = super::DeliveryMode::OnAccess;
        }
        if e.file.too_large {
            e.bytes = usize::try_from(e.file.file_bytes).unwrap_or(usize::MAX);
            e.kept_bytes = 0;
            e.truncation = Truncation::Dropped;
        } else {
            e.stripped_bytes = Some(stripped_bytes(&e.file.text));
            let user = matches!(scope, FileScope::Global | FileScope::Managed);
            if !delivered_text(&e.file.text).is_empty() {
                e.imports = imports(
                    self.setup,
                    self.reader,
                    &mut self.seen,
                    &self.cwd,
                    &e.path,
                    &e.file.text,
                    user,
                    &self.excludes,
                );
            }
        }
        self.files.push(e);
    }
}

/// The claude-code list for `target` (normalised) whose target directory is `dir`.
#[must_use]
pub fn list(setup: &Setup<'_>, reader: &Reader<'_>, target: &Path, dir: &Path) -> ClaudeList {
    let fs = setup.fs;
    let mode = setup.settings.claude_instruction_files;
    let mut b = Builder {
        setup,
        reader,
        seen: Seen::default(),
        cwd: dir.to_path_buf(),
        excludes: Excludes::load(setup),
        files: Vec::new(),
    };
    if let Some(m) = setup.claude_managed
        && is_file(fs, m)
    {
        b.push(
            m.to_path_buf(),
            FileScope::Managed,
            FileKind::Claude,
            Load::Startup,
        );
    }
    let mut out = ClaudeList::default();
    if mode == ClaudeInstructionFiles::ManagedOnly {
        out.files = b.files;
        return out;
    }
    let user_rules = setup.env.home.as_ref().map(|h| h.join(".claude"));
    if let Some(uc) = &user_rules
        && is_file(fs, &uc.join("CLAUDE.md"))
    {
        b.push(
            uc.join("CLAUDE.md"),
            FileScope::Global,
            FileKind::Claude,
            Load::Startup,
        );
    }
    let mut on_read: Vec<(PathBuf, FileScope)> = Vec::new();
    let target_is_file = target != dir;
    // A rule with `paths:` matches the target relative to the directory holding its
    // `.claude/` (user rules: the workspace root).
    let eager_rules = |rules_dir: &Path,
                       base: &Path,
                       scope: FileScope,
                       on_read: &mut Vec<(PathBuf, FileScope)>| {
        let mut eager = Vec::new();
        for r in rule_files(fs, rules_dir) {
            let text = reader.read(&r, ReadMode::Claude);
            match rule_paths(&text.text) {
                Some(globs) => {
                    if target_is_file
                        && is_inside(target, base)
                        && globs_match(&globs, &alisio_base::workspace::display_path(target, base))
                    {
                        on_read.push((r, scope));
                    }
                }
                None => eager.push(r),
            }
        }
        eager
    };
    if let Some(uc) = &user_rules {
        for r in eager_rules(
            &uc.join("rules"),
            setup.root,
            FileScope::Global,
            &mut on_read,
        ) {
            b.push(r, FileScope::Global, FileKind::Rule, Load::Startup);
        }
    }
    let dirs: Vec<&Path> = {
        let mut v: Vec<&Path> = dir.ancestors().collect();
        v.reverse();
        v
    };
    // The CLAUDE file that switches the AGENTS mode off: one that Claude loads (it exists,
    // is not excluded, not over 4 MiB, and delivers text; an empty CLAUDE.md does not count,
    // measured with 2.1.332).
    let claude_names = [
        ("CLAUDE.md", false),
        ("CLAUDE.md", true),
        ("CLAUDE.local.md", false),
    ];
    let claude_file = dirs.iter().rev().find_map(|d| {
        claude_names
            .iter()
            .map(|(n, dot)| {
                if *dot {
                    d.join(".claude").join(n)
                } else {
                    d.join(n)
                }
            })
            .find(|p| {
                is_file(fs, p) && !b.excludes.excludes(fs, p) && {
                    let t = reader.read(p, ReadMode::Claude);
                    !t.too_large && !delivered_text(&t.text).is_empty()
                }
            })
    });
    let agents_allowed = match mode {
        ClaudeInstructionFiles::ClaudeMdAndAgentsMd => true,
        ClaudeInstructionFiles::ClaudeMd | ClaudeInstructionFiles::ManagedOnly => false,
        ClaudeInstructionFiles::ClaudeMdOrAgentsMd => claude_file.is_none(),
    };
    for d in dirs {
        let scope = if is_inside(d, setup.root) {
            FileScope::Project
        } else {
            FileScope::Ancestor
        };
        for p in [d.join("CLAUDE.md"), d.join(".claude").join("CLAUDE.md")] {
            if is_file(fs, &p) {
                b.push(p, scope, FileKind::Claude, Load::Startup);
            }
        }
        // Every directory of the walk has its rules (measured, 2.1.332), not only the root.
        for r in eager_rules(&d.join(".claude").join("rules"), d, scope, &mut on_read) {
            b.push(r, scope, FileKind::Rule, Load::Startup);
        }
        // Below the session's directory the files are the nested ones Claude Code attaches on
        // a read: its nested loader has no AGENTS names (measured, 2.1.332).
        let nested = setup
            .claude_session
            .is_some_and(|s| d != s && is_inside(d, s));
        for p in [d.join("AGENTS.md"), d.join(".claude").join("AGENTS.md")] {
            if is_file(fs, &p) && !nested {
                if agents_allowed {
                    b.push(p, scope, FileKind::Agents, Load::Startup);
                } else if mode == ClaudeInstructionFiles::ClaudeMdOrAgentsMd
                    && let Some(c) = &claude_file
                {
                    out.excluded_agents.push((p, c.clone()));
                }
            }
        }
        let local = d.join("CLAUDE.local.md");
        if is_file(fs, &local) {
            b.push(local, scope, FileKind::ClaudeLocal, Load::Startup);
        }
    }
    for (r, scope) in on_read {
        b.push(r, scope, FileKind::Rule, Load::OnRead);
    }
    out.files = b.files;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_paths_reads_block_flow_and_scalar_forms() {
        assert_eq!(
            rule_paths(
                "---\npaths:\n  - \"src/**/*.rs\"\n  - 'lib/*.rs'\ndescription: x\n---\nbody"
            ),
            Some(vec!["src/**/*.rs".into(), "lib/*.rs".into()])
        );
        assert_eq!(
            rule_paths("---\npaths: [\"src/**/*.rs\", docs/*.md]\n---\n"),
            Some(vec!["src/**/*.rs".into(), "docs/*.md".into()])
        );
        assert_eq!(
            rule_paths("---\npaths: \"*.ts\"\n---\n"),
            Some(vec!["*.ts".into()])
        );
        assert_eq!(rule_paths("---\ndescription: x\n---\n"), None);
        assert_eq!(rule_paths("no frontmatter\npaths: x"), None);
    }

    #[test]
    fn globs_use_path_separators_and_braces() {
        let g = vec!["src/**/*.rs".to_string()];
        assert!(globs_match(&g, "src/a/b.rs"));
        assert!(globs_match(&g, "src/b.rs"));
        assert!(!globs_match(&g, "docs/a.md"));
        assert!(globs_match(&["*.{ts,tsx}".to_string()], "a.tsx"));
        assert!(!globs_match(&["*.ts".to_string()], "src/a.ts"));
        assert!(!globs_match(&["src/[".to_string()], "src/["));
    }

    #[test]
    fn stripped_bytes_counts_block_comments_only() {
        let t = "a <!-- inline -->\n<!-- one -->\n```\n<!-- code -->\n```\n  <!-- two\nlines -->\n";
        assert_eq!(
            stripped_bytes(t),
            "<!-- one -->".len() + "<!-- two\nlines -->".len()
        );
    }
}
