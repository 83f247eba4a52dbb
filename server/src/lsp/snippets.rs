//! The snippets of `server/snippets/` (VS Code snippet format, shared with the editors) served as
//! completion items: file templates in an empty SKILL.md, instruction file or
//! `.alisio/config.json`, and the optional-keys snippet inside a SKILL.md frontmatter.

use std::sync::OnceLock;

use serde_json::Value;
use tower_lsp_server::ls_types::*;

const SKILL: &str = include_str!("../../snippets/skill.code-snippets");
const AGENTS: &str = include_str!("../../snippets/agents-md.code-snippets");
const CONFIG: &str = include_str!("../../snippets/alisio-config.code-snippets");

/// Which kind of document the completion is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocKind {
    Skill,
    Instructions,
    Config,
}

struct Snippet {
    name: String,
    prefix: String,
    description: String,
    body: String,
    file_template: bool,
}

fn parse(text: &str) -> Vec<Snippet> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return Vec::new();
    };
    map.into_iter()
        .filter_map(|(name, v)| {
            let prefix = match &v["prefix"] {
                Value::String(s) => s.clone(),
                Value::Array(a) => a.first()?.as_str()?.to_string(),
                _ => return None,
            };
            let body = match &v["body"] {
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => return None,
            };
            Some(Snippet {
                name,
                prefix,
                description: v["description"].as_str().unwrap_or_default().to_string(),
                body,
                file_template: v["isFileTemplate"].as_bool().unwrap_or(false),
            })
        })
        .collect()
}

fn all() -> &'static [(DocKind, Vec<Snippet>)] {
    static ALL: OnceLock<Vec<(DocKind, Vec<Snippet>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        vec![
            (DocKind::Skill, parse(SKILL)),
            (DocKind::Instructions, parse(AGENTS)),
            (DocKind::Config, parse(CONFIG)),
        ]
    })
}

fn item(s: &Snippet) -> CompletionItem {
    CompletionItem {
        label: s.prefix.clone(),
        kind: Some(CompletionItemKind::SNIPPET),
        detail: Some(s.name.clone()),
        documentation: (!s.description.is_empty())
            .then(|| Documentation::String(s.description.clone())),
        insert_text: Some(s.body.clone()),
        insert_text_format: Some(InsertTextFormat::SNIPPET),
        ..CompletionItem::default()
    }
}

/// Snippet items for a document of `kind`: the file templates when the document is empty, and
/// for a SKILL.md frontmatter key position (`in_frontmatter_key`) the other skill snippets.
#[must_use]
pub fn completions(
    kind: DocKind,
    empty_document: bool,
    in_frontmatter_key: bool,
) -> Vec<CompletionItem> {
    all()
        .iter()
        .filter(|(k, _)| *k == kind)
        .flat_map(|(_, list)| list.iter())
        .filter(|s| (empty_document && s.file_template) || (in_frontmatter_key && !s.file_template))
        .map(item)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_snippet_file_parses_and_has_a_template() {
        for (kind, list) in all() {
            assert!(
                list.iter().any(|s| s.file_template),
                "{kind:?} has no file template"
            );
        }
        let skill = completions(DocKind::Skill, true, false);
        assert_eq!(skill.len(), 1);
        assert_eq!(skill[0].label, "skill");
        assert!(
            skill[0]
                .insert_text
                .as_deref()
                .unwrap()
                .starts_with("---\nname: ${1:skill-name}\n")
        );
        assert_eq!(
            completions(DocKind::Skill, false, true)[0].label,
            "skill-optional"
        );
        assert!(completions(DocKind::Instructions, false, false).is_empty());
    }
}
