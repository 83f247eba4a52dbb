//! `check --fix` (spec/rules.md §4): the quick fixes of the language server, chosen by safety and
//! applied to one file's text until none is left. Plain text in, text out; the command line
//! writes the result through the one atomic writer.

use std::path::Path;

use alisio_base::config::Profile;
use alisio_base::diagnostic::{Code, Diagnostic};
use alisio_base::workspace::Fs;

use crate::instructions::fixes as instruction_fixes;
use crate::skills::editor::{QuickFix, apply};
use crate::skills::validate;

/// Fixes applied to one file in one run at most (each one re-checks the file).
pub const MAX_ROUNDS: usize = 16;

/// Whether a quick fix keeps the file's meaning, so `check --fix` applies it without
/// `--unsafe-fixes` (spec/rules.md §4). Unknown titles are unsafe.
#[must_use]
pub fn is_safe(code: Code, fix: &QuickFix) -> bool {
    let t = fix.title.as_str();
    match code {
        Code::SkillFrontmatterMissing => {
            t == "Remove blank lines before ---" || t == "Remove trailing whitespace"
        }
        Code::SkillFrontmatterUnterminated => t == "Close the frontmatter",
        Code::SkillYamlSyntax => t.starts_with("Quote the value of "),
        Code::InstructionsApplyToList => t.starts_with("Write applyTo as "),
        _ => false,
    }
}

/// What one file became: its new text and the titles of the fixes applied, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fixed {
    pub text: String,
    pub applied: Vec<String>,
}

fn pick(code: Code, fixes: Vec<QuickFix>, unsafe_ok: bool) -> Option<QuickFix> {
    fixes.into_iter().find(|f| unsafe_ok || is_safe(code, f))
}

/// What a file's diagnostics become after the suppressions (inline directives in `text`, then
/// the configuration): only those are fixed.
pub type Shown<'a> = &'a dyn Fn(&str, Vec<Diagnostic>) -> Vec<Diagnostic>;

/// The fixes of one SKILL.md (`text` without BOM, valid UTF-8): repeatedly the first allowed fix
/// of the first shown diagnostic that has one, the file re-checked after each, so a fix that
/// uncovers another problem is followed by its fix and a second run changes nothing. `None`
/// when nothing applies.
#[must_use]
pub fn skill(
    fs: &dyn Fs,
    file: &Path,
    text: &str,
    profile: Profile,
    shown: Shown<'_>,
    unsafe_ok: bool,
) -> Option<Fixed> {
    let mut cur = text.to_string();
    let mut applied = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let c = validate::check(fs, file, cur.as_bytes(), cur.len() as u64, profile);
        let next = shown(&c.text, c.diagnostics.clone())
            .iter()
            .find_map(|d| pick(d.code, crate::skills::editor::quick_fixes(&c, d), unsafe_ok));
        let Some(f) = next else { break };
        let new = apply(&c.text, &f.edits);
        if new == cur {
            break;
        }
        cur = new;
        applied.push(f.title);
    }
    (!applied.is_empty()).then_some(Fixed { text: cur, applied })
}

/// The fixes of one instruction file (`text` without BOM) for its shown diagnostics `diags`.
#[must_use]
pub fn instruction(text: &str, diags: &[&Diagnostic], unsafe_ok: bool) -> Option<Fixed> {
    let mut cur = text.to_string();
    let mut applied = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let next = diags.iter().find_map(|d| {
            pick(
                d.code,
                instruction_fixes::quick_fixes(&cur, d.code),
                unsafe_ok,
            )
        });
        let Some(f) = next else { break };
        let new = apply(&cur, &f.edits);
        if new == cur {
            break;
        }
        cur = new;
        applied.push(f.title);
    }
    (!applied.is_empty()).then_some(Fixed { text: cur, applied })
}
