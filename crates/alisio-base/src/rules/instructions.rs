//! The catalogue entries of the instruction-file rules (spec/instructions.md §5, spec/hosts.md
//! §5) and of the configuration and suppression rules.

use super::{ALL_HOSTS, Example, Fix, Rule, Tier, described, ex};
use crate::diagnostic::{Code, Severity};

const AGENTS_OK: Example = ex(
    &[],
    &[(
        "AGENTS.md",
        "# Project\n\nRun `cargo test` before committing.\n",
    )],
);
/// The measured behaviour of the real client.
const CLAUDE_REAL: &str = "measured with the real Claude Code 2.1.332 (tests/real, spec/hosts.md §0): it skips these imports silently";

const BODY: &str = "# Project\n\nRun `cargo test` before committing.\n";
const CODEX: &str =
    "Codex CLI rust-v0.130 `codex-rs/core/src/project_doc.rs` (spec/instructions.md §3)";
const COPILOT: &str = "VS Code core + Copilot Chat extension, early 2026 (spec/hosts.md §2)";
const CURSOR: &str = "Cursor documentation, not verified (spec/hosts.md §4)";
const GEMINI: &str =
    "Gemini CLI ≥ v0.44 `packages/core/src/utils/memoryImportProcessor.ts` (spec/hosts.md §3)";

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: Code::InstructionsTruncated,
        summary: "for some directories this file is only partly loaded (the budget is used by closer files)",
        files: "AGENTS.md, AGENTS.override.md, AGENT.md, CLAUDE.md",
        hosts: &["alisio", "codex"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "alisio context.maxBytes (spec/instructions.md §2.6); Codex CLI rust-v0.130 project_doc_max_bytes (spec/instructions.md §3)",
        good: AGENTS_OK,
        bad: described(
            "a root AGENTS.md of 30,000 bytes and a sub/AGENTS.md of 10,000 bytes (host alisio, 32,768-byte budget)",
        ),
    },
    Rule {
        code: Code::InstructionsDropped,
        summary: "for some directories this file is not loaded at all",
        files: "AGENTS.md, AGENTS.override.md, AGENT.md, CLAUDE.md",
        hosts: &["alisio", "codex", "claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "alisio budget (spec/instructions.md §2.6); Codex project_doc_max_bytes; Claude Code ≥ 2.1.277 project instructions mode claude-md-or-agents-md (spec/instructions.md §4)",
        good: ex(&["--host", "claude-code"], &[("AGENTS.md", BODY)]),
        bad: ex(
            &["--host", "claude-code"],
            &[
                ("AGENTS.md", BODY),
                ("CLAUDE.md", "# Claude\n\nUse pnpm.\n"),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsHiddenByOverride,
        summary: "an AGENTS.md (or AGENT.md, or a Codex fallback) beside an AGENTS.override.md: never read",
        files: "AGENTS.md, AGENT.md, Codex fallback files",
        hosts: &["alisio", "codex"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: CODEX,
        good: AGENTS_OK,
        bad: ex(
            &[],
            &[
                ("AGENTS.md", BODY),
                ("AGENTS.override.md", "# Override\n\nRun `make test`.\n"),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsLegacyName,
        summary: "a legacy file the host still reads: AGENT.md (rename it to AGENTS.md), Cursor's root .cursorrules",
        files: "AGENT.md, .cursorrules",
        hosts: &["alisio", "cursor"],
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Default,
        fix: Fix::Unsafe,
        evidence: "alisio's own loader (spec/instructions.md §2); for .cursorrules, Cursor's rules documentation (docs.cursor.com/context/rules: \"still supported, but will be deprecated\"; spec/hosts.md CU7; agnix CUR-006)",
        good: AGENTS_OK,
        bad: ex(&[], &[("AGENT.md", BODY)]),
    },
    Rule {
        code: Code::InstructionsUnreadName,
        summary: "a near-miss name (`agents.md`, `AGENTS.MD`, `Agente.md`) that the host never reads",
        files: "near-miss instruction file names",
        hosts: &["alisio", "codex", "claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::Unsafe,
        evidence: "case-sensitive name match in Codex rust-v0.130 and Claude Code ≥ 2.1.277 (spec/instructions.md §5.2)",
        good: AGENTS_OK,
        bad: ex(&[], &[("agents.md", BODY)]),
    },
    Rule {
        code: Code::InstructionsClaudeIgnored,
        summary: "a CLAUDE.md the host does not read (fallback off, or another file wins)",
        files: "CLAUDE.md",
        hosts: &["alisio", "codex"],
        profiles: &[],
        severity: Severity::Hint,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "alisio context.claudeMdFallback (spec/instructions.md §2.10); Codex project_doc_fallback_filenames",
        good: AGENTS_OK,
        bad: ex(&[], &[("CLAUDE.md", BODY)]),
    },
    Rule {
        code: Code::InstructionsSymlink,
        summary: "the instruction file or a directory on its path is a symbolic link (host alisio skips it)",
        files: "AGENTS.md and the other candidates",
        hosts: &["alisio"],
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "alisio's symlink policy (spec/instructions.md §2.4)",
        good: AGENTS_OK,
        bad: described("AGENTS.md is a symbolic link to docs/agents.md"),
    },
    Rule {
        code: Code::InstructionsFileCut,
        summary: "the file exceeds the 262,144-byte per-file limit; the rest is never read",
        files: "AGENTS.md and the other candidates",
        hosts: &["alisio"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "alisio's per-file limit (spec/instructions.md §2.5)",
        good: AGENTS_OK,
        bad: described("an AGENTS.md of 300 KiB"),
    },
    Rule {
        code: Code::InstructionsInvalidUtf8,
        summary: "bytes that are not UTF-8 reach the model as U+FFFD",
        files: "every instruction file",
        hosts: &["alisio", "codex", "claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "lossy UTF-8 decoding in alisio, Codex rust-v0.130 and Claude Code ≥ 2.1.277 (spec/instructions.md §2.5)",
        good: AGENTS_OK,
        bad: described("an AGENTS.md holding the byte 0xFF"),
    },
    Rule {
        code: Code::InstructionsEmpty,
        summary: "an empty or whitespace-only instruction file that wins its directory, or a Copilot instruction file with no text",
        files: "AGENTS.md and the other candidates; .github/copilot-instructions.md, *.instructions.md",
        hosts: &["alisio", "codex", "claude-code", "copilot"],
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: CODEX,
        good: AGENTS_OK,
        bad: ex(&[], &[("AGENTS.md", "\n\n")]),
    },
    Rule {
        code: Code::InstructionsHidden,
        summary: "a candidate that loses to another file of its directory (e.g. AGENT.md beside AGENTS.md)",
        files: "AGENT.md, Codex fallback files",
        hosts: &["alisio", "codex"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: CODEX,
        good: AGENTS_OK,
        bad: ex(
            &[],
            &[
                ("AGENTS.md", BODY),
                ("AGENT.md", "# Old\n\nRun `make test`.\n"),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsApplyToList,
        summary: "copilot: `applyTo` written as a YAML list, which Copilot never attaches",
        files: ".github/instructions/*.instructions.md",
        hosts: &["copilot"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::Safe,
        evidence: COPILOT,
        good: ex(
            &["--host", "copilot"],
            &[
                (
                    ".github/instructions/ts.instructions.md",
                    "---\napplyTo: \"**/*.ts\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", ""),
            ],
        ),
        bad: ex(
            &["--host", "copilot"],
            &[
                (
                    ".github/instructions/ts.instructions.md",
                    "---\napplyTo:\n  - \"**/*.ts\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", ""),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsGlobUnmatched,
        summary: "an `applyTo`, `paths` or `globs` pattern that matches no file of the workspace",
        files: ".github/instructions/*.instructions.md, .claude/rules/*.md, .cursor/rules/*.mdc",
        hosts: &["copilot", "cursor"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "glob matching of VS Code core (early 2026) and Cursor documentation (spec/hosts.md §5)",
        good: ex(
            &["--host", "copilot"],
            &[
                (
                    ".github/instructions/ts.instructions.md",
                    "---\napplyTo: \"**/*.ts\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", ""),
            ],
        ),
        bad: ex(
            &["--host", "copilot"],
            &[
                (
                    ".github/instructions/ts.instructions.md",
                    "---\napplyTo: \"**/*.zig\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", ""),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsOutsideLocation,
        summary: "copilot: an `.instructions.md` file outside every `instructionsFilesLocations` folder",
        files: "*.instructions.md",
        hosts: &["copilot"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: COPILOT,
        good: ex(
            &["--host", "copilot"],
            &[
                (
                    ".github/instructions/ts.instructions.md",
                    "---\napplyTo: \"**/*.ts\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", ""),
            ],
        ),
        bad: ex(
            &["--host", "copilot"],
            &[
                (
                    "docs/ts.instructions.md",
                    "---\napplyTo: \"**/*.ts\"\n---\nUse strict mode.\n",
                ),
                ("src/a.ts", ""),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsRuleManualOnly,
        summary: "cursor: an `.mdc` rule with none of `alwaysApply`, `globs`, `description`: only an @-mention reaches it; copilot: an `.instructions.md` with no `applyTo`, never attached on its own",
        files: ".cursor/rules/*.mdc, *.instructions.md",
        hosts: &["cursor", "copilot"],
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "Cursor documentation, not verified (spec/hosts.md §4); VS Code docs: an instructions file without applyTo is not applied automatically, GitHub.com and the Copilot CLI apply only by applyTo (spec/hosts.md §2)",
        good: ex(
            &["--host", "cursor"],
            &[(
                ".cursor/rules/style.mdc",
                "---\nalwaysApply: true\n---\nUse tabs.\n",
            )],
        ),
        bad: ex(
            &["--host", "cursor"],
            &[(".cursor/rules/style.mdc", "Use tabs.\n")],
        ),
    },
    Rule {
        code: Code::InstructionsRuleIgnored,
        summary: "cursor: a `.md` file in `.cursor/rules`, which Cursor ignores",
        files: ".cursor/rules/*.md",
        hosts: &["cursor"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::Unsafe,
        evidence: CURSOR,
        good: ex(
            &["--host", "cursor"],
            &[(
                ".cursor/rules/style.mdc",
                "---\nalwaysApply: true\n---\nUse tabs.\n",
            )],
        ),
        bad: ex(
            &["--host", "cursor"],
            &[(
                ".cursor/rules/style.md",
                "---\nalwaysApply: true\n---\nUse tabs.\n",
            )],
        ),
    },
    Rule {
        code: Code::InstructionsImportFailed,
        summary: "gemini: an `@import` that is missing, outside the project, a URL, or a cycle",
        files: "GEMINI.md",
        hosts: &["gemini"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: GEMINI,
        good: ex(
            &["--host", "gemini"],
            &[
                ("GEMINI.md", "# Project\n\n@docs/style.md\n"),
                ("docs/style.md", "Use tabs.\n"),
            ],
        ),
        bad: ex(
            &["--host", "gemini"],
            &[("GEMINI.md", "# Project\n\n@docs/style.md\n")],
        ),
    },
    Rule {
        code: Code::InstructionsNameCase,
        summary: "copilot, gemini, cursor: a name that differs only in case from one the host reads",
        files: "GEMINI.md, .github/copilot-instructions.md, *.instructions.md, .cursor/rules",
        hosts: &["copilot", "gemini", "cursor"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::Unsafe,
        evidence: "case-sensitive file names in Gemini CLI ≥ v0.44 and VS Code core (spec/hosts.md §5)",
        good: ex(&["--host", "gemini"], &[("GEMINI.md", BODY)]),
        bad: ex(&["--host", "gemini"], &[("gemini.md", BODY)]),
    },
    Rule {
        code: Code::InstructionsFenceUnclosed,
        summary: "a code fence that is never closed: the rest of the file reads as code",
        files: "every instruction file the host reads",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "CommonMark 0.31 §4.5 (fenced code blocks); every host passes the text to the model as written",
        good: AGENTS_OK,
        bad: ex(
            &[],
            &[(
                "AGENTS.md",
                "# Project\n\n```sh\ncargo test\n\n## Style\n\nUse tabs.\n",
            )],
        ),
    },
    Rule {
        code: Code::InstructionsTooLong,
        summary: "an instruction file over 200 lines, Claude Code's size guidance for CLAUDE.md (a Cursor rule: over 500 lines; a Copilot file: over 1,000 lines; their hosts' guidance)",
        files: "every instruction file the host reads",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Opinionated,
        fix: Fix::None,
        evidence: "Claude Code memory documentation (code.claude.com/docs/en/memory: target under 200 lines per CLAUDE.md), read 2026-12; Cursor rules documentation (500 lines); docs.github.com \"Customizing code review\" (limit any single instruction file to at most 1,000 lines; agnix COP-006)",
        good: AGENTS_OK,
        bad: described(
            "an AGENTS.md of 201 lines (enable it with diagnostics.enable: [\"instructions-too-long\"])",
        ),
    },
    Rule {
        code: Code::InstructionsImportUnresolved,
        summary: "claude-code: an `@import` that names no readable file (missing, a directory, a non-text file, or a path that keeps its trailing `:` `,` `.`)",
        files: "every instruction file Claude Code reads",
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: CLAUDE_REAL,
        good: ex(
            &["--host", "claude-code"],
            &[
                (
                    "CLAUDE.md",
                    "# Project\n\nSee @docs/style.md for the style.\n",
                ),
                ("docs/style.md", "Use tabs.\n"),
            ],
        ),
        bad: ex(
            &["--host", "claude-code"],
            &[
                (
                    "CLAUDE.md",
                    "# Project\n\nSee @docs/style.md: it has the style.\n",
                ),
                ("docs/style.md", "Use tabs.\n"),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsImportNotExpanded,
        summary: "claude-code: an `@import` of an existing file that Claude Code does not expand (inside code, or outside the importing file's directory, which waits for an approval)",
        files: "every instruction file Claude Code reads",
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: CLAUDE_REAL,
        good: ex(
            &["--host", "claude-code"],
            &[
                ("CLAUDE.md", "# Project\n\n@docs/style.md\n"),
                ("docs/style.md", "Use tabs.\n"),
            ],
        ),
        bad: ex(
            &["--host", "claude-code"],
            &[
                ("CLAUDE.md", "# Project\n\nRead `@docs/style.md` first.\n"),
                ("docs/style.md", "Use tabs.\n"),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsImportLink,
        summary: "claude-code: a pointer file that links to an instruction file with a Markdown link, which Claude Code sends as text (an `@import` was meant)",
        files: "CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md",
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: CLAUDE_REAL,
        good: ex(
            &["--host", "claude-code"],
            &[("CLAUDE.md", "@AGENTS.md\n"), ("AGENTS.md", BODY)],
        ),
        bad: ex(
            &["--host", "claude-code"],
            &[
                ("CLAUDE.md", "See [AGENTS.md](AGENTS.md).\n"),
                ("AGENTS.md", BODY),
            ],
        ),
    },
    Rule {
        code: Code::InstructionsPointerEmpty,
        summary: "claude-code: a pointer file (only `@imports`) whose imports deliver no text",
        files: "CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md",
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: CLAUDE_REAL,
        good: ex(
            &["--host", "claude-code"],
            &[("CLAUDE.md", "@AGENTS.md\n"), ("AGENTS.md", BODY)],
        ),
        bad: ex(
            &["--host", "claude-code"],
            &[("CLAUDE.md", "@AGENTS.md\n"), ("AGENTS.md", "\n")],
        ),
    },
    Rule {
        code: Code::ConfigInvalid,
        summary: "an alisio configuration value has the wrong type or is out of range",
        files: ".alisio/config.json, <config home>/config.json, --config FILE",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Error,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "alisio's configuration (spec/instructions.md §2.10, §7)",
        good: ex(
            &["--trust-project"],
            &[
                (
                    ".alisio/config.json",
                    "{\"context\": {\"maxBytes\": 32768}}\n",
                ),
                ("AGENTS.md", BODY),
            ],
        ),
        bad: described(
            "`.alisio/config.json` holding {\"context\": {\"maxBytes\": 1}} (`check` prints `error: <file>: <message>` and exits 2)",
        ),
    },
    Rule {
        code: Code::SuppressionUnused,
        summary: "an inline suppression that suppresses nothing, or names an unknown code",
        files: "every checked Markdown file",
        hosts: ALL_HOSTS,
        profiles: &[],
        severity: Severity::Hint,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: "alisio's suppressions (spec/suppressions.md §4)",
        good: ex(
            &[],
            &[(
                "AGENT.md",
                "<!-- alisio-ignore-file: instructions-legacy-name -->\n# Project\n",
            )],
        ),
        bad: ex(
            &[],
            &[(
                "AGENTS.md",
                "<!-- alisio-ignore-file: instructions-legacy-name -->\n# Project\n",
            )],
        ),
    },
];
