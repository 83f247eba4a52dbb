//! Editor features of a SKILL.md as plain data (spec/skills.md §6): quick fixes as byte-range text
//! edits, completion items, hover texts, code lens titles and definitions. The language server
//! only converts these values to LSP types.

use std::path::PathBuf;

use super::catalog::Discovery;
pub use super::fixes::{
    DESCRIPTION_PLACEHOLDER, QuickFix, TextEdit, apply, kebab, quick_fixes, rename_directory,
};
use super::fixes::{line_of, valid_name_for};
use super::frontmatter;
use super::validate::{self, Checked, Target};
use alisio_base::config::Profile;
use alisio_base::text::{LineIndex, TextRange};

/// Relative paths of the files of a skill directory up to one level deep, in byte order (link
/// completions, spec/skills.md §6.3).
#[must_use]
pub fn skill_files(fs: &dyn alisio_base::workspace::Fs, dir: &std::path::Path) -> Vec<String> {
    use alisio_base::workspace::FileType;
    let mut out = Vec::new();
    for e in fs.read_dir(dir).unwrap_or_default() {
        let name = e.name.to_string_lossy().into_owned();
        match e.file_type {
            FileType::File if name != "SKILL.md" => out.push(name),
            FileType::Dir if !name.starts_with('.') => {
                for f in fs.read_dir(&dir.join(&e.name)).unwrap_or_default() {
                    if f.file_type == FileType::File {
                        out.push(format!("{name}/{}", f.name.to_string_lossy()));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Hover on the `name` value (spec/skills.md §6.4): the lens status line and, when shadowed, the winner's file.
#[must_use]
pub fn name_hover(
    d: &Discovery,
    file: &std::path::Path,
    trusted: bool,
    not_loaded: Option<String>,
    show: &dyn Fn(&std::path::Path) -> String,
) -> String {
    let mut s = lenses(d, file, trusted, not_loaded).swap_remove(0).title;
    if let Some(w) = d
        .entries
        .iter()
        .find(|e| e.file == file)
        .and_then(|e| e.winner)
        .and_then(|w| d.entries.get(w))
    {
        s.push_str(&format!("\n\nThe copy that is used: {}", show(&w.file)));
    }
    s
}

/// The documentation of a frontmatter key (spec/skills.md §6.4).
#[must_use]
pub fn key_doc(key: &str) -> Option<&'static str> {
    Some(match key {
        "name" => {
            "Required by the spec and alisio. 1–64 lowercase letters, digits and single hyphens; must equal the directory name under the spec profile. Codex and Claude Code use the directory name when it is absent."
        }
        "description" => {
            "Required. 1–1024 characters saying what the skill does and when to use it; it is the only text a model sees before loading the skill."
        }
        "license" => "A license name or the name of a bundled license file.",
        "compatibility" => {
            "Up to 500 characters of environment requirements (product, system packages, network)."
        }
        "metadata" => {
            "A map of string keys to string values for anything else (version, author, tags). Codex reads `metadata.short-description`."
        }
        "allowed-tools" => {
            "Space-separated tools the skill may use without asking (experimental in the spec; alisio and Claude Code also accept a list). alisio does not enforce it."
        }
        "disable-model-invocation" => {
            "`true`: only the user can invoke the skill; it is not listed for the model (honoured by alisio)."
        }
        "user-invocable" => {
            "`false`: the skill has no `/name` command (Claude Code); alisio ignores it."
        }
        "when_to_use" => {
            "Extra trigger text Claude Code shows with the description; alisio ignores it."
        }
        "context" => {
            "`fork` runs the skill in a separate context (Claude Code); alisio ignores it."
        }
        k if validate::ALISIO_KEYS.contains(&k) => "Claude Code key; alisio ignores it.",
        _ => return None,
    })
}

/// Hover on a key: its documentation and the profiles that allow it.
#[must_use]
pub fn key_hover(key: &str) -> Option<String> {
    let doc = key_doc(key)?;
    let profiles: Vec<&str> = [
        Profile::Alisio,
        Profile::Spec,
        Profile::Codex,
        Profile::ClaudeCode,
    ]
    .into_iter()
    .filter(|p| validate::allowed_keys(*p).contains(&key))
    .map(Profile::as_str)
    .collect();
    Some(format!("{doc}\n\nAllowed by: {}", profiles.join(", ")))
}

/// Hover on a link destination (spec/skills.md §6.4).
#[must_use]
pub fn link_hover(link: &validate::Link) -> String {
    match &link.target {
        Target::File { bytes, .. } => format!(
            "{}: {bytes} bytes (~{} tokens)",
            link.relative,
            bytes.div_ceil(4)
        ),
        Target::Dir(_) => format!("{}: directory", link.relative),
        Target::Missing => "missing".into(),
        Target::Outside => "outside the skill directory: skill_resource refuses it".into(),
    }
}

/// A completion item as plain data (spec/skills.md §6.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    /// `Property` or `Value`, or `File`.
    pub kind: &'static str,
    pub detail: String,
    pub documentation: Option<String>,
    pub insert_text: String,
    pub snippet: bool,
}

const BOOL_KEYS: &[&str] = &["disable-model-invocation", "user-invocable", "background"];

fn detail_of(key: &str) -> &'static str {
    match key {
        "name" | "description" => "required · string",
        "metadata" | "hooks" => "mapping",
        "allowed-tools" | "disallowed-tools" | "paths" => "string or list",
        k if BOOL_KEYS.contains(&k) => "boolean",
        _ => "string",
    }
}

/// Completions at byte `offset` of a checked SKILL.md; `files` lists the skill directory's
/// files up to one level deep (relative paths) for links.
#[must_use]
pub fn completions(c: &Checked, offset: usize, files: &[String]) -> Vec<Completion> {
    let text = c.text.as_str();
    let offset = alisio_base::text::floor_boundary(text.as_bytes(), offset.min(text.len()));
    let (ls, le, _) = line_of(text, offset);
    let before = &text[ls..offset.min(le).max(ls)];
    let Some(block) = c.block else {
        return Vec::new();
    };
    if offset >= block.yaml.start && offset <= block.close.start {
        if !before.contains(':') && !before.starts_with([' ', '\t']) {
            let present: Vec<&str> = c
                .frontmatter
                .as_ref()
                .map(|f| f.entries.iter().map(|e| e.key.as_str()).collect())
                .unwrap_or_default();
            return validate::allowed_keys(c.profile)
                .iter()
                .filter(|k| !present.contains(k))
                .map(|k| {
                    let (insert, snippet) = match *k {
                        "metadata" => ("metadata:\n  ${1:key}: ${2:value}".to_string(), true),
                        b if BOOL_KEYS.contains(&b) => (format!("{b}: ${{1|true,false|}}"), true),
                        other => (format!("{other}: "), false),
                    };
                    Completion {
                        label: (*k).to_string(),
                        kind: "Property",
                        detail: detail_of(k).into(),
                        documentation: key_doc(k).map(str::to_string),
                        insert_text: insert,
                        snippet,
                    }
                })
                .collect();
        }
        let key = before.split(':').next().unwrap_or("").trim();
        let value = |v: &str| Completion {
            label: v.into(),
            kind: "Value",
            detail: String::new(),
            documentation: None,
            insert_text: v.into(),
            snippet: false,
        };
        if key == "name" {
            let dir = c
                .file
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return if valid_name_for(c.profile, &dir) {
                vec![value(&dir)]
            } else {
                Vec::new()
            };
        }
        if BOOL_KEYS.contains(&key) {
            return vec![value("true"), value("false")];
        }
        if key == "context" {
            return vec![value("fork")];
        }
        return Vec::new();
    }
    if offset >= block.body_start && before.ends_with("](") {
        return files
            .iter()
            .map(|f| Completion {
                label: f.clone(),
                kind: "File",
                detail: String::new(),
                documentation: None,
                insert_text: f.clone(),
                snippet: false,
            })
            .collect();
    }
    Vec::new()
}

/// A code lens as plain data (spec/skills.md §6.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lens {
    pub title: String,
    /// `(command, [id])`; `None` for a lens without a command.
    pub command: Option<(&'static str, String)>,
}

/// The lenses of the SKILL.md `file` as seen from its owner-vantage discovery `d`.
/// `not_loaded` is the reason when the file is not an entry (see [`not_loaded_reason`]).
#[must_use]
pub fn lenses(
    d: &Discovery,
    file: &std::path::Path,
    trusted: bool,
    not_loaded: Option<String>,
) -> Vec<Lens> {
    let Some(e) = d.entries.iter().find(|e| e.file == file) else {
        return vec![Lens {
            title: not_loaded.unwrap_or_else(|| "not in a skill root".into()),
            command: None,
        }];
    };
    let (status, catalog) = match (&e.shadowed_by, e.enabled, e.model_invocable) {
        (Some(w), _, _) => (format!("shadowed by {w}"), "not in catalog".to_string()),
        (None, false, _) => ("disabled".into(), "not in catalog".into()),
        (None, true, false) => ("user-only".into(), "not in catalog".into()),
        (None, true, true) => (
            "effective".into(),
            format!("~{} tokens in catalog", e.catalog_tokens),
        ),
    };
    let mut out = vec![Lens {
        title: format!(
            "{} · {status} · {catalog} · body ~{} tokens",
            e.scope.as_str(),
            e.body_tokens
        ),
        command: Some(("alisio.showSkill", e.id.clone())),
    }];
    if e.effective && !e.locked && trusted {
        out.push(Lens {
            title: if e.enabled {
                "Disable".into()
            } else {
                "Enable".into()
            },
            command: Some(("alisio.toggleSkill", e.id.clone())),
        });
    }
    out
}

/// `not loaded: <first alisio problem>` for a discovered file that is not an entry.
#[must_use]
pub fn not_loaded_reason(alisio: &Checked) -> Option<String> {
    alisio
        .load_error
        .as_ref()
        .map(|m| format!("not loaded: {m}"))
}

/// Definition at `offset` of `c` (spec/skills.md §6.6): from a link to its file; from the `name` of a shadowed
/// skill to the winner's `name` value. Returns the target file and byte range.
#[must_use]
pub fn definition(c: &Checked, d: &Discovery, offset: usize) -> Option<(PathBuf, TextRange)> {
    for l in &c.links {
        if l.range.start <= offset && offset <= l.range.end {
            return match &l.target {
                Target::File { path, .. } => Some((path.clone(), TextRange::empty(0))),
                _ => None,
            };
        }
    }
    let name = c.frontmatter.as_ref()?.get("name")?;
    let on_name = (name.key_span.start <= offset && offset <= name.key_span.end)
        || (name.value.span.start <= offset && offset <= name.value.span.end);
    if !on_name {
        return None;
    }
    let e = d.entries.iter().find(|e| e.file == c.file)?;
    let w = d.entries.get(e.winner?)?;
    Some((w.file.clone(), w.name_span))
}

/// Heading symbols of the body and the frontmatter keys, for `documentSymbol`: (name, range,
/// level) with level 0 for keys.
#[must_use]
pub fn symbols(c: &Checked) -> Vec<(String, TextRange, usize)> {
    let mut out: Vec<(String, TextRange, usize)> = c
        .frontmatter
        .as_ref()
        .map(|f| {
            f.entries
                .iter()
                .map(|e| (e.key.clone(), e.key_span, 0))
                .collect()
        })
        .unwrap_or_default();
    let text = c.text.as_str();
    let mut fence = false;
    for l in frontmatter::lines_from(text, c.body_start.min(text.len())) {
        let s = &text[l.start..l.end];
        if s.trim_start().starts_with("```") || s.trim_start().starts_with("~~~") {
            fence = !fence;
        }
        if fence {
            continue;
        }
        let level = s.bytes().take_while(|b| *b == b'#').count();
        if (1..=6).contains(&level) && s[level..].starts_with(' ') {
            out.push((
                s[level..].trim().to_string(),
                TextRange::new(l.start, l.end),
                level,
            ));
        }
    }
    out
}

/// Line/column helper for tests and adapters.
#[must_use]
pub fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let lc = LineIndex::new(text).line_col(offset);
    (lc.line, lc.utf16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::fixes::test_util::chk;
    use alisio_base::workspace::DiskFs;
    use std::path::Path;

    #[test]
    fn key_completions_exclude_present_keys_per_profile() {
        let t = "---\nname: x\n\n---\n";
        let c = chk("x", t, Profile::Alisio);
        let items = completions(&c, 12, &[]);
        let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
        let expected: Vec<&str> = validate::ALISIO_KEYS
            .iter()
            .copied()
            .filter(|k| *k != "name")
            .collect();
        assert_eq!(labels, expected);
        let meta = items.iter().find(|i| i.label == "metadata").unwrap();
        assert_eq!(meta.insert_text, "metadata:\n  ${1:key}: ${2:value}");
        assert_eq!(
            items
                .iter()
                .find(|i| i.label == "description")
                .unwrap()
                .detail,
            "required · string"
        );
        let c = chk("x", t, Profile::Spec);
        let labels: Vec<String> = completions(&c, 12, &[])
            .into_iter()
            .map(|i| i.label)
            .collect();
        assert_eq!(
            labels,
            [
                "description",
                "license",
                "compatibility",
                "metadata",
                "allowed-tools"
            ]
        );
        let c = chk("x", "---\nname: x\ncontext: \n---\n", Profile::Alisio);
        assert_eq!(
            completions(&c, 21, &[])
                .iter()
                .map(|i| i.label.as_str())
                .collect::<Vec<_>>(),
            ["fork"]
        );
    }

    #[test]
    fn rename_directory_is_offered_only_for_a_free_valid_name() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("pdf")).unwrap();
        let text = "---\nname: pdf-tools\ndescription: d\n---\n";
        let c = validate::check(
            &DiskFs,
            &root.join("pdf/SKILL.md"),
            text.as_bytes(),
            text.len() as u64,
            Profile::Alisio,
        );
        let (title, from, to) = rename_directory(&DiskFs, &c).unwrap();
        assert_eq!(
            (title.as_str(), from, to.clone()),
            (
                "Rename directory to \"pdf-tools\"",
                root.join("pdf"),
                root.join("pdf-tools")
            )
        );
        std::fs::create_dir(&to).unwrap();
        assert_eq!(rename_directory(&DiskFs, &c), None);
        std::fs::write(root.join("pdf/a.md"), "a").unwrap();
        std::fs::create_dir_all(root.join("pdf/references/deep")).unwrap();
        std::fs::write(root.join("pdf/references/b.md"), "b").unwrap();
        std::fs::write(root.join("pdf/SKILL.md"), text).unwrap();
        assert_eq!(
            skill_files(&DiskFs, &root.join("pdf")),
            ["a.md", "references/b.md"]
        );
        let c = validate::check(
            &DiskFs,
            &root.join("pdf/SKILL.md"),
            b"---\nname: x\n---\nSee [a](",
            24,
            Profile::Alisio,
        );
        let items = completions(&c, 24, &skill_files(&DiskFs, &root.join("pdf")));
        assert_eq!(
            items.iter().map(|i| i.label.as_str()).collect::<Vec<_>>(),
            ["a.md", "references/b.md"]
        );
    }

    #[test]
    fn editor_functions_never_panic_on_mutated_inputs() {
        let base = "---\nname: Bad--Name\ndescription: Use when: x\nsource: web\nmetadata:\n  a: 1\n---\n# T\n[a](b.md)\n";
        let mut rng = alisio_base::testing::Rng(42);
        let mut next = move || rng.below(usize::MAX);
        let alphabet = "-:#é\r\n \t\"'[](){}|>".as_bytes();
        for _ in 0..500 {
            let mut b = base.as_bytes().to_vec();
            for _ in 0..(1 + next() % 3) {
                let at = next() % (b.len() + 1);
                if next() % 2 == 0 {
                    b.insert(at, alphabet[next() % alphabet.len()])
                } else if at < b.len() {
                    b.remove(at);
                }
            }
            let c = validate::check(
                &DiskFs,
                Path::new("/nonexistent-root/x/SKILL.md"),
                &b,
                b.len() as u64,
                Profile::Alisio,
            );
            let t = c.text.as_str();
            let in_text = |r: TextRange| {
                r.start <= r.end
                    && r.end <= t.len()
                    && t.is_char_boundary(r.start)
                    && t.is_char_boundary(r.end)
            };
            for d in &c.diagnostics {
                for f in quick_fixes(&c, d) {
                    // Every edit lands inside the text, on char boundaries, without overlaps,
                    // so `apply` performs all of them.
                    let mut ranges: Vec<TextRange> = f.edits.iter().map(|e| e.range).collect();
                    ranges.sort();
                    assert!(ranges.iter().all(|r| in_text(*r)), "{f:?} in {t:?}");
                    assert!(ranges.windows(2).all(|w| w[0].end <= w[1].start), "{f:?}");
                    let len: isize = f
                        .edits
                        .iter()
                        .map(|e| e.new_text.len() as isize - (e.range.end - e.range.start) as isize)
                        .sum();
                    assert_eq!(
                        apply(t, &f.edits).len() as isize,
                        t.len() as isize + len,
                        "{f:?}"
                    );
                }
            }
            for off in (0..=t.len() + 2).step_by(3) {
                for item in completions(&c, off, &[]) {
                    assert!(!item.label.is_empty(), "{item:?} at {off} in {t:?}");
                }
            }
            for (name, range, _) in symbols(&c) {
                assert!(in_text(range), "{name} {range:?} in {t:?}");
            }
        }
    }

    #[test]
    fn hover_texts() {
        assert!(
            key_hover("allowed-tools")
                .unwrap()
                .ends_with("Allowed by: alisio, spec, claude-code")
        );
        assert_eq!(
            key_doc("model"),
            Some("Claude Code key; alisio ignores it.")
        );
        let l = validate::Link {
            destination: "a.md".into(),
            range: TextRange::default(),
            relative: "a.md".into(),
            target: Target::File {
                path: "/a.md".into(),
                bytes: 10,
            },
        };
        assert_eq!(link_hover(&l), "a.md: 10 bytes (~3 tokens)");
    }
}
