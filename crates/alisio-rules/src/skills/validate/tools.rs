//! `skill-tool-unknown` (spec/skills.md §2.10): an `allowed-tools` or `disallowed-tools` entry
//! that names no Claude Code tool, so the pre-approval (or the block) does nothing. Profiles
//! `alisio` and `claude-code`.

use super::names::edit_distance_at_most;
use super::problem::RuleProblem;
use crate::skills::frontmatter::{Frontmatter, FrontmatterEntry, Node, Value};
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

/// Claude Code 2.1.332's tool names (the list its permission rules match against), from the
/// `@anthropic-ai/claude-code-linux-x64` 2.1.332 binary.
pub const CLAUDE_TOOLS: &[&str] = &[
    "Agent",
    "Artifact",
    "AskUserQuestion",
    "Bash",
    "ClaudeDesign",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EndConversation",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "Glob",
    "Grep",
    "ListAgents",
    "ListMcpResourcesTool",
    "LSP",
    "Monitor",
    "NotebookEdit",
    "OfferChromeSetup",
    "PowerShell",
    "Projects",
    "propose_skills",
    "PushNotification",
    "Read",
    "ReadMcpResourceDirTool",
    "ReadMcpResourceTool",
    "ReadNotifications",
    "RemoteTrigger",
    "ReportFindings",
    "ScheduleWakeup",
    "SendFeedback",
    "SendMessage",
    "SendUserFile",
    "SendUserMessage",
    "SetGoal",
    "ShareOnboardingGuide",
    "ShowOnboardingRolePicker",
    "Skill",
    "SubagentHandback",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WaitForMcpServers",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// The legacy names Claude Code 2.1.332 still maps to a tool (`Task` is `Agent`, …).
pub const CLAUDE_ALIASES: &[&str] = &[
    "Task",
    "KillShell",
    "KillBash",
    "ListPeers",
    "Brief",
    "ListMcpResources",
    "ReadMcpResource",
    "ReadMcpResourceDir",
    "ProposeGoal",
];

/// The entries of a tool list as Claude Code splits it: commas and whitespace separate entries
/// outside parentheses (`Bash(git add:*)` is one entry). Offsets are relative to `s`.
#[must_use]
pub fn split_tools(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' | '\t' | '\n' | '\r' if depth == 0 => {
                if let Some(st) = start.take() {
                    out.push((st, &s[st..i]));
                }
                continue;
            }
            _ => {}
        }
        if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

/// The tool an entry names: the part before `(`.
fn tool_of(entry: &str) -> &str {
    entry.split('(').next().unwrap_or(entry).trim()
}

/// `true` when Claude Code knows the tool: a built-in name or alias, or an MCP tool
/// (`mcp__<server>`, `mcp__<server>__<tool>`, with `*` wildcards).
#[must_use]
pub fn is_known(tool: &str) -> bool {
    CLAUDE_TOOLS.contains(&tool)
        || CLAUDE_ALIASES.contains(&tool)
        || tool.strip_prefix("mcp__").is_some_and(|r| !r.is_empty())
        || tool == "*"
}

fn suggestion(tool: &str) -> Option<&'static str> {
    let lower = tool.to_ascii_lowercase();
    let chars = lower.chars().count();
    CLAUDE_TOOLS
        .iter()
        .copied()
        // The names are ASCII: a name whose length is out of reach is not lowered.
        .filter(|t| t.len().abs_diff(chars) <= 2)
        .filter_map(|t| edit_distance_at_most(&t.to_ascii_lowercase(), &lower, 2).map(|d| (d, t)))
        .min_by_key(|(d, _)| *d)
        .map(|(_, t)| t)
}

fn message(key: &str, tool: &str) -> String {
    let effect = if key == "allowed-tools" {
        "pre-approves nothing"
    } else {
        "blocks nothing"
    };
    let hint = match suggestion(tool) {
        Some(s) => format!(" (did you mean \"{s}\"?)"),
        None => "; MCP tools are written mcp__<server>__<tool>".to_string(),
    };
    format!("\"{tool}\" is not a Claude Code tool, so this {key} entry {effect}{hint}")
}

/// The located entries of one string value: `text` is the whole SKILL.md.
fn entries_of<'a>(text: &'a str, n: &Node) -> Vec<(TextRange, &'a str)> {
    let src = text.get(n.span.start..n.span.end).unwrap_or("");
    split_tools(src)
        .into_iter()
        .map(|(o, e)| {
            let e = e.trim_matches(|c| c == '"' || c == '\'');
            let start = n.span.start + o + src[o..].find(e).unwrap_or(0);
            (TextRange::new(start, start + e.len()), e)
        })
        // A block-scalar indicator or stray punctuation is not an entry.
        .filter(|(_, e)| e.starts_with(|c: char| c.is_ascii_alphabetic() || c == '*' || c == '_'))
        .collect()
}

fn check_entry(text: &str, key: &str, e: &FrontmatterEntry, problems: &mut Vec<RuleProblem>) {
    let nodes: Vec<&Node> = match &e.value.value {
        Value::Seq(items) => items.iter().collect(),
        Value::Scalar { .. } if e.value.as_str().is_some() => vec![&e.value],
        _ => return,
    };
    for n in nodes {
        if n.as_str().is_none() {
            continue;
        }
        for (range, entry) in entries_of(text, n) {
            let tool = tool_of(entry);
            if !is_known(tool) {
                let at = TextRange::new(range.start, range.start + tool.len());
                problems.push(RuleProblem::new(
                    Code::SkillToolUnknown,
                    at,
                    message(key, tool),
                ));
            }
        }
    }
}

/// Every unknown tool of `allowed-tools` and `disallowed-tools`.
pub(super) fn check_tools(text: &str, fm: &Frontmatter, problems: &mut Vec<RuleProblem>) {
    for key in ["allowed-tools", "disallowed-tools"] {
        if let Some(e) = fm.get(key) {
            check_entry(text, key, e, problems);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::skills::validate::{Checked, check};
    use alisio_base::config::Profile;
    use alisio_base::workspace::DiskFs;

    fn run(text: &str, profile: Profile) -> Checked {
        let f = Path::new("/nonexistent-skill-root/demo/SKILL.md");
        check(&DiskFs, f, text.as_bytes(), text.len() as u64, profile)
    }

    fn found(c: &Checked) -> Vec<(usize, usize, u32, String)> {
        c.diagnostics
            .iter()
            .filter(|d| d.code == Code::SkillToolUnknown)
            .map(|d| {
                (
                    d.span.bytes.start,
                    d.span.bytes.end,
                    d.span.start.line,
                    d.message.clone(),
                )
            })
            .collect()
    }

    const HEAD: &str = "---\nname: demo\ndescription: Demo skill. Use it when a demo is needed.\n";

    #[test]
    fn built_in_tools_aliases_rules_and_mcp_tools_are_known() {
        for tools in [
            "allowed-tools: Read, Grep, Bash(git add:*), Task, mcp__github__get_issue, mcp__db",
            "allowed-tools: Read Grep \"Bash(npm run test:*)\"",
            "allowed-tools:\n  - Read\n  - WebFetch(domain:example.com)\ndisallowed-tools: Write",
        ] {
            let c = run(
                &format!("{HEAD}{tools}\n---\n# Demo\n"),
                Profile::ClaudeCode,
            );
            assert_eq!(found(&c), [], "{tools}");
        }
    }

    #[test]
    fn an_unknown_tool_is_reported_at_its_name_with_a_suggestion_when_close() {
        let text = format!("{HEAD}allowed-tools: Read, readPaper, bash(ls:*)\n---\n# Demo\n");
        let c = run(&text, Profile::ClaudeCode);
        let at = text.find("readPaper").unwrap();
        let bash = text.find("bash(").unwrap();
        assert_eq!(
            found(&c),
            [
                (
                    at,
                    at + 9,
                    3,
                    "\"readPaper\" is not a Claude Code tool, so this allowed-tools entry pre-approves nothing; MCP tools are written mcp__<server>__<tool>".to_string()
                ),
                (
                    bash,
                    bash + 4,
                    3,
                    "\"bash\" is not a Claude Code tool, so this allowed-tools entry pre-approves nothing (did you mean \"Bash\"?)".to_string()
                ),
            ]
        );
        assert_eq!(
            c.diagnostics
                .iter()
                .find(|d| d.code == Code::SkillToolUnknown)
                .map(|d| d.severity),
            Some(alisio_base::diagnostic::Severity::Warning)
        );
        let text = format!("{HEAD}disallowed-tools:\n  - FooBar\n---\n# Demo\n");
        let at = text.find("FooBar").unwrap();
        assert_eq!(
            found(&run(&text, Profile::Alisio)),
            [(at, at + 6, 4, "\"FooBar\" is not a Claude Code tool, so this disallowed-tools entry blocks nothing; MCP tools are written mcp__<server>__<tool>".to_string())]
        );
    }

    #[test]
    fn the_spec_and_codex_profiles_do_not_know_claude_tools() {
        let text = format!("{HEAD}allowed-tools: readPaper\n---\n# Demo\n");
        assert_eq!(found(&run(&text, Profile::Spec)), []);
        assert_eq!(found(&run(&text, Profile::Codex)), []);
    }

    #[test]
    fn entries_split_on_commas_and_spaces_outside_parentheses() {
        assert_eq!(
            split_tools("Read, Bash(git add:*) Grep"),
            [(0, "Read"), (6, "Bash(git add:*)"), (22, "Grep")]
        );
    }
}
