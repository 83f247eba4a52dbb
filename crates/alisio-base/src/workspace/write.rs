//! Writing a user's file: the one atomic replacement on disk ([`replace_file`]), behind
//! [`super::Fs::replace_file`] so core modules never call `std::fs` to write.

use std::io::{self, Write as _};
use std::path::Path;

use super::Metadata;

/// What [`replace_file`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplaceOutcome {
    /// The file now holds the new bytes.
    Written,
    /// The file changed since `expected` was read: nothing was written.
    Changed,
}

/// What replaces a file: its bytes, the name of the temporary file beside it, and the file as
/// it was read (lstat; `None`: it did not exist).
pub struct NewContent<'a> {
    pub bytes: &'a [u8],
    pub temp_name: &'a str,
    pub expected: Option<&'a Metadata>,
}

/// Whether the file as it is now (`now`, lstat) is the one read before (`before`).
fn unchanged(before: Option<&Metadata>, now: Option<&Metadata>) -> bool {
    match (before, now) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.len == b.len && a.mtime_ns == b.mtime_ns && b.file_type != super::FileType::Symlink
        }
        _ => false,
    }
}

/// Replaces `file` with `new.bytes` atomically, when `file` is still as `expected` (its lstat
/// when it was read; `None`: it did not exist): [`replace_if`] with that check.
///
/// # Errors
/// Any I/O error of the steps; the file is then unchanged.
pub fn replace_file(file: &Path, new: &NewContent<'_>) -> io::Result<ReplaceOutcome> {
    let NewContent {
        bytes,
        temp_name: tmp_name,
        expected,
    } = *new;
    replace_if(file, bytes, tmp_name, |file| {
        let now = std::fs::symlink_metadata(file)
            .ok()
            .map(|m| super::meta_from_std(&m));
        unchanged(expected, now.as_ref())
    })
}

/// The one atomic replacement of a file on disk (the editor's and CLI's writes, the agent's
/// `write_file`/`edit_file`, undo and rewind, `init`, the HTML reports): a new temporary file
/// beside it (`tmp_name`, created exclusively, with the existing file's permission bits or
/// 0644), written and synced; then, only when `still_ok(file)` (the caller's check that the file
/// is as it was read, made after the temporary file is complete), renamed over it and the
/// directory synced. The temporary file never survives.
///
/// # Errors
/// Any I/O error of the steps; the file is then unchanged.
pub fn replace_if(
    file: &Path,
    bytes: &[u8],
    tmp_name: &str,
    still_ok: impl FnOnce(&Path) -> bool,
) -> io::Result<ReplaceOutcome> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(tmp_name);
    let result = (|| -> io::Result<ReplaceOutcome> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode =
                std::fs::symlink_metadata(file).map_or(0o644, |m| m.permissions().mode() & 0o7777);
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        if !still_ok(file) {
            return Ok(ReplaceOutcome::Changed);
        }
        std::fs::rename(&tmp, file)?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(ReplaceOutcome::Written)
    })();
    if !matches!(result, Ok(ReplaceOutcome::Written)) {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A temporary file name beside `file`, unique for this process: `.<name>.<pid>.<n>.tmp`.
#[must_use]
pub fn tmp_name_for(file: &Path) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(".{name}.{}.{nanos:08x}{n}.tmp", std::process::id())
}

/// Why [`replace_bytes`] wrote nothing. The texts are the ones the agent's tools and `init`
/// show (the model reads them as the tool's result).
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The path has no parent directory.
    #[error("Not a file: {shown}")]
    NotAFile { shown: String },
    /// A missing parent directory could not be created.
    #[error("Cannot create directories for {shown}: {source}")]
    CreateDirectories { shown: String, source: io::Error },
    /// The temporary file, its sync or the rename failed.
    #[error("Cannot write {shown}: {source}")]
    Write { shown: String, source: io::Error },
    /// The file no longer held the expected bytes when the write was ready.
    #[error("File changed while preparing write")]
    Changed,
}

/// Writes `content` atomically over `real` ([`replace_if`]), when the file still holds
/// `expected_current` (`None`: it must not exist; missing parent directories are then created);
/// `before_check` runs once the temporary file is complete (a fault-injection point for the
/// agent's tools). `shown` names the file in errors. `Ok(true)` when the file was created.
///
/// # Errors
/// [`WriteError`]; nothing is written.
pub fn replace_bytes(
    real: &Path,
    shown: &str,
    content: &[u8],
    expected_current: Option<&[u8]>,
    before_check: impl FnOnce(),
) -> Result<bool, WriteError> {
    let dir = real.parent().ok_or_else(|| WriteError::NotAFile {
        shown: shown.to_string(),
    })?;
    let created = expected_current.is_none();
    if created {
        std::fs::create_dir_all(dir).map_err(|source| WriteError::CreateDirectories {
            shown: shown.to_string(),
            source,
        })?;
    }
    let replaced = replace_if(real, content, &tmp_name_for(real), |file| {
        before_check();
        std::fs::read(file).ok().as_deref() == expected_current
    })
    .map_err(|source| WriteError::Write {
        shown: shown.to_string(),
        source,
    })?;
    match replaced {
        ReplaceOutcome::Written => Ok(created),
        ReplaceOutcome::Changed => Err(WriteError::Changed),
    }
}

/// Creates one directory (mode 0755 on Unix); its parent must exist.
///
/// # Errors
/// Any I/O error of `mkdir`.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o755);
    b.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new<'a>(bytes: &'a [u8], expected: Option<&'a Metadata>) -> NewContent<'a> {
        NewContent {
            bytes,
            temp_name: "c.tmp",
            expected,
        }
    }

    #[test]
    fn replaces_only_an_unchanged_file_and_leaves_no_temporary_file() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("c.json");
        assert_eq!(
            replace_file(&f, &new(b"1", None)).unwrap(),
            ReplaceOutcome::Written
        );
        assert_eq!(std::fs::read(&f).unwrap(), b"1");
        let before = super::super::meta_from_std(&std::fs::symlink_metadata(&f).unwrap());
        // Expected absent, but it exists: changed, nothing written.
        assert_eq!(
            replace_file(&f, &new(b"2", None)).unwrap(),
            ReplaceOutcome::Changed
        );
        assert_eq!(std::fs::read(&f).unwrap(), b"1");
        assert_eq!(
            replace_file(&f, &new(b"22", Some(&before))).unwrap(),
            ReplaceOutcome::Written
        );
        assert_eq!(std::fs::read(&f).unwrap(), b"22");
        let names: Vec<_> = std::fs::read_dir(t.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["c.json"]);
    }

    #[test]
    fn replace_bytes_checks_the_content_creates_parents_and_refuses_a_changed_file() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("a/b/x.txt");
        assert!(matches!(
            replace_bytes(&f, "a/b/x.txt", b"one", None, || {}),
            Ok(true)
        ));
        let e = replace_bytes(&f, "a/b/x.txt", b"two", None, || {}).unwrap_err();
        assert!(matches!(e, WriteError::Changed));
        assert_eq!(e.to_string(), "File changed while preparing write");
        assert!(matches!(
            replace_bytes(&f, "a/b/x.txt", b"two", Some(b"one"), || {
                std::fs::write(&f, "user").unwrap();
            }),
            Err(WriteError::Changed)
        ));
        assert_eq!(std::fs::read(&f).unwrap(), b"user");
        assert!(matches!(
            replace_bytes(&f, "a/b/x.txt", b"two", Some(b"user"), || {}),
            Ok(false)
        ));
        assert_eq!(std::fs::read(&f).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(t.path().join("a/b"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["x.txt"]);
    }
}
