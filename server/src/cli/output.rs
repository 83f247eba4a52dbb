//! Diagnostics for the terminal and for machines: `human` (rustc/ruff style), `json`
//! (spec/interfaces.md §1.3), `sarif` (2.1.0) and `github` (workflow commands).
//!
//! Columns in human and GitHub output are 1-based UTF-16 columns, the same unit as the JSON
//! `character` plus one (a decision: it keeps every output in step with what editors show).

use std::io::IsTerminal as _;
use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use alisio_base::diagnostic::{Diagnostic, Severity};
use alisio_base::text::Span;
use alisio_base::workspace::display_path;

/// The form diagnostics are printed in (`check --format`; `skills validate` prints human or,
/// with `--json`, JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OutputFormat {
    #[default]
    Human,
    Json,
    Sarif,
    Github,
}

/// Counts by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub information: usize,
    pub hints: usize,
}

impl Summary {
    #[must_use]
    pub fn of(files: usize, diags: &[Diagnostic]) -> Self {
        let mut s = Self {
            files,
            ..Self::default()
        };
        for d in diags {
            match d.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Information => s.information += 1,
                Severity::Hint => s.hints += 1,
            }
        }
        s
    }

    /// Exit code: errors fail; warnings too with `--strict`.
    #[must_use]
    pub fn exit(&self, strict: bool) -> super::Exit {
        if self.errors > 0 || (strict && self.warnings > 0) {
            super::Exit::Findings
        } else {
            super::Exit::Ok
        }
    }
}

/// The JSON object of spec/interfaces.md §1.3, serialized straight from the diagnostics: no
/// `serde_json::Value` tree in between (a 1,000-skill `skills validate` prints 2 MB, and the
/// tree cost more than the validation of the bodies; docs/performance.md). The fields
/// are in the order of the spec's example.
#[derive(Serialize)]
struct JsonReport<'a> {
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: &'a Summary,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    file: String,
    range: JsonRange,
    severity: &'static str,
    code: &'static str,
    message: &'a str,
    related: Vec<JsonRelated<'a>>,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: String,
    range: JsonRange,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonRange {
    start: JsonPosition,
    end: JsonPosition,
}

/// A line and its UTF-16 column.
#[derive(Serialize)]
struct JsonPosition {
    line: u32,
    character: u32,
}

impl JsonRange {
    fn of(s: &Span) -> Self {
        Self {
            start: JsonPosition {
                line: s.start.line,
                character: s.start.utf16,
            },
            end: JsonPosition {
                line: s.end.line,
                character: s.end.utf16,
            },
        }
    }
}

/// The JSON object of spec/interfaces.md §1.3, one line.
#[must_use]
pub fn to_json(root: &Path, diags: &[Diagnostic], summary: &Summary) -> String {
    let diagnostics = diags
        .iter()
        .map(|d| JsonDiagnostic {
            file: display_path(&d.file, root),
            range: JsonRange::of(&d.span),
            severity: d.severity.as_str(),
            code: d.code.as_str(),
            message: &d.message,
            related: d
                .related
                .iter()
                .map(|r| JsonRelated {
                    file: display_path(&r.file, root),
                    range: JsonRange::of(&r.span),
                    message: &r.message,
                })
                .collect(),
        })
        .collect();
    // Strings, numbers and string-keyed structs only: serializing cannot fail.
    serde_json::to_string(&JsonReport {
        diagnostics,
        summary,
    })
    .unwrap_or_default()
}

/// SARIF 2.1.0: one run, one rule per code that occurs, results with regions (1-based lines
/// and UTF-16 columns, `columnKind: utf16CodeUnits`).
#[must_use]
pub fn to_sarif(root: &Path, diags: &[Diagnostic]) -> Value {
    let mut codes: Vec<&str> = diags.iter().map(|d| d.code.as_str()).collect();
    codes.sort_unstable();
    codes.dedup();
    let rules: Vec<Value> = codes
        .iter()
        .map(|c| {
            json!({"id": c, "name": c,
        "helpUri": format!("https://github.com/alisio-ls/alisio-ls/blob/main/docs/codes.md#{c}")})
        })
        .collect();
    let region = |s: &Span| {
        json!({"startLine": s.start.line + 1, "startColumn": s.start.utf16 + 1,
                                    "endLine": s.end.line + 1, "endColumn": s.end.utf16 + 1})
    };
    let uri = |p: &Path| display_path(p, root).replace(' ', "%20");
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let level = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Information | Severity::Hint => "note",
            };
            let mut r = json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": codes.iter().position(|c| *c == d.code.as_str()),
                "level": level,
                "message": {"text": d.message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&d.file), "uriBaseId": "%SRCROOT%"},
                                                     "region": region(&d.span)}}],
            });
            if !d.related.is_empty() {
                r["relatedLocations"] = Value::Array(d.related.iter().enumerate().map(|(i, rel)| json!({
                    "id": i, "message": {"text": rel.message},
                    "physicalLocation": {"artifactLocation": {"uri": uri(&rel.file), "uriBaseId": "%SRCROOT%"}, "region": region(&rel.span)}
                })).collect());
            }
            r
        })
        .collect();
    let root_uri = format!("file://{}/", root.to_string_lossy().trim_end_matches('/'));
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "alisio-ls", "version": env!("CARGO_PKG_VERSION"),
                                 "informationUri": "https://github.com/alisio-ls/alisio-ls", "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
            "columnKind": "utf16CodeUnits",
            "results": results,
        }]
    })
}

fn gh_escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn gh_escape_prop(s: &str) -> String {
    gh_escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands (`::error file=…,line=…::message`).
#[must_use]
pub fn to_github(root: &Path, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information | Severity::Hint => "notice",
        };
        out.push_str(&format!(
            "::{kind} title={},file={},line={},col={},endLine={},endColumn={}::{}\n",
            gh_escape_prop(d.code.as_str()),
            gh_escape_prop(&display_path(&d.file, root)),
            d.span.start.line + 1,
            d.span.start.utf16 + 1,
            d.span.end.line + 1,
            d.span.end.utf16 + 1,
            gh_escape_data(&d.message),
        ));
    }
    out
}

/// rustc/ruff style lines, colored only on a terminal (and never when `NO_COLOR` is set).
#[must_use]
pub fn to_human(root: &Path, diags: &[Diagnostic], summary: &Summary, color: bool) -> String {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for d in diags {
        let sev = match d.severity {
            Severity::Error => paint("1;31", "error"),
            Severity::Warning => paint("1;33", "warning"),
            Severity::Information => paint("1;36", "info"),
            Severity::Hint => paint("1;32", "hint"),
        };
        out.push_str(&format!(
            "{}:{}:{}: {sev}[{}]: {}\n",
            paint("1", &display_path(&d.file, root)),
            d.span.start.line + 1,
            d.span.start.utf16 + 1,
            d.code.as_str(),
            d.message
        ));
        for r in &d.related {
            out.push_str(&format!(
                "  {}:{}:{}: {}\n",
                display_path(&r.file, root),
                r.span.start.line + 1,
                r.span.start.utf16 + 1,
                r.message
            ));
        }
    }
    let files = if summary.files == 1 { "file" } else { "files" };
    out.push_str(&format!(
        "{} {files} checked: {} error(s), {} warning(s), {} info, {} hint(s)\n",
        summary.files, summary.errors, summary.warnings, summary.information, summary.hints
    ));
    out
}

/// `true` when stdout is a terminal and `NO_COLOR` is not set.
#[must_use]
pub fn color_stdout() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Prints diagnostics in `format` and returns the exit code.
pub fn emit(
    root: &Path,
    format: OutputFormat,
    diags: &[Diagnostic],
    files: usize,
    strict: bool,
) -> super::Exit {
    let summary = Summary::of(files, diags);
    let text = match format {
        OutputFormat::Human => to_human(root, diags, &summary, color_stdout()),
        OutputFormat::Json => {
            to_json(root, diags, &summary)
                + "
"
        }
        OutputFormat::Sarif => format!(
            "{:#}
",
            to_sarif(root, diags)
        ),
        OutputFormat::Github => to_github(root, diags),
    };
    super::out(&text);
    summary.exit(strict)
}
