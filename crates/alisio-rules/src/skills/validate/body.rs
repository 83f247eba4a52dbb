//! The body rules of a SKILL.md: length (spec/skills.md §2.7) and resource links (spec/skills.md §2.8), with the
//! link finder and the resolution of a link against the skill folder's listings.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::problem::RuleProblem;
use super::{Link, MAX_BODY_LINES, MAX_BODY_TOKENS, Target};
use crate::skills::frontmatter;
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;
use alisio_base::workspace::{DirEntry, FileType, Fs};

/// Body length (spec/skills.md §2.7) and resource links (spec/skills.md §2.8).
pub(super) fn body_checks(
    fs: &dyn Fs,
    file: &Path,
    text: &str,
    body_start: usize,
    problems: &mut Vec<RuleProblem>,
    links: &mut Vec<Link>,
) {
    let body_start = body_start.min(text.len());
    let body_bytes = text.len() - body_start;
    let mut nlines = 0usize;
    let mut cut: Option<usize> = None;
    for l in frontmatter::lines_from(text, body_start) {
        nlines += 1;
        if cut.is_none() && (nlines > MAX_BODY_LINES || l.next - body_start > MAX_BODY_TOKENS * 4) {
            cut = Some(l.start);
        }
    }
    let tokens = body_bytes.div_ceil(4);
    if nlines > MAX_BODY_LINES || tokens > MAX_BODY_TOKENS {
        let start = cut.unwrap_or(body_start);
        problems.push(RuleProblem::new(
            Code::SkillBodyTooLong,
            TextRange::new(start, text.len()),
            format!(
                "body is {nlines} lines and ~{tokens} tokens; keep it under {MAX_BODY_LINES} lines and about {MAX_BODY_TOKENS} tokens (move details to references/)"
            ),
        ));
    }
    let Some(skill_dir) = file.parent() else {
        return;
    };
    let mut listings: Listings = Vec::new();
    // A skill links the same resource many times: each destination is normalised and resolved
    // once (`None`: not a resource link).
    type Resolved = Option<(Option<String>, Target)>;
    let mut seen: HashMap<String, Resolved> = HashMap::new();
    for (dest, range) in body_links(&text[body_start..]) {
        let range = TextRange::new(range.start + body_start, range.end + body_start);
        let resolved = match seen.get(&dest) {
            Some(r) => r.clone(),
            None => {
                let r = resource_rel(&dest).map(|rel| {
                    let target = match rel.as_deref() {
                        None => Target::Outside,
                        Some(r) => resolve_target(fs, skill_dir, r, &mut listings),
                    };
                    (rel, target)
                });
                seen.insert(dest.clone(), r.clone());
                r
            }
        };
        let Some((rel, target)) = resolved else {
            continue;
        };
        match &target {
            Target::Missing => problems.push(RuleProblem::new(
                Code::SkillResourceMissing,
                range,
                format!("link target \"{dest}\" does not exist in the skill folder"),
            )),
            Target::File { .. } => {
                let depth = rel
                    .as_deref()
                    .map_or(0, |r| r.split('/').count().saturating_sub(1));
                if depth >= 2 {
                    problems.push(RuleProblem::new(
                        Code::SkillReferenceDepth,
                        range,
                        format!("\"{dest}\" is {depth} directory levels below the skill; keep references one level deep"),
                    ));
                }
            }
            _ => {}
        }
        links.push(Link {
            destination: dest,
            range,
            relative: rel.unwrap_or_default(),
            target,
        });
    }
}

/// Inline links, images and link reference definitions of a Markdown text, with the byte range
/// of each destination. Code, raw HTML and autolinks are skipped.
#[must_use]
pub fn body_links(body: &str) -> Vec<(String, TextRange)> {
    use pulldown_cmark::{Event, LinkType, Parser, Tag};
    let mut out = Vec::new();
    // Every inline link or image has `](` and every reference definition `]:` (CommonMark
    // allows nothing between the bracket and either): without both, there is nothing to parse.
    if memchr::memmem::find(body.as_bytes(), b"](").is_none()
        && memchr::memmem::find(body.as_bytes(), b"]:").is_none()
    {
        return out;
    }
    let parser = Parser::new(body);
    let mut defs: Vec<(String, TextRange)> = parser
        .reference_definitions()
        .iter()
        .filter_map(|(_, def)| {
            let src = body.get(def.span.clone())?;
            let colon = src.find("]:")? + 2;
            let pos = src[colon..].find(def.dest.as_ref()).map(|p| p + colon)?;
            let s = def.span.start + pos;
            Some((def.dest.to_string(), TextRange::new(s, s + def.dest.len())))
        })
        .collect();
    for (ev, range) in parser.into_offset_iter() {
        let (Event::Start(Tag::Link {
            link_type,
            dest_url,
            ..
        })
        | Event::Start(Tag::Image {
            link_type,
            dest_url,
            ..
        })) = ev
        else {
            continue;
        };
        if !matches!(link_type, LinkType::Inline) {
            continue;
        }
        let Some(src) = body.get(range.clone()) else {
            continue;
        };
        let Some(open) = memchr::memmem::rfind(src.as_bytes(), b"](") else {
            continue;
        };
        let after = open + 2;
        // The destination is the first occurrence of its text after `](`: most often right
        // there, found without building a substring searcher.
        let Some(pos) = first_at_or_after(src, after, dest_url.as_ref()) else {
            continue;
        };
        let s = range.start + pos;
        out.push((dest_url.to_string(), TextRange::new(s, s + dest_url.len())));
    }
    out.append(&mut defs);
    out.sort_by_key(|(_, r)| r.start);
    out.dedup();
    out
}

/// The first position at or after `from` where `needle` occurs in `hay` (as `hay[from..].find`).
fn first_at_or_after(hay: &str, from: usize, needle: &str) -> Option<usize> {
    let rest = hay.get(from..)?;
    if rest.starts_with(needle) {
        return Some(from);
    }
    memchr::memmem::find(rest.as_bytes(), needle.as_bytes()).map(|p| p + from)
}

/// For a link destination: `None` when it is not a resource link (scheme, `#`, `/`, `\`, `~`),
/// `Some(None)` when it leaves the skill directory, else the normalised relative path.
#[must_use]
pub fn resource_rel(dest: &str) -> Option<Option<String>> {
    if dest.is_empty() || dest.starts_with(['#', '/', '\\', '~']) {
        return None;
    }
    let b = dest.as_bytes();
    if b[0].is_ascii_alphabetic() {
        let n = b
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
            .count();
        if b.get(n) == Some(&b':') {
            return None;
        }
    }
    let cut = dest.find(['#', '?']).unwrap_or(dest.len());
    let decoded = alisio_base::text::percent_decode(&dest[..cut]);
    if decoded.is_empty() {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in decoded.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Some(None);
                }
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(Some(parts.join("/")))
}

/// The directories listed while resolving one file's links (a skill has few).
type Listings = Vec<(PathBuf, Option<Vec<DirEntry>>)>;

/// Existence checked component by component against listings, byte-exact.
fn resolve_target(fs: &dyn Fs, skill_dir: &Path, rel: &str, listings: &mut Listings) -> Target {
    let mut cur = skill_dir.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let at = match listings
            .iter()
            .position(|(p, _)| p.as_os_str() == cur.as_os_str())
        {
            Some(at) => at,
            None => {
                listings.push((cur.clone(), fs.read_dir(&cur).ok()));
                listings.len() - 1
            }
        };
        let Some(entries) = listings[at].1.as_ref() else {
            return Target::Missing;
        };
        let Some(entry) = entries
            .iter()
            .find(|e| e.name.as_encoded_bytes() == part.as_bytes())
        else {
            return Target::Missing;
        };
        cur.push(part);
        let ft = if entry.file_type == FileType::Symlink {
            // A link through a symlink that leaves the skill directory is outside, as for
            // `skill_resource` (spec/skills.md §4.4): its target's size, type or listing is never reported.
            // Fail closed: a link that cannot be resolved (dangling, a loop) is outside too,
            // or "missing" against "outside" would tell whether an outside path exists.
            match (fs.canonicalize(&cur), fs.canonicalize(skill_dir)) {
                (Ok(real), Ok(dir)) if real.starts_with(&dir) => {}
                _ => return Target::Outside,
            }
            fs.metadata(&cur).map_or(FileType::Other, |m| m.file_type)
        } else {
            entry.file_type
        };
        let last = i + 1 == parts.len();
        match (ft, last) {
            (FileType::Dir, true) => return Target::Dir(cur),
            (FileType::Dir, false) => {}
            (FileType::File, true) => {
                let bytes = fs.metadata(&cur).map_or(0, |m| m.len);
                return Target::File { path: cur, bytes };
            }
            _ => return Target::Missing,
        }
    }
    Target::Missing
}
