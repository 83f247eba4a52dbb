//! Workspace confinement of path arguments (spec/sessions.md §3.2).

use std::path::{Component, Path, PathBuf};

use alisio_base::workspace::{display_path, is_inside, normalize_lexically};

/// Where tools may act.
#[derive(Clone, Debug, Default)]
pub struct Roots {
    /// Canonical workspace root.
    pub root: PathBuf,
    /// Canonical approved external directories.
    pub external: Vec<PathBuf>,
}

/// A confined path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confined {
    /// Lexically normalised absolute path (what the model named).
    pub lexical: PathBuf,
    /// Canonical existing prefix plus the rest.
    pub real: PathBuf,
    /// Shown to the model: workspace-relative with `/`, absolute outside.
    pub shown: String,
}

/// Why a path was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Outside by lexical position (an `external` approval could admit its directory).
    Outside(String, PathBuf),
    Escape(String),
}

impl Refusal {
    #[must_use]
    pub fn message(&self) -> String {
        match self {
            Self::Outside(p, _) => format!("Path is outside the workspace: {p}"),
            Self::Escape(p) => format!("Path escapes the workspace through a symlink: {p}"),
        }
    }
}

/// Why a writer refused a confined path (spec/sessions.md §3.2 step 4).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteRefusal {
    #[error("Refusing to write through a symlink: {0}")]
    Symlink(String),
    #[error("Refusing to write inside .git: {0}")]
    InsideGit(String),
}

/// Symlinks followed at most (as the kernel's `ELOOP` limit) before a link counts as missing.
const MAX_HOPS: u32 = 40;

/// The canonical form of the longest existing prefix, with the rest re-appended. Resolved one
/// component at a time as the kernel does: a symlink's target is spliced in unnormalised, so a
/// `..` after a symlinked component climbs from where that symlink points, and a dangling
/// symlink is followed, so the result names where a write through it would land. What follows
/// the first missing component is normalised lexically: it would be created as plain
/// directories.
#[must_use]
pub fn realpath_prefix(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let owned = |c: Component<'_>| c.as_os_str().to_os_string();
    // Components still to resolve, as owned strings (link targets are spliced in front).
    let mut pending: std::collections::VecDeque<std::ffi::OsString> =
        p.components().map(owned).collect();
    let mut out = PathBuf::new();
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        let Some(c) = Path::new(&part).components().next() else {
            continue;
        };
        match c {
            Component::Prefix(_) | Component::RootDir => out.push(&part),
            Component::CurDir => {}
            // `out` has no symlink in it, so its lexical parent is its physical parent.
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                let next = out.join(name);
                let meta = std::fs::symlink_metadata(&next);
                let target = meta
                    .as_ref()
                    .ok()
                    .filter(|m| m.file_type().is_symlink())
                    .and_then(|_| std::fs::read_link(&next).ok());
                match target {
                    Some(t) if hops < MAX_HOPS => {
                        hops += 1;
                        for tc in t.components().rev() {
                            pending.push_front(owned(tc));
                        }
                    }
                    _ if meta.is_ok() => out = next,
                    _ => {
                        out = next;
                        for r in pending {
                            out.push(r);
                        }
                        return normalize_lexically(&out);
                    }
                }
            }
        }
    }
    out
}

impl Roots {
    fn allowed(&self, real: &Path) -> bool {
        is_inside(real, &self.root) || self.external.iter().any(|d| is_inside(real, d))
    }

    /// Shown form of an absolute path.
    #[must_use]
    pub fn show(&self, p: &Path) -> String {
        let s = display_path(p, &self.root);
        if s.is_empty() { ".".into() } else { s }
    }

    /// Confines one path argument (steps 1–3).
    ///
    /// # Errors
    /// The refusal, with the path as shown.
    pub fn confine(&self, raw: &str) -> Result<Confined, Refusal> {
        let p = Path::new(raw);
        let joined = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        };
        let lexical = normalize_lexically(&joined);
        let real = realpath_prefix(&lexical);
        let shown = self.show(&lexical);
        let lex_inside = is_inside(&lexical, &self.root);
        if self.allowed(&real) {
            return Ok(Confined {
                lexical,
                real,
                shown,
            });
        }
        if lex_inside {
            return Err(Refusal::Escape(shown));
        }
        let dir = if real.is_dir() {
            real.clone()
        } else {
            real.parent()
                .map_or_else(|| real.clone(), Path::to_path_buf)
        };
        Err(Refusal::Outside(shown, dir))
    }

    /// The extra refusals of writers (step 4).
    ///
    /// # Errors
    /// `Refusing to write through a symlink` / `Refusing to write inside .git`.
    pub fn check_writable(&self, c: &Confined) -> Result<(), WriteRefusal> {
        if std::fs::symlink_metadata(&c.lexical).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(WriteRefusal::Symlink(c.shown.clone()));
        }
        for base in [&c.lexical, &c.real] {
            if let Ok(rel) = base.strip_prefix(&self.root)
                && let Some(Component::Normal(first)) = rel.components().next()
                && first == ".git"
            {
                return Err(WriteRefusal::InsideGit(c.shown.clone()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Roots) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        (
            d,
            Roots {
                root,
                external: vec![],
            },
        )
    }

    #[test]
    fn dot_dot_outside_is_refused_and_inside_is_allowed() {
        let (_d, r) = setup();
        let e = r.confine("../outside.txt").unwrap_err();
        assert_eq!(
            e.message(),
            format!(
                "Path is outside the workspace: {}",
                r.root.parent().unwrap().join("outside.txt").display()
            )
        );
        let ok = r.confine("a/../b.txt").unwrap();
        assert_eq!(ok.shown, "b.txt");
    }

    #[cfg(unix)]
    #[test]
    fn symlink_escape_is_refused_unless_the_target_is_approved() {
        let (d, mut r) = setup();
        let out = d.path().canonicalize().unwrap().join("out");
        std::fs::create_dir_all(&out).unwrap();
        std::os::unix::fs::symlink(&out, r.root.join("link")).unwrap();
        assert_eq!(
            r.confine("link/x").unwrap_err().message(),
            "Path escapes the workspace through a symlink: link/x"
        );
        r.external.push(out);
        assert!(r.confine("link/x").is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_symlink_to_a_missing_outside_path_is_an_escape() {
        let (d, r) = setup();
        let out = d.path().canonicalize().unwrap().join("out");
        std::os::unix::fs::symlink(out.join("new.txt"), r.root.join("dl")).unwrap();
        std::os::unix::fs::symlink("../out/dir", r.root.join("dd")).unwrap();
        assert_eq!(realpath_prefix(&r.root.join("dd/x")), out.join("dir/x"));
        assert_eq!(
            r.confine("dl").unwrap_err().message(),
            "Path escapes the workspace through a symlink: dl"
        );
        assert_eq!(
            r.confine("dd/x").unwrap_err().message(),
            "Path escapes the workspace through a symlink: dd/x"
        );
        std::os::unix::fs::symlink("loop", r.root.join("loop")).unwrap();
        assert_eq!(r.confine("loop").unwrap().real, r.root.join("loop"));
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_symlink_climbs_with_dot_dot_from_where_its_symlinked_component_points() {
        let (d, r) = setup();
        let doc = d.path().canonicalize().unwrap().join("out/doc");
        std::fs::create_dir_all(&doc).unwrap();
        std::fs::create_dir_all(r.root.join(".alisio")).unwrap();
        std::os::unix::fs::symlink(&doc, r.root.join("sub")).unwrap();
        std::os::unix::fs::symlink("sub/../.alisio", r.root.join("dd")).unwrap();
        std::os::unix::fs::symlink("./sub/./../new/../doc/x", r.root.join("dx")).unwrap();
        // Where the kernel resolves them: `sub/..` is `out`, not the workspace.
        assert_eq!(
            realpath_prefix(&r.root.join("dd/config.json")),
            doc.parent().unwrap().join(".alisio/config.json")
        );
        assert_eq!(realpath_prefix(&r.root.join("dx")), doc.join("x"));
        assert_eq!(
            r.confine("dd/config.json").unwrap_err().message(),
            "Path escapes the workspace through a symlink: dd/config.json"
        );
        assert_eq!(
            r.confine("dx").unwrap_err().message(),
            "Path escapes the workspace through a symlink: dx"
        );
        // The same target through a plain directory stays inside.
        std::fs::create_dir_all(r.root.join("plain")).unwrap();
        std::os::unix::fs::symlink("plain/../.alisio", r.root.join("ok")).unwrap();
        assert_eq!(
            r.confine("ok/config.json").unwrap().real,
            r.root.join(".alisio/config.json")
        );
    }

    #[test]
    fn writes_inside_dot_git_are_refused() {
        let (_d, r) = setup();
        let c = r.confine(".git/config").unwrap();
        assert_eq!(
            r.check_writable(&c).unwrap_err().to_string(),
            "Refusing to write inside .git: .git/config"
        );
    }
}
