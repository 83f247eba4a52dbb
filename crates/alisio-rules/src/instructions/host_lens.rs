//! hosts.md H12: the code-lens titles of a file that a host in use among `copilot`, `gemini`
//! and `cursor` reads: how that host delivers it, with its size in tokens.

use std::path::Path;

use super::cursor::{self, RuleType};
use super::host_files::{header, in_use};
use super::read::{ReadMode, Reader};
use super::{Setup, copilot, gemini, tokens};
use alisio_base::config::Host;
use alisio_base::workspace::display_path;

fn name_is(path: &Path, name: &str) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.eq_ignore_ascii_case(name))
}

fn copilot_title(setup: &Setup<'_>, path: &Path, text: &str) -> Option<String> {
    let root = setup.root;
    let parent = path.parent()?;
    let always = (parent == root.join(".github") && name_is(path, "copilot-instructions.md"))
        || (parent == root && (name_is(path, "AGENTS.md") || name_is(path, "CLAUDE.md")))
        || (parent == root && name_is(path, "CLAUDE.local.md"))
        || (parent == root.join(".claude") && name_is(path, "CLAUDE.md"));
    if always {
        return Some("copilot: always".to_string());
    }
    let found = copilot::instruction_files(setup, &setup.settings.hosts.copilot);
    let (_, kind, _) = found.files.iter().find(|(p, _, _)| p == path)?;
    Some(match copilot::pattern_of(*kind, text) {
        Ok(pat) => format!("copilot: attached for \"{pat}\", else listed"),
        Err(why) => format!("copilot: listed ({why})"),
    })
}

fn gemini_title(setup: &Setup<'_>, path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let names = gemini::names(&setup.settings.hosts.gemini);
    if !names.iter().any(|n| n == name) {
        return None;
    }
    let dir = path.parent()?;
    if dir == setup.root || !dir.starts_with(setup.root) {
        return Some("gemini: always".to_string());
    }
    Some(format!(
        "gemini: on access below {}",
        display_path(dir, setup.root)
    ))
}

fn cursor_title(setup: &Setup<'_>, path: &Path, text: &str) -> Option<String> {
    let dir = path.parent()?;
    let rel = display_path(dir, setup.root);
    if path.file_name().is_some_and(|n| n == "AGENTS.md") {
        return Some(if dir == setup.root {
            "cursor: always".to_string()
        } else {
            format!("cursor: attached below {rel}")
        });
    }
    if path.file_name().is_some_and(|n| n == ".cursorrules") && dir == setup.root {
        return Some("cursor: always".to_string());
    }
    let in_rules = path.ancestors().any(|a| a.ends_with(".cursor/rules"));
    if !in_rules || path.extension().is_none_or(|e| e != "mdc") {
        return None;
    }
    let stem = path.file_stem()?.to_string_lossy();
    Some(match cursor::rule_type(&header(text)) {
        RuleType::Always => "cursor: always".to_string(),
        RuleType::AutoAttached(g) => format!("cursor: attached for \"{}\"", g.join(", ")),
        RuleType::AgentRequested => "cursor: agent-requested".to_string(),
        RuleType::Manual => format!("cursor: manual (@{stem})"),
    })
}

/// One title per host in use that reads `path`, in hosts.md H9 order.
#[must_use]
pub fn titles(setup: &Setup<'_>, reader: &Reader<'_>, path: &Path) -> Vec<String> {
    let hosts = in_use(setup);
    if !hosts
        .iter()
        .any(|h| matches!(h, Host::Copilot | Host::Gemini | Host::Cursor))
    {
        return Vec::new();
    }
    let file = reader.read(path, ReadMode::Claude);
    let t = tokens(file.size());
    hosts
        .into_iter()
        .filter_map(|h| match h {
            Host::Copilot => copilot_title(setup, path, &file.text),
            Host::Gemini => gemini_title(setup, path),
            Host::Cursor => cursor_title(setup, path, &file.text),
            _ => None,
        })
        .map(|s| format!("{s} · ~{t} tokens"))
        .collect()
}
