//! Description quality (spec/skills.md §11): hints on one SKILL.md (no when-to-use clause, first
//! or second person, only generic words, the description restates the name, `$N` or
//! `$ARGUMENTS` inside code or a price, an inline `!` command Claude Code never runs, what an upload to claude.ai or the API rejects) and
//! `skill-collision` between two skills of one catalog (`collision`).
//!
//! Plain data: [`hints`] returns located findings over the judged text; validation turns them
//! into diagnostics under the profile's severities, and the suppressions decide what is shown.

mod arguments;
pub mod collision;
pub mod injection;
mod words;

use crate::skills::frontmatter::Frontmatter;
use crate::skills::triggers::router;
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

/// One finding: its code, its byte range in the judged text and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub code: Code,
    pub range: TextRange,
    pub message: String,
}

impl Finding {
    fn new(code: Code, range: TextRange, message: String) -> Self {
        Self {
            code,
            range,
            message,
        }
    }
}

/// The reserved words an upload to claude.ai or the Claude API refuses in a name.
pub const RESERVED_WORDS: &[&str] = &["anthropic", "claude"];

/// The hints of one SKILL.md. `text` is the judged text, `fm` its frontmatter (without a YAML
/// error), `body_start` where the body begins, `dir_name` the skill directory's name (the name
/// Claude Code and Codex use when `name` is absent).
#[must_use]
pub fn hints(text: &str, fm: &Frontmatter, body_start: usize, dir_name: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let name_entry = fm.get("name");
    let name = name_entry
        .and_then(|e| e.value.as_str())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or(dir_name);
    if let Some(e) = name_entry.filter(|e| e.value.as_str().is_some()) {
        upload_name(name, e.value.span, &mut out);
    }
    let when_to_use = fm
        .get("when_to_use")
        .and_then(|e| e.value.as_str())
        .is_some_and(|s| !s.trim().is_empty());
    if let Some(e) = fm.get("description")
        && let Some(d) = e.value.as_str().filter(|s| !s.trim().is_empty())
    {
        description_hints(d, name, when_to_use, e.value.span, &mut out);
    }
    let takes_arguments = fm.get("argument-hint").is_some() || fm.get("arguments").is_some();
    if !takes_arguments {
        out.extend(arguments::in_code(text, body_start));
    }
    out.extend(injection::not_run(text, body_start));
    out
}

fn description_hints(
    d: &str,
    name: &str,
    when_to_use: bool,
    span: TextRange,
    out: &mut Vec<Finding>,
) {
    if let Some(tag) = words::xml_tag(d) {
        out.push(Finding::new(
            Code::SkillUploadRejected,
            span,
            format!(
                "claude.ai and the Claude API reject a skill whose description contains an XML tag (\"{tag}\")"
            ),
        ));
    }
    if !when_to_use && words::mostly_ascii(d) && !words::has_when_clause(d) {
        out.push(Finding::new(
            Code::SkillDescriptionNoWhen,
            span,
            "the description says what the skill is but not when to use it; add a clause such as \"Use when …\" (the model chooses a skill by its description)".into(),
        ));
    }
    if let Some((word, person)) = words::person(d) {
        out.push(Finding::new(
            Code::SkillDescriptionPerson,
            span,
            format!(
                "the description is written in the {person} person (\"{word}\"); write it in the third person (\"Extracts …\"): it is put into the system prompt, where \"I\" and \"you\" are someone else"
            ),
        ));
    }
    let terms = router::terms(d);
    let name_terms = router::terms(name);
    let from_name = terms.iter().filter(|t| name_terms.contains(t)).count();
    let rest_generic = terms
        .iter()
        .all(|t| name_terms.contains(t) || words::is_generic(t));
    if rest_generic && from_name > 0 {
        out.push(Finding::new(
            Code::SkillDescriptionRestatesName,
            span,
            format!(
                "the description only restates the name \"{name}\"; say what the skill does and when to use it"
            ),
        ));
    } else if rest_generic {
        out.push(Finding::new(
            Code::SkillDescriptionGeneric,
            span,
            "the description holds only generic words (such as \"helps\", \"tools\", \"tasks\"); name the files, formats, commands or situations it is for".into(),
        ));
    }
}

fn upload_name(name: &str, span: TextRange, out: &mut Vec<Finding>) {
    if let Some(tag) = words::xml_tag(name) {
        out.push(Finding::new(
            Code::SkillUploadRejected,
            span,
            format!(
                "claude.ai and the Claude API reject a skill whose name contains an XML tag (\"{tag}\")"
            ),
        ));
    }
    let lower = name.to_lowercase();
    if let Some(w) = RESERVED_WORDS.iter().find(|w| lower.contains(*w)) {
        out.push(Finding::new(
            Code::SkillUploadRejected,
            span,
            format!(
                "claude.ai and the Claude API reject a skill whose name contains the reserved word \"{w}\""
            ),
        ));
    }
}

#[cfg(test)]
mod tests;
