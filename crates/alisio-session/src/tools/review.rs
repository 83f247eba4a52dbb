//! Review before a write (spec/sessions.md §4.4): the user may approve a `write_file` or
//! `edit_file` call with a text of their own or with some of its hunks only. The server then
//! writes exactly that text, only over the file it showed (else "stale approval"), and the
//! call's result tells the model what the user changed from its proposal.

use serde_json::{Value, json};

use super::error::{ToolError, ToolReturn};
use super::{ToolCtx, Writes};
use crate::approvals::Review;
use crate::diff;
use crate::util::sha256_hex;

const MIB: usize = 1_048_576;

/// An approved write as the user reviewed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reviewed {
    /// The call's result shape.
    pub writes: Writes,
    /// The path as the call gave it.
    pub path: String,
    /// As shown (workspace-relative).
    pub shown: String,
    /// The model's precondition (`expectedHash`).
    pub expected_hash: Option<String>,
    /// The file's text when the preview was built (`None`: no file).
    pub before: Option<String>,
    /// The text the call would have written.
    pub proposed: String,
    /// The text to write.
    pub text: String,
}

/// The write a reply approves: the proposal itself, the user's text, or the proposal's
/// accepted hunks over the file as shown. `preview` is the call's `{path, before, after}`.
///
/// # Errors
/// The refusal text when the reply cannot apply (no text preview, wrong hunk count, a text
/// over 1 MiB or holding NUL).
pub fn reviewed(
    writes: Writes,
    args: &serde_json::Map<String, Value>,
    preview: Option<&Value>,
    review: Option<&Review>,
) -> ToolReturn<Option<Reviewed>> {
    let text_preview = preview.and_then(|p| Some((p["path"].as_str()?, p["after"].as_str()?)));
    let Some((shown, proposed)) = text_preview else {
        return match review {
            None => Ok(None),
            Some(_) => Err(ToolError::Failed(format!(
                "Approval refused: the change to {} had no text preview (over 1 MiB or not UTF-8 text), so it cannot be edited; approve it as proposed or deny it",
                preview
                    .and_then(|p| p["path"].as_str())
                    .unwrap_or("the file")
            ))),
        };
    };
    let p = preview.unwrap_or(&Value::Null);
    let before = p["before"].as_str().map(String::from);
    let text = match review {
        None => proposed.to_string(),
        Some(Review::Content(t)) => t.clone(),
        Some(Review::Hunks(accept)) => {
            diff::apply(before.as_deref().unwrap_or(""), proposed, accept)
                .map_err(|e| format!("Approval refused: {e}"))?
        }
    };
    if text.len() > MIB {
        return Err("Approval refused: the approved text exceeds 1 MiB".into());
    }
    if text.contains('\0') {
        return Err(
            "Approval refused: the approved text contains NUL; only text is written".into(),
        );
    }
    Ok(Some(Reviewed {
        writes,
        path: args
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or(shown)
            .to_string(),
        shown: shown.to_string(),
        expected_hash: args
            .get("expectedHash")
            .and_then(Value::as_str)
            .map(String::from),
        before,
        proposed: proposed.to_string(),
        text,
    }))
}

/// Writes a reviewed change: the call's own checks, then the file must still hold the text
/// the user saw. Returns the result's text parts: the tool's JSON (with `userEdited: true`
/// when the text is not the proposal) and, then, what the user changed.
///
/// # Errors
/// The tool's errors, or [`ToolError::StaleApproval`].
pub fn write(ctx: &ToolCtx, r: &Reviewed) -> ToolReturn<Vec<String>> {
    let c = super::files::writable(ctx, &r.path)?;
    // The file as the user saw it first: a change since is the more precise refusal.
    let now = std::fs::read(&c.real).ok();
    if now.as_deref() != r.before.as_deref().map(str::as_bytes) {
        return Err(ToolError::StaleApproval(c.shown));
    }
    let current = super::files::precondition(&c, r.expected_hash.as_deref())?;
    // Every hunk of a new file rejected: no file, rather than an empty one.
    let no_file = current.is_none() && r.text.is_empty() && !r.proposed.is_empty();
    let unchanged = no_file || current.as_deref() == Some(r.text.as_bytes());
    let created = if unchanged {
        false
    } else {
        super::files::atomic_replace(&c.real, &c.shown, r.text.as_bytes(), current.as_deref())?
    };
    let sha = (!no_file).then(|| sha256_hex(r.text.as_bytes()));
    let mut out = if r.writes == Writes::Whole {
        json!({"path":c.shown,"sha256":sha,"bytes":r.text.len(),"created":created})
    } else {
        json!({"path":c.shown,"sha256":sha})
    };
    if r.text == r.proposed {
        return Ok(vec![out.to_string()]);
    }
    out["userEdited"] = json!(true);
    let note = if unchanged {
        format!(
            "\nThe user rejected every part of your change to {}; the file was not changed.",
            c.shown
        )
    } else {
        format!(
            "\nThe user changed your proposal before approving it: {} now holds the user's version (sha256 {}), not yours. What the user changed, as a unified diff from your proposal to the written text:\n{}",
            c.shown,
            sha.unwrap_or_default(),
            diff::unified(
                &r.proposed,
                &r.text,
                &format!("proposed/{}", c.shown),
                &format!("written/{}", c.shown)
            )
        )
    };
    Ok(vec![out.to_string(), note])
}
