//! A `SKILL.md` created, changed or deleted on disk (not open in the editor) gets its own
//! diagnostics at once, on a task of its own, not behind a full pass in progress (issue 14: on a
//! 15,000-skill tree a pass takes seconds, and a file written while the first one runs must show
//! its diagnostics within 5 s). The full pass the same event schedules then publishes the file's
//! complete set (discovery codes included).
//!
//! Ordering: every such publication takes a number from `State::disk_seq`; a pass whose
//! snapshot was taken before that number leaves the file alone (its view of the disk is older),
//! and a publication whose number a pass has already covered is dropped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tower_lsp_server::Client;

use super::jobs::lock;
use super::state::{Snapshot, State};
use alisio_base::workspace::{DiskFs, FileType, Fs as _};

/// Codes of a skill's discovery, which the file's own validation does not compute: the fast
/// path keeps them from the last pass.
pub fn is_discovery_code(c: alisio_base::diagnostic::Code) -> bool {
    use alisio_base::diagnostic::Code;
    matches!(
        c,
        Code::SkillShadowed
            | Code::SkillUntrusted
            | Code::SkillNotDiscovered
            | Code::SkillScanLimit
            | Code::SkillSymlink
    )
}

/// The diagnostics of one SKILL.md as the editor shows them between passes: its validation
/// under the active profile (buffer or disk), the discovery codes of the last pass, after
/// suppressions, sorted, in protocol form.
pub fn own_diagnostics(snap: &Snapshot, p: &Path) -> Vec<tower_lsp_server::ls_types::Diagnostic> {
    let mut diags = if alisio_rules::families::family_of(p).is_some() {
        family_diagnostics(snap, p)
    } else {
        alisio_rules::skills::validate::check_file(&snap.fs(), p, snap.options.profile).diagnostics
    };
    if let Some(r) = snap.results.get(&snap.folder_of(p)) {
        diags.extend(
            r.skills
                .diagnostics
                .iter()
                .filter(|d| d.file == p && is_discovery_code(d.code))
                .cloned(),
        );
    }
    // The findings of recent sessions on this skill (spec/interfaces.md §4.6).
    let folder = snap.folder_of(p);
    diags.extend(
        super::audit::diagnostics(snap, &folder, &[])
            .into_iter()
            .filter(|d| d.file == p),
    );
    let mut diags = super::suppress::filter_file(snap, p, diags);
    alisio_base::diagnostic::sort(&mut diags);
    diags
        .iter()
        .map(|d| super::diagnostics::to_lsp(d, snap.encoding))
        .collect()
}

/// The diagnostics of one agent, command or MCP file (spec/instructions.md §10.4): what its host
/// (Claude Code, Gemini CLI, Codex CLI) loads in a session started beside it (the directory
/// holding its `.claude`, `.gemini` or `.codex`, or the `.mcp.json` itself), the file's own
/// problems and whether it is shadowed.
fn family_diagnostics(snap: &Snapshot, p: &Path) -> Vec<alisio_base::diagnostic::Diagnostic> {
    // A Copilot agent or prompt file is judged alone (spec/instructions.md §10.9).
    if let Some(kind) = alisio_rules::families::copilot::kind_of(p) {
        return snap
            .text_of(p)
            .map(|t| {
                let t = t.strip_prefix('\u{feff}').unwrap_or(&t);
                alisio_rules::families::copilot::judge_text(p, t, kind).diagnostics
            })
            .unwrap_or_default();
    }
    let vantage = alisio_rules::families::vantage_of(p).unwrap_or_else(|| p.to_path_buf());
    let folder = snap.folder_of(p);
    let cfg = super::analysis::folder_config(snap, &folder);
    let fs = snap.fs();
    let input = cfg.input(&snap.env);
    let Some(kind) = alisio_rules::families::kind_of(p) else {
        return Vec::new();
    };
    alisio_rules::families::startup(&fs, input, &vantage, kind.host)
        .map(|s| s.diagnostics.into_iter().filter(|d| d.file == p).collect())
        .unwrap_or_default()
}

/// The `SKILL.md` files that `changed` (paths a watcher reported) name, and the agent, command
/// and `.mcp.json` files among them: the files themselves,
/// and the `SKILL.md` of a reported directory (a skill directory created with its file in one
/// go may be reported as the directory only).
#[must_use]
pub fn skill_files(changed: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in changed {
        let file = if p.file_name().is_some_and(|n| n == "SKILL.md")
            || alisio_rules::families::family_of(p).is_some()
        {
            p.clone()
        } else if DiskFs
            .symlink_metadata(p)
            .is_ok_and(|m| m.file_type == FileType::Dir)
        {
            p.join("SKILL.md")
        } else {
            continue;
        };
        if !out.contains(&file) {
            out.push(file);
        }
    }
    out
}

/// A file's own diagnostics are published again this long after its change: an event can
/// arrive while the file is still being written (a new directory's files are created before the
/// watcher watches it, so their later writes send no event of their own).
const SETTLE: std::time::Duration = std::time::Duration::from_millis(400);

/// Publishes the own diagnostics of each of `files` that is inside a workspace folder and not
/// open, each on a task of its own: at once, and again after [`SETTLE`].
pub fn spawn(client: &Client, state: &Arc<Mutex<State>>, files: Vec<PathBuf>) {
    for f in files {
        let client = client.clone();
        let state = state.clone();
        tokio::spawn(async move {
            publish(&client, &state, f.clone()).await;
            tokio::time::sleep(SETTLE).await;
            publish(&client, &state, f).await;
        });
    }
}

async fn publish(client: &Client, state: &Mutex<State>, path: PathBuf) {
    let (snap, seq) = {
        let mut st = lock(state);
        let inside = st.folders.iter().any(|f| path.starts_with(f));
        if !inside || st.docs.contains_key(&path) {
            return;
        }
        st.disk_seq += 1;
        let seq = st.disk_seq;
        (st.snapshot(), seq)
    };
    let p = path.clone();
    let computed = tokio::task::spawn_blocking(move || {
        // Before the first pass of an untrusted folder, the probe's `skill-untrusted` is not
        // known yet: the pass publishes the file, not this path.
        let folder = snap.folder_of(&p);
        if !snap.results.contains_key(&folder)
            && !super::analysis::folder_config(&snap, &folder).trusted
        {
            return Err(());
        }
        let exists = DiskFs
            .symlink_metadata(&p)
            .is_ok_and(|m| matches!(m.file_type, FileType::File | FileType::Symlink));
        Ok(exists.then(|| own_diagnostics(&snap, &p)))
    })
    .await;
    let Ok(Ok(computed)) = computed else { return };
    let Some(uri) = super::diagnostics::uri(&path) else {
        return;
    };
    {
        let mut st = lock(state);
        // A pass that read the disk after this file's change has published already; the file
        // was opened meanwhile (the buffer wins); a deleted file never published needs nothing.
        if st.passed_seq >= seq || st.docs.contains_key(&path) {
            return;
        }
        if computed.is_none() && !st.published.contains(&path) {
            return;
        }
        st.disk_published.insert(path.clone(), seq);
        if computed.as_ref().is_some_and(|d| !d.is_empty()) {
            st.published.insert(path.clone());
        } else {
            st.published.remove(&path);
        }
    }
    client
        .publish_diagnostics(uri, computed.unwrap_or_default(), None)
        .await;
}

/// The `SKILL.md` files below each folder modified at `since` or later: what a watcher armed
/// after the server started may have missed (issue 14, "no file is missed at start"). A
/// streaming walk (a stack of directories, nothing kept) with the bounds of the workspace walk:
/// no symlinked directory followed, `.git` and `node_modules` skipped, at most
/// `walk::MAX_DIRS` directories a folder. Ignored directories are not skipped: a file there
/// gets its own diagnostics, and the full pass after clears them.
#[must_use]
pub fn modified_since(folders: &[PathBuf], since: SystemTime) -> Vec<PathBuf> {
    let since_ns = since
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut out = Vec::new();
    for folder in folders {
        let mut stack = vec![folder.clone()];
        let mut seen = 0usize;
        while let Some(dir) = stack.pop() {
            seen += 1;
            if seen > alisio_base::workspace::walk::MAX_DIRS {
                break;
            }
            let Ok(entries) = DiskFs.read_dir(&dir) else {
                continue;
            };
            for e in entries.iter().rev() {
                if e.file_type == FileType::Dir && e.name != ".git" && e.name != "node_modules" {
                    stack.push(dir.join(&e.name));
                }
            }
            if !entries.iter().any(|e| e.name == "SKILL.md") {
                continue;
            }
            let f = dir.join("SKILL.md");
            if DiskFs
                .metadata(&f)
                .ok()
                .and_then(|m| m.mtime_ns)
                .is_some_and(|t| t >= since_ns)
            {
                out.push(f);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_files_and_directories_name_their_skill_files_once() {
        let t = tempfile::tempdir().unwrap();
        let skill = t.path().join("s");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\n---\n").unwrap();
        std::fs::write(t.path().join("AGENTS.md"), "# a\n").unwrap();
        let got = skill_files(&[
            skill.clone(),
            skill.join("SKILL.md"),
            t.path().join("AGENTS.md"),
            t.path().join("gone/SKILL.md"),
        ]);
        // A deleted SKILL.md is named too: its diagnostics are cleared.
        assert_eq!(
            got,
            [skill.join("SKILL.md"), t.path().join("gone/SKILL.md")]
        );
    }

    #[test]
    fn the_sweep_finds_skill_files_modified_since_a_time_only() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in ["a/.agents/skills/old", "a/.agents/skills/new"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
            std::fs::write(root.join(d).join("SKILL.md"), "---\n---\n").unwrap();
        }
        let old = std::fs::File::options()
            .write(true)
            .open(root.join("a/.agents/skills/old/SKILL.md"))
            .unwrap();
        let past = SystemTime::now() - std::time::Duration::from_secs(3600);
        old.set_modified(past).unwrap();
        let since = SystemTime::now() - std::time::Duration::from_secs(60);
        assert_eq!(
            modified_since(std::slice::from_ref(&root), since),
            [root.join("a/.agents/skills/new/SKILL.md")]
        );
        assert_eq!(modified_since(std::slice::from_ref(&root), past).len(), 2);
    }
}
