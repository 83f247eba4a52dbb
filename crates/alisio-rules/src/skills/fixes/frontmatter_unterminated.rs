//! `skill-frontmatter-unterminated` (spec/skills.md §6.2): close the block after its last key line,
//! when the result parses.

use super::{Cx, QuickFix, TextEdit, apply, parses};
use crate::skills::frontmatter;
use alisio_base::text::TextRange;

pub(super) fn fixes(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    let text = cx.text;
    let mut last: Option<usize> = None;
    for (i, l) in frontmatter::lines_from(text, 0).enumerate().skip(1) {
        let s = &text[l.start..l.end];
        let keyish = s.find(':').is_some_and(|p| {
            p > 0
                && s[..p]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        });
        if keyish || s.starts_with([' ', '\t']) {
            last = Some(l.next);
        } else {
            let _ = i;
            break;
        }
    }
    if let Some(at) = last {
        let nl = if text[..at].ends_with('\n') || text[..at].ends_with('\r') {
            ""
        } else {
            "\n"
        };
        let edit = TextEdit {
            range: TextRange::empty(at),
            new_text: format!("{nl}---\n"),
        };
        if parses(&apply(text, std::slice::from_ref(&edit))) {
            out.push(QuickFix {
                title: "Close the frontmatter".into(),
                edits: vec![edit],
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{chk, fix};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;

    #[test]
    fn close_the_frontmatter_yields_a_loadable_file() {
        let c = chk(
            "x",
            "---\nname: x\ndescription: d\n# Title\n",
            Profile::Alisio,
        );
        let fixed = fix(
            &c,
            Code::SkillFrontmatterUnterminated,
            "Close the frontmatter",
        );
        assert_eq!(fixed, "---\nname: x\ndescription: d\n---\n# Title\n");
        let again = chk("x", &fixed, Profile::Alisio);
        assert!(again.diagnostics.is_empty() && again.load_error.is_none());
    }
}
