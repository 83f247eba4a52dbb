//! The offline lab over a workspace (spec/skills.md §10): the catalog each simulated host lists
//! from a vantage, the eval files beside the skills, and one result per host. Shared by
//! `skills test` and the editor's `alisio/testSkillTriggers`.

use std::path::{Path, PathBuf};

use super::{EVALS_FILE, Evals, HostResult, Listed};
use crate::skills::catalog::Input;
use crate::skills::listing::{self, HOSTS, settings::Overrides};
use alisio_base::config::Host;
use alisio_base::workspace::Fs;

/// The catalog each simulated host lists from `vantage`, for routing: its own entries left out,
/// dropped descriptions empty, files canonical.
#[must_use]
pub fn catalogs(
    fs: &dyn Fs,
    input: Input<'_>,
    vantage: &Path,
    o: &Overrides,
) -> Vec<(Host, Vec<Listed>)> {
    let mut out = Vec::new();
    for host in HOSTS {
        let Some((_, l)) = listing::for_host(fs, input, vantage, host, o) else {
            continue;
        };
        let cat: Vec<Listed> = l
            .items
            .iter()
            .filter(|i| !i.builtin && i.text().is_some())
            .map(|i| Listed {
                name: i.name.clone(),
                description: i.listed_description().to_string(),
                file: i
                    .file
                    .as_ref()
                    .map(|f| fs.canonicalize(f).unwrap_or_else(|_| f.clone())),
            })
            .collect();
        out.push((host, cat));
    }
    out
}

/// Every listed SKILL.md of `catalogs`, sorted, once.
#[must_use]
pub fn listed_files(catalogs: &[(Host, Vec<Listed>)]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = catalogs
        .iter()
        .flat_map(|(_, c)| c.iter().filter_map(|l| l.file.clone()))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Whether `skill` (a SKILL.md) has an eval file beside it.
#[must_use]
pub fn has_evals(fs: &dyn Fs, skill: &Path) -> bool {
    skill
        .parent()
        .is_some_and(|d| fs.metadata(&d.join(EVALS_FILE)).is_ok())
}

/// The eval file of `skill`, parsed; the error names the file through `show`.
///
/// # Errors
/// An unreadable or invalid eval file.
pub fn read_evals(
    fs: &dyn Fs,
    skill: &Path,
    show: &dyn Fn(&Path) -> String,
) -> Result<Evals, String> {
    let f = skill.parent().unwrap_or(Path::new(".")).join(EVALS_FILE);
    let bytes = fs.read(&f).map_err(|e| format!("{}: {e}", show(&f)))?;
    super::parse(skill, &String::from_utf8_lossy(&bytes)).map_err(|e| format!("{}: {e}", show(&f)))
}

/// One result per host for `skills` (SKILL.md files with eval files).
///
/// # Errors
/// An eval file that cannot be read or is invalid.
pub fn run_all(
    fs: &dyn Fs,
    catalogs: &[(Host, Vec<Listed>)],
    skills: &[PathBuf],
    show: &dyn Fn(&Path) -> String,
) -> Result<Vec<HostResult>, String> {
    let evals = skills
        .iter()
        .map(|s| read_evals(fs, s, show))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(catalogs
        .iter()
        .map(|(h, cat)| super::run(h.as_str(), cat, &evals))
        .collect())
}
