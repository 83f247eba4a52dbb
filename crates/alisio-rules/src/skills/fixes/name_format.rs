//! `skill-name-format` (spec/skills.md §6.2): rename the skill to the kebab-case form of its name,
//! or set it to the directory name.

use super::{Cx, QuickFix, TextEdit, kebab, name_directory_mismatch::set_name};

pub(super) fn fixes(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    let name_entry = cx.name_entry;
    if let Some(e) = name_entry {
        let k = kebab(e.value.scalar_text().unwrap_or(""));
        if !k.is_empty() && Some(k.as_str()) != e.value.scalar_text() {
            out.push(QuickFix {
                title: format!("Rename skill to \"{k}\""),
                edits: vec![TextEdit {
                    range: e.value.span,
                    new_text: k,
                }],
            });
        }
    }
    set_name(cx, out);
}

#[cfg(test)]
mod tests {
    use super::super::kebab;
    use super::super::test_util::{chk, fix};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;

    #[test]
    fn rename_fixes_for_bad_names() {
        for (bad, good) in [("Bad--Name", "bad-name"), ("-lead", "lead")] {
            let c = chk(
                "x",
                &format!("---\nname: {bad}\ndescription: d\n---\n"),
                Profile::Alisio,
            );
            assert_eq!(
                fix(
                    &c,
                    Code::SkillNameFormat,
                    &format!("Rename skill to \"{good}\"")
                ),
                format!("---\nname: {good}\ndescription: d\n---\n")
            );
        }
        assert_eq!(kebab("Données Café"), "donnees-cafe");
        assert_eq!(kebab("---"), "");
    }
}
