//! The total budget: host `alisio` keeps the closest files and cuts the farthest from its
//! beginning (spec/instructions.md §2.6); host `codex` spends the budget root first and cuts the deepest file's end
//! (spec/instructions.md §3). Both work on the `bytes` of already-resolved entries and fill in `keptBytes`,
//! `truncation`, `omittedBytes` and the notice.

use super::{ListedFile, Truncation};
use alisio_base::text::ceil_boundary;

/// The exact notice line of spec/instructions.md §2.6.
#[must_use]
pub fn notice(omitted: u64, max_bytes: u32) -> String {
    format!(
        "[truncated: {omitted} bytes of farther instruction files omitted to stay within {max_bytes} bytes; closest files kept]"
    )
}

/// spec/instructions.md §2.6 over L (root first). Returns `(omittedBytes, notice)`.
pub fn apply_alisio(files: &mut [ListedFile], max_bytes: u32) -> (u64, Option<String>) {
    let mut remaining = max_bytes as usize;
    let mut omitted: u64 = 0;
    for f in files.iter_mut().rev() {
        let s = f.bytes;
        if s == 0 {
            f.kept_bytes = 0;
            f.truncation = Truncation::None;
            continue;
        }
        if remaining == 0 {
            f.kept_bytes = 0;
            f.truncation = Truncation::Dropped;
            omitted += s as u64;
            continue;
        }
        if s <= remaining {
            f.kept_bytes = s;
            f.truncation = Truncation::None;
            remaining -= s;
            continue;
        }
        let start = ceil_boundary(f.file.text.as_bytes(), s - remaining);
        f.kept_bytes = s - start;
        f.truncation = Truncation::Beginning;
        omitted += start as u64;
        remaining = 0;
    }
    (omitted, (omitted > 0).then(|| notice(omitted, max_bytes)))
}

/// spec/instructions.md §3 over the codex list (root first; the global file has `charged == false`). Returns
/// `(omittedBytes, None)`: Codex shows no notice.
pub fn apply_codex(files: &mut [ListedFile], max_bytes: u64) -> (u64, Option<String>) {
    let mut remaining = max_bytes;
    let mut omitted = 0u64;
    for f in files.iter_mut() {
        if !f.charged || f.bytes == 0 {
            f.kept_bytes = f.bytes;
            f.truncation = Truncation::None;
            continue;
        }
        let s = f.bytes as u64;
        if remaining == 0 {
            f.kept_bytes = 0;
            f.truncation = Truncation::Dropped;
            omitted += s;
        } else if s <= remaining {
            f.kept_bytes = f.bytes;
            f.truncation = Truncation::None;
            remaining -= s;
        } else {
            let cut = usize::try_from(remaining).unwrap_or(usize::MAX);
            f.kept_bytes = cut;
            f.truncation = Truncation::End;
            omitted += s - remaining;
            // Codex 0.171.0 skips a cut whose kept bytes are only whitespace, and does not
            // charge it: the next file gets the same budget (spec/instructions.md §3).
            let kept = String::from_utf8_lossy(&f.file.raw[..cut.min(f.file.raw.len())]);
            if kept.trim().is_empty() {
                omitted += remaining;
            } else {
                remaining = 0;
            }
        }
    }
    (omitted, None)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::instructions::{FileKind, FileScope, FileText};

    fn entry(text: &str) -> ListedFile {
        let ft = FileText {
            text: text.to_string(),
            raw: text.as_bytes().to_vec(),
            empty: super::super::read::is_blank(text),
            ..FileText::default()
        };
        ListedFile::new(
            PathBuf::from("/x"),
            FileScope::Project,
            FileKind::Agents,
            Arc::new(ft),
        )
    }

    fn shape(files: &[ListedFile]) -> Vec<(usize, usize, &'static str)> {
        files
            .iter()
            .map(|f| (f.bytes, f.kept_bytes, f.truncation.as_str()))
            .collect()
    }

    #[test]
    fn interfaces_example_cuts_the_root_and_drops_the_global_file() {
        let mut l = vec![
            entry(&"g".repeat(900)),
            entry(&"r".repeat(30000)),
            entry(&"o".repeat(10000)),
        ];
        let (omitted, n) = apply_alisio(&mut l, 32768);
        assert_eq!(
            shape(&l),
            [
                (900, 0, "dropped"),
                (30000, 22768, "beginning"),
                (10000, 10000, "none")
            ]
        );
        assert_eq!(omitted, 8132);
        assert_eq!(
            n.unwrap(),
            "[truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]"
        );
    }

    #[test]
    fn cut_inside_a_character_advances_to_the_next_boundary() {
        let mut l = vec![
            entry(&format!("😀{}", "a".repeat(22))),
            entry(&"s".repeat(1000)),
        ];
        let (omitted, _) = apply_alisio(&mut l, 1024);
        assert_eq!(shape(&l)[0], (26, 22, "beginning"));
        assert_eq!(omitted, 4);
        assert_eq!(l[0].kept_text(), "a".repeat(22));
    }

    #[test]
    fn exact_fit_drops_every_farther_file_without_a_partial_block() {
        let mut l = vec![entry(&"a".repeat(100)), entry(&"b".repeat(32768))];
        let (omitted, _) = apply_alisio(&mut l, 32768);
        assert_eq!(shape(&l), [(100, 0, "dropped"), (32768, 32768, "none")]);
        assert_eq!(omitted, 100);
    }

    #[test]
    fn empty_files_neither_consume_nor_lose_budget() {
        let mut l = vec![entry(" \n"), entry(&"a".repeat(2000)), entry("")];
        let (omitted, _) = apply_alisio(&mut l, 1024);
        assert_eq!(
            shape(&l),
            [(0, 0, "none"), (2000, 1024, "beginning"), (0, 0, "none")]
        );
        assert_eq!(omitted, 976);
    }

    #[test]
    fn codex_spends_root_first_and_cuts_the_deepest_end() {
        let mut g = entry(&"g".repeat(40000));
        g.charged = false;
        let mut l = vec![
            g,
            entry(&"a".repeat(30000)),
            entry(&"b".repeat(10000)),
            entry(&"c".repeat(10)),
        ];
        let (omitted, n) = apply_codex(&mut l, 32768);
        assert_eq!(
            shape(&l),
            [
                (40000, 40000, "none"),
                (30000, 30000, "none"),
                (10000, 2768, "end"),
                (10, 0, "dropped")
            ]
        );
        assert_eq!((omitted, n), (7232 + 10, None));
    }

    #[test]
    fn codex_zero_budget_drops_every_project_file() {
        let mut l = vec![entry("abc")];
        apply_codex(&mut l, 0);
        assert_eq!(shape(&l), [(3, 0, "dropped")]);
    }

    #[test]
    fn codex_cut_keeping_only_whitespace_is_not_charged() {
        // Measured on Codex 0.171.0 (tests/real codex::blank_prefix_after_a_cut_is_not_delivered).
        let mut l = vec![entry("    text after spaces\n"), entry("abcdefgh\n")];
        let (omitted, _) = apply_codex(&mut l, 4);
        assert_eq!(shape(&l), [(22, 4, "end"), (9, 4, "end")]);
        assert_eq!(omitted, 22 + 5);
    }
}
