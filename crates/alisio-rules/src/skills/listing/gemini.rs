//! Gemini CLI's skill listing (spec/skills.md §9.4), measured on the pinned Gemini CLI 0.61.0
//! (`tests/real/skills.rs`) and read in its bundle (`packages/core/src/skills/skillLoader.ts`,
//! `skillManager.ts`, `prompts/snippets.ts` `renderAgentSkills`): the system instruction's
//! `# Available Agent Skills` section, one `<skill>` block (name, description, location) per
//! skill, with no budget and no cut. Its own discovery, not host `alisio`'s: the two bundled
//! skills, then `~/.gemini/skills`, `~/.agents/skills`, `<cwd>/.gemini/skills`,
//! `<cwd>/.agents/skills`, each `SKILL.md` and `*/SKILL.md` of a root (in name order here; in
//! glob's order in the client); a later skill of the same name replaces the earlier one in its place;
//! `skills.enabled: false` lists nothing and `skills.disabled` names are left out.

use std::path::{Path, PathBuf};

use super::{Fate, Item, Listing, Unit};
use crate::skills::frontmatter::{ScalarKind, Value as Y, parse_yaml};
use alisio_base::config::Profile;
use alisio_base::text::TextRange;
use alisio_base::workspace::{Env, FileType, Fs};

/// Gemini CLI 0.61.0's bundled skills (`bundle/builtin/`, in the order it lists them): name and
/// description as sent. Their location is the install directory, shown as `<gemini>/…`.
pub const BUILTIN: [(&str, &str); 2] = [
    (
        "skill-creator",
        "Guide for creating effective skills. This skill should be used when users want to create a new skill (or update an existing skill) that extends Gemini CLI's capabilities with specialized knowledge, workflows, or tool integrations.",
    ),
    (
        "antigravity-support",
        "Use when the user asks questions, seeks help, or requests instructions related to installing, setting up, or migrating to Antigravity CLI. This skill provides the latest up to date details, requirements, and commands sourced from the official Antigravity CLI documentation.",
    ),
];

/// One skill as Gemini loads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeminiSkill {
    pub name: String,
    pub description: String,
    /// `None` for a bundled skill.
    pub file: Option<PathBuf>,
}

/// The frontmatter text of `FRONTMATTER_REGEX` (`^---\r?\n([\s\S]*?)\r?\n---`).
fn block(text: &str) -> Option<TextRange> {
    let start = if text.starts_with("---\n") {
        4
    } else if text.starts_with("---\r\n") {
        5
    } else {
        return None;
    };
    let i = text[start..].find("\n---")? + start;
    let end = if i > start && text.as_bytes()[i - 1] == b'\r' {
        i - 1
    } else {
        i
    };
    Some(TextRange { start, end })
}

/// `parseSimpleFrontmatter`: `name:` and `description:` lines, a description continued by
/// indented lines joined with spaces.
fn simple(yaml: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = yaml.lines().collect();
    let (mut name, mut desc) = (None, None);
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        if let Some(v) = l.strip_prefix("name:") {
            name = Some(v.trim().to_string());
        } else if let Some(v) = l.strip_prefix("description:") {
            let mut parts = vec![v.trim().to_string()];
            while i + 1 < lines.len()
                && lines[i + 1].starts_with([' ', '\t'])
                && !lines[i + 1].trim().is_empty()
            {
                parts.push(lines[i + 1].trim().to_string());
                i += 1;
            }
            parts.retain(|p| !p.is_empty());
            desc = Some(parts.join(" "));
        }
        i += 1;
    }
    Some((name?, desc?))
}

fn string(fm: &crate::skills::frontmatter::Frontmatter, key: &str) -> Option<String> {
    match &fm.get(key)?.value.value {
        Y::Scalar {
            text,
            kind: ScalarKind::Str,
            ..
        } => Some(text.clone()),
        _ => None,
    }
}

/// `loadSkillFromFile`: name (with `:\/<>*?"|` made `-`) and description, or `None`.
#[must_use]
pub fn load(text: &str) -> Option<(String, String)> {
    let range = block(text)?;
    let fm = parse_yaml(text, range, Profile::Spec);
    let parsed = if fm.error.is_none() {
        string(&fm, "name").zip(string(&fm, "description"))
    } else {
        None
    };
    let (name, description) = parsed.or_else(|| simple(&text[range.start..range.end]))?;
    let name = name
        .chars()
        .map(|c| if ":\\/<>*?\"|".contains(c) { '-' } else { c })
        .collect();
    Some((name, description))
}

/// `loadSkillsFromDir`: `SKILL.md` and `*/SKILL.md` of `dir` (no `.`-names). Gemini lists one
/// root in the order its glob returns, which is neither the name order nor always the
/// directory's (measured); the simulation sorts by directory name.
fn load_dir(fs: &dyn Fs, dir: &Path) -> Vec<GeminiSkill> {
    let mut files = vec![dir.join("SKILL.md")];
    for e in fs.read_dir(dir).unwrap_or_default() {
        let name = e.name.to_string_lossy();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        files.push(dir.join(&e.name).join("SKILL.md"));
    }
    files
        .into_iter()
        .filter(|f| fs.metadata(f).is_ok_and(|m| m.file_type == FileType::File))
        .filter_map(|f| {
            let text = String::from_utf8_lossy(&fs.read(&f).ok()?).into_owned();
            let (name, description) = load(&text)?;
            Some(GeminiSkill {
                name,
                description,
                file: Some(f),
            })
        })
        .collect()
}

fn settings(fs: &dyn Fs, p: &Path) -> serde_json::Value {
    fs.read(p)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Gemini's skills seen from `cwd`, in listing order.
#[must_use]
pub fn discover(fs: &dyn Fs, cwd: &Path, env: &Env) -> Vec<GeminiSkill> {
    let home = env.home.clone();
    let layers: Vec<serde_json::Value> = [
        home.as_ref().map(|h| h.join(".gemini/settings.json")),
        Some(cwd.join(".gemini/settings.json")),
    ]
    .into_iter()
    .flatten()
    .map(|p| settings(fs, &p))
    .collect();
    // The workspace file overrides the user file.
    let enabled = layers
        .iter()
        .rev()
        .find_map(|s| s["skills"]["enabled"].as_bool())
        .unwrap_or(true);
    if !enabled {
        return Vec::new();
    }
    let disabled: Vec<String> = layers
        .iter()
        .flat_map(|s| {
            s["skills"]["disabled"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|v| v.as_str().map(str::to_lowercase))
        .collect();
    let mut out: Vec<GeminiSkill> = BUILTIN
        .iter()
        .map(|(n, d)| GeminiSkill {
            name: (*n).to_string(),
            description: (*d).to_string(),
            file: None,
        })
        .collect();
    let mut roots = Vec::new();
    if let Some(h) = &home {
        roots.push(h.join(".gemini/skills"));
        roots.push(h.join(".agents/skills"));
    }
    roots.push(cwd.join(".gemini/skills"));
    roots.push(cwd.join(".agents/skills"));
    for r in roots {
        for s in load_dir(fs, &r) {
            match out.iter_mut().find(|o| o.name == s.name) {
                Some(o) => *o = s,
                None => out.push(s),
            }
        }
    }
    out.retain(|s| !disabled.contains(&s.name.to_lowercase()));
    out
}

/// The `<skill>` block of one skill, as sent.
#[must_use]
pub fn entry(name: &str, description: &str, location: &str) -> String {
    format!(
        "  <skill>\n    <name>{name}</name>\n    <description>{description}</description>\n    <location>{location}</location>\n  </skill>"
    )
}

/// The listing of `skills`: every one in full, no budget.
#[must_use]
pub fn listing(skills: &[GeminiSkill]) -> Listing {
    let items: Vec<Item> = skills
        .iter()
        .map(|s| {
            let location = match &s.file {
                Some(f) => f.to_string_lossy().into_owned(),
                None => format!("<gemini>/builtin/{}/SKILL.md", s.name),
            };
            let full = entry(&s.name, &s.description, &location);
            let cost = full.chars().count() as u64 + 1;
            Item {
                name: s.name.clone(),
                file: s.file.clone(),
                builtin: s.file.is_none(),
                fixed: true,
                name_only: full.clone(),
                description: s.description.clone(),
                full_cost: cost,
                name_cost: cost,
                fate: Fate::Full,
                full,
            }
        })
        .collect();
    let total = items.iter().map(|i| i.full_cost).sum();
    Listing {
        postamble: Vec::new(),
        preamble: Vec::new(),
        unit: Unit::Characters,
        budget: f64::INFINITY,
        budget_source: "no budget: Gemini CLI lists every skill in full".to_string(),
        total_full: total,
        total,
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frontmatter_as_gemini_reads_it() {
        assert_eq!(
            load("---\nname: a:b/c\ndescription: Two\n  lines.\n---\nbody"),
            Some(("a-b-c".into(), "Two lines.".into()))
        );
        // Not YAML strings: the line parser takes the raw text.
        assert_eq!(
            load("---\nname: 12\ndescription: [x\n---\n"),
            Some(("12".into(), "[x".into()))
        );
        assert_eq!(
            load("---\r\nname: n\r\ndescription: d\r\n---"),
            Some(("n".into(), "d".into()))
        );
        assert_eq!(load("---\nname: n\n---\n"), None);
        assert_eq!(load("no frontmatter"), None);
    }

    #[test]
    fn every_skill_in_full_with_no_budget() {
        let l = listing(&[GeminiSkill {
            name: "a".into(),
            description: "D <b>&".into(),
            file: Some(PathBuf::from("/w/.gemini/skills/a/SKILL.md")),
        }]);
        assert_eq!(
            l.items[0].text().unwrap(),
            "  <skill>\n    <name>a</name>\n    <description>D <b>&</description>\n    <location>/w/.gemini/skills/a/SKILL.md</location>\n  </skill>"
        );
        assert_eq!(l.over_by(), 0);
        assert_eq!(l.total, l.items[0].full.chars().count() as u64 + 1);
    }
}
