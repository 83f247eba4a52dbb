//! The three skill tools as a library (spec/skills.md §4.2–§4.4): `skill_load`, `skill_search` and
//! `skill_resource`, over the entries of a host-`alisio` discovery.
//!
//! Invariant: `skill_resource` never opens anything outside the skill directory: the lexical
//! check runs before any file-system access, the realpath check before the file is opened, and
//! the escape check precedes the existence check so answers never reveal what lies outside.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::catalog::{self, CatalogSkill};
use super::validate;
use alisio_base::config::Profile;
use alisio_base::workspace::{FileType, Fs};

/// Bytes of one `skill_resource` page.
pub const PAGE_BYTES: usize = 32_000;
/// Entries of a directory listing.
pub const MAX_LISTING: usize = 200;
/// Results of `skill_search`.
pub const MAX_SEARCH: usize = 30;

/// An effective entry whose `name`, `displayId` or `id` equals `input`.
#[must_use]
pub fn resolve<'a>(entries: &'a [CatalogSkill], input: &str) -> Option<&'a CatalogSkill> {
    let eff = || entries.iter().filter(|e| e.effective);
    eff()
        .find(|e| e.id == input)
        .or_else(|| eff().find(|e| e.display_id == input))
        .or_else(|| eff().find(|e| e.name == input))
}

/// Resolves a tool's `name` with the unknown / disabled / user-only errors of spec/skills.md §4.2.
///
/// # Errors
/// The exact texts of spec/skills.md §4.2.
pub fn resolve_for_model<'a>(
    entries: &'a [CatalogSkill],
    input: &str,
) -> Result<&'a CatalogSkill, String> {
    let Some(e) = resolve(entries, input) else {
        let mut msg = format!("Unknown skill: {input}");
        let close: Vec<&str> = catalog::listed(entries)
            .iter()
            .map(|e| e.name.as_str())
            .filter(|n| validate::edit_distance_at_most(n, input, 3).is_some())
            .take(5)
            .collect();
        if !close.is_empty() {
            msg.push_str(&format!(". Did you mean: {}?", close.join(", ")));
        }
        return Err(msg);
    };
    if !e.enabled {
        return Err(format!("Skill \"{}\" is disabled", e.display_id));
    }
    if !e.model_invocable {
        return Err(format!(
            "Skill \"{}\" can only be invoked by the user.",
            e.display_id
        ));
    }
    Ok(e)
}

/// The JSON schema of `skill_load`: an `enum` of listed names (plus differing `displayId`s)
/// while the catalog is not collapsed.
#[must_use]
pub fn skill_load_schema(entries: &[CatalogSkill]) -> Value {
    let mut name = json!({"type": "string", "description": "The skill's name from the catalog"});
    if let Some(names) = catalog::enum_names(entries) {
        name["enum"] = json!(names);
    }
    json!({"type": "object", "properties": {"name": name}, "required": ["name"], "additionalProperties": false})
}

/// The text `skill_load` returns for an entry, re-read and re-validated now (spec/skills.md §4.2), and the
/// exact SKILL.md text used (for the deduplication hash).
///
/// # Errors
/// `Skill "<displayId>" cannot be loaded: <message>`.
pub fn load_text(fs: &dyn Fs, e: &CatalogSkill) -> Result<String, String> {
    let is_symlink = fs
        .symlink_metadata(&e.file)
        .is_ok_and(|m| m.file_type == FileType::Symlink);
    let checked = if is_symlink {
        validate::symlink_result(&e.file, Profile::Alisio)
    } else {
        validate::check_file(fs, &e.file, Profile::Alisio)
    };
    if let Some(err) = checked.load_error {
        return Err(format!(
            "Skill \"{}\" cannot be loaded: {err}",
            e.display_id
        ));
    }
    Ok(format!(
        "Skill root: {}\nUse skill_resource to read supporting files.\n\n{}",
        e.dir.display(),
        checked.text
    ))
}

/// Per-session memory of loaded skills (spec/skills.md §4.2 deduplication).
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// id → SHA-256 of the returned text.
    by_id: HashMap<String, [u8; 32]>,
}

impl Loaded {
    /// Forgets an id (its earlier result left the model's context).
    pub fn forget(&mut self, id: &str) {
        self.by_id.remove(id);
    }
    /// Records a load made outside [`skill_load`] (a `/skill:` expansion).
    pub fn record(&mut self, id: &str, text: &str) {
        self.by_id
            .insert(id.to_string(), Sha256::digest(text.as_bytes()).into());
    }
}

/// `skill_load {name}`.
///
/// # Errors
/// The error texts of spec/skills.md §4.2.
pub fn skill_load(
    fs: &dyn Fs,
    entries: &[CatalogSkill],
    loaded: &mut Loaded,
    name: &str,
) -> Result<String, String> {
    let e = resolve_for_model(entries, name)?;
    let text = load_text(fs, e)?;
    let hash: [u8; 32] = Sha256::digest(text.as_bytes()).into();
    if loaded.by_id.get(&e.id) == Some(&hash) {
        return Ok(format!(
            "Skill \"{}\" is already loaded in this conversation and has not changed; follow the instructions from the earlier skill_load result.",
            e.display_id
        ));
    }
    loaded.by_id.insert(e.id.clone(), hash);
    Ok(text)
}

/// `skill_search {query}` (spec/skills.md §4.3): ranked, at most 30, no paths.
#[must_use]
pub fn skill_search(entries: &[CatalogSkill], query: &str) -> Value {
    let q = query.to_lowercase();
    let terms: Vec<&str> = q.split_whitespace().collect();
    let trimmed = q.trim();
    let mut hits: Vec<(u8, usize, &CatalogSkill)> = Vec::new();
    for (i, e) in catalog::listed(entries).into_iter().enumerate() {
        let hay = format!("{} {} {}", e.name, e.display_id, e.description).to_lowercase();
        if !terms.iter().all(|t| hay.contains(t)) {
            continue;
        }
        let (name, did) = (e.name.to_lowercase(), e.display_id.to_lowercase());
        let rank = if !trimmed.is_empty() && (trimmed == name || trimmed == did) {
            0
        } else if !terms.is_empty() && terms.iter().all(|t| name.contains(t) || did.contains(t)) {
            1
        } else {
            2
        };
        hits.push((rank, i, e));
    }
    hits.sort_by_key(|(r, i, _)| (*r, *i));
    let total = hits.len();
    let skills: Vec<Value> = hits
        .iter()
        .take(MAX_SEARCH)
        .map(|(_, _, e)| json!({"id": e.id, "name": e.name, "displayId": e.display_id, "description": e.description, "scope": e.scope.as_str()}))
        .collect();
    json!({"skills": skills, "total": total})
}

/// The lexical normal form of a relative tool path: `None` when it climbs above the skill.
fn lexical(path: &str) -> Option<Vec<&str>> {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts)
}

fn is_absolute_like(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with(['/', '\\', '~']) || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// `skill_resource {name, path, offset?}` (spec/skills.md §4.4).
///
/// # Errors
/// The exact texts of spec/skills.md §4.4.
pub fn skill_resource(
    fs: &dyn Fs,
    entries: &[CatalogSkill],
    name: &str,
    path: &str,
    offset: Option<u64>,
) -> Result<Value, String> {
    let e = resolve_for_model(entries, name)?;
    if path.is_empty() {
        return Err("path must name a file inside the skill directory".into());
    }
    if path.chars().any(char::is_control) {
        return Err(format!("Invalid path: {path}"));
    }
    if is_absolute_like(path) {
        return Err(format!(
            "Path must be relative to the skill directory: {path}"
        ));
    }
    let Some(parts) = lexical(path) else {
        return Err(format!("Path escapes the skill directory: {path}"));
    };
    let escapes = || format!("Path escapes the skill directory through a symlink: {path}");
    let skill_real = fs
        .canonicalize(&e.dir)
        .map_err(|_| format!("File not found: {path}"))?;
    let mut full = e.dir.clone();
    let mut deepest = e.dir.clone();
    let mut exists = true;
    for p in &parts {
        full.push(p);
        if exists && fs.symlink_metadata(&full).is_ok() {
            deepest = full.clone();
        } else {
            exists = false;
        }
    }
    let real = fs.canonicalize(&deepest).map_err(|_| escapes())?;
    if !real.starts_with(&skill_real) {
        return Err(escapes());
    }
    let rel = parts.join("/");
    if !exists {
        return Err(format!("File not found: {path}"));
    }
    let meta = fs
        .metadata(&full)
        .map_err(|_| format!("File not found: {path}"))?;
    if meta.file_type == FileType::Dir {
        let list = fs
            .read_dir(&full)
            .map_err(|_| format!("File not found: {path}"))?;
        let mut names: Vec<String> = list
            .iter()
            .map(|d| {
                let mut n = d.name.to_string_lossy().into_owned();
                let is_dir = d.file_type == FileType::Dir
                    || (d.file_type == FileType::Symlink
                        && fs
                            .metadata(&full.join(&d.name))
                            .is_ok_and(|m| m.file_type == FileType::Dir));
                if is_dir {
                    n.push('/');
                }
                n
            })
            .collect();
        let omitted = names.len().saturating_sub(MAX_LISTING);
        names.truncate(MAX_LISTING);
        return Ok(
            json!({"skill": e.display_id, "path": if rel.is_empty() { ".".to_string() } else { rel }, "entries": names, "omitted": omitted}),
        );
    }
    page(
        fs,
        &full,
        &e.display_id,
        &rel,
        offset.unwrap_or(0),
        meta.len,
    )
}

fn page(
    fs: &dyn Fs,
    file: &Path,
    skill: &str,
    rel: &str,
    offset: u64,
    size: u64,
) -> Result<Value, String> {
    if size > 0 && offset >= size {
        return Err(format!(
            "Offset {offset} is past the end of the file ({size} bytes)"
        ));
    }
    let want = offset.saturating_add(PAGE_BYTES as u64 + 4);
    let bytes = fs
        .read_prefix(file, want)
        .map_err(|e| format!("Cannot read {rel}: {e}"))?;
    let size = size.max(bytes.len() as u64);
    let start =
        alisio_base::text::ceil_boundary(&bytes, usize::try_from(offset).unwrap_or(usize::MAX));
    let mut end = (start + PAGE_BYTES).min(bytes.len());
    if end < bytes.len() {
        end = alisio_base::text::floor_boundary(&bytes, end);
    }
    let chunk = &bytes[start..end];
    if chunk.contains(&0) {
        return Err("Binary file; text reader refused".into());
    }
    let next = if (end as u64) < size {
        Some(end as u64)
    } else {
        None
    };
    Ok(
        json!({"skill": skill, "path": rel, "content": String::from_utf8_lossy(chunk), "offset": start, "nextOffset": next, "size": size}),
    )
}

/// An explicit invocation `/skill:<id> [text]` (spec/skills.md §4.5): `None` when the prompt is not one;
/// otherwise the expanded prompt and the entry's `displayId` (for the `"skill"` marker), or the
/// `skill_load` error text (a pre-run failure). User-only skills may be invoked this way; the
/// load counts for deduplication.
///
/// # Errors
/// Unknown, disabled or no-longer-loadable skills, with the texts of spec/skills.md §4.2.
#[must_use]
pub fn expand_invocation(
    fs: &dyn Fs,
    entries: &[CatalogSkill],
    loaded: &mut Loaded,
    prompt: &str,
) -> Option<Result<(String, String), String>> {
    let rest = prompt.strip_prefix("/skill:")?;
    let (id, text) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(a, b)| (a, b.trim_start()));
    if id.is_empty() {
        return None;
    }
    let Some(e) = resolve(entries, id) else {
        return Some(resolve_for_model(entries, id).map(|_| (String::new(), String::new())));
    };
    if !e.enabled {
        return Some(Err(format!("Skill \"{}\" is disabled", e.display_id)));
    }
    Some(load_text(fs, e).map(|t| {
        loaded.record(&e.id, &t);
        (format!("{t}\n\nUser request: {text}"), e.display_id.clone())
    }))
}

/// Byte budget of the "Loaded skills" block kept across compaction (spec/skills.md §4.5).
pub const LOADED_BLOCK_BYTES: usize = 50_000;

/// The block re-attached after a compaction (spec/skills.md §4.5): the current `skill_load` text of each id in
/// `ids` (most recently loaded first) while the block stays within 50,000 bytes; skills that do
/// not fit, or are disabled or gone, are named on the last line. `None` when `ids` is empty.
#[must_use]
pub fn loaded_block(fs: &dyn Fs, entries: &[CatalogSkill], ids: &[String]) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let mut out = String::from("# Loaded skills (kept across compaction)");
    let mut left_out: Vec<String> = Vec::new();
    for id in ids {
        let Some(e) = resolve(entries, id).filter(|e| e.enabled) else {
            left_out.push(id.clone());
            continue;
        };
        match load_text(fs, e) {
            Ok(t) if out.len() + 2 + t.len() <= LOADED_BLOCK_BYTES => {
                out.push_str("\n\n");
                out.push_str(&t);
            }
            _ => left_out.push(e.display_id.clone()),
        }
    }
    if !left_out.is_empty() {
        out.push_str(&format!(
            "\n\nLoaded earlier, not repeated here (call skill_load again if needed): {}",
            left_out.join(", ")
        ));
    }
    Some(out)
}

/// The absolute directory of an entry (for `Skill root:`).
#[must_use]
pub fn skill_dir(e: &CatalogSkill) -> PathBuf {
    e.dir.clone()
}
