//! `skill-frontmatter-missing` (spec/skills.md §6.2): remove blank lines or trailing white space
//! before `---`, or add a frontmatter block.

use super::{
    Cx, DESCRIPTION_PLACEHOLDER, QuickFix, TextEdit, kebab, line_of, quote, valid_name_for,
};
use crate::skills::frontmatter::{self, Found, Missing};
use alisio_base::text::TextRange;

pub(super) fn fixes(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    let (c, text, dir) = (cx.checked, cx.text, &cx.dir);
    match frontmatter::find_block(text, c.bom, c.profile) {
        Found::Missing(Missing::BlankLines(n)) => {
            let end = frontmatter::lines_from(text, 0)
                .nth(n)
                .map_or(0, |l| l.start);
            out.push(QuickFix {
                title: "Remove blank lines before ---".into(),
                edits: vec![TextEdit {
                    range: TextRange::new(0, end),
                    new_text: String::new(),
                }],
            });
        }
        Found::Missing(Missing::TrailingWhitespace) => {
            let (_, le, _) = line_of(text, 0);
            out.push(QuickFix {
                title: "Remove trailing whitespace".into(),
                edits: vec![TextEdit {
                    range: TextRange::new(3, le),
                    new_text: String::new(),
                }],
            });
        }
        Found::Missing(_) => {
            let name = if valid_name_for(c.profile, dir) {
                dir.clone()
            } else {
                kebab(dir)
            };
            out.push(QuickFix {
                title: "Add frontmatter".into(),
                edits: vec![TextEdit {
                    range: TextRange::empty(0),
                    new_text: format!(
                        "---\nname: {name}\ndescription: {}\n---\n",
                        quote(DESCRIPTION_PLACEHOLDER)
                    ),
                }],
            });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{chk, fix};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;

    #[test]
    fn remove_blank_lines_before_the_opening_line() {
        let c = chk(
            "x",
            "\n---\nname: x\ndescription: d\n---\n",
            Profile::Alisio,
        );
        assert_eq!(
            c.diagnostics[0].message,
            "frontmatter must start on the first line; remove the 1 blank line(s) before ---"
        );
        assert_eq!(
            fix(
                &c,
                Code::SkillFrontmatterMissing,
                "Remove blank lines before ---"
            ),
            "---\nname: x\ndescription: d\n---\n"
        );
    }
}
