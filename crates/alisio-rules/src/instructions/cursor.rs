//! Host `cursor` (spec/hosts.md §4): `.cursor/rules` `.mdc` rules with their four types, nested rule
//! folders, root and nested `AGENTS.md`, legacy `.cursorrules`. Cursor is closed source: these
//! are its documented rules, not verified against Cursor.

use std::path::{Path, PathBuf};

use super::chain::chain_dirs;
use super::host_files::{
    AttrValue, Header, HostList, exact_file, files_below, glob, header, read_entry, split_aware,
};
use super::read::Reader;
use super::{DeliveryMode, FileKind, FileScope, Setup};
use alisio_base::workspace::display_path;

/// CU2: folder levels read below a rules folder.
pub const MAX_DEPTH: usize = 5;

/// H7: the `evidence` value of the explain object.
pub const EVIDENCE: &str = "documented-not-verified";

/// The type of a rule (CU4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleType {
    Always,
    AutoAttached(Vec<String>),
    AgentRequested,
    Manual,
}

/// CU3: the globs of a header, taken as written on the key's line.
#[must_use]
pub fn globs(h: &Header) -> Vec<String> {
    let Some(a) = h.get("globs") else {
        return Vec::new();
    };
    match &a.value {
        AttrValue::List(items) => items.iter().flat_map(|i| split_aware(i)).collect(),
        AttrValue::Scalar(_) => {
            let raw = a.raw.trim();
            let unq = raw
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .or_else(|| raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')))
                .unwrap_or(raw);
            split_aware(unq)
        }
    }
}

/// CU4: the type of a rule from its header.
#[must_use]
pub fn rule_type(h: &Header) -> RuleType {
    if h.get("alwaysApply").is_some_and(|a| a.raw == "true") {
        return RuleType::Always;
    }
    let g = globs(h);
    if !g.is_empty() {
        return RuleType::AutoAttached(g);
    }
    if h.scalar("description")
        .is_some_and(|d| !d.trim().is_empty())
    {
        return RuleType::AgentRequested;
    }
    RuleType::Manual
}

/// CU5: `true` when a glob matches `rel` (relative to the rule's base, `/` separators).
#[must_use]
pub fn glob_matches(piece: &str, rel: &str) -> bool {
    glob(piece, false).is_some_and(|m| matcher_matches(&m, piece, rel))
}

/// [`glob_matches`] with the glob compiled once.
#[must_use]
pub fn matcher_matches(m: &globset::GlobMatcher, piece: &str, rel: &str) -> bool {
    if m.is_match(rel) {
        return true;
    }
    let name = rel.rsplit('/').next().unwrap_or(rel);
    !piece.contains('/') && m.is_match(name)
}

/// The rule files of one `.cursor/rules` folder, in byte order of path, with `.md` files apart.
#[must_use]
pub fn rule_files(
    fs: &dyn alisio_base::workspace::Fs,
    folder: &Path,
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files: Vec<PathBuf> = files_below(fs, folder, MAX_DEPTH - 1)
        .into_iter()
        .filter(|(_, d)| *d < MAX_DEPTH)
        .map(|(p, _)| p)
        .collect();
    files.sort();
    let ext = |p: &Path, e: &str| p.extension().is_some_and(|x| x == e);
    let md = files.iter().filter(|p| ext(p, "md")).cloned().collect();
    files.retain(|p| ext(p, "mdc"));
    (files, md)
}

/// The cursor list for a normalised `target` whose target directory is `dir` (spec/hosts.md §4).
#[must_use]
pub fn list(setup: &Setup<'_>, reader: &Reader<'_>, target: &Path, dir: &Path) -> HostList {
    let fs = setup.fs;
    let root = setup.root;
    let mut out = HostList::default();
    let chain = chain_dirs(root, dir);
    let is_file = target != dir;
    // CU6: AGENTS.md, root first.
    for d in &chain {
        let p = d.join("AGENTS.md");
        if exact_file(fs, &p) {
            let delivery = if d == root {
                DeliveryMode::Always
            } else {
                DeliveryMode::Attached
            };
            match read_entry(reader, &p, FileScope::Project, FileKind::Agents, delivery) {
                Ok(e) => out.files.push(e),
                Err(n) => out.not_loaded.push(n),
            }
        }
    }
    // CU7: the legacy file.
    for d in &chain {
        let p = d.join(".cursorrules");
        if !exact_file(fs, &p) {
            continue;
        }
        if d == root {
            match read_entry(
                reader,
                &p,
                FileScope::Project,
                FileKind::Cursorrules,
                DeliveryMode::Always,
            ) {
                Ok(e) => out.files.push(e),
                Err(n) => out.not_loaded.push(n),
            }
        } else {
            out.not(&p, "only the workspace root's .cursorrules is read");
        }
    }
    // CU2, CU4: rules of every rules folder on the chain.
    for d in &chain {
        let (rules, md) = rule_files(fs, &d.join(".cursor").join("rules"));
        for p in md {
            out.not(&p, "Cursor reads only .mdc files in .cursor/rules");
        }
        let rel = target
            .strip_prefix(d)
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        for p in rules {
            let mut e = match read_entry(
                reader,
                &p,
                FileScope::Project,
                FileKind::CursorRule,
                DeliveryMode::Always,
            ) {
                Ok(e) => e,
                Err(n) => {
                    out.not_loaded.push(n);
                    continue;
                }
            };
            let h = header(&e.file.text);
            if h.present && !h.closed {
                out.not(&p, "frontmatter is not closed");
                continue;
            }
            e.delivery = match rule_type(&h) {
                RuleType::Always if d == root => DeliveryMode::Always,
                RuleType::Always => DeliveryMode::Attached,
                RuleType::AutoAttached(g) => {
                    if is_file && g.iter().any(|piece| glob_matches(piece, &rel)) {
                        DeliveryMode::Attached
                    } else {
                        let reason = format!(
                            "globs \"{}\" do not match {}",
                            g.join(", "),
                            display_path(target, root)
                        );
                        out.not(&p, reason);
                        continue;
                    }
                }
                RuleType::AgentRequested => DeliveryMode::AgentRequested,
                RuleType::Manual => DeliveryMode::Manual,
            };
            out.files.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_rule_types() {
        let t = |s: &str| rule_type(&header(s));
        assert_eq!(
            t("---\nalwaysApply: true\nglobs: src/**\n---\n"),
            RuleType::Always
        );
        assert_eq!(
            t("---\nalwaysApply: \"true\"\nglobs: **/*.ts, **/*.tsx\n---\n"),
            RuleType::AutoAttached(vec!["**/*.ts".into(), "**/*.tsx".into()])
        );
        assert_eq!(
            t("---\nglobs:\n  - a/**\n  - \"b/*.rs\"\n---\n"),
            RuleType::AutoAttached(vec!["a/**".into(), "b/*.rs".into()])
        );
        assert_eq!(
            t("---\ndescription: DB rules\n---\n"),
            RuleType::AgentRequested
        );
        assert_eq!(t("---\nalwaysApply: false\n---\nbody"), RuleType::Manual);
        assert_eq!(t("no header"), RuleType::Manual);
    }

    #[test]
    fn globs_are_relative_and_bare_names_match_at_any_depth() {
        assert!(glob_matches("src/**", "src/a/b.ts"));
        assert!(!glob_matches("src/*.ts", "src/a/b.ts"));
        assert!(glob_matches("*.tsx", "web/ui/x.tsx"));
        assert!(!glob_matches("*.TSX", "web/ui/x.tsx"));
    }
}
