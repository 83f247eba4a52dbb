//! `check --fix`, `--unsafe-fixes`, `--diff` (spec/rules.md §4): the shown diagnostics' quick fixes,
//! chosen and applied by `alisio_rules::fix`, each file written once through the one atomic
//! writer. A file outside the workspace, a symlink, or a file under a symlinked directory is never
//! touched; neither is a file that is not UTF-8 or that changed while being fixed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use alisio_base::diagnostic::Diagnostic;
use alisio_base::workspace::write::{NewContent, ReplaceOutcome};
use alisio_base::workspace::{FileType, Fs as _};

use super::Ctx;

const BOM: &str = "\u{feff}";

/// What a fix run did.
#[derive(Debug, Default)]
pub struct FixOutcome {
    /// Files changed (or, with `--diff`, that would change), with the fixes applied.
    pub files: Vec<(PathBuf, Vec<String>)>,
    /// The unified diffs (`--diff`), in file order.
    pub diff: String,
    /// Files skipped, with why (printed as notes on stderr).
    pub skipped: Vec<(PathBuf, &'static str)>,
}

/// One hunk around the changed lines, 3 lines of context, as `diff -u` prints it.
#[must_use]
pub fn unified(path: &str, old: &str, new: &str) -> String {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let max_suf = a.len().min(b.len()) - pre;
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suf)
        .take_while(|(x, y)| x == y)
        .count();
    let start = pre.saturating_sub(3);
    let (a_end, b_end) = (
        (a.len() - suf + 3).min(a.len()),
        (b.len() - suf + 3).min(b.len()),
    );
    let span = |s: usize, e: usize| {
        if e > s {
            format!("{},{}", s + 1, e - s)
        } else {
            format!("{s},0")
        }
    };
    let mut out = format!(
        "--- a/{path}\n+++ b/{path}\n@@ -{} +{} @@\n",
        span(start, a_end),
        span(start, b_end)
    );
    let line = |p: char, l: &str, out: &mut String| {
        out.push(p);
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    };
    for l in &a[start..pre] {
        line(' ', l, &mut out);
    }
    for (p, l) in middle(&a[pre..a.len() - suf], &b[pre..b.len() - suf]) {
        line(p, l, &mut out);
    }
    for l in &a[a.len() - suf..a_end] {
        line(' ', l, &mut out);
    }
    out
}

/// The changed middle of two texts as `-`, `+` and ` ` lines: a longest common subsequence
/// (small inputs; past 2000 lines on a side, all of `a` removed, then all of `b` added).
fn middle<'s>(a: &[&'s str], b: &[&'s str]) -> Vec<(char, &'s str)> {
    if a.len() > 2000 || b.len() > 2000 {
        let mut v: Vec<(char, &str)> = a.iter().map(|l| ('-', *l)).collect();
        v.extend(b.iter().map(|l| ('+', *l)));
        return v;
    }
    let (n, m) = (a.len(), b.len());
    let mut t = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i][j] = if a[i] == b[j] {
                t[i + 1][j + 1] + 1
            } else {
                t[i + 1][j].max(t[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut v) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            v.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j == m || (i < n && t[i + 1][j] >= t[i][j + 1]) {
            v.push(('-', a[i]));
            i += 1;
        } else {
            v.push(('+', b[j]));
            j += 1;
        }
    }
    v
}

/// Why a file may not be fixed, if it may not.
fn refusal(ctx: &Ctx, file: &Path) -> Option<&'static str> {
    if !file.starts_with(&ctx.root) {
        return Some("outside the workspace");
    }
    match ctx.fs.symlink_metadata(file) {
        Ok(m) if m.file_type == FileType::Symlink => return Some("a symbolic link"),
        Ok(m) if m.file_type != FileType::File => return Some("not a regular file"),
        Err(_) => return Some("cannot be read"),
        Ok(_) => {}
    }
    // A directory on its path is a symlink: the canonical path differs.
    match ctx.fs.canonicalize(file) {
        Ok(c) if c == file => None,
        _ => Some("below a symbolic link"),
    }
}

fn is_skill(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "SKILL.md")
}

/// A fixed file: its old text, its new text and the codes of the fixes applied.
type Fixed = (String, String, Vec<String>);

/// Fixes one file; `Ok(None)` when nothing applies.
fn fix_one(
    ctx: &Ctx,
    file: &Path,
    diags: &[&Diagnostic],
    unsafe_ok: bool,
) -> Result<Option<Fixed>, &'static str> {
    let bytes = ctx.fs.read(file).map_err(|_| "cannot be read")?;
    let raw = String::from_utf8(bytes).map_err(|_| "not UTF-8")?;
    let (bom, text) = match raw.strip_prefix(BOM) {
        Some(t) => (BOM, t),
        None => ("", raw.as_str()),
    };
    let fixed = if is_skill(file) {
        let rules = &ctx.settings.diagnostics;
        let rel = alisio_base::suppress::settings::rel_path(file, &ctx.root);
        let shown = |t: &str, ds: Vec<Diagnostic>| -> Vec<Diagnostic> {
            alisio_base::suppress::apply_inline(file, t, ds)
                .into_iter()
                .filter_map(|d| alisio_base::suppress::configured(rules, &rel, d))
                .collect()
        };
        alisio_rules::fix::skill(&ctx.fs, file, text, ctx.args.profile, &shown, unsafe_ok)
    } else {
        alisio_rules::fix::instruction(text, diags, unsafe_ok)
    };
    let Some(f) = fixed else { return Ok(None) };
    Ok(Some((raw.clone(), format!("{bom}{}", f.text), f.applied)))
}

fn write(ctx: &Ctx, file: &Path, old: &str, new: &str) -> Result<(), &'static str> {
    let before = ctx
        .fs
        .symlink_metadata(file)
        .map_err(|_| "cannot be read")?;
    // The file as read must still be the file on disk (the writer checks size and mtime).
    if ctx.fs.read(file).ok().as_deref() != Some(old.as_bytes()) {
        return Err("changed while fixing");
    }
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = format!(".{name}.{}.{nonce:08x}.fix.tmp", std::process::id());
    let new = NewContent {
        bytes: new.as_bytes(),
        temp_name: &tmp,
        expected: Some(&before),
    };
    match ctx.fs.replace_file(file, &new) {
        Ok(ReplaceOutcome::Written) => Ok(()),
        Ok(ReplaceOutcome::Changed) => Err("changed while fixing"),
        Err(_) => Err("cannot be written"),
    }
}

/// Applies (or with `diff`, shows) the fixes of the shown diagnostics `diags`.
pub fn run(ctx: &Ctx, diags: &[Diagnostic], unsafe_ok: bool, diff: bool) -> FixOutcome {
    let mut by_file: BTreeMap<&Path, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diags {
        by_file.entry(d.file.as_path()).or_default().push(d);
    }
    let mut out = FixOutcome::default();
    for (file, ds) in by_file {
        let fixable = ds.iter().any(|d| {
            alisio_base::rules::get(d.code).is_some_and(|r| r.fix != alisio_base::rules::Fix::None)
        });
        if !fixable {
            continue;
        }
        if let Some(why) = refusal(ctx, file) {
            out.skipped.push((file.to_path_buf(), why));
            continue;
        }
        let (old, new, applied) = match fix_one(ctx, file, &ds, unsafe_ok) {
            Ok(Some(x)) => x,
            Ok(None) => continue,
            Err(why) => {
                out.skipped.push((file.to_path_buf(), why));
                continue;
            }
        };
        if diff {
            out.diff.push_str(&unified(&ctx.display(file), &old, &new));
        } else if let Err(why) = write(ctx, file, &old, &new) {
            out.skipped.push((file.to_path_buf(), why));
            continue;
        }
        out.files.push((file.to_path_buf(), applied));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn a_unified_diff_has_one_hunk_with_three_lines_of_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4\nfive\n6\n7\n8\n";
        assert_eq!(
            unified("a.md", old, new),
            "--- a/a.md\n+++ b/a.md\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
        assert_eq!(
            unified("a.md", "x", "---\nx"),
            "--- a/a.md\n+++ b/a.md\n@@ -1,1 +1,2 @@\n+---\n x\n\\ No newline at end of file\n"
        );
    }
}
