//! Copilot Chat's skill listing in VS Code (spec/skills.md §9.4): the `<skills>` block of the
//! instruction index, simulated from the source because neither VS Code nor the Copilot Chat
//! extension runs offline here. Read in:
//! - `microsoft/vscode`, `src/vs/workbench/contrib/chat/common/promptSyntax/computeAutomaticInstructions.ts`
//!   (`_getInstructionsWithPatternsList`; the version of commit
//!   `824cc1adf23c7fe39e603f93e5a89396ac703cea`, as stored for the mirror `PKRoma/vscode`): the
//!   block is written only when the read-file tool is enabled; `<skills>`, three fixed lines,
//!   then per skill `<skill>`, `<name>`, `<description>` (when set), `<file>` (the file-system
//!   path), `</skill>`, one per line, then `</skills>`; skills with
//!   `disable-model-invocation` left out; no budget and no cut;
//! - the same tree's `service/promptsServiceImpl.ts` (commit
//!   `b476330f2ee1c6f0f95fd9451f66c5a0751bbe0b`, `computeSkillDiscoveryInfo`,
//!   `truncateAgentSkillName`, `truncateAgentSkillDescription`): workspace skills before
//!   personal ones (a stable sort over the locations' order); a skill without a `name`, whose
//!   name differs from its folder's, whose name was already taken, or without a `description`
//!   is skipped; XML tags (`<[^>]+>`) are removed from both, the name cut to 64 and the
//!   description to 1,024 UTF-16 units (`substring`, no ellipsis);
//! - `config/promptFileLocations.ts` (`microsoft/vscode` commit
//!   `0783120be12fa4dd908032c290f8fa00070deff9`, `DEFAULT_SKILL_SOURCE_FOLDERS`): `.github/skills`,
//!   `.agents/skills`, `.claude/skills` of the workspace, then `~/.copilot/skills`,
//!   `~/.agents/skills`, `~/.claude/skills`; `utils/promptFilesLocator.ts`
//!   (`findAgentSkillsInFolder`): every child directory of a location with a `SKILL.md`;
//! - `promptFileParser.ts` (`PKRoma/vscode` commit `f6bee6402e0ee28b1fbad7b55a2a7f42dbf1ea21`):
//!   the header runs from a first line `---` (trailing whitespace allowed) to the next such line
//!   or the end of the file; `name` and `description` are any scalar's text;
//!   `disable-model-invocation` counts when it is the scalar `true`;
//! - `microsoft/vscode-copilot-chat` 0.42.0 (commit `31acd00a86424e2ee6e980e54919cf31fbf88030`),
//!   `src/extension/prompt/vscode-node/promptVariablesService.ts` (`resolveToolReferencesInPrompt`)
//!   and `src/extension/tools/common/toolNames.ts`: the `#tool:` reference in the third line
//!   reaches the model as `'read_file'`.
//!
//! The alphabetical cut users report (microsoft/vscode#314804) is not in that source and is not
//! reproduced. Inside one location the client lists in the order the file system returns
//! (`fileService.resolve`, not sorted); the simulation uses [`Fs::read_dir_unsorted`], which is
//! that order on disk.

use std::path::{Path, PathBuf};

use super::{Fate, Item, Listing, Unit};
use crate::skills::frontmatter::{ScalarKind, Value as Y, parse_yaml};
use alisio_base::config::Profile;
use alisio_base::text::TextRange;
use alisio_base::workspace::{Env, FileType, Fs};

/// `MAX_DESCRIPTION_LENGTH` of `truncateAgentSkillDescription`, in UTF-16 units.
pub const MAX_DESC_CHARS: usize = 1024;
/// `MAX_NAME_LENGTH` of `truncateAgentSkillName`, in UTF-16 units.
pub const MAX_NAME_CHARS: usize = 64;

/// The block's opening lines as the model reads them (the tool reference resolved).
pub const HEAD: [&str; 4] = [
    "<skills>",
    "Here is a list of skills that contain domain specific knowledge on a variety of topics.",
    "Each skill comes with a description of the topic and a file path that contains the detailed instructions.",
    "When a user asks you to perform a task that falls within the domain of a skill, use the 'read_file' tool to acquire the full instructions from the file URI.",
];
/// The block's closing line.
pub const TAIL: &str = "</skills>";

/// The workspace locations, then the personal ones (`DEFAULT_SKILL_SOURCE_FOLDERS`).
pub const WORKSPACE_ROOTS: [&str; 3] = [".github/skills", ".agents/skills", ".claude/skills"];
pub const PERSONAL_ROOTS: [&str; 3] = [".copilot/skills", ".agents/skills", ".claude/skills"];

/// One skill as Copilot lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopilotSkill {
    pub name: String,
    /// Tags removed, cut to [`MAX_DESC_CHARS`].
    pub description: String,
    /// The description's length in UTF-16 units before the cut (tags removed).
    pub full_len: u64,
    pub file: PathBuf,
}

/// `sanitizeAgentSkillText`: `text.replace(/<[^>]+>/g, '')`.
pub(crate) fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('>') {
            // `[^>]+`: at least one character between the brackets.
            Some(j) if j > 0 => rest = &after[j + 1..],
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `s.substring(0, n)` in UTF-16 units; a surrogate pair the cut would split is left out
/// whole (JavaScript keeps its first half, which Rust strings cannot hold).
pub(crate) fn cut_utf16(s: &str, n: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for c in s.chars() {
        used += c.len_utf16();
        if used > n {
            break;
        }
        out.push(c);
    }
    out
}

pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The header as `PromptFileParser.parse` finds it: from a first line `---` (then only
/// whitespace) to the next such line, or to the end of the file.
fn header(text: &str) -> Option<TextRange> {
    let is_marker = |l: &str| l.strip_prefix("---").is_some_and(|r| r.trim().is_empty());
    let first_end = text.find('\n').map_or(text.len(), |i| i + 1);
    if !is_marker(&text[..first_end]) {
        return None;
    }
    let mut at = first_end;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        if is_marker(&text[at..end]) {
            return Some(TextRange {
                start: first_end,
                end: at,
            });
        }
        at = end;
    }
    Some(TextRange {
        start: first_end,
        end: text.len(),
    })
}

/// `name`, `description` and whether `disable-model-invocation` is `true`, as the header
/// getters read them (any scalar's text; a YAML error keeps what was read before it).
#[must_use]
pub fn header_fields(text: &str) -> (Option<String>, Option<String>, bool) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(range) = header(text) else {
        return (None, None, false);
    };
    let fm = parse_yaml(text, range, Profile::Alisio);
    let scalar = |k: &str| match fm.get(k).map(|e| &e.value.value) {
        Some(Y::Scalar { text, kind, .. }) if *kind != ScalarKind::Null => Some(text.clone()),
        _ => None,
    };
    let disabled = scalar("disable-model-invocation").is_some_and(|v| v == "true");
    (scalar("name"), scalar("description"), disabled)
}

/// Whether our YAML reader finds an error in the header (VS Code's own reader,
/// `base/common/yaml.ts`, is not simulated: what it keeps of a broken header is unknown here).
#[must_use]
pub fn header_error(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    header(text).is_some_and(|r| parse_yaml(text, r, Profile::Alisio).error.is_some())
}

/// The SKILL.md files of one location: each child directory's (links followed), in the order
/// the file system lists them.
fn location(fs: &dyn Fs, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs.read_dir_unsorted(dir).unwrap_or_default() {
        let child = dir.join(&e.name);
        if !fs
            .metadata(&child)
            .is_ok_and(|m| m.file_type == FileType::Dir)
        {
            continue;
        }
        let f = child.join("SKILL.md");
        if fs.metadata(&f).is_ok_and(|m| m.file_type == FileType::File) {
            out.push(f);
        }
    }
    out
}

/// The skills Copilot lists for the workspace `root`, in listing order (model-invocable only).
#[must_use]
pub fn discover(fs: &dyn Fs, root: &Path, env: &Env) -> Vec<CopilotSkill> {
    let mut files = Vec::new();
    for r in WORKSPACE_ROOTS {
        files.extend(location(fs, &root.join(r)));
    }
    if let Some(h) = &env.home {
        for r in PERSONAL_ROOTS {
            files.extend(location(fs, &h.join(r)));
        }
    }
    let mut out: Vec<CopilotSkill> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for f in files {
        let Ok(bytes) = fs.read(&f) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        let (name, description, disabled) = header_fields(&text);
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            continue;
        };
        let name = cut_utf16(&strip_tags(&name), MAX_NAME_CHARS);
        let folder = f
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name != folder || seen.contains(&name) {
            continue;
        }
        let Some(description) = description.filter(|d| !d.is_empty()) else {
            continue;
        };
        seen.push(name.clone());
        if disabled {
            continue;
        }
        let clean = strip_tags(&description);
        out.push(CopilotSkill {
            name,
            full_len: utf16_len(&clean) as u64,
            description: cut_utf16(&clean, MAX_DESC_CHARS),
            file: f,
        });
    }
    out
}

/// The `<skill>` element of one skill, as sent (its lines joined by line breaks).
#[must_use]
pub fn entry(name: &str, description: &str, file: &str) -> String {
    let d = if description.is_empty() {
        String::new()
    } else {
        format!("<description>{description}</description>\n")
    };
    format!("<skill>\n<name>{name}</name>\n{d}<file>{file}</file>\n</skill>")
}

/// The listing of `skills`: every one, no budget; the block's frame in `preamble`/`postamble`
/// (none when nothing is listed, or when the read-file tool is off: the block is not written).
#[must_use]
pub fn listing(skills: &[CopilotSkill], read_file_tool: bool) -> Listing {
    let skills = if read_file_tool { skills } else { &[] };
    let items: Vec<Item> = skills
        .iter()
        .map(|s| {
            let full = entry(&s.name, &s.description, &s.file.to_string_lossy());
            let cost = full.chars().count() as u64 + 1;
            let listed = utf16_len(&s.description) as u64;
            Item {
                name: s.name.clone(),
                file: Some(s.file.clone()),
                builtin: false,
                fixed: true,
                name_only: full.clone(),
                description: s.description.clone(),
                full_cost: cost,
                name_cost: cost,
                fate: if s.full_len > listed {
                    Fate::Shortened {
                        from: s.full_len,
                        to: listed,
                    }
                } else {
                    Fate::Full
                },
                full,
            }
        })
        .collect();
    let framed = !items.is_empty();
    let frame: u64 = if framed {
        HEAD.iter()
            .map(|l| l.chars().count() as u64 + 1)
            .sum::<u64>()
            + TAIL.len() as u64
            + 1
    } else {
        0
    };
    let total = items.iter().map(|i| i.full_cost).sum::<u64>() + frame;
    Listing {
        preamble: if framed {
            HEAD.iter().map(|l| (*l).to_string()).collect()
        } else {
            Vec::new()
        },
        postamble: if framed {
            vec![TAIL.to_string()]
        } else {
            Vec::new()
        },
        unit: Unit::Characters,
        budget: f64::INFINITY,
        budget_source: if read_file_tool {
            "no budget: Copilot (VS Code) lists every skill; descriptions cut to 1024 UTF-16 units"
                .to_string()
        } else {
            "hosts.copilot.readFileTool is off: Copilot writes no <skills> block".to_string()
        },
        total_full: total,
        total,
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::workspace::DiskFs;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn tags_go_and_cuts_count_utf16_units() {
        // As `"a <b>x</b> < c <> d".replace(/<[^>]+>/g, '')` gives (node 20).
        assert_eq!(strip_tags("a <b>x</b> < c <> d"), "a x  d");
        assert_eq!(strip_tags("a<>b"), "a<>b");
        assert_eq!(strip_tags("x <unclosed"), "x <unclosed");
        assert_eq!(cut_utf16("ab😀c", 3), "ab");
        assert_eq!(cut_utf16("ab😀c", 4), "ab😀");
        assert_eq!(utf16_len("ab😀c"), 5);
    }

    #[test]
    fn the_header_as_the_prompt_file_parser_reads_it() {
        assert_eq!(
            header_fields("---  \nname: 12\ndescription: \"D\"\n---\nbody"),
            (Some("12".into()), Some("D".into()), false)
        );
        // No closing line: the header runs to the end of the file.
        assert_eq!(
            header_fields("---\nname: n\ndescription: d\ndisable-model-invocation: true\n"),
            (Some("n".into()), Some("d".into()), true)
        );
        assert_eq!(header_fields("# no header\n"), (None, None, false));
    }

    /// The block as `computeAutomaticInstructions.ts` writes it, the tool reference resolved by
    /// Copilot Chat, for a workspace and a personal skill; the skipped kinds are left out.
    #[test]
    fn the_skills_block_as_the_source_writes_it() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().join("ws");
        let home = t.path().join("home");
        let long = format!("Use when long. {}", "y".repeat(1100));
        write(
            &ws.join(".github/skills/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Reads <b>PDF</b> files. Use when a PDF is attached.\n---\nBody\n",
        );
        write(
            &ws.join(".claude/skills/long/SKILL.md"),
            &format!("---\nname: long\ndescription: {long}\n---\n"),
        );
        write(
            &ws.join(".agents/skills/other/SKILL.md"),
            "---\nname: not-other\ndescription: Mismatch.\n---\n",
        );
        write(
            &ws.join(".agents/skills/hidden/SKILL.md"),
            "---\nname: hidden\ndescription: Manual only.\ndisable-model-invocation: true\n---\n",
        );
        write(
            &ws.join(".agents/skills/nodesc/SKILL.md"),
            "---\nname: nodesc\n---\n",
        );
        write(
            &home.join(".copilot/skills/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: The personal copy, shadowed.\n---\n",
        );
        write(
            &home.join(".claude/skills/notes/SKILL.md"),
            "---\nname: notes\ndescription: Takes notes.\n---\n",
        );
        let env = Env {
            home: Some(home.clone()),
            ..Env::default()
        };
        let l = listing(&discover(&DiskFs, &ws, &env), true);
        let names: Vec<&str> = l.items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["pdf", "long", "notes"]);
        let pdf = ws.join(".github/skills/pdf/SKILL.md");
        assert_eq!(
            l.items[0].text().unwrap(),
            format!(
                "<skill>\n<name>pdf</name>\n<description>Reads PDF files. Use when a PDF is attached.</description>\n<file>{}</file>\n</skill>",
                pdf.display()
            )
        );
        assert_eq!(
            l.items[1].fate,
            Fate::Shortened {
                from: 1115,
                to: 1024
            }
        );
        assert_eq!(l.items[1].description, long[..1024]);
        assert_eq!(l.preamble, HEAD);
        assert_eq!(l.postamble, [TAIL]);
        assert_eq!(
            l.preamble[3],
            "When a user asks you to perform a task that falls within the domain of a skill, use the 'read_file' tool to acquire the full instructions from the file URI."
        );
        let frame: u64 =
            HEAD.iter().map(|h| h.len() as u64 + 1).sum::<u64>() + "</skills>\n".len() as u64;
        let entries: u64 = l.items.iter().map(|i| i.full.len() as u64 + 1).sum();
        assert_eq!(l.total, frame + entries);
        assert!(!l.budget.is_finite());
        // Without the read-file tool the block is not written.
        let off = listing(&discover(&DiskFs, &ws, &env), false);
        assert!(off.items.is_empty() && off.preamble.is_empty() && off.total == 0);
    }
}
