//! `skill-name-directory-mismatch` and `skill-name-missing` (spec/skills.md §6.2): set the name to
//! the directory name; and the directory rename the server offers when the client supports
//! resource operations.

use std::path::PathBuf;

use super::{Cx, QuickFix, TextEdit, valid_name_for};
use crate::skills::validate::Checked;
use alisio_base::text::TextRange;

pub(super) fn fixes(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    set_name(cx, out);
}

/// `Set name to the directory name "<dir>"`, when the directory name is a valid name.
pub(super) fn set_name(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    let (c, dir, name_entry) = (cx.checked, &cx.dir, cx.name_entry);
    if !valid_name_for(c.profile, dir) {
        return;
    }
    let edit = match (name_entry, c.block) {
        (Some(e), _) if !e.empty => TextEdit {
            range: e.value.span,
            new_text: dir.clone(),
        },
        (Some(e), _) => TextEdit {
            range: TextRange::empty(e.key_span.end + 1),
            new_text: format!(" {dir}"),
        },
        (None, Some(b)) => TextEdit {
            range: TextRange::empty(b.yaml.start),
            new_text: format!("name: {dir}\n"),
        },
        (None, None) => return,
    };
    out.push(QuickFix {
        title: format!("Set name to the directory name \"{dir}\""),
        edits: vec![edit],
    });
}

/// `Rename directory to "<name>"` (spec/skills.md §6.2) for a `skill-name-directory-mismatch`: the directory
/// rename `(from, to)` when the name is valid under the profile and no sibling of that name
/// exists. The server offers it only when the client supports resource operations.
#[must_use]
pub fn rename_directory(
    fs: &dyn alisio_base::workspace::Fs,
    c: &Checked,
) -> Option<(String, PathBuf, PathBuf)> {
    let name = c
        .frontmatter
        .as_ref()?
        .get("name")?
        .value
        .as_str()?
        .to_string();
    let dir = c.file.parent()?;
    if !valid_name_for(c.profile, &name) || dir.file_name().is_some_and(|n| n == name.as_str()) {
        return None;
    }
    let to = dir.parent()?.join(&name);
    if fs.exists_no_follow(&to) {
        return None;
    }
    Some((
        format!("Rename directory to \"{name}\""),
        dir.to_path_buf(),
        to,
    ))
}
