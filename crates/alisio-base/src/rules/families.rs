//! The catalogue entries of the family files beside skills: subagents, slash commands and MCP
//! server configurations (spec/instructions.md §10.4).

use super::{Example, Fix, Rule, Tier, ex};
use crate::diagnostic::{Code, Severity};

const CLAUDE: &[&str] = &["claude-code"];
const AGENT_HOSTS: &[&str] = &["claude-code", "codex", "gemini"];
const AGENT_FILES: &str = ".claude/agents/**/*.md, .gemini/agents/*.md, .codex/agents/**/*.toml";
const MEASURED: &str = "Claude Code 2.1.332, measured offline (tests/real `families`)";
const MEASURED_AGENTS: &str = "Claude Code 2.1.332, Gemini CLI 0.61.0 (its agent loader's schema) and Codex CLI 0.171.0, measured offline (tests/real `families`)";
const AGENT: &str = "---\nname: reviewer\ndescription: Reviews a diff for bugs. Use after edits.\n---\nYou review code.\n";
const GOOD_AGENT: Example = ex(&[], &[(".claude/agents/reviewer.md", AGENT)]);
const MCP: &str =
    "{\"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\", \"args\": [\"--stdio\"]}}}\n";
const GOOD_MCP: Example = ex(&[], &[(".mcp.json", MCP)]);
const MCP_HOSTS: &[&str] = &["claude-code", "codex", "gemini"];
const MCP_FILES: &str = ".mcp.json, .codex/config.toml, .gemini/settings.json";
const MCP_EVIDENCE: &str = "Claude Code 2.1.332, Codex CLI 0.171.0 and Gemini CLI 0.61.0, measured offline (tests/real `families`, `mcp`); the schemas: Claude Code's bundle, codex-rs/config/src/mcp_types.rs `RawMcpServerConfig`, Gemini CLI's bundle `SETTINGS_SCHEMA_DEFINITIONS.MCPServerConfig`";
const CODEX_MCP: &str = "[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\n";

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: Code::AgentFrontmatterMissing,
        summary: "a subagent file its host cannot read (no `---` frontmatter block; Codex: not TOML): not loaded",
        files: AGENT_FILES,
        hosts: AGENT_HOSTS,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: MEASURED_AGENTS,
        good: GOOD_AGENT,
        bad: ex(&[], &[(".claude/agents/reviewer.md", "You review code.\n")]),
    },
    Rule {
        code: Code::AgentFieldMissing,
        summary: "a subagent without `name` or `description` (Gemini: or a `name` that is not a slug): not loaded",
        files: AGENT_FILES,
        hosts: AGENT_HOSTS,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: MEASURED_AGENTS,
        good: GOOD_AGENT,
        bad: ex(
            &[],
            &[(
                ".claude/agents/reviewer.md",
                "---\nname: reviewer\n---\nYou review code.\n",
            )],
        ),
    },
    Rule {
        code: Code::AgentShadowed,
        summary: "another subagent of the same name wins (a project agent over a user one); this one is not loaded",
        files: ".claude/agents/**/*.md",
        hosts: CLAUDE,
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: MEASURED,
        good: GOOD_AGENT,
        bad: ex(
            &[],
            &[
                (".claude/agents/reviewer.md", AGENT),
                (".claude/agents/old/reviewer.md", AGENT),
            ],
        ),
    },
    Rule {
        code: Code::CommandShadowed,
        summary: "a slash command not in the skill listing because a skill or another command of the same name wins",
        files: ".claude/commands/**/*.md",
        hosts: CLAUDE,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: MEASURED,
        good: ex(
            &[],
            &[(
                ".claude/commands/deploy.md",
                "---\ndescription: Deploy to staging\n---\nDeploy $ARGUMENTS.\n",
            )],
        ),
        bad: ex(
            &[],
            &[
                (
                    ".claude/commands/deploy.md",
                    "---\ndescription: Deploy to staging\n---\nDeploy $ARGUMENTS.\n",
                ),
                (
                    ".claude/skills/deploy/SKILL.md",
                    "---\nname: deploy\ndescription: Deploy the app. Use when asked to ship.\n---\n# Deploy\n",
                ),
            ],
        ),
    },
    Rule {
        code: Code::McpConfigInvalid,
        summary: "an MCP configuration that does not parse (JSON, Codex: TOML), or whose server map is not an object: Claude Code ignores the file, Codex CLI and Gemini CLI do not start (Gemini: starts none of its servers)",
        files: MCP_FILES,
        hosts: MCP_HOSTS,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: MCP_EVIDENCE,
        good: GOOD_MCP,
        bad: ex(
            &[],
            &[(
                ".mcp.json",
                "{\"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}}\n",
            )],
        ),
    },
    Rule {
        code: Code::McpServerInvalid,
        summary: "an MCP server entry that does not fit its host's schema (no `command` or `url`, an unknown `type`, a value of the wrong type, a key of the other transport): Claude Code drops it silently, Codex CLI does not start, Gemini CLI warns at every start",
        files: MCP_FILES,
        hosts: MCP_HOSTS,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: MCP_EVIDENCE,
        good: GOOD_MCP,
        bad: ex(
            &[],
            &[(
                ".mcp.json",
                "{\"mcpServers\": {\"docs\": {\"args\": [\"--stdio\"]}}}\n",
            )],
        ),
    },
    Rule {
        code: Code::McpServerKeyUnknown,
        summary: "a key an MCP server's schema does not have (a typo, another client's key): Codex CLI ignores it with a warning, Gemini CLI reports it at every start",
        files: ".codex/config.toml, .gemini/settings.json",
        hosts: &["codex", "gemini"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: MCP_EVIDENCE,
        good: ex(&[], &[(".codex/config.toml", CODEX_MCP)]),
        bad: ex(
            &[],
            &[(
                ".codex/config.toml",
                "[mcp_servers.docs]\ncommand = \"docs-mcp\"\ntimeout = 30\n",
            )],
        ),
    },
    Rule {
        code: Code::CommandTomlInvalid,
        summary: "a Gemini CLI command file that is not TOML, has no `prompt` string or a `description` that is not a string: skipped",
        files: ".gemini/commands/**/*.toml",
        hosts: &["gemini"],
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Gemini CLI 0.61.0: measured offline (tests/real `mcp`) and its `FileCommandLoader` (packages/cli/src/services/FileCommandLoader.ts in the bundle)",
        good: ex(
            &[],
            &[(
                ".gemini/commands/git/review.toml",
                "description = \"Review the staged diff\"\nprompt = \"Review this diff: {{args}}\"\n",
            )],
        ),
        bad: ex(
            &[],
            &[(
                ".gemini/commands/git/review.toml",
                "description = \"Review the staged diff\"\n",
            )],
        ),
    },
    Rule {
        code: Code::SkillAgentUnknown,
        summary: "a `context: fork` skill whose `agent` names no agent Claude Code knows: it runs on general-purpose instead",
        files: ".claude/skills/*/SKILL.md (with .claude/agents)",
        hosts: CLAUDE,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Claude Code 2.1.332's forked-skill runner looks `agent` up exactly among the active agents and otherwise runs on general-purpose, only logging \"is not available as a fork base\" (its binary's JavaScript); known here: its own agents and every .claude/agents agent of the workspace and the user (agnix CC-SK-005) (spec/skills.md §2.10)",
        good: ex(
            &[],
            &[
                (
                    ".claude/skills/review/SKILL.md",
                    "---\nname: review\ndescription: Reviews a diff. Use after edits.\ncontext: fork\nagent: reviewer\n---\nReview the diff.\n",
                ),
                (".claude/agents/reviewer.md", AGENT),
            ],
        ),
        bad: ex(
            &[],
            &[(
                ".claude/skills/review/SKILL.md",
                "---\nname: review\ndescription: Reviews a diff. Use after edits.\ncontext: fork\nagent: reviewer\n---\nReview the diff.\n",
            )],
        ),
    },
];
