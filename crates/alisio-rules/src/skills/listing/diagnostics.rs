//! `skill-description-shortened` and `skill-description-dropped` (spec/skills.md §9.5): on each
//! SKILL.md whose description a host's listing shortens, drops or leaves out, naming the host,
//! the budget, by how much the full listing is over it, and the entries that take the most space.

use std::path::Path;

use super::{Fate, Item, Listing};
use crate::skills::validate::{self, Checked};
use alisio_base::config::{Host, Profile};
use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::LineIndex;
use alisio_base::workspace::Fs;

/// How many of the largest other entries a message names.
const NAMED: usize = 3;

fn biggest(l: &Listing, host: Host, me: &Item) -> String {
    let mut others: Vec<&Item> = l
        .items
        .iter()
        .filter(|i| !i.builtin && i.file != me.file && i.cost() > 0)
        .collect();
    others.sort_by(|a, b| b.cost().cmp(&a.cost()).then_with(|| a.name.cmp(&b.name)));
    let mut named: Vec<String> = others
        .iter()
        .take(NAMED)
        .map(|i| format!("{} ({})", i.name, i.cost()))
        .collect();
    let rest = others.len().saturating_sub(NAMED);
    if rest > 0 {
        named.push(format!("{rest} more"));
    }
    let own: u64 = l.items.iter().filter(|i| i.builtin).map(Item::cost).sum();
    if own > 0 {
        named.push(format!("{}'s own entries ({own})", host.as_str()));
    }
    named.join(", ")
}

fn budget_clause(l: &Listing) -> String {
    format!(
        "the full listing needs {} {unit} and the budget is {} ({}), {} over; the most space goes to",
        l.total_full,
        l.budget,
        l.budget_source,
        l.over_by(),
        unit = l.unit.as_str(),
    )
}

/// The message and severity for one item, `None` when the host lists it whole.
#[must_use]
pub fn message(
    host: Host,
    l: &Listing,
    i: &Item,
    cap: Option<u64>,
) -> Option<(Code, Severity, String)> {
    let h = host.as_str();
    match i.fate {
        Fate::Full => None,
        Fate::Shortened { from, to } if cap == Some(to) => Some((
            Code::SkillDescriptionShortened,
            Severity::Information,
            format!(
                "{h} cuts this description from {from} to {to} characters, its cap for one entry"
            ),
        )),
        Fate::Shortened { from, to } => Some((
            Code::SkillDescriptionShortened,
            Severity::Information,
            format!(
                "{h} shortens this description from {from} to {to} characters in its skill listing: {} {}",
                budget_clause(l),
                biggest(l, host, i)
            ),
        )),
        Fate::Dropped => Some((
            Code::SkillDescriptionDropped,
            Severity::Warning,
            format!(
                "{h} lists this skill by name only, without its description: {} {}",
                budget_clause(l),
                biggest(l, host, i)
            ),
        )),
        Fate::Omitted => Some((
            Code::SkillDescriptionDropped,
            Severity::Warning,
            format!(
                "{h} leaves this skill out of its skill listing: {} {}",
                budget_clause(l),
                biggest(l, host, i)
            ),
        )),
    }
}

/// The range: the `description` value, else the `name` value, else the opening line.
fn range(c: &Checked) -> alisio_base::text::Span {
    let idx = LineIndex::new(&c.text);
    let fm = c.frontmatter.as_ref();
    let r = fm
        .and_then(|f| f.get("description"))
        .or_else(|| fm.and_then(|f| f.get("name")))
        .map_or_else(|| idx.line_range(0), |e| e.value.span);
    idx.span(r)
}

/// The per-entry cap of a host, in the unit its `Shortened { to }` uses.
fn cap(host: Host, max_desc: Option<u64>) -> Option<u64> {
    match host {
        Host::ClaudeCode => Some(max_desc.unwrap_or(super::claude::MAX_DESC_CHARS)),
        Host::Codex => Some(super::codex::MAX_DESC_CHARS as u64),
        Host::Copilot => Some(super::copilot::MAX_DESC_CHARS as u64),
        _ => None,
    }
}

/// The diagnostics of one host's listing (host `alisio` collapses all or nothing and says so in
/// the catalog itself: none).
#[must_use]
pub fn diagnostics(fs: &dyn Fs, host: Host, l: &Listing, max_desc: Option<u64>) -> Vec<Diagnostic> {
    if host == Host::Alisio {
        return Vec::new();
    }
    let cap = cap(host, max_desc);
    let mut out = Vec::new();
    for i in l.items.iter().filter(|i| !i.builtin) {
        let (Some(file), Some((code, sev, msg))) = (&i.file, message(host, l, i, cap)) else {
            continue;
        };
        let c = validate::check_file_with(fs, file, Profile::Alisio, false);
        out.push(Diagnostic::new(file.as_path(), range(&c), sev, code, msg));
    }
    out
}

/// The listing of each host of `hosts` seen from `vantage` (`None`: not simulated).
#[must_use]
pub fn listings(
    fs: &dyn Fs,
    input: crate::skills::catalog::Input<'_>,
    vantage: &Path,
    hosts: &[Host],
    o: &super::settings::Overrides,
) -> Vec<(Host, Option<Listing>)> {
    hosts
        .iter()
        .map(|&h| (h, super::for_host(fs, input, vantage, h, o).map(|(_, l)| l)))
        .collect()
}

/// The listing diagnostics of the hosts of `hosts` from their `listings`.
#[must_use]
pub fn of_listings(
    fs: &dyn Fs,
    input: crate::skills::catalog::Input<'_>,
    listings: &[(Host, Option<Listing>)],
    hosts: &[Host],
    o: &super::settings::Overrides,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (h, l) in listings {
        let (Some(l), true) = (l, hosts.contains(h) && *h != Host::Alisio) else {
            continue;
        };
        let max = (*h == Host::ClaudeCode)
            .then(|| {
                super::settings::claude_budget(fs, input.workspace_root, input.env, o)
                    .max_description_chars
            })
            .flatten();
        out.extend(diagnostics(fs, *h, l, max));
    }
    out
}

/// The listing diagnostics of every simulated host in `hosts`, seen from `vantage`.
#[must_use]
pub fn for_hosts(
    fs: &dyn Fs,
    input: crate::skills::catalog::Input<'_>,
    vantage: &Path,
    hosts: &[Host],
    o: &super::settings::Overrides,
) -> Vec<Diagnostic> {
    let ls = listings(fs, input, vantage, hosts, o);
    of_listings(fs, input, &ls, hosts, o)
}
