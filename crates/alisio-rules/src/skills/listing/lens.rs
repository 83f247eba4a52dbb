//! The listing lens of a SKILL.md (spec/skills.md §6.5): how each host lists this skill, in one
//! line, `listed: claude-code ✓, codex shortened to 232, gemini ✓`.

use std::path::Path;

use super::{Fate, Listing};
use alisio_base::config::Host;

/// The hosts the lens names: those of `hosts.enabled` other than `alisio`, else the four
/// simulated ones with a listing of their own.
#[must_use]
pub fn hosts(enabled: Option<&[Host]>) -> Vec<Host> {
    match enabled {
        Some(v) => v.iter().copied().filter(|h| *h != Host::Alisio).collect(),
        None => vec![Host::ClaudeCode, Host::Codex, Host::Gemini, Host::Copilot],
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

/// A ten-cell bar of `used` against `budget` (a full bar past the budget).
fn bar(used: u64, budget: f64) -> String {
    let filled = ((used as f64 / budget) * 10.0).round().clamp(0.0, 10.0) as usize;
    format!("{}{}", "█".repeat(filled), "░".repeat(10 - filled))
}

/// Thousands with commas (the figures of the hover).
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The budget of every host's listing as a bar (spec/skills.md §6.5), the hover's Markdown: what
/// the whole listing would cost with every description kept, against the host's budget, and
/// what it costs as sent.
#[must_use]
pub fn budget_bars(listings: &[(Host, Option<Listing>)]) -> String {
    let mut out = String::from("**Listing budgets** (spec/skills.md §6.5)\n\n");
    for (h, l) in listings {
        let h = h.as_str();
        let line = match l {
            None => format!("- {h}: not simulated"),
            Some(l) if !l.budget.is_finite() => format!(
                "- {h}: no budget ({} {} in full)",
                grouped(l.total),
                l.unit.as_str()
            ),
            Some(l) => {
                let budget = l.budget.floor() as u64;
                let pct = (l.total_full as f64 * 100.0 / l.budget).round() as u64;
                let sent = if l.total == l.total_full {
                    String::new()
                } else {
                    format!("; {} as sent", grouped(l.total))
                };
                format!(
                    "- {h}: `{}` {} of {} {} ({pct}%){sent}",
                    bar(l.total_full, l.budget),
                    grouped(l.total_full),
                    grouped(budget),
                    l.unit.as_str()
                )
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
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
            postamble: Vec::new(),
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
        assert_eq!(
            hosts(None),
            [Host::ClaudeCode, Host::Codex, Host::Gemini, Host::Copilot]
        );
    }

    #[test]
    fn budget_bars_show_the_full_cost_against_each_budget() {
        let with = |budget: f64, full: u64, sent: u64| {
            let mut l = listing(Vec::new());
            l.budget = budget;
            l.total_full = full;
            l.total = sent;
            l
        };
        let mut codex = with(5_440.0, 2_720, 2_720);
        codex.unit = Unit::Tokens;
        let v = vec![
            (Host::ClaudeCode, Some(with(8_000.0, 9_600, 7_990))),
            (Host::Codex, Some(codex)),
            (Host::Gemini, Some(with(f64::INFINITY, 1_234, 1_234))),
            (Host::Copilot, None),
        ];
        assert_eq!(
            budget_bars(&v),
            "**Listing budgets** (spec/skills.md §6.5)\n\n\
             - claude-code: `██████████` 9,600 of 8,000 characters (120%); 7,990 as sent\n\
             - codex: `█████░░░░░` 2,720 of 5,440 tokens (50%)\n\
             - gemini: no budget (1,234 characters in full)\n\
             - copilot: not simulated\n"
        );
        assert_eq!(hosts(Some(&[Host::Alisio, Host::Copilot])), [Host::Copilot]);
    }
}
