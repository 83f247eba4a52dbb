//! Validation of one `SKILL.md` under a profile (skills.md §2): reading rules, field rules,
//! Unicode decisions, limits, resource links, and the severity table of §2.9.
//!
//! [`check`] never fails: every input, however broken, yields a [`Checked`] with located
//! diagnostics. Whether host `alisio` can load the file is always judged by the `alisio` rules
//! ([`Checked::load_error`]), whatever profile the diagnostics were reported under.

use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization as _;

use super::frontmatter::{self, Block, Entry, Found, Frontmatter, Node, ScalarKind, Value};
use crate::config::Profile;
use crate::diagnostic::{Code, Diagnostic, Related, Severity};
use crate::text::{LineIndex, TextRange};
use crate::workspace::{FileType, Fs};

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
pub const SPEC_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];
pub const CODEX_KEYS: &[&str] = &["name", "description", "metadata"];

/// The allowed top-level keys of a profile (§2.4).
#[must_use]
pub fn allowed_keys(profile: Profile) -> &'static [&'static str] {
    match profile {
        Profile::Alisio | Profile::ClaudeCode => ALISIO_KEYS,
        Profile::Spec => SPEC_KEYS,
        Profile::Codex => CODEX_KEYS,
    }
}

/// The severity of a code under a profile (§2.9); `None` means never emitted.
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
        _ => return None,
    })
}

/// `true` when a problem of this code keeps host `alisio` from loading the skill (§2.9's last
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

/// A resource link of the body (§2.8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The destination as written.
    pub dest: String,
    /// The destination's bytes in the whole text.
    pub range: TextRange,
    /// The normalised relative path (`/` separators).
    pub rel: String,
    pub target: Target,
}

/// One problem before severities are applied.
#[derive(Clone, Debug)]
struct Problem {
    code: Code,
    range: TextRange,
    message: String,
    related: Vec<(TextRange, String)>,
    key: Option<&'static str>,
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
    pub block: Option<Block>,
    pub frontmatter: Option<Frontmatter>,
    /// Body links (resource links only).
    pub links: Vec<Link>,
    /// When judged under `alisio`: the message of the first problem that keeps host `alisio` from
    /// loading the file; `None` when it loads.
    pub load_error: Option<String>,
    /// Name, description and invocation mode, when the frontmatter yields them.
    pub meta: Option<Meta>,
    pub body_start: usize,
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
    /// The range of the opening line (line 0 when there is none).
    #[must_use]
    pub fn opening_line(&self) -> TextRange {
        let idx = LineIndex::new(&self.text);
        idx.line_range(0)
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
    let size = fs.metadata(file).map(|m| m.len).unwrap_or(0);
    match fs.read_prefix(file, VALIDATE_LIMIT + 1) {
        Ok(bytes) => check_with(
            fs,
            file,
            &bytes,
            size.max(bytes.len() as u64),
            profile,
            body,
        ),
        Err(e) => {
            let mut c = check_with(fs, file, b"", 0, profile, body);
            c.diagnostics.clear();
            c.load_error = Some(format!("cannot read SKILL.md: {e}"));
            c
        }
    }
}

/// A symlinked SKILL.md: `skill-symlink` at `0:0–0:0`, not read.
#[must_use]
pub fn symlink_result(file: &Path, profile: Profile) -> Checked {
    let idx = LineIndex::new("");
    let message = "SKILL.md is a symbolic link; skills must be regular files, so it is not loaded"
        .to_string();
    Checked {
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
    }
}

fn dir_name(file: &Path) -> String {
    file.parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`.
#[must_use]
pub fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The spec profile's name characters (§2.6): letters and numbers of any script (Python
/// `isalnum`) and `-`, equal to its own lowercase, no leading/trailing `-`, no `--`.
#[must_use]
pub fn is_spec_name(normalised: &str) -> bool {
    !normalised.is_empty()
        && normalised.chars().all(|c| c == '-' || c.is_alphanumeric())
        && normalised.to_lowercase() == normalised
        && !normalised.starts_with('-')
        && !normalised.ends_with('-')
        && !normalised.contains("--")
}

/// Optimal string alignment distance (Damerau–Levenshtein with adjacent transpositions).
/// Inputs longer than 256 characters are compared only by length (bounded cost on hostile input).
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 256 || b.len() > 256 {
        return a.len().abs_diff(b.len()).max(usize::from(a != b) * 257);
    }
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

const CLAUDE_SUFFIX: &str =
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
    let mut problems: Vec<Problem> = Vec::new();
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
    };
    let bom = bytes.starts_with(&[0xEF, 0xBB, 0xBF]);
    let raw = if bom { &bytes[3..] } else { bytes };
    if size > VALIDATE_LIMIT {
        // Only the first line is decoded, to place the diagnostic.
        let head = &raw[..raw.len().min(4096)];
        let end = head
            .iter()
            .position(|b| *b == b'\n' || *b == b'\r')
            .unwrap_or(head.len());
        out.text = String::from_utf8_lossy(&head[..end]).into_owned();
        out.bom = bom;
        let message = format!("SKILL.md is {size} bytes; too large to validate");
        problems.push(Problem {
            code: Code::SkillFileTooLarge,
            range: TextRange::new(0, out.text.len()),
            message,
            related: vec![],
            key: None,
        });
        finish(&mut out, problems);
        out.text.clear();
        return out;
    }
    let first_invalid = std::str::from_utf8(raw).err().map(|e| e.valid_up_to());
    out.text = String::from_utf8_lossy(raw).into_owned();
    out.bom = bom;
    let text = out.text.clone();
    let idx = LineIndex::new(&text);
    let line0 = idx.line_range(0);
    if profile == Profile::Alisio && size > MAX_SKILL_BYTES {
        problems.push(Problem {
            code: Code::SkillFileTooLarge,
            range: line0,
            message: format!("SKILL.md is {size} bytes; the limit is {MAX_SKILL_BYTES} bytes, so it is not loaded"),
            related: vec![],
            key: None,
        });
    }
    let claude = profile == Profile::ClaudeCode;
    let suffix = |m: String| {
        if claude {
            format!("{m}{CLAUDE_SUFFIX}")
        } else {
            m
        }
    };
    let block = match frontmatter::find_block(&text, bom, profile) {
        Found::Missing(m) => {
            problems.push(Problem {
                code: Code::SkillFrontmatterMissing,
                range: line0,
                message: m.message(),
                related: vec![],
                key: None,
            });
            out.body_start = text.len();
            finish(&mut out, problems);
            return out;
        }
        Found::Unterminated(open) => {
            problems.push(Problem {
                code: Code::SkillFrontmatterUnterminated,
                range: open,
                message: suffix("frontmatter opened here is never closed with a --- line".into()),
                related: vec![],
                key: None,
            });
            out.body_start = text.len();
            finish(&mut out, problems);
            return out;
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
            crate::text::ceil_boundary(text.as_bytes(), at + 1).min(text.len())
        };
        TextRange::new(at.min(end), end)
    };
    if let Some(bad) = first_invalid.filter(|b| *b < block.close.end) {
        problems.push(Problem {
            code: Code::SkillYamlSyntax,
            range: yaml_error_range(bad),
            message: suffix("frontmatter is not valid UTF-8".into()),
            related: vec![],
            key: None,
        });
        if body {
            body_checks(
                fs,
                file,
                &text,
                &idx,
                block.body_start,
                &mut problems,
                &mut out.links,
            );
        }
        finish(&mut out, problems);
        return out;
    }
    let fm = frontmatter::parse_yaml(&text, block.yaml, profile);
    if let Some(e) = &fm.error {
        let range = if e.whole {
            let y = &text[block.yaml.start..block.yaml.end];
            let start = block.yaml.start + (y.len() - y.trim_start().len());
            TextRange::new(start, block.yaml.start + y.trim_end().len())
        } else {
            yaml_error_range(e.at)
        };
        problems.push(Problem {
            code: Code::SkillYamlSyntax,
            range,
            message: suffix(e.message.clone()),
            related: vec![],
            key: None,
        });
        out.frontmatter = Some(fm);
        if body {
            body_checks(
                fs,
                file,
                &text,
                &idx,
                block.body_start,
                &mut problems,
                &mut out.links,
            );
        }
        finish(&mut out, problems);
        return out;
    }
    for (key, spans) in fm.duplicates() {
        for (i, s) in spans.iter().enumerate() {
            let related = spans
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, r)| (*r, "also defined here".to_string()))
                .collect();
            problems.push(Problem {
                code: Code::SkillDuplicateKey,
                range: *s,
                message: suffix(format!("duplicate key \"{key}\"")),
                related,
                key: None,
            });
        }
    }
    let meta = field_checks(&fm, &dir_name(file), block.open, profile, &mut problems);
    out.meta = meta;
    out.frontmatter = Some(fm);
    if body {
        body_checks(
            fs,
            file,
            &text,
            &idx,
            block.body_start,
            &mut problems,
            &mut out.links,
        );
    }
    finish(&mut out, problems);
    out
}

fn finish(out: &mut Checked, problems: Vec<Problem>) {
    let idx = LineIndex::new(&out.text);
    if out.profile == Profile::Alisio {
        out.load_error = problems
            .iter()
            .find(|p| blocks_loading(p.code, p.key))
            .map(|p| p.message.clone());
        if out.load_error.is_some() {
            out.meta = None;
        }
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
    crate::diagnostic::sort(&mut out.diagnostics);
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

fn is_blank_string(n: &Node) -> bool {
    n.is_null() || n.as_str().is_some_and(|s| s.trim().is_empty())
}

fn field_type(problems: &mut Vec<Problem>, key: &'static str, e: &Entry, message: String) {
    problems.push(Problem {
        code: Code::SkillFieldType,
        range: e.value.span,
        message,
        related: vec![],
        key: Some(key),
    });
}

/// The field rules of §2.5 with the Unicode decisions of §2.6. Returns the metadata when name
/// and description are usable strings.
fn field_checks(
    fm: &Frontmatter,
    dir: &str,
    open: TextRange,
    profile: Profile,
    problems: &mut Vec<Problem>,
) -> Option<Meta> {
    let allowed = allowed_keys(profile);
    let mut reported: Vec<&str> = Vec::new();
    for e in &fm.entries {
        if allowed.contains(&e.key.as_str()) || reported.contains(&e.key.as_str()) {
            continue;
        }
        reported.push(&e.key);
        let mut message = format!("unknown key \"{}\"", e.key);
        message.push_str(match profile {
            Profile::Alisio => "; alisio ignores it (move it under metadata to keep it)",
            Profile::Spec => "; the specification allows only name, description, license, compatibility, metadata and allowed-tools",
            Profile::Codex => "; Codex ignores it",
            Profile::ClaudeCode => "; Claude Code ignores it",
        });
        let best = allowed
            .iter()
            .map(|k| (edit_distance(&e.key, k), *k))
            .filter(|(d, _)| *d <= 2)
            .min_by_key(|(d, _)| *d);
        if let Some((_, k)) = best {
            message.push_str(&format!(" (did you mean \"{k}\"?)"));
        }
        problems.push(Problem {
            code: Code::SkillUnknownKey,
            range: e.key_span,
            message,
            related: vec![],
            key: None,
        });
    }
    let claude = profile == Profile::ClaudeCode;
    // name
    let mut name_ok: Option<String> = None;
    match fm.get("name") {
        None => {
            problems.push(Problem {
                code: Code::SkillNameMissing,
                range: open,
                message: "missing required key \"name\"".into(),
                related: vec![],
                key: None,
            });
        }
        Some(e) if is_blank_string(&e.value) => {
            problems.push(Problem {
                code: Code::SkillNameMissing,
                range: e.value.span,
                message: "name is empty".into(),
                related: vec![],
                key: None,
            });
        }
        Some(e) => match e.value.as_str() {
            None => {
                let hint = e
                    .value
                    .scalar_text()
                    .map(|t| format!("; quote it: name: \"{t}\""))
                    .unwrap_or_default();
                field_type(
                    problems,
                    "name",
                    e,
                    format!(
                        "\"name\" must be a string, found {}{hint}",
                        e.value.describe()
                    ),
                );
            }
            Some(raw) => {
                let name: String = match profile {
                    Profile::Spec => raw.trim().nfkc().collect(),
                    Profile::Codex => collapse_ws(raw),
                    _ => raw.to_string(),
                };
                let n = chars(&name);
                if n > MAX_NAME_CHARS {
                    problems.push(Problem {
                        code: Code::SkillNameTooLong,
                        range: e.value.span,
                        message: format!("name is {n} characters; the limit is {MAX_NAME_CHARS}"),
                        related: vec![],
                        key: None,
                    });
                }
                let format_ok = match profile {
                    Profile::Spec => is_spec_name(&name),
                    Profile::Codex => true,
                    _ => is_kebab(&name),
                };
                if !format_ok {
                    problems.push(Problem {
                        code: Code::SkillNameFormat,
                        range: e.value.span,
                        message: "name must be lowercase letters, digits and single hyphens".into(),
                        related: vec![],
                        key: None,
                    });
                }
                let matches_dir = match profile {
                    Profile::Spec => dir.nfkc().collect::<String>() == name,
                    _ => dir == raw,
                };
                if !matches_dir && profile != Profile::Codex {
                    let message = match profile {
                        Profile::Spec => {
                            format!("name \"{raw}\" must equal the directory name \"{dir}\"")
                        }
                        Profile::ClaudeCode => format!(
                            "Claude Code uses the directory name \"{dir}\" as the command; \"name\" is only a label"
                        ),
                        _ => format!(
                            "name \"{raw}\" differs from the directory name \"{dir}\"; the skill is loaded anyway"
                        ),
                    };
                    problems.push(Problem {
                        code: Code::SkillNameDirectoryMismatch,
                        range: e.value.span,
                        message,
                        related: vec![],
                        key: None,
                    });
                }
                name_ok = Some(raw.to_string());
            }
        },
    }
    // description
    let mut desc_ok: Option<String> = None;
    match fm.get("description") {
        None => {
            let mut message = "missing required key \"description\"".to_string();
            if claude {
                message.push_str("; Claude Code uses the first paragraph of the body instead");
            }
            problems.push(Problem {
                code: Code::SkillDescriptionMissing,
                range: open,
                message,
                related: vec![],
                key: None,
            });
        }
        Some(e) if is_blank_string(&e.value) => {
            problems.push(Problem {
                code: Code::SkillDescriptionMissing,
                range: e.value.span,
                message: "description is empty".into(),
                related: vec![],
                key: None,
            });
        }
        Some(e) => {
            match e.value.as_str() {
                None => field_type(
                    problems,
                    "description",
                    e,
                    format!(
                        "\"description\" must be a string, found {}",
                        e.value.describe()
                    ),
                ),
                Some(raw) => {
                    let n = if profile == Profile::Codex {
                        chars(&collapse_ws(raw))
                    } else {
                        chars(raw)
                    };
                    if n > MAX_DESCRIPTION_CHARS {
                        problems.push(Problem {
                        code: Code::SkillDescriptionTooLong,
                        range: e.value.span,
                        message: format!("description is {n} characters; the limit is {MAX_DESCRIPTION_CHARS}"),
                        related: vec![],
                        key: None,
                    });
                    }
                    desc_ok = Some(raw.to_string());
                }
            }
        }
    }
    let present = |k: &str| {
        fm.get(k).filter(|e| {
            // Null never counts; the empty string does not count for the spec profile.
            !(e.value.is_null() || (profile == Profile::Spec && e.value.as_str() == Some("")))
        })
    };
    if matches!(profile, Profile::Alisio | Profile::Spec) {
        if let Some(e) = present("compatibility") {
            match e.value.as_str() {
                None => field_type(
                    problems,
                    "compatibility",
                    e,
                    format!(
                        "\"compatibility\" must be a string, found {}",
                        e.value.describe()
                    ),
                ),
                Some(s) => {
                    let n = chars(s);
                    if n > MAX_COMPATIBILITY_CHARS {
                        problems.push(Problem {
                            code: Code::SkillCompatibilityTooLong,
                            range: e.value.span,
                            message: format!("compatibility is {n} characters; the limit is {MAX_COMPATIBILITY_CHARS}"),
                            related: vec![],
                            key: None,
                        });
                    }
                }
            }
        }
        if let Some(e) = present("license")
            && e.value.as_str().is_none()
        {
            field_type(
                problems,
                "license",
                e,
                format!("\"license\" must be a string, found {}", e.value.describe()),
            );
        }
    }
    if profile != Profile::ClaudeCode
        && let Some(e) = present("metadata")
    {
        match &e.value.value {
            Value::Map(items) => {
                if profile == Profile::Spec {
                    for (k, v) in items {
                        if matches!(v.value, Value::Seq(_) | Value::Map(_)) {
                            field_type(
                                problems,
                                "metadata.values",
                                e,
                                format!(
                                    "metadata values must be strings; \"{}\" is {}",
                                    k.scalar_text().unwrap_or(""),
                                    v.describe()
                                ),
                            );
                            if let Some(last) = problems.last_mut() {
                                last.range = v.span;
                            }
                        }
                    }
                }
            }
            _ => field_type(
                problems,
                "metadata",
                e,
                format!(
                    "\"metadata\" must be a mapping, found {}",
                    e.value.describe()
                ),
            ),
        }
    }
    if matches!(
        profile,
        Profile::Alisio | Profile::Spec | Profile::ClaudeCode
    ) && let Some(e) = present("allowed-tools")
    {
        let ok = match &e.value.value {
            Value::Scalar {
                kind: ScalarKind::Str,
                ..
            } => true,
            Value::Seq(items) if profile != Profile::Spec => {
                items.iter().all(|i| i.as_str().is_some())
            }
            _ => false,
        };
        if !ok {
            let m = if profile == Profile::Spec {
                "\"allowed-tools\" must be a space-separated string"
            } else {
                "\"allowed-tools\" must be a string or a list of strings"
            };
            field_type(problems, "allowed-tools", e, m.into());
        }
    }
    let mut model_invocable = true;
    if matches!(profile, Profile::Alisio | Profile::ClaudeCode) {
        for key in ["disable-model-invocation", "user-invocable", "background"] {
            let Some(e) = present(key) else { continue };
            let v = match &e.value.value {
                Value::Scalar {
                    kind: ScalarKind::Bool(b),
                    ..
                } => Some(*b),
                Value::Scalar {
                    text,
                    kind: ScalarKind::Str | ScalarKind::Int,
                    ..
                } if claude => match text.as_str() {
                    "yes" | "on" | "1" => Some(true),
                    "no" | "off" | "0" => Some(false),
                    _ => None,
                },
                _ => None,
            };
            match v {
                Some(b) => {
                    if key == "disable-model-invocation" && b {
                        model_invocable = false;
                    }
                }
                None => {
                    let key_static: &'static str = match key {
                        "disable-model-invocation" => "disable-model-invocation",
                        "user-invocable" => "user-invocable",
                        _ => "background",
                    };
                    let found = match e.value.scalar_text() {
                        Some(t) if e.value.as_str().is_some() => format!("\"{t}\""),
                        Some(t) => t.to_string(),
                        None => e.value.describe().to_string(),
                    };
                    field_type(
                        problems,
                        key_static,
                        e,
                        format!("\"{key}\" must be true or false, found {found}"),
                    );
                }
            }
        }
    }
    Some(Meta {
        name: name_ok?,
        description: desc_ok?,
        model_invocable,
    })
}

/// Body length (§2.7) and resource links (§2.8).
fn body_checks(
    fs: &dyn Fs,
    file: &Path,
    text: &str,
    idx: &LineIndex<'_>,
    body_start: usize,
    problems: &mut Vec<Problem>,
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
        problems.push(Problem {
            code: Code::SkillBodyTooLong,
            range: TextRange::new(start, text.len()),
            message: format!(
                "body is {nlines} lines and ~{tokens} tokens; keep it under {MAX_BODY_LINES} lines and about {MAX_BODY_TOKENS} tokens (move details to references/)"
            ),
            related: vec![],
            key: None,
        });
    }
    let _ = idx;
    let Some(skill_dir) = file.parent() else {
        return;
    };
    let mut listings: std::collections::HashMap<PathBuf, Option<Vec<crate::workspace::DirEntry>>> =
        std::collections::HashMap::new();
    for (dest, range) in body_links(&text[body_start..]) {
        let range = TextRange::new(range.start + body_start, range.end + body_start);
        let Some(rel) = resource_rel(&dest) else {
            continue;
        };
        let target = match rel.as_deref() {
            None => Target::Outside,
            Some(r) => resolve_target(fs, skill_dir, r, &mut listings),
        };
        match &target {
            Target::Missing => problems.push(Problem {
                code: Code::SkillResourceMissing,
                range,
                message: format!("link target \"{dest}\" does not exist in the skill folder"),
                related: vec![],
                key: None,
            }),
            Target::File { .. } => {
                let depth = rel
                    .as_deref()
                    .map_or(0, |r| r.split('/').count().saturating_sub(1));
                if depth >= 2 {
                    problems.push(Problem {
                        code: Code::SkillReferenceDepth,
                        range,
                        message: format!("\"{dest}\" is {depth} directory levels below the skill; keep references one level deep"),
                        related: vec![],
                        key: None,
                    });
                }
            }
            _ => {}
        }
        links.push(Link {
            dest,
            range,
            rel: rel.unwrap_or_default(),
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
        let Some(open) = src.rfind("](") else {
            continue;
        };
        let after = open + 2;
        let Some(pos) = src[after..].find(dest_url.as_ref()).map(|p| p + after) else {
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

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| char::from(c).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'%'));
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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
    let decoded = percent_decode(&dest[..cut]);
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

/// Existence checked component by component against listings, byte-exact.
fn resolve_target(
    fs: &dyn Fs,
    skill_dir: &Path,
    rel: &str,
    listings: &mut std::collections::HashMap<PathBuf, Option<Vec<crate::workspace::DirEntry>>>,
) -> Target {
    let mut cur = skill_dir.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let listing = listings
            .entry(cur.clone())
            .or_insert_with(|| fs.read_dir(&cur).ok());
        let Some(entries) = listing.as_ref() else {
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
            // `skill_resource` (§4.4): its target's size, type or listing is never reported.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::DiskFs;

    fn run(dir: &str, text: &str, profile: Profile) -> Checked {
        check(
            &DiskFs,
            &Path::new("/nonexistent-skill-root")
                .join(dir)
                .join("SKILL.md"),
            text.as_bytes(),
            text.len() as u64,
            profile,
        )
    }

    fn codes(c: &Checked) -> Vec<(&'static str, String)> {
        c.diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.message.clone()))
            .collect()
    }

    fn valid(dir: &str) -> String {
        format!("---\nname: {dir}\ndescription: Does {dir}.\n---\nBody\n")
    }

    #[test]
    fn valid_skill_has_no_diagnostic_under_any_profile() {
        for p in [
            Profile::Alisio,
            Profile::Spec,
            Profile::Codex,
            Profile::ClaudeCode,
        ] {
            let c = run("pdf-tools", &valid("pdf-tools"), p);
            assert!(c.diagnostics.is_empty(), "{p:?}: {:?}", c.diagnostics);
        }
        let c = run("pdf-tools", &valid("pdf-tools"), Profile::Alisio);
        assert_eq!(c.load_error, None);
        assert_eq!(c.meta.as_ref().unwrap().name, "pdf-tools");
        assert_eq!(c.body_bytes(), 5);
    }

    #[test]
    fn name_as_number_depends_on_profile() {
        let t = "---\nname: 123\ndescription: d\n---\n";
        let c = run("123", t, Profile::Alisio);
        assert_eq!(
            codes(&c),
            [(
                "skill-field-type",
                "\"name\" must be a string, found a number; quote it: name: \"123\"".to_string()
            )]
        );
        assert!(c.load_error.is_some());
        assert!(run("123", t, Profile::Spec).diagnostics.is_empty());
        let c = run("x", t, Profile::Spec);
        assert_eq!(
            codes(&c),
            [(
                "skill-name-directory-mismatch",
                "name \"123\" must equal the directory name \"x\"".to_string()
            )]
        );
        assert_eq!(c.diagnostics[0].severity, Severity::Error);
    }

    #[test]
    fn unicode_names_per_profile() {
        let t = "---\nname: données\ndescription: d\n---\n";
        let c = run("données", t, Profile::Alisio);
        assert_eq!(
            codes(&c),
            [(
                "skill-name-format",
                "name must be lowercase letters, digits and single hyphens".to_string()
            )]
        );
        assert!(run("données", t, Profile::Spec).diagnostics.is_empty());
        let nfd: String = "données".nfd().collect();
        assert!(run(&nfd, t, Profile::Spec).diagnostics.is_empty());
        assert!(
            run(
                "pdf",
                "---\nname: ｐｄｆ\ndescription: d\n---\n",
                Profile::Spec
            )
            .diagnostics
            .is_empty()
        );
        assert!(
            run(
                "数据处理",
                "---\nname: 数据处理\ndescription: d\n---\n",
                Profile::Spec
            )
            .diagnostics
            .is_empty()
        );
    }

    #[test]
    fn name_format_and_length_are_independent() {
        let n65 = "a".repeat(65);
        let c = run(&n65, &valid(&n65), Profile::Alisio);
        assert_eq!(
            codes(&c),
            [(
                "skill-name-too-long",
                "name is 65 characters; the limit is 64".to_string()
            )]
        );
        for bad in ["Bad--Name", "-lead"] {
            let c = run(bad, &valid(bad), Profile::Alisio);
            assert_eq!(
                codes(&c),
                [(
                    "skill-name-format",
                    "name must be lowercase letters, digits and single hyphens".to_string()
                )]
            );
        }
    }

    #[test]
    fn description_limits_and_empty() {
        let d1024 = "é".repeat(1024);
        assert!(
            run(
                "x",
                &format!("---\nname: x\ndescription: {d1024}\n---\n"),
                Profile::Alisio
            )
            .diagnostics
            .is_empty()
        );
        let c = run(
            "x",
            &format!("---\nname: x\ndescription: {d1024}é\n---\n"),
            Profile::Alisio,
        );
        assert_eq!(
            codes(&c),
            [(
                "skill-description-too-long",
                "description is 1025 characters; the limit is 1024".to_string()
            )]
        );
        let c = run(
            "x",
            "---\nname: x\ndescription: \"\"\n---\n",
            Profile::Alisio,
        );
        assert_eq!(
            codes(&c),
            [(
                "skill-description-missing",
                "description is empty".to_string()
            )]
        );
        let s = c.diagnostics[0].span;
        assert_eq!((s.start.line, s.start.utf16, s.end.utf16), (2, 13, 15));
    }

    #[test]
    fn empty_block_reports_both_missing_keys_on_the_opening_line() {
        let c = run("x", "---\n---\n", Profile::Alisio);
        assert_eq!(
            codes(&c),
            [
                (
                    "skill-name-missing",
                    "missing required key \"name\"".to_string()
                ),
                (
                    "skill-description-missing",
                    "missing required key \"description\"".to_string()
                )
            ]
        );
        for d in &c.diagnostics {
            assert_eq!(
                (
                    d.span.start.line,
                    d.span.start.utf16,
                    d.span.end.line,
                    d.span.end.utf16
                ),
                (0, 0, 0, 3)
            );
        }
    }

    #[test]
    fn unknown_keys_per_profile_with_suggestion() {
        let t = "---\nname: x\ndescription: d\nsource: web\nuser-invokable: true\n---\n";
        let c = run("x", t, Profile::Alisio);
        assert_eq!(codes(&c), [
            ("skill-unknown-key", "unknown key \"source\"; alisio ignores it (move it under metadata to keep it)".to_string()),
            ("skill-unknown-key", "unknown key \"user-invokable\"; alisio ignores it (move it under metadata to keep it) (did you mean \"user-invocable\"?)".to_string()),
        ]);
        assert!(c.diagnostics.iter().all(|d| d.severity == Severity::Hint));
        assert_eq!(c.load_error, None);
        let c = run(
            "x",
            "---\nname: x\ndescription: d\nsource: web\n---\n",
            Profile::Spec,
        );
        assert_eq!(codes(&c), [("skill-unknown-key", "unknown key \"source\"; the specification allows only name, description, license, compatibility, metadata and allowed-tools".to_string())]);
        assert_eq!(c.diagnostics[0].severity, Severity::Error);
    }

    #[test]
    fn allowed_tools_list_is_fine_for_alisio_and_a_type_warning_for_spec() {
        let t = "---\nname: x\ndescription: d\nallowed-tools:\n  - Read\n  - Write\n---\n";
        assert!(run("x", t, Profile::Alisio).diagnostics.is_empty());
        let c = run("x", t, Profile::Spec);
        assert_eq!(
            codes(&c),
            [(
                "skill-field-type",
                "\"allowed-tools\" must be a space-separated string".to_string()
            )]
        );
        // skills-ref accepts it: a warning keeps the spec verdict equal to the reference's.
        assert_eq!(c.diagnostics[0].severity, Severity::Warning);
        let c = run(
            "x",
            "---\nname: x\ndescription: d\nmetadata:\n  a: b\n  tags:\n    - t\n---\n",
            Profile::Spec,
        );
        assert_eq!(
            codes(&c),
            [(
                "skill-field-type",
                "metadata values must be strings; \"tags\" is a list".to_string()
            )]
        );
        assert_eq!(c.diagnostics[0].severity, Severity::Warning);
        let c = run(
            "x",
            "---\nname: x\ndescription: d\nallowed-tools: [Read, Write]\n---\n",
            Profile::Alisio,
        );
        assert!(c.diagnostics.is_empty());
    }

    #[test]
    fn mismatch_is_a_warning_that_still_loads() {
        let c = run("pdf", &valid("pdf-tools"), Profile::Alisio);
        assert_eq!(codes(&c), [("skill-name-directory-mismatch", "name \"pdf-tools\" differs from the directory name \"pdf\"; the skill is loaded anyway".to_string())]);
        assert_eq!(c.diagnostics[0].severity, Severity::Warning);
        assert_eq!(c.load_error, None);
        let c = run("pdf", &valid("pdf-tools"), Profile::ClaudeCode);
        assert_eq!(codes(&c), [("skill-name-directory-mismatch", "Claude Code uses the directory name \"pdf\" as the command; \"name\" is only a label".to_string())]);
    }

    #[test]
    fn crlf_positions() {
        let t = "---\r\nname: x\r\ndescription: d\r\n---\r\n";
        assert!(run("x", t, Profile::Alisio).diagnostics.is_empty());
        let c = run("y", t, Profile::Alisio);
        let s = c.diagnostics[0].span;
        assert_eq!(
            (s.start.line, s.start.utf16, s.end.line, s.end.utf16),
            (1, 6, 1, 7)
        );
    }

    #[test]
    fn documented_decisions_have_exact_messages() {
        let c = run(
            "x",
            "---\nname: x\n...\ndescription: d\n---\n",
            Profile::Alisio,
        );
        assert_eq!(
            codes(&c),
            [(
                "skill-yaml-syntax",
                "invalid YAML: only one YAML document is allowed".to_string()
            )]
        );
        let c = run(
            "x",
            "---\nname: x\ndescription: d\nbackground: sometimes\ndisable-model-invocation: 1\n---\n",
            Profile::Alisio,
        );
        assert_eq!(
            codes(&c),
            [
                (
                    "skill-field-type",
                    "\"background\" must be true or false, found \"sometimes\"".to_string()
                ),
                (
                    "skill-field-type",
                    "\"disable-model-invocation\" must be true or false, found 1".to_string()
                ),
            ]
        );
        assert_eq!(c.load_error, None);
        assert!(c.meta.as_ref().unwrap().model_invocable);
        let c = run(
            "x",
            "---\nname: x\ndescription: d\ndisable-model-invocation: yes\n---\n",
            Profile::ClaudeCode,
        );
        assert!(c.diagnostics.is_empty());
        let c = run(
            "x",
            "---\nname: x\ndescription: d\nlicense:\nmetadata:\ncompatibility:\n---\n",
            Profile::Alisio,
        );
        assert!(c.diagnostics.is_empty());
        let c = run(
            "x",
            "---\nname: x\ndescription: d\nmetadata: 3\n---\n",
            Profile::Alisio,
        );
        assert_eq!(
            codes(&c),
            [(
                "skill-field-type",
                "\"metadata\" must be a mapping, found a number".to_string()
            )]
        );
        assert_eq!(c.load_error, None);
    }

    #[test]
    fn lone_carriage_returns_are_line_breaks() {
        let t = "---\rname: x\rdescription: d\r---\rbody\r";
        assert!(run("x", t, Profile::Alisio).diagnostics.is_empty());
        let c = run("y", t, Profile::Alisio);
        let s = c.diagnostics[0].span;
        assert_eq!(
            (s.start.line, s.start.utf16, s.end.line, s.end.utf16),
            (1, 6, 1, 7)
        );
    }

    #[test]
    fn utf16_and_utf8_columns_of_an_emoji_name() {
        let c = run(
            "x",
            "---\nname: \"😀x\"\ndescription: d\n---\n",
            Profile::Alisio,
        );
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.code == Code::SkillNameFormat)
            .unwrap();
        assert_eq!(
            (d.span.start.line, d.span.start.utf16, d.span.end.utf16),
            (1, 6, 11)
        );
        assert_eq!((d.span.start.utf8, d.span.end.utf8), (6, 13));
    }

    #[test]
    fn bom_is_silent_for_alisio_and_missing_for_spec() {
        let mut b = vec![0xEF, 0xBB, 0xBF];
        b.extend_from_slice(valid("x").as_bytes());
        let f = Path::new("/nonexistent-skill-root/x/SKILL.md");
        assert!(
            check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio)
                .diagnostics
                .is_empty()
        );
        let c = check(&DiskFs, f, &b, b.len() as u64, Profile::Spec);
        assert_eq!(codes(&c), [("skill-frontmatter-missing", "the file starts with a UTF-8 byte order mark, so the first line is not exactly ---".to_string())]);
    }

    #[test]
    fn invalid_utf8_in_frontmatter_is_a_syntax_error_and_in_body_is_silent() {
        let f = Path::new("/nonexistent-skill-root/x/SKILL.md");
        let mut b = b"---\nname: x\ndescription: d\xff\n---\n".to_vec();
        let c = check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio);
        assert_eq!(
            codes(&c),
            [(
                "skill-yaml-syntax",
                "frontmatter is not valid UTF-8".to_string()
            )]
        );
        assert_eq!(c.diagnostics[0].span.start.line, 2);
        b = b"---\nname: x\ndescription: d\n---\nbody \xff\xfe\n".to_vec();
        assert!(
            check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio)
                .diagnostics
                .is_empty()
        );
    }

    #[test]
    fn binary_content_is_a_located_diagnostic() {
        let f = Path::new("/nonexistent-skill-root/x/SKILL.md");
        let b: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        let c = check(&DiskFs, f, &b, b.len() as u64, Profile::Alisio);
        assert_eq!(c.diagnostics.len(), 1);
        assert_eq!(c.diagnostics[0].code, Code::SkillFrontmatterMissing);
    }

    #[test]
    fn body_limits() {
        let body500: String = "x\n".repeat(500);
        assert!(
            run(
                "x",
                &format!("{}{body500}", "---\nname: x\ndescription: d\n---\n"),
                Profile::Alisio
            )
            .diagnostics
            .is_empty()
        );
        let c = run(
            "x",
            &format!("---\nname: x\ndescription: d\n---\n{body500}x\n"),
            Profile::Alisio,
        );
        assert_eq!(codes(&c), [("skill-body-too-long", "body is 501 lines and ~251 tokens; keep it under 500 lines and about 5000 tokens (move details to references/)".to_string())]);
        assert_eq!(c.diagnostics[0].span.start.line, 504);
        assert_eq!(c.diagnostics[0].span.end.line, 505);
    }

    #[test]
    fn link_destinations() {
        let body = "[a](references/missing.md) ![i](img.png \"t\") `[c](code.md)`\n\n[id]: ./x/y.md\n\n<https://x.y>";
        let links = body_links(body);
        let dests: Vec<_> = links
            .iter()
            .map(|(d, r)| (d.as_str(), &body[r.start..r.end]))
            .collect();
        assert_eq!(
            dests,
            [
                ("references/missing.md", "references/missing.md"),
                ("img.png", "img.png"),
                ("./x/y.md", "./x/y.md")
            ]
        );
        assert_eq!(resource_rel("https://x.y"), None);
        assert_eq!(resource_rel("#top"), None);
        assert_eq!(resource_rel("../x.md"), Some(None));
        assert_eq!(
            resource_rel("a/../b%20c.md#frag"),
            Some(Some("b c.md".into()))
        );
        assert_eq!(resource_rel("%é%"), Some(Some("%é%".into())));
    }

    #[test]
    fn mutated_inputs_never_panic_under_any_profile() {
        let base = "---\nname: \"pdf-tools\"\ndescription: |\n  Does é things.\nmetadata:\n  a: &x [1, {b: *x}]\nallowed-tools: Read Write\n---\n# T\n[a](references/%41.md) ![i](x/y/z.png)\n";
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize
        };
        let alphabet = b"-:#&*![]{}|>\"'\r\n \t\\%.\xc3\xa9\xef\xbb\xbf\x00az";
        for _ in 0..2000 {
            let mut b = base.as_bytes().to_vec();
            for _ in 0..(1 + next() % 4) {
                let at = next() % (b.len() + 1);
                match next() % 3 {
                    0 => b.insert(at, alphabet[next() % alphabet.len()]),
                    1 if at < b.len() => {
                        b.remove(at);
                    }
                    _ => b.truncate(at),
                }
            }
            for p in [
                Profile::Alisio,
                Profile::Spec,
                Profile::Codex,
                Profile::ClaudeCode,
            ] {
                let c = check(
                    &DiskFs,
                    Path::new("/nonexistent-skill-root/x/SKILL.md"),
                    &b,
                    b.len() as u64,
                    p,
                );
                for d in &c.diagnostics {
                    assert!(
                        d.span.bytes.start <= d.span.bytes.end && d.span.bytes.end <= c.text.len(),
                        "{d:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn edit_distance_counts_transpositions() {
        assert_eq!(edit_distance("user-invokable", "user-invocable"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
