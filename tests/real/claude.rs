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
        // AGENTS mode: which CLAUDE files exclude AGENTS.md, and from where.
        case("agents_md_in_cwd_with_claude_md_in_an_ancestor")
            .file("ws/CLAUDE.md", "root claude\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n")
            .cwd("ws/pkg"),
        case("agents_md_at_the_root_with_claude_md_only_in_a_subdirectory")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/CLAUDE.md", "pkg claude\n"),
        case("agents_md_in_an_ancestor_and_in_cwd")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n")
            .cwd("ws/pkg"),
        case("dot_claude_agents_md").file("ws/.claude/AGENTS.md", "dot agents\n"),
        case("claude_local_md_beside_agents_md")
            .file("ws/CLAUDE.local.md", "mine\n")
            .file("ws/AGENTS.md", "agents\n"),
        case("dot_claude_claude_md_beside_agents_md")
            .file("ws/.claude/CLAUDE.md", "dot claude\n")
            .file("ws/AGENTS.md", "agents\n"),
        case("empty_claude_md_beside_agents_md")
            .file("ws/CLAUDE.md", "\n  \n")
            .file("ws/AGENTS.md", "agents\n"),
        case("pointer_cwd_in_a_subdirectory_without_files")
            .file("ws/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/AGENTS.md", "root agents\n")
            .dir("ws/pkg/src")
            .cwd("ws/pkg/src"),
        // Rules.
        case("rule_with_paths_is_not_loaded_at_startup")
            .file("ws/CLAUDE.md", "top\n")
            .file(
                "ws/.claude/rules/ts.md",
                "---\npaths:\n  - \"src/**/*.ts\"\n---\nUse strict types.\n",
            ),
        case("rule_with_paths_attached_after_reading_a_matching_file")
            .file("ws/CLAUDE.md", "top\n")
            .file(
                "ws/.claude/rules/ts.md",
                "---\npaths:\n  - \"src/**/*.ts\"\n---\nUse strict types.\n",
            )
            .file("ws/src/a/b.ts", "export {}\n")
            .read("ws/src/a/b.ts"),
        case("rule_with_paths_not_attached_for_another_file")
            .file("ws/CLAUDE.md", "top\n")
            .file(
                "ws/.claude/rules/ts.md",
                "---\npaths: [\"src/**/*.ts\"]\n---\nUse strict types.\n",
            )
            .file("ws/docs/x.txt", "docs\n")
            .read("ws/docs/x.txt"),
        case("rules_in_nested_directories_in_path_order")
            .file("ws/.claude/rules/b.md", "b rule\n")
            .file("ws/.claude/rules/a/z.md", "a/z rule\n")
            .file("ws/.claude/rules/A.md", "A rule\n")
            .file("ws/.claude/rules/notes.txt", "not a rule\n"),
        case("rules_of_an_ancestor_with_a_subdirectory_cwd")
            .file("ws/.claude/rules/style.md", "root rule\n")
            .file("ws/pkg/x.txt", "x\n")
            .cwd("ws/pkg"),
        case("rules_of_the_cwd_below_the_workspace_root")
            .file("ws/CLAUDE.md", "top\n")
            .file("ws/pkg/.claude/rules/style.md", "pkg rule\n")
            .cwd("ws/pkg"),
        case("user_rules")
            .file("home/.claude/rules/mine.md", "user rule\n")
            .file("ws/CLAUDE.md", "project\n"),
        case("rule_frontmatter_and_block_comments_are_stripped").file(
            "ws/.claude/rules/r.md",
            "---\ndescription: x\n---\n<!-- hidden note -->\nkept <!-- inline --> text\n",
        ),
        // Imports.
        case("import_absolute_path")
            .file("ws/CLAUDE.md", "@{ws}/docs/abs.md\n")
            .file("ws/docs/abs.md", "absolute\n"),
        case("import_dot_slash_and_fragment")
            .file("ws/CLAUDE.md", "@./a.md and @b.md#part\n")
            .file("ws/a.md", "a\n")
            .file("ws/b.md", "b\n"),
        case("import_with_an_escaped_space")
            .file("ws/CLAUDE.md", "@my\\ notes.md\n")
            .file("ws/my notes.md", "spaced\n"),
        case("import_home_from_a_project_file")
            .file("ws/CLAUDE.md", "@~/notes.md\n")
            .file("home/notes.md", "home notes\n"),
        case("import_relative_in_the_user_claude_md")
            .file("home/.claude/CLAUDE.md", "@extra.md\n")
            .file("home/.claude/extra.md", "user extra\n")
            .file("ws/CLAUDE.md", "project\n"),
        case("import_outside_the_workspace")
            .file("ws/CLAUDE.md", "@../outside.md\n")
            .file("outside.md", "outside\n"),
        case("import_chain_depth_limit")
            .file("ws/CLAUDE.md", "@d1.md\n")
            .file("ws/d1.md", "one @d2.md\n")
            .file("ws/d2.md", "two @d3.md\n")
            .file("ws/d3.md", "three @d4.md\n")
            .file("ws/d4.md", "four @d5.md\n")
            .file("ws/d5.md", "five @d6.md\n")
            .file("ws/d6.md", "six\n"),
        case("import_cycle")
            .file("ws/CLAUDE.md", "@a.md\n")
            .file("ws/a.md", "a @b.md\n")
            .file("ws/b.md", "b @a.md @CLAUDE.md\n"),
        case("import_of_a_non_text_file_and_a_directory")
            .file("ws/CLAUDE.md", "@logo.png @docs @notes\n")
            .file("ws/logo.png", "not an image\n")
            .file("ws/docs/x.md", "x\n")
            .file("ws/notes", "no extension\n"),
        case("import_in_an_html_comment_and_an_email")
            .file("ws/CLAUDE.md", "<!-- @a.md -->\nmail me@b.md\n@c.md\n")
            .file("ws/a.md", "a\n")
            .file("ws/b.md", "b\n")
            .file("ws/c.md", "c\n"),
        case("import_of_a_file_already_loaded")
            .file("ws/CLAUDE.md", "@.claude/rules/r.md\n")
            .file("ws/.claude/rules/r.md", "the rule\n"),
        case("import_of_an_empty_file")
            .file("ws/CLAUDE.md", "@empty.md\ntext\n")
            .file("ws/empty.md", "\n"),
        case("imports_in_an_ancestor_into_the_cwd")
            .file("ws/CLAUDE.md", "@pkg/notes.md @other.md\n")
            .file("ws/pkg/notes.md", "pkg notes\n")
            .file("ws/other.md", "other\n")
            .cwd("ws/pkg"),
        case("claude_md_above_the_workspace")
            .file("CLAUDE.md", "above the repository\n")
            .file("ws/CLAUDE.md", "project\n"),
        // Symlinks.
        case("claude_md_symlink_to_agents_md")
            .file("ws/AGENTS.md", "agents via link\n")
            .link("ws/CLAUDE.md", "AGENTS.md"),
        case("claude_md_symlink_to_a_file_elsewhere")
            .file("ws/docs/real.md", "real\n")
            .link("ws/CLAUDE.md", "docs/real.md"),
        case("rules_directory_symlink")
            .file("ws/shared/rules/one.md", "shared rule\n")
            .link("ws/.claude/rules", "../shared/rules"),
        case("rule_file_symlink")
            .file("ws/shared/two.md", "linked rule\n")
            .link("ws/.claude/rules/two.md", "../../shared/two.md"),
        case("nested_symlinked_claude_md_in_cwd")
            .file("ws/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n")
            .link("ws/pkg/CLAUDE.md", "AGENTS.md")
            .cwd("ws/pkg"),
        // Nested files attached on Read.
        case("nested_pointer_attached_on_read")
            .file("ws/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/CLAUDE.md", "@AGENTS.md\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n")
            .file("ws/pkg/x.txt", "x\n")
            .read("ws/pkg/x.txt"),
        case("nested_agents_md_attached_on_read")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n")
            .file("ws/pkg/x.txt", "x\n")
            .read("ws/pkg/x.txt"),
        case("nested_files_at_two_depths_attached_on_read")
            .file("ws/CLAUDE.md", "top\n")
            .file("ws/a/CLAUDE.md", "a rules\n")
            .file("ws/a/b/CLAUDE.local.md", "b local\n")
            .file("ws/a/b/x.txt", "x\n")
            .read("ws/a/b/x.txt"),
        // Settings.
        case("claude_md_excludes_a_glob")
            .file("ws/CLAUDE.md", "root\n")
            .file("ws/pkg/CLAUDE.md", "pkg\n")
            .cwd("ws/pkg")
            .claude_settings(serde_json::json!({"claudeMdExcludes": ["**/pkg/CLAUDE.md"]})),
        case("claude_md_excludes_an_absolute_path")
            .file("ws/CLAUDE.md", "root\n")
            .file("ws/CLAUDE.local.md", "local\n")
            .claude_settings(serde_json::json!({"claudeMdExcludes": ["{ws}/CLAUDE.local.md"]})),
        case("claude_md_excludes_applies_to_imports")
            .file("ws/CLAUDE.md", "@docs/a.md\n")
            .file("ws/docs/a.md", "a\n")
            .claude_settings(serde_json::json!({"claudeMdExcludes": ["**/docs/*.md"]})),
        case("claude_md_excludes_in_project_settings")
            .file("ws/CLAUDE.md", "root\n")
            .file("ws/.claude/rules/r.md", "rule\n")
            .file(
                "ws/.claude/settings.json",
                "{\"claudeMdExcludes\": [\"**/.claude/rules/**\"]}\n",
            ),
        case("no_git_repository")
            .file("ws/CLAUDE.md", "no git\n")
            .file("ws/pkg/CLAUDE.md", "pkg\n")
            .no_git()
            .cwd("ws/pkg"),
        case("agents_md_beside_a_rule")
            .file("ws/AGENTS.md", "agents\n")
            .file("ws/.claude/rules/r.md", "rule\n")
            .file("ws/CLAUDE.local.md", "\n"),
        case("comment_only_claude_md_beside_agents_md")
            .file("ws/CLAUDE.md", "<!-- nothing yet -->\n")
            .file("ws/AGENTS.md", "agents\n"),
        case("user_claude_md_beside_agents_md")
            .file("home/.claude/CLAUDE.md", "user wide\n")
            .file("ws/AGENTS.md", "agents\n"),
        case("excluded_claude_md_beside_agents_md")
            .file("ws/CLAUDE.md", "excluded\n")
            .file("ws/AGENTS.md", "agents\n")
            .claude_settings(serde_json::json!({"claudeMdExcludes": ["{ws}/CLAUDE.md"]})),
        case("rule_with_paths_in_a_subdirectory_attached_on_read")
            .file("ws/CLAUDE.md", "top\n")
            .file(
                "ws/pkg/.claude/rules/ts.md",
                "---\npaths: [\"src/*.ts\"]\n---\npkg ts rule\n",
            )
            .file("ws/pkg/src/a.ts", "export {}\n")
            .cwd("ws/pkg")
            .read("ws/pkg/src/a.ts"),
        case("nested_claude_md_attached_on_read")
            .file("ws/CLAUDE.md", "top\n")
            .file("ws/sub/CLAUDE.md", "sub rules\n")
            .file("ws/sub/x.txt", "hello\n")
            .read("ws/sub/x.txt"),
    ]
}
