//! One read, two judgements: discovery judges every `SKILL.md` by the `alisio` rules (whether it
//! loads, its name and description) and a report judges the same file under the active profile
//! with the body checks. [`load`] reads the file once and returns both, so a `check` or
//! `skills validate` run neither reads nor parses a skill twice (issue 14, speed).

use std::path::Path;

use super::{Checked, Depth, VALIDATE_LIMIT, check_to, symlink_result};
use alisio_base::config::Profile;
use alisio_base::diagnostic::Diagnostic;
use alisio_base::text::Span;
use alisio_base::workspace::Fs;

/// What a report keeps of a file judged under `profile` once its text is gone: its diagnostics
/// and two spans (the first line, for file-level codes; the `name` value, for `skill-shadowed`).
#[derive(Clone, Debug)]
pub struct Judged {
    pub profile: Profile,
    pub diagnostics: Vec<Diagnostic>,
    pub opening: Span,
    pub name: Span,
}

impl Judged {
    /// The report's view of a full (body-checked) judgement.
    #[must_use]
    pub fn of(c: &Checked) -> Self {
        Self::taking(c, c.diagnostics.clone())
    }

    /// [`Judged::of`], consuming the judgement.
    #[must_use]
    pub fn from_checked(mut c: Checked) -> Self {
        let diagnostics = std::mem::take(&mut c.diagnostics);
        Self::taking(&c, diagnostics)
    }

    fn taking(c: &Checked, diagnostics: Vec<Diagnostic>) -> Self {
        Self {
            profile: c.profile,
            diagnostics,
            opening: c.places.opening,
            name: c.places.name,
        }
    }
}

/// Reads a SKILL.md as [`super::check_file`] does: at most [`VALIDATE_LIMIT`] + 1 bytes, and
/// its size on disk.
fn read(fs: &dyn Fs, file: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    let size = fs.metadata(file).map(|m| m.len).unwrap_or(0);
    let bytes = fs.read_prefix(file, VALIDATE_LIMIT + 1)?;
    let size = size.max(bytes.len() as u64);
    Ok((bytes, size))
}

/// [`super::check_file_with`] over bytes already read (`Err`: the read failed), to `depth`.
fn judge(
    fs: &dyn Fs,
    file: &Path,
    read: &std::io::Result<(Vec<u8>, u64)>,
    profile: Profile,
    depth: Depth,
) -> Checked {
    match read {
        Ok((bytes, size)) => {
            let mut c = check_to(fs, file, bytes, *size, profile, depth);
            if depth == Depth::Whole {
                super::add_hints(&mut c);
            }
            c
        }
        Err(e) => {
            let mut c = check_to(fs, file, b"", 0, profile, depth);
            c.diagnostics.clear();
            c.load_error = Some(format!("cannot read SKILL.md: {e}"));
            c
        }
    }
}

/// [`super::check_file_with`] (`symlink`: [`symlink_result`]), exactly.
#[must_use]
pub fn check_one(fs: &dyn Fs, file: &Path, symlink: bool, profile: Profile, body: bool) -> Checked {
    if symlink {
        return symlink_result(file, profile);
    }
    let depth = if body {
        Depth::Whole
    } else {
        Depth::Frontmatter
    };
    judge(fs, file, &read(fs, file), profile, depth)
}

/// A discovery's judgement of `file` under `profile` without the body checks (they never decide
/// whether a skill loads; under `alisio`, [`Depth::Loading`]: no diagnostics), and, when `report` is given, the report's judgement under that
/// profile with them, from the same read. Equal to [`check_one`] called for each, but that the
/// discovery's judgement under `alisio` has no diagnostics.
#[must_use]
pub fn load(
    fs: &dyn Fs,
    file: &Path,
    symlink: bool,
    profile: Profile,
    report: Option<Profile>,
) -> (Checked, Option<Judged>) {
    if symlink {
        let judged = report.map(|p| Judged::from_checked(symlink_result(file, p)));
        return (symlink_result(file, profile), judged);
    }
    let bytes = read(fs, file);
    // Host `alisio`'s discovery keeps only the verdict, the metadata and the places of its own
    // judgement (it sheds the diagnostics): it judges loading alone. A simulated host's
    // discovery reads its diagnostics (which errors block), so it judges the frontmatter whole.
    let discovery = if profile == Profile::Alisio {
        Depth::Loading
    } else {
        Depth::Frontmatter
    };
    match report {
        None => (judge(fs, file, &bytes, profile, discovery), None),
        // The body checks add warnings only: the load verdict, name and description are those
        // of the judgement without them.
        Some(p) if p == profile => {
            let c = judge(fs, file, &bytes, profile, Depth::Whole);
            let j = Judged::of(&c);
            (c, Some(j))
        }
        Some(p) => {
            let j = Judged::from_checked(judge(fs, file, &bytes, p, Depth::Whole));
            (judge(fs, file, &bytes, profile, discovery), Some(j))
        }
    }
}
