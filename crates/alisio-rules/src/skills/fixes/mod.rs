//! Quick fixes of SKILL.md diagnostics (spec/skills.md §6.2) as byte-range text edits: one file per
//! diagnostic code, each with its tests, dispatched from [`quick_fixes`] (rust-analyzer's
//! `ide-diagnostics/src/handlers/` layout). The language server only converts them to LSP.

mod description_missing;
mod frontmatter_missing;
mod frontmatter_unterminated;
mod name_directory_mismatch;
mod name_format;
mod unknown_key;
mod yaml_syntax;

use unicode_normalization::UnicodeNormalization as _;

pub use name_directory_mismatch::rename_directory;

use super::frontmatter::{self, Found, Frontmatter, FrontmatterEntry};
use super::validate::{self, Checked};
use alisio_base::config::Profile;
use alisio_base::diagnostic::{Code, Diagnostic};
use alisio_base::text::TextRange;

/// Replace `range` (bytes of the buffer without BOM) with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuickFix {
    pub title: String,
    pub edits: Vec<TextEdit>,
}

/// Applies non-overlapping edits.
#[must_use]
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut es: Vec<&TextEdit> = edits.iter().collect();
    es.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut s = text.to_string();
    for e in es {
        if e.range.start <= e.range.end
            && e.range.end <= s.len()
            && s.is_char_boundary(e.range.start)
            && s.is_char_boundary(e.range.end)
        {
            s.replace_range(e.range.start..e.range.end, &e.new_text);
        }
    }
    s
}

/// The kebab-case form of spec/skills.md §6.2: NFKD, combining marks dropped, ASCII-lowercased, runs outside
/// `a-z0-9` become `-`, trimmed, cut to 64.
#[must_use]
pub fn kebab(name: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in name
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
    {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
        } else {
            dash = true;
        }
    }
    let mut cut: String = out.chars().take(validate::MAX_NAME_CHARS).collect();
    while cut.ends_with('-') {
        cut.pop();
    }
    cut
}

pub const DESCRIPTION_PLACEHOLDER: &str = "Describe what this skill does and when to use it.";

pub(super) fn line_of(text: &str, offset: usize) -> (usize, usize, usize) {
    // (line start, content end, next line start)
    let offset = alisio_base::text::floor_boundary(text.as_bytes(), offset.min(text.len()));
    let start = text[..offset.min(text.len())]
        .rfind(['\n', '\r'])
        .map_or(0, |i| i + 1);
    frontmatter::lines_from(text, start)
        .next()
        .map_or((start, text.len(), text.len()), |l| {
            (l.start, l.end, l.next)
        })
}

fn parses(text: &str) -> bool {
    match frontmatter::find_block(text, false, Profile::Alisio) {
        Found::Block(b) => frontmatter::parse_yaml(text, b.yaml, Profile::Alisio)
            .error
            .is_none(),
        _ => false,
    }
}

pub(super) fn valid_name_for(profile: Profile, name: &str) -> bool {
    match profile {
        Profile::Spec => validate::is_spec_name(&name.trim().nfkc().collect::<String>()),
        _ => validate::is_kebab(name) && name.chars().count() <= validate::MAX_NAME_CHARS,
    }
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// What every fix reads: the checked file, the diagnostic, the text, the directory name and
/// the frontmatter with its `name` entry.
struct Cx<'a> {
    checked: &'a Checked,
    diagnostic: &'a Diagnostic,
    text: &'a str,
    dir: String,
    frontmatter: Option<&'a Frontmatter>,
    name_entry: Option<&'a FrontmatterEntry>,
}

/// The quick fixes of spec/skills.md §6.2 for one diagnostic of `c` (the file's checked result).
#[must_use]
pub fn quick_fixes(c: &Checked, d: &Diagnostic) -> Vec<QuickFix> {
    let fm = c.frontmatter.as_ref();
    let cx = Cx {
        checked: c,
        diagnostic: d,
        text: c.text.as_str(),
        dir: c
            .file
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        frontmatter: fm,
        name_entry: fm.and_then(|f| f.get("name")),
    };
    let fixes: fn(&Cx<'_>, &mut Vec<QuickFix>) = match d.code {
        Code::SkillNameFormat => name_format::fixes,
        Code::SkillNameDirectoryMismatch | Code::SkillNameMissing => name_directory_mismatch::fixes,
        Code::SkillYamlSyntax => yaml_syntax::fixes,
        Code::SkillUnknownKey => unknown_key::fixes,
        Code::SkillDescriptionMissing => description_missing::fixes,
        Code::SkillFrontmatterMissing => frontmatter_missing::fixes,
        Code::SkillFrontmatterUnterminated => frontmatter_unterminated::fixes,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    fixes(&cx, &mut out);
    out
}

/// What the fix tests share: a checked file, and the text after one named fix.
#[cfg(test)]
pub(super) mod test_util {
    use std::path::Path;

    use super::{apply, quick_fixes};
    use crate::skills::validate::{self, Checked};
    use alisio_base::config::Profile;
    use alisio_base::diagnostic::Code;
    use alisio_base::workspace::DiskFs;

    pub fn chk(dir: &str, text: &str, profile: Profile) -> Checked {
        validate::check(
            &DiskFs,
            &Path::new("/nonexistent-root").join(dir).join("SKILL.md"),
            text.as_bytes(),
            text.len() as u64,
            profile,
        )
    }

    pub fn fix(c: &Checked, code: Code, title: &str) -> String {
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("no {code}: {:?}", c.diagnostics));
        let fixes = quick_fixes(c, d);
        let f = fixes
            .iter()
            .find(|f| f.title == title)
            .unwrap_or_else(|| panic!("no fix {title}: {fixes:?}"));
        apply(&c.text, &f.edits)
    }
}
