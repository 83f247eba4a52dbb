//! Quick fixes of instruction-file diagnostics that edit text (spec/hosts.md §5): today
//! `instructions-apply-to-list`, "write the list as one string". Byte-range edits of the text
//! without BOM; the language server converts them to LSP, `check --fix` applies them.
//! (The renames of `instructions-rule-ignored` and `instructions-name-case` are editor-only.)

use super::host_files::{AttrValue, header};
use crate::skills::editor::{QuickFix, TextEdit};
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

/// The text fixes of `code` on a file whose text is `text`.
#[must_use]
pub fn quick_fixes(text: &str, code: Code) -> Vec<QuickFix> {
    match code {
        Code::InstructionsApplyToList => apply_to_list(text).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// The end of the last `- item` line of a block list that starts after byte `from`.
fn block_list_end(text: &str, from: usize) -> usize {
    let mut end = from;
    let mut pos = from;
    for line in text[from..].split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let t = content.trim_start();
        let item = t.starts_with("- ") || t == "-";
        if !(item || t.is_empty()) {
            break;
        }
        if item {
            end = pos + content.len();
        }
        pos += line.len();
    }
    end
}

/// `Write applyTo as "<a, b>"`: a flow list `[a, b]` is replaced by the quoted string; a block
/// list (`applyTo:` and `- a` lines) becomes `applyTo: "<a, b>"` on the key's line.
#[must_use]
pub fn apply_to_list(text: &str) -> Option<QuickFix> {
    let h = header(text);
    let a = h.get("applyTo")?;
    let AttrValue::List(items) = &a.value else {
        return None;
    };
    let joined = items.join(", ");
    let quoted = format!("\"{}\"", joined.replace('\\', "\\\\").replace('"', "\\\""));
    let edit = if a.raw.is_empty() || a.raw.starts_with('#') {
        // Block list: from the colon of the key's line to the end of its last item.
        let colon = a.line.start + text[a.line.start..a.line.end].find(':')? + 1;
        TextEdit {
            range: TextRange::new(colon, block_list_end(text, a.line.end)),
            new_text: format!(" {quoted}"),
        }
    } else {
        TextEdit {
            range: a.span,
            new_text: quoted,
        }
    };
    Some(QuickFix {
        title: format!("Write applyTo as \"{joined}\""),
        edits: vec![edit],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::editor::apply;

    fn fixed(text: &str) -> Option<(String, String)> {
        let f = apply_to_list(text)?;
        Some((f.title.clone(), apply(text, &f.edits)))
    }

    #[test]
    fn a_flow_list_becomes_one_string() {
        assert_eq!(
            fixed("---\napplyTo: [\"**/*.ts\", \"**/*.tsx\"]\n---\nts\n"),
            Some((
                "Write applyTo as \"**/*.ts, **/*.tsx\"".into(),
                "---\napplyTo: \"**/*.ts, **/*.tsx\"\n---\nts\n".into()
            ))
        );
    }

    #[test]
    fn a_block_list_becomes_one_string_on_the_key_line() {
        assert_eq!(
            fixed("---\napplyTo:\n  - \"**/*.ts\"\n\n  - src/**\ndescription: x\n---\nts\n"),
            Some((
                "Write applyTo as \"**/*.ts, src/**\"".into(),
                "---\napplyTo: \"**/*.ts, src/**\"\ndescription: x\n---\nts\n".into()
            ))
        );
        assert_eq!(
            fixed("---\napplyTo:\n- a\n---\n").map(|f| f.1),
            Some("---\napplyTo: \"a\"\n---\n".into())
        );
    }

    #[test]
    fn a_string_has_no_fix() {
        assert_eq!(fixed("---\napplyTo: \"**/*.ts\"\n---\n"), None);
        assert_eq!(fixed("no header\n"), None);
    }
}
