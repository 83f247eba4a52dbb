//! `alisio/runSession`'s `attachments` (spec/sessions.md §4.6): each `{uri, range?}` becomes a
//! delimited block of the user message (`governor::attachment::block`), its text read through
//! the server's overlay, so an unsaved buffer counts as the user sees it.

use std::path::Path;

use super::diagnostics::path_of;
use super::ext::Attachment;
use super::state::Snapshot;
use alisio_governor::attachment;

/// All attachments of one prompt together carry at most this many bytes of text.
pub const MAX_ATTACHED: usize = 1_048_576;

/// The blocks, in the order given.
///
/// # Errors
/// A located message for a URI that is not a readable file, a range outside the file, or more
/// than [`MAX_ATTACHED`] bytes in all.
pub fn blocks(snap: &Snapshot, root: &Path, atts: &[Attachment]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut total = 0;
    for (i, a) in atts.iter().enumerate() {
        let at = |m: String| format!("attachments[{i}]: {m}");
        let path =
            path_of(&a.uri).ok_or_else(|| at(format!("not a file URI: {}", a.uri.as_str())))?;
        let text = snap
            .text_of(&path)
            .ok_or_else(|| at(format!("cannot read {}", path.display())))?;
        let shown = path.strip_prefix(root).map_or_else(
            |_| path.display().to_string(),
            |r| r.to_string_lossy().replace('\\', "/"),
        );
        let (body, lines) = match &a.range {
            None => (text.to_string(), None),
            Some(r) => {
                let first = r.start.line as usize;
                // A selection that ends at the start of a line does not include that line.
                let mut last = r.end.line as usize;
                if r.end.character == 0 && last > first {
                    last -= 1;
                }
                let all: Vec<&str> = text.split_inclusive('\n').collect();
                if first >= all.len().max(1) || last < first {
                    return Err(at(format!(
                        "lines {}-{} are outside {shown} ({} lines)",
                        first + 1,
                        last + 1,
                        all.len()
                    )));
                }
                let last = last.min(all.len().saturating_sub(1));
                let body: String = all.get(first..=last).unwrap_or_default().concat();
                (body, Some((first as u32 + 1, last as u32 + 1)))
            }
        };
        total += body.len();
        if total > MAX_ATTACHED {
            return Err(format!(
                "attachments: more than {MAX_ATTACHED} bytes of text in all"
            ));
        }
        out.push(attachment::block(&shown, lines, &body));
    }
    Ok(out)
}
