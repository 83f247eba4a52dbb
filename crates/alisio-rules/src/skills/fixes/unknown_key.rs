//! `skill-unknown-key` (spec/skills.md §6.2): move the key, or every unknown key, under `metadata`
//! as quoted strings.

use super::{Cx, QuickFix, TextEdit, line_of, quote};
use crate::skills::frontmatter::{self, Value};
use crate::skills::validate::{self, Checked};
use alisio_base::text::TextRange;

pub(super) fn fixes(cx: &Cx<'_>, out: &mut Vec<QuickFix>) {
    let (c, d, fm) = (cx.checked, cx.diagnostic, cx.frontmatter);
    if let Some(f) = fm {
        let unknown: Vec<&frontmatter::FrontmatterEntry> = f
            .entries
            .iter()
            .filter(|e| !validate::allowed_keys(c.profile).contains(&e.key.as_str()))
            .collect();
        if let Some(e) = unknown.iter().find(|e| e.key_span == d.span.bytes) {
            if let Some(fix) = move_under_metadata(c, std::slice::from_ref(e)) {
                out.push(QuickFix {
                    title: format!("Move \"{}\" under metadata", e.key),
                    edits: fix,
                });
            }
            if unknown.len() >= 2
                && let Some(fix) = move_under_metadata(c, &unknown)
            {
                out.push(QuickFix {
                    title: "Move all unknown keys under metadata".into(),
                    edits: fix,
                });
            }
        }
    }
}

fn move_under_metadata(
    c: &Checked,
    keys: &[&frontmatter::FrontmatterEntry],
) -> Option<Vec<TextEdit>> {
    let text = c.text.as_str();
    let fm = c.frontmatter.as_ref()?;
    let block = c.block?;
    let mut edits = Vec::new();
    let mut lines = String::new();
    let meta = fm.get("metadata");
    let indent = match meta.map(|m| &m.value) {
        Some(n) if n.flow => return None,
        Some(
            n @ frontmatter::Node {
                value: Value::Map(items),
                ..
            },
        ) => {
            let first = items.first().map_or(n.span.start, |(k, _)| k.span.start);
            let (ls, _, _) = line_of(text, first);
            if items.is_empty() {
                "  ".to_string()
            } else {
                text[ls..first].to_string()
            }
        }
        Some(n) if n.is_null() => "  ".to_string(),
        Some(_) => return None,
        None => "  ".to_string(),
    };
    for e in keys {
        let v = e.value.scalar_text()?;
        if matches!(e.value.value, Value::Seq(_) | Value::Map(_) | Value::Alias) {
            return None;
        }
        let (ls, _, next) = line_of(text, e.key_span.start);
        // The value must end on the key's line.
        if e.value.span.end > next {
            return None;
        }
        edits.push(TextEdit {
            range: TextRange::new(ls, next),
            new_text: String::new(),
        });
        lines.push_str(&format!("{indent}{}: {}\n", e.key, quote(v)));
    }
    match meta {
        Some(m) if !m.empty && !m.value.is_null() => {
            let (_, _, next) = line_of(
                text,
                m.value.span.end.saturating_sub(1).max(m.value.span.start),
            );
            edits.push(TextEdit {
                range: TextRange::empty(next),
                new_text: lines,
            });
        }
        Some(m) => {
            let (_, _, next) = line_of(text, m.key_span.start);
            edits.push(TextEdit {
                range: TextRange::empty(next),
                new_text: lines,
            });
        }
        None => edits.push(TextEdit {
            range: TextRange::empty(block.close.start),
            new_text: format!("metadata:\n{lines}"),
        }),
    }
    Some(edits)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{chk, fix};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;

    #[test]
    fn unknown_key_moves_under_metadata_and_the_result_is_clean() {
        let c = chk(
            "x",
            "---\nname: x\ndescription: d\nsource: web\n---\n",
            Profile::Alisio,
        );
        let fixed = fix(&c, Code::SkillUnknownKey, "Move \"source\" under metadata");
        assert_eq!(
            fixed,
            "---\nname: x\ndescription: d\nmetadata:\n  source: \"web\"\n---\n"
        );
        assert!(chk("x", &fixed, Profile::Alisio).diagnostics.is_empty());
        let c = chk(
            "x",
            "---\nname: x\nmetadata:\n    a: \"1\"\nsource: web\nfoo: 2\ndescription: d\n---\n",
            Profile::Alisio,
        );
        let fixed = fix(
            &c,
            Code::SkillUnknownKey,
            "Move all unknown keys under metadata",
        );
        assert_eq!(
            fixed,
            "---\nname: x\nmetadata:\n    a: \"1\"\n    source: \"web\"\n    foo: \"2\"\ndescription: d\n---\n"
        );
        assert!(chk("x", &fixed, Profile::Alisio).diagnostics.is_empty());
    }
}
