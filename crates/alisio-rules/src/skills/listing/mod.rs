//! The skill listing each host sends to its model (spec/skills.md §9): order, each entry as
//! sent, which descriptions are shortened or dropped, the total and the budget with what set it.
//! One file per host; `collate` and `width` are Claude Code's sort order and measure.
//!
//! Plain data in, plain data out: the sources are built from a host's discovery
//! ([`sources`]); nothing here reads a file.

pub mod alisio;
pub mod claude;
pub mod codex;
pub(crate) mod collate;
pub mod copilot;
pub mod diagnostics;
pub mod gemini;
pub mod lens;
pub mod settings;
mod width;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::catalog::{self, CatalogSkill, Discovery, Input, listed};
use super::discover::SkillScope;
use alisio_base::config::Host;
use alisio_base::workspace::Fs;

/// One skill as a host would list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingSource {
    /// The name the host lists (Claude Code: the directory name).
    pub name: String,
    /// The frontmatter `name` when the host shows it beside the command (Claude Code).
    pub label: Option<String>,
    pub description: String,
    pub when_to_use: Option<String>,
    pub scope: SkillScope,
    pub file: PathBuf,
    /// The root the skill was found in (Codex's aliases).
    pub root: PathBuf,
    /// A slash command (Claude Code lists them after the skills, spec/instructions.md §10.2).
    pub command: bool,
}

/// What happened to one entry's description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Full,
    /// Cut from `from` to `to` characters (the host's unit) to fit.
    Shortened {
        from: u64,
        to: u64,
    },
    /// Listed by name only.
    Dropped,
    /// Not listed at all.
    Omitted,
}

impl Fate {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Fate::Full => "full",
            Fate::Shortened { .. } => "shortened",
            Fate::Dropped => "dropped",
            Fate::Omitted => "omitted",
        }
    }
}

/// The unit a host's budget counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Terminal display columns (Claude Code's `stringWidth`).
    Columns,
    /// Unicode scalar values.
    Characters,
    /// `ceil(bytes / 4)` per line (Codex's token estimate).
    Tokens,
}

impl Unit {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Columns => "columns",
            Unit::Characters => "characters",
            Unit::Tokens => "tokens",
        }
    }
}

/// One entry of a listing.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub name: String,
    /// The SKILL.md; `None` for the host's own entries.
    pub file: Option<PathBuf>,
    /// The host's own entry (Claude Code's bundled skills).
    pub builtin: bool,
    /// Never shortened by the host.
    pub fixed: bool,
    /// The entry with its whole (capped) description, as sent; empty for built-ins.
    pub full: String,
    /// The entry as sent once its description is dropped.
    pub name_only: String,
    /// The description as listed in full (built-ins: empty).
    pub description: String,
    pub full_cost: u64,
    pub name_cost: u64,
    pub fate: Fate,
}

impl Item {
    /// What the entry costs as sent.
    #[must_use]
    pub fn cost(&self) -> u64 {
        match self.fate {
            Fate::Full | Fate::Shortened { .. } => self.full_cost,
            Fate::Dropped => self.name_cost,
            Fate::Omitted => 0,
        }
    }

    /// The description the model sees (empty once dropped or omitted).
    #[must_use]
    pub fn listed_description(&self) -> &str {
        match self.fate {
            Fate::Full | Fate::Shortened { .. } => &self.description,
            _ => "",
        }
    }

    /// The entry as sent (`None` when omitted).
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match self.fate {
            Fate::Full | Fate::Shortened { .. } => Some(&self.full),
            Fate::Dropped => Some(&self.name_only),
            Fate::Omitted => None,
        }
    }
}

/// A host's listing.
#[derive(Clone, Debug, PartialEq)]
pub struct Listing {
    /// Lines the host sends before the entries (Codex's skill roots table), not charged.
    pub preamble: Vec<String>,
    /// Lines the host sends after the entries (Copilot's `</skills>`).
    pub postamble: Vec<String>,
    pub unit: Unit,
    pub budget: f64,
    /// How the budget was computed (settings and defaults).
    pub budget_source: String,
    /// The cost had every description been kept.
    pub total_full: u64,
    /// The cost as sent.
    pub total: u64,
    pub items: Vec<Item>,
}

impl Listing {
    /// By how much the full listing is over the budget (0 when it fits).
    #[must_use]
    pub fn over_by(&self) -> u64 {
        (self.total_full as f64 - self.budget).max(0.0).ceil() as u64
    }
}

/// The hosts whose listing is simulated; Cursor has no evidence to simulate from
/// (spec/skills.md §9.4).
pub const HOSTS: [Host; 5] = [
    Host::Alisio,
    Host::ClaudeCode,
    Host::Codex,
    Host::Gemini,
    Host::Copilot,
];

/// The listing `host` builds from its discovery `d` (`None`: not simulated for that host).
#[must_use]
pub fn of_discovery(
    fs: &dyn Fs,
    input: Input<'_>,
    d: &Discovery,
    o: &settings::Overrides,
) -> Option<Listing> {
    match d.host {
        Host::Alisio => Some(alisio::listing(&d.entries)),
        Host::ClaudeCode => {
            let mut s = sources(d);
            s.extend(claude_commands(fs, input, d, &s));
            Some(claude::listing(
                &s,
                &settings::claude_budget(fs, input.workspace_root, input.env, o),
            ))
        }
        Host::Codex => Some(codex::listing(
            &sources(d)
                .into_iter()
                .filter(|s| codex_implicit(fs, &s.file))
                .collect::<Vec<_>>(),
            &codex_root_order(d),
            settings::codex_budget(fs, input.env, o),
        )),
        Host::Gemini => Some(gemini::listing(&gemini::discover(
            fs, &d.vantage, input.env,
        ))),
        Host::Copilot => Some(copilot::listing(
            &copilot::discover(fs, input.workspace_root, input.env),
            input.settings.hosts.copilot.read_file_tool,
        )),
        Host::Cursor => None,
    }
}

/// Whether Codex lists a skill: not when its `agents/openai.yaml` sets
/// `policy.allow_implicit_invocation: false` (two of Codex 0.171.0's own system skills do).
fn codex_implicit(fs: &dyn Fs, skill_md: &Path) -> bool {
    use super::frontmatter::{ScalarKind, Value as Y, parse_yaml};
    let Some(file) = skill_md.parent().map(|d| d.join("agents/openai.yaml")) else {
        return true;
    };
    let Ok(bytes) = fs.read(&file) else {
        return true;
    };
    let text = String::from_utf8_lossy(&bytes);
    let range = alisio_base::text::TextRange {
        start: 0,
        end: text.len(),
    };
    let fm = parse_yaml(&text, range, alisio_base::config::Profile::Codex);
    let Some(Y::Map(pairs)) = fm.get("policy").map(|e| &e.value.value) else {
        return true;
    };
    !pairs.iter().any(|(k, v)| {
        k.as_str() == Some("allow_implicit_invocation")
            && matches!(
                v.value,
                Y::Scalar {
                    kind: ScalarKind::Bool(false),
                    ..
                }
            )
    })
}

/// Codex's roots in the order of its roots table (measured on 0.171.0): user roots, system,
/// admin (an assumption: not measured), then the repo roots from the project root down.
fn codex_root_order(d: &Discovery) -> Vec<PathBuf> {
    let mut roots: Vec<(u8, usize, PathBuf)> = d
        .walk
        .roots
        .iter()
        .map(|r| {
            let group = match r.scope {
                SkillScope::System => 1,
                SkillScope::Admin => 2,
                SkillScope::Project => 3,
                _ => 0,
            };
            (group, r.path.components().count(), r.path.clone())
        })
        .collect();
    roots.sort_by_key(|(g, depth, _)| (*g, if *g == 3 { *depth } else { 0 }));
    roots.into_iter().map(|(_, _, p)| p).collect()
}

/// Discovers `host` from `vantage` and builds its listing (Gemini, Copilot: with an empty
/// discovery; they walk their own roots).
#[must_use]
pub fn for_host(
    fs: &dyn Fs,
    input: Input<'_>,
    vantage: &Path,
    host: Host,
    o: &settings::Overrides,
) -> Option<(Discovery, Listing)> {
    if !HOSTS.contains(&host) {
        return None;
    }
    // Gemini and Copilot list from their own roots (gemini.rs, copilot.rs), not from a host
    // discovery: theirs is left empty rather than walking host `alisio`'s roots for nothing.
    let d = if matches!(host, Host::Gemini | Host::Copilot) {
        Discovery {
            vantage: vantage.to_path_buf(),
            host,
            walk: super::discover::Walk::default(),
            skills: Vec::new(),
            entries: Vec::new(),
        }
    } else {
        catalog::discover_host(fs, input, vantage, host)
    };
    let l = of_discovery(fs, input, &d, o)?;
    Some((d, l))
}

/// The hosts whose listing diagnostics are reported: those of `hosts.enabled` that are
/// simulated and have a budget (not `alisio`, whose catalog collapses whole, nor `gemini`,
/// which has none), else Claude Code and Codex (spec/skills.md §9.5).
#[must_use]
pub fn diagnostic_hosts(enabled: Option<&[Host]>) -> Vec<Host> {
    match enabled {
        Some(v) => v
            .iter()
            .copied()
            .filter(|h| !matches!(h, Host::Alisio | Host::Gemini) && HOSTS.contains(h))
            .collect(),
        None => vec![Host::ClaudeCode, Host::Codex],
    }
}

/// Why a host's listing is not simulated.
#[must_use]
pub fn not_simulated(host: Host) -> String {
    format!(
        "the skill listing of {} is not simulated (spec/skills.md §9.4)",
        host.as_str()
    )
}

/// The JSON of a listing (spec/interfaces.md §1.5).
#[must_use]
pub fn listing_json(host: Host, l: &Listing, show: &dyn Fn(&Path) -> String) -> Value {
    json!({
        "host": host.as_str(),
        "preamble": l.preamble,
        "postamble": l.postamble,
        "unit": l.unit.as_str(),
        "budget": l.budget,
        "budgetSource": l.budget_source,
        "totalFull": l.total_full,
        "total": l.total,
        "overBy": l.over_by(),
        "entries": l.items.iter().map(|i| {
            let mut v = json!({
                "name": i.name,
                "file": i.file.as_deref().map(show),
                "builtin": i.builtin,
                "status": i.fate.as_str(),
                "text": i.text(),
                "cost": i.cost(),
                "fullCost": i.full_cost,
            });
            if let (Fate::Shortened { from, to }, Value::Object(m)) = (i.fate, &mut v) {
                m.insert("shortenedFrom".into(), json!(from));
                m.insert("shortenedTo".into(), json!(to));
            }
            v
        }).collect::<Vec<_>>(),
    })
}

/// The sources of a host discovery: effective, enabled, model-invocable entries.
#[must_use]
pub fn sources(d: &Discovery) -> Vec<ListingSource> {
    listed(&d.entries).into_iter().map(source).collect()
}

/// Claude Code's slash commands that reach its skill listing from `d`'s vantage: not hidden,
/// not shadowed by a skill or another command (spec/instructions.md §10.2).
fn claude_commands(
    fs: &dyn Fs,
    input: Input<'_>,
    d: &Discovery,
    skills: &[ListingSource],
) -> Vec<ListingSource> {
    let names: Vec<(String, PathBuf)> = skills
        .iter()
        .map(|s| (s.name.clone(), s.file.clone()))
        .collect();
    let st =
        crate::families::claude::startup(fs, input.env, input.workspace_root, &d.vantage, &names);
    st.of(crate::families::Family::Command)
        .filter(|e| e.loaded())
        .map(|e| ListingSource {
            name: e.name.clone(),
            label: None,
            description: e.description.clone(),
            when_to_use: None,
            scope: match e.scope {
                crate::families::FamilyScope::User => SkillScope::User,
                crate::families::FamilyScope::Project => SkillScope::Project,
            },
            // Not a skill root: Claude Code lists commands without paths (only Codex's
            // aliases read `root`).
            root: e.file.parent().map(Path::to_path_buf).unwrap_or_default(),
            file: e.file.clone(),
            command: true,
        })
        .collect()
}

fn source(e: &CatalogSkill) -> ListingSource {
    ListingSource {
        name: e.name.clone(),
        label: e.label.clone(),
        description: e.description.clone(),
        when_to_use: e.when_to_use.clone(),
        scope: e.scope,
        file: e.file.clone(),
        root: e.root.clone(),
        command: false,
    }
}
