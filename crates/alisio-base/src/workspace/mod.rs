//! The workspace: file-system access behind [`Fs`], the environment snapshot [`Env`], workspace
//! root detection and the config home (spec/instructions.md §1).
//!
//! Invariant: core modules touch the disk only through an [`Fs`], so the language server can
//! overlay unsaved editor buffers ([`OverlayFs`]) and every rule sees the same text the user
//! sees. Environment variables are read once, in [`Env::from_process`].

pub mod par;
pub mod walk;
pub mod write;

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use write::ReplaceOutcome;

/// The type of a directory entry or path, as lstat (or stat) reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    File,
    Dir,
    Symlink,
    Other,
}

impl FileType {
    fn from_std(ft: std::fs::FileType) -> Self {
        if ft.is_symlink() {
            Self::Symlink
        } else if ft.is_dir() {
            Self::Dir
        } else if ft.is_file() {
            Self::File
        } else {
            Self::Other
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub name: OsString,
    /// lstat type: a symlink is reported as [`FileType::Symlink`], never followed.
    pub file_type: FileType,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metadata {
    pub file_type: FileType,
    pub len: u64,
    /// Modification time in nanoseconds since the epoch, when known (used by atomic writes).
    pub mtime_ns: Option<u128>,
}

/// Everything core modules may ask of a file system.
pub trait Fs: Send + Sync {
    /// Entries of a directory, sorted by the bytes of their names.
    fn read_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>>;
    /// Entries of a directory in the order the operating system lists them (`getdents`: hash
    /// order on ext4), for simulating a client that does not sort (Claude Code's rules walk).
    /// A file system without such an order gives [`Fs::read_dir`]'s.
    fn read_dir_unsorted(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.read_dir(dir)
    }
    /// lstat.
    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata>;
    /// stat (follows symlinks).
    fn metadata(&self, path: &Path) -> io::Result<Metadata>;
    /// At most `limit` bytes from the start of a file (follows symlinks).
    fn read_prefix(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>>;
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;
    fn read_link(&self, path: &Path) -> io::Result<PathBuf>;

    /// The whole file.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.read_prefix(path, u64::MAX)
    }
    /// Feeds the whole file to `f` in chunks, for scans that must see every byte of a file
    /// without holding it in memory (the end position of a 100 MB file).
    fn scan(&self, path: &Path, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        let bytes = self.read(path)?;
        f(&bytes);
        Ok(())
    }
    /// `true` when the path exists (lstat), whatever its type.
    fn exists_no_follow(&self, path: &Path) -> bool {
        self.symlink_metadata(path).is_ok()
    }
    /// Creates one directory (its parent exists). A read-only file system refuses.
    fn create_dir(&self, dir: &Path) -> io::Result<()> {
        Err(read_only(dir))
    }
    /// Replaces `file` atomically with `new.bytes` when it is still as `new.expected`
    /// ([`write::replace_file`]). A read-only file system refuses.
    fn replace_file(&self, file: &Path, new: &write::NewContent<'_>) -> io::Result<ReplaceOutcome> {
        let _ = new;
        Err(read_only(file))
    }
}

fn read_only(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{}: this file system is read-only", path.display()),
    )
}

/// The real disk.
#[derive(Clone, Copy, Debug, Default)]
pub struct DiskFs;

fn meta_from_std(m: &std::fs::Metadata) -> Metadata {
    let mtime_ns = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos());
    Metadata {
        file_type: FileType::from_std(m.file_type()),
        len: m.len(),
        mtime_ns,
    }
}

/// Opens a file for reading only when it is a regular file (symlinks followed). A FIFO would
/// block the open until a writer appears and a device such as `/dev/zero` never ends, so a
/// repository that names one where a file is expected gets an error instead of a hang.
fn open_regular(path: &Path) -> io::Result<(std::fs::File, u64)> {
    regular(std::fs::metadata(path)?.file_type())?;
    let file = std::fs::File::open(path)?;
    // The path may have been replaced between the two calls; judge what was opened.
    let meta = file.metadata()?;
    regular(meta.file_type())?;
    Ok((file, meta.len()))
}

/// Reads of a known size start with this much room at most (a size is a hint, not a promise).
const READ_RESERVE_MAX: u64 = 16 * 1024 * 1024;

/// `Ok` for a regular file; a located kind of error for a directory or anything else.
fn regular(ft: std::fs::FileType) -> io::Result<()> {
    if ft.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if !ft.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(())
}

impl Fs for DiskFs {
    fn read_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let mut out = self.read_dir_unsorted(dir)?;
        // Names in one directory are distinct: an unstable sort gives the same order, faster.
        out.sort_unstable_by(|a, b| a.name.as_encoded_bytes().cmp(b.name.as_encoded_bytes()));
        Ok(out)
    }
    fn read_dir_unsorted(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let file_type = entry
                .file_type()
                .map_or(FileType::Other, FileType::from_std);
            out.push(DirEntry {
                name: entry.file_name(),
                file_type,
            });
        }
        Ok(out)
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata> {
        std::fs::symlink_metadata(path).map(|m| meta_from_std(&m))
    }
    fn metadata(&self, path: &Path) -> io::Result<Metadata> {
        std::fs::metadata(path).map(|m| meta_from_std(&m))
    }
    fn read_prefix(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        let (file, len) = open_regular(path)?;
        // Room for the whole prefix up front: one read and the end-of-file probe, instead of
        // a read per doubling of the buffer (every skill and instruction file is read so).
        let room = len.min(limit).min(READ_RESERVE_MAX).saturating_add(1);
        let mut buf = Vec::with_capacity(usize::try_from(room).unwrap_or(0));
        file.take(limit).read_to_end(&mut buf)?;
        Ok(buf)
    }
    fn scan(&self, path: &Path, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        let (mut file, _) = open_regular(path)?;
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut chunk) {
                Ok(0) => return Ok(()),
                Ok(n) => f(chunk.get(..n).unwrap_or_default()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }
    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::read_link(path)
    }
    fn create_dir(&self, dir: &Path) -> io::Result<()> {
        write::create_dir(dir)
    }
    fn replace_file(&self, file: &Path, new: &write::NewContent<'_>) -> io::Result<ReplaceOutcome> {
        write::replace_file(file, new)
    }
}

/// The text of an open editor buffer, as the rules read it: a length and the UTF-8 bytes in
/// order. The language server implements it for its ropes, so a snapshot shares the editor's
/// text instead of copying it; rules then copy only the prefix they read.
pub trait Buffer: Send + Sync {
    /// Length in bytes.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Calls `f` with consecutive pieces of the text from its start until `f` returns `false`.
    fn chunks(&self, f: &mut dyn FnMut(&[u8]) -> bool);
}

impl Buffer for str {
    fn len(&self) -> usize {
        self.len()
    }
    fn chunks(&self, f: &mut dyn FnMut(&[u8]) -> bool) {
        f(self.as_bytes());
    }
}

/// The open buffers of a snapshot, by absolute path.
pub type Buffers = Arc<HashMap<PathBuf, Arc<dyn Buffer>>>;

/// The first `limit` bytes of a buffer.
#[must_use]
pub fn buffer_prefix(b: &dyn Buffer, limit: u64) -> Vec<u8> {
    let n = usize::try_from(limit).unwrap_or(usize::MAX).min(b.len());
    let mut out = Vec::with_capacity(n);
    b.chunks(&mut |c| {
        let k = (n - out.len()).min(c.len());
        out.extend_from_slice(&c[..k]);
        out.len() < n
    });
    out
}

/// Editor buffers over another [`Fs`]: an open document's text replaces the file's bytes.
/// Listings and types still come from the inner file system (an unsaved new file does not
/// exist for the rules until it is saved).
#[derive(Clone)]
pub struct OverlayFs<F> {
    pub inner: F,
    pub buffers: Buffers,
}

impl<F: Fs> Fs for OverlayFs<F> {
    fn read_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.inner.read_dir(dir)
    }
    fn read_dir_unsorted(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.inner.read_dir_unsorted(dir)
    }
    fn symlink_metadata(&self, path: &Path) -> io::Result<Metadata> {
        let mut m = self.inner.symlink_metadata(path)?;
        if m.file_type == FileType::File
            && let Some(t) = self.buffers.get(path)
        {
            m.len = t.len() as u64;
        }
        Ok(m)
    }
    fn metadata(&self, path: &Path) -> io::Result<Metadata> {
        let mut m = self.inner.metadata(path)?;
        if let Some(t) = self.buffers.get(path) {
            m.len = t.len() as u64;
        }
        Ok(m)
    }
    fn read_prefix(&self, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
        if let Some(t) = self.buffers.get(path) {
            return Ok(buffer_prefix(t.as_ref(), limit));
        }
        self.inner.read_prefix(path, limit)
    }
    fn scan(&self, path: &Path, f: &mut dyn FnMut(&[u8])) -> io::Result<()> {
        if let Some(t) = self.buffers.get(path) {
            t.chunks(&mut |c| {
                f(c);
                true
            });
            return Ok(());
        }
        self.inner.scan(path, f)
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.inner.canonicalize(path)
    }
    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        self.inner.read_link(path)
    }
}

/// A snapshot of the environment variables alisio-ls reads. Built once at start-up; tests build
/// it by hand so they never depend on the machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Env {
    pub home: Option<PathBuf>,
    pub alisio_config_home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub alisio_state_home: Option<PathBuf>,
    pub xdg_state_home: Option<PathBuf>,
    pub codex_home: Option<PathBuf>,
    /// `ALISIO_CLAUDE_MANAGED_FILE`: where the `claude-code` host simulation looks for Claude
    /// Code's managed `CLAUDE.md` instead of the platform path (tests and unusual installs).
    pub claude_managed_file: Option<PathBuf>,
    /// `GEMINI_CLI_HOME`: Gemini CLI's home instead of `$HOME` (spec/hosts.md §3.1).
    pub gemini_cli_home: Option<PathBuf>,
    /// `GEMINI_CLI_TRUST_WORKSPACE`: `true` makes Gemini CLI trust the folder, `false` (or
    /// `GEMINI_RESTRICTED_MODE=true`) distrust it, whatever `~/.gemini/trustedFolders.json`
    /// says (spec/instructions.md §10.7).
    pub gemini_trust_workspace: Option<bool>,
    /// `SLASH_COMMAND_TOOL_CHAR_BUDGET`: Claude Code's fixed skill-listing budget
    /// (spec/skills.md §9.2).
    pub slash_command_tool_char_budget: Option<String>,
}

fn non_empty_var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl Env {
    #[must_use]
    pub fn from_process() -> Self {
        Self {
            home: non_empty_var("HOME"),
            alisio_config_home: non_empty_var("ALISIO_CONFIG_HOME"),
            xdg_config_home: non_empty_var("XDG_CONFIG_HOME"),
            alisio_state_home: non_empty_var("ALISIO_STATE_HOME"),
            xdg_state_home: non_empty_var("XDG_STATE_HOME"),
            codex_home: non_empty_var("CODEX_HOME"),
            claude_managed_file: non_empty_var("ALISIO_CLAUDE_MANAGED_FILE"),
            gemini_cli_home: non_empty_var("GEMINI_CLI_HOME"),
            gemini_trust_workspace: if std::env::var("GEMINI_RESTRICTED_MODE")
                .is_ok_and(|v| v == "true")
            {
                Some(false)
            } else {
                match std::env::var("GEMINI_CLI_TRUST_WORKSPACE").as_deref() {
                    Ok("true") => Some(true),
                    Ok("false") => Some(false),
                    _ => None,
                }
            },
            slash_command_tool_char_budget: std::env::var("SLASH_COMMAND_TOOL_CHAR_BUDGET").ok(),
        }
    }

    /// The config home (spec/instructions.md §1): `ALISIO_CONFIG_HOME`, else an absolute
    /// `$XDG_CONFIG_HOME/alisio`, else `$HOME/.config/alisio`, else none.
    #[must_use]
    pub fn config_home(&self) -> Option<PathBuf> {
        if let Some(p) = &self.alisio_config_home {
            return Some(p.clone());
        }
        if let Some(x) = self.xdg_config_home.as_ref().filter(|x| x.is_absolute()) {
            return Some(x.join("alisio"));
        }
        self.home.as_ref().map(|h| h.join(".config").join("alisio"))
    }

    /// The state home (spec/sessions.md §0).
    #[must_use]
    pub fn state_home(&self) -> Option<PathBuf> {
        if let Some(p) = &self.alisio_state_home {
            return Some(p.clone());
        }
        if let Some(x) = self.xdg_state_home.as_ref().filter(|x| x.is_absolute()) {
            return Some(x.join("alisio"));
        }
        self.home
            .as_ref()
            .map(|h| h.join(".local").join("state").join("alisio"))
    }

    /// `CODEX_HOME`, else `$HOME/.codex`.
    #[must_use]
    pub fn codex_home(&self) -> Option<PathBuf> {
        self.codex_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".codex")))
    }
}

/// The workspace root of a canonical directory: the nearest ancestor (itself included) with an
/// entry named `.git` of any type (lstat), else the directory itself.
#[must_use]
pub fn find_root(fs: &dyn Fs, canonical_cwd: &Path) -> PathBuf {
    for dir in canonical_cwd.ancestors() {
        match fs.symlink_metadata(&dir.join(".git")) {
            Ok(_) => return dir.to_path_buf(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::debug!("cannot probe {}: {e}", dir.join(".git").display());
            }
        }
    }
    canonical_cwd.to_path_buf()
}

/// Removes `.` components and resolves `..` lexically (never above the root).
#[must_use]
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `..` at the root stays at the root; a relative path keeps leading `..`.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    out
}

/// `true` when `path` is `root` or below it, compared component by component, byte-exact.
#[must_use]
pub fn is_inside(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
}

/// `path` relative to `root` with `/` separators (`.` for the root itself) when inside,
/// else the path as is.
#[must_use]
pub fn display_path(path: &Path, root: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_home_prefers_alisio_then_absolute_xdg_then_home() {
        let mut env = Env {
            home: Some("/h".into()),
            ..Env::default()
        };
        assert_eq!(env.config_home(), Some(PathBuf::from("/h/.config/alisio")));
        env.xdg_config_home = Some("rel".into());
        assert_eq!(env.config_home(), Some(PathBuf::from("/h/.config/alisio")));
        env.xdg_config_home = Some("/x".into());
        assert_eq!(env.config_home(), Some(PathBuf::from("/x/alisio")));
        env.alisio_config_home = Some("/a".into());
        assert_eq!(env.config_home(), Some(PathBuf::from("/a")));
        assert_eq!(Env::default().config_home(), None);
    }

    #[test]
    fn inside_compares_components() {
        assert!(is_inside(Path::new("/ws/x"), Path::new("/ws")));
        assert!(!is_inside(Path::new("/ws2/x"), Path::new("/ws")));
        assert_eq!(display_path(Path::new("/ws/a/b"), Path::new("/ws")), "a/b");
        assert_eq!(display_path(Path::new("/ws"), Path::new("/ws")), ".");
    }

    #[test]
    fn lexical_normalisation() {
        assert_eq!(
            normalize_lexically(Path::new("/a/./b/../c")),
            PathBuf::from("/a/c")
        );
        assert_eq!(normalize_lexically(Path::new("/../a")), PathBuf::from("/a"));
    }

    #[cfg(unix)]
    #[test]
    fn reads_refuse_devices_and_fifos_instead_of_hanging() {
        let t = tempfile::tempdir().unwrap();
        let link = t.path().join("AGENTS.md");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let e = DiskFs.read(&link).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string()),
            (
                io::ErrorKind::InvalidInput,
                "not a regular file".to_string()
            )
        );
        let e = DiskFs.scan(&link, &mut |_| {}).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let fifo = t.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert_eq!(
                DiskFs.read_prefix(&fifo, 10).unwrap_err().kind(),
                io::ErrorKind::InvalidInput
            );
        }
        assert_eq!(
            DiskFs.read(t.path()).unwrap_err().kind(),
            io::ErrorKind::IsADirectory
        );
    }

    #[test]
    fn scan_sees_every_byte_in_chunks() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("big");
        let content: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &content).unwrap();
        let mut seen = Vec::new();
        let mut chunks = 0;
        DiskFs
            .scan(&p, &mut |c| {
                chunks += 1;
                seen.extend_from_slice(c);
            })
            .unwrap();
        assert_eq!(seen, content);
        assert!(chunks >= 4, "{chunks} chunks");
    }

    #[test]
    fn root_is_nearest_git_entry_of_any_type() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join("a/b")).unwrap();
        assert_eq!(find_root(&DiskFs, &ws.join("a/b")), ws.join("a/b"));
        std::fs::write(ws.join("a/.git"), "gitdir: x").unwrap();
        assert_eq!(find_root(&DiskFs, &ws.join("a/b")), ws.join("a"));
    }
}
