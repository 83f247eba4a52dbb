//! `skill-agent-unknown` (spec/skills.md §2.10): a forked skill's `agent` that names no agent
//! Claude Code 2.1.332 could run it on. Its forked-skill runner looks the name up exactly among
//! the active agents and, when none matches, runs the skill on `general-purpose` and only logs
//! "agent '<name>' is not available as a fork base" (the binary's JavaScript). The agents known
//! here are the client's own ([`BUILTIN_AGENTS`]) and every agent the simulation loads from any
//! vantage of the workspace (project and user `.claude/agents`), so a name that resolves for a
//! session started anywhere is not reported. Only skills of `.claude/skills` directories are
//! judged, and a namespaced name (`plugin:agent`) is left alone: plugin agents are not simulated.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::claude::BUILTIN_AGENTS;
use super::{FILE_LIMIT, Family, Startup};
use crate::skills::frontmatter::{self, Found};
use alisio_base::config::Profile;
use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::LineIndex;
use alisio_base::workspace::{Fs, is_inside};

/// The names of the agents of a startup, the client's own included.
pub(super) fn agent_names(s: &Startup, out: &mut BTreeSet<String>) {
    out.extend(BUILTIN_AGENTS.iter().map(|(n, _)| (*n).to_string()));
    out.extend(
        s.of(Family::Agent)
            .filter(|e| e.loaded())
            .map(|e| e.name.clone()),
    );
}

/// The finding of one SKILL.md, if its `context: fork` skill names an agent outside `known`.
fn finding(fs: &dyn Fs, file: &Path, known: &BTreeSet<String>) -> Option<Diagnostic> {
    let bytes = fs.read_prefix(file, FILE_LIMIT).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let Found::Block(b) = frontmatter::find_block(text, false, Profile::ClaudeCode) else {
        return None;
    };
    let fm = frontmatter::parse_yaml(text, b.yaml, Profile::ClaudeCode);
    let fork = fm
        .get("context")
        .and_then(|e| e.value.scalar_text())
        .is_some_and(|v| v == "fork");
    let agent = fm.get("agent").filter(|e| !e.value.is_null())?;
    let name = agent.value.scalar_text()?;
    if !fork || name.is_empty() || name.contains(':') || known.contains(name) {
        return None;
    }
    let hint = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .map_or_else(
            || {
                let mut names: Vec<&str> = known.iter().map(String::as_str).take(10).collect();
                if known.len() > 10 {
                    names.push("…");
                }
                format!(" (agents: {})", names.join(", "))
            },
            |k| format!("; did you mean {k}? (names are case-sensitive)"),
        );
    let span = LineIndex::new(text).span(agent.value.span);
    Some(Diagnostic::new(
        file,
        span,
        Severity::Warning,
        Code::SkillAgentUnknown,
        format!(
            "agent \"{name}\" names no agent Claude Code knows: it runs this forked skill on general-purpose instead{hint}"
        ),
    ))
}

/// A skill of a `.claude/skills` directory: a plugin's skill may name its plugin's agents, which
/// are not simulated.
fn in_claude_skills(f: &Path) -> bool {
    let c: Vec<_> = f.components().map(|c| c.as_os_str()).collect();
    c.windows(2).any(|w| w[0] == ".claude" && w[1] == "skills")
}

/// The findings for the workspace's listed skills (`skills`: their files, from every vantage),
/// against the agents of every vantage (`known`).
pub(super) fn check(
    fs: &dyn Fs,
    root: &Path,
    skills: &BTreeSet<PathBuf>,
    known: &BTreeSet<String>,
) -> Vec<Diagnostic> {
    skills
        .iter()
        .filter(|f| is_inside(f, root) && in_claude_skills(f))
        .filter_map(|f| finding(fs, f, known))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::workspace::DiskFs;

    fn run(skill: &str) -> Vec<(u32, u32, String)> {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let file = root.join(".claude/skills/search/SKILL.md");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, skill).unwrap();
        let mut known: BTreeSet<String> = BUILTIN_AGENTS
            .iter()
            .map(|(n, _)| (*n).to_string())
            .collect();
        known.insert("reviewer".into());
        check(&DiskFs, &root, &BTreeSet::from([file]), &known)
            .into_iter()
            .map(|d| {
                assert_eq!(d.code, Code::SkillAgentUnknown);
                (d.span.start.line, d.span.start.utf16, d.message)
            })
            .collect()
    }

    const HEAD: &str = "---\nname: search\ndescription: Searches the project. Use when asked.\n";

    #[test]
    fn known_agents_namespaced_ones_and_inline_skills_are_silent() {
        for keys in [
            "context: fork\nagent: Explore",
            "context: fork\nagent: reviewer",
            "context: fork\nagent: my-plugin:auditor",
            "context: fork",
            "agent: Nowhere",
        ] {
            assert_eq!(run(&format!("{HEAD}{keys}\n---\nBody.\n")), [], "{keys}");
        }
    }

    #[test]
    fn an_unknown_agent_is_reported_at_its_value() {
        let got = run(&format!(
            "{HEAD}context: fork\nagent: Invalid Agent!!\n---\nBody.\n"
        ));
        assert_eq!(
            got,
            [(4, 7, "agent \"Invalid Agent!!\" names no agent Claude Code knows: it runs this forked skill on general-purpose instead (agents: Explore, Plan, claude, general-purpose, reviewer, statusline-setup)".to_string())]
        );
        let got = run(&format!(
            "{HEAD}context: fork\nagent: explore\n---\nBody.\n"
        ));
        assert_eq!(
            got,
            [(4, 7, "agent \"explore\" names no agent Claude Code knows: it runs this forked skill on general-purpose instead; did you mean Explore? (names are case-sensitive)".to_string())]
        );
    }
}
