//! Skill rules about what a skill lets happen (spec/skills.md §2.11): an `allowed-tools` entry
//! that pre-approves every shell command (`skill-shell-unrestricted`), a skill whose name or
//! description says it deploys, publishes or deletes while the model may invoke it on its own
//! (`skill-side-effect-invocable`, opinionated), a literal secret in the file (`skill-secret`),
//! and an empty `compatibility` (`skill-compatibility-empty`).

use std::path::Path;

use super::problem::RuleProblem;
use super::tools::split_tools;
use crate::instructions::diagnostics::content::secrets;
use crate::skills::frontmatter::{Frontmatter, Node, Value};
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;
use alisio_base::workspace::{FileType, Fs};

/// Shell tools of Claude Code (`Bash`, `PowerShell`) and of Copilot and Codex skills (`shell`,
/// `bash`).
const SHELLS: &[&str] = &["Bash", "PowerShell", "shell", "bash", "powershell"];

/// Verbs that name an action with effects outside the workspace. Nouns (`deployment`,
/// `migration`, `release`) name a topic more often than an action: on the corpus they were 4 of
/// the 6 findings and none was a side-effect skill (docs/agnix.md, precision).
const SIDE_EFFECTS: &[&str] = &[
    "deploy",
    "deploys",
    "deploying",
    "publish",
    "publishes",
    "publishing",
    "delete",
    "deletes",
    "deleting",
    "destroy",
    "destroys",
    "purge",
    "wipe",
    "rollback",
];

fn unrestricted(entry: &str) -> Option<&str> {
    let (tool, spec) = match entry.split_once('(') {
        Some((t, rest)) => (t.trim(), Some(rest.trim_end_matches(')').trim())),
        None => (entry.trim(), None),
    };
    let all = spec.is_none_or(|s| matches!(s, "" | "*" | ":*" | "* "));
    (SHELLS.contains(&tool) && all).then_some(tool)
}

fn nodes(v: &Node) -> Vec<&Node> {
    match &v.value {
        Value::Seq(items) => items.iter().collect(),
        Value::Scalar { .. } if v.as_str().is_some() => vec![v],
        _ => Vec::new(),
    }
}

/// `skill-shell-unrestricted` on each entry of `allowed-tools` that approves every command.
pub(super) fn check_shell(text: &str, fm: &Frontmatter, problems: &mut Vec<RuleProblem>) {
    let Some(e) = fm.get("allowed-tools") else {
        return;
    };
    for n in nodes(&e.value) {
        let src = text.get(n.span.start..n.span.end).unwrap_or("");
        for (o, raw) in split_tools(src) {
            let entry = raw.trim_matches(['"', '\'']);
            let Some(tool) = unrestricted(entry) else {
                continue;
            };
            let start = n.span.start + o + raw.find(entry).unwrap_or(0);
            problems.push(RuleProblem::new(
                Code::SkillShellUnrestricted,
                TextRange::new(start, start + entry.len()),
                format!(
                    "\"{entry}\" pre-approves every {tool} command while this skill runs: whatever its instructions lead to runs without asking (name the commands, e.g. {tool}(git status:*))"
                ),
            ));
        }
    }
}

fn truthy(n: &Node) -> bool {
    match &n.value {
        Value::Scalar { text, .. } => matches!(
            text.trim().to_ascii_lowercase().as_str(),
            "true" | "yes" | "on" | "1"
        ),
        _ => false,
    }
}

/// `skill-side-effect-invocable`: a side-effect word in the name or the description, and no
/// `disable-model-invocation: true`.
pub(super) fn check_side_effect(fm: &Frontmatter, problems: &mut Vec<RuleProblem>) {
    if fm
        .get("disable-model-invocation")
        .is_some_and(|e| truthy(&e.value))
    {
        return;
    }
    for key in ["name", "description"] {
        let Some(e) = fm.get(key) else { continue };
        let Some(v) = e.value.as_str() else { continue };
        let word = v
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(str::to_ascii_lowercase)
            .find(|w| SIDE_EFFECTS.contains(&w.as_str()));
        if let Some(w) = word {
            problems.push(RuleProblem::new(
                Code::SkillSideEffectInvocable,
                e.value.span,
                format!(
                    "this skill says it does \"{w}\", and the model may invoke it on its own: add disable-model-invocation: true so only a user's /command runs it"
                ),
            ));
            return;
        }
    }
}

/// `skill-secret` anywhere in the file.
pub(super) fn check_secrets(text: &str, problems: &mut Vec<RuleProblem>) {
    for (r, what) in secrets::find(text) {
        problems.push(RuleProblem::new(
            Code::SkillSecret,
            r,
            secrets::message(text, r, what),
        ));
    }
}

/// `skill-compatibility-empty`: `compatibility: ""` (the specification wants 1–500 characters
/// when the key is given; `compatibility:` with no value is absent).
pub(super) fn check_compatibility(fm: &Frontmatter, problems: &mut Vec<RuleProblem>) {
    let Some(e) = fm.get("compatibility") else {
        return;
    };
    if e.value.is_null() {
        return;
    }
    if e.value.as_str().is_some_and(|s| s.trim().is_empty()) {
        problems.push(RuleProblem::new(
            Code::SkillCompatibilityEmpty,
            e.value.span,
            "compatibility is empty: the specification wants 1 to 500 characters when the key is given (remove it, or say what the skill needs)",
        ));
    }
}

/// The upload limit of a skill directory on claude.ai and the Claude API.
pub const UPLOAD_LIMIT: u64 = 30 * 1024 * 1024;
/// At most this many entries of a skill directory are looked at.
const UPLOAD_SCAN_ENTRIES: usize = 10_000;

/// The bytes of the regular files below `dir` (symlinks not followed; `known` is the size of
/// its `SKILL.md`), stopping once past `limit` or after [`UPLOAD_SCAN_ENTRIES`] entries.
fn dir_bytes(fs: &dyn Fs, dir: &Path, known: u64, limit: u64) -> u64 {
    let mut total = 0u64;
    let mut seen = 0usize;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs.read_dir_unsorted(&d) else {
            continue;
        };
        for e in entries {
            seen += 1;
            if seen > UPLOAD_SCAN_ENTRIES || total > limit {
                return total;
            }
            let p = d.join(&e.name);
            match e.file_type {
                FileType::Dir => stack.push(p),
                // The SKILL.md's own size is known: no `stat` for it.
                FileType::File if d == dir && e.name == "SKILL.md" => total += known,
                FileType::File => total += fs.symlink_metadata(&p).map_or(0, |m| m.len),
                _ => {}
            }
        }
    }
    total
}

/// `skill-upload-too-large`: the skill's directory is over [`UPLOAD_LIMIT`].
pub(super) fn check_upload_size(
    fs: &dyn Fs,
    file: &Path,
    size: u64,
    first_line: TextRange,
    problems: &mut Vec<RuleProblem>,
) {
    let Some(dir) = file.parent() else {
        return;
    };
    let total = dir_bytes(fs, dir, size, UPLOAD_LIMIT);
    if total > UPLOAD_LIMIT {
        problems.push(RuleProblem::new(
            Code::SkillUploadTooLarge,
            first_line,
            format!(
                "this skill's directory holds more than {} MB ({total} bytes counted): claude.ai and the Claude API accept at most 30 MB per skill upload",
                UPLOAD_LIMIT / (1024 * 1024)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use alisio_base::config::Profile;
    use alisio_base::workspace::DiskFs;

    /// (code, text of the range, message) of the four rules on one SKILL.md.
    fn found(text: &str, profile: Profile) -> Vec<(String, String, String)> {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("s/SKILL.md");
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, text).unwrap();
        let c = super::super::check(&DiskFs, &f, text.as_bytes(), text.len() as u64, profile);
        c.diagnostics
            .iter()
            .filter(|d| {
                d.code.as_str().starts_with("skill-s")
                    || d.code.as_str() == "skill-compatibility-empty"
            })
            .map(|d| {
                let r = d.span.bytes;
                (
                    d.code.as_str().to_string(),
                    text[r.start..r.end].to_string(),
                    d.message.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn restricted_tools_opted_out_skills_and_placeholders_are_fine() {
        let t = "---\nname: s\ndescription: Deploys the app. Use when asked.\ndisable-model-invocation: yes\nallowed-tools: Bash(git status:*), Read\ncompatibility:\n---\nUse `sk-...` from the environment.\n";
        assert_eq!(found(t, Profile::Alisio), []);
        let t = "---\nname: s\ndescription: Formats code. Use when formatting.\nallowed-tools:\n  - Read\n  - \"Bash(npm test)\"\n---\nx\n";
        assert_eq!(found(t, Profile::ClaudeCode), []);
    }

    #[test]
    fn each_rule_has_its_range_and_message() {
        let t = "---\nname: s\ndescription: Use when deploying to staging.\nallowed-tools: Bash, Read, \"shell(*)\"\ncompatibility: \"\"\n---\nx\n";
        assert_eq!(
            found(t, Profile::Alisio),
            [
                ("skill-side-effect-invocable".into(), "Use when deploying to staging.".into(), "this skill says it does \"deploying\", and the model may invoke it on its own: add disable-model-invocation: true so only a user's /command runs it".into()),
                ("skill-shell-unrestricted".into(), "Bash".into(), "\"Bash\" pre-approves every Bash command while this skill runs: whatever its instructions lead to runs without asking (name the commands, e.g. Bash(git status:*))".into()),
                ("skill-shell-unrestricted".into(), "shell(*)".into(), "\"shell(*)\" pre-approves every shell command while this skill runs: whatever its instructions lead to runs without asking (name the commands, e.g. shell(git status:*))".into()),
                ("skill-compatibility-empty".into(), "\"\"".into(), "compatibility is empty: the specification wants 1 to 500 characters when the key is given (remove it, or say what the skill needs)".into()),
            ]
        );
        // Codex ignores allowed-tools; the side-effect rule is Claude Code's.
        assert_eq!(found(t, Profile::Codex), []);
        let token = format!("ghp_{}", "aB3dE5fG7hJ9kL2mN4pQ6rS8tU1vW3xY5zA7b");
        let t = format!("---\nname: s\ndescription: d\n---\nTOKEN = \"{token}\"\n");
        let f = found(&t, Profile::Codex);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].0.as_str(), f[0].1.as_str()),
            ("skill-secret", token.as_str())
        );
    }

    #[test]
    fn a_directory_over_30_mb_is_too_large_to_upload() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("big/SKILL.md");
        std::fs::create_dir_all(d.path().join("big/assets")).unwrap();
        let text = "---\nname: big\ndescription: d\n---\nx\n";
        std::fs::write(&f, text).unwrap();
        let blob = std::fs::File::create(d.path().join("big/assets/blob.bin")).unwrap();
        blob.set_len(super::UPLOAD_LIMIT - 100).unwrap();
        let codes = |p: Profile| {
            super::super::check(&DiskFs, &f, text.as_bytes(), text.len() as u64, p)
                .diagnostics
                .iter()
                .filter(|d| d.code.as_str() == "skill-upload-too-large")
                .map(|d| (d.span.bytes, d.message.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(codes(Profile::Alisio), []);
        blob.set_len(super::UPLOAD_LIMIT).unwrap();
        let n = super::UPLOAD_LIMIT + text.len() as u64;
        assert_eq!(
            codes(Profile::Alisio),
            [(
                alisio_base::text::TextRange::new(0, 3),
                format!(
                    "this skill's directory holds more than 30 MB ({n} bytes counted): claude.ai and the Claude API accept at most 30 MB per skill upload"
                )
            )]
        );
        assert_eq!(codes(Profile::Codex), []);
    }
}
