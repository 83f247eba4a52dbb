//! Validation of one `SKILL.md` under a profile (spec/skills.md §2): reading rules, field rules,
//! Unicode decisions, limits, resource links, and the severity table of spec/skills.md §2.9.
//!
//! [`check`] never fails: every input, however broken, yields a [`Checked`] with located
//! diagnostics. Whether host `alisio` can load the file is always judged by the `alisio` rules
//! ([`Checked::load_error`]), whatever profile the diagnostics were reported under.

mod body;
mod claude_values;
mod fields;
mod judged;
mod names;
mod problem;
mod security;
#[cfg(test)]
mod tests;
pub mod tools;

use std::path::{Path, PathBuf};

use body::body_checks;
pub use body::{body_links, resource_rel};
use fields::field_checks;
pub use judged::{Judged, check_one, load};
pub use names::{edit_distance, edit_distance_at_most, is_kebab, is_spec_name};
use problem::RuleProblem;

use super::frontmatter::{self, Found, Frontmatter, FrontmatterBlock};
use alisio_base::config::Profile;
use alisio_base::diagnostic::{Code, Diagnostic, Related, Severity};
use alisio_base::text::{LineIndex, Span, TextRange};
use alisio_base::workspace::Fs;

/// At most this many bytes of a SKILL.md are read for validation.
pub const VALIDATE_LIMIT: u64 = 1_048_576;
/// Host `alisio` loads files of at most this many bytes.
pub const MAX_SKILL_BYTES: u64 = 64_000;
pub const MAX_NAME_CHARS: usize = 64;
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
pub const MAX_BODY_LINES: usize = 500;
pub const MAX_BODY_TOKENS: usize = 5000;

/// Top-level keys allowed by `alisio` and `claude-code` (the spec's six plus Claude Code's).
pub const ALISIO_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "background",
    "hooks",
    "paths",
    "shell",
];
/// The specification's six keys: the first six of [`ALISIO_KEYS`].
pub const SPEC_KEYS: &[&str] = ALISIO_KEYS.split_at(6).0;
pub const CODEX_KEYS: &[&str] = &["name", "description", "metadata"];

/// The allowed top-level keys of a profile (spec/skills.md §2.4).
#[must_use]
pub fn allowed_keys(profile: Profile) -> &'static [&'static str] {
    match profile {
        Profile::Alisio | Profile::ClaudeCode => ALISIO_KEYS,
        Profile::Spec => SPEC_KEYS,
        Profile::Codex => CODEX_KEYS,
    }
}

/// The severity of a code under a profile (spec/skills.md §2.9); `None` means never emitted.
#[must_use]
pub fn severity(code: Code, profile: Profile) -> Option<Severity> {
    use Profile::{Alisio, ClaudeCode, Codex, Spec};
    use Severity::{Error, Hint, Information, Warning};
    Some(match (code, profile) {
        (Code::SkillFrontmatterMissing, ClaudeCode) => Warning,
        (
            Code::SkillFrontmatterMissing
            | Code::SkillFrontmatterUnterminated
            | Code::SkillYamlSyntax
            | Code::SkillDuplicateKey,
            _,
        ) => Error,
        (Code::SkillNameMissing, Alisio | Spec) => Error,
        (Code::SkillNameMissing, _) => return None,
        (Code::SkillNameFormat, Alisio | Spec) => Error,
        (Code::SkillNameFormat, ClaudeCode) => Information,
        (Code::SkillNameFormat, Codex) => return None,
        (
            Code::SkillNameTooLong
            | Code::SkillDescriptionMissing
            | Code::SkillDescriptionTooLong
            | Code::SkillFieldType,
            ClaudeCode,
        ) => Warning,
        // Codex 0.171.0 lists a longer description cut to 1,021 characters and `...`
        // (measured: tests/real/skills.rs `listing_description_lengths_1024_1025_1500`).
        (Code::SkillDescriptionTooLong, Codex) => Warning,
        (
            Code::SkillNameTooLong
            | Code::SkillDescriptionMissing
            | Code::SkillDescriptionTooLong
            | Code::SkillFieldType,
            _,
        ) => Error,
        (Code::SkillNameDirectoryMismatch, Alisio) => Warning,
        (Code::SkillNameDirectoryMismatch, Spec) => Error,
        (Code::SkillNameDirectoryMismatch, ClaudeCode) => Information,
        (Code::SkillNameDirectoryMismatch, Codex) => return None,
        (Code::SkillUnknownKey, Spec) => Error,
        (Code::SkillUnknownKey, _) => Hint,
        (Code::SkillCompatibilityTooLong, Alisio | Spec) => Error,
        (Code::SkillCompatibilityTooLong, _) => return None,
        (Code::SkillFileTooLarge, _) => Error,
        (Code::SkillBodyTooLong | Code::SkillResourceMissing | Code::SkillReferenceDepth, _) => {
            Warning
        }
        (Code::SkillShadowed, Alisio | ClaudeCode) => Information,
        (Code::SkillSymlink, _) => Error,
        (Code::SkillScanLimit, _) => Warning,
        (Code::SkillUntrusted | Code::SkillNotDiscovered | Code::SkillShadowed, _) => Information,
        (
            Code::SkillToolUnknown | Code::SkillValueInvalid | Code::SkillAgentWithoutFork,
            Alisio | ClaudeCode,
        ) => Warning,
        // Description quality (spec/skills.md §11): the same under every profile.
        (
            Code::SkillDescriptionNoWhen
            | Code::SkillDescriptionPerson
            | Code::SkillDescriptionGeneric
            | Code::SkillDescriptionRestatesName,
            _,
        ) => Hint,
        (Code::SkillArgumentsInCode | Code::SkillCommandNotRun, _) => Warning,
        (Code::SkillHookEventUnknown, Alisio | ClaudeCode) => Warning,
        (Code::SkillUploadRejected | Code::SkillCollision, _) => Information,
        (Code::SkillShellUnrestricted, Alisio | ClaudeCode | Spec) => Warning,
        (Code::SkillSideEffectInvocable, Alisio | ClaudeCode) => Hint,
        (Code::SkillSecret, _) => Warning,
        (Code::SkillCompatibilityEmpty | Code::SkillUploadTooLarge, Alisio | Spec) => Warning,
        _ => return None,
    })
}

/// `true` when a problem of this code keeps host `alisio` from loading the skill (spec/skills.md §2.9's last
/// column; `skill-field-type` blocks only on `name` and `description`).
#[must_use]
pub fn blocks_loading(code: Code, key: Option<&str>) -> bool {
    match code {
        Code::SkillFieldType => matches!(key, Some("name" | "description")),
        Code::SkillFrontmatterMissing
        | Code::SkillFrontmatterUnterminated
        | Code::SkillYamlSyntax
        | Code::SkillDuplicateKey
        | Code::SkillNameMissing
        | Code::SkillNameFormat
        | Code::SkillNameTooLong
        | Code::SkillDescriptionMissing
        | Code::SkillDescriptionTooLong
        | Code::SkillFileTooLarge
        | Code::SkillSymlink => true,
        _ => false,
    }
}

/// What a loadable skill declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub name: String,
    pub description: String,
    /// `false` with a valid `disable-model-invocation: true`.
    pub model_invocable: bool,
}

/// Where a body link points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Normalised lexically, it leaves the skill directory.
    Outside,
    Missing,
    File {
        path: PathBuf,
        bytes: u64,
    },
    Dir(PathBuf),
}

/// A resource link of the body (spec/skills.md §2.8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The destination as written.
    pub destination: String,
    /// The destination's bytes in the whole text.
    pub range: TextRange,
    /// The normalised relative path (`/` separators).
    pub relative: String,
    pub target: Target,
}

/// The result of reading and validating one SKILL.md.
#[derive(Clone, Debug)]
pub struct Checked {
    pub file: PathBuf,
    /// The text as judged: BOM removed, invalid UTF-8 replaced. Empty when too large to read.
    pub text: String,
    pub bom: bool,
    /// Size on disk.
    pub size: u64,
    pub profile: Profile,
    /// Diagnostics under `profile` (absolute `file`).
    pub diagnostics: Vec<Diagnostic>,
    /// Frontmatter as read under `profile`, when there is a block.
    pub block: Option<FrontmatterBlock>,
    pub frontmatter: Option<Frontmatter>,
    /// Body links (resource links only).
    pub links: Vec<Link>,
    /// When judged under `alisio`: the message of the first problem that keeps host `alisio` from
    /// loading the file; `None` when it loads.
    pub load_error: Option<String>,
    /// Name, description and invocation mode, when the frontmatter yields them.
    pub meta: Option<Meta>,
    pub body_start: usize,
    /// Where the judged text's landmarks are, as line/column spans: kept when the text is shed.
    pub places: Places,
}

/// The line/column spans of a judged file that outlive its text (a discovery sheds the text; a
/// report and `skill-collision` still point into the file): the first line, the `name` value
/// and the `description` value (else the first line). Computed with the judgement's own line
/// index, so no later pass indexes the text again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Places {
    pub opening: Span,
    pub name: Span,
    pub description: Span,
}

impl Places {
    /// The places of `c`, whose text `idx` indexes.
    fn of(c: &Checked, idx: &LineIndex<'_>) -> Self {
        let opening = idx.line_range(0);
        let description = c
            .frontmatter
            .as_ref()
            .and_then(|f| f.get("description"))
            .map_or(opening, |e| e.value.span);
        Self {
            opening: idx.span(opening),
            name: idx.span(c.name_span().unwrap_or_default()),
            description: idx.span(description),
        }
    }
}

impl Checked {
    #[must_use]
    pub fn body_bytes(&self) -> usize {
        self.text.len().saturating_sub(self.body_start)
    }
    /// The span of the `name` value, when present.
    #[must_use]
    pub fn name_span(&self) -> Option<TextRange> {
        self.frontmatter.as_ref()?.get("name").map(|e| e.value.span)
    }
}

/// Reads a SKILL.md through `fs` (regular file; at most [`VALIDATE_LIMIT`] + 1 bytes) and
/// validates it. A read error becomes a located `skill-yaml-syntax`-free result with the error
/// in `load_error` and no diagnostics (the caller reports I/O problems).
#[must_use]
pub fn check_file(fs: &dyn Fs, file: &Path, profile: Profile) -> Checked {
    check_file_with(fs, file, profile, true)
}

/// [`check_file`], optionally without the body checks (length, links), which never decide
/// whether a skill loads: discovery uses it for the host-`alisio` judgement.
#[must_use]
pub fn check_file_with(fs: &dyn Fs, file: &Path, profile: Profile, body: bool) -> Checked {
    judged::check_one(fs, file, false, profile, body)
}

/// A symlinked SKILL.md: `skill-symlink` at `0:0–0:0`, not read.
#[must_use]
pub fn symlink_result(file: &Path, profile: Profile) -> Checked {
    let idx = LineIndex::new("");
    let message = "SKILL.md is a symbolic link; skills must be regular files, so it is not loaded"
        .to_string();
    let mut out = Checked {
        file: file.to_path_buf(),
        text: String::new(),
        bom: false,
        size: 0,
        profile,
        diagnostics: vec![Diagnostic::new(
            file,
            idx.span(TextRange::empty(0)),
            Severity::Error,
            Code::SkillSymlink,
            message.clone(),
        )],
        block: None,
        frontmatter: None,
        links: Vec::new(),
        load_error: Some(message),
        meta: None,
        body_start: 0,
        places: Places::default(),
    };
    out.places = Places::of(&out, &idx);
    out
}

fn dir_name(file: &Path) -> String {
    file.parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The suffix of the claude-code profile's frontmatter errors.
pub const CLAUDE_SUFFIX: &str =
    "; Claude Code loads this skill with empty metadata, so it is never invoked automatically";

/// Validates `bytes` (the first bytes of the file at `file`, whose size on disk is `size`).
#[must_use]
pub fn check(fs: &dyn Fs, file: &Path, bytes: &[u8], size: u64, profile: Profile) -> Checked {
    check_with(fs, file, bytes, size, profile, true)
}

/// [`check`], with or without the body checks.
#[must_use]
pub fn check_with(
    fs: &dyn Fs,
    file: &Path,
    bytes: &[u8],
    size: u64,
    profile: Profile,
    body: bool,
) -> Checked {
    let depth = if body {
        Depth::Whole
    } else {
        Depth::Frontmatter
    };
    check_to(fs, file, bytes, size, profile, depth)
}

/// How much of a file one judgement looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Depth {
    /// Every rule, the body's too.
    Whole,
    /// Every rule but the body's (length, links, upload size).
    Frontmatter,
    /// Only what decides whether host `alisio` loads the file and what it lists: the block, the
    /// YAML, duplicate keys and the field rules, without the rules that never block loading
    /// (secrets, tools, Claude Code's values, unknown keys) and without diagnostics. A discovery
    /// judges so: it keeps the verdict, the metadata and the places, and sheds the rest (the
    /// report judges the same read again under its profile).
    Loading,
}

/// [`check_with`] to `depth`.
pub(crate) fn check_to(
    fs: &dyn Fs,
    file: &Path,
    bytes: &[u8],
    size: u64,
    profile: Profile,
    depth: Depth,
) -> Checked {
    let body = depth == Depth::Whole;
    let mut out = Checked {
        file: file.to_path_buf(),
        text: String::new(),
        bom: false,
        size,
        profile,
        diagnostics: Vec::new(),
        block: None,
        frontmatter: None,
        links: Vec::new(),
        load_error: None,
        meta: None,
        body_start: 0,
        places: Places::default(),
    };
    let bom = bytes.starts_with(&[0xEF, 0xBB, 0xBF]);
    let raw = if bom { &bytes[3..] } else { bytes };
    out.bom = bom;
    if size > VALIDATE_LIMIT {
        too_large_to_validate(&mut out, raw);
        return out;
    }
    // One UTF-8 validation; the text is copied once and indexed once (issue 14, speed).
    let (text, first_invalid) = match std::str::from_utf8(raw) {
        Ok(s) => (s.to_owned(), None),
        Err(e) => (
            String::from_utf8_lossy(raw).into_owned(),
            Some(e.valid_up_to()),
        ),
    };
    let idx = LineIndex::new(&text);
    let mut problems: Vec<RuleProblem> = Vec::new();
    if profile == Profile::Alisio && size > MAX_SKILL_BYTES {
        problems.push(RuleProblem::new(
            Code::SkillFileTooLarge,
            idx.line_range(0),
            format!("SKILL.md is {size} bytes; the limit is {MAX_SKILL_BYTES} bytes, so it is not loaded"),
        ));
    }
    let has_block = frontmatter_checks(&mut out, &text, &idx, first_invalid, depth, &mut problems);
    if depth != Depth::Loading {
        security::check_secrets(&text, &mut problems);
    }
    if has_block && body {
        security::check_upload_size(fs, file, size, idx.line_range(0), &mut problems);
        body_checks(
            fs,
            file,
            &text,
            out.block.map_or(text.len(), |b| b.body_start),
            &mut problems,
            &mut out.links,
        );
    }
    finish(&mut out, problems, &idx, depth);
    out.places = Places::of(&out, &idx);
    drop(idx);
    out.text = text;
    out
}

/// Adds the description-quality hints (spec/skills.md §11.2) of a file whose frontmatter parsed
/// to its diagnostics. They never decide whether a skill loads: [`check`] leaves them out, and
/// the judgements a report or the editor shows ([`check_file`], [`check_one`]) add them.
pub fn add_hints(c: &mut Checked) {
    let (Some(fm), Some(block)) = (c.frontmatter.as_ref(), c.block) else {
        return;
    };
    if fm.error.is_some() {
        return;
    }
    let found = crate::skills::quality::hints(&c.text, fm, block.body_start, &dir_name(&c.file));
    if found.is_empty() {
        return;
    }
    let idx = LineIndex::new(&c.text);
    for f in found {
        if let Some(sev) = severity(f.code, c.profile) {
            c.diagnostics.push(Diagnostic::new(
                &c.file,
                idx.span(f.range),
                sev,
                f.code,
                f.message,
            ));
        }
    }
    alisio_base::diagnostic::sort(&mut c.diagnostics);
}

/// A file over [`VALIDATE_LIMIT`]: only the first line is decoded, to place the diagnostic.
fn too_large_to_validate(out: &mut Checked, raw: &[u8]) {
    let head = &raw[..raw.len().min(4096)];
    let end = head
        .iter()
        .position(|b| *b == b'\n' || *b == b'\r')
        .unwrap_or(head.len());
    out.text = String::from_utf8_lossy(&head[..end]).into_owned();
    let message = format!("SKILL.md is {} bytes; too large to validate", out.size);
    let problems = vec![RuleProblem::new(
        Code::SkillFileTooLarge,
        TextRange::new(0, out.text.len()),
        message,
    )];
    let text = std::mem::take(&mut out.text);
    finish(out, problems, &LineIndex::new(&text), Depth::Whole);
    // The places of the text kept, which is empty.
    out.places = Places::of(out, &LineIndex::new(&out.text));
}

/// The frontmatter rules: the block (spec/skills.md §2.2), UTF-8, YAML syntax, duplicate keys and the field
/// rules. Fills the block, frontmatter, metadata and body start of `out`; returns whether
/// there is a block (no block: the body is not checked).
fn frontmatter_checks(
    out: &mut Checked,
    text: &str,
    idx: &LineIndex<'_>,
    first_invalid: Option<usize>,
    depth: Depth,
    problems: &mut Vec<RuleProblem>,
) -> bool {
    let profile = out.profile;
    let suffix = |m: String| {
        if profile == Profile::ClaudeCode {
            format!("{m}{CLAUDE_SUFFIX}")
        } else {
            m
        }
    };
    let block = match frontmatter::find_block(text, out.bom, profile) {
        Found::Missing(m) => {
            problems.push(RuleProblem::new(
                Code::SkillFrontmatterMissing,
                idx.line_range(0),
                m.message(),
            ));
            out.body_start = text.len();
            return false;
        }
        Found::Unterminated(open) => {
            problems.push(RuleProblem::new(
                Code::SkillFrontmatterUnterminated,
                open,
                suffix("frontmatter opened here is never closed with a --- line".into()),
            ));
            out.body_start = text.len();
            return false;
        }
        Found::Block(b) => b,
    };
    out.block = Some(block);
    out.body_start = block.body_start;
    let yaml_error_range = |at: usize| {
        let lc = idx.line_col(at);
        let lr = idx.line_range(lc.line as usize);
        let end = if lr.end > at {
            lr.end
        } else {
            alisio_base::text::ceil_boundary(text.as_bytes(), at + 1).min(text.len())
        };
        TextRange::new(at.min(end), end)
    };
    if let Some(bad) = first_invalid.filter(|b| *b < block.close.end) {
        problems.push(RuleProblem::new(
            Code::SkillYamlSyntax,
            yaml_error_range(bad),
            suffix("frontmatter is not valid UTF-8".into()),
        ));
        return true;
    }
    let fm = frontmatter::parse_yaml(text, block.yaml, profile);
    if let Some(e) = &fm.error {
        let range = if e.whole {
            let y = &text[block.yaml.start..block.yaml.end];
            let start = block.yaml.start + (y.len() - y.trim_start().len());
            TextRange::new(start, block.yaml.start + y.trim_end().len())
        } else {
            yaml_error_range(e.at)
        };
        problems.push(RuleProblem::new(
            Code::SkillYamlSyntax,
            range,
            suffix(e.message.clone()),
        ));
        out.frontmatter = Some(fm);
        return true;
    }
    for (key, spans) in fm.duplicates() {
        for (i, s) in spans.iter().enumerate() {
            let related = spans
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, r)| (*r, "also defined here".to_string()))
                .collect();
            problems.push(
                RuleProblem::new(
                    Code::SkillDuplicateKey,
                    *s,
                    suffix(format!("duplicate key \"{key}\"")),
                )
                .with_related(related),
            );
        }
    }
    let loading = depth == Depth::Loading;
    out.meta = field_checks(
        &fm,
        &dir_name(&out.file),
        block.open,
        profile,
        loading,
        problems,
    );
    if loading {
        // The rules below never keep a skill from loading.
        out.frontmatter = Some(fm);
        return true;
    }
    // Values of Claude Code's keys (spec/skills.md §2.10).
    if matches!(profile, Profile::Alisio | Profile::ClaudeCode) {
        tools::check_tools(text, &fm, problems);
        claude_values::check_values(&fm, problems);
        security::check_side_effect(&fm, problems);
    }
    // spec/skills.md §2.11.
    security::check_shell(text, &fm, problems);
    security::check_compatibility(&fm, problems);
    out.frontmatter = Some(fm);
    true
}

/// Rules of the specification's text that the reference validator (skills-ref) does not enforce:
/// under the `spec` profile they are warnings, so the verdict (valid / invalid) is skills-ref's
/// (docs/skills.md, "Deliberate disagreements"): nested `metadata` values (skills-ref
/// stringifies them) and an `allowed-tools` that is not a string (skills-ref never checks it).
fn spec_only_rule(code: Code, key: Option<&str>, profile: Profile) -> bool {
    profile == Profile::Spec
        && code == Code::SkillFieldType
        && matches!(key, Some("metadata.values" | "allowed-tools"))
}

/// Turns `problems` into the diagnostics of `out` (none to [`Depth::Loading`]); `idx` indexes the
/// judged text.
fn finish(out: &mut Checked, problems: Vec<RuleProblem>, idx: &LineIndex<'_>, depth: Depth) {
    if out.profile == Profile::Alisio {
        out.load_error = problems
            .iter()
            .find(|p| blocks_loading(p.code, p.key))
            .map(|p| p.message.clone());
        if out.load_error.is_some() {
            out.meta = None;
        }
    }
    if depth == Depth::Loading {
        return;
    }
    for p in problems {
        let Some(sev) = severity(p.code, out.profile) else {
            continue;
        };
        let sev = if spec_only_rule(p.code, p.key, out.profile) {
            Severity::Warning
        } else {
            sev
        };
        let mut d = Diagnostic::new(&out.file, idx.span(p.range), sev, p.code, p.message);
        for (r, m) in p.related {
            d = d.with_related(Related {
                file: out.file.clone(),
                span: idx.span(r),
                message: m,
            });
        }
        out.diagnostics.push(d);
    }
    alisio_base::diagnostic::sort(&mut out.diagnostics);
}
