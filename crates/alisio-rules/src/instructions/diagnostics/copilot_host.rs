//! spec/hosts.md §5 for host `copilot`: `applyTo` lists, patterns that match no file of D,
//! `.instructions.md` files outside every location, names in the wrong case.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::super::FileKind;
use super::super::copilot::{self, instructions_kind};
use super::super::host_files::{AttrValue, header, split_aware};
use super::super::read::ReadMode;
use super::host_common::{GlobScan, content_diagnostics, diag, file_level, span_of};

use alisio_base::diagnostic::{Code, Diagnostic};

/// `true` when a piece of a pattern can match some file: unconditional pieces always do.
fn piece_matches_some(piece: &str, files: &[String]) -> bool {
    if matches!(piece, "**" | "**/*" | "*") {
        return true;
    }
    copilot::piece_matcher(piece).is_some_and(|m| files.iter().any(|f| m.is_match(f)))
}

fn pattern_diagnostics(
    path: &Path,
    kind: FileKind,
    text: &str,
    files: &[String],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let h = header(text);
    let key = if kind == FileKind::Rule {
        "paths"
    } else {
        "applyTo"
    };
    let Some(attr) = h.get(key) else {
        return out;
    };
    let pieces: Vec<String> = match &attr.value {
        AttrValue::List(items) if key == "applyTo" => {
            let joined = items.join(", ");
            out.push(diag(
                path,
                span_of(text, attr.span),
                Code::InstructionsApplyToList,
                format!(
                    "applyTo is a list; Copilot reads only a string, so this file is never attached (write \"{joined}\")"
                ),
            ));
            return out;
        }
        AttrValue::List(items) => split_aware(&items.join(", ")),
        AttrValue::Scalar(s) => split_aware(s),
    };
    for piece in pieces {
        if !piece_matches_some(&piece, files) {
            out.push(diag(
                path,
                span_of(text, attr.span),
                Code::InstructionsGlobUnmatched,
                format!("{key} pattern \"{piece}\" matches no file in the workspace"),
            ));
        }
    }
    out
}

/// Every copilot diagnostic of the workspace (`files`: the regular files of D).
pub(super) fn diagnostics(scan: &GlobScan<'_>) -> Vec<Diagnostic> {
    let cs = &scan.setup.settings.hosts.copilot;
    let mut out = Vec::new();
    let abs: Vec<String> = scan
        .files
        .iter()
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    let found = copilot::instruction_files(scan.setup, cs);
    let inside = |p: &Path| p.starts_with(scan.setup.root);
    let mut located: HashSet<PathBuf> = HashSet::new();
    for (p, kind, _) in &found.files {
        located.insert(scan.setup.fs.canonicalize(p).unwrap_or_else(|_| p.clone()));
        if !inside(p) {
            continue;
        }
        let t = scan.reader.read(p, ReadMode::Claude);
        out.extend(pattern_diagnostics(p, *kind, &t.text, &abs));
        out.extend(content_diagnostics(scan.setup, p, &t.text));
    }
    let repo_wide = scan.setup.root.join(".github/copilot-instructions.md");
    if scan
        .setup
        .fs
        .metadata(&repo_wide)
        .is_ok_and(|m| m.file_type == alisio_base::workspace::FileType::File)
    {
        let t = scan.reader.read(&repo_wide, ReadMode::Claude);
        out.extend(content_diagnostics(scan.setup, &repo_wide, &t.text));
    }
    for (p, _) in &found.too_deep {
        located.insert(scan.setup.fs.canonicalize(p).unwrap_or_else(|_| p.clone()));
    }
    for p in &found.wrong_case {
        located.insert(scan.setup.fs.canonicalize(p).unwrap_or_else(|_| p.clone()));
        if !inside(p) {
            continue;
        }
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let expected = format!("{}.instructions.md", &name[..name.len() - 16]);
        let t = scan.reader.read(p, ReadMode::Claude);
        out.push(diag(
            p,
            file_level(&t.text),
            Code::InstructionsNameCase,
            format!("not read: copilot reads \"{expected}\" (names are case-sensitive)"),
        ));
    }
    let locs: Vec<String> = copilot::locations(scan.setup, cs)
        .into_iter()
        .filter(|l| !l.user)
        .map(|l| l.written)
        .collect();
    for node in &scan.set.dirs {
        for e in &node.entries {
            let Some(name) = e.name.to_str() else {
                continue;
            };
            if !name.ends_with(".instructions.md") {
                continue;
            }
            let p = node.path.join(name);
            let canon = scan.setup.fs.canonicalize(&p).unwrap_or_else(|_| p.clone());
            if located.contains(&canon) || instructions_kind(&p).is_none() {
                continue;
            }
            let t = scan.reader.read(&p, ReadMode::Claude);
            out.push(diag(
                &p,
                file_level(&t.text),
                Code::InstructionsOutsideLocation,
                format!(
                    "not read: Copilot reads .instructions.md files only from {}",
                    locs.join(", ")
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_gets_one_diagnostic_on_its_value() {
        let text = "---\napplyTo: [\"**/*.ts\", \"**/*.tsx\"]\n---\n";
        let d = pattern_diagnostics(
            Path::new("/w/x.instructions.md"),
            FileKind::Instructions,
            text,
            &[],
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, Code::InstructionsApplyToList);
        assert_eq!(
            d[0].message,
            "applyTo is a list; Copilot reads only a string, so this file is never attached (write \"**/*.ts, **/*.tsx\")"
        );
        let r = d[0].span.bytes;
        assert_eq!(&text[r.start..r.end], "[\"**/*.ts\", \"**/*.tsx\"]");
    }

    #[test]
    fn unconditional_pieces_never_count_as_unmatched() {
        let text = "---\napplyTo: \"**, **/*.py, src/**\"\n---\n";
        let files = vec!["/w/src/a.rs".to_string()];
        let d = pattern_diagnostics(
            Path::new("/w/x.instructions.md"),
            FileKind::Instructions,
            text,
            &files,
        );
        let msgs: Vec<_> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            ["applyTo pattern \"**/*.py\" matches no file in the workspace"]
        );
    }
}
