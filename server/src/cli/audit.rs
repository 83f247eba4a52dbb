//! `alisio-ls audit [FILE|DIR...]` (spec/interfaces.md §4): what recorded agent sessions
//! received. Streams each session file through `alisio_governor::audit` (bounded memory), then
//! compares what was delivered with the files on disk now and with `context explain`'s
//! prediction for the session's cwd and host. Read only: nothing is written but `--html`'s page,
//! nothing is sent anywhere.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Ctx, Exit, Failure, err_line, out};
use alisio_base::config::Host;
use alisio_base::workspace::{self, Fs as _, is_inside};
use alisio_governor::audit::{Auditor, SessionAudit};
use alisio_rules::instructions::{Setup, claude_text::delivered_text, explain, read::Reader};

#[derive(clap::Args, Debug)]
pub struct AuditArgs {
    /// Session files or directories (searched for `*.jsonl`). Without one: this workspace's
    /// sessions in ~/.claude/projects/ and $CODEX_HOME/sessions/.
    #[arg(value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,
    /// Also write a self-contained HTML page (tables and the per-request cache chart).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
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
fn jsonl_below(dir: &Path) -> Vec<PathBuf> {
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

/// The default sources of this workspace (spec/interfaces.md §4): Claude Code's project
/// directories of the root and every directory below it, and Codex's sessions (kept when their
/// cwd lies in the workspace).
fn default_files(ctx: &Ctx) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut claude = Vec::new();
    if let Some(home) = &ctx.env.home {
        let projects = home.join(".claude/projects");
        let want = claude_project_dir(&ctx.root);
        if let Ok(rd) = std::fs::read_dir(&projects) {
            let mut dirs: Vec<PathBuf> = rd
                .flatten()
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n == want || n.starts_with(&format!("{want}-"))
                })
                .map(|e| e.path())
                .collect();
            dirs.sort();
            for d in dirs {
                claude.extend(jsonl_below(&d));
            }
        }
    }
    let codex = ctx
        .env
        .codex_home()
        .map(|h| jsonl_below(&h.join("sessions")))
        .unwrap_or_default();
    (claude, codex)
}

/// The longest line read (64 MiB): a longer one is skipped and counted, so one line never
/// holds more memory than this.
const MAX_LINE: usize = 64 << 20;

/// Feeds every line of `r` to `a`; a line over `max_line` bytes is skipped (and counted).
fn stream(mut r: impl std::io::BufRead, a: &mut Auditor, max_line: usize) -> std::io::Result<()> {
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
fn read_file(path: &Path, shown: &str) -> Result<SessionAudit, Failure> {
    let f = std::fs::File::open(path).map_err(|e| Failure(format!("{shown}: {e}")))?;
    let mut a = Auditor::new(shown);
    stream(
        std::io::BufReader::with_capacity(1 << 16, f),
        &mut a,
        MAX_LINE,
    )
    .map_err(|e| Failure(format!("{shown}: {e}")))?;
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
    s.problems = vec![alisio_governor::audit::Problem {
        line: 0,
        message: "this format records no instruction deliveries, skill listings or per-request cache figures".into(),
    }];
}

fn host_of(s: &SessionAudit) -> Option<Host> {
    match s.format {
        "claude-code" => Some(Host::ClaudeCode),
        "codex" => Some(Host::Codex),
        _ => None,
    }
}

/// `(absolute path, sha256)` of every file explain predicts for `target` in a session started in
/// `session` (imports that need no approval included), or `None` when explain cannot run there.
fn predicted(
    ctx: &Ctx,
    host: Host,
    target: &Path,
    session: Option<&Path>,
) -> Option<Vec<(String, String)>> {
    let dir = if target.is_dir() {
        target
    } else {
        target.parent().unwrap_or(target)
    };
    let canon = ctx.fs.canonicalize(dir).ok()?;
    let root = workspace::find_root(&ctx.fs, &canon);
    let managed = ctx
        .env
        .claude_managed_file
        .clone()
        .unwrap_or_else(alisio_rules::instructions::default_claude_managed_file);
    let session = session.map(|d| ctx.fs.canonicalize(d).unwrap_or_else(|_| d.to_path_buf()));
    let setup = Setup {
        fs: &ctx.fs,
        env: &ctx.env,
        root: &root,
        settings: &ctx.settings,
        host,
        claude_managed: Some(&managed),
        claude_session: session.as_deref(),
    };
    let reader = Reader::new(&ctx.fs);
    let ex = explain::explain_path(&setup, &reader, &ctx.cwd, target).ok()?;
    let obj = ex.to_json();
    let abs = |p: &str| {
        if Path::new(p).is_absolute() {
            p.to_owned()
        } else {
            root.join(p).display().to_string()
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
/// files joined as Codex joins them; docs/spec/hosts.md), `None` when none is sent or explain
/// cannot run there.
fn codex_predicted(ctx: &Ctx, cwd: &Path) -> Option<Option<String>> {
    let canon = ctx.fs.canonicalize(cwd).ok()?;
    let root = workspace::find_root(&ctx.fs, &canon);
    let setup = Setup {
        fs: &ctx.fs,
        env: &ctx.env,
        root: &root,
        settings: &ctx.settings,
        host: Host::Codex,
        claude_managed: None,
        claude_session: None,
    };
    let reader = Reader::new(&ctx.fs);
    let obj = explain::explain_path(&setup, &reader, &ctx.cwd, cwd)
        .ok()?
        .to_json();
    let (mut global, mut project) = (None, Vec::new());
    for f in obj["files"].as_array().into_iter().flatten() {
        let p = f["path"].as_str().unwrap_or_default();
        let path = if Path::new(p).is_absolute() {
            PathBuf::from(p)
        } else {
            root.join(p)
        };
        let kept = usize::try_from(f["keptBytes"].as_u64().unwrap_or(0)).unwrap_or(0);
        if f["empty"] == true || f["truncation"] == "dropped" || kept == 0 {
            continue;
        }
        let raw = std::fs::read(&path).ok()?;
        let text = String::from_utf8_lossy(&raw[..kept.min(raw.len())]).into_owned();
        if f["scope"] == "global" {
            global = Some(text);
        } else {
            project.push(text);
        }
    }
    let project = (!project.is_empty()).then(|| project.join("\n\n"));
    Some(match (global, project) {
        (None, None) => None,
        (Some(g), None) => Some(g),
        (None, Some(p)) => Some(p),
        (Some(g), Some(p)) => Some(format!("{g}\n\n--- project-doc ---\n\n{p}")),
    })
}

/// Fills the comparisons of `s` with the disk and explain.
fn compare(ctx: &Ctx, s: &mut SessionAudit) {
    s.workspace_match = s
        .cwd
        .as_ref()
        .map(|c| is_inside(Path::new(c), &ctx.root) || Path::new(c) == ctx.root);
    let host = host_of(s);
    let mut cache: HashMap<PathBuf, Option<Vec<(String, String)>>> = HashMap::new();
    let cwd = s.cwd.clone().map(PathBuf::from);
    let mut disk: HashMap<(String, String), &'static str> = HashMap::new();
    for d in &mut s.deliveries {
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
            let text = codex_predicted(ctx, Path::new(&d.path));
            d.predicted =
                text.map(|t| t.is_some_and(|t| alisio_governor::audit::sha256_hex(&t) == d.sha256));
        } else if let (Some(h), Some(t)) = (host, target)
            && h == Host::ClaudeCode
        {
            let p = cache
                .entry(t.clone())
                .or_insert_with(|| predicted(ctx, h, &t, cwd.as_deref()));
            d.predicted = p
                .as_ref()
                .map(|v| v.iter().any(|(pp, sha)| *pp == d.path && *sha == d.sha256));
        }
        d.text = String::new();
    }
    skills_on_disk(ctx, s);
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

/// Marks listed descriptions shorter than the SKILL.md's on disk (project or user skills).
fn skills_on_disk(ctx: &Ctx, s: &mut SessionAudit) {
    let mut dirs = Vec::new();
    if let Some(c) = &s.cwd {
        dirs.push(PathBuf::from(c).join(".claude/skills"));
    }
    if let Some(h) = &ctx.env.home {
        dirs.push(h.join(".claude/skills"));
    }
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

pub fn run(ctx: &Ctx, a: &AuditArgs) -> Result<Exit, Failure> {
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    if a.paths.is_empty() {
        let (claude, codex) = default_files(ctx);
        files.extend(claude.into_iter().map(|p| (p, false)));
        files.extend(codex.into_iter().map(|p| (p, true)));
    } else {
        for p in &a.paths {
            let abs = ctx.resolve(p);
            match std::fs::metadata(&abs) {
                Ok(m) if m.is_dir() => {
                    files.extend(jsonl_below(&abs).into_iter().map(|p| (p, false)))
                }
                Ok(_) => files.push((abs, false)),
                Err(e) => return Err(Failure(format!("{}: {e}", p.display()))),
            }
        }
    }
    let mut sessions = Vec::new();
    for (f, only_workspace) in files {
        let shown = ctx.display(&f);
        let mut s = read_file(&f, &shown)?;
        compare(ctx, &mut s);
        if only_workspace && s.workspace_match != Some(true) {
            continue;
        }
        sessions.push(s);
    }
    if let Some(h) = &a.html {
        super::audit_html::write(&ctx.resolve(h), &h.display().to_string(), &sessions)?;
    }
    if ctx.args.json {
        let v = json!({"version": 1, "sessions": sessions});
        out(&format!("{v:#}\n"));
    } else {
        out(&super::audit_human::render(&sessions));
    }
    if sessions.is_empty() && a.paths.is_empty() {
        err_line(
            "note: no session of this workspace was found in ~/.claude/projects/ or $CODEX_HOME/sessions/",
        );
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_cap_is_skipped_and_counted_and_the_next_is_read() {
        let user = r#"{"type":"user","sessionId":"s","uuid":"a","cwd":"/w","message":{"role":"user","content":"hi"}}"#;
        let text = format!("{user}\n{}\n{user}\n{}", "x".repeat(500), "y".repeat(300));
        let mut a = Auditor::new("t");
        stream(
            std::io::BufReader::with_capacity(16, text.as_bytes()),
            &mut a,
            200,
        )
        .unwrap();
        let s = a.finish(None);
        assert_eq!((s.lines, s.skipped_lines, s.prompts), (4, 2, 2));
        let p: Vec<(usize, &str)> = s
            .problems
            .iter()
            .map(|p| (p.line, p.message.as_str()))
            .collect();
        assert_eq!(
            p,
            [
                (2, "line longer than 200 bytes"),
                (4, "line longer than 200 bytes")
            ]
        );
    }

    #[test]
    fn claude_project_dir_names() {
        assert_eq!(
            claude_project_dir(Path::new("/home/a/my.repo_x")),
            "-home-a-my-repo-x"
        );
    }
}
