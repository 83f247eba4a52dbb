//! Claude Code's subagents, slash commands and MCP servers (spec/instructions.md §10), as
//! Claude Code 2.1.332 loads them, measured offline (tests/real `families`):
//!
//! - agents: `*.md` below `~/.claude/agents` and below `.claude/agents` of the session's
//!   directory and each ancestor up to the workspace root (subdirectories too); the frontmatter
//!   `name` and `description` are required; a project agent wins over a user one of the same
//!   name; listed as `- <name>: <description> (Tools: <tools>)` in the agent listing, sorted
//!   with the client's own agents;
//! - commands: `*.md` below `~/.claude/commands` and `.claude/commands` (same directories),
//!   `sub/x.md` named `sub:x`; listed in the skill listing after the skills (a skill of the same
//!   name wins, and a user command wins over a project one), unless
//!   `disable-model-invocation: true`;
//! - MCP servers: `.mcp.json` of the same directories and `~/.claude.json`'s `mcpServers`
//!   ([`super::mcp`]).

use std::path::{Path, PathBuf};

use alisio_base::diagnostic::{Code, Diagnostic, Related, Severity};
use alisio_base::text::{LineIndex, TextRange};
use alisio_base::workspace::{Env, FileType, Fs};

use super::markdown::{self, Doc};
use super::{FILE_LIMIT, Family, FamilyEntry, FamilyScope, NotLoadedFamilyFile, Startup, mcp};
use crate::skills::discover::project_dirs;
use crate::skills::listing::collate;

/// The agents Claude Code 2.1.332 lists itself: name and the bytes of its line (measured).
pub const BUILTIN_AGENTS: [(&str, u64); 5] = [
    ("claude", 132),
    ("Explore", 541),
    ("general-purpose", 309),
    ("Plan", 364),
    ("statusline-setup", 111),
];

/// The description Claude Code lists for a command without one and with an empty body.
pub const COMMAND_FALLBACK: &str = "Custom command";

/// The frontmatter keys of an agent (docs.claude.com "Subagents", Claude Code 2.1.332).
pub const AGENT_KEYS: [(&str, &str); 12] = [
    (
        "name",
        "The agent's name, the `subagent_type` the model passes. Required: without it Claude Code does not load the agent.",
    ),
    (
        "description",
        "When the model should use this agent: sent at startup in the agent listing. Required.",
    ),
    (
        "tools",
        "The tools the agent may use (`Read, Grep` or a list); absent: all tools.",
    ),
    (
        "disallowedTools",
        "Tools taken away from the agent's tools.",
    ),
    (
        "model",
        "`sonnet`, `opus`, `haiku`, a model id, or `inherit`.",
    ),
    (
        "permissionMode",
        "The agent's permission mode (`default`, `acceptEdits`, `plan`, `bypassPermissions`, …).",
    ),
    ("skills", "Skills preloaded into the agent's context."),
    ("mcpServers", "MCP servers available to the agent."),
    ("hooks", "Hooks that run while the agent is active."),
    (
        "memory",
        "The agent's persistent memory scope (`user`, `project`, `local`).",
    ),
    ("color", "The agent's colour in the interface."),
    ("effort", "The reasoning effort of the agent's model."),
];

/// The frontmatter keys of a command (docs.claude.com "Slash commands", Claude Code 2.1.332).
pub const COMMAND_KEYS: [(&str, &str); 6] = [
    (
        "description",
        "Sent in the skill listing; absent: the body's first line, else `Custom command`.",
    ),
    (
        "argument-hint",
        "Shown after the command's name when the user types it (`[env]`).",
    ),
    ("allowed-tools", "Tools the command may use without asking."),
    ("model", "The model the command runs with."),
    (
        "disable-model-invocation",
        "`true`: only the user can run it; it is not in the skill listing.",
    ),
    (
        "when_to_use",
        "Appended to the description in the skill listing.",
    ),
];

struct File {
    path: PathBuf,
    scope: FamilyScope,
    /// The name from the path (commands: `sub:x`).
    path_name: String,
}

/// Every `*.md` below `dir`, depth first in name order (symlinks not followed, bounded).
fn md_files(fs: &dyn Fs, dir: &Path, scope: FamilyScope, out: &mut Vec<File>) {
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    let mut seen = 0usize;
    while let Some((d, prefix)) = stack.pop() {
        seen += 1;
        if seen > 1000 {
            break;
        }
        let Ok(entries) = fs.read_dir(&d) else {
            continue;
        };
        let mut subdirs = Vec::new();
        for e in entries {
            let Some(name) = e.name.to_str() else {
                continue;
            };
            let p = d.join(name);
            match e.file_type {
                FileType::Dir => subdirs.push((p, format!("{prefix}{name}:"))),
                FileType::File if name.ends_with(".md") => out.push(File {
                    path: p,
                    scope,
                    path_name: format!("{prefix}{}", name.trim_end_matches(".md")),
                }),
                _ => {}
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
}

fn read_text(fs: &dyn Fs, p: &Path) -> Option<String> {
    let b = fs.read_prefix(p, FILE_LIMIT).ok()?;
    let t = String::from_utf8_lossy(&b).into_owned();
    Some(t.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(t))
}

fn diag(
    file: &Path,
    text: &str,
    r: TextRange,
    sev: Severity,
    code: Code,
    msg: String,
) -> Diagnostic {
    Diagnostic::new(file, LineIndex::new(text).span(r), sev, code, msg)
}

/// The directories searched, user first: `(dir, scope)` for `<base>/.claude/<kind>`.
fn dirs(env: &Env, root: &Path, vantage: &Path, kind: &str) -> Vec<(PathBuf, FamilyScope)> {
    let mut out = Vec::new();
    if let Some(h) = &env.home {
        out.push((h.join(".claude").join(kind), FamilyScope::User));
    }
    for d in project_dirs(root, vantage) {
        out.push((d.join(".claude").join(kind), FamilyScope::Project));
    }
    out
}

/// The tools summary of the agent listing: `tools` less `disallowedTools`; no `tools`: `All
/// tools`, or `All tools except …` (measured).
fn tools_summary(doc: &Doc) -> String {
    let deny = doc
        .get("disallowedTools")
        .and_then(|f| f.value.items())
        .unwrap_or_default();
    match doc.get("tools").and_then(|f| f.value.items()) {
        Some(t) if !t.is_empty() => t
            .into_iter()
            .filter(|x| !deny.contains(x))
            .collect::<Vec<_>>()
            .join(", "),
        _ if deny.is_empty() => "All tools".to_string(),
        _ => format!("All tools except {}", deny.join(", ")),
    }
}

fn agents(fs: &dyn Fs, env: &Env, root: &Path, vantage: &Path, s: &mut Startup) {
    let mut files = Vec::new();
    // User files, then the project directories from the farthest to the nearest, so that the
    // last file of a name wins: a project agent over a user one, the nearer directory over an
    // ancestor, and in one directory the later file (all three measured on 2.1.332).
    let mut ds = dirs(env, root, vantage, "agents");
    let users = ds.iter().filter(|(_, sc)| *sc == FamilyScope::User).count();
    ds[users..].reverse();
    for (d, scope) in ds {
        md_files(fs, &d, scope, &mut files);
    }
    let mut found: Vec<(FamilyEntry, TextRange, String)> = Vec::new();
    for f in files {
        let Some(text) = read_text(fs, &f.path) else {
            continue;
        };
        s.files.push(f.path.clone());
        let doc = markdown::read(&text);
        let Some(block) = doc.block else {
            let r = doc
                .unterminated
                .unwrap_or(TextRange::new(0, text.find('\n').unwrap_or(text.len())));
            s.diagnostics.push(diag(&f.path, &text, r, Severity::Error, Code::AgentFrontmatterMissing,
                "no frontmatter: Claude Code loads an agent only from a file that starts with a `---` block holding `name` and `description`".into()));
            s.not_loaded.push(NotLoadedFamilyFile {
                family: Family::Agent,
                file: f.path,
                reason: "no frontmatter".into(),
            });
            continue;
        };
        let missing: Vec<&str> = ["name", "description"]
            .into_iter()
            .filter(|k| doc.text(k).is_none())
            .collect();
        if !missing.is_empty() {
            let r = missing
                .iter()
                .find_map(|k| doc.get(k).map(|f| f.key_span))
                .unwrap_or(TextRange::new(block.start, block.start + 3));
            let what = missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" and ");
            s.diagnostics.push(diag(
                &f.path,
                &text,
                r,
                Severity::Error,
                Code::AgentFieldMissing,
                format!("no {what}: Claude Code does not load this agent"),
            ));
            s.not_loaded.push(NotLoadedFamilyFile {
                family: Family::Agent,
                file: f.path,
                reason: format!("no {what}"),
            });
            continue;
        }
        let name = doc.text("name").unwrap_or_default().trim().to_string();
        let description = doc.text("description").unwrap_or_default().to_string();
        let detail = tools_summary(&doc);
        let span = doc.get("name").map_or(block, |f| f.value_span);
        found.push((
            FamilyEntry {
                family: Family::Agent,
                text: Some(format!("- {name}: {description} (Tools: {detail})")),
                name,
                file: f.path,
                scope: f.scope,
                description,
                detail,
                shadowed_by: None,
                hidden: None,
            },
            span,
            text,
        ));
    }
    // Winner per name: the last project file, else the last user file (user files come
    // first in `found`).
    for i in 0..found.len() {
        let name = found[i].0.name.clone();
        let same: Vec<usize> = (0..found.len())
            .filter(|&j| found[j].0.name == name)
            .collect();
        let winner = same
            .iter()
            .rev()
            .find(|&&j| found[j].0.scope == FamilyScope::Project)
            .or(same.last())
            .copied()
            .unwrap_or(i);
        if winner == i {
            continue;
        }
        let (w_file, w_span) = (found[winner].0.file.clone(), found[winner].1);
        let w_at = LineIndex::new(&found[winner].2).span(w_span);
        let (e, span, text) = &mut found[i];
        e.shadowed_by = Some(w_file.clone());
        let d = diag(
            &e.file,
            text,
            *span,
            Severity::Information,
            Code::AgentShadowed,
            format!("agent `{name}` is not loaded: another agent of the same name wins"),
        );
        s.diagnostics.push(d.with_related(Related {
            file: w_file,
            span: w_at,
            message: "the agent Claude Code loads".into(),
        }));
    }
    let mut list: Vec<FamilyEntry> = found.into_iter().map(|(e, _, _)| e).collect();
    // The winner of a name before the files it shadows.
    list.sort_by(|a, b| {
        collate::compare(&a.name, &b.name)
            .then_with(|| a.shadowed_by.is_some().cmp(&b.shadowed_by.is_some()))
    });
    s.entries.extend(list);
}

/// A command's description: `description`, else the body's first non-empty line without its
/// heading marks, else [`COMMAND_FALLBACK`] (measured).
fn command_description(doc: &Doc, text: &str) -> String {
    if let Some(d) = doc.text("description") {
        return d.to_string();
    }
    let body = text.get(doc.body_start..).unwrap_or("");
    body.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map_or_else(|| COMMAND_FALLBACK.to_string(), str::to_string)
}

fn commands(
    fs: &dyn Fs,
    env: &Env,
    root: &Path,
    vantage: &Path,
    skills: &[(String, PathBuf)],
    s: &mut Startup,
) {
    let mut files = Vec::new();
    for (d, scope) in dirs(env, root, vantage, "commands") {
        md_files(fs, &d, scope, &mut files);
    }
    let mut list: Vec<(FamilyEntry, TextRange, String)> = Vec::new();
    for f in files {
        let Some(text) = read_text(fs, &f.path) else {
            continue;
        };
        s.files.push(f.path.clone());
        let doc = markdown::read(&text);
        for x in crate::skills::quality::injection::not_run(&text, doc.body_start) {
            s.diagnostics.push(diag(
                &f.path,
                &text,
                x.range,
                Severity::Warning,
                x.code,
                x.message,
            ));
        }
        let description = command_description(&doc, &text);
        let hidden = doc
            .get("disable-model-invocation")
            .is_some_and(|v| v.value == markdown::Val::Bool(true))
            .then(|| "disable-model-invocation: true".to_string());
        let mut listed = description
            .replace(['\n', '\r', '\t'], " ")
            .trim()
            .to_string();
        if let Some(w) = doc.text("when_to_use") {
            listed = format!("{listed} - {}", w.replace(['\n', '\r', '\t'], " ").trim());
        }
        let span = doc.get("description").map_or_else(
            || TextRange::new(0, text.find(['\r', '\n']).unwrap_or(text.len())),
            |x| x.key_span,
        );
        list.push((
            FamilyEntry {
                family: Family::Command,
                text: Some(format!("- {}: {listed}", f.path_name)),
                name: f.path_name,
                file: f.path,
                scope: f.scope,
                description: listed,
                detail: String::new(),
                shadowed_by: None,
                hidden,
            },
            span,
            text,
        ));
    }
    for i in 0..list.len() {
        let name = list[i].0.name.clone();
        let skill = skills
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| f.clone());
        // The first command of a name wins (user commands come first).
        let first = list
            .iter()
            .position(|(e, _, _)| e.name == name)
            .unwrap_or(i);
        if skill.is_none() && first == i {
            continue;
        }
        let w_file = list[first].0.file.clone();
        let w_at = LineIndex::new(&list[first].2).span(list[first].1);
        let (e, span, text) = &mut list[i];
        let msg = if let Some(f) = &skill {
            e.shadowed_by = Some(f.clone());
            format!("command `{name}` is not in the skill listing: a skill of the same name wins")
        } else {
            e.shadowed_by = Some(w_file.clone());
            format!(
                "command `{name}` is not in the skill listing: another command of the same name wins"
            )
        };
        let mut d = diag(
            &e.file,
            text,
            *span,
            Severity::Warning,
            Code::CommandShadowed,
            msg,
        );
        if let Some(f) = skill {
            d = d.with_related(Related {
                file: f,
                span: LineIndex::new("").span(TextRange::new(0, 0)),
                message: "the skill Claude Code lists".into(),
            });
        } else {
            d = d.with_related(Related {
                file: w_file,
                span: w_at,
                message: "the command Claude Code lists".into(),
            });
        }
        s.diagnostics.push(d);
    }
    let mut out: Vec<FamilyEntry> = list.into_iter().map(|(e, _, _)| e).collect();
    out.sort_by(|a, b| {
        collate::compare(&a.name, &b.name)
            .then_with(|| a.shadowed_by.is_some().cmp(&b.shadowed_by.is_some()))
    });
    s.entries.extend(out);
}

/// What Claude Code loads at startup in a session started in `vantage`; `skill_names` are the
/// skills of its listing (a command of the same name is not listed).
#[must_use]
pub fn startup(
    fs: &dyn Fs,
    env: &Env,
    root: &Path,
    vantage: &Path,
    skills: &[(String, PathBuf)],
) -> Startup {
    let mut s = Startup::default();
    agents(fs, env, root, vantage, &mut s);
    commands(fs, env, root, vantage, skills, &mut s);
    let mut files: Vec<(PathBuf, FamilyScope)> = project_dirs(root, vantage)
        .into_iter()
        .map(|d| (d.join(".mcp.json"), FamilyScope::Project))
        .collect();
    if let Some(h) = &env.home {
        files.push((h.join(".claude.json"), FamilyScope::User));
    }
    mcp::servers(fs, &files, &mut s);
    s
}

/// The agent listing's lines in the client's order, the client's own agents included (their
/// lines are not kept, only their bytes): `(name, text or None for a built-in, bytes)`.
#[must_use]
pub fn agent_listing(s: &Startup) -> Vec<(String, Option<String>, u64)> {
    let mut out: Vec<(String, Option<String>, u64)> = s
        .of(Family::Agent)
        .filter(|e| e.loaded())
        .map(|e| (e.name.clone(), e.text.clone(), e.bytes()))
        .collect();
    for (n, b) in BUILTIN_AGENTS {
        if !out.iter().any(|(x, _, _)| x == n) {
            out.push((n.to_string(), None, b));
        }
    }
    out.sort_by(|a, b| collate::compare(&a.0, &b.0));
    out
}
