//! Editor features of the family files as plain data (spec/instructions.md §10.5): the hover
//! of a frontmatter key and the keys to complete in an agent or a command file.

use std::path::Path;

use super::markdown;
use super::{Family, claude, copilot, family_of};

fn keys(f: Family) -> &'static [(&'static str, &'static str)] {
    match f {
        Family::Agent => &claude::AGENT_KEYS,
        Family::Command => &claude::COMMAND_KEYS,
        Family::Mcp => &[],
    }
}

/// The hover at byte `offset` of `text` (the file at `path`): a frontmatter key's meaning, and
/// on an agent's `name` or `description` the line Claude Code sends for it.
#[must_use]
pub fn hover(path: &Path, text: &str, offset: usize) -> Option<String> {
    if copilot::kind_of(path).is_some() {
        return copilot::hover(path, text, offset);
    }
    let fam = family_of(path)?;
    if fam == Family::Mcp {
        return None;
    }
    let doc = markdown::read(text);
    let field = doc
        .fields
        .iter()
        .find(|f| f.key_span.start <= offset && offset <= f.key_span.end)?;
    let (_, what) = keys(fam).iter().find(|(k, _)| *k == field.key)?;
    let mut out = format!(
        "**{}** ({} frontmatter, Claude Code)\n\n{what}",
        field.key,
        match fam {
            Family::Agent => "agent",
            _ => "command",
        }
    );
    if fam == Family::Agent
        && matches!(field.key.as_str(), "name" | "description")
        && let (Some(n), Some(d)) = (doc.text("name"), doc.text("description"))
    {
        let line = format!("- {}: {d} (Tools: …)", n.trim());
        out.push_str(&format!(
            "\n\nAt startup Claude Code lists this agent as:\n\n```\n{line}\n```"
        ));
    }
    Some(out)
}

/// The frontmatter keys to offer at byte `offset`: inside the frontmatter block at the start of
/// a line, the keys of the family not yet written, each with its meaning.
#[must_use]
pub fn completions(path: &Path, text: &str, offset: usize) -> Vec<(&'static str, &'static str)> {
    if copilot::kind_of(path).is_some() {
        return copilot::completions(path, text, offset);
    }
    let Some(fam) = family_of(path).filter(|f| *f != Family::Mcp) else {
        return Vec::new();
    };
    let doc = markdown::read(text);
    let Some(block) = doc.block else {
        return Vec::new();
    };
    let line_start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    // After the opening `---` line, before the closing one.
    let inside = offset > block.start + 3 && offset < block.end.saturating_sub(3);
    let prefix = &text[line_start..offset.min(text.len())];
    if !inside || prefix.contains(':') || prefix.starts_with(char::is_whitespace) {
        return Vec::new();
    }
    keys(fam)
        .iter()
        .filter(|(k, _)| doc.get(k).is_none() && k.starts_with(prefix))
        .copied()
        .collect()
}
