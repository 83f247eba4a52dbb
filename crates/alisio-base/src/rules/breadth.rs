//! The catalogue entries of the rules of issue 23 §2 past the first ones (links, XML-style tags,
//! Copilot and Cursor frontmatter, skill security and size): one list, so the other families'
//! files stay as they were.

use super::{ALL_HOSTS, ALL_PROFILES, Fix, Rule, Tier, described, ex};
use crate::diagnostic::{Code, Severity};

const ENABLE_LINKS: &str = r#"{"diagnostics": {"enable": ["instructions-link-broken"]}}"#;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: Code::InstructionsLinkBroken,
        summary: "a Markdown link or a backticked file path that names no file (looked up next to the file and from the workspace root)",
        files: "every instruction file the host reads (AGENTS.md, CLAUDE.md, .claude/rules, Copilot, Cursor and Gemini files)",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Opinionated,
        fix: Fix::None,
        evidence: "every host passes the text as written; an agent told to read a missing file wastes a turn or guesses (agnix REF-002, CDX-AG-005). A backticked path counts only when its first directory exists. Opinionated: on the corpus (agent files only, sources not checked out) 19 of 20 sampled targets exist upstream (docs/agnix.md, precision)",
        good: ex(
            &["--trust-project"],
            &[
                (
                    "AGENTS.md",
                    "# Project\n\nSee [setup](docs/setup.md) and `docs/setup.md`.\n",
                ),
                ("docs/setup.md", "# Setup\n"),
                (".alisio/config.json", ENABLE_LINKS),
            ],
        ),
        bad: ex(
            &["--trust-project"],
            &[
                (
                    "AGENTS.md",
                    "# Project\n\nSee [style](docs/STYLE.md) and `docs/gone.md`.\n",
                ),
                ("docs/setup.md", "# Setup\n"),
                (".alisio/config.json", ENABLE_LINKS),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsXmlUnbalanced,
        summary: "an XML-style tag on a line of its own that is never closed, closes another tag, or closes nothing",
        files: "every instruction file the host reads",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Anthropic's prompting guide uses XML tags as structure; every host passes them to the model as written (agnix XML-001…003). Tags inside a sentence (`<id>`) and in code are not counted",
        good: ex(
            &[],
            &[("AGENTS.md", "<example>\nRun `cargo test`.\n</example>\n")],
        ),
        bad: ex(
            &[],
            &[(
                "AGENTS.md",
                "<example>\nRun `cargo test`.\n\n## Style\n\nUse tabs.\n",
            )],
        ),
    },
    Rule {
        code: Code::InstructionsKeyIgnored,
        summary: "a frontmatter key the host never reads: unknown keys of Copilot `.instructions.md`, Cursor `.mdc` and `.claude/rules` files, and Cursor `globs` beside `alwaysApply: true`",
        files: "*.instructions.md, .cursor/rules/*.mdc, .claude/rules/**/*.md",
        hosts: &["copilot", "cursor", "claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "VS Code and GitHub docs (applyTo, description, name, excludeAgent; spec/hosts.md §2); Cursor docs (description, globs, alwaysApply; spec/hosts.md CU3/CU4); Claude Code 2.1.332 reads only `paths` of a rule file (its rule loader, strings of the binary)",
        good: ex(
            &["--host", "cursor"],
            &[
                (
                    ".cursor/rules/ts.mdc",
                    "---\ndescription: TypeScript rules\nglobs: src/**/*.ts\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", "export {};\n"),
            ],
        ),
        bad: ex(
            &["--host", "cursor"],
            &[(
                ".cursor/rules/ts.mdc",
                "---\ndescription: TypeScript rules\npriority: high\nalwaysApply: true\n---\nUse strict mode.\n",
            )],
        ),
    },
    Rule {
        code: Code::InstructionsValueInvalid,
        summary: "a frontmatter value that does nothing: a Copilot `excludeAgent` naming no agent, a quoted Cursor `alwaysApply` on a rule with a description or globs",
        files: "*.instructions.md, .cursor/rules/*.mdc",
        hosts: &["copilot", "cursor"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "GitHub docs: excludeAgent is \"code-review\" or \"coding-agent\" (spec/hosts.md §2); Cursor reads alwaysApply only unquoted (spec/hosts.md CU3)",
        good: ex(
            &["--host", "copilot"],
            &[
                (
                    ".github/instructions/ts.instructions.md",
                    "---\napplyTo: \"**/*.ts\"\nexcludeAgent: \"code-review\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", "export {};\n"),
            ],
        ),
        bad: ex(
            &["--host", "copilot"],
            &[
                (
                    ".github/instructions/ts.instructions.md",
                    "---\napplyTo: \"**/*.ts\"\nexcludeAgent: \"reviewer\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", "export {};\n"),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsFrontmatterInert,
        summary: "frontmatter in an AGENTS.md: no host reads it as settings, it reaches the model as text",
        files: "AGENTS.md, AGENTS.override.md",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Codex rust-v0.130 `project_doc.rs` reads the bytes as they are (spec/instructions.md §3); Cursor does not interpret it (spec/hosts.md CU6); the AGENTS.md format has no frontmatter",
        good: ex(
            &[],
            &[("AGENTS.md", "# Project\n\n---\n\nRun `cargo test`.\n")],
        ),
        bad: ex(
            &[],
            &[(
                "AGENTS.md",
                "---\napplyTo: src/**\n---\n# Project\n\nRun `cargo test`.\n",
            )],
        ),
    },
    Rule {
        code: Code::InstructionsSecret,
        summary: "a live-looking token (known prefix, random part) or private key in an instruction file: it is sent to the model provider",
        files: "every instruction file the host reads",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "every host sends the file's text to its model provider; prefixes as the providers publish them (GitHub ghp_/github_pat_, OpenAI sk-, Anthropic sk-ant-, Slack xox*, AWS AKIA, Google AIza, GitLab glpat-, npm_, hf_); placeholders (sk-..., xxxx, YOUR_, EXAMPLE) skipped, unlike agnix CDX-AG-002 (0 of 3 real on the corpus)",
        good: ex(
            &[],
            &[(
                "AGENTS.md",
                "# Project\n\nExport `OPENAI_API_KEY=sk-...` from your shell first.\n",
            )],
        ),
        bad: described(
            "an AGENTS.md with a line `GITHUB_TOKEN=ghp_` followed by 36 random letters and digits (not written here, so no secret scanner stops this file)",
        ),
    },
    Rule {
        code: Code::SkillSecret,
        summary: "a live-looking token (known prefix, random part) or private key in a SKILL.md: it is sent to the model provider",
        files: "SKILL.md",
        hosts: ALL_HOSTS,
        profiles: ALL_PROFILES,
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "as instructions-secret: the skill's text reaches the model when it is invoked (agnix XP-SK-003)",
        good: ex(
            &[],
            &[(
                ".agents/skills/deploy/SKILL.md",
                "---\nname: deploy\ndescription: Deploys the app. Use when asked to deploy.\n---\nRead the token from `$GITHUB_TOKEN`.\n",
            )],
        ),
        bad: described(
            "a SKILL.md body with `TOKEN = \"ghp_` and 36 random letters and digits (not written here, so no secret scanner stops this file)",
        ),
    },
    Rule {
        code: Code::SkillShellUnrestricted,
        summary: "an `allowed-tools` entry that pre-approves every shell command (`Bash`, `Bash(*)`, `shell`)",
        files: "SKILL.md",
        hosts: &["alisio", "claude-code", "copilot"],
        profiles: &["alisio", "spec", "claude-code"],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Claude Code skills docs: allowed-tools grants tools without asking while the skill is active; `Bash` with no specifier matches every command (permission rule syntax); GitHub Copilot skills docs for `shell` (agnix CC-SK-007, CP-SK-002)",
        good: ex(
            &[],
            &[(
                ".agents/skills/git-status/SKILL.md",
                "---\nname: git-status\ndescription: Shows git status. Use when asked for status.\nallowed-tools: Bash(git status:*), Read\n---\nRun git status.\n",
            )],
        ),
        bad: ex(
            &[],
            &[(
                ".agents/skills/git-status/SKILL.md",
                "---\nname: git-status\ndescription: Shows git status. Use when asked for status.\nallowed-tools: Bash, Read\n---\nRun git status.\n",
            )],
        ),
    },
    Rule {
        code: Code::SkillSideEffectInvocable,
        summary: "a skill that says it deploys, publishes, releases or deletes, and that the model may invoke on its own (no `disable-model-invocation: true`)",
        files: "SKILL.md",
        hosts: &["alisio", "claude-code"],
        profiles: &["alisio", "claude-code"],
        severity: Severity::Hint,
        tier: Tier::Opinionated,
        fix: Fix::None,
        evidence: "Claude Code skills docs: disable-model-invocation keeps the model from invoking a skill, for workflows with side effects such as deploy (agnix CC-SK-006); a word list, so opinionated",
        good: ex(
            &[],
            &[
                (
                    ".agents/skills/deploy-staging/SKILL.md",
                    "---\nname: deploy-staging\ndescription: Use when deploying to staging.\ndisable-model-invocation: true\n---\nDeploy.\n",
                ),
                (
                    ".alisio/config.json",
                    "{\"diagnostics\": {\"enable\": [\"skill-side-effect-invocable\"]}}",
                ),
            ],
        ),
        bad: ex(
            &["--trust-project"],
            &[
                (
                    ".agents/skills/deploy-staging/SKILL.md",
                    "---\nname: deploy-staging\ndescription: Use when deploying to staging.\n---\nDeploy.\n",
                ),
                (
                    ".alisio/config.json",
                    "{\"diagnostics\": {\"enable\": [\"skill-side-effect-invocable\"]}}",
                ),
            ],
        ),
    },
    Rule {
        code: Code::SkillCompatibilityEmpty,
        summary: "`compatibility: \"\"`: the specification wants 1 to 500 characters when the key is given",
        files: "SKILL.md",
        hosts: &["alisio"],
        profiles: &["alisio", "spec"],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Agent Skills specification (agentskills.io/specification): compatibility, if provided, 1-500 characters (agnix AS-011)",
        good: ex(
            &[],
            &[(
                ".agents/skills/migrate-db/SKILL.md",
                "---\nname: migrate-db\ndescription: Runs migrations. Use when migrating.\ncompatibility: Requires PostgreSQL 14+\n---\nRun them.\n",
            )],
        ),
        bad: ex(
            &[],
            &[(
                ".agents/skills/migrate-db/SKILL.md",
                "---\nname: migrate-db\ndescription: Runs migrations. Use when migrating.\ncompatibility: \"\"\n---\nRun them.\n",
            )],
        ),
    },
    Rule {
        code: Code::InstructionsLocalNotIgnored,
        summary: "a CLAUDE.local.md in a git workspace that git does not ignore: personal notes that would be committed",
        files: "CLAUDE.local.md",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Claude Code memory docs: CLAUDE.local.md holds personal project preferences and should be git-ignored; Claude Code 2.1.332 reads it beside CLAUDE.md (spec/instructions.md §4). The .gitignore chain, .git/info/exclude and $XDG_CONFIG_HOME/git/ignore are read (agnix CC-MEM-020)",
        good: ex(
            &[],
            &[
                ("CLAUDE.local.md", "Use my sandbox URLs.\n"),
                (".gitignore", "CLAUDE.local.md\n"),
            ],
        ),
        bad: ex(&[], &[("CLAUDE.local.md", "Use my sandbox URLs.\n")]),
    },
    Rule {
        code: Code::SkillUploadTooLarge,
        summary: "a skill directory over 30 MB, the most claude.ai and the Claude API accept for one skill upload",
        files: "SKILL.md and its directory",
        hosts: &["alisio"],
        profiles: &["alisio", "spec"],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Claude API skills guide (platform.claude.com/docs/en/build-with-claude/skills-guide): 30 MB per upload (agnix AS-015, issue 23); regular files below the directory, symlinks not followed, at most 10,000 entries counted",
        good: ex(
            &[],
            &[(
                ".agents/skills/small/SKILL.md",
                "---\nname: small\ndescription: Runs a light task. Use when asked.\n---\nRun it.\n",
            )],
        ),
        bad: described("a skill directory holding a 31 MB asset beside its SKILL.md"),
    },
    Rule {
        code: Code::InstructionsAlwaysLoadedLong,
        summary: "claude-code: the workspace files loaded at every session start for the root (CLAUDE.md, imports, rules without paths) hold more than 200 lines together",
        files: "CLAUDE.md, its imports, .claude/rules without paths, CLAUDE.local.md",
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Opinionated,
        fix: Fix::None,
        evidence: "Claude Code memory docs: keep CLAUDE.md under 200 lines; imports and unconditional rules are loaded at launch like it (measured with 2.1.332, spec/hosts.md §0); the 200 lines applied to the total is alisio's decision (agnix CC-MEM-015)",
        good: ex(
            &["--host", "claude-code"],
            &[("CLAUDE.md", "# Project\n\nRun `cargo test`.\n")],
        ),
        bad: described(
            "a CLAUDE.md of 150 lines importing @docs/conventions.md (150 lines) beside .claude/rules/style.md (150 lines, no paths), with the rule enabled",
        ),
    },
    Rule {
        code: Code::InstructionsCommandsConflict,
        summary: "two files loaded together for the same directory name different JavaScript package managers in their commands (`npm install` and `pnpm install`)",
        files: "AGENTS.md, CLAUDE.md and the files of one startup list",
        hosts: &["alisio", "codex", "claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "the files of one startup list all reach the model for that directory (spec/instructions.md §2–4); only commands written as code count, and only co-applying files are compared (agnix XP-004 compared unrelated trees: 4 of its 5 corpus hits)",
        good: ex(
            &[],
            &[
                ("AGENTS.md", "# Project\n\nRun `pnpm install`.\n"),
                ("web/AGENTS.md", "# Web\n\nRun `pnpm test`.\n"),
            ],
        ),
        bad: ex(
            &[],
            &[
                ("AGENTS.md", "# Project\n\nRun `npm install`.\n"),
                ("web/AGENTS.md", "# Web\n\nRun `pnpm test`.\n"),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsImportTooDeep,
        summary: "an `@import` in a file already 4 imports from CLAUDE.md, which Claude Code does not follow",
        files: "CLAUDE.md, CLAUDE.local.md, .claude/rules and the files they import",
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Claude Code 2.1.332 follows @imports 4 hops from a memory file (5 levels counting it), measured by tests/real case import_chain_depth_limit (spec/instructions.md §4, §5.6; agnix CC-MEM-003)",
        good: ex(
            &["--host", "claude-code"],
            &[
                ("CLAUDE.md", "# Project\n\n@a.md\n"),
                ("a.md", "A\n@b.md\n"),
                ("b.md", "B\n@c.md\n"),
                ("c.md", "C\n@d.md\n"),
                ("d.md", "D\n"),
            ],
        ),
        bad: ex(
            &["--host", "claude-code"],
            &[
                ("CLAUDE.md", "# Project\n\n@a.md\n"),
                ("a.md", "A\n@b.md\n"),
                ("b.md", "B\n@c.md\n"),
                ("c.md", "C\n@d.md\n"),
                ("d.md", "D\n@e.md\n"),
                ("e.md", "E\n"),
            ],
        ),
    },
];
