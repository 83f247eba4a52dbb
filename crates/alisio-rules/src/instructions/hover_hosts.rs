//! hosts.md H10: the hover of an ordinary file with every host in use side by side.

use super::explain::Explanation;
use super::lens;
use alisio_base::config::Host;

/// One cell: the spec/hosts.md §6 `loaded` text for alisio/codex/claude-code, the delivery for the others.
fn cell(ex: &Explanation, path: &std::path::Path) -> String {
    let cells: Vec<String> = ex
        .files
        .iter()
        .filter(|f| f.path == path)
        .map(|f| match ex.host {
            Host::Alisio | Host::Codex | Host::ClaudeCode => lens::loaded(f, ex.host),
            _ if f.file.empty => format!("{} (empty)", f.delivery.as_str()),
            _ => f.delivery.as_str().to_string(),
        })
        .collect();
    if cells.is_empty() {
        "—".to_string()
    } else {
        cells.join(", ")
    }
}

/// The side-by-side hover on line 0 (`None` elsewhere). `explanations` are in hosts.md H9 order.
#[must_use]
pub fn hover(explanations: &[Explanation], line: u32) -> Option<String> {
    if line != 0 {
        return None;
    }
    let first = explanations.first()?;
    let path = first.show(&first.target);
    let mut rows: Vec<std::path::PathBuf> = Vec::new();
    for ex in explanations {
        for f in &ex.files {
            if !rows.contains(&f.path) {
                rows.push(f.path.clone());
            }
        }
    }
    if rows.is_empty() && explanations.iter().all(|e| e.not_loaded.is_empty()) {
        return Some(format!("No instruction file applies to {path}."));
    }
    let names: Vec<&str> = explanations.iter().map(|e| e.host.as_str()).collect();
    let mut out = format!(
        "**Instructions for {path}** (hosts {})\n\n| file | {} |\n|---|{}\n",
        names.join(", "),
        names.join(" | "),
        "---|".repeat(names.len())
    );
    for p in &rows {
        let cells: Vec<String> = explanations.iter().map(|ex| cell(ex, p)).collect();
        out.push_str(&format!(
            "| `{}` | {} |\n",
            first.show(p),
            cells.join(" | ")
        ));
    }
    let mut notes = String::new();
    for ex in explanations {
        for n in &ex.not_loaded {
            notes.push_str(&format!(
                "{} does not load `{}`: {}\n",
                ex.host.as_str(),
                ex.show(&n.path),
                n.reason
            ));
        }
    }
    if explanations.iter().any(|e| e.host == Host::Cursor) {
        notes.push_str("cursor: documented behaviour, not verified against Cursor\n");
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    Some(out)
}
