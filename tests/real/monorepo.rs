//! Monorepo-shaped trees (issue 20, docs/spec/instructions.md §5.2): nested `CLAUDE.md` files
//! that are `@AGENTS.md` pointers or symlinks to `AGENTS.md`, at several depths, run from
//! several working directories. Each case first checks explain against the client (the
//! default check), then runs `alisio-ls check --host claude-code --json` on the workspace and
//! requires that no "not read" diagnostic lands on a file the client delivered in that run,
//! and that the instruction diagnostics are exactly the expected ones.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::harness::{Case, Client, Ctx, expect, extract};

/// The codes that say a file is not read.
const NOT_READ: &[&str] = &[
    "instructions-dropped",
    "instructions-hidden",
    "instructions-hidden-by-override",
    "instructions-claude-ignored",
    "instructions-symlink",
    "instructions-unread-name",
];

fn canon(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// `(file, code, message)` of the expected `instructions-*` diagnostics (files relative to
/// the workspace).
type Expected = &'static [(&'static str, &'static str, &'static str)];

fn check_against_client(ctx: &Ctx<'_>, expected: Expected) -> Result<(), String> {
    expect::claude(ctx)?;
    let delivered: HashSet<PathBuf> = extract::claude_blocks(&ctx.outcome.requests)
        .iter()
        .map(|b| canon(Path::new(&b.path)))
        .collect();
    let ws = ctx.ws.display().to_string();
    let out = expect::alisio(ctx, &["check", "--host", "claude-code", "--json", &ws])?;
    let mut got = Vec::new();
    for d in out["diagnostics"].as_array().into_iter().flatten() {
        let file = d["file"].as_str().unwrap_or_default();
        let code = d["code"].as_str().unwrap_or_default();
        let msg = d["message"].as_str().unwrap_or_default();
        if NOT_READ.contains(&code) && delivered.contains(&canon(&ctx.ws.join(file))) {
            return Err(format!(
                "check says {file} is not read ({code}: {msg}), but the client delivered it"
            ));
        }
        if code.starts_with("instructions-") {
            got.push((file.to_string(), code.to_string(), msg.to_string()));
        }
    }
    let want: Vec<(String, String, String)> = expected
        .iter()
        .map(|(f, c, m)| ((*f).to_string(), (*c).to_string(), (*m).to_string()))
        .collect();
    if got != want {
        return Err(format!(
            "check's instruction diagnostics differ\nwant: {want:#?}\ngot: {got:#?}"
        ));
    }
    Ok(())
}

fn case(name: &str, expected: Expected) -> Case {
    Case::new(Client::ClaudeCode, name)
        .check(Arc::new(move |ctx| check_against_client(ctx, expected)))
}

/// Pointers and symlinks at three depths; every AGENTS.md is delivered from some cwd.
fn pointers(name: &str, cwd: &str) -> Case {
    case(name, &[])
        .file("ws/CLAUDE.md", "@AGENTS.md\n")
        .file("ws/AGENTS.md", "root agents\n")
        .file("ws/packages/core/CLAUDE.md", "@AGENTS.md\n")
        .file("ws/packages/core/AGENTS.md", "core agents\n")
        .file("ws/packages/core/src/AGENTS.md", "core src agents\n")
        .link("ws/packages/core/src/CLAUDE.md", "AGENTS.md")
        .file("ws/apps/web/CLAUDE.md", "@AGENTS.md\n")
        .file("ws/apps/web/AGENTS.md", "web agents\n")
        .file("ws/apps/web/x.txt", "x\n")
        .cwd(cwd)
}

const ROOT_DROPPED: Expected = &[(
    "AGENTS.md",
    "instructions-dropped",
    "Claude Code does not read this file: CLAUDE.md exists (project instructions mode claude-md-or-agents-md)",
)];

/// A root CLAUDE.md that does not import the root AGENTS.md: that file is delivered from no
/// cwd, and the blocker is the root CLAUDE.md (not a nested pointer).
fn plain_root(name: &str, cwd: &str) -> Case {
    case(name, ROOT_DROPPED)
        .file("ws/CLAUDE.md", "# Root\nUse pnpm.\n")
        .file("ws/AGENTS.md", "root agents\n")
        .file("ws/pkg/CLAUDE.md", "@AGENTS.md\n")
        .file("ws/pkg/AGENTS.md", "pkg agents\n")
        .link("ws/pkg/deep/CLAUDE.md", "AGENTS.md")
        .file("ws/pkg/deep/AGENTS.md", "deep agents\n")
        .cwd(cwd)
}

/// Every monorepo case.
pub fn cases() -> Vec<Case> {
    vec![
        pointers("monorepo_pointers_from_the_root", "ws"),
        pointers("monorepo_pointers_from_a_package", "ws/packages/core"),
        pointers(
            "monorepo_pointers_from_a_symlinked_level",
            "ws/packages/core/src",
        ),
        pointers("monorepo_pointers_from_an_app", "ws/apps/web"),
        pointers("monorepo_pointers_nested_read_from_the_root", "ws").read("ws/apps/web/x.txt"),
        plain_root("monorepo_plain_root_from_the_root", "ws"),
        plain_root("monorepo_plain_root_from_a_package", "ws/pkg"),
        plain_root("monorepo_plain_root_from_the_deepest_level", "ws/pkg/deep"),
    ]
}
