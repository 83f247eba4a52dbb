//! The live trigger lab's plain parts (spec/skills.md §10.3): what one request asks a model in a
//! host's own listing format, which answer counts as a trigger (a skill-load call, nothing
//! else), and the tallies with their Wilson intervals. The requests themselves, the temporary
//! workspace and the caps are the command line's (`cli::skills_live`).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::super::listing::Listing;
use alisio_base::config::Host;

/// The z of a two-sided 95% interval.
pub const Z95: f64 = 1.96;

/// Claude Code's header of its skill listing reminder (measured on 2.1.332).
pub const CLAUDE_HEAD: &str = "The following skills are available for use with the Skill tool:";
/// Codex 0.171.0's introduction of the aliased listing (measured).
pub const CODEX_INTRO: &str = "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table.";
/// Gemini CLI 0.61.0's section (its bundle's `renderAgentSkills`).
pub const GEMINI_HEAD: &str = "# Available Agent Skills\n\nYou have access to the following specialized skills. To activate a skill and receive its detailed instructions, you can call the `activate_skill` tool with the skill's name.";

/// One tool offered to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct OfferedTool {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

/// What one live request carries: the system text, the text put before the prompt in the first
/// user message, and the host's skill-load tool.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    pub system: String,
    pub before_prompt: Option<String>,
    pub tool: OfferedTool,
}

fn entries(l: &Listing) -> Vec<&str> {
    l.items.iter().filter_map(|i| i.text()).collect()
}

/// The request of `host` for listing `l`.
#[must_use]
pub fn ask(host: Host, l: &Listing) -> Ask {
    let str_field = |k: &str, d: &str| json!({"type": "object", "properties": {k: {"type": "string", "description": d}}, "required": [k]});
    match host {
        Host::ClaudeCode => Ask {
            system: String::new(),
            before_prompt: Some(format!(
                "<system-reminder>\n{CLAUDE_HEAD}\n\n{}\n</system-reminder>",
                entries(l).join("\n")
            )),
            tool: OfferedTool {
                name: "Skill",
                description: "Execute a skill within the main conversation",
                schema: str_field("skill", "The skill name."),
            },
        },
        Host::Codex => Ask {
            system: String::new(),
            before_prompt: Some(format!(
                "<skills_instructions>\n## Skills\n{CODEX_INTRO}\n### Skill roots\n{}\n### Available skills\n{}\n</skills_instructions>",
                l.preamble.join("\n"),
                entries(l).join("\n")
            )),
            tool: OfferedTool {
                name: "shell",
                description: "Runs a shell command and returns its output.",
                schema: json!({"type": "object", "properties": {"command": {"type": "array", "items": {"type": "string"}}}, "required": ["command"]}),
            },
        },
        Host::Gemini => Ask {
            system: format!(
                "{GEMINI_HEAD}\n\n<available_skills>\n{}\n</available_skills>",
                entries(l).join("\n")
            ),
            before_prompt: None,
            tool: OfferedTool {
                name: "activate_skill",
                description: "Activates a specialized agent skill by name. Returns the skill's instructions wrapped in `<activated_skill>` tags.",
                schema: str_field("name", "The name of the skill to activate."),
            },
        },
        // The `<skills>` block of Copilot's instruction index (listing/copilot.rs) and its
        // `read_file` tool (`microsoft/vscode-copilot-chat` 0.42.0, `package.json`
        // `copilot_readFile`, model-facing name `read_file` in `tools/common/toolNames.ts`).
        Host::Copilot => Ask {
            system: l
                .preamble
                .iter()
                .map(String::as_str)
                .chain(entries(l))
                .chain(l.postamble.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            before_prompt: None,
            tool: OfferedTool {
                name: "read_file",
                description: "Read the contents of a file.\n\nYou must specify the line range you're interested in. Line numbers are 1-indexed. If the file contents returned are insufficient for your task, you may call this tool again to retrieve more content. Prefer reading larger ranges over doing many small reads. Binary files use startLine/endLine as byte offsets.",
                schema: json!({"type": "object", "properties": {
                    "filePath": {"type": "string", "description": "The absolute path of the file to read."},
                    "startLine": {"type": "number", "description": "The line number to start reading from, 1-based."},
                    "endLine": {"type": "number", "description": "The inclusive line number to end reading at, 1-based."}
                }, "required": ["filePath", "startLine", "endLine"]}),
            },
        },
        _ => Ask {
            system: format!(
                "{}\n[{}]",
                crate::skills::catalog::CATALOG_HEADER,
                entries(l).join(",")
            ),
            before_prompt: None,
            tool: OfferedTool {
                name: "skill_load",
                description: "Load an Agent Skill's instructions by name.",
                schema: str_field("name", "Skill name, displayId or id."),
            },
        },
    }
}

/// The skill a call loads, if it is `host`'s skill-load call naming a listed skill: `Skill`
/// `{skill}`, `activate_skill` / `skill_load` `{name}`, a Copilot `read_file` `{filePath}` of a
/// listed `SKILL.md`, or a Codex `shell` command that names a listed `SKILL.md` (its `rN/…` path
/// or its absolute path). Any other call is not a trigger.
#[must_use]
pub fn loaded(host: Host, l: &Listing, name: &str, arguments: &str) -> Option<String> {
    let a: Value = serde_json::from_str(arguments).ok()?;
    let listed = |n: &str| l.items.iter().any(|i| i.name == n && i.text().is_some());
    let by_name = |key: &str| {
        a.get(key)
            .and_then(Value::as_str)
            .filter(|n| listed(n))
            .map(str::to_string)
    };
    match (host, name) {
        (Host::ClaudeCode, "Skill") => by_name("skill"),
        (Host::Gemini, "activate_skill") | (Host::Alisio, "skill_load") => by_name("name"),
        // Copilot: a `read_file` of a listed SKILL.md (the path its `<file>` shows).
        (Host::Copilot, "read_file") => {
            let path = a.get("filePath")?.as_str()?;
            l.items
                .iter()
                .filter(|i| i.text().is_some())
                .find(|i| i.file.as_deref() == Some(std::path::Path::new(path)))
                .map(|i| i.name.clone())
        }
        (Host::Codex, "shell") => {
            let cmd: Vec<&str> = a
                .get("command")?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let cmd = cmd.join(" ");
            l.items.iter().filter(|i| i.text().is_some()).find_map(|i| {
                let shown = i
                    .text()?
                    .rsplit_once("(file: ")?
                    .1
                    .trim_end_matches(')')
                    .to_string();
                let abs = i.file.as_ref().map(|f| f.to_string_lossy().into_owned());
                (cmd.contains(&shown) || abs.is_some_and(|p| cmd.contains(&p)))
                    .then(|| i.name.clone())
            })
        }
        _ => None,
    }
}

/// The Wilson score interval of `hits` out of `n` at `z` (`None` for no trials).
#[must_use]
pub fn wilson(hits: u64, n: u64, z: f64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (n, p) = (n as f64, hits as f64 / n as f64);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z * ((p * (1.0 - p) + z2 / (4.0 * n)) / n).sqrt() / (1.0 + z2 / n);
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// One prompt's trials.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trials {
    pub skill: String,
    pub prompt: String,
    /// The skill that should be chosen (`trigger`: the skill itself; `noTrigger`: its winner, or
    /// `None` when it must not be chosen).
    pub expected: Option<String>,
    pub should_trigger: bool,
    /// Routed skill (`(none)` for no load call) → count.
    pub routed: BTreeMap<String, u64>,
}

impl Trials {
    #[must_use]
    pub fn n(&self) -> u64 {
        self.routed.values().sum()
    }

    /// Trials that loaded the skill under test.
    #[must_use]
    pub fn hits(&self) -> u64 {
        self.routed.get(&self.skill).copied().unwrap_or(0)
    }
}

fn rate(hits: u64, n: u64) -> Value {
    let ci = wilson(hits, n, Z95);
    json!({
        "hits": hits,
        "trials": n,
        "rate": (n > 0).then(|| round4(hits as f64 / n as f64)),
        "ci95": ci.map(|(a, b)| [round4(a), round4(b)]),
    })
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// The JSON of a live run (spec/interfaces.md §1.5).
#[must_use]
pub fn result_json(
    host: Host,
    repeats: u32,
    trials: &[Trials],
    usage: (u64, u64),
    stopped: Option<&str>,
) -> Value {
    let mut skills: BTreeMap<&str, [(u64, u64); 2]> = BTreeMap::new();
    for t in trials {
        let e = skills.entry(&t.skill).or_default();
        let k = usize::from(!t.should_trigger);
        e[k].0 += t.hits();
        e[k].1 += t.n();
    }
    json!({
        "host": host.as_str(),
        "live": true,
        "repeats": repeats,
        "requests": usage.0,
        "tokens": usage.1,
        "stopped": stopped,
        "skills": skills.iter().map(|(name, [t, nt])| json!({
            "name": name,
            "trigger": rate(t.0, t.1),
            "noTrigger": rate(nt.0, nt.1),
        })).collect::<Vec<_>>(),
        "prompts": trials.iter().map(|t| json!({
            "skill": t.skill,
            "prompt": t.prompt,
            "shouldTrigger": t.should_trigger,
            "expected": t.expected,
            "routed": t.routed,
            "rate": rate(t.hits(), t.n()),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_exact_values() {
        // 8 of 10 at z 1.96: centre (0.8 + 0.19208) / 1.38416, half-width
        // 1.96 · sqrt((0.16 + 0.009604) / 10) / 1.38416.
        let (lo, hi) = wilson(8, 10, Z95).unwrap();
        assert_eq!((round4(lo), round4(hi)), (0.4902, 0.9433));
        assert_eq!(wilson(0, 0, Z95), None);
        let (lo, hi) = wilson(0, 5, Z95).unwrap();
        assert_eq!((round4(lo), round4(hi)), (0.0, 0.4345));
        let (lo, hi) = wilson(3, 3, Z95).unwrap();
        assert_eq!((round4(lo), round4(hi)), (0.4385, 1.0));
    }

    #[test]
    fn copilot_asks_with_its_skills_block_and_counts_a_read_of_a_listed_skill_md() {
        use crate::skills::listing::copilot;
        let l = copilot::listing(
            &[copilot::CopilotSkill {
                name: "pdf".into(),
                description: "Reads PDFs.".into(),
                full_len: 11,
                file: "/w/.github/skills/pdf/SKILL.md".into(),
            }],
            true,
        );
        let a = ask(Host::Copilot, &l);
        assert_eq!(
            a.system,
            "<skills>\n\
             Here is a list of skills that contain domain specific knowledge on a variety of topics.\n\
             Each skill comes with a description of the topic and a file path that contains the detailed instructions.\n\
             When a user asks you to perform a task that falls within the domain of a skill, use the 'read_file' tool to acquire the full instructions from the file URI.\n\
             <skill>\n<name>pdf</name>\n<description>Reads PDFs.</description>\n<file>/w/.github/skills/pdf/SKILL.md</file>\n</skill>\n\
             </skills>"
        );
        assert_eq!((a.tool.name, a.before_prompt), ("read_file", None));
        let read = |p: &str| {
            loaded(
                Host::Copilot,
                &l,
                "read_file",
                &json!({"filePath": p, "startLine": 1, "endLine": 50}).to_string(),
            )
        };
        assert_eq!(read("/w/.github/skills/pdf/SKILL.md"), Some("pdf".into()));
        assert_eq!(read("/w/README.md"), None);
        assert_eq!(
            loaded(Host::Copilot, &l, "Skill", r#"{"skill":"pdf"}"#),
            None
        );
    }
}
