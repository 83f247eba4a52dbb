//! `instructions-local-not-ignored` (spec/instructions.md §5.5): a `CLAUDE.local.md` in a git
//! workspace that git does not ignore. Claude Code reads it as the user's private project
//! notes; committed, it reaches everyone else's sessions too.

use std::path::{Path, PathBuf};

use alisio_base::workspace::FileType;
use alisio_base::workspace::Fs;
use alisio_base::workspace::walk::{DirSet, git_ignored};

/// Every `CLAUDE.local.md` of D that git would commit; nothing when `root` has no `.git`.
#[must_use]
pub fn not_ignored(fs: &dyn Fs, root: &Path, set: &DirSet, global: Option<&Path>) -> Vec<PathBuf> {
    if fs.symlink_metadata(&root.join(".git")).is_err() {
        return Vec::new();
    }
    set.dirs
        .iter()
        .flat_map(|d| {
            d.entries
                .iter()
                .filter(|e| e.name == "CLAUDE.local.md" && e.file_type == FileType::File)
                .map(|e| d.path.join(&e.name))
        })
        .filter(|p| !git_ignored(fs, root, p, global))
        .collect()
}

/// The message.
pub const MESSAGE: &str = "CLAUDE.local.md is not ignored by git: these personal notes would be committed and reach every other user's Claude Code sessions (add CLAUDE.local.md to .gitignore)";

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::workspace::DiskFs;
    use alisio_base::workspace::walk::walk;

    #[test]
    fn only_a_git_workspace_s_unignored_local_file_is_reported() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(root.join("CLAUDE.local.md"), "mine").unwrap();
        std::fs::write(root.join("pkg/CLAUDE.local.md"), "mine").unwrap();
        // Not a git repository: nothing would be committed.
        assert_eq!(
            not_ignored(&DiskFs, &root, &walk(&DiskFs, &root), None),
            Vec::<PathBuf>::new()
        );
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join("pkg/.gitignore"), "CLAUDE.local.md\n").unwrap();
        assert_eq!(
            not_ignored(&DiskFs, &root, &walk(&DiskFs, &root), None),
            [root.join("CLAUDE.local.md")]
        );
    }
}
