//! What the model receives from instruction files (spec/instructions.md §2.7): the header, the notice and one
//! `Source:` block per kept file. Sessions add the preamble before and the extras after.

use std::path::Path;

use super::{ListedFile, Truncation};
use alisio_base::workspace::display_path;

/// The fixed header of spec/instructions.md §2.7 item 2.
pub const HEADER: &str = "# Project instructions (AGENTS.md)\nThese instructions come from AGENTS.md files, listed from the global file and the repository root down to the current directory. When two files conflict, follow the closest one (the one listed last). Explicit requests from the user in this conversation take precedence over all of them. Instructions for subdirectories are added when you first touch a path below them.";

/// A file's label: workspace-relative with `/` separators, or absolute outside it.
#[must_use]
pub fn label(path: &Path, root: &Path) -> String {
    display_path(path, root)
}

/// The instruction section (header, notice, blocks) separated by blank lines; `None` when no
/// non-empty file is kept (then there is no header and nothing to add).
#[must_use]
pub fn section(files: &[ListedFile], notice: Option<&str>, root: &Path) -> Option<String> {
    let parts = section_parts(files, notice, root);
    if parts.is_empty() {
        return None;
    }
    Some(
        parts
            .into_iter()
            .map(|(_, t)| t)
            .collect::<Vec<_>>()
            .join("\n\n"),
    )
}

/// The section cut at its files (spec/governor.md §2.6): `(label, text)` per kept file, root first.
/// The first file's text begins with the header and the notice, so the texts joined by blank
/// lines are exactly [`section`]. Empty when no non-empty file is kept.
#[must_use]
pub fn section_parts(
    files: &[ListedFile],
    notice: Option<&str>,
    root: &Path,
) -> Vec<(String, String)> {
    let mut blocks: Vec<(String, String)> = files
        .iter()
        .filter(|f| f.kept_bytes > 0 && f.truncation != Truncation::Dropped && !f.file.empty)
        .map(|f| {
            let suffix = if f.truncation == Truncation::Beginning {
                " (beginning truncated)"
            } else {
                ""
            };
            let l = label(&f.path, root);
            let text = format!("Source: {l}{suffix}\n{}", f.kept_text());
            (l, text)
        })
        .collect();
    if let Some((_, first)) = blocks.first_mut() {
        let mut head = HEADER.to_string();
        if let Some(n) = notice {
            head.push_str("\n\n");
            head.push_str(n);
        }
        *first = format!("{head}\n\n{first}");
    }
    blocks
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::instructions::{FileKind, FileScope, FileText, budget};

    fn entry(path: &str, text: &str) -> ListedFile {
        let ft = FileText {
            text: text.to_string(),
            empty: crate::instructions::read::is_blank(text),
            ..FileText::default()
        };
        ListedFile::new(
            PathBuf::from(path),
            FileScope::Project,
            FileKind::Agents,
            Arc::new(ft),
        )
    }

    #[test]
    fn notice_precedes_blocks_and_cut_file_is_labelled() {
        let mut l = vec![
            entry("/home/u/.config/alisio/AGENTS.md", &"g".repeat(900)),
            entry("/ws/AGENTS.md", &"r".repeat(30000)),
            entry("/ws/src/AGENTS.override.md", "o"),
        ];
        l[2] = entry("/ws/src/AGENTS.override.md", &"o".repeat(10000));
        let (_, notice) = budget::apply_alisio(&mut l, 32768);
        let s = section(&l, notice.as_deref(), Path::new("/ws")).unwrap();
        let expected = format!(
            "{HEADER}\n\n[truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]\n\nSource: AGENTS.md (beginning truncated)\n{}\n\nSource: src/AGENTS.override.md\n{}",
            "r".repeat(22768),
            "o".repeat(10000)
        );
        assert_eq!(s, expected);
        assert!(!s.contains("alisio/AGENTS.md"));
    }

    #[test]
    fn empty_files_give_no_block_and_no_header() {
        let mut l = vec![entry("/ws/AGENTS.md", "  \n")];
        budget::apply_alisio(&mut l, 32768);
        assert_eq!(section(&l, None, Path::new("/ws")), None);
        let mut l = vec![
            entry("/g/AGENTS.md", "global"),
            entry("/ws/AGENTS.md", "\n"),
        ];
        budget::apply_alisio(&mut l, 32768);
        assert_eq!(
            section(&l, None, Path::new("/ws")).unwrap(),
            format!("{HEADER}\n\nSource: /g/AGENTS.md\nglobal")
        );
    }
}
