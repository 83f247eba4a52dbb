//! The I/O side of `audit` (spec/interfaces.md §4): where a workspace's recorded sessions are,
//! streaming one file through `alisio_governor::audit` in bounded memory, and the comparisons of
//! what was delivered with the disk now and with `context explain`'s prediction. The CLI
//! (`alisio-ls audit`) and the language server (diagnostics, lenses and the Audit Sessions view,
//! interfaces.md §4.6) share it. Read only: nothing here writes or sends anything.

pub mod findings;
pub mod own;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use alisio_base::config::{Host, Settings};
use alisio_base::workspace::{self, Env, Fs, is_inside};
use alisio_governor::audit::{Auditor, SessionAudit};
use alisio_rules::instructions::{Setup, claude_text::delivered_text, explain, read::Reader};

use crate::store::StoreError;

/// Why an audit could not read a transcript or a store; each message starts with the file as
/// shown (`<shown>: <error>`).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The file cannot be opened or read.
    #[error("{shown}: {source}")]
    Io {
        shown: String,
        source: std::io::Error,
    },
    /// The store cannot be opened or read.
    #[error("{shown}: {source}")]
    Store { shown: String, source: StoreError },
    /// A store file named on the command line that is not `<state dir>/sessions.db`.
    #[error("{shown}: an alisio-ls store is read as <state dir>/sessions.db")]
    NotStoreFile { shown: String },
}

/// What the comparisons need: the disk, the environment, the workspace and its settings.
#[derive(Clone, Copy)]
pub struct Place<'a> {
    pub fs: &'a dyn Fs,
    pub env: &'a Env,
    /// The canonical workspace root.
    pub root: &'a Path,
    /// The directory relative paths are shown against.
    pub cwd: &'a Path,
    pub settings: &'a Settings,
}

/// Claude Code's project directory name for a cwd: every character that is not an ASCII letter
/// or digit becomes `-` (`/home/a/my.repo` → `-home-a-my-repo`).
#[must_use]
pub fn claude_project_dir(cwd: &Path) -> String {
    cwd.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Every `*.jsonl` below `dir`, sorted; at most 10,000 directories are walked (no symlink is
/// followed).
#[must_use]
pub fn jsonl_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut dirs = 0;
    while let Some(d) = stack.pop() {
        dirs += 1;
        if dirs > 10_000 {
            break;
        }
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() && p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The default sources of a workspace (spec/interfaces.md §4): Claude Code's session files of
/// the root and every directory below it, and every Codex session file (the caller keeps those
/// whose cwd lies in the workspace).
///
/// Claude Code's directory name of a cwd is lossy (`/a/repo-2` and `/a/repo/2` are both
/// `-a-repo-2`), so a name is only a candidate: a file in a directory named `<root>-…` is kept
/// when the cwd it records lies in the workspace, one in the directory named `<root>` unless it
/// records a cwd outside it (a sibling `/a/repo.x` is also `-a-repo-x`).
#[must_use]
pub fn default_files(env: &Env, root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut claude = Vec::new();
    if let Some(home) = &env.home {
        let projects = home.join(".claude/projects");
        let want = claude_project_dir(root);
        if let Ok(rd) = std::fs::read_dir(&projects) {
            let mut dirs: Vec<(PathBuf, bool)> = rd
                .flatten()
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    let exact = n == want;
                    (exact || n.starts_with(&format!("{want}-"))).then(|| (e.path(), exact))
                })
                .collect();
            dirs.sort();
            for (d, exact) in dirs {
                claude.extend(jsonl_below(&d).into_iter().filter(|f| match claude_cwd(f) {
                    Some(c) => c == root || is_inside(&c, root),
                    None => exact,
                }));
            }
        }
    }
    let codex = env
        .codex_home()
        .map(|h| jsonl_below(&h.join("sessions")))
        .unwrap_or_default();
    (claude, codex)
}

/// Records read to find the cwd a Claude Code session file records.
const CLAUDE_CWD_LINES: usize = 50;

/// The first `cwd` a Claude Code session file records (its first 50 lines, at most 1 MiB
/// each), when it records one.
fn claude_cwd(p: &Path) -> Option<PathBuf> {
    use std::io::{BufRead as _, Read as _};
    let f = std::fs::File::open(p).ok()?;
    let mut r = std::io::BufReader::new(f);
    let mut line = Vec::new();
    for _ in 0..CLAUDE_CWD_LINES {
        line.clear();
        let n = r.by_ref().take(1 << 20).read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            return None;
        }
        if !line.ends_with(b"\n") && n == 1 << 20 {
            return None;
        }
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line)
            && let Some(c) = v.get("cwd").and_then(serde_json::Value::as_str)
        {
            return Some(PathBuf::from(c));
        }
    }
    None
}

fn modified(p: &Path) -> std::time::SystemTime {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .unwrap_or(std::time::UNIX_EPOCH)
}

/// The first line of a file, at most 1 MiB of it (Codex's `session_meta` record is there).
fn first_line(p: &Path) -> Option<String> {
    use std::io::{BufRead as _, Read as _};
    let f = std::fs::File::open(p).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(f)
        .take(1 << 20)
        .read_until(b'\n', &mut line)
        .ok()?;
    String::from_utf8(line).ok()
}

/// The cwd a Codex rollout records in its first line (`session_meta`), when it does.
fn codex_cwd(p: &Path) -> Option<PathBuf> {
    let v: serde_json::Value = serde_json::from_str(first_line(p)?.trim_end()).ok()?;
    (v["type"] == "session_meta")
        .then(|| v["payload"]["cwd"].as_str().map(PathBuf::from))
        .flatten()
}

/// At most this many Codex files are opened to find the `n` most recent of a workspace.
const CODEX_PROBES_PER_SESSION: usize = 20;

/// The `n` most recently modified session files of each client for the workspace at `root`,
/// newest first: Claude Code's from its project directories, Codex's whose recorded cwd lies in
/// the workspace (at most `20 × n` Codex files are probed, newest first). Only their first
/// lines are read here.
#[must_use]
pub fn recent_files(env: &Env, root: &Path, n: usize) -> Vec<PathBuf> {
    let (claude, codex) = default_files(env, root);
    let newest = |mut v: Vec<PathBuf>| {
        v.sort_by_key(|p| std::cmp::Reverse(modified(p)));
        v
    };
    let mut out: Vec<PathBuf> = newest(claude).into_iter().take(n).collect();
    out.extend(
        newest(codex)
            .into_iter()
            .take(n.saturating_mul(CODEX_PROBES_PER_SESSION))
            .filter(|p| codex_cwd(p).is_some_and(|c| c == root || is_inside(&c, root)))
            .take(n),
    );
    out
}

/// The longest line read (64 MiB): a longer one is skipped and counted, so one line never
/// holds more memory than this.
pub const MAX_LINE: usize = 64 << 20;

/// Feeds every line of `r` to `a`; a line over `max_line` bytes is skipped (and counted).
///
/// # Errors
/// A read error of `r`.
pub fn stream(
    mut r: impl std::io::BufRead,
    a: &mut Auditor,
    max_line: usize,
) -> std::io::Result<()> {
    use std::io::{BufRead as _, Read as _};
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = u64::try_from(max_line).unwrap_or(u64::MAX) + 1;
        let n = r.by_ref().take(limit).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(());
        }
        if line.len() > max_line && !line.ends_with(b"\n") {
            // Drop the rest of the line without keeping it.
            loop {
                let buf = r.fill_buf()?;
                if buf.is_empty() {
                    break;
                }
                match buf.iter().position(|b| *b == b'\n') {
                    Some(i) => {
                        r.consume(i + 1);
                        break;
                    }
                    None => {
                        let len = buf.len();
                        r.consume(len);
                    }
                }
            }
            a.skip(&format!("line longer than {max_line} bytes"));
            continue;
        }
        a.feed(line.strip_suffix(b"\n").unwrap_or(&line));
    }
}

/// Streams one file through the auditor. A file that is one JSON document (mini-swe-agent, an
/// alisio-ls export) has no per-line records: it is reported with its format and no findings.
///
/// # Errors
/// The file cannot be opened or read (`<shown>: <error>`).
pub fn read_file(path: &Path, shown: &str) -> Result<SessionAudit, AuditError> {
    let io = |source| AuditError::Io {
        shown: shown.to_owned(),
        source,
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let mut a = Auditor::new(shown);
    stream(
        std::io::BufReader::with_capacity(1 << 16, f),
        &mut a,
        MAX_LINE,
    )
    .map_err(io)?;
    let mut s = a.finish(None);
    if s.format == "unknown" {
        whole_document(path, &mut s);
    }
    Ok(s)
}

/// A whole-JSON transcript (read only when under 64 MiB): its format, and why there is nothing
/// to audit in it.
fn whole_document(path: &Path, s: &mut SessionAudit) {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() < 64 << 20);
    let Some(format) = small
        .then(|| std::fs::read(path).ok())
        .flatten()
        .and_then(|b| alisio_governor::readers::detect(&b))
    else {
        return;
    };
    s.format = format.as_str();
    s.skipped_lines = 0;
    s.problems = vec![alisio_governor::audit::AuditProblem {
        line: 0,
        message: "this format records no instruction deliveries, skill listings or per-request cache figures".into(),
    }];
}

fn host_of(s: &SessionAudit) -> Option<Host> {
    match s.format {
        "claude-code" => Some(Host::ClaudeCode),
        "codex" => Some(Host::Codex),
        own::FORMAT => Some(Host::Alisio),
        _ => None,
    }
}

fn setup<'a>(
    p: &Place<'a>,
    root: &'a Path,
    host: Host,
    managed: Option<&'a Path>,
    session: Option<&'a Path>,
) -> Setup<'a> {
    Setup {
        fs: p.fs,
        env: p.env,
        root,
        settings: p.settings,
        host,
        claude_managed: managed,
        claude_session: session,
    }
}

/// The workspace root of `target` (a directory, or a file's directory), canonical.
fn root_of(p: &Place<'_>, target: &Path) -> Option<PathBuf> {
    let dir = if target.is_dir() {
        target
    } else {
        target.parent().unwrap_or(target)
    };
    let canon = p.fs.canonicalize(dir).ok()?;
    Some(workspace::find_root(p.fs, &canon))
}

/// `(absolute path, sha256)` of every file explain predicts for `target` in a session started in
/// `session` (imports that need no approval included), or `None` when explain cannot run there.
fn predicted(
    p: &Place<'_>,
    host: Host,
    target: &Path,
    session: Option<&Path>,
) -> Option<Vec<(String, String)>> {
    let root = root_of(p, target)?;
    let managed = p
        .env
        .claude_managed_file
        .clone()
        .unwrap_or_else(alisio_rules::instructions::default_claude_managed_file);
    let session = session.map(|d| p.fs.canonicalize(d).unwrap_or_else(|_| d.to_path_buf()));
    let setup = setup(p, &root, host, Some(&managed), session.as_deref());
    let reader = Reader::new(p.fs);
    let ex = explain::explain_path(&setup, &reader, p.cwd, target).ok()?;
    let obj = ex.to_json();
    let abs = |f: &str| {
        if Path::new(f).is_absolute() {
            f.to_owned()
        } else {
            root.join(f).display().to_string()
        }
    };
    let mut outv = Vec::new();
    for f in obj["files"].as_array().into_iter().flatten() {
        let sha = f["sha256"].as_str().unwrap_or_default().to_owned();
        outv.push((abs(f["path"].as_str().unwrap_or_default()), sha));
        for i in f["imports"].as_array().into_iter().flatten() {
            if i["approval"] != true {
                outv.push((
                    abs(i["path"].as_str().unwrap_or_default()),
                    i["sha256"].as_str().unwrap_or_default().to_owned(),
                ));
            }
        }
    }
    Some(outv)
}

/// Codex: the one instruction text explain predicts for `cwd` (the global file, then the project
/// files joined as Codex joins them; docs/spec/hosts.md), `None` when none is sent, and the
/// files joined; `None` when explain cannot run there.
fn codex_predicted(p: &Place<'_>, cwd: &Path) -> Option<(Option<String>, Vec<String>)> {
    let canon = p.fs.canonicalize(cwd).ok()?;
    let root = workspace::find_root(p.fs, &canon);
    let setup = setup(p, &root, Host::Codex, None, None);
    let reader = Reader::new(p.fs);
    let obj = explain::explain_path(&setup, &reader, p.cwd, cwd)
        .ok()?
        .to_json();
    let (mut global, mut project, mut files) = (None, Vec::new(), Vec::new());
    for f in obj["files"].as_array().into_iter().flatten() {
        let rel = f["path"].as_str().unwrap_or_default();
        let path = if Path::new(rel).is_absolute() {
            PathBuf::from(rel)
        } else {
            root.join(rel)
        };
        let kept = usize::try_from(f["keptBytes"].as_u64().unwrap_or(0)).unwrap_or(0);
        if f["empty"] == true || f["truncation"] == "dropped" || kept == 0 {
            continue;
        }
        let raw = std::fs::read(&path).ok()?;
        let text = String::from_utf8_lossy(&raw[..kept.min(raw.len())]).into_owned();
        files.push(path.display().to_string());
        if f["scope"] == "global" {
            global = Some(text);
        } else {
            project.push(text);
        }
    }
    let project = (!project.is_empty()).then(|| project.join("\n\n"));
    let text = match (global, project) {
        (None, None) => None,
        (Some(g), None) => Some(g),
        (None, Some(p)) => Some(p),
        (Some(g), Some(p)) => Some(format!("{g}\n\n--- project-doc ---\n\n{p}")),
    };
    Some((text, files))
}

/// `(canonical path, sha256 of the text as read, bytes kept)` of each file of a section.
type SectionFiles = Vec<(PathBuf, String, usize)>;

/// The files `context explain --host alisio` predicts for `target`: `(canonical path, sha256 of
/// the text as read, bytes kept)` of each file the section carries; `None` when explain cannot
/// run there.
fn alisio_predicted(p: &Place<'_>, target: &Path) -> Option<SectionFiles> {
    let root = root_of(p, target)?;
    let setup = setup(p, &root, Host::Alisio, None, None);
    let reader = Reader::new(p.fs);
    let ex = explain::explain_path(&setup, &reader, p.cwd, target).ok()?;
    Some(
        ex.files
            .iter()
            .filter(|f| {
                f.kept_bytes > 0
                    && f.truncation != alisio_rules::instructions::Truncation::Dropped
                    && !f.file.empty
            })
            .map(|f| {
                (
                    p.fs.canonicalize(&f.path)
                        .unwrap_or_else(|_| f.path.clone()),
                    alisio_base::text::sha256_hex(&f.file.text),
                    f.kept_bytes,
                )
            })
            .collect(),
    )
}

/// The files Claude Code loads at start for a session in `cwd`, as explain predicts them
/// (delivery `always`, not dropped, not empty, and the imports that need no approval):
/// `(absolute path, sha256)`.
fn claude_startup(p: &Place<'_>, cwd: &Path) -> Option<Vec<(String, Option<String>)>> {
    let canon = p.fs.canonicalize(cwd).ok()?;
    let root = workspace::find_root(p.fs, &canon);
    let managed = p
        .env
        .claude_managed_file
        .clone()
        .unwrap_or_else(alisio_rules::instructions::default_claude_managed_file);
    let setup = setup(p, &root, Host::ClaudeCode, Some(&managed), Some(&canon));
    let reader = Reader::new(p.fs);
    let obj = explain::explain_path(&setup, &reader, p.cwd, cwd)
        .ok()?
        .to_json();
    let abs = |f: &str| {
        if Path::new(f).is_absolute() {
            f.to_owned()
        } else {
            root.join(f).display().to_string()
        }
    };
    let sha = |v: &serde_json::Value| v["sha256"].as_str().map(str::to_owned);
    let mut out = Vec::new();
    for f in obj["files"].as_array().into_iter().flatten() {
        if f["delivery"] != "always" || f["truncation"] == "dropped" || f["empty"] == true {
            continue;
        }
        out.push((abs(f["path"].as_str().unwrap_or_default()), sha(f)));
        for i in f["imports"].as_array().into_iter().flatten() {
            if i["approval"] != true {
                out.push((abs(i["path"].as_str().unwrap_or_default()), sha(i)));
            }
        }
    }
    Some(out)
}

/// Whether the file at `path` was last modified after `started_ms` (then its absence from a
/// session says nothing: it may not have existed yet).
fn changed_since(path: &Path, started_ms: Option<i64>) -> bool {
    let Some(start) = started_ms else {
        return false;
    };
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .is_some_and(|ms| ms > start)
}

/// The files explain predicts at start for the session's cwd that no delivery of the session
/// names (spec/interfaces.md §4.1 `notReceived`): Claude Code and alisio-ls per file, Codex
/// the files joined for the cwd when the session sent no project docs for it. A file modified
/// after the session started is left out, and so is a session without a prompt (or, for
/// alisio-ls, one that recorded no deliveries).
fn not_received(p: &Place<'_>, s: &SessionAudit) -> Vec<alisio_governor::audit::NotReceived> {
    let Some(cwd) = s.cwd.as_deref().map(Path::new) else {
        return Vec::new();
    };
    if s.prompts == 0 || (s.format == own::FORMAT && s.lines == 0) {
        return Vec::new();
    }
    let canon = |x: &str| {
        p.fs.canonicalize(Path::new(x))
            .unwrap_or_else(|_| PathBuf::from(x))
    };
    let got: std::collections::HashSet<PathBuf> =
        s.deliveries.iter().map(|d| canon(&d.path)).collect();
    let predicted: Vec<(String, Option<String>)> = match host_of(s) {
        Some(Host::ClaudeCode) => claude_startup(p, cwd).unwrap_or_default(),
        Some(Host::Alisio) => alisio_predicted(p, cwd)
            .unwrap_or_default()
            .into_iter()
            .map(|(f, sha, _)| (f.display().to_string(), Some(sha)))
            .collect(),
        Some(Host::Codex) if !got.contains(&canon(&cwd.to_string_lossy())) => {
            codex_predicted(p, cwd)
                .map(|(_, files)| files.into_iter().map(|f| (f, None)).collect())
                .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    let mut seen = std::collections::HashSet::new();
    predicted
        .into_iter()
        .filter(|(f, _)| {
            let c = canon(f);
            !got.contains(&c) && !changed_since(&c, s.started_ms) && seen.insert(c)
        })
        .map(|(path, sha256)| alisio_governor::audit::NotReceived { path, sha256 })
        .collect()
}

/// alisio-ls: whether the file's text as read now has the recorded sha256.
fn alisio_on_disk(p: &Place<'_>, path: &str, sha256: &str) -> &'static str {
    let f = Reader::new(p.fs).read(
        Path::new(path),
        alisio_rules::instructions::read::ReadMode::Alisio,
    );
    if f.error.is_some() {
        "missing"
    } else if alisio_base::text::sha256_hex(&f.text) == sha256 {
        "same"
    } else {
        "older-copy"
    }
}

/// Fills the comparisons of `s` with the disk and explain (spec/interfaces.md §4.1) and drops
/// the delivered texts.
pub fn compare(p: &Place<'_>, s: &mut SessionAudit) {
    s.workspace_match = s
        .cwd
        .as_ref()
        .map(|c| is_inside(Path::new(c), p.root) || Path::new(c) == p.root);
    let host = host_of(s);
    let mut cache: HashMap<PathBuf, Option<Vec<(String, String)>>> = HashMap::new();
    let cwd = s.cwd.clone().map(PathBuf::from);
    let mut disk: HashMap<(String, String), &'static str> = HashMap::new();
    let mut alisio: HashMap<PathBuf, Option<SectionFiles>> = HashMap::new();
    for d in &mut s.deliveries {
        if s.format == own::FORMAT {
            d.on_disk = Some(alisio_on_disk(p, &d.path, &d.sha256));
            let target = match (&d.after_tool, d.scope.as_deref(), &cwd) {
                (Some(t), _, _) => t.target.as_ref().map(PathBuf::from),
                (None, Some("joined"), _) => Some(PathBuf::from(&d.path)),
                (None, _, c) => c.clone(),
            };
            if let Some(t) = target {
                let pr = alisio
                    .entry(t.clone())
                    .or_insert_with(|| alisio_predicted(p, &t));
                let me =
                    p.fs.canonicalize(Path::new(&d.path))
                        .unwrap_or_else(|_| PathBuf::from(&d.path));
                d.predicted = pr.as_ref().map(|v| {
                    v.iter()
                        .any(|(pp, sha, kept)| *pp == me && *sha == d.sha256 && *kept == d.bytes)
                });
            }
            continue;
        }
        if s.format == "claude-code" {
            let key = (d.path.clone(), d.sha256.clone());
            let state =
                *disk
                    .entry(key)
                    .or_insert_with(|| match std::fs::read_to_string(&d.path) {
                        Ok(t) if delivered_text(&t) == d.text || t.trim() == d.text => "same",
                        Ok(_) => "older-copy",
                        Err(_) => "missing",
                    });
            d.on_disk = Some(state);
        }
        let target = match (&d.after_tool, &cwd) {
            (Some(t), _) if d.how == "nested" => t.target.as_ref().map(PathBuf::from),
            (_, Some(c)) => Some(c.clone()),
            _ => None,
        };
        if host == Some(Host::Codex) {
            let predicted = codex_predicted(p, Path::new(&d.path));
            d.predicted = predicted.as_ref().map(|(t, _)| {
                t.as_ref()
                    .is_some_and(|t| alisio_governor::audit::sha256_hex(t) == d.sha256)
            });
            d.joined = predicted.map(|(_, f)| f).unwrap_or_default();
        } else if let (Some(h), Some(t)) = (host, target)
            && h == Host::ClaudeCode
        {
            let pr = cache
                .entry(t.clone())
                .or_insert_with(|| predicted(p, h, &t, cwd.as_deref()));
            d.predicted = pr
                .as_ref()
                .map(|v| v.iter().any(|(pp, sha)| *pp == d.path && *sha == d.sha256));
        }
        d.text = String::new();
    }
    s.not_received = not_received(p, s);
    if s.format != own::FORMAT {
        skills_on_disk(p, s);
    }
}

/// The `description:` of a SKILL.md's frontmatter (one line, quotes removed).
fn disk_description(text: &str) -> Option<String> {
    let body = text.strip_prefix("---\n")?;
    let end = body.find("\n---")?;
    body[..end].lines().find_map(|l| {
        let v = l.strip_prefix("description:")?.trim();
        Some(v.trim_matches(|c| c == '"' || c == '\'').to_owned())
    })
}

/// The skill directories Claude Code lists for a session in `cwd`: the project's, then the
/// user's.
#[must_use]
pub fn claude_skill_dirs(env: &Env, cwd: Option<&str>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(c) = cwd {
        dirs.push(PathBuf::from(c).join(".claude/skills"));
    }
    if let Some(h) = &env.home {
        dirs.push(h.join(".claude/skills"));
    }
    dirs
}

/// Marks listed descriptions shorter than the SKILL.md's on disk (project or user skills).
fn skills_on_disk(p: &Place<'_>, s: &mut SessionAudit) {
    let dirs = claude_skill_dirs(p.env, s.cwd.as_deref());
    for l in &mut s.skill_listings {
        for sk in &mut l.skills {
            let disk = dirs
                .iter()
                .find_map(|d| std::fs::read_to_string(d.join(&sk.name).join("SKILL.md")).ok())
                .and_then(|t| disk_description(&t));
            if let Some(full) = disk
                && sk.description == "full"
                && sk.text.chars().count() < full.chars().count()
            {
                sk.description = "shortened";
            }
            sk.text = String::new();
        }
    }
}

/// Audits the `n` most recent sessions of each client for the workspace of `p` (the language
/// server's background audit, spec/interfaces.md §4.6): newest first per client, each streamed
/// and compared; a file that cannot be read is left out, a session whose cwd lies outside the
/// workspace too.
#[must_use]
pub fn recent(p: &Place<'_>, n: usize) -> Vec<SessionAudit> {
    let mut out: Vec<SessionAudit> = recent_files(p.env, p.root, n)
        .into_iter()
        .filter_map(|f| {
            let shown = f.display().to_string();
            let mut s = read_file(&f, &shown).ok()?;
            compare(p, &mut s);
            (s.workspace_match == Some(true)).then_some(s)
        })
        .collect();
    out.extend(own_sessions(p, n).unwrap_or_default());
    out
}

/// The `n` most recently updated sessions of alisio-ls's own store (`$ALISIO_STATE_HOME`) for
/// the workspace of `p`, compared; none when there is no store.
///
/// # Errors
/// The store cannot be read (`<sessions.db>: <error>`).
pub fn own_sessions(p: &Place<'_>, n: usize) -> Result<Vec<SessionAudit>, AuditError> {
    let Some(state) = p.env.state_home() else {
        return Ok(Vec::new());
    };
    let shown = own::store_file(&state).display().to_string();
    let mut v = own::workspace_sessions(&state, p.root, &shown, n)?;
    for s in &mut v {
        compare(p, s);
    }
    Ok(v)
}

#[cfg(test)]
mod tests;
