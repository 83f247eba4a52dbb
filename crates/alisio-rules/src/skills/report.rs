//! Diagnostics of a set of discoveries (spec/skills.md §5.2, §5.3, §1.4): every discovered or
//! walked `SKILL.md` validated under the active profile, plus the host codes (`skill-shadowed`
//! with vantage suffixes, `skill-symlink`, `skill-scan-limit`, `skill-untrusted`,
//! `skill-not-discovered`). Shared by `check`, `skills validate` and the language server.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::catalog::{CatalogSkill, Discovery};
use super::discover::{self, Note, Walk};
use super::validate::{self, Judged};
use alisio_base::config::{Host, Profile};
use alisio_base::diagnostic::{Code, Diagnostic, Related, Severity};
use alisio_base::text::Span;
use alisio_base::workspace::par::par_map;
use alisio_base::workspace::{FileType, Fs};

pub const UNTRUSTED_MESSAGE: &str =
    "the workspace is not trusted, so this project skill is not loaded (pass --trust-project)";

/// What to report on.
pub struct Scan<'a> {
    pub workspace_root: &'a Path,
    pub profile: Profile,
    pub discoveries: &'a [Discovery],
    /// Untrusted probes (spec/skills.md §1.2), one per vantage.
    pub probes: &'a [Walk],
    /// More `SKILL.md` files to validate (the workspace walk of `check`).
    pub extra_files: &'a [PathBuf],
    /// Report `skill-not-discovered` below the roots.
    pub not_discovered: bool,
    /// Renders a path for messages (relative to the workspace when inside).
    pub show: &'a dyn Fn(&Path) -> String,
}

/// The outcome: diagnostics (absolute files), validated files, notes for stderr.
#[derive(Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    pub files: Vec<PathBuf>,
    pub notes: Vec<Note>,
    /// `SKILL.md` files the untrusted probes found.
    pub untrusted: usize,
    /// Discovered files host `alisio` cannot load.
    pub not_loaded: usize,
    pub scan_limit: Vec<PathBuf>,
}

/// What the report needs of a judged file once its text is gone.
#[derive(Clone, Copy)]
struct Kept {
    opening: Span,
    name: Span,
}

impl Kept {
    fn of(j: &Judged) -> Self {
        Self {
            opening: j.opening,
            name: j.name,
        }
    }
}

/// The owner vantage of a discovered skill (spec/skills.md §1.4): its project directory, else the root.
/// `entries` maps each file of the discovery to its first entry.
fn owner_vantage(ws: &Path, entries: &HashMap<&Path, &CatalogSkill>, file: &Path) -> PathBuf {
    entries
        .get(file)
        .and_then(|e| e.project_dir.clone())
        .unwrap_or_else(|| ws.to_path_buf())
}

#[must_use]
pub fn run(fs: &dyn Fs, scan: &Scan<'_>) -> Report {
    let mut rep = Report::default();
    let (files, probed) = every_file(fs, scan);
    let profile = scan.profile;
    // Files a discovery already judged under the profile (one read and parse per file).
    let mut prejudged: HashMap<&Path, &Judged> = HashMap::new();
    for s in scan.discoveries.iter().flat_map(|d| &d.skills) {
        if let Some(j) = s.judged.as_ref().filter(|j| j.profile == profile) {
            prejudged.entry(s.candidate.file.as_path()).or_insert(j);
        }
    }
    let list: Vec<(&PathBuf, &bool)> = files.iter().map(|(f, link)| (f, link)).collect();
    // Each file's text and parse tree are dropped as soon as it is judged: only its diagnostics
    // and two spans are kept (a 15,000-skill pass must not hold every text at once).
    let results = par_map(&list, super::PAR_MIN, |(f, link)| {
        match prejudged.get(f.as_path()) {
            Some(j) => Judged::clone(j),
            None => Judged::from_checked(validate::check_one(fs, f, **link, profile, true)),
        }
    });
    // Looked up by path only, never walked in order: a hash map (a path comparison walks its
    // components, and a tree of 1,000 paths made ten of them per insertion).
    let mut checked: HashMap<PathBuf, Kept> = HashMap::with_capacity(list.len());
    for ((file, _), j) in list.iter().zip(results) {
        checked.insert(PathBuf::clone(file), Kept::of(&j));
        rep.diagnostics.extend(j.diagnostics);
    }
    rep.files = files.iter().map(|(f, _)| f.clone()).collect();
    // Loadability, judged once per file by the alisio rules.
    let mut not_loaded: HashSet<&Path> = HashSet::new();
    for d in scan.discoveries {
        for s in &d.skills {
            if s.checked.load_error.is_some() {
                not_loaded.insert(&s.candidate.file);
            }
        }
    }
    rep.not_loaded = not_loaded.len();
    rep.diagnostics.extend(shadowed(scan, &checked));
    rep.diagnostics
        .extend(super::quality::collision::diagnostics(fs, scan.discoveries));
    let limits = scan_limits(scan, &mut rep);
    // skill-untrusted.
    rep.untrusted = probed.len();
    for f in &probed {
        if let Some(c) = checked.get(f) {
            rep.diagnostics.push(Diagnostic::new(
                f,
                c.opening,
                Severity::Information,
                Code::SkillUntrusted,
                UNTRUSTED_MESSAGE,
            ));
        }
    }
    if scan.not_discovered {
        not_discovered(fs, scan, &files, !limits.is_empty(), &mut checked, &mut rep);
    }
    alisio_base::diagnostic::sort(&mut rep.diagnostics);
    rep
}

/// Every file once (the first mention decides whether it is a symlink), in path order; and the
/// files of the probes (untrusted roots).
fn every_file(fs: &dyn Fs, scan: &Scan<'_>) -> (Vec<(PathBuf, bool)>, BTreeSet<PathBuf>) {
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let add = |files: &mut Vec<(PathBuf, bool)>, seen: &mut HashSet<PathBuf>, f: &PathBuf, link| {
        if seen.insert(f.clone()) {
            files.push((f.clone(), link));
        }
    };
    for d in scan.discoveries {
        for c in &d.walk.candidates {
            add(&mut files, &mut seen, &c.file, c.symlink);
        }
    }
    let mut probed: BTreeSet<PathBuf> = BTreeSet::new();
    for w in scan.probes {
        for c in &w.candidates {
            add(&mut files, &mut seen, &c.file, c.symlink);
            probed.insert(c.file.clone());
        }
    }
    // `skill-symlink` is host `alisio`'s rule: Claude Code and Codex read a symlinked SKILL.md
    // (spec/skills.md §12.3), so under those hosts a walked link is validated through.
    let follows = scan.discoveries.iter().any(|d| d.host != Host::Alisio);
    for f in scan.extra_files {
        // A file a discovery found already is not looked at again (its first mention decides).
        if seen.contains(f) {
            continue;
        }
        let is_link = fs
            .symlink_metadata(f)
            .is_ok_and(|m| m.file_type == FileType::Symlink);
        // Read through a link only to a regular file (never a FIFO or a device).
        let through = follows && fs.metadata(f).is_ok_and(|m| m.file_type == FileType::File);
        add(&mut files, &mut seen, f, is_link && !through);
    }
    // Each path once, so the order is the one a sorted map of them would have.
    files.sort_by(|a, b| a.0.cmp(&b.0));
    (files, probed)
}

/// `skill-shadowed`: one per file, the owner vantage's first.
fn shadowed(scan: &Scan<'_>, checked: &HashMap<PathBuf, Kept>) -> Vec<Diagnostic> {
    let mut shadowed: BTreeMap<PathBuf, (bool, Diagnostic)> = BTreeMap::new();
    for d in scan.discoveries {
        let mut first: HashMap<&Path, &CatalogSkill> = HashMap::new();
        for e in &d.entries {
            first.entry(e.file.as_path()).or_insert(e);
        }
        for e in d.entries.iter().filter(|e| !e.effective) {
            let Some(w) = e.winner.and_then(|w| d.entries.get(w)) else {
                continue;
            };
            let owner = owner_vantage(scan.workspace_root, &first, &e.file);
            let is_owner =
                d.host != Host::Alisio || owner == d.vantage || scan.discoveries.len() == 1;
            if shadowed.get(&e.file).is_some_and(|(o, _)| *o || !is_owner) {
                continue;
            }
            let Some(c) = checked.get(&e.file) else {
                continue;
            };
            let mut message = format!(
                "shadowed by {} ({}) from {}; this copy is not used",
                w.display_id,
                w.scope.as_str(),
                (scan.show)(&w.file)
            );
            if !is_owner {
                message.push_str(&format!(" when working in {}", (scan.show)(&d.vantage)));
            }
            let wspan = checked.get(&w.file).map_or_else(Span::default, |k| k.name);
            let diag = Diagnostic::new(
                &e.file,
                c.name,
                Severity::Information,
                Code::SkillShadowed,
                message,
            )
            .with_related(Related {
                file: w.file.clone(),
                span: wspan,
                message: "the copy that is used".into(),
            });
            shadowed.insert(e.file.clone(), (is_owner, diag));
        }
    }
    shadowed.into_values().map(|(_, d)| d).collect()
}

/// `skill-scan-limit` once per directory, and the walks' notes. Returns the directories.
fn scan_limits(scan: &Scan<'_>, rep: &mut Report) -> BTreeSet<PathBuf> {
    let mut limits: BTreeSet<PathBuf> = BTreeSet::new();
    for w in scan
        .discoveries
        .iter()
        .map(|d| &d.walk)
        .chain(scan.probes.iter())
    {
        limits.extend(w.scan_limit.iter().cloned());
        for n in &w.notes {
            if !rep.notes.contains(n) {
                rep.notes.push(n.clone());
            }
        }
    }
    for dir in &limits {
        rep.diagnostics.push(Diagnostic::new(
            dir,
            Span::default(),
            Severity::Warning,
            Code::SkillScanLimit,
            format!(
                "Skill scan limit of {} directories reached; stopped at {}",
                discover::MAX_DIRS,
                (scan.show)(dir)
            ),
        ));
    }
    rep.scan_limit = limits.iter().cloned().collect();
    limits
}

/// `skill-not-discovered` below every root.
fn not_discovered(
    fs: &dyn Fs,
    scan: &Scan<'_>,
    files: &[(PathBuf, bool)],
    limit_hit: bool,
    checked: &mut HashMap<PathBuf, Kept>,
    rep: &mut Report,
) {
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut seen_roots: HashSet<&Path> = HashSet::new();
    for w in scan
        .discoveries
        .iter()
        .map(|d| &d.walk)
        .chain(scan.probes.iter())
    {
        for c in w.canonical.iter().flatten() {
            if seen_roots.insert(c) {
                roots.push(c.clone());
            }
        }
    }
    // Sets, not scans: this runs once per file of a 15,000-skill tree (issue 14).
    let extra: HashSet<&Path> = scan.extra_files.iter().map(PathBuf::as_path).collect();
    let candidates = candidate_set(scan);
    let discovered: HashSet<PathBuf> = files
        .iter()
        .map(|(f, _)| f)
        .filter(|f| !extra.contains(f.as_path()) || candidates.contains(f.as_path()))
        .cloned()
        .collect();
    let mut reported: HashSet<PathBuf> = rep.files.iter().cloned().collect();
    for u in discover::undiscovered(fs, &roots, &discovered, limit_hit, scan.show) {
        let span = if let Some(k) = checked.get(&u.file) {
            k.opening
        } else {
            let j = Judged::from_checked(validate::check_file(fs, &u.file, scan.profile));
            let k = Kept::of(&j);
            if reported.insert(u.file.clone()) {
                rep.diagnostics.extend(j.diagnostics);
                rep.files.push(u.file.clone());
            }
            checked.insert(u.file.clone(), k);
            k.opening
        };
        rep.diagnostics.push(Diagnostic::new(
            &u.file,
            span,
            Severity::Information,
            Code::SkillNotDiscovered,
            format!("not discovered: {}", u.reason),
        ));
    }
}

/// Every file a discovery or probe walk found.
fn candidate_set<'a>(scan: &'a Scan<'_>) -> HashSet<&'a Path> {
    scan.discoveries
        .iter()
        .map(|d| &d.walk)
        .chain(scan.probes.iter())
        .flat_map(|w| w.candidates.iter().map(|c| c.file.as_path()))
        .collect()
}

/// The vantage set V of spec/skills.md §1.4 and every `SKILL.md` of the workspace walk, read from the
/// shared directory set D (spec/instructions.md §5.1): the root, then each directory with a real
/// `.agents/skills`, `.alisio/skills` or `.claude/skills` directory.
#[must_use]
pub fn workspace_files(
    fs: &dyn Fs,
    set: &alisio_base::workspace::walk::DirSet,
    root: &Path,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut vantages = vec![root.to_path_buf()];
    let mut files = Vec::new();
    for node in &set.dirs {
        let has_root = node.entries.iter().any(|e| {
            e.file_type == FileType::Dir
                && [".agents", ".alisio", ".claude"]
                    .iter()
                    .any(|b| e.name == *b)
                && fs
                    .symlink_metadata(&node.path.join(&e.name).join("skills"))
                    .is_ok_and(|m| m.file_type == FileType::Dir)
        });
        if has_root && node.path != root {
            vantages.push(node.path.clone());
        }
        if node.entries.iter().any(|e| {
            e.name == "SKILL.md" && matches!(e.file_type, FileType::File | FileType::Symlink)
        }) {
            files.push(node.path.join("SKILL.md"));
        }
    }
    (vantages, files)
}
