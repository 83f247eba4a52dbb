//! Gemini CLI cases (docs/spec/hosts.md §3): the `--- Context from: <path> ---` blocks that
//! `gemini -p` sends in its first request (global files in the system instruction, project
//! files in the session context), and the blocks it appends to a `read_file` result, against
//! `context explain --host gemini --json`.
//!
//! Exact: the ordered paths and the SHA-256 of each block's text (imports expanded, as Gemini
//! CLI expands them) equal explain's `always` files (`sha256`, empty ones left out); after a
//! scripted read, the blocks of the tool result equal explain's `on-access` files for the file
//! read that were not delivered at startup.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::harness::expect::{Want, explain, sha256_hex};
use crate::harness::extract::{self, Block};
use crate::harness::{Case, Client, Ctx};

fn case(name: &str) -> Case {
    Case::new(Client::Gemini, name).check(Arc::new(check))
}

/// A case whose `context.fileName` is `names` (and `hosts.gemini.fileName` the same).
fn named(name: &str, names: &Value) -> Case {
    case(name)
        .gemini_settings(json!({"context": {"fileName": names}}))
        .alisio_config(json!({"hosts": {"gemini": {"fileName": names}}}))
}

/// A case whose `context.memoryBoundaryMarkers` is `markers` (and alisio-ls's setting the same).
fn bounded(name: &str, markers: &Value) -> Case {
    case(name)
        .gemini_settings(json!({"context": {"memoryBoundaryMarkers": markers}}))
        .alisio_config(json!({"hosts": {"gemini": {"memoryBoundaryMarkers": markers}}}))
}

fn wants(ex: &Value, delivery: &str) -> Vec<Want> {
    ex["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["delivery"] == delivery && f["empty"] != true)
        .map(|f| {
            let p = f["path"].as_str().unwrap_or_default();
            let path = if p.starts_with('/') {
                p.to_string()
            } else {
                format!("{}/{p}", ex["workspace"].as_str().unwrap_or_default())
            };
            Want {
                path,
                label: None,
                sha256: f["sha256"].as_str().unwrap_or("(no sha256)").to_string(),
            }
        })
        .collect()
}

fn got(blocks: &[Block]) -> Vec<Want> {
    blocks
        .iter()
        .map(|b| Want {
            path: b.path.clone(),
            label: None,
            sha256: sha256_hex(&b.content),
        })
        .collect()
}

fn same(what: &str, ex: &Value, want: &[Want], blocks: &[Block]) -> Result<(), String> {
    let got = got(blocks);
    if want == got.as_slice() {
        return Ok(());
    }
    let show = |ws: &[Want]| -> String {
        if ws.is_empty() {
            return "  (none)\n".into();
        }
        ws.iter()
            .map(|w| {
                format!(
                    "  {} sha256 {}\n",
                    w.path,
                    &w.sha256[..w.sha256.len().min(12)]
                )
            })
            .collect()
    };
    let contents: String = blocks
        .iter()
        .map(|b| format!("--- {} ---\n{}\n", b.path, b.content))
        .collect();
    Err(format!(
        "{what}: explain and the client disagree\nexplain expects:\n{}the client delivered:\n{}delivered contents:\n{contents}explain:\n{}",
        show(want),
        show(&got),
        serde_json::to_string_pretty(ex).unwrap_or_default()
    ))
}

fn check(ctx: &Ctx<'_>) -> Result<(), String> {
    let ex = explain(ctx, ".")?;
    if ex["hostVersion"].as_str() != Some(ctx.client_version.as_str()) {
        return Err(format!(
            "explain's hostVersion is {}, the client is {}",
            ex["hostVersion"], ctx.client_version
        ));
    }
    let main = extract::main_requests(&ctx.outcome.requests);
    let first = main.first().ok_or("no main request")?;
    let start = extract::gemini_blocks_in(first);
    same("startup context", &ex, &wants(&ex, "always"), &start)?;
    let all = main
        .last()
        .map(extract::gemini_blocks_in)
        .unwrap_or_default();
    let later: Vec<Block> = all.into_iter().skip(start.len()).collect();
    match &ctx.case.read {
        Some(read) => {
            let target = ctx.base.join(read).display().to_string();
            let ex_read = explain(ctx, &target)?;
            let before: Vec<String> = wants(&ex, "always").into_iter().map(|w| w.path).collect();
            let want: Vec<Want> = wants(&ex_read, "on-access")
                .into_iter()
                .filter(|w| !before.contains(&w.path))
                .collect();
            same(
                &format!("context after reading {read}"),
                &ex_read,
                &want,
                &later,
            )
        }
        None if later.is_empty() => Ok(()),
        None => same("context without a read", &ex, &[], &later),
    }
}

/// Every Gemini CLI case.
pub fn cases() -> Vec<Case> {
    vec![
        case("gemini_md_at_the_root").file("ws/GEMINI.md", "# Project\nUse pnpm.\n"),
        case("no_context_file").file("ws/README.md", "readme\n"),
        case("ancestors_up_to_the_git_root")
            .file("ws/GEMINI.md", "root\n")
            .file("ws/a/GEMINI.md", "a\n")
            .file("ws/a/b/GEMINI.md", "a/b\n")
            .cwd("ws/a/b"),
        case("nothing_above_the_git_root")
            .file("GEMINI.md", "above the repository\n")
            .file("ws/GEMINI.md", "root\n"),
        case("descendants_are_not_loaded_at_startup")
            .file("ws/GEMINI.md", "root\n")
            .file("ws/pkg/GEMINI.md", "pkg\n"),
        case("descendant_attached_on_read")
            .file("ws/GEMINI.md", "root\n")
            .file("ws/pkg/GEMINI.md", "pkg\n")
            .file("ws/pkg/deep/GEMINI.md", "deep\n")
            .file("ws/pkg/deep/x.txt", "hello\n")
            .read("ws/pkg/deep/x.txt"),
        case("no_git_reads_the_cwd_only")
            .no_git()
            .file("ws/GEMINI.md", "root\n")
            .file("ws/pkg/GEMINI.md", "pkg\n")
            .cwd("ws/pkg"),
        case("git_file_is_a_boundary")
            .no_git()
            .file("ws/.git", "gitdir: /nowhere\n")
            .file("ws/GEMINI.md", "root\n")
            .file("ws/pkg/GEMINI.md", "pkg\n")
            .cwd("ws/pkg"),
        bounded("custom_boundary_marker", &json!([".hg"]))
            .file("ws/GEMINI.md", "git root, not a marker now\n")
            .dir("ws/app/.hg")
            .file("ws/app/GEMINI.md", "app\n")
            .file("ws/app/src/GEMINI.md", "src\n")
            .cwd("ws/app/src"),
        bounded("empty_boundary_markers_read_the_cwd_only", &json!([]))
            .file("ws/GEMINI.md", "root\n")
            .file("ws/pkg/GEMINI.md", "pkg\n")
            .cwd("ws/pkg"),
        named("file_name_string_adds_to_gemini_md", &json!("AGENTS.md"))
            .file("ws/AGENTS.md", "agents\n")
            .file("ws/GEMINI.md", "gemini\n"),
        named(
            "file_name_list_sorted_by_path",
            &json!(["CONTEXT.md", "AGENTS.md"]),
        )
        .file("ws/CONTEXT.md", "context\n")
        .file("ws/AGENTS.md", "agents\n")
        .file("ws/pkg/AGENTS.md", "pkg agents\n")
        .file("ws/pkg/GEMINI.md", "pkg gemini\n")
        .cwd("ws/pkg"),
        case("global_gemini_md")
            .file("home/.gemini/GEMINI.md", "global rules\n")
            .file("ws/GEMINI.md", "project\n"),
        named("global_files_for_every_name", &json!(["AGENTS.md"]))
            .file("home/.gemini/AGENTS.md", "global agents\n")
            .file("home/.gemini/GEMINI.md", "global gemini\n"),
        case("import_relative_and_bare")
            .file("ws/GEMINI.md", "top\n@./one.md\nand @docs/two.md here\n")
            .file("ws/one.md", "one\n")
            .file("ws/docs/two.md", "two\n"),
        case("nested_imports_resolve_from_the_importer")
            .file("ws/GEMINI.md", "@docs/a.md\n")
            .file("ws/docs/a.md", "a then @sub/b.md\n")
            .file("ws/docs/sub/b.md", "b\n"),
        case("missing_import_leaves_a_comment")
            .file("ws/GEMINI.md", "before\n@missing.md\nafter\n"),
        case("prose_at_sign_is_an_import").file("ws/GEMINI.md", "Ask @alice about it.\n"),
        case("import_cycle_is_cut")
            .file("ws/GEMINI.md", "@a.md\n")
            .file("ws/a.md", "a\n@b.md\n")
            .file("ws/b.md", "b\n@a.md\n"),
        case("import_of_the_top_level_file").file("ws/GEMINI.md", "top\n@GEMINI.md\n"),
        case("imports_in_code_are_kept")
            .file(
                "ws/GEMINI.md",
                "Not `@a.md` here.\n\n```\n@a.md\n```\n\n~~~\n@a.md\n~~~\n",
            )
            .file("ws/a.md", "a\n"),
        case("import_outside_the_project_root")
            .file("outside.md", "outside\n")
            .file("ws/GEMINI.md", "@../outside.md\n"),
        case("import_depth_limit")
            .file("ws/GEMINI.md", "@d1.md\n")
            .file("ws/d1.md", "1 @d2.md\n")
            .file("ws/d2.md", "2 @d3.md\n")
            .file("ws/d3.md", "3 @d4.md\n")
            .file("ws/d4.md", "4 @d5.md\n")
            .file("ws/d5.md", "5 @d6.md\n")
            .file("ws/d6.md", "6\n"),
        case("import_of_a_directory")
            .file("ws/GEMINI.md", "@docs\n")
            .file("ws/docs/x.md", "x\n"),
        case("url_import_is_refused").file("ws/GEMINI.md", "see @https://example.com/x.md\n"),
        case("empty_file_sends_no_block")
            .file("ws/GEMINI.md", "\n  \n")
            .file("ws/pkg/GEMINI.md", "pkg\n")
            .cwd("ws/pkg"),
        case("file_importing_an_empty_file")
            .file("ws/GEMINI.md", "@empty.md\n")
            .file("ws/empty.md", ""),
        case("same_file_twice_by_symlink")
            .file("ws/GEMINI.md", "root\n")
            .link("ws/pkg/GEMINI.md", "../GEMINI.md")
            .cwd("ws/pkg"),
        case("byte_order_mark_is_trimmed")
            .file("ws/GEMINI.md", "\u{feff}with a BOM\n@a.md\n")
            .file("ws/a.md", "\u{feff}imported with a BOM\n"),
        case("import_token_runs_past_a_no_break_space")
            .file("ws/GEMINI.md", "see @a.md\u{a0}now and @a.md\n")
            .file("ws/a.md", "a\n"),
        case("tilde_and_underscore_are_not_imports")
            .file("home/x.md", "home file\n")
            .file("ws/GEMINI.md", "@~/x.md @_x.md @2024.md\n")
            .file("ws/_x.md", "underscore\n"),
        case("every_replacement_in_one_file")
            .file(
                "ws/GEMINI.md",
                "\u{feff}top @a.md `@a.md` @missing.md @../out.md @docs\n",
            )
            .file("ws/a.md", "A @GEMINI.md\n")
            .file("ws/docs/x.md", "x")
            .file("out.md", "outside"),
        case("directory_named_gemini_md_is_skipped")
            .dir("ws/GEMINI.md")
            .file("ws/pkg/GEMINI.md", "pkg\n")
            .cwd("ws/pkg"),
    ]
}
