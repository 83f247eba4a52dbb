//! Validity per host (spec/skills.md §12): one answer per SKILL.md and host (loads, loads with
//! warnings, skipped silently, skipped with a log line, rejected) with the reason and the kind
//! of evidence behind the host's rule. Plain data over the per-profile judgements of
//! `validate` and the quality rules; `skills validate --matrix` prints it and the editor's
//! hover on a SKILL.md shows it.

use std::path::Path;

use crate::skills::frontmatter;
use crate::skills::quality;
use crate::skills::validate::{self, Checked};
use alisio_base::config::Profile;
use alisio_base::diagnostic::{Code, Severity};
use alisio_base::workspace::{FileType, Fs};

/// The columns, in order.
pub const HOSTS: &[&str] = &[
    "alisio",
    "claude-code",
    "codex",
    "copilot-vscode",
    "copilot-cli",
    "gemini",
    "cursor",
    "spec",
    "upload",
];

/// Claude.ai and the Claude API refuse an upload larger than this (all files, uncompressed).
pub const UPLOAD_MAX_BYTES: u64 = 30 * 1024 * 1024;

/// What a host does with the skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Loads,
    LoadsWithWarnings,
    SkippedSilently,
    SkippedWithLog,
    Rejected,
}

impl Verdict {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Loads => "loads",
            Self::LoadsWithWarnings => "loads with warnings",
            Self::SkippedSilently => "skipped silently",
            Self::SkippedWithLog => "skipped with a log line",
            Self::Rejected => "rejected",
        }
    }
    /// `true` when the host lists the skill for its model.
    #[must_use]
    pub const fn loads(self) -> bool {
        matches!(self, Self::Loads | Self::LoadsWithWarnings)
    }
}

/// What the host's rule rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// Run with the real client offline (tests compare the cell with it).
    Measured,
    /// Read in the host's source (the installed client's code, or its repository).
    Source,
    /// The host's documentation or its issue tracker; not verified here.
    Docs,
}

impl Evidence {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Measured => "measured",
            Self::Source => "source",
            Self::Docs => "docs",
        }
    }
}

/// One cell of the matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub host: &'static str,
    pub verdict: Verdict,
    /// Why, when the verdict is not a plain `loads`.
    pub reason: Option<String>,
    pub evidence: Evidence,
}

impl Cell {
    fn new(
        host: &'static str,
        evidence: Evidence,
        verdict: Verdict,
        reason: Option<String>,
    ) -> Self {
        Self {
            host,
            verdict,
            reason,
            evidence,
        }
    }
    /// `loads`, or `<verdict>: <reason>`.
    #[must_use]
    pub fn text(&self) -> String {
        match &self.reason {
            Some(r) => format!("{}: {r}", self.verdict.as_str()),
            None => self.verdict.as_str().to_string(),
        }
    }
}

/// The hover text of a row (Markdown): one line per host.
#[must_use]
pub fn hover(cells: &[Cell]) -> String {
    let mut s = String::from(
        "**Per host** (spec/skills.md §12)\n\n| host | answer | evidence |\n|---|---|---|\n",
    );
    for c in cells {
        s.push_str(&format!(
            "| {} | {} | {} |\n",
            c.host,
            c.text().replace('|', "\\|"),
            c.evidence.as_str()
        ));
    }
    s
}

/// The first message of a judgement at `min` severity or worse (errors before warnings).
fn first(c: &Checked, min: Severity) -> Option<String> {
    let rank = |s: Severity| match s {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Information => 2,
        Severity::Hint => 3,
    };
    c.diagnostics
        .iter()
        .filter(|d| rank(d.severity) <= rank(min) && !is_hint_code(d.code))
        .min_by_key(|d| rank(d.severity))
        .map(|d| d.message.clone())
}

/// The description-quality and listing codes say nothing about loading.
fn is_hint_code(c: Code) -> bool {
    matches!(
        c,
        Code::SkillCollision
            | Code::SkillDescriptionNoWhen
            | Code::SkillDescriptionPerson
            | Code::SkillDescriptionGeneric
            | Code::SkillDescriptionRestatesName
            | Code::SkillArgumentsInCode
            | Code::SkillCommandNotRun
            | Code::SkillUploadRejected
            | Code::SkillBodyTooLong
            | Code::SkillResourceMissing
            | Code::SkillReferenceDepth
    )
}

/// A judgement's verdict: errors give `on_error`, warnings `loads with warnings`.
fn by_profile(host: &'static str, ev: Evidence, c: &Checked, on_error: Verdict) -> Cell {
    if let Some(e) = first(c, Severity::Error) {
        return Cell::new(host, ev, on_error, Some(e));
    }
    match first(c, Severity::Warning) {
        Some(w) => Cell::new(host, ev, Verdict::LoadsWithWarnings, Some(w)),
        None => Cell::new(host, ev, Verdict::Loads, None),
    }
}

/// Where the skill's symbolic links are: the `SKILL.md` itself, or its directory.
fn link_of(fs: &dyn Fs, file: &Path) -> Option<&'static str> {
    let is_link = |p: &Path| {
        fs.symlink_metadata(p)
            .is_ok_and(|m| m.file_type == FileType::Symlink)
    };
    if is_link(file) {
        Some(LINKED_FILE)
    } else if file.parent().is_some_and(is_link) {
        Some("the skill directory is a symbolic link")
    } else {
        None
    }
}

/// The matrix row of one SKILL.md (read through symbolic links).
#[must_use]
pub fn row(fs: &dyn Fs, file: &Path) -> Vec<Cell> {
    // Only a regular file (through links) is read: never a FIFO, a device or a directory.
    if !fs
        .metadata(file)
        .is_ok_and(|m| m.file_type == FileType::File)
    {
        return HOSTS
            .iter()
            .map(|h| {
                Cell::new(
                    h,
                    Evidence::Source,
                    Verdict::SkippedSilently,
                    Some("SKILL.md is not a regular file".into()),
                )
            })
            .collect();
    }
    let judge = |p: Profile| validate::check_file(fs, file, p);
    let (alisio, claude, codex, spec) = (
        judge(Profile::Alisio),
        judge(Profile::ClaudeCode),
        judge(Profile::Codex),
        judge(Profile::Spec),
    );
    let link = link_of(fs, file);
    let alisio_cell = match (link, &alisio.load_error) {
        (Some(l), _) => Cell::new(
            "alisio",
            Evidence::Source,
            Verdict::SkippedWithLog,
            Some(format!(
                "{l}; host alisio does not follow symbolic links (skill-symlink)"
            )),
        ),
        (None, Some(e)) => Cell::new(
            "alisio",
            Evidence::Source,
            Verdict::Rejected,
            Some(e.clone()),
        ),
        (None, None) => by_profile("alisio", Evidence::Source, &alisio, Verdict::Rejected),
    };
    // Claude Code 2.1.332 lists every variant the tests lay out, a YAML error included, with
    // the description it could read (spec/skills.md §12.2): its problems are warnings.
    let claude_cell = match by_profile(
        "claude-code",
        Evidence::Measured,
        &claude,
        Verdict::Rejected,
    ) {
        Cell {
            verdict: Verdict::Rejected | Verdict::LoadsWithWarnings,
            reason,
            ..
        } => Cell::new(
            "claude-code",
            Evidence::Measured,
            Verdict::LoadsWithWarnings,
            reason.map(|r| r.replace(validate::CLAUDE_SUFFIX, "")),
        ),
        c => c,
    };
    let codex_cell = codex_cell(link, &codex);
    let spec_cell = by_profile("spec", Evidence::Measured, &spec, Verdict::Rejected);
    let required = required_fields(&alisio);
    let copilot = |host: &'static str, skipped: Verdict| match &required {
        Some(r) => Cell::new(host, Evidence::Docs, skipped, Some(r.clone())),
        None => Cell::new(host, Evidence::Docs, Verdict::Loads, None),
    };
    vec![
        alisio_cell,
        claude_cell,
        codex_cell,
        copilot_vscode(
            file,
            &alisio,
            copilot("copilot-vscode", Verdict::SkippedSilently),
        ),
        copilot("copilot-cli", Verdict::SkippedWithLog),
        gemini(&alisio.text_raw()),
        copilot("cursor", Verdict::SkippedSilently),
        spec_cell,
        upload(fs, file, &alisio),
    ]
}

/// Copilot in VS Code from its source (spec/skills.md §12.1; the files and commits of §9.4,
/// `listing/copilot.rs`): `computeSkillDiscoveryInfo` skips a skill without a `name`, one whose
/// name (tags removed, cut to 64) is not its folder's, and one without a `description`, each
/// with an error in VS Code's log; a description with XML tags or over 1,024 UTF-16 units is
/// listed cleaned and cut, with a warning there. Where its YAML reader decides (a YAML error, a
/// duplicate key), with a byte order mark or a file too large to judge, the documented rule
/// `docs` stays.
fn copilot_vscode(file: &Path, alisio: &Checked, docs: Cell) -> Cell {
    use super::listing::copilot;
    let host = "copilot-vscode";
    let undecided = alisio.bom
        || (alisio.text.is_empty() && alisio.size > 0)
        || copilot::header_error(&alisio.text)
        || alisio
            .diagnostics
            .iter()
            .any(|d| matches!(d.code, Code::SkillYamlSyntax | Code::SkillDuplicateKey));
    if undecided {
        return docs;
    }
    let logged =
        |why: String| Cell::new(host, Evidence::Source, Verdict::SkippedWithLog, Some(why));
    let (name, description, _) = copilot::header_fields(&alisio.text);
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        return logged("VS Code's log: Agent skill file missing name attribute".into());
    };
    let name = copilot::cut_utf16(&copilot::strip_tags(&name), copilot::MAX_NAME_CHARS);
    let folder = file
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name != folder {
        return logged(format!(
            "VS Code's log: Agent skill name \"{name}\" does not match folder name \"{folder}\""
        ));
    }
    let Some(description) = description.filter(|d| !d.is_empty()) else {
        return logged("VS Code's log: Agent skill file missing description attribute".into());
    };
    let clean = copilot::strip_tags(&description);
    let n = copilot::utf16_len(&clean);
    let warning = if n > copilot::MAX_DESC_CHARS {
        Some(format!(
            "VS Code lists the description cut from {n} to {} UTF-16 units",
            copilot::MAX_DESC_CHARS
        ))
    } else if clean != description {
        Some("VS Code lists the description with its XML tags removed".to_string())
    } else {
        None
    };
    match warning {
        Some(w) => Cell::new(host, Evidence::Source, Verdict::LoadsWithWarnings, Some(w)),
        None => Cell::new(host, Evidence::Source, Verdict::Loads, None),
    }
}

/// Codex 0.171 (measured, spec/skills.md §12.1): an error of the `codex` profile is logged
/// (`failed to load skill <path>: <reason>`) and the skill skipped, except an unquoted `: ` in
/// a value, which it reads anyway; a symlinked `SKILL.md` is skipped without a word (a
/// symlinked directory is followed).
fn codex_cell(link: Option<&str>, codex: &Checked) -> Cell {
    let host = "codex";
    if link == Some(LINKED_FILE) {
        return Cell::new(
            host,
            Evidence::Measured,
            Verdict::SkippedSilently,
            Some(
                "Codex does not read a symlinked SKILL.md (it follows a symlinked directory)"
                    .into(),
            ),
        );
    }
    let errors: Vec<&str> = codex
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error && !is_hint_code(d.code))
        .map(|d| d.message.as_str())
        .collect();
    if !errors.is_empty() && errors.iter().all(|m| m.contains(COLON_IN_VALUE)) {
        return Cell::new(
            host,
            Evidence::Measured,
            Verdict::LoadsWithWarnings,
            Some(format!("{}; Codex reads the value anyway", errors[0])),
        );
    }
    by_profile(host, Evidence::Measured, codex, Verdict::SkippedWithLog)
}

/// The YAML error of an unquoted `: ` inside a plain value.
const COLON_IN_VALUE: &str = "mapping values are not allowed";
const LINKED_FILE: &str = "SKILL.md is a symbolic link";

/// The fields the Agent Skills specification requires, as hosts without a validator of their
/// own read them (`None`: present and well-formed).
fn required_fields(c: &Checked) -> Option<String> {
    // What keeps host `alisio` from loading the skill, but for its size and a link: the fields
    // the specification requires (`skill-field-type` names its key first).
    c.diagnostics
        .iter()
        .find(|d| {
            let key = ["name", "description"]
                .into_iter()
                .find(|k| d.message.starts_with(&format!("\"{k}\"")));
            validate::blocks_loading(d.code, key)
                && !matches!(d.code, Code::SkillFileTooLarge | Code::SkillSymlink)
        })
        .map(|d| d.message.clone())
}

/// Gemini CLI 0.61 (`packages/core/src/skills/skillLoader.ts` in its bundle): the file must
/// match `^---\r?\n([\s\S]*?)\r?\n---` (no BOM); the block is read as YAML, and when that
/// fails or yields no string `name` and `description`, line by line (`name:` and
/// `description:` lines, continuation lines indented); neither gives both → skipped (a debug
/// log only).
#[must_use]
pub fn gemini(text: &str) -> Cell {
    let host = "gemini";
    let skipped = |why: &str| {
        Cell::new(
            host,
            Evidence::Measured,
            Verdict::SkippedSilently,
            Some(why.to_string()),
        )
    };
    let Some(block) = gemini_block(text) else {
        return skipped(
            "no frontmatter block Gemini recognises (the file must start with a --- line, no byte order mark, and a later line must start with ---)",
        );
    };
    let fm = frontmatter::parse_yaml(
        block,
        alisio_base::text::TextRange::new(0, block.len()),
        Profile::Alisio,
    );
    let string = |k: &str| {
        fm.get(k)
            .filter(|_| fm.error.is_none() && fm.duplicates().is_empty())
            .and_then(|e| e.value.as_str().map(str::to_string))
    };
    if string("name").is_some() && string("description").is_some() {
        return Cell::new(host, Evidence::Measured, Verdict::Loads, None);
    }
    let line = |k: &str| {
        block.lines().any(|l| {
            l.trim_start()
                .strip_prefix(k)
                .is_some_and(|r| r.starts_with(':'))
        })
    };
    if line("name") && line("description") {
        return Cell::new(
            host,
            Evidence::Measured,
            Verdict::LoadsWithWarnings,
            Some(
                "its YAML reader fails, so Gemini reads the name and description lines as text"
                    .into(),
            ),
        );
    }
    skipped("no name or no description")
}

/// The YAML text of Gemini's frontmatter pattern, when it matches.
fn gemini_block(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))?;
    let start = text.len() - rest.len();
    // The lazy group ends at the first `\n---` (a `\r` before it is not part of the group).
    let at = rest.find("\n---")?;
    let end = if at > 0 && rest.as_bytes()[at - 1] == b'\r' {
        at - 1
    } else {
        at
    };
    Some(&text[start..start + end])
}

/// Claude.ai and the Claude API (Anthropic's Agent Skills overview, field requirements; the
/// size from the Skills API): a name and a description within limits, no XML tags, no reserved
/// word in the name, the whole skill directory under [`UPLOAD_MAX_BYTES`].
fn upload(fs: &dyn Fs, file: &Path, alisio: &Checked) -> Cell {
    let host = "upload";
    let rejected = |why: String| Cell::new(host, Evidence::Docs, Verdict::Rejected, Some(why));
    if let Some(r) = required_fields(alisio) {
        return rejected(r);
    }
    if let (Some(fm), Some(block)) = (&alisio.frontmatter, alisio.block) {
        let dir = file
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(f) = quality::hints(&alisio.text, fm, block.body_start, &dir)
            .into_iter()
            .find(|f| f.code == Code::SkillUploadRejected)
        {
            return rejected(f.message);
        }
    }
    if let Some(dir) = file.parent() {
        let size = dir_size(fs, dir, UPLOAD_MAX_BYTES);
        if size > UPLOAD_MAX_BYTES {
            return rejected(format!(
                "the skill's files add up to more than {} MB; an upload must be under {} MB",
                UPLOAD_MAX_BYTES / (1024 * 1024),
                UPLOAD_MAX_BYTES / (1024 * 1024)
            ));
        }
    }
    Cell::new(host, Evidence::Docs, Verdict::Loads, None)
}

/// The bytes of the regular files below `dir` (links not followed), stopping once past `cap`
/// or after 10,000 entries.
fn dir_size(fs: &dyn Fs, dir: &Path, cap: u64) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs.read_dir(&d) else {
            continue;
        };
        for e in entries {
            seen += 1;
            if seen > 10_000 || total > cap {
                return total;
            }
            let p = d.join(&e.name);
            match e.file_type {
                FileType::Dir => stack.push(p),
                FileType::File => total += fs.metadata(&p).map_or(0, |m| m.len),
                _ => {}
            }
        }
    }
    total
}

impl Checked {
    /// The judged text with the byte order mark put back (Gemini reads it).
    #[must_use]
    pub fn text_raw(&self) -> String {
        if self.bom {
            format!("\u{feff}{}", self.text)
        } else {
            self.text.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> (Verdict, Option<String>) {
        let c = gemini(text);
        (c.verdict, c.reason)
    }

    #[test]
    fn gemini_reads_its_pattern_then_yaml_then_lines() {
        assert_eq!(
            v("---\nname: a\ndescription: b\n---\nBody\n").0,
            Verdict::Loads
        );
        assert_eq!(
            v("---\r\nname: a\r\ndescription: b\r\n---\r\n").0,
            Verdict::Loads
        );
        // A byte order mark, blank lines before ---, no block: skipped silently.
        for t in [
            "\u{feff}---\nname: a\ndescription: b\n---\n",
            "\n---\nname: a\ndescription: b\n---\n",
            "# Title\n",
            "---\nname: a\ndescription: b\n",
        ] {
            assert_eq!(v(t).0, Verdict::SkippedSilently, "{t:?}");
        }
        // YAML fails (a colon in a plain value, a duplicate key): the line reader takes over.
        assert_eq!(
            v("---\nname: a\ndescription: Use when: x\n---\n").0,
            Verdict::LoadsWithWarnings
        );
        assert_eq!(
            v("---\nname: a\nname: a\ndescription: b\n---\n").0,
            Verdict::LoadsWithWarnings
        );
        // No description at all: skipped.
        assert_eq!(
            v("---\nname: a\n---\nBody\n"),
            (
                Verdict::SkippedSilently,
                Some("no name or no description".into())
            )
        );
    }
}
