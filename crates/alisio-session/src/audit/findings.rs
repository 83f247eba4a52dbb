//! What the audit of recent sessions means for the files of a workspace (spec/interfaces.md
//! §4.6): per session, the findings the Audit Sessions view lists; over the recent sessions, the
//! diagnostics on the instruction file or SKILL.md concerned (three codes, spec/interfaces.md
//! §2) and the lens titles ("Claude Code, last 5 sessions: delivered 5/5; 1 ran an older copy").
//! Plain data: the caller gives the audits (already compared with the disk) and the file's text.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange, first_line_span};
use alisio_base::workspace::Env;
use alisio_governor::audit::SessionAudit;

/// The client that wrote a session, as the editor names it.
#[must_use]
pub fn client_name(format: &str) -> &'static str {
    match format {
        "claude-code" => "Claude Code",
        "codex" => "Codex",
        super::own::FORMAT => "alisio-ls",
        _ => "unknown client",
    }
}

/// The `--host` of `context explain` a session's format is compared with.
fn host_flag(format: &str) -> &'static str {
    match format {
        "codex" => "codex",
        super::own::FORMAT => "alisio",
        _ => "claude-code",
    }
}

/// One thing a session shows about a file of the workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionFinding {
    /// `older-copy`, `not-predicted`, `not-received`, `import-not-expanded`,
    /// `reference-unread`, `description-shortened`, `description-dropped` or `skipped-lines`.
    pub kind: &'static str,
    /// The file concerned (absolute), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
    /// The text the finding is about in that file (an `@import`, a file name), when there is
    /// one (never serialised; the diagnostics locate it).
    #[serde(skip)]
    pub token: Option<String>,
    /// The skill concerned (never serialised).
    #[serde(skip)]
    pub skill: Option<String>,
}

/// The canonical form of a path a client named (itself when it does not resolve).
fn canon(p: &str) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p))
}

/// The SKILL.md of a skill a session listed or invoked: its directory when the client named it,
/// else the first of the project's and the user's skill directories that has it.
fn skill_file(env: &Env, s: &SessionAudit, name: &str, dir: Option<&str>) -> Option<PathBuf> {
    if let Some(d) = dir {
        return Some(canon(&format!("{d}/SKILL.md")));
    }
    super::claude_skill_dirs(env, s.cwd.as_deref())
        .into_iter()
        .map(|d| d.join(name).join("SKILL.md"))
        .find(|p| p.is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
}

fn finding(kind: &'static str, path: Option<PathBuf>, message: String) -> SessionFinding {
    SessionFinding {
        kind,
        path: path.map(|p| p.display().to_string()),
        message,
        token: None,
        skill: None,
    }
}

/// The instruction-file findings of one session.
fn delivery_findings(s: &SessionAudit, out: &mut Vec<SessionFinding>) {
    let mut seen = BTreeSet::new();
    for d in &s.deliveries {
        if s.format == "codex" {
            // Codex sends one joined text per cwd: a difference is on each file joined there.
            if d.predicted == Some(false) {
                for f in &d.joined {
                    if seen.insert(("not-predicted", f.clone())) {
                        out.push(finding(
                            "not-predicted",
                            Some(canon(f)),
                            format!("the instructions sent for {} differ from what `context explain --host codex` predicts there now", d.path),
                        ));
                    }
                }
            }
            continue;
        }
        let path = canon(&d.path);
        let shown = path.display().to_string();
        if d.on_disk == Some("older-copy") && seen.insert(("older-copy", shown.clone())) {
            out.push(finding(
                "older-copy",
                Some(path.clone()),
                format!("ran an older copy of {shown}"),
            ));
        }
        if d.on_disk == Some("same")
            && d.predicted == Some(false)
            && seen.insert(("not-predicted", shown.clone()))
        {
            let cwd = s.cwd.as_deref().unwrap_or("?");
            let host = host_flag(s.format);
            out.push(finding(
                "not-predicted",
                Some(path.clone()),
                format!("received {shown} unchanged since, but `context explain --host {host}` does not predict it for {cwd}"),
            ));
        }
        if d.on_disk != Some("same") {
            continue;
        }
        for i in &d.imports {
            let exists = i.path.as_deref().is_some_and(|p| Path::new(p).is_file());
            if i.expanded || !exists || !seen.insert(("import", format!("{shown}\0{}", i.token))) {
                continue;
            }
            let mut f = finding(
                "import-not-expanded",
                Some(path.clone()),
                format!("{shown}: `{}` was not expanded", i.token),
            );
            f.token = Some(i.token.clone());
            out.push(f);
        }
    }
}

/// The files explain predicts for the session's cwd that it never received.
fn not_received_findings(s: &SessionAudit, out: &mut Vec<SessionFinding>) {
    let cwd = s.cwd.as_deref().unwrap_or("?");
    let host = host_flag(s.format);
    for n in &s.not_received {
        out.push(finding(
            "not-received",
            Some(canon(&n.path)),
            format!(
                "`context explain --host {host}` predicts {} for {cwd}, but the session never received it",
                n.path
            ),
        ));
    }
}

/// The findings of one session (already compared with the disk), in a stable order: its
/// instruction files (delivered, then not received), its skills, then its unread lines.
#[must_use]
pub fn session_findings(env: &Env, s: &SessionAudit) -> Vec<SessionFinding> {
    let mut out = Vec::new();
    delivery_findings(s, &mut out);
    not_received_findings(s, &mut out);
    let mut seen = BTreeSet::new();
    for u in &s.skills_invoked {
        let file = skill_file(env, s, &u.name, u.dir.as_deref());
        for r in &u.unread_references {
            if !seen.insert((u.name.clone(), r.clone())) {
                continue;
            }
            let mut f = finding(
                "reference-unread",
                file.clone(),
                format!(
                    "skill `{}`: `{r}` was never read after it was invoked",
                    u.name
                ),
            );
            f.token = Some(r.clone());
            f.skill = Some(u.name.clone());
            out.push(f);
        }
    }
    for l in &s.skill_listings {
        for sk in &l.skills {
            let kind = match sk.description {
                "shortened" => "description-shortened",
                "dropped" => "description-dropped",
                _ => continue,
            };
            if !seen.insert((sk.name.clone(), kind.to_owned())) {
                continue;
            }
            let what = if kind == "description-dropped" {
                "dropped from".to_owned()
            } else {
                format!("shortened to {} characters in", sk.description_chars)
            };
            let mut f = finding(
                kind,
                skill_file(env, s, &sk.name, None),
                format!("skill `{}`: description {what} the listing", sk.name),
            );
            f.skill = Some(sk.name.clone());
            out.push(f);
        }
    }
    if s.skipped_lines > 0 {
        out.push(finding(
            "skipped-lines",
            None,
            format!("{} line(s) of the session file skipped", s.skipped_lines),
        ));
    }
    out
}

/// The finding kinds that become diagnostics, with their codes and severities.
fn code_of(kind: &str) -> Option<(Code, Severity)> {
    match kind {
        "not-predicted" => Some((Code::AuditNotPredicted, Severity::Warning)),
        "not-received" => Some((Code::AuditNotReceived, Severity::Warning)),
        "import-not-expanded" => Some((Code::AuditImportNotExpanded, Severity::Warning)),
        "reference-unread" => Some((Code::AuditReferenceUnread, Severity::Information)),
        _ => None,
    }
}

/// One diagnostic to make, before it is located in the file's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingDiagnostic {
    pub file: PathBuf,
    pub code: Code,
    pub severity: Severity,
    /// The text to point at (the first occurrence); `None`: the file's first line.
    pub token: Option<String>,
    pub message: String,
}

/// The sessions of each client (newest first) and their findings.
pub type Audited<'a> = [(&'a SessionAudit, Vec<SessionFinding>)];

/// A diagnostic's identity: the file, the code, the token and the client format.
type GroupKey<'a> = (PathBuf, Code, Option<String>, &'a str);
/// The sessions that showed it, the newest one's id, and its first finding.
type Group<'a> = (usize, &'a str, &'a SessionFinding);

/// The diagnostics of the recent sessions (spec/interfaces.md §4.6): one per file, code and
/// token, counting the sessions of that client that showed it, naming the newest.
#[must_use]
pub fn pending(audited: &Audited<'_>) -> Vec<PendingDiagnostic> {
    let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
    for (s, _) in audited {
        *totals.entry(s.format).or_default() += 1;
    }
    // (file, code, token, client) → (sessions, newest session, example finding)
    let mut groups: BTreeMap<GroupKey<'_>, Group<'_>> = BTreeMap::new();
    for (s, findings) in audited {
        for f in findings {
            let (Some((code, _)), Some(path)) = (code_of(f.kind), &f.path) else {
                continue;
            };
            let key = (PathBuf::from(path), code, f.token.clone(), s.format);
            groups
                .entry(key)
                .and_modify(|g| g.0 += 1)
                .or_insert((1, s.session.as_str(), f));
        }
    }
    groups
        .into_iter()
        .map(|((file, code, token, format), (k, newest, f))| {
            let client = client_name(format);
            let n = totals.get(format).copied().unwrap_or(k);
            let of = format!("{k} of the last {n} {client} session(s) (newest: {newest})");
            let message = match code {
                Code::AuditNotPredicted if format == "codex" => format!(
                    "in {of}, the instructions Codex sent differ from what `context explain --host codex` predicts now"
                ),
                Code::AuditNotPredicted => format!(
                    "{client} received this file, unchanged since, in {of}, but `context explain --host {}` does not predict it for the session's cwd",
                    host_flag(format)
                ),
                Code::AuditNotReceived => format!(
                    "{client} never received this file in {of}, but `context explain --host {}` predicts it for the session's cwd",
                    host_flag(format)
                ),
                Code::AuditImportNotExpanded => format!(
                    "{client} did not expand `{}` in {of}: the model got the line, not the file",
                    token.as_deref().unwrap_or_default()
                ),
                _ => format!(
                    "skill `{}` was invoked in {of}, and `{}` was never read after it",
                    f.skill.as_deref().unwrap_or_default(),
                    token.as_deref().unwrap_or_default()
                ),
            };
            let severity = code_of(f.kind).map_or(Severity::Warning, |c| c.1);
            PendingDiagnostic {
                file,
                code,
                severity,
                token,
                message,
            }
        })
        .collect()
}

/// The first occurrence of `token` in `text` that starts a word (at the start or after a space
/// or punctuation that is not part of a path).
fn locate(text: &str, token: &str) -> Option<TextRange> {
    let mut from = 0;
    while let Some(i) = text[from..].find(token).map(|i| i + from) {
        let before = text[..i].chars().next_back();
        if before.is_none_or(|c| !(c.is_alphanumeric() || "/._-@".contains(c))) {
            return Some(TextRange::new(i, i + token.len()));
        }
        from = i + token.len();
    }
    None
}

/// The diagnostics of `file` located in its text now.
#[must_use]
pub fn diagnostics(pending: &[PendingDiagnostic], file: &Path, text: &str) -> Vec<Diagnostic> {
    let idx = LineIndex::new(text);
    pending
        .iter()
        .filter(|p| p.file == file)
        .map(|p| {
            let span = p
                .token
                .as_deref()
                .and_then(|t| locate(text, t))
                .map_or_else(|| first_line_span(text), |r| idx.span(r));
            Diagnostic::new(file, span, p.severity, p.code, p.message.clone())
        })
        .collect()
}

/// Per file and client: the sessions that received it, ran an older copy, or disagreed with
/// explain; for a skill, that listed it, invoked it, or left a reference unread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Counts {
    delivered: usize,
    older: usize,
    not_predicted: usize,
    not_received: usize,
    listed: usize,
    invoked: usize,
    unread: usize,
}

/// The lens titles of the recent sessions, per file (spec/interfaces.md §4.6).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lenses {
    /// Sessions per client format, in the order met.
    clients: Vec<(&'static str, usize, bool)>,
    files: BTreeMap<(PathBuf, &'static str), Counts>,
}

impl Lenses {
    /// Tallies the audited sessions.
    #[must_use]
    pub fn new(env: &Env, audited: &Audited<'_>) -> Self {
        let mut l = Self::default();
        for (s, findings) in audited {
            match l.clients.iter_mut().find(|c| c.0 == s.format) {
                Some(c) => c.1 += 1,
                None => l.clients.push((s.format, 1, false)),
            }
            let has_listing = !s.skill_listings.is_empty();
            if has_listing && let Some(c) = l.clients.iter_mut().find(|c| c.0 == s.format) {
                c.2 = true;
            }
            let mut files: BTreeSet<PathBuf> = BTreeSet::new();
            for d in &s.deliveries {
                if s.format == "codex" {
                    files.extend(d.joined.iter().map(|p| canon(p)));
                } else {
                    files.insert(canon(&d.path));
                }
            }
            for f in files {
                l.entry(f, s.format).delivered += 1;
            }
            let mut skills: BTreeSet<PathBuf> = BTreeSet::new();
            for sk in s.skill_listings.iter().flat_map(|x| &x.skills) {
                skills.extend(skill_file(env, s, &sk.name, None));
            }
            for f in skills {
                l.entry(f, s.format).listed += 1;
            }
            let invoked: BTreeSet<PathBuf> = s
                .skills_invoked
                .iter()
                .filter_map(|u| skill_file(env, s, &u.name, u.dir.as_deref()))
                .collect();
            for f in invoked {
                l.entry(f, s.format).invoked += 1;
            }
            let mut kinds: BTreeSet<(PathBuf, &str)> = BTreeSet::new();
            for f in findings {
                if let Some(p) = &f.path {
                    kinds.insert((PathBuf::from(p), f.kind));
                }
            }
            for (p, kind) in kinds {
                let c = l.entry(p, s.format);
                match kind {
                    "older-copy" => c.older += 1,
                    "not-predicted" => c.not_predicted += 1,
                    "not-received" => c.not_received += 1,
                    "reference-unread" => c.unread += 1,
                    _ => {}
                }
            }
        }
        l
    }

    fn entry(&mut self, p: PathBuf, format: &'static str) -> &mut Counts {
        self.files.entry((p, format)).or_default()
    }

    /// The titles for `file` (an instruction file, or a SKILL.md when `skill`): one per client
    /// with recent sessions (for a skill, one per client that sent a skill listing).
    #[must_use]
    pub fn titles(&self, file: &Path, skill: bool) -> Vec<String> {
        let mut out = Vec::new();
        for &(format, n, listing) in &self.clients {
            if skill && !listing {
                continue;
            }
            let c = self
                .files
                .get(&(file.to_path_buf(), format))
                .cloned()
                .unwrap_or_default();
            let client = client_name(format);
            let mut parts = if skill {
                vec![format!("listed {}/{n}", c.listed)]
            } else {
                vec![format!("delivered {}/{n}", c.delivered)]
            };
            let extra = [
                (c.invoked, "invoked it"),
                (c.unread, "left a reference unread"),
                (c.older, "ran an older copy"),
                (c.not_predicted, "not as explain predicts"),
                (c.not_received, "never received it"),
            ];
            parts.extend(
                extra
                    .iter()
                    .filter(|(k, _)| *k > 0)
                    .map(|(k, what)| format!("{k} {what}")),
            );
            let last = if n == 1 {
                "last session".to_owned()
            } else {
                format!("last {n} sessions")
            };
            out.push(format!("{client}, {last}: {}", parts.join("; ")));
        }
        out
    }
}

#[cfg(test)]
mod tests;
