//! Nested files attached lazily in sessions (spec/instructions.md §2.8 steps 2–3), as pure computation: which chain
//! winners of the touched paths qualify, and the `<instructions>` attachment text. Sessions
//! (a later module) decide where the text goes and record the attach map.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::read::Reader;
use super::{Setup, chain};
use alisio_base::text::sha256_hex;
use alisio_base::workspace::{display_path, is_inside};

/// One file to deliver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attached {
    pub path: PathBuf,
    /// Workspace-relative label with `/` separators.
    pub label: String,
    /// The text after spec/instructions.md §2.5 (per-file cut included).
    pub text: String,
    /// Lower-case hex SHA-256 of `text`, for the attach map.
    pub sha256: String,
}

/// spec/instructions.md §2.8 step 2: the chain winners of `paths` (already normalised, in collection order) that are
/// neither in `base` (the global file and the cwd's chain) nor already delivered with the same
/// text (`sent`: file → SHA-256 hex). Empty files never qualify; each file appears once, in
/// chain order per path. Paths outside the workspace are ignored.
#[must_use]
pub fn qualifying(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    base: &[PathBuf],
    sent: &HashMap<PathBuf, String>,
    paths: &[PathBuf],
) -> Vec<Attached> {
    let mut out: Vec<Attached> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for p in paths {
        if !is_inside(p, setup.root) {
            continue;
        }
        let dir = chain::target_dir(setup.fs, setup.root, p, false);
        let Ok((files, _)) = chain::chain_alisio(setup, reader, &dir) else {
            continue;
        };
        for f in files {
            if f.file.empty
                || f.file.error.is_some()
                || base.contains(&f.path)
                || !seen.insert(f.path.clone())
            {
                continue;
            }
            let sha = sha256_hex(&f.file.text);
            if sent.get(&f.path) == Some(&sha) {
                continue;
            }
            out.push(Attached {
                label: display_path(&f.path, setup.root),
                text: f.file.text.clone(),
                sha256: sha,
                path: f.path,
            });
        }
    }
    out
}

/// spec/instructions.md §2.8 step 3: the attachment text, or `None` when nothing qualifies.
#[must_use]
pub fn attachment(files: &[Attached]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let body: Vec<String> = files
        .iter()
        .map(|f| format!("Instructions from: {}\n{}", f.label, f.text))
        .collect();
    Some(format!(
        "<instructions>\n{}\n</instructions>",
        body.join("\n\n")
    ))
}

/// The base set of a session at `cwd`: the global file and the chain of the cwd.
#[must_use]
pub fn base_set(setup: &Setup<'_>, reader: &Reader<'_>, cwd: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = chain::global_alisio(setup, reader)
        .map(|g| g.path)
        .into_iter()
        .collect();
    if let Ok((files, _)) = chain::chain_alisio(setup, reader, cwd) {
        v.extend(files.into_iter().map(|f| f.path));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::config::{Host, Settings};
    use alisio_base::workspace::{DiskFs, Env};

    fn ws() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        std::fs::create_dir(ws.join(".git")).unwrap();
        (t, ws)
    }

    fn with<R>(root: &Path, f: impl FnOnce(&Setup<'_>, &Reader<'_>) -> R) -> R {
        let env = Env::default();
        let s = Settings::default();
        let setup = Setup::for_test(&DiskFs, &env, root, &s, Host::Alisio);
        f(&setup, &Reader::new(&DiskFs))
    }

    #[test]
    fn case_40_attached_once_then_again_after_an_edit() {
        let (_t, root) = ws();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/AGENTS.md"), "sub rules").unwrap();
        let mut sent = HashMap::new();
        let base = with(&root, |s, r| base_set(s, r, &root));
        let got = with(&root, |s, r| {
            qualifying(s, r, &base, &sent, &[root.join("sub/a.txt")])
        });
        assert_eq!(
            attachment(&got).unwrap(),
            "<instructions>\nInstructions from: sub/AGENTS.md\nsub rules\n</instructions>"
        );
        for a in &got {
            sent.insert(a.path.clone(), a.sha256.clone());
        }
        let again = with(&root, |s, r| {
            qualifying(s, r, &base, &sent, &[root.join("sub/b.txt")])
        });
        assert!(again.is_empty());
        assert_eq!(attachment(&again), None);
        std::fs::write(root.join("sub/AGENTS.md"), "new rules").unwrap();
        let third = with(&root, |s, r| {
            qualifying(s, r, &base, &sent, &[root.join("sub/c.txt")])
        });
        assert_eq!(third.len(), 1);
        assert_eq!(third[0].text, "new rules");
    }

    #[test]
    fn case_42_another_session_sees_nothing_until_it_touches_the_directory() {
        let (_t, root) = ws();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/AGENTS.md"), "sub rules").unwrap();
        std::fs::write(root.join("AGENTS.md"), "root").unwrap();
        let base = with(&root, |s, r| base_set(s, r, &root));
        let sent = HashMap::new();
        assert!(
            with(&root, |s, r| qualifying(
                s,
                r,
                &base,
                &sent,
                &[root.join("other.txt")]
            ))
            .is_empty()
        );
        let got = with(&root, |s, r| {
            qualifying(
                s,
                r,
                &base,
                &sent,
                &[root.join("sub/b"), root.join("sub/a")],
            )
        });
        assert_eq!(
            got.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(),
            ["sub/AGENTS.md"]
        );
    }

    #[test]
    fn case_43_sibling_directories_attach_too_and_outside_paths_are_ignored() {
        let (t, root) = ws();
        for d in ["app", "lib"] {
            std::fs::create_dir(root.join(d)).unwrap();
            std::fs::write(root.join(d).join("AGENTS.md"), format!("{d} rules")).unwrap();
        }
        let base = with(&root, |s, r| base_set(s, r, &root.join("app")));
        let sent = HashMap::new();
        let outside = t.path().join("..").join("x");
        let got = with(&root, |s, r| {
            qualifying(
                s,
                r,
                &base,
                &sent,
                &[root.join("app/y"), root.join("lib/x"), outside],
            )
        });
        assert_eq!(
            got.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(),
            ["lib/AGENTS.md"]
        );
    }

    #[test]
    fn empty_files_never_qualify() {
        let (_t, root) = ws();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/AGENTS.md"), " \n").unwrap();
        let got = with(&root, |s, r| {
            qualifying(s, r, &[], &HashMap::new(), &[root.join("sub/x")])
        });
        assert!(got.is_empty());
    }
}
