//! spec/hosts.md §5 for host `gemini`: imports that are missing, outside the import root, URLs or
//! cycles; context-file names in the wrong case.

use std::collections::HashSet;
use std::path::PathBuf;

use super::super::Setup;
use super::super::gemini::{self, FailureKind, ImportFailure};
use super::super::read::{ReadMode, Reader};
use super::host_common::{content_diagnostics, diag, file_level, span_of};
use alisio_base::diagnostic::{Code, Diagnostic};
use alisio_base::workspace::walk::DirSet;
use alisio_base::workspace::{FileType, display_path};

fn message(setup: &Setup<'_>, f: &ImportFailure) -> String {
    let p = display_path(&f.path, setup.root);
    match &f.kind {
        FailureKind::Missing => format!("import not found: {p}"),
        FailureKind::Outside(root) => {
            format!("import outside the project root {}: {p}", root.display())
        }
        FailureKind::Url => format!("import of a URL is not supported: {p}"),
        FailureKind::Cycle => format!("import cycle: {p} is already being imported"),
        FailureKind::Unreadable(m) => format!("import cannot be read: {p} ({m})"),
    }
}

/// Every gemini diagnostic of the workspace.
pub(super) fn diagnostics(setup: &Setup<'_>, reader: &Reader<'_>, set: &DirSet) -> Vec<Diagnostic> {
    let names = gemini::names(&setup.settings.hosts.gemini);
    let mut out = Vec::new();
    let mut seen: HashSet<(PathBuf, usize, usize)> = HashSet::new();
    for node in &set.dirs {
        for e in &node.entries {
            let Some(name) = e.name.to_str() else {
                continue;
            };
            let p = node.path.join(name);
            if names.iter().any(|n| n == name) {
                if !matches!(e.file_type, FileType::File | FileType::Symlink) {
                    continue;
                }
                let t = reader.read(&p, ReadMode::Claude);
                out.extend(content_diagnostics(setup, &p, &t.text));
                let (_, fails) = gemini::imports(setup, reader, &p, &t.text);
                for f in fails {
                    if !seen.insert((f.importer.clone(), f.range.start, f.range.end)) {
                        continue;
                    }
                    let text = reader.read(&f.importer, ReadMode::Claude);
                    out.push(diag(
                        &f.importer,
                        span_of(&text.text, f.range),
                        Code::InstructionsImportFailed,
                        message(setup, &f),
                    ));
                }
            } else if e.file_type == FileType::File
                && let Some(expected) = names
                    .iter()
                    .find(|n| !n.contains('/') && n.eq_ignore_ascii_case(name))
            {
                let t = reader.read(&p, ReadMode::Claude);
                out.push(diag(
                    &p,
                    file_level(&t.text),
                    Code::InstructionsNameCase,
                    format!("not read: gemini reads \"{expected}\" (names are case-sensitive)"),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::config::{Host, Settings};
    use alisio_base::workspace::{DiskFs, Env, walk::walk};

    #[test]
    fn missing_outside_and_cycle_imports_are_located_on_their_token() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::write(ws.join("GEMINI.md"), "x @gone.md\n@../up.md @b.md").unwrap();
        std::fs::write(ws.join("b.md"), "@GEMINI.md").unwrap();
        std::fs::write(base.join("up.md"), "up").unwrap();
        std::fs::write(ws.join("Gemini.md"), "wrong case").unwrap();
        let env = Env::default();
        let s = Settings::default();
        let setup = Setup::for_test(&DiskFs, &env, &ws, &s, Host::Gemini);
        let reader = Reader::new(&DiskFs);
        let d = diagnostics(&setup, &reader, &walk(&DiskFs, &ws));
        let got: Vec<_> = d
            .iter()
            .map(|d| {
                (
                    d.file.file_name().unwrap().to_string_lossy().into_owned(),
                    d.span.start.line,
                    d.span.start.utf16,
                    d.message.clone(),
                )
            })
            .collect();
        let up = base.join("up.md");
        assert_eq!(
            got,
            [
                (
                    "GEMINI.md".into(),
                    0,
                    2,
                    "import not found: gone.md".to_string()
                ),
                (
                    "GEMINI.md".into(),
                    1,
                    0,
                    format!(
                        "import outside the project root {}: {}",
                        ws.display(),
                        up.display()
                    )
                ),
                (
                    "GEMINI.md".into(),
                    1,
                    10,
                    "import cycle: b.md is already being imported".to_string()
                ),
                (
                    "Gemini.md".into(),
                    0,
                    0,
                    "not read: gemini reads \"GEMINI.md\" (names are case-sensitive)".to_string()
                ),
            ]
        );
    }
}
