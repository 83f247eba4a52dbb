//! The listing lens of a SKILL.md (spec/skills.md §6.5): how each host lists this skill, in one
//! line, `listed: claude-code ✓, codex shortened to 232, gemini ✓`.

use std::path::Path;

use super::{Fate, Listing};
use alisio_base::config::Host;

/// The hosts the lens names: those of `hosts.enabled` other than `alisio`, else the three
/// simulated ones with a listing of their own.
#[must_use]
pub fn hosts(enabled: Option<&[Host]>) -> Vec<Host> {
    match enabled {
        Some(v) => v.iter().copied().filter(|h| *h != Host::Alisio).collect(),
        None => vec![Host::ClaudeCode, Host::Codex, Host::Gemini],
    }
}

/// How one host lists `file`: `None` when its listing is not simulated.
fn shown(host: Host, l: Option<&Listing>, file: &Path) -> String {
    let h = host.as_str();
    let Some(l) = l else {
        return format!("{h} not simulated");
    };
    match l.items.iter().find(|i| i.file.as_deref() == Some(file)) {
        None => format!("{h} ✗ (not listed)"),
        Some(i) => match i.fate {
            Fate::Full => format!("{h} ✓"),
            Fate::Shortened { to, .. } => format!("{h} shortened to {to}"),
            Fate::Dropped => format!("{h} name only"),
            Fate::Omitted => format!("{h} ✗ (over its budget)"),
        },
    }
}

/// The lens title for `file` over `listings` (one per host of [`hosts`], `None` where the
/// host's listing is not simulated).
#[must_use]
pub fn title(listings: &[(Host, Option<Listing>)], file: &Path) -> String {
    let parts: Vec<String> = listings
        .iter()
        .map(|(h, l)| shown(*h, l.as_ref(), file))
        .collect();
    format!("listed: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::listing::{Item, Unit};
    use std::path::PathBuf;

    fn item(file: &str, fate: Fate) -> Item {
        Item {
            name: "n".into(),
            file: Some(PathBuf::from(file)),
            builtin: false,
            fixed: false,
            full: String::new(),
            name_only: String::new(),
            description: String::new(),
            full_cost: 0,
            name_cost: 0,
            fate,
        }
    }

    fn listing(items: Vec<Item>) -> Listing {
        Listing {
            preamble: Vec::new(),
            unit: Unit::Characters,
            budget: 1.0,
            budget_source: String::new(),
            total_full: 0,
            total: 0,
            items,
        }
    }

    #[test]
    fn one_clause_per_host() {
        let f = "/s/a/SKILL.md";
        let v = vec![
            (Host::ClaudeCode, Some(listing(vec![item(f, Fate::Full)]))),
            (
                Host::Codex,
                Some(listing(vec![item(
                    f,
                    Fate::Shortened { from: 900, to: 232 },
                )])),
            ),
            (
                Host::Gemini,
                Some(listing(vec![item("/other", Fate::Full)])),
            ),
            (Host::Copilot, None),
            (Host::Cursor, Some(listing(vec![item(f, Fate::Omitted)]))),
        ];
        assert_eq!(
            title(&v, Path::new(f)),
            "listed: claude-code ✓, codex shortened to 232, gemini ✗ (not listed), copilot not simulated, cursor ✗ (over its budget)"
        );
        assert_eq!(
            title(
                &[(
                    Host::ClaudeCode,
                    Some(listing(vec![item(f, Fate::Dropped)]))
                )],
                Path::new(f)
            ),
            "listed: claude-code name only"
        );
        assert_eq!(hosts(None), [Host::ClaudeCode, Host::Codex, Host::Gemini]);
        assert_eq!(hosts(Some(&[Host::Alisio, Host::Copilot])), [Host::Copilot]);
    }
}
