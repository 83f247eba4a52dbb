//! The default check: what the client delivered, compared exactly with
//! `alisio-ls context explain --host H --json` for the same tree, cwd and `HOME`.
//!
//! - Claude Code: the ordered `Contents of` blocks of the first user message equal explain's
//!   files of the cwd (empty and dropped files left out), each followed by its expanded
//!   imports (`approval: false`), with the scope label of the file's scope and kind and the
//!   SHA-256 of the text explain says the client sends (`sha256`); after a scripted read, the
//!   nested blocks equal the files explain (`--session-dir` the cwd) adds for the file read.
//! - Codex: the instruction text equals explain's kept texts (global file, then the project
//!   files) joined as Codex joins them.
//! - Gemini CLI: the context blocks equal explain's `always` files in order.
//!
//! Every check also requires explain's `hostVersion` to be the installed client's version.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::clients::Client;
use super::extract::{self, Block, CLAUDE_LABELS};
use super::{Ctx, fill};

/// The built `alisio-ls`.
#[must_use]
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_alisio-ls"))
}

/// `alisio-ls ARGS` from the case's cwd with the case's `HOME` (and `CODEX_HOME` below it); the
/// alisio config home is an empty directory of the case.
///
/// # Errors
/// A run that fails or prints no JSON (the command line and both outputs).
pub fn alisio(ctx: &Ctx<'_>, args: &[&str]) -> Result<Value, String> {
    let mut cmd = Command::new(bin());
    cmd.env_clear();
    if ctx.case.client == Client::Gemini {
        // The client runs with it (clients::command): its folder trust decides MCP servers
        // and project commands (spec/instructions.md §10.7).
        cmd.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    }
    let out = cmd
        .args(args)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &ctx.home)
        .env("CODEX_HOME", ctx.home.join(".codex"))
        .env("ALISIO_CONFIG_HOME", ctx.base.join("alisio-config"))
        .env("ALISIO_STATE_HOME", ctx.base.join("alisio-state"))
        .current_dir(&ctx.cwd)
        .output()
        .map_err(|e| format!("run alisio-ls: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "alisio-ls {args:?} printed no JSON ({e}; exit {:?}):\n{text}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `context explain --host H --json TARGET` (a path relative to the cwd, or absolute).
///
/// # Errors
/// See [`alisio`].
pub fn explain(ctx: &Ctx<'_>, target: &str) -> Result<Value, String> {
    let trusted = ctx.case.alisio_config.is_some();
    let mut args = vec![
        "context",
        "explain",
        "--host",
        ctx.case.client.host(),
        "--json",
    ];
    if trusted {
        args.push("--trust-project");
    }
    args.push(target);
    alisio(ctx, &args)
}

#[must_use]
pub fn sha256_hex(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// An expected block: absolute path, label, SHA-256 of the content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Want {
    pub path: String,
    pub label: Option<String>,
    pub sha256: String,
}

fn abs(ex: &Value, p: &str) -> String {
    if Path::new(p).is_absolute() {
        p.to_string()
    } else {
        Path::new(ex["workspace"].as_str().unwrap_or_default())
            .join(p)
            .display()
            .to_string()
    }
}

fn claude_label(scope: &str, kind: &str) -> String {
    let i = match (scope, kind) {
        ("global", _) => 2,
        ("managed", _) => 3,
        (_, "claude-local") => 1,
        _ => 0,
    };
    CLAUDE_LABELS[i].to_string()
}

/// Claude Code's expected startup blocks from an explain object (`on-access` entries only
/// when `on_access`).
#[must_use]
pub fn claude_wants(ex: &Value, on_access: bool) -> Vec<Want> {
    let mut out = Vec::new();
    for f in ex["files"].as_array().into_iter().flatten() {
        if (f["delivery"] == "on-access" && !on_access)
            || f["empty"] == true
            || f["truncation"] == "dropped"
        {
            continue;
        }
        let label = claude_label(
            f["scope"].as_str().unwrap_or_default(),
            f["kind"].as_str().unwrap_or_default(),
        );
        out.push(Want {
            path: abs(ex, f["path"].as_str().unwrap_or_default()),
            label: Some(label.clone()),
            sha256: f["sha256"].as_str().unwrap_or("(no sha256)").to_string(),
        });
        for i in f["imports"].as_array().into_iter().flatten() {
            if i["approval"] == true {
                continue;
            }
            out.push(Want {
                path: abs(ex, i["path"].as_str().unwrap_or_default()),
                label: Some(label.clone()),
                sha256: i["sha256"].as_str().unwrap_or("(no sha256)").to_string(),
            });
        }
    }
    out
}

fn got(blocks: &[Block]) -> Vec<Want> {
    blocks
        .iter()
        .map(|b| Want {
            path: b.path.clone(),
            label: b.label.clone(),
            sha256: sha256_hex(&b.content),
        })
        .collect()
}

fn show(ws: &[Want]) -> String {
    if ws.is_empty() {
        return "  (none)\n".into();
    }
    ws.iter()
        .map(|w| {
            format!(
                "  {} ({}) sha256 {}\n",
                w.path,
                w.label.as_deref().unwrap_or("no label"),
                &w.sha256[..w.sha256.len().min(12)]
            )
        })
        .collect()
}

fn contents(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| format!("--- {} ---\n{}\n", b.path, b.content))
        .collect()
}

fn same(what: &str, want: &[Want], got: &[Want], blocks: &[Block]) -> Result<(), String> {
    if want == got {
        return Ok(());
    }
    Err(format!(
        "{what}: explain and the client disagree\nexplain expects:\n{}the client delivered:\n{}delivered contents:\n{}",
        show(want),
        show(got),
        contents(blocks)
    ))
}

fn host_version(ctx: &Ctx<'_>, ex: &Value) -> Result<(), String> {
    if ex["hostVersion"].as_str() == Some(ctx.client_version.as_str()) {
        Ok(())
    } else {
        Err(format!(
            "explain's hostVersion is {}, the client is {}",
            ex["hostVersion"], ctx.client_version
        ))
    }
}

/// The default check of a case (see the module documentation).
///
/// # Errors
/// The disagreement, with both sides.
pub fn instructions(ctx: &Ctx<'_>) -> Result<(), String> {
    match ctx.case.client {
        Client::ClaudeCode => claude(ctx),
        Client::Codex => codex(ctx),
        Client::Gemini => gemini(ctx),
    }
}

/// Claude Code: startup blocks, then (after a scripted read) the nested blocks.
///
/// # Errors
/// The disagreement.
pub fn claude(ctx: &Ctx<'_>) -> Result<(), String> {
    let ex = explain(ctx, ".")?;
    host_version(ctx, &ex)?;
    let blocks = extract::claude_blocks(&ctx.outcome.requests);
    let (start, nested): (Vec<Block>, Vec<Block>) =
        blocks.into_iter().partition(|b| b.message == 0);
    let want = claude_wants(&ex, false);
    same("startup files", &want, &got(&start), &start)?;
    if let Some(read) = &ctx.case.read {
        let target = ctx.base.join(read).display().to_string();
        // The session started in the cwd: explain of the file read as seen from it.
        let ex_read = alisio(
            ctx,
            &[
                "context",
                "explain",
                "--host",
                ctx.case.client.host(),
                "--json",
                "--session-dir",
                ".",
                &target,
            ],
        )?;
        let before: Vec<String> = want.iter().map(|w| w.path.clone()).collect();
        let want_nested: Vec<Want> = claude_wants(&ex_read, true)
            .into_iter()
            .filter(|w| !before.contains(&w.path))
            .map(|w| Want { label: None, ..w })
            .collect();
        same(
            &format!("files attached after reading {read}"),
            &want_nested,
            &got(&nested),
            &nested,
        )?;
    } else if !nested.is_empty() {
        return Err(format!(
            "the client attached files without a read:\n{}",
            contents(&nested)
        ));
    }
    Ok(())
}

/// Codex's join: the global file, then `--- project-doc ---`, then the project files joined by
/// blank lines (spec/instructions.md §3, model text).
fn codex_text(ctx: &Ctx<'_>, ex: &Value) -> Result<Option<String>, String> {
    let mut global = None;
    let mut project = Vec::new();
    for f in ex["files"].as_array().into_iter().flatten() {
        let path = abs(ex, f["path"].as_str().unwrap_or_default());
        let raw = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
        let kept = usize::try_from(f["keptBytes"].as_u64().unwrap_or(0)).unwrap_or(0);
        let text = String::from_utf8_lossy(&raw[..kept.min(raw.len())]).into_owned();
        if f["empty"] == true || f["truncation"] == "dropped" || kept == 0 {
            continue;
        }
        if f["scope"] == "global" {
            global = Some(text);
        } else {
            project.push(text);
        }
    }
    let project = (!project.is_empty()).then(|| project.join("\n\n"));
    let _ = ctx;
    Ok(match (global, project) {
        (None, None) => None,
        (Some(g), None) => Some(g),
        (None, Some(p)) => Some(p),
        (Some(g), Some(p)) => Some(format!("{g}\n\n--- project-doc ---\n\n{p}")),
    })
}

/// Codex: the one instruction text.
///
/// # Errors
/// The disagreement.
pub fn codex(ctx: &Ctx<'_>) -> Result<(), String> {
    let ex = explain(ctx, ".")?;
    host_version(ctx, &ex)?;
    let want = codex_text(ctx, &ex)?;
    let got = extract::codex_instructions(&ctx.outcome.requests);
    if want == got {
        return Ok(());
    }
    Err(format!(
        "instruction text: explain and the client disagree\nexplain expects:\n{}\nthe client sent:\n{}",
        want.as_deref().unwrap_or("(no instruction message)"),
        got.as_deref().unwrap_or("(no instruction message)")
    ))
}

/// Gemini CLI: the startup context blocks (path and content of each `always` file).
///
/// # Errors
/// The disagreement.
pub fn gemini(ctx: &Ctx<'_>) -> Result<(), String> {
    let ex = explain(ctx, ".")?;
    host_version(ctx, &ex)?;
    let blocks = extract::gemini_blocks(&ctx.outcome.requests);
    let mut want = Vec::new();
    for f in ex["files"].as_array().into_iter().flatten() {
        if f["delivery"] != "always" || f["empty"] == true {
            continue;
        }
        want.push(Want {
            path: abs(&ex, f["path"].as_str().unwrap_or_default()),
            label: None,
            sha256: f["sha256"].as_str().unwrap_or("(no sha256)").to_string(),
        });
    }
    same("context files", &want, &got(&blocks), &blocks)
}

/// The case text with placeholders filled (for checks that build expectations by hand).
#[must_use]
pub fn filled(ctx: &Ctx<'_>, text: &str) -> String {
    fill(text, &ctx.base)
}
