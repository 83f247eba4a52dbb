//! `skill-description-missing` (spec/skills.md §6.2): add the placeholder description.

use super::{Cx, DESCRIPTION_PLACEHOLDER, QuickFix, TextEdit, line_of, quote};
use alisio_base::text::TextRange;

pub(super) fn fixes(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    let (c, text, fm, name_entry) = (cx.checked, cx.text, cx.frontmatter, cx.name_entry);
    let line = format!("description: {}", quote(DESCRIPTION_PLACEHOLDER));
    let edit = match (fm.and_then(|f| f.get("description")), name_entry, c.block) {
        (Some(e), _, _) if e.empty => TextEdit {
            range: TextRange::empty(e.key_span.end + 1),
            new_text: format!(" {}", quote(DESCRIPTION_PLACEHOLDER)),
        },
        (Some(e), _, _) => TextEdit {
            range: e.value.span,
            new_text: quote(DESCRIPTION_PLACEHOLDER),
        },
        (None, Some(n), _) => {
            let (_, _, next) = line_of(text, n.key_span.start);
            TextEdit {
                range: TextRange::empty(next),
                new_text: format!("{line}\n"),
            }
        }
        (None, None, Some(b)) => TextEdit {
            range: TextRange::empty(b.yaml.start),
            new_text: format!("{line}\n"),
        },
        (None, None, None) => return,
    };
    out.push(QuickFix {
        title: "Add a description".into(),
        edits: vec![edit],
    });
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{chk, fix};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;

    #[test]
    fn add_description_and_frontmatter() {
        let c = chk("x", "---\nname: x\n---\n", Profile::Alisio);
        assert_eq!(
            fix(&c, Code::SkillDescriptionMissing, "Add a description"),
            "---\nname: x\ndescription: \"Describe what this skill does and when to use it.\"\n---\n"
        );
        let c = chk("my-skill", "# Title\n", Profile::Alisio);
        assert_eq!(
            fix(&c, Code::SkillFrontmatterMissing, "Add frontmatter"),
            "---\nname: my-skill\ndescription: \"Describe what this skill does and when to use it.\"\n---\n# Title\n"
        );
    }
}
