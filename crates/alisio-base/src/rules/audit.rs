//! The catalogue entries of the audit rules (spec/interfaces.md §4.6): findings from the
//! sessions the agents' clients recorded for this workspace, shown by the language server on the
//! file concerned. `check` never reports them (it reads no session); their bad examples are
//! described, not files.

use super::{Example, Fix, Rule, Tier, described, ex};
use crate::diagnostic::{Code, Severity};

const EVIDENCE: &str = "the session files Claude Code 2.1.332 and Codex 0.171.0 write (~/.claude/projects/, $CODEX_HOME/sessions/) and alisio-ls's own store (its `deliveries`, spec/sessions.md §1.3), read by `alisio-ls audit` (spec/interfaces.md §4)";

const FILES: &str = "every instruction file a recorded session received";

const GOOD: Example = ex(
    &["--host", "claude-code"],
    &[
        ("CLAUDE.md", "# Project\n\n@docs/style.md\n"),
        ("docs/style.md", "Use tabs.\n"),
    ],
);

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: Code::AuditNotPredicted,
        summary: "a recent session received this file, unchanged since, where `context explain` does not predict it (or, for Codex, the joined instructions it sent differ from the prediction): the simulation and the client disagree",
        files: FILES,
        hosts: &["claude-code", "codex", "alisio"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: EVIDENCE,
        good: GOOD,
        bad: described(
            "a Claude Code session of this workspace whose first request carried pkg/CLAUDE.md although `context explain --host claude-code` for the session's cwd does not list it",
        ),
    },
    Rule {
        code: Code::AuditNotReceived,
        summary: "`context explain` predicts this file at start for a recent session's cwd, the file has not changed since the session started, and the session never received it: the simulation and the client disagree",
        files: FILES,
        hosts: &["claude-code", "codex", "alisio"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: EVIDENCE,
        good: GOOD,
        bad: described(
            "a Claude Code session started at the root whose first request carried CLAUDE.md but not AGENTS.md, although AGENTS.md was older than the session and `context explain --host claude-code` lists it",
        ),
    },
    Rule {
        code: Code::AuditImportNotExpanded,
        summary: "a recent session received this file unchanged but not the file an `@import` in it names, although that file exists",
        files: FILES,
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Warning,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: EVIDENCE,
        good: GOOD,
        bad: described(
            "a Claude Code session started in pkg/ that received the root CLAUDE.md `@AGENTS.md` without AGENTS.md (an ancestor's import waits for an approval)",
        ),
    },
    Rule {
        code: Code::AuditReferenceUnread,
        summary: "a recent session invoked this skill, and no later tool call read a file its body names",
        files: "SKILL.md",
        hosts: &["claude-code"],
        profiles: &[],
        severity: Severity::Information,
        tier: Tier::Default,
        fix: Fix::None,
        evidence: EVIDENCE,
        good: ex(
            &["--host", "claude-code"],
            &[(
                ".claude/skills/greet/SKILL.md",
                "---\nname: greet\ndescription: Greets the user.\n---\nSay hello.\n",
            )],
        ),
        bad: described(
            "a Claude Code session that invoked the skill `greet`, whose body says \"see ref.md\", and never read ref.md afterwards",
        ),
    },
];
