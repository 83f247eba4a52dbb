//! Claude Code cases (docs/spec/instructions.md §4): what `claude -p` sends in its first
//! request, and what it attaches after a `Read`, against `context explain --host claude-code`.

use crate::harness::{Case, Client};

fn case(name: &str) -> Case {
    Case::new(Client::ClaudeCode, name)
}

/// Every Claude Code case.
pub fn cases() -> Vec<Case> {
    vec![
        case("claude_md_at_the_root").file("ws/CLAUDE.md", "# Project\nUse pnpm.\n"),
        case("agents_md_alone").file("ws/AGENTS.md", "# Agents\nRun the tests.\n"),
        case("claude_md_and_agents_md_at_the_root")
            .file("ws/CLAUDE.md", "claude rules\n")
            .file("ws/AGENTS.md", "agents rules\n"),
        case("pointer_claude_md_imports_agents_md")
            .file("ws/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/AGENTS.md", "# Agents\nUse pnpm.\n"),
        case("pointer_with_a_nested_pointer_from_the_root")
            .file("ws/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n"),
        case("pointer_in_an_ancestor_is_not_expanded_from_a_subdirectory")
            .file("ws/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n")
            .cwd("ws/pkg"),
        case("claude_local_md")
            .file("ws/CLAUDE.md", "shared\n")
            .file("ws/CLAUDE.local.md", "mine\n"),
        case("dot_claude_claude_md")
            .file("ws/CLAUDE.md", "top\n")
            .file("ws/.claude/CLAUDE.md", "dot claude\n"),
        case("rule_without_paths_loads_at_startup")
            .file("ws/CLAUDE.md", "top\n")
            .file("ws/.claude/rules/style.md", "Use tabs.\n"),
        case("user_claude_md")
            .file("home/.claude/CLAUDE.md", "user wide\n")
            .file("ws/CLAUDE.md", "project\n"),
        case("import_relative_in_a_subdirectory")
            .file("ws/CLAUDE.md", "See @docs/guide.md for more.\n")
            .file("ws/docs/guide.md", "the guide\n"),
        case("import_missing_is_skipped").file("ws/CLAUDE.md", "@missing.md\nrest\n"),
        case("import_in_code_span_and_fence_is_not_followed")
            .file(
                "ws/CLAUDE.md",
                "Not `@a.md` here.\n\n```\n@b.md\n```\n\n@c.md\n",
            )
            .file("ws/a.md", "a\n")
            .file("ws/b.md", "b\n")
            .file("ws/c.md", "c\n"),
        case("import_followed_by_punctuation_is_not_found")
            .file("ws/CLAUDE.md", "Read @a.md: and @b.md, then @c.md.\n")
            .file("ws/a.md", "a\n")
            .file("ws/b.md", "b\n")
            .file("ws/c.md", "c\n"),
        case("nested_claude_md_attached_on_read")
            .file("ws/CLAUDE.md", "top\n")
            .file("ws/sub/CLAUDE.md", "sub rules\n")
            .file("ws/sub/x.txt", "hello\n")
            .read("ws/sub/x.txt"),
    ]
}
