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
];
