//! Line hunks between two texts (spec/sessions.md §4.4 "Review before a write"): the hunks an
//! approval's preview offers for accepting or rejecting one by one, the text that results from
//! a choice of them, and the unified diff the model is told when the user changed its proposal.
//!
//! A hunk is a maximal run of changed lines (no context lines merge two runs), so every change
//! the editor's diff shows as a block can be taken or left alone. Lines keep their terminators
//! (`\n`, `\r\n`), so applying every hunk gives `after` byte for byte and applying none gives
//! `before`. The diff is a longest common subsequence of lines after the common prefix and
//! suffix are set aside; when the changed middle of both sides is larger than
//! [`MAX_CELLS`] line pairs it is one hunk (a correct diff, not a minimal one).

use serde::{Deserialize, Serialize};

/// The largest changed middle (lines before × lines after) diffed line by line.
pub const MAX_CELLS: usize = 4_000_000;

/// One hunk: `old_lines` lines of `before` from line `old_start` (0-based) replaced by
/// `new_lines` lines of `after` from line `new_start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hunk {
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
}

/// The lines of `text`, each with its terminator.
#[must_use]
pub fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The hunks that turn `before` into `after`, in order.
#[must_use]
pub fn hunks(before: &str, after: &str) -> Vec<Hunk> {
    let (a, b) = (lines(before), lines(after));
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    if am.is_empty() && bm.is_empty() {
        return Vec::new();
    }
    if am.len().saturating_mul(bm.len()) > MAX_CELLS || am.is_empty() || bm.is_empty() {
        return vec![Hunk {
            old_start: pre,
            old_lines: am.len(),
            new_start: pre,
            new_lines: bm.len(),
        }];
    }
    let same = lcs_pairs(am, bm);
    let mut out = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    for (x, y) in same
        .into_iter()
        .chain(std::iter::once((am.len(), bm.len())))
    {
        if x > i || y > j {
            out.push(Hunk {
                old_start: pre + i,
                old_lines: x - i,
                new_start: pre + j,
                new_lines: y - j,
            });
        }
        (i, j) = (x + 1, y + 1);
    }
    out
}

/// The matching line pairs of a longest common subsequence, in order.
fn lcs_pairs(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    // t[i][j]: LCS length of a[i..] and b[j..].
    let w = m + 1;
    let mut t = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * w + j] = if a[i] == b[j] {
                t[(i + 1) * w + j + 1] + 1
            } else {
                t[(i + 1) * w + j].max(t[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if t[(i + 1) * w + j] >= t[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// A review that does not decide every hunk of the change: one flag per hunk is needed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the change has {hunks} hunks, the reply decides {decided}")]
pub struct HunkCountMismatch {
    pub hunks: usize,
    pub decided: usize,
}

/// `before` with the hunks marked `true` in `accept` taken from `after` (one flag per hunk of
/// [`hunks`]`(before, after)`, in order).
///
/// # Errors
/// When `accept` does not have one flag per hunk.
pub fn apply(before: &str, after: &str, accept: &[bool]) -> Result<String, HunkCountMismatch> {
    let hs = hunks(before, after);
    if hs.len() != accept.len() {
        return Err(HunkCountMismatch {
            hunks: hs.len(),
            decided: accept.len(),
        });
    }
    let (a, b) = (lines(before), lines(after));
    let mut out = String::with_capacity(before.len().max(after.len()));
    let mut i = 0;
    for (h, ok) in hs.iter().zip(accept) {
        out.extend(a[i..h.old_start].iter().copied());
        if *ok {
            out.extend(b[h.new_start..h.new_start + h.new_lines].iter().copied());
        } else {
            out.extend(a[h.old_start..h.old_start + h.old_lines].iter().copied());
        }
        i = h.old_start + h.old_lines;
    }
    out.extend(a[i..].iter().copied());
    Ok(out)
}

/// A unified diff of `from` → `to` with three lines of context (`--- <from_name>`,
/// `+++ <to_name>`, `@@ -a,b +c,d @@`; a last line without a newline is followed by
/// `\ No newline at end of file`). Empty when the texts are equal.
#[must_use]
pub fn unified(from: &str, to: &str, from_name: &str, to_name: &str) -> String {
    const CTX: usize = 3;
    let hs = hunks(from, to);
    if hs.is_empty() {
        return String::new();
    }
    let (a, b) = (lines(from), lines(to));
    let mut out = format!("--- {from_name}\n+++ {to_name}\n");
    let mut k = 0;
    while k < hs.len() {
        // Hunks closer than two contexts share one block.
        let mut end = k;
        while end + 1 < hs.len()
            && hs[end + 1].old_start - (hs[end].old_start + hs[end].old_lines) <= 2 * CTX
        {
            end += 1;
        }
        let first = hs[k];
        let last = hs[end];
        let o0 = first.old_start.saturating_sub(CTX);
        let o1 = (last.old_start + last.old_lines + CTX).min(a.len());
        let n0 = first.new_start - (first.old_start - o0);
        let n1 = o1 - (last.old_start + last.old_lines) + last.new_start + last.new_lines;
        let range = |start: usize, len: usize| {
            if len == 0 {
                format!("{start},0")
            } else {
                format!("{},{len}", start + 1)
            }
        };
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(o0, o1 - o0),
            range(n0, n1 - n0)
        ));
        let mut i = o0;
        for h in &hs[k..=end] {
            for l in &a[i..h.old_start] {
                push_line(&mut out, ' ', l);
            }
            for l in &a[h.old_start..h.old_start + h.old_lines] {
                push_line(&mut out, '-', l);
            }
            for l in &b[h.new_start..h.new_start + h.new_lines] {
                push_line(&mut out, '+', l);
            }
            i = h.old_start + h.old_lines;
        }
        for l in &a[i..o1] {
            push_line(&mut out, ' ', l);
        }
        k = end + 1;
    }
    out
}

fn push_line(out: &mut String, mark: char, line: &str) {
    out.push(mark);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_runs_of_changed_lines_and_every_choice_gives_its_text() {
        let before = "a\nb\nc\nd\ne\n";
        let after = "a\nB\nc\nd\nE\nf\n";
        let hs = hunks(before, after);
        assert_eq!(
            hs,
            vec![
                Hunk {
                    old_start: 1,
                    old_lines: 1,
                    new_start: 1,
                    new_lines: 1
                },
                Hunk {
                    old_start: 4,
                    old_lines: 1,
                    new_start: 4,
                    new_lines: 2
                },
            ]
        );
        assert_eq!(apply(before, after, &[true, true]).unwrap(), after);
        assert_eq!(apply(before, after, &[false, false]).unwrap(), before);
        assert_eq!(
            apply(before, after, &[false, true]).unwrap(),
            "a\nb\nc\nd\nE\nf\n"
        );
        assert_eq!(
            apply(before, after, &[true, false]).unwrap(),
            "a\nB\nc\nd\ne\n"
        );
        let e = apply(before, after, &[true]).unwrap_err();
        assert_eq!(
            e,
            HunkCountMismatch {
                hunks: 2,
                decided: 1
            }
        );
        assert_eq!(e.to_string(), "the change has 2 hunks, the reply decides 1");
    }

    #[test]
    fn insertions_deletions_crlf_and_a_missing_final_newline_are_hunks_too() {
        assert_eq!(
            hunks("", "x\n"),
            vec![Hunk {
                old_start: 0,
                old_lines: 0,
                new_start: 0,
                new_lines: 1
            }]
        );
        assert_eq!(
            hunks("a\nb\n", "a\n"),
            vec![Hunk {
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 0
            }]
        );
        assert_eq!(hunks("a\r\nb\r\n", "a\r\nb\r\n"), vec![]);
        assert_eq!(
            hunks("a\nb", "a\nb\n"),
            vec![Hunk {
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 1
            }]
        );
        assert_eq!(apply("a\nb", "a\nb\n", &[false]).unwrap(), "a\nb");
    }

    #[test]
    fn the_unified_diff_has_context_and_merges_close_hunks() {
        let from = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
        let to = "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve";
        assert_eq!(
            unified(from, to, "proposed/a.txt", "written/a.txt"),
            "--- proposed/a.txt\n+++ written/a.txt\n\
             @@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n\
             @@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n\\ No newline at end of file\n"
        );
        let to2 = "1\n2\nthree\n4\n5\n6\n7\neight\n9\n10\n11\n12\n";
        assert_eq!(
            unified(from, to2, "a", "b"),
            "--- a\n+++ b\n@@ -1,11 +1,11 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n 11\n"
        );
        assert_eq!(unified("x\n", "x\n", "a", "b"), "");
        assert_eq!(
            unified("", "new\n", "a", "b"),
            "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+new\n"
        );
    }

    #[test]
    fn a_middle_too_large_to_diff_is_one_hunk() {
        let before: String = (0..2100).map(|i| format!("a{i}\n")).collect();
        let after: String = (0..2100).map(|i| format!("b{i}\n")).collect();
        assert_eq!(
            hunks(&before, &after),
            vec![Hunk {
                old_start: 0,
                old_lines: 2100,
                new_start: 0,
                new_lines: 2100
            }]
        );
        assert_eq!(apply(&before, &after, &[true]).unwrap(), after);
    }
}
