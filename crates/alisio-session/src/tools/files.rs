//! `read_file`, `write_file`, `edit_file`, `list_files` (spec/sessions.md §3.4), with atomic writes
//! guarded by sha256 preconditions.

use std::io::Read as _;
use std::path::Path;

use serde_json::json;

use super::ToolCtx;
use super::args::{EditFile, ListFiles, ReadFile, WriteFile};
use super::confine::Confined;
use super::error::{ToolError, ToolReturn};
use crate::util::{fault, sha256_hex};

const MIB: u64 = 1_048_576;
const LINE_BUDGET: usize = 28_000;

fn confine(ctx: &ToolCtx, p: &str) -> ToolReturn<Confined> {
    Ok(ctx.roots.confine(p)?)
}

fn read_prefix(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let mut buf = Vec::new();
    f.take(limit).read_to_end(&mut buf)?;
    Ok(buf)
}

/// `read_file`.
///
/// # Errors
/// The tool's error text.
pub fn read_file(ctx: &ToolCtx, a: &ReadFile) -> ToolReturn {
    let (path, start, limit) = (a.path.as_str(), a.start_line, a.limit);
    let c = confine(ctx, path)?;
    let meta = std::fs::metadata(&c.real).map_err(|_| ToolError::FileNotFound(c.shown.clone()))?;
    if !meta.is_file() {
        return Err(ToolError::NotAFile(c.shown));
    }
    let bytes = read_prefix(&c.real, MIB)
        .map_err(|e| ToolError::CannotRead(c.shown.clone(), e.to_string()))?;
    if bytes.contains(&0) {
        return Err(ToolError::Binary);
    }
    let over = meta.len() > MIB;
    let sha = if over { None } else { Some(sha256_hex(&bytes)) };
    let text = String::from_utf8_lossy(&bytes);
    let start = start.unwrap_or(1).max(1) as usize;
    let limit = limit.unwrap_or(200) as usize;
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    let mut out: Vec<String> = Vec::new();
    let mut used = 0usize;
    let mut cut = false;
    let mut end = start - 1;
    for (i, line) in lines.iter().enumerate().skip(start - 1) {
        if out.len() >= limit {
            break;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let n = i + 1;
        let rendered = format!("{n}: {line}");
        let len = rendered.chars().count() + usize::from(!out.is_empty());
        if used + len > LINE_BUDGET {
            if out.is_empty() {
                out.push(crate::util::take_chars(&rendered, LINE_BUDGET).to_string());
                cut = true;
                end = n;
            }
            break;
        }
        used += len;
        out.push(rendered);
        end = n;
    }
    let truncated = end < lines.len() || cut || over;
    Ok(json!({"path":c.shown,"sha256":sha,"startLine":start,"endLine":end,"content":out.join("\n"),"truncated":truncated}).to_string())
}

pub(crate) fn precondition(c: &Confined, expected: Option<&str>) -> ToolReturn<Option<Vec<u8>>> {
    let current = match std::fs::symlink_metadata(&c.real) {
        Ok(m) if m.is_file() => {
            if m.len() > MIB {
                return Err("Editable files are limited to 1 MiB".into());
            }
            Some(
                std::fs::read(&c.real)
                    .map_err(|e| ToolError::CannotRead(c.shown.clone(), e.to_string()))?,
            )
        }
        Ok(_) => return Err(ToolError::NotAFile(c.shown.clone())),
        Err(_) => None,
    };
    let ok = match (&current, expected) {
        (None, None) => true,
        (Some(b), Some(h)) => sha256_hex(b) == h,
        _ => false,
    };
    if ok {
        Ok(current)
    } else {
        Err(ToolError::Precondition)
    }
}

/// Writes `content` atomically over `c.real` (temp file, fsync, recheck, rename, fsync dir).
fn atomic_write(c: &Confined, content: &[u8], expected_current: Option<&[u8]>) -> ToolReturn<bool> {
    Ok(atomic_replace(
        &c.real,
        &c.shown,
        content,
        expected_current,
    )?)
}

/// Writes `content` atomically over `real` (temp file, fsync, recheck that the file still
/// holds `expected_current`, rename, fsync dir); `shown` names it in errors. `Ok(true)` when
/// the file was created. Also used by `alisio-ls init`.
pub fn atomic_replace(
    real: &std::path::Path,
    shown: &str,
    content: &[u8],
    expected_current: Option<&[u8]>,
) -> Result<bool, alisio_base::workspace::write::WriteError> {
    alisio_base::workspace::write::replace_bytes(real, shown, content, expected_current, || {
        fault("after_temp_write");
    })
}

pub(crate) fn writable(ctx: &ToolCtx, path: &str) -> ToolReturn<Confined> {
    let c = confine(ctx, path)?;
    ctx.roots.check_writable(&c)?;
    Ok(c)
}

/// `write_file`.
///
/// # Errors
/// The tool's error text.
pub fn write_file(ctx: &ToolCtx, a: &WriteFile) -> ToolReturn {
    let (path, content, expected) = (
        a.path.as_str(),
        a.content.as_str(),
        a.expected_hash.as_deref(),
    );
    let c = writable(ctx, path)?;
    if content.len() as u64 > MIB {
        return Err(ToolError::WriteTooLarge);
    }
    if content.as_bytes().contains(&0) {
        return Err("Binary content; write_file only writes text".into());
    }
    let current = precondition(&c, expected)?;
    let created = atomic_write(&c, content.as_bytes(), current.as_deref())?;
    Ok(json!({"path":c.shown,"sha256":sha256_hex(content.as_bytes()),"bytes":content.len(),"created":created}).to_string())
}

/// `edit_file`.
///
/// # Errors
/// The tool's error text.
pub fn edit_file(ctx: &ToolCtx, a: &EditFile) -> ToolReturn {
    let (path, old, new, expected) = (
        a.path.as_str(),
        a.old_text.as_str(),
        a.new_text.as_str(),
        a.expected_hash.as_str(),
    );
    let c = writable(ctx, path)?;
    if !c.real.exists() {
        return Err(ToolError::FileNotFound(c.shown));
    }
    let current = precondition(&c, Some(expected))?.unwrap_or_default();
    if current.contains(&0) {
        return Err(ToolError::Binary);
    }
    let text = std::str::from_utf8(&current)
        .map_err(|_| ToolError::from("File is not valid UTF-8; edit_file refused"))?;
    let updated = super::preview::apply_edit(text, old, new)?;
    if updated.len() as u64 > MIB {
        return Err(ToolError::WriteTooLarge);
    }
    atomic_write(&c, updated.as_bytes(), Some(&current))?;
    Ok(json!({"path":c.shown,"sha256":sha256_hex(updated.as_bytes())}).to_string())
}

/// The walk shared with `search_text`: sorted, hidden included, `.git` and `node_modules`
/// pruned, symlinked directories never followed.
pub fn walker(dir: &Path) -> ignore::Walk {
    ignore::WalkBuilder::new(dir)
        .hidden(false)
        .follow_links(false)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .ignore(true)
        .parents(true)
        .require_git(true)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && matches!(e.file_name().to_str(), Some(".git" | "node_modules")))
        })
        .build()
}

/// `list_files`.
///
/// # Errors
/// The tool's error text.
pub fn list_files(ctx: &ToolCtx, a: &ListFiles) -> ToolReturn {
    let (path, offset, limit) = (a.path.as_str(), a.offset, a.limit);
    let c = confine(ctx, path)?;
    let meta = std::fs::metadata(&c.real).map_err(|_| ToolError::FileNotFound(c.shown.clone()))?;
    if !meta.is_dir() {
        return Err(ToolError::NotADirectory(c.shown));
    }
    let mut files: Vec<String> = Vec::new();
    let mut seen = 0usize;
    let mut truncated = false;
    for e in walker(&c.real).flatten() {
        if ctx.cancelled() {
            break;
        }
        seen += 1;
        if seen > 100_000 {
            truncated = true;
            break;
        }
        let Some(ft) = e.file_type() else { continue };
        let p = e.path();
        let keep = if ft.is_file() {
            true
        } else if ft.is_symlink() {
            std::fs::canonicalize(p)
                .is_ok_and(|t| t.is_file() && ctx.roots.confine(&t.to_string_lossy()).is_ok())
        } else {
            false
        };
        if keep {
            let shown = p
                .strip_prefix(&c.real)
                .map_or_else(|_| p.to_path_buf(), |r| c.lexical.join(r));
            files.push(ctx.roots.show(&shown));
        }
    }
    files.sort();
    let off = offset.unwrap_or(0) as usize;
    let lim = limit.unwrap_or(100) as usize;
    let page: Vec<&String> = files.iter().skip(off).take(lim).collect();
    let next = (off + lim < files.len()).then_some(off + lim);
    Ok(json!({"path":c.shown,"files":page,"nextOffset":next,"truncated":truncated}).to_string())
}
