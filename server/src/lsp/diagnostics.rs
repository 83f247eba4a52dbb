//! Core diagnostics to LSP diagnostics, and the publication bookkeeping: versions for open
//! documents, and an empty publication for every file that no longer has anything to report.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::json;
use tower_lsp_server::ls_types::{
    self as lsp, DiagnosticRelatedInformation, Location, NumberOrString, Uri,
};

use super::positions::to_lsp;
use alisio_base::diagnostic::{Diagnostic, Severity};
use alisio_base::text::Encoding;

#[must_use]
pub fn uri(path: &std::path::Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

/// The file path of a `file:` URI; `None` for other schemes (`untitled:`, `git:` …).
#[must_use]
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    if !uri.scheme().as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    uri.to_file_path()
        .map(|p| p.into_owned())
        .filter(|p| p.is_absolute())
}

#[must_use]
pub fn to_lsp(d: &Diagnostic, enc: Encoding) -> lsp::Diagnostic {
    let severity = match d.severity {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Information => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    };
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|r| {
            Some(DiagnosticRelatedInformation {
                location: Location {
                    uri: uri(&r.file)?,
                    range: to_lsp::range(&r.span, enc),
                },
                message: r.message.clone(),
            })
        })
        .collect();
    lsp::Diagnostic {
        range: to_lsp::range(&d.span, enc),
        severity: Some(severity),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        source: Some("alisio-ls".to_string()),
        message: d.message.clone(),
        // An unused suppression is rendered faded, as unused code is.
        tags: (d.code == alisio_base::diagnostic::Code::SuppressionUnused)
            .then(|| vec![lsp::DiagnosticTag::UNNECESSARY]),
        related_information: if related.is_empty() {
            None
        } else {
            Some(related)
        },
        // Quick fixes read what they need from here (the server forgets between requests).
        data: Some(
            json!({"code": d.code.as_str(), "start": d.span.bytes.start, "end": d.span.bytes.end}),
        ),
        ..lsp::Diagnostic::default()
    }
}

/// One `publishDiagnostics` to send.
pub struct Publication {
    pub uri: Uri,
    pub version: Option<i32>,
    pub diagnostics: Vec<lsp::Diagnostic>,
}

/// The publications that bring the client from `previous` (files with non-empty diagnostics)
/// to `current`. Returns them and the new set of non-empty files.
pub fn plan(
    previous: &BTreeSet<PathBuf>,
    current: &BTreeMap<PathBuf, Vec<Diagnostic>>,
    versions: &std::collections::HashMap<PathBuf, i32>,
    enc: Encoding,
) -> (Vec<Publication>, BTreeSet<PathBuf>) {
    let mut pubs = Vec::new();
    let mut now = BTreeSet::new();
    for (path, diags) in current {
        let Some(uri) = uri(path) else { continue };
        if !diags.is_empty() {
            now.insert(path.clone());
        }
        pubs.push(Publication {
            uri,
            version: versions.get(path).copied(),
            diagnostics: diags.iter().map(|d| to_lsp(d, enc)).collect(),
        });
    }
    for path in previous.difference(&now) {
        if current.contains_key(path) {
            continue;
        }
        if let Some(uri) = uri(path) {
            pubs.push(Publication {
                uri,
                version: versions.get(path).copied(),
                diagnostics: Vec::new(),
            });
        }
    }
    (pubs, now)
}
