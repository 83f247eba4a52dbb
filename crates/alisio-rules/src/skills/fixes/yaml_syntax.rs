//! `skill-yaml-syntax` (spec/skills.md §6.2): quote a plain value that holds `: `, when the result
//! parses.

use super::{Cx, QuickFix, TextEdit, apply, line_of, parses, quote};
use alisio_base::text::TextRange;

pub(super) fn fixes(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    let (text, d) = (cx.text, cx.diagnostic);
    let (ls, le, _) = line_of(text, d.span.bytes.start);
    let line = &text[ls..le];
    if let Some(colon) = line.find(": ") {
        let key = &line[..colon];
        let value = line[colon + 2..].trim();
        let ok_key = !key.is_empty()
            && !key.starts_with([' ', '\t'])
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if ok_key && value.contains(": ") {
            let vstart =
                ls + colon + 2 + (line[colon + 2..].len() - line[colon + 2..].trim_start().len());
            let edit = TextEdit {
                range: TextRange::new(vstart, vstart + value.len()),
                new_text: quote(value),
            };
            if parses(&apply(text, std::slice::from_ref(&edit))) {
                out.push(QuickFix {
                    title: format!("Quote the value of \"{key}\""),
                    edits: vec![edit],
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{chk, fix};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;

    #[test]
    fn quote_the_value_fix_produces_a_loadable_file() {
        let c = chk(
            "x",
            "---\nname: x\ndescription: Use when: editing PDFs\n---\n",
            Profile::Alisio,
        );
        let fixed = fix(
            &c,
            Code::SkillYamlSyntax,
            "Quote the value of \"description\"",
        );
        assert_eq!(
            fixed,
            "---\nname: x\ndescription: \"Use when: editing PDFs\"\n---\n"
        );
        let again = chk("x", &fixed, Profile::Alisio);
        assert!(again.diagnostics.is_empty() && again.load_error.is_none());
    }
}
