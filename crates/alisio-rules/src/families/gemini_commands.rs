//! Gemini CLI's custom commands (spec/instructions.md §10.8), as 0.61.0 loads them (its
//! `FileCommandLoader`, packages/cli/src/services/FileCommandLoader.ts in the 0.61.0 bundle;
//! measured offline, tests/real `mcp`): every `**/*.toml` below `~/.gemini/commands`, then below
//! `.gemini/commands` of the session's directory (in a trusted folder); `a/b.toml` is `/a:b`
//! (each segment's characters outside `[A-Za-z0-9_.-]` become `_`); the file must be TOML whose
//! `prompt` is a string, `description` (optional) a string, else it is skipped; a user and a
//! project command of the same name are both renamed (`/user.NAME`, `/workspace.NAME`). The
//! user types them (in `-p` mode too: a prompt `/NAME args` sends the command's prompt):
//! nothing is sent to the model for them at startup.

use std::path::{Path, PathBuf};

use toml_edit::Item;

use alisio_base::diagnostic::{Code, Severity};
use alisio_base::text::TextRange;
use alisio_base::workspace::{Env, FileType, Fs};

use super::toml_doc;
use super::{FILE_LIMIT, Family, FamilyEntry, FamilyScope, NotLoadedFamilyFile, Startup};

/// Why a command costs nothing at startup.
pub const HIDDEN: &str =
    "a slash command the user types: Gemini CLI sends the model nothing for it at startup";

/// Why project commands are not loaded in an untrusted folder.
pub const UNTRUSTED_REASON: &str =
    "the folder is not trusted: Gemini CLI 0.61.0 loads project commands only in a trusted folder";

/// The keys of a command file, with their meaning (hovers and completions).
pub const COMMAND_KEYS: [(&str, &str); 2] = [
    (
        "prompt",
        "The prompt sent when the user types the command: `{{args}}` is replaced by the arguments, `!{…}` by a shell command's output, `@{…}` by a file's content. Required: without it Gemini CLI skips the file.",
    ),
    (
        "description",
        "Shown in the `/help` menu; absent: `Custom command from <file>`.",
    ),
];

/// The `*.toml` files below `dir`, with the command name of each.
fn files(fs: &dyn Fs, dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), Vec::<String>::new())];
    let mut n = 0;
    while let Some((d, segs)) = stack.pop() {
        n += 1;
        if n > 1000 {
            break;
        }
        let Ok(entries) = fs.read_dir(&d) else {
            continue;
        };
        let mut subs = Vec::new();
        for e in entries {
            let Some(name) = e.name.to_str() else {
                continue;
            };
            let p = d.join(name);
            let ft = match e.file_type {
                FileType::Symlink => fs.metadata(&p).map_or(FileType::Other, |m| m.file_type),
                t => t,
            };
            let mut next = segs.clone();
            match ft {
                FileType::Dir => {
                    next.push(name.to_string());
                    subs.push((p, next));
                }
                FileType::File if name.ends_with(".toml") => {
                    next.push(name.trim_end_matches(".toml").to_string());
                    out.push((p, command_name(&next)));
                }
                _ => {}
            }
        }
        stack.extend(subs.into_iter().rev());
    }
    out
}

/// `a/b.toml` → `a:b`, each segment as the loader sanitises it.
#[must_use]
pub fn command_name(segments: &[String]) -> String {
    segments
        .iter()
        .map(|s| {
            let mut t: String = s
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if t.chars().count() > 50 {
                t = t.chars().take(47).collect::<String>() + "...";
            }
            t
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// The description as the loader keeps it: whitespace runs become one space, 100 characters
/// at most (97 and `...`).
fn display(d: &str) -> String {
    let one: String = d.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 100 {
        one.chars().take(97).collect::<String>() + "..."
    } else {
        one
    }
}

/// One command file judged: its entry, or why Gemini CLI skips it (with a diagnostic).
fn judge(
    fs: &dyn Fs,
    p: &Path,
    name: String,
    scope: FamilyScope,
    s: &mut Startup,
) -> Option<FamilyEntry> {
    let text = String::from_utf8_lossy(&fs.read_prefix(p, FILE_LIMIT).ok()?).into_owned();
    s.files.push(p.to_path_buf());
    let first = TextRange::new(0, text.find(['\r', '\n']).unwrap_or(text.len()));
    let skip = |s: &mut Startup, r: TextRange, msg: String, said: &str| {
        s.diagnostics.push(toml_doc::diag(
            p,
            &text,
            r,
            Severity::Error,
            Code::CommandTomlInvalid,
            format!("{msg}: Gemini CLI skips this command ({said})"),
        ));
        s.not_loaded.push(NotLoadedFamilyFile {
            family: Family::Command,
            file: p.to_path_buf(),
            reason: msg,
        });
        None
    };
    let doc = match toml_doc::parse(&text) {
        Ok(d) => d,
        Err((r, m)) => {
            return skip(
                s,
                r,
                format!("invalid TOML: {m}"),
                "\"Failed to parse TOML file\"",
            );
        }
    };
    let t = doc.as_table();
    let Some((key, prompt)) = t.get_key_value("prompt") else {
        return skip(
            s,
            first,
            "no `prompt`".into(),
            "\"The 'prompt' field is required.\"",
        );
    };
    if prompt.as_str().is_none() {
        let r = toml_doc::item_range(prompt, toml_doc::key_range(key, first));
        let m = format!(
            "`prompt` must be a string, not {}",
            toml_doc::describe(prompt)
        );
        return skip(s, r, m, "\"The 'prompt' field must be a string.\"");
    }
    let description = match t.get_key_value("description") {
        None => None,
        Some((_, Item::Value(toml_edit::Value::String(d)))) => Some(d.value().clone()),
        Some((k, v)) => {
            let r = toml_doc::item_range(v, toml_doc::key_range(k, first));
            let m = format!(
                "`description` must be a string, not {}",
                toml_doc::describe(v)
            );
            return skip(s, r, m, "\"Skipping invalid command file\"");
        }
    };
    let base = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let description = display(
        &description
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| format!("Custom command from {base}")),
    );
    Some(FamilyEntry {
        family: Family::Command,
        name,
        file: p.to_path_buf(),
        scope,
        description,
        text: None,
        detail: String::new(),
        shadowed_by: None,
        hidden: Some(HIDDEN.into()),
    })
}

/// The commands Gemini CLI loads in a session started in `cwd` (`trusted`: the folder is),
/// into `s`.
pub fn commands(fs: &dyn Fs, env: &Env, cwd: &Path, trusted: bool, s: &mut Startup) {
    let home = super::gemini_mcp::home(env);
    let mut list: Vec<FamilyEntry> = Vec::new();
    if let Some(h) = &home {
        for (p, name) in files(fs, &h.join(".gemini").join("commands")) {
            list.extend(judge(fs, &p, name, FamilyScope::User, s));
        }
    }
    if home.as_deref() != Some(cwd) {
        for (p, name) in files(fs, &cwd.join(".gemini").join("commands")) {
            if let Some(e) = judge(fs, &p, name, FamilyScope::Project, s) {
                if trusted {
                    list.push(e);
                } else {
                    s.not_loaded.push(NotLoadedFamilyFile {
                        family: Family::Command,
                        file: p,
                        reason: UNTRUSTED_REASON.into(),
                    });
                }
            }
        }
    }
    // A user and a project command of one name are both renamed, `user.<name>` and
    // `workspace.<name>` (the bundle's `SlashCommandResolver`; measured: `/<name>` is then
    // sent as typed).
    let clash: Vec<String> = list
        .iter()
        .filter(|e| e.scope == FamilyScope::Project)
        .filter(|e| {
            list.iter()
                .any(|u| u.scope == FamilyScope::User && u.name == e.name)
        })
        .map(|e| e.name.clone())
        .collect();
    for e in &mut list {
        if clash.contains(&e.name) {
            let prefix = if e.scope == FamilyScope::User {
                "user"
            } else {
                "workspace"
            };
            e.name = format!("{prefix}.{}", e.name);
        }
    }
    s.entries.extend(list);
}
