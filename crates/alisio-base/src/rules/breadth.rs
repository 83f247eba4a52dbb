//! The catalogue entries of the rules of issue 23 §2 past the first ones (links, XML-style tags,
//! Copilot and Cursor frontmatter, skill security and size): one list, so the other families'
//! files stay as they were.

use super::{ALL_HOSTS, Fix, Rule, Tier, ex};
use crate::diagnostic::{Code, Severity};

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: Code::InstructionsLinkBroken,
        summary: "a Markdown link or a backticked file path that names no file (looked up next to the file and from the workspace root)",
        files: "every instruction file the host reads (AGENTS.md, CLAUDE.md, .claude/rules, Copilot, Cursor and Gemini files)",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "every host passes the text as written; an agent told to read a missing file wastes a turn or guesses (agnix REF-002, CDX-AG-005). A backticked path counts only when its first directory exists, so trees not checked out stay silent",
        good: ex(
            &[],
            &[
                (
                    "AGENTS.md",
                    "# Project\n\nSee [setup](docs/setup.md) and `docs/setup.md`.\n",
                ),
                ("docs/setup.md", "# Setup\n"),
            ],
        ),
        bad: ex(
            &[],
            &[
                (
                    "AGENTS.md",
                    "# Project\n\nSee [style](docs/STYLE.md) and `docs/gone.md`.\n",
                ),
                ("docs/setup.md", "# Setup\n"),
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
];
