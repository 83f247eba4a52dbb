//! Codex CLI cases (docs/spec/instructions.md §3): the AGENTS.md text `codex exec` sends in its
//! first request (the `# AGENTS.md instructions for <cwd>` message), against
//! `context explain --host codex --json` for the same cwd, `HOME` and `CODEX_HOME`.
//!
//! The check is exact: the delivered text must be explain's delivered files (their `sha256`, in
//! order) joined as Codex joins them — the global file, `\n\n--- project-doc ---\n\n`, then the
//! project files separated by `\n\n` — with nothing before, between or after. Explain gives no
//! text, only hashes, so the client's text is split at the separators and every piece is hashed.

use std::sync::Arc;

use serde_json::Value;

use crate::harness::expect::{explain, sha256_hex};
use crate::harness::{Case, Client, Ctx, extract};

/// The separator between the global file and the project files.
const PROJECT_DOC: &str = "\n\n--- project-doc ---\n\n";
/// The separator between two project files.
const BETWEEN: &str = "\n\n";

fn case(name: &str) -> Case {
    Case::new(Client::Codex, name).check(Arc::new(check))
}

/// One delivered file of explain: its path, whether it is the global file, its sha256.
struct Piece {
    path: String,
    global: bool,
    sha256: String,
}

fn pieces(ex: &Value) -> Vec<Piece> {
    ex["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| {
            Some(Piece {
                path: f["path"].as_str()?.to_string(),
                global: f["scope"] == "global",
                sha256: f["sha256"].as_str()?.to_string(),
            })
        })
        .collect()
}

/// The separator that follows piece `i` (none after the last).
fn sep_after(ps: &[Piece], i: usize) -> Option<&'static str> {
    let next = ps.get(i + 1)?;
    Some(if ps[i].global && !next.global {
        PROJECT_DOC
    } else {
        BETWEEN
    })
}

/// `true` when `text` is exactly `ps[i..]` joined by Codex's separators (every split point
/// tried, so a piece may itself contain the separator).
fn matches(text: &str, ps: &[Piece], i: usize) -> bool {
    let Some(p) = ps.get(i) else {
        return text.is_empty();
    };
    match sep_after(ps, i) {
        None => sha256_hex(text) == p.sha256,
        // Every occurrence, overlapping ones included (`a\n` + `\n\n` + `b` has `\n\n` twice).
        Some(sep) => (0..=text.len().saturating_sub(sep.len())).any(|at| {
            text.is_char_boundary(at)
                && text[at..].starts_with(sep)
                && sha256_hex(&text[..at]) == p.sha256
                && matches(&text[at + sep.len()..], ps, i + 1)
        }),
    }
}

fn check(ctx: &Ctx<'_>) -> Result<(), String> {
    let ex = explain(ctx, ".")?;
    if ex["hostVersion"].as_str() != Some(ctx.client_version.as_str()) {
        return Err(format!(
            "explain's hostVersion is {}, the client is {}",
            ex["hostVersion"], ctx.client_version
        ));
    }
    let ps = pieces(&ex);
    let message = extract::codex_agents_message(&ctx.outcome.requests);
    // The message names the cwd when it carries a project file, nothing otherwise.
    let want_dir = ps
        .iter()
        .any(|p| !p.global)
        .then(|| ctx.cwd.display().to_string());
    let ok = match &message {
        None => ps.is_empty(),
        Some((dir, text)) => *dir == want_dir && !ps.is_empty() && matches(text, &ps, 0),
    };
    let got = message.map(|(dir, text)| match dir {
        Some(d) => format!("(for {d}) {text:?}"),
        None => format!("(no directory) {text:?}"),
    });
    if ok {
        return Ok(());
    }
    let want: String = ps
        .iter()
        .map(|p| format!("  {} sha256 {}\n", p.path, &p.sha256[..12]))
        .collect();
    Err(format!(
        "instruction text: explain and the client disagree\nexplain delivers:\n{}\nexplain:\n{}\nthe client sent:\n{}",
        if want.is_empty() {
            "  (nothing)\n"
        } else {
            &want
        },
        serde_json::to_string_pretty(&ex["files"]).unwrap_or_default(),
        got.as_deref().unwrap_or("(no instruction message)")
    ))
}

/// Every Codex case.
pub fn cases() -> Vec<Case> {
    vec![
        case("agents_md_at_the_root").file("ws/AGENTS.md", "# Agents\nRun the tests.\n"),
        case("no_instruction_file_sends_no_message").file("ws/README.md", "readme\n"),
        case("nested_dirs_from_the_root_to_the_cwd")
            .file("ws/AGENTS.md", "root\n")
            .file("ws/a/AGENTS.md", "a\n")
            .file("ws/a/b/AGENTS.md", "a/b\n")
            .dir("ws/a/b/c")
            .cwd("ws/a/b/c"),
        case("files_below_the_cwd_are_not_loaded")
            .file("ws/AGENTS.md", "root\n")
            .file("ws/pkg/AGENTS.md", "pkg\n"),
        case("sibling_directories_are_not_loaded")
            .file("ws/AGENTS.md", "root\n")
            .file("ws/one/AGENTS.md", "one\n")
            .file("ws/two/AGENTS.md", "two\n")
            .cwd("ws/two"),
        case("override_wins_over_agents_md")
            .file("ws/AGENTS.md", "agents\n")
            .file("ws/AGENTS.override.md", "override\n"),
        case("override_in_a_subdirectory_only")
            .file("ws/AGENTS.md", "root agents\n")
            .file("ws/pkg/AGENTS.md", "pkg agents\n")
            .file("ws/pkg/AGENTS.override.md", "pkg override\n")
            .cwd("ws/pkg"),
        case("fallback_name_when_there_is_no_agents_md")
            .codex_config("project_doc_fallback_filenames = [\"CLAUDE.md\"]\n")
            .file("ws/CLAUDE.md", "claude\n"),
        case("agents_md_wins_over_a_fallback")
            .codex_config("project_doc_fallback_filenames = [\"CLAUDE.md\"]\n")
            .file("ws/AGENTS.md", "agents\n")
            .file("ws/CLAUDE.md", "claude\n"),
        case("fallbacks_in_configured_order")
            .codex_config("project_doc_fallback_filenames = [\"TEAM.md\", \"CLAUDE.md\"]\n")
            .file("ws/CLAUDE.md", "claude\n")
            .file("ws/TEAM.md", "team\n")
            .file("ws/pkg/CLAUDE.md", "pkg claude\n")
            .cwd("ws/pkg"),
        case("fallback_names_are_not_read_without_the_setting")
            .file("ws/CLAUDE.md", "claude\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("directory_named_agents_md_is_skipped")
            .codex_config("project_doc_fallback_filenames = [\"CLAUDE.md\"]\n")
            .dir("ws/AGENTS.md")
            .file("ws/CLAUDE.md", "claude\n"),
        case("symlinked_agents_md_is_followed")
            .file("ws/docs/agents.txt", "linked text\n")
            .link("ws/AGENTS.md", "docs/agents.txt"),
        case("dangling_symlink_falls_through_to_a_fallback")
            .codex_config("project_doc_fallback_filenames = [\"CLAUDE.md\"]\n")
            .link("ws/AGENTS.md", "missing.md")
            .file("ws/CLAUDE.md", "claude\n"),
        case("empty_agents_md_hides_the_fallback")
            .codex_config("project_doc_fallback_filenames = [\"CLAUDE.md\"]\n")
            .file("ws/AGENTS.md", "")
            .file("ws/CLAUDE.md", "claude\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("whitespace_only_file_is_skipped")
            .file("ws/AGENTS.md", " \n\t\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("project_files_keep_their_whitespace")
            .file("ws/AGENTS.md", "\n\n  root  \n\n")
            .file("ws/pkg/AGENTS.md", "pkg\r\nline two\r\n")
            .cwd("ws/pkg"),
        case("max_bytes_cuts_the_deepest_file_exactly")
            .codex_config("project_doc_max_bytes = 20\n")
            .file("ws/AGENTS.md", "0123456789ab\n")
            .file("ws/pkg/AGENTS.md", "abcdefghijklmnopqrstuvwxyz\n")
            .cwd("ws/pkg"),
        case("max_bytes_spent_drops_the_later_files")
            .codex_config("project_doc_max_bytes = 13\n")
            .file("ws/AGENTS.md", "0123456789ab\n")
            .file("ws/a/AGENTS.md", "aaaa\n")
            .file("ws/a/b/AGENTS.md", "bbbb\n")
            .cwd("ws/a/b"),
        case("max_bytes_cut_inside_a_multibyte_character")
            .codex_config("project_doc_max_bytes = 6\n")
            .file("ws/AGENTS.md", "abcde\u{e9}f\n"),
        case("max_bytes_zero_sends_no_project_file")
            .codex_config("project_doc_max_bytes = 0\n")
            .file("home/.codex/AGENTS.md", "global\n")
            .file("ws/AGENTS.md", "root\n"),
        case("blank_prefix_after_a_cut_is_not_delivered")
            .codex_config("project_doc_max_bytes = 4\n")
            .file("ws/AGENTS.md", "    text after spaces\n")
            .file("ws/pkg/AGENTS.md", "abcdefgh\n")
            .cwd("ws/pkg"),
        case("git_file_marks_the_project_root")
            .no_git()
            .file("ws/.git", "gitdir: /nowhere\n")
            .file("ws/AGENTS.md", "root\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("no_marker_reads_the_cwd_only")
            .no_git()
            .file("ws/AGENTS.md", "root\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("nested_git_repository_is_its_own_root")
            .file("ws/AGENTS.md", "outer\n")
            .dir("ws/sub/.git")
            .file("ws/sub/AGENTS.md", "inner\n")
            .cwd("ws/sub"),
        case("custom_project_root_markers")
            .codex_config("project_root_markers = [\".hg\", \"package.json\"]\n")
            .file("ws/AGENTS.md", "above the marker\n")
            .file("ws/app/package.json", "{}\n")
            .file("ws/app/AGENTS.md", "app\n")
            .file("ws/app/src/AGENTS.md", "src\n")
            .cwd("ws/app/src"),
        case("custom_markers_replace_git")
            .codex_config("project_root_markers = [\".hg\"]\n")
            .file("ws/AGENTS.md", "git root\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("empty_marker_list_reads_the_cwd_only")
            .codex_config("project_root_markers = []\n")
            .file("ws/AGENTS.md", "root\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("global_agents_md_alone").file("home/.codex/AGENTS.md", "global rules\n"),
        case("global_and_project_files")
            .file("home/.codex/AGENTS.md", "global rules\n")
            .file("ws/AGENTS.md", "root\n")
            .file("ws/pkg/AGENTS.md", "pkg\n")
            .cwd("ws/pkg"),
        case("global_override_wins")
            .file("home/.codex/AGENTS.md", "global agents\n")
            .file("home/.codex/AGENTS.override.md", "global override\n")
            .file("ws/AGENTS.md", "root\n"),
        case("empty_global_override_falls_through")
            .file("home/.codex/AGENTS.md", "global agents\n")
            .file("home/.codex/AGENTS.override.md", "\n")
            .file("ws/AGENTS.md", "root\n"),
        case("global_file_is_trimmed")
            .file("home/.codex/AGENTS.md", "\n\n  global text  \n\n")
            .file("ws/AGENTS.md", "\nroot\n"),
        case("global_file_is_not_charged_to_the_budget")
            .codex_config("project_doc_max_bytes = 8\n")
            .file(
                "home/.codex/AGENTS.md",
                "a global file longer than the budget\n",
            )
            .file("ws/AGENTS.md", "0123456789\n"),
    ]
}
