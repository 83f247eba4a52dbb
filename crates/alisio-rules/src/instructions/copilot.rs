//! Host `copilot` (spec/hosts.md §2): VS Code Copilot Chat and agent mode. The always-on set
//! (`copilot-instructions.md`, the root `AGENTS.md`, the CLAUDE.md set), `*.instructions.md`
//! files from the configured locations with `applyTo` matched the way VS Code does it, and the
//! listed-only nested `AGENTS.md` files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::chain::chain_dirs;
use super::host_files::{
    AttrValue, HostList, children_ci, files_below, glob, header, locale_cmp, read_entry,
    split_aware,
};
use super::read::Reader;
use super::{DeliveryMode, FileKind, FileScope, ListedFile, Setup};
use alisio_base::config::CopilotSettings;
use alisio_base::workspace::{FileType, display_path, is_inside, walk};

/// CP9: sub-folder levels read below a location.
pub const MAX_DEPTH: usize = 5;

/// CP13: `true` when `pattern` applies to the target (`abs`: its absolute path; `is_file`:
/// `false` for a directory, which only unconditional pieces match).
#[must_use]
pub fn applies(pattern: &str, abs: &str, is_file: bool) -> bool {
    split_aware(pattern).iter().any(|piece| {
        if matches!(piece.as_str(), "**" | "**/*" | "*") {
            return true;
        }
        if !is_file {
            return false;
        }
        piece_matcher(piece).is_some_and(|m| m.is_match(abs))
    })
}

/// CP13 steps 3–4 for one piece that is not unconditional: the compiled glob (`None` when
/// invalid, which matches nothing).
#[must_use]
pub fn piece_matcher(piece: &str) -> Option<globset::GlobMatcher> {
    if piece.starts_with('/') || piece.starts_with("**/") {
        glob(piece, true)
    } else {
        glob(&format!("**/{piece}"), true)
    }
}

/// A resolved location (CP8).
#[derive(Clone, Debug)]
pub struct Location {
    pub written: String,
    pub path: PathBuf,
    pub user: bool,
}

/// The enabled locations, user ones first (V20 listing order), each in the map's order.
#[must_use]
pub fn locations(setup: &Setup<'_>, cs: &CopilotSettings) -> Vec<Location> {
    let mut out: Vec<Location> = Vec::new();
    for (written, on) in &cs.locations {
        if !on {
            continue;
        }
        let (path, user) = if let Some(rest) = written.strip_prefix("~/") {
            let Some(home) = &setup.env.home else {
                continue;
            };
            (home.join(rest), true)
        } else if Path::new(written).is_absolute() {
            let p = PathBuf::from(written);
            let user = !is_inside(&p, setup.root);
            (p, user)
        } else {
            (
                alisio_base::workspace::normalize_lexically(&setup.root.join(written)),
                false,
            )
        };
        out.push(Location {
            written: written.clone(),
            path,
            user,
        });
    }
    out.sort_by_key(|l| !l.user);
    out
}

fn is_claude_rule(p: &Path) -> bool {
    let comps: Vec<_> = p.components().map(|c| c.as_os_str()).collect();
    comps
        .windows(2)
        .any(|w| w[0] == ".claude" && w[1] == "rules")
}

/// CP10: `Some(kind)` for a file that counts as instructions in a location.
#[must_use]
pub fn instructions_kind(p: &Path) -> Option<FileKind> {
    let name = p.file_name()?.to_str()?;
    if name.ends_with(".instructions.md") || name == "copilot-instructions.md" {
        return Some(if is_claude_rule(p) {
            FileKind::Rule
        } else {
            FileKind::Instructions
        });
    }
    (is_claude_rule(p) && name.ends_with(".md") && name != "README.md").then_some(FileKind::Rule)
}

/// `true` for a name that ends with `.instructions.md` only when case is ignored (CP10).
#[must_use]
pub fn wrong_case(name: &str) -> bool {
    let n = name.len();
    n >= 16
        && name.is_char_boundary(n - 16)
        && name[n - 16..].eq_ignore_ascii_case(".instructions.md")
        && !name.ends_with(".instructions.md")
}

/// Every instructions file of the enabled locations (CP9, CP10), de-duplicated by canonical
/// path, with the files found too deep and those named in the wrong case.
#[must_use]
pub fn instruction_files(setup: &Setup<'_>, cs: &CopilotSettings) -> CopilotFiles {
    let mut found = CopilotFiles::default();
    let mut seen = HashSet::new();
    for loc in locations(setup, cs) {
        let recursive = loc.path != setup.root;
        let max = if recursive { MAX_DEPTH } else { 0 };
        let mut files = files_below(setup.fs, &loc.path, max);
        files.sort_by(|a, b| a.0.cmp(&b.0));
        for (p, depth) in files {
            if depth > 0 && !recursive {
                continue;
            }
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if wrong_case(name) {
                found.wrong_case.push(p);
                continue;
            }
            let Some(kind) = instructions_kind(&p) else {
                continue;
            };
            if depth > MAX_DEPTH {
                found.too_deep.push((p, loc.written.clone()));
                continue;
            }
            let canon = setup.fs.canonicalize(&p).unwrap_or_else(|_| p.clone());
            if seen.insert(canon) {
                found.files.push((p, kind, loc.user));
            }
        }
    }
    found
}

/// The instruction files Copilot finds ([`instruction_files`]): the files, those too deep and
/// those named in the wrong case.
#[derive(Clone, Debug, Default)]
pub struct CopilotFiles {
    /// Path, kind, user location.
    pub files: Vec<(PathBuf, FileKind, bool)>,
    pub too_deep: Vec<(PathBuf, String)>,
    pub wrong_case: Vec<PathBuf>,
}

/// CP12: the effective pattern, or why there is none.
pub(crate) fn pattern_of(kind: FileKind, text: &str) -> Result<String, String> {
    let h = header(text);
    if kind == FileKind::Rule {
        return Ok(match h.get("paths").map(|a| &a.value) {
            Some(AttrValue::List(items)) => items.join(", "),
            Some(AttrValue::Scalar(s)) if !s.is_empty() => s.clone(),
            _ => "**".to_string(),
        });
    }
    match h.get("applyTo").map(|a| &a.value) {
        Some(AttrValue::Scalar(s)) if !s.is_empty() => Ok(s.clone()),
        Some(AttrValue::List(_)) => Err("applyTo is a list; Copilot reads only a string".into()),
        _ => Err("no applyTo".into()),
    }
}

fn always_set(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    cs: &CopilotSettings,
    inside: bool,
    out: &mut HostList,
) {
    let fs = setup.fs;
    let root = setup.root;
    let mut cands: Vec<(PathBuf, FileKind, FileScope, bool, &str)> = Vec::new();
    if inside {
        for p in children_ci(fs, &root.join(".github"), "copilot-instructions.md") {
            cands.push((
                p,
                FileKind::CopilotInstructions,
                FileScope::Project,
                cs.use_instruction_files,
                "hosts.copilot.useInstructionFiles is off",
            ));
        }
        for p in children_ci(fs, root, "AGENTS.md") {
            cands.push((
                p,
                FileKind::Agents,
                FileScope::Project,
                cs.use_agents_md_file,
                "hosts.copilot.useAgentsMdFile is off",
            ));
        }
        for (dir, name, kind) in [
            (root.to_path_buf(), "CLAUDE.md", FileKind::Claude),
            (root.to_path_buf(), "CLAUDE.local.md", FileKind::ClaudeLocal),
            (root.join(".claude"), "CLAUDE.md", FileKind::Claude),
        ] {
            for p in children_ci(fs, &dir, name) {
                cands.push((
                    p,
                    kind,
                    FileScope::Project,
                    cs.use_claude_md_file,
                    "hosts.copilot.useClaudeMdFile is off",
                ));
            }
        }
        for p in children_ci(fs, &root.join(".claude"), "CLAUDE.local.md") {
            out.not(&p, "Copilot does not read .claude/CLAUDE.local.md");
        }
    }
    if let Some(home) = &setup.env.home {
        for p in children_ci(fs, &home.join(".claude"), "CLAUDE.md") {
            cands.push((
                p,
                FileKind::Claude,
                FileScope::Global,
                cs.use_claude_md_file,
                "hosts.copilot.useClaudeMdFile is off",
            ));
        }
    }
    // CP6: non-symlinks first, then symlinks whose target is not already in the set.
    let is_link = |p: &Path| {
        fs.symlink_metadata(p)
            .is_ok_and(|m| m.file_type == FileType::Symlink)
    };
    let (plain, links): (Vec<_>, Vec<_>) = cands.into_iter().partition(|c| !is_link(&c.0));
    let mut seen: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut set: Vec<ListedFile> = Vec::new();
    for (p, kind, scope, on, off) in plain.into_iter().chain(links) {
        if !on {
            out.not(&p, off);
            continue;
        }
        let canon = fs.canonicalize(&p).unwrap_or_else(|_| p.clone());
        if let Some((first, _)) = seen.iter().find(|(_, c)| *c == canon) {
            let reason = format!(
                "symbolic link to {}, which is already loaded",
                display_path(first, root)
            );
            out.not(&p, reason);
            continue;
        }
        seen.push((p.clone(), canon));
        match read_entry(reader, &p, scope, kind, DeliveryMode::Always) {
            Ok(e) => set.push(e),
            Err(n) => out.not_loaded.push(n),
        }
    }
    let uri = |e: &ListedFile| format!("file://{}", e.path.to_string_lossy());
    set.sort_by(|a, b| locale_cmp(&uri(a), &uri(b)));
    out.files.extend(set);
}

fn chain_not_loaded(setup: &Setup<'_>, cs: &CopilotSettings, dir: &Path, out: &mut HostList) {
    let fs = setup.fs;
    for d in chain_dirs(setup.root, dir).into_iter().skip(1) {
        for p in children_ci(fs, &d.join(".github"), "copilot-instructions.md") {
            out.not(
                &p,
                "only .github/copilot-instructions.md of the workspace root is read",
            );
        }
        for p in children_ci(fs, &d, "CLAUDE.md") {
            out.not(&p, "Copilot reads CLAUDE.md only at the workspace root");
        }
        if !(cs.use_agents_md_file && cs.use_nested_agents_md_files) {
            for p in children_ci(fs, &d, "AGENTS.md") {
                let reason = if cs.use_agents_md_file {
                    "hosts.copilot.useNestedAgentsMdFiles is off"
                } else {
                    "hosts.copilot.useAgentsMdFile is off"
                };
                out.not(&p, reason);
            }
        }
    }
}

/// The copilot list for a normalised `target` whose target directory is `dir` (spec/hosts.md §2).
#[must_use]
pub fn list(setup: &Setup<'_>, reader: &Reader<'_>, target: &Path, dir: &Path) -> HostList {
    let cs = &setup.settings.hosts.copilot;
    let inside = is_inside(dir, setup.root);
    let mut out = HostList::default();
    let is_file = target != dir;
    let abs = target.to_string_lossy();
    let rel = display_path(target, setup.root);
    let mut attached = Vec::new();
    let mut listed = Vec::new();
    let found = instruction_files(setup, cs);
    for (p, loc) in &found.too_deep {
        out.not(
            p,
            format!("deeper than {MAX_DEPTH} folders below the location {loc}"),
        );
    }
    for p in &found.wrong_case {
        out.not(p, "the name must end in .instructions.md (case-sensitive)");
    }
    for (p, kind, user) in found.files {
        if !user && !inside {
            continue;
        }
        let scope = if user {
            FileScope::Global
        } else {
            FileScope::Project
        };
        let mut e = match read_entry(reader, &p, scope, kind, DeliveryMode::Attached) {
            Ok(e) => e,
            Err(n) => {
                out.not_loaded.push(n);
                continue;
            }
        };
        let why = match pattern_of(kind, &e.file.text) {
            _ if !cs.include_applying_instructions => {
                Some("hosts.copilot.includeApplyingInstructions is off".to_string())
            }
            Ok(pat) if applies(&pat, &abs, is_file) => None,
            Ok(pat) => {
                let key = if kind == FileKind::Rule {
                    "paths"
                } else {
                    "applyTo"
                };
                Some(format!("{key} \"{pat}\" does not match {rel}"))
            }
            Err(why) => Some(why),
        };
        match why {
            None => attached.push(e),
            Some(why) if cs.read_file_tool => {
                e.delivery = DeliveryMode::Listed;
                e.reason = Some(why);
                listed.push(e);
            }
            Some(why) => out.not(&p, why),
        }
    }
    out.files.extend(attached);
    always_set(setup, reader, cs, inside, &mut out);
    if inside {
        chain_not_loaded(setup, cs, dir, &mut out);
    }
    out.files.extend(listed);
    if inside && cs.use_agents_md_file && cs.use_nested_agents_md_files {
        nested_agents(setup, reader, &mut out);
    }
    drop_duplicates(setup, &mut out);
    out
}

/// CP7: the root `AGENTS.md` again, then every nested `AGENTS.md` of D, listed only.
fn nested_agents(setup: &Setup<'_>, reader: &Reader<'_>, out: &mut HostList) {
    let set = walk::walk(setup.fs, setup.root);
    let mut paths: Vec<PathBuf> = children_ci(setup.fs, setup.root, "AGENTS.md");
    for node in set.dirs.iter().skip(1) {
        if node.entries.iter().any(|e| e.name == "AGENTS.md") {
            let p = node.path.join("AGENTS.md");
            if super::host_files::is_file(setup.fs, &p) {
                paths.push(p);
            }
        }
    }
    for p in paths {
        match read_entry(
            reader,
            &p,
            FileScope::Project,
            FileKind::Agents,
            DeliveryMode::Listed,
        ) {
            Ok(e) => out.files.push(e),
            Err(n) => out.not_loaded.push(n),
        }
    }
}

/// CP16: a delivered file whose trimmed text equals an earlier delivered file's is dropped.
fn drop_duplicates(setup: &Setup<'_>, out: &mut HostList) {
    let mut texts: Vec<(String, PathBuf)> = Vec::new();
    let mut kept = Vec::new();
    for e in std::mem::take(&mut out.files) {
        let delivered = matches!(e.delivery, DeliveryMode::Always | DeliveryMode::Attached);
        if delivered && !e.file.empty {
            let t = e.file.text.trim().to_string();
            if let Some((_, first)) = texts.iter().find(|(x, _)| *x == t) {
                let reason = format!("same content as {}", display_path(first, setup.root));
                out.not(&e.path, reason);
                continue;
            }
            texts.push((t, e.path.clone()));
        }
        kept.push(e);
    }
    out.files = kept;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_to_matches_the_absolute_path_like_vs_code() {
        let f = "/home/u/src/app/lib/a.ts";
        assert!(applies("src/**", f, true), "ancestor src segment matches");
        assert!(applies("*.ts", "/w/a/b/c.ts", true));
        assert!(!applies("./src/**/*.ts", "/w/src/a.ts", true));
        assert!(applies("**/*.{ts,tsx}, docs/**", "/w/docs/x.md", true));
        assert!(applies("**/*.{ts,tsx}, docs/**", "/w/q.TSX", true));
        assert!(applies("**", "/w/dir", false));
        assert!(!applies("**/*.md", "/w/dir", false));
        assert!(applies("*", "/w/dir", false));
        assert!(!applies("src/*.py", "/w/src/a/b.py", true));
        assert!(applies("/w/src/**", "/w/src/x/y.rs", true));
        assert!(applies("*.env", "/w/.env", true));
    }

    #[test]
    fn kinds_and_case() {
        assert_eq!(
            instructions_kind(Path::new("/w/.github/instructions/a.instructions.md")),
            Some(FileKind::Instructions)
        );
        assert_eq!(
            instructions_kind(Path::new("/w/.claude/rules/x.md")),
            Some(FileKind::Rule)
        );
        assert_eq!(
            instructions_kind(Path::new("/w/.claude/rules/README.md")),
            None
        );
        assert_eq!(
            instructions_kind(Path::new("/w/.github/instructions/notes.md")),
            None
        );
        assert!(wrong_case("x.Instructions.md"));
        assert!(!wrong_case("x.instructions.md"));
    }
}
