//! The catalogue entries of GitHub Copilot in VS Code's custom agents and prompt files
//! (spec/instructions.md §10.9): the checks of VS Code's prompt validator that need no runtime.

use super::{Example, Fix, Rule, Tier, ex};
use crate::diagnostic::{Code, Severity};

const COPILOT: &[&str] = &["copilot"];
const FILES: &str =
    ".github/agents/*.agent.md, .github/chatmodes/*.chatmode.md, .github/prompts/*.prompt.md";
const VALIDATOR: &str = "VS Code source, microsoft/vscode src/vs/workbench/contrib/chat/common/promptSyntax/languageProviders/promptValidator.ts @ 0783120be12f (cannot run offline)";
const AGENT: &str = "---\nname: reviewer\ndescription: Reviews a diff for bugs.\ntools: ['search', 'read']\n---\nYou review code.\n";
const GOOD: Example = ex(&[], &[(".github/agents/reviewer.agent.md", AGENT)]);

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: Code::CopilotHeaderInvalid,
        summary: "a Copilot agent or prompt file whose `---` header is not YAML `key: value` pairs: VS Code reports its parser's error",
        files: FILES,
        hosts: COPILOT,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "VS Code source, microsoft/vscode promptSyntax/promptFileParser.ts (`PromptHeader`) and promptValidator.ts @ 0783120be12f (cannot run offline)",
        good: GOOD,
        bad: ex(
            &[],
            &[(
                ".github/agents/reviewer.agent.md",
                "---\n- just\n- a list\n---\nYou review code.\n",
            )],
        ),
    },
    Rule {
        code: Code::CopilotAttributeUnknown,
        summary: "a header attribute VS Code does not support in that file type (prompt file, VS Code agent, `target: github-copilot` agent) or an unknown handoff property",
        files: FILES,
        hosts: COPILOT,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: VALIDATOR,
        good: GOOD,
        bad: ex(
            &[],
            &[(
                ".github/prompts/review.prompt.md",
                "---\ndescription: Review the diff\napplyTo: '**/*.ts'\n---\nReview it.\n",
            )],
        ),
    },
    Rule {
        code: Code::CopilotAttributeIgnored,
        summary: "a GitHub Copilot (cloud) agent attribute in an agent run locally in VS Code (`mcp-servers` without `target: github-copilot`): ignored",
        files: ".github/agents/*.agent.md",
        hosts: COPILOT,
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: VALIDATOR,
        good: GOOD,
        bad: ex(
            &[],
            &[(
                ".github/agents/reviewer.agent.md",
                "---\ndescription: Reviews a diff for bugs.\nmcp-servers: {}\n---\nYou review code.\n",
            )],
        ),
    },
    Rule {
        code: Code::CopilotAttributeInvalid,
        summary: "a header attribute of the wrong type or empty (`name`, `description`, `tools` not a list, `target` not `vscode`/`github-copilot`, `handoffs`, …), as VS Code's validator says",
        files: FILES,
        hosts: COPILOT,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: VALIDATOR,
        good: GOOD,
        bad: ex(
            &[],
            &[(
                ".github/agents/reviewer.agent.md",
                "---\ndescription: Reviews a diff for bugs.\ntools: search, read\n---\nYou review code.\n",
            )],
        ),
    },
    Rule {
        code: Code::CopilotAttributeDeprecated,
        summary: "a deprecated header attribute: `infer` in an agent (use `user-invokable`, `disable-model-invocation`), `mode` in a prompt file (use `agent`)",
        files: FILES,
        hosts: COPILOT,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: VALIDATOR,
        good: ex(
            &[],
            &[(
                ".github/prompts/review.prompt.md",
                "---\ndescription: Review the diff\nagent: agent\n---\nReview it.\n",
            )],
        ),
        bad: ex(
            &[],
            &[(
                ".github/prompts/review.prompt.md",
                "---\ndescription: Review the diff\nmode: agent\n---\nReview it.\n",
            )],
        ),
    },
    Rule {
        code: Code::CopilotChatmodeRenamed,
        summary: "a legacy `.github/chatmodes/*.chatmode.md`: still read as an agent, but chat modes were renamed to agents (`.github/agents/*.agent.md`)",
        files: ".github/chatmodes/*.chatmode.md",
        hosts: COPILOT,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: VALIDATOR,
        good: GOOD,
        bad: ex(&[], &[(".github/chatmodes/reviewer.chatmode.md", AGENT)]),
    },
];
