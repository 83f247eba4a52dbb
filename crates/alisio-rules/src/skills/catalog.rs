//! Discovery results as catalog entries (spec/skills.md §3): identity, shadowing, enabling, token
//! figures, the JSON of `skills list --json` / `alisio/skillCatalog`, the catalog text a model
//! receives (spec/skills.md §4.1), and `alisio/setSkillEnabled` (spec/skills.md §3.3).
//!
//! Invariant: only files host `alisio` can load become entries, judged by the `alisio` rules
//! whatever the active profile; shadowing is keyed by plain `name`, first entry wins, and
//! disabling never promotes a shadowed copy.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use super::discover::{self, Candidate, Owner, PluginRoot, Root, SkillScope, Walk};
use super::validate::{self, Checked, Judged};
use alisio_base::config::{Host, Profile, Settings};
use alisio_base::text::TextRange;
use alisio_base::workspace::par::par_map;
use alisio_base::workspace::{Env, Fs, display_path};

/// The whole catalog text when the listed JSON exceeds [`CATALOG_MAX_CHARS`].
pub const COLLAPSED: &str =
    "Large skill catalog. Use skill_search to find skills, then skill_load.";
pub const CATALOG_MAX_CHARS: usize = 24_000;
pub const CATALOG_HEADER: &str = "Available skills (load instructions with skill_load):";

/// What a discovery needs besides the file system and the vantage.
#[derive(Clone, Copy)]
pub struct Input<'a> {
    pub workspace_root: &'a Path,
    pub trusted: bool,
    pub settings: &'a Settings,
    pub env: &'a Env,
    /// Roots registered by loaded plugins (none until plugins exist).
    pub plugins: &'a [PluginRoot],
}

/// A catalog entry (spec/skills.md §3.1): a skill as the catalog resolved it (its printed form
/// is [`CatalogEntry`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogSkill {
    pub id: String,
    pub name: String,
    pub display_id: String,
    pub description: String,
    pub scope: SkillScope,
    /// Absolute `SKILL.md` path and its root (canonical root of the walk).
    pub file: PathBuf,
    pub root: PathBuf,
    pub dir: PathBuf,
    pub enabled: bool,
    pub effective: bool,
    pub shadowed_by: Option<String>,
    pub effective_id: String,
    pub locked: bool,
    pub owner: Option<Owner>,
    pub model_invocable: bool,
    pub approximate_tokens: u64,
    pub catalog_tokens: u64,
    pub body_tokens: u64,
    /// Index of the winning entry when shadowed.
    pub winner: Option<usize>,
    /// Span of the `name` value in the file.
    pub name_span: TextRange,
    /// For project roots, the directory d whose root holds the skill (owner vantage).
    pub project_dir: Option<PathBuf>,
    /// Claude Code simulation: the frontmatter `name`, which it shows beside the directory name.
    pub label: Option<String>,
    /// Claude Code simulation: `when_to_use`, which it lists after the description.
    pub when_to_use: Option<String>,
}

/// One discovered `SKILL.md` with its host-`alisio` judgement.
#[derive(Clone, Debug)]
pub struct DiscoveredSkill {
    pub candidate: Candidate,
    pub checked: Checked,
    /// The report's judgement of the same read, when the discovery was asked for one
    /// ([`discover_host_for`]); taken by `report::run`.
    pub judged: Option<Judged>,
}

/// Everything one discovery from one vantage produced.
#[derive(Clone, Debug)]
pub struct Discovery {
    pub vantage: PathBuf,
    pub host: Host,
    pub walk: Walk,
    pub skills: Vec<DiscoveredSkill>,
    pub entries: Vec<CatalogSkill>,
}

impl Discovery {
    /// The root a candidate came from.
    #[must_use]
    pub fn root_of(&self, c: &Candidate) -> &Root {
        &self.walk.roots[c.root]
    }
    /// The effective entry with this id.
    #[must_use]
    pub fn effective(&self, id: &str) -> Option<&CatalogSkill> {
        self.entries.iter().find(|e| e.effective && e.id == id)
    }
}

fn load_all(
    fs: &dyn Fs,
    candidates: &[Candidate],
    profile: Profile,
    report: Option<Profile>,
) -> Vec<DiscoveredSkill> {
    par_map(candidates, super::PAR_MIN, |c| {
        let (checked, judged) = validate::load(fs, &c.file, c.symlink, profile, report);
        DiscoveredSkill {
            candidate: c.clone(),
            checked,
            judged,
        }
    })
}

/// A host-`alisio` discovery from `vantage` (a canonical directory), with entries.
#[must_use]
pub fn discover(fs: &dyn Fs, input: Input<'_>, vantage: &Path) -> Discovery {
    discover_for(fs, input, vantage, None)
}

fn discover_for(
    fs: &dyn Fs,
    input: Input<'_>,
    vantage: &Path,
    report: Option<Profile>,
) -> Discovery {
    let roots = discover::alisio_roots(
        input.workspace_root,
        vantage,
        input.trusted,
        input.settings,
        input.env,
        input.plugins,
    );
    discover_roots(fs, roots, &input.settings.skill_overrides, vantage, report)
}

/// A host-`alisio` discovery over explicit roots (e.g. the PATHs of `skills validate`); with
/// `report`, each skill is also judged for a report under that profile (see [`DiscoveredSkill::judged`]).
#[must_use]
pub fn discover_roots(
    fs: &dyn Fs,
    roots: Vec<Root>,
    overrides: &BTreeMap<String, bool>,
    vantage: &Path,
    report: Option<Profile>,
) -> Discovery {
    let walk = discover::walk(fs, roots);
    let skills = load_all(fs, &walk.candidates, Profile::Alisio, report);
    let mut d = Discovery {
        vantage: vantage.to_path_buf(),
        host: Host::Alisio,
        walk,
        skills,
        entries: Vec::new(),
    };
    d.entries = build_entries(&d, overrides);
    shed(&mut d.skills);
    d
}

/// Drops what the entries were built from: texts, parse trees, links and diagnostics of every
/// skill (the report judges each file again; editors re-read the file they show). Only
/// `load_error`, `meta` and the sizes stay.
fn shed(skills: &mut [DiscoveredSkill]) {
    for s in skills {
        let c = &mut s.checked;
        c.text = String::new();
        c.block = None;
        c.frontmatter = None;
        c.links = Vec::new();
        c.diagnostics = Vec::new();
    }
}

/// A discovery simulating `host` (spec/skills.md §1.5). Host `alisio` is [`discover`].
#[must_use]
pub fn discover_host(fs: &dyn Fs, input: Input<'_>, vantage: &Path, host: Host) -> Discovery {
    discover_host_for(fs, input, vantage, host, None)
}

/// [`discover_host`], each skill also judged for a report under `report` from the same read
/// (`check`, `skills validate` and the server's pass read and parse every skill once).
#[must_use]
pub fn discover_host_for(
    fs: &dyn Fs,
    input: Input<'_>,
    vantage: &Path,
    host: Host,
    report: Option<Profile>,
) -> Discovery {
    match host {
        // spec/hosts.md §6: skill discovery of the three newer hosts is not simulated.
        Host::Alisio | Host::Copilot | Host::Gemini | Host::Cursor => {
            discover_for(fs, input, vantage, report)
        }
        Host::Codex => {
            let walk = discover::walk_codex(
                fs,
                discover::codex_roots(input.workspace_root, vantage, input.env),
            );
            simulated(fs, walk, vantage, host, Profile::Codex, report)
        }
        Host::ClaudeCode => {
            let walk = discover::walk_claude(
                fs,
                discover::claude_roots(input.workspace_root, vantage, input.env),
            );
            simulated(fs, walk, vantage, host, Profile::ClaudeCode, report)
        }
    }
}

fn simulated(
    fs: &dyn Fs,
    walk: Walk,
    vantage: &Path,
    host: Host,
    profile: Profile,
    report: Option<Profile>,
) -> Discovery {
    let skills = load_all(fs, &walk.candidates, profile, report);
    let mut entries = Vec::new();
    for s in &skills {
        let blocked = s.checked.diagnostics.iter().any(|d| {
            d.severity == alisio_base::diagnostic::Severity::Error
                && validate::blocks_loading(d.code, None)
        });
        if blocked {
            continue;
        }
        let dir = s
            .candidate
            .dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let fm = s.checked.frontmatter.as_ref();
        let fm_name = fm
            .and_then(|f| f.get("name"))
            .and_then(|e| e.value.as_str())
            .filter(|n| !n.trim().is_empty());
        let name = match host {
            // Claude Code: the directory name is the command; `name` is a label.
            Host::ClaudeCode => dir.clone(),
            _ => fm_name.map_or(dir.clone(), |n| {
                n.split_whitespace().collect::<Vec<_>>().join(" ")
            }),
        };
        let text = |k: &str| {
            fm.and_then(|f| f.get(k))
                .and_then(|e| e.value.as_str())
                .map(str::to_string)
        };
        let mut description = text("description").unwrap_or_default();
        let claude = host == Host::ClaudeCode;
        if claude && description.trim().is_empty() {
            description = claude_fallback_description(&s.checked);
        }
        let user_only = fm
            .and_then(|f| f.get("disable-model-invocation"))
            .and_then(|e| e.value.scalar_text())
            .is_some_and(|t| matches!(t, "true" | "yes" | "on" | "1"));
        entries.push(CatalogSkill {
            locked: false,
            owner: None,
            model_invocable: !(claude && user_only),
            label: text("name").filter(|_| claude),
            when_to_use: text("when_to_use").filter(|_| claude),
            ..base_entry(&walk, s, name.clone(), name, description)
        });
    }
    if host == Host::Codex {
        // Ordered by scope (repo, user, system, admin), then name, then path; no shadowing.
        entries.sort_by(|a, b| (a.scope, &a.name, &a.file).cmp(&(b.scope, &b.name, &b.file)));
    }
    assign_ids(&mut entries, host == Host::ClaudeCode);
    let mut skills = skills;
    shed(&mut skills);
    Discovery {
        vantage: vantage.to_path_buf(),
        host,
        walk,
        skills,
        entries,
    }
}

/// What Claude Code lists for a skill without a description: the first non-empty line of the
/// body (of the whole file when there is no frontmatter), without leading `#`s, trimmed
/// (measured on 2.1.332, spec/skills.md §9.2).
fn claude_fallback_description(c: &Checked) -> String {
    let body = c.block.as_ref().map_or(c.text.as_str(), |b| {
        c.text.get(b.body_start..).unwrap_or("")
    });
    body.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .unwrap_or_default()
}

/// `#shadow-n` ids, and (when `shadow`) first-wins shadowing by plain name.
fn assign_ids(entries: &mut [CatalogSkill], shadow: bool) {
    let mut per_display: HashMap<String, usize> = HashMap::new();
    let mut winner_of: HashMap<String, usize> = HashMap::new();
    for i in 0..entries.len() {
        let n = per_display
            .entry(entries[i].display_id.clone())
            .or_insert(0);
        entries[i].id = if *n == 0 {
            entries[i].display_id.clone()
        } else {
            format!("{}#shadow-{n}", entries[i].display_id)
        };
        *n += 1;
        if shadow {
            match winner_of.get(&entries[i].name) {
                Some(&w) => {
                    entries[i].effective = false;
                    entries[i].shadowed_by = Some(entries[w].display_id.clone());
                    entries[i].effective_id = entries[w].id.clone();
                    entries[i].winner = Some(w);
                }
                None => {
                    winner_of.insert(entries[i].name.clone(), i);
                    entries[i].effective_id = entries[i].id.clone();
                }
            }
        } else {
            entries[i].effective_id = entries[i].id.clone();
        }
    }
}

/// The entry of a loadable skill `s` of `walk`: enabled and effective until ids, shadowing and
/// overrides are applied; locked and owned when its root belongs to a plugin.
fn base_entry(
    walk: &Walk,
    s: &DiscoveredSkill,
    name: String,
    display_id: String,
    description: String,
) -> CatalogSkill {
    let root = &walk.roots[s.candidate.root];
    CatalogSkill {
        id: display_id.clone(),
        name,
        display_id,
        description,
        scope: root.scope,
        file: s.candidate.file.clone(),
        root: walk.canonical[s.candidate.root]
            .clone()
            .unwrap_or_else(|| root.path.clone()),
        dir: s.candidate.dir.clone(),
        enabled: true,
        effective: true,
        shadowed_by: None,
        effective_id: String::new(),
        locked: root.owner.is_some(),
        owner: root.owner.clone(),
        model_invocable: true,
        approximate_tokens: s.checked.size.div_ceil(4).max(1),
        catalog_tokens: 0,
        body_tokens: (s.checked.body_bytes() as u64).div_ceil(4),
        winner: None,
        name_span: s.checked.name_span().unwrap_or_default(),
        project_dir: root.project_dir.clone(),
        label: None,
        when_to_use: None,
    }
}

fn build_entries(d: &Discovery, overrides: &BTreeMap<String, bool>) -> Vec<CatalogSkill> {
    let mut entries = Vec::new();
    for s in &d.skills {
        if s.checked.load_error.is_some() {
            continue;
        }
        let Some(meta) = &s.checked.meta else {
            continue;
        };
        let root = d.root_of(&s.candidate);
        let display_id = match &root.owner {
            Some(o) => format!("{}:{}", o.id, meta.name),
            None => meta.name.clone(),
        };
        let catalog_obj = json!({"name": meta.name, "description": meta.description}).to_string();
        entries.push(CatalogSkill {
            model_invocable: meta.model_invocable,
            catalog_tokens: (catalog_obj.chars().count() as u64).div_ceil(4),
            ..base_entry(
                &d.walk,
                s,
                meta.name.clone(),
                display_id,
                meta.description.clone(),
            )
        });
    }
    assign_ids(&mut entries, true);
    for e in &mut entries {
        e.enabled = e.locked || overrides.get(&e.id).copied().unwrap_or(true);
    }
    entries
}

/// The JSON object of one entry (spec/interfaces.md §1.2 plus the fields spec/skills.md §3.1 adds).
#[must_use]
pub fn entry_json(e: &CatalogSkill, workspace_root: &Path) -> Value {
    serde_json::to_value(entry_object(e, workspace_root)).unwrap_or(Value::Null)
}

/// The catalog entry of spec/interfaces.md §1.2 as a type: `skills list --json`,
/// `alisio/skillCatalog` and `alisio/setSkillEnabled`.
#[must_use]
pub fn entry_object(e: &CatalogSkill, workspace_root: &Path) -> CatalogEntry {
    CatalogEntry {
        id: e.id.clone(),
        name: e.name.clone(),
        display_id: e.display_id.clone(),
        description: e.description.clone(),
        scope: e.scope.as_str(),
        source: e.scope.source(),
        file: display_path(&e.file, workspace_root),
        root: display_path(&e.root, workspace_root),
        enabled: e.enabled,
        effective: e.effective,
        shadowed_by: e.shadowed_by.clone(),
        effective_id: e.effective_id.clone(),
        locked: e.locked,
        model_invocable: e.model_invocable,
        approximate_tokens: e.approximate_tokens,
        catalog_tokens: e.catalog_tokens,
        body_tokens: e.body_tokens,
        owner: e.owner.as_ref().map(|o| CatalogOwner {
            id: o.id.clone(),
            name: o.name.clone(),
        }),
    }
}

/// One catalog entry (spec/interfaces.md §1.2), in the order it is printed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogEntry {
    pub id: String,
    pub name: String,
    pub display_id: String,
    pub description: String,
    pub scope: &'static str,
    pub source: &'static str,
    pub file: String,
    pub root: String,
    pub enabled: bool,
    pub effective: bool,
    pub shadowed_by: Option<String>,
    pub effective_id: String,
    pub locked: bool,
    pub model_invocable: bool,
    pub approximate_tokens: u64,
    pub catalog_tokens: u64,
    pub body_tokens: u64,
    /// The plugin that registered the entry's root, absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<CatalogOwner>,
}

/// `{id, name}` of the plugin that registered an entry's root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CatalogOwner {
    pub id: String,
    pub name: String,
}

/// Entries a model sees: effective, enabled and model-invocable, in precedence order.
#[must_use]
pub fn listed(entries: &[CatalogSkill]) -> Vec<&CatalogSkill> {
    entries
        .iter()
        .filter(|e| e.effective && e.enabled && e.model_invocable)
        .collect()
}

/// The compact JSON of the listed set.
#[must_use]
pub fn catalog_json(entries: &[CatalogSkill]) -> String {
    let list: Vec<Value> = listed(entries)
        .iter()
        .map(|e| json!({"name": e.name, "description": e.description}))
        .collect();
    Value::Array(list).to_string()
}

/// At most this many values make `skill_load`'s `name` an enum (spec/skills.md §4.2).
pub const ENUM_MAX_NAMES: usize = 64;
/// At most this many bytes of values (summed) make `skill_load`'s `name` an enum.
pub const ENUM_MAX_BYTES: usize = 4096;

/// The values of `skill_load`'s `name` enum (spec/skills.md §4.2): the listed names in catalog order, each
/// followed by its `displayId` when that differs, each value once. `None` (a plain string)
/// when nothing is listed, the catalog is collapsed, or the values are more than
/// [`ENUM_MAX_NAMES`] or sum to more than [`ENUM_MAX_BYTES`] bytes.
#[must_use]
pub fn enum_names(entries: &[CatalogSkill]) -> Option<Vec<String>> {
    if is_collapsed(entries) {
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    for e in listed(entries) {
        for n in [&e.name, &e.display_id] {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    let bytes: usize = names.iter().map(String::len).sum();
    (!names.is_empty() && names.len() <= ENUM_MAX_NAMES && bytes <= ENUM_MAX_BYTES).then_some(names)
}

/// `true` when the listed JSON is longer than 24,000 characters.
#[must_use]
pub fn is_collapsed(entries: &[CatalogSkill]) -> bool {
    catalog_json(entries).chars().count() > CATALOG_MAX_CHARS
}

/// The catalog text of spec/skills.md §4.1; `None` when nothing is listed.
#[must_use]
pub fn catalog_text(entries: &[CatalogSkill]) -> Option<String> {
    if listed(entries).is_empty() {
        return None;
    }
    let j = catalog_json(entries);
    if j.chars().count() > CATALOG_MAX_CHARS {
        Some(COLLAPSED.to_string())
    } else {
        Some(format!("{CATALOG_HEADER}\n{j}"))
    }
}

pub const UNTRUSTED_OVERRIDE: &str = "The workspace is not trusted; skill overrides are saved in .alisio/config.json only for trusted workspaces";

/// `alisio/setSkillEnabled` steps 1–6 and 8 (spec/skills.md §3.3): checks, then the atomic write through
/// [`alisio_base::config::write_skill_override`]. Returns the entry as it is after the change; the
/// caller re-runs discovery to republish (step 7).
///
/// # Errors
/// The exact request-error texts of spec/skills.md §3.3.
pub fn set_enabled(
    d: &Discovery,
    workspace_root: &Path,
    trusted: bool,
    id: &str,
    enabled: bool,
) -> Result<CatalogSkill, String> {
    if !trusted {
        return Err(UNTRUSTED_OVERRIDE.to_string());
    }
    let Some(e) = d.effective(id) else {
        return Err(format!("Unknown effective skill: {id}"));
    };
    if e.locked {
        let name = e.owner.as_ref().map_or("", |o| o.name.as_str());
        return Err(format!(
            "This skill is locked by its plugin {name}; enable or disable the plugin instead"
        ));
    }
    alisio_base::config::write_skill_override(workspace_root, id, enabled)?;
    let mut out = e.clone();
    out.enabled = enabled;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, desc: &str) -> CatalogSkill {
        CatalogSkill {
            id: name.into(),
            name: name.into(),
            display_id: name.into(),
            description: desc.into(),
            scope: SkillScope::User,
            file: PathBuf::from("/x/SKILL.md"),
            root: PathBuf::from("/x"),
            dir: PathBuf::from("/x"),
            enabled: true,
            effective: true,
            shadowed_by: None,
            effective_id: name.into(),
            locked: false,
            owner: None,
            model_invocable: true,
            approximate_tokens: 1,
            catalog_tokens: 1,
            body_tokens: 0,
            winner: None,
            name_span: TextRange::default(),
            project_dir: None,
            label: None,
            when_to_use: None,
        }
    }

    #[test]
    fn catalog_text_lists_compact_json_and_collapses_past_24000_characters() {
        let es = vec![entry("a", "Does é.")];
        assert_eq!(
            catalog_text(&es).unwrap(),
            "Available skills (load instructions with skill_load):\n[{\"name\":\"a\",\"description\":\"Does é.\"}]"
        );
        let many: Vec<CatalogSkill> = (0..300)
            .map(|i| entry(&format!("skill-{i}"), &"d".repeat(80)))
            .collect();
        assert_eq!(catalog_text(&many).unwrap(), COLLAPSED);
        assert!(is_collapsed(&many));
        assert_eq!(catalog_text(&[]), None);
    }

    #[test]
    fn ids_count_earlier_duplicates_and_plugin_copies_are_shadowed_by_plain_name() {
        let mut es = vec![
            entry("nextjs", "u"),
            entry("nextjs", "p"),
            entry("nextjs", "q"),
        ];
        es[1].display_id = "vercel:nextjs".into();
        assign_ids(&mut es, true);
        assert_eq!(
            [es[0].id.as_str(), es[1].id.as_str(), es[2].id.as_str()],
            ["nextjs", "vercel:nextjs", "nextjs#shadow-1"]
        );
        assert!(!es[1].effective);
        assert_eq!(es[1].shadowed_by.as_deref(), Some("nextjs"));
        assert_eq!(es[2].effective_id, "nextjs");
    }
}
