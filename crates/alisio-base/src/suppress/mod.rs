//! Suppressions (docs/spec/suppressions.md): the one post-filter every diagnostic passes
//! through before `check` prints it or the language server publishes it. Inline directives in
//! each checked file first (unused ones become `suppression-unused` hints), then the configured
//! `diagnostics.ignore` globs and `diagnostics.severity` levels.

pub mod fix;
pub mod inline;
pub mod settings;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use settings::{Level, Rules};

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::text::LineIndex;
use crate::workspace::Fs;
use crate::workspace::par::par_map;

/// Directives past this many bytes of a file are not read.
pub const READ_LIMIT: u64 = 4 * 1024 * 1024;

fn is_markdown(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("mdc"))
}

fn unused_message(scope: inline::Coverage, code: &str) -> String {
    match (scope, Code::parse(code)) {
        (_, None) => format!("unknown diagnostic code \"{code}\"; this suppression does nothing"),
        (inline::Coverage::NextLine, _) => {
            format!("unused suppression: the next line reports no {code}")
        }
        (inline::Coverage::Line, _) => format!("unused suppression: this line reports no {code}"),
        (inline::Coverage::File, _) => format!("unused suppression: this file reports no {code}"),
    }
}

fn empty_message(scope: inline::Coverage) -> &'static str {
    match scope {
        inline::Coverage::NextLine => {
            "this suppression names no code; write <!-- alisio-ignore-next-line: code -->"
        }
        inline::Coverage::File => {
            "this suppression names no code; write <!-- alisio-ignore-file: code -->"
        }
        inline::Coverage::Line => "this suppression names no code; write # alisio-ignore: code",
    }
}

/// Applies the inline directives of one file's `text` to its diagnostics: drops the suppressed
/// ones and adds a `suppression-unused` hint for each code that suppressed nothing.
#[must_use]
pub fn apply_inline(file: &Path, text: &str, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let directives = inline::parse(text);
    if directives.is_empty() {
        return diags;
    }
    let mut used: Vec<Vec<bool>> = directives
        .iter()
        .map(|d| vec![false; d.codes.len()])
        .collect();
    let mut kept = Vec::with_capacity(diags.len());
    for d in diags {
        let mut hit = false;
        for (i, dir) in directives.iter().enumerate() {
            if dir.scope != inline::Coverage::File && dir.target_line != d.span.start.line {
                continue;
            }
            for (j, (c, _)) in dir.codes.iter().enumerate() {
                if c == d.code.as_str() {
                    used[i][j] = true;
                    hit = true;
                }
            }
        }
        if !hit {
            kept.push(d);
        }
    }
    let idx = LineIndex::new(text);
    for (dir, used) in directives.iter().zip(&used) {
        if dir.codes.is_empty() {
            kept.push(Diagnostic::new(
                file,
                idx.span(dir.range),
                Severity::Hint,
                Code::SuppressionUnused,
                empty_message(dir.scope),
            ));
        }
        for ((code, range), u) in dir.codes.iter().zip(used) {
            if !u {
                kept.push(Diagnostic::new(
                    file,
                    idx.span(*range),
                    Severity::Hint,
                    Code::SuppressionUnused,
                    unused_message(dir.scope, code),
                ));
            }
        }
    }
    kept
}

/// Applies the configured rules to one diagnostic: `None` when ignored, `off`, or an opinionated
/// rule that is not enabled for its file (spec/suppressions.md §2).
#[must_use]
pub fn configured(rules: &Rules, rel: &str, mut d: Diagnostic) -> Option<Diagnostic> {
    if rules.ignore.iter().any(|i| i.covers(rel, d.code)) {
        return None;
    }
    match rules.level(rel, d.code) {
        Some(Level::Off) => None,
        Some(Level::Set(s)) => {
            d.severity = s;
            Some(d)
        }
        None => Some(d),
    }
}

/// Below this many file groups the post-filter stays on one thread.
const PAR_MIN: usize = 64;

/// The post-filter: `diags` of the checked `files` (and of any other file they name) after
/// inline directives (read through `fs`, so unsaved buffers count) and the configured rules.
/// The result keeps the order of files; callers sort as before.
#[must_use]
pub fn apply(
    fs: &dyn Fs,
    rules: &Rules,
    root: &Path,
    files: &[PathBuf],
    diags: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    // Grouped by file through a hash map, then the groups sorted once by path: the order of a
    // sorted map of the files, without a tree whose every insertion compares paths component by
    // component (a 1,000-skill `skills validate` made 56,000 such comparisons here).
    let mut index: HashMap<PathBuf, usize> = HashMap::with_capacity(files.len());
    let mut groups: Vec<(PathBuf, Vec<Diagnostic>)> = Vec::with_capacity(files.len());
    let mut group_of = |file: &Path, groups: &mut Vec<(PathBuf, Vec<Diagnostic>)>| {
        if let Some(&i) = index.get(file) {
            return i;
        }
        index.insert(file.to_path_buf(), groups.len());
        groups.push((file.to_path_buf(), Vec::new()));
        groups.len() - 1
    };
    for f in files.iter().filter(|f| is_markdown(f)) {
        group_of(f, &mut groups);
    }
    for d in diags {
        let i = group_of(&d.file, &mut groups);
        groups[i].1.push(d);
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let out = par_map(&groups, PAR_MIN, |(file, ds)| {
        let ds = ds.clone();
        let ds = if is_markdown(file) {
            match fs.read_prefix(file, READ_LIMIT) {
                Ok(bytes) if memchr_marker(&bytes) => {
                    apply_inline(file, &String::from_utf8_lossy(&bytes), ds)
                }
                _ => ds,
            }
        } else {
            ds
        };
        if rules.is_empty() && !ds.iter().any(|d| crate::rules::opinionated(d.code)) {
            return ds;
        }
        let rel = settings::rel_path(file, root);
        ds.into_iter()
            .filter_map(|d| configured(rules, &rel, d))
            .collect::<Vec<_>>()
    });
    out.into_iter().flatten().collect()
}

fn memchr_marker(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, inline::MARKER.as_bytes()).is_some()
}

#[cfg(test)]
mod tests;
