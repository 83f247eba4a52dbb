//! `skill-value-invalid`, `skill-agent-without-fork` and `skill-hook-event-unknown`
//! (spec/skills.md §2.10): values of Claude Code's keys that Claude Code 2.1.332 does not
//! recognise, so the key (or the entry) has no effect. Profiles `alisio` and `claude-code`.

use super::problem::RuleProblem;
use crate::skills::frontmatter::{Frontmatter, Value};
use alisio_base::diagnostic::Code;

/// `effort` values Claude Code 2.1.332 accepts (case-insensitive; an integer is accepted too).
pub const EFFORTS: &[&str] = &["low", "medium", "high", "xhigh", "max"];
/// `shell` values (trimmed, case-insensitive); anything else falls back to bash with a warning.
pub const SHELLS: &[&str] = &["bash", "powershell"];

/// The hook events of Claude Code 2.1.332, in its order (the event list of its binary's
/// JavaScript, which the skill loader's `hooks` reader checks each key against; an unknown key
/// is dropped with "unknown hook event; entry ignored").
pub const HOOK_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
];

/// The keys of a `hooks` mapping that are not hook events (Claude Code compares them exactly;
/// a case-insensitive match is offered as the likely meaning).
fn check_hooks(fm: &Frontmatter, problems: &mut Vec<RuleProblem>) {
    let Some(Value::Map(pairs)) = fm.get("hooks").map(|e| &e.value.value) else {
        return;
    };
    for (k, _) in pairs {
        let Some(name) = k.scalar_text() else {
            continue;
        };
        if HOOK_EVENTS.contains(&name) {
            continue;
        }
        let hint = HOOK_EVENTS
            .iter()
            .find(|e| e.eq_ignore_ascii_case(name))
            .map_or_else(
                || " (events include PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart)".to_string(),
                |e| format!("; did you mean {e}?"),
            );
        problems.push(RuleProblem::new(
            Code::SkillHookEventUnknown,
            k.span,
            format!(
                "hooks.{name} is not a Claude Code hook event: Claude Code ignores this entry, so its hooks never run{hint}"
            ),
        ));
    }
}

fn is_effort(v: &str) -> bool {
    let v = v.trim();
    EFFORTS.iter().any(|e| e.eq_ignore_ascii_case(v)) || v.parse::<i64>().is_ok()
}

/// The value problems of `context`, `effort`, `shell` and `agent`.
pub(super) fn check_values(fm: &Frontmatter, problems: &mut Vec<RuleProblem>) {
    let text = |k: &str| {
        fm.get(k)
            .filter(|e| !e.value.is_null())
            .and_then(|e| e.value.scalar_text().map(|t| (e, t.to_string())))
    };
    let fork = text("context").is_some_and(|(_, v)| v == "fork");
    if let Some((e, v)) = text("context")
        && v != "fork"
    {
        problems.push(RuleProblem::new(
            Code::SkillValueInvalid,
            e.value.span,
            format!("context \"{v}\" has no effect: Claude Code knows only \"fork\""),
        ));
    }
    if let Some((e, v)) = text("effort")
        && !is_effort(&v)
    {
        problems.push(RuleProblem::new(
            Code::SkillValueInvalid,
            e.value.span,
            format!(
                "effort \"{v}\" has no effect: Claude Code accepts low, medium, high, xhigh, max or an integer"
            ),
        ));
    }
    if let Some((e, v)) = text("shell")
        && !SHELLS.iter().any(|s| s.eq_ignore_ascii_case(v.trim()))
    {
        problems.push(RuleProblem::new(
            Code::SkillValueInvalid,
            e.value.span,
            format!("shell \"{v}\" is not recognised: Claude Code accepts bash or powershell and falls back to bash"),
        ));
    }
    check_hooks(fm, problems);
    if let Some((e, v)) = text("agent")
        && !fork
    {
        problems.push(RuleProblem::new(
            Code::SkillAgentWithoutFork,
            e.value.span,
            format!("agent \"{v}\" has no effect without context: fork; Claude Code runs the skill inline"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::skills::validate::{Checked, check};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;
    use alisio_base::workspace::DiskFs;

    fn run(text: &str, profile: Profile) -> Checked {
        let f = Path::new("/nonexistent-skill-root/demo/SKILL.md");
        check(&DiskFs, f, text.as_bytes(), text.len() as u64, profile)
    }

    fn found(text: &str, profile: Profile) -> Vec<(&'static str, usize, usize, String)> {
        run(text, profile)
            .diagnostics
            .iter()
            .filter(|d| {
                matches!(
                    d.code,
                    Code::SkillValueInvalid
                        | Code::SkillAgentWithoutFork
                        | Code::SkillHookEventUnknown
                )
            })
            .map(|d| {
                (
                    d.code.as_str(),
                    d.span.bytes.start,
                    d.span.bytes.end,
                    d.message.clone(),
                )
            })
            .collect()
    }

    const HEAD: &str = "---\nname: demo\ndescription: Demo skill. Use it when a demo is needed.\n";

    #[test]
    fn recognised_values_are_silent() {
        for keys in [
            "context: fork\nagent: Explore\neffort: XHigh\nshell: PowerShell",
            "effort: 3\nshell: bash",
            "effort: max",
        ] {
            let t = format!("{HEAD}{keys}\n---\n# Demo\n");
            assert_eq!(found(&t, Profile::ClaudeCode), [], "{keys}");
        }
    }

    #[test]
    fn unrecognised_values_are_reported_at_the_value() {
        let t = format!(
            "{HEAD}context: webiny-extensions\neffort: extreme\nshell: zsh\nagent: Plan\n---\n# Demo\n"
        );
        let at = |s: &str| t.find(s).unwrap();
        assert_eq!(
            found(&t, Profile::ClaudeCode),
            [
                ("skill-value-invalid", at("webiny"), at("webiny") + 17, "context \"webiny-extensions\" has no effect: Claude Code knows only \"fork\"".to_string()),
                ("skill-value-invalid", at("extreme"), at("extreme") + 7, "effort \"extreme\" has no effect: Claude Code accepts low, medium, high, xhigh, max or an integer".to_string()),
                ("skill-value-invalid", at("zsh"), at("zsh") + 3, "shell \"zsh\" is not recognised: Claude Code accepts bash or powershell and falls back to bash".to_string()),
                ("skill-agent-without-fork", at("Plan"), at("Plan") + 4, "agent \"Plan\" has no effect without context: fork; Claude Code runs the skill inline".to_string()),
            ]
        );
        assert_eq!(found(&t, Profile::Spec), []);
    }

    #[test]
    fn hook_events_are_checked_by_name() {
        let good = format!(
            "{HEAD}hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n  Stop:\n    - hooks:\n        - type: command\n          command: echo done\n---\n# Demo\n"
        );
        assert_eq!(found(&good, Profile::ClaudeCode), []);
        let bad = format!(
            "{HEAD}hooks:\n  InvalidEvent:\n    - hooks:\n        - type: command\n          command: echo bad\n  pretooluse:\n    - hooks: []\n---\n# Demo\n"
        );
        let at = |s: &str| bad.find(s).unwrap();
        assert_eq!(
            found(&bad, Profile::ClaudeCode),
            [
                ("skill-hook-event-unknown", at("InvalidEvent"), at("InvalidEvent") + 12, "hooks.InvalidEvent is not a Claude Code hook event: Claude Code ignores this entry, so its hooks never run (events include PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart)".to_string()),
                ("skill-hook-event-unknown", at("pretooluse"), at("pretooluse") + 10, "hooks.pretooluse is not a Claude Code hook event: Claude Code ignores this entry, so its hooks never run; did you mean PreToolUse?".to_string()),
            ]
        );
        assert_eq!(found(&bad, Profile::Spec), []);
        assert_eq!(found(&bad, Profile::Codex), []);
    }
}
