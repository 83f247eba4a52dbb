//! Frontmatter the host ignores or misreads (spec/instructions.md §5.5): keys a Copilot
//! `.instructions.md`, a Cursor `.mdc` rule or a `.claude/rules` file never reads
//! (`instructions-key-ignored`, also Cursor `globs` beside `alwaysApply: true`); values that do
//! nothing (`instructions-value-invalid`: Copilot `excludeAgent`, a quoted Cursor `alwaysApply`
//! on a rule that is not manual-only); a Copilot `.instructions.md` with no `applyTo`
//! (`instructions-rule-manual-only`) or with no text (`instructions-empty`); and frontmatter in
//! an `AGENTS.md`, which no host reads as settings (`instructions-frontmatter-inert`).

use std::path::Path;

use super::super::super::cursor::{RuleType, rule_type};
use super::super::super::host_files::header;
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

/// Which host's frontmatter a file has, from its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontmatterKind {
    /// `*.instructions.md` (VS Code, GitHub Copilot).
    Copilot,
    /// `.github/copilot-instructions.md`: no frontmatter keys are checked, only emptiness.
    CopilotRepo,
    /// `.cursor/rules/*.mdc`.
    Cursor,
    /// `.claude/rules/**/*.md`.
    ClaudeRule,
    /// `AGENTS.md`, `AGENTS.override.md`.
    Agents,
}

impl FrontmatterKind {
    fn host(self) -> &'static str {
        match self {
            Self::Copilot | Self::CopilotRepo => "Copilot",
            Self::Cursor => "Cursor",
            Self::ClaudeRule => "Claude Code",
            Self::Agents => "no host",
        }
    }

    /// The keys the host reads (VS Code and GitHub docs for Copilot; hosts.md CU3 for Cursor;
    /// Claude Code 2.1.332 reads only `paths` of a rule file).
    fn keys(self) -> &'static [&'static str] {
        match self {
            Self::Copilot => &["applyTo", "description", "name", "excludeAgent"],
            Self::Cursor => &["description", "globs", "alwaysApply"],
            Self::ClaudeRule => &["paths"],
            Self::Agents | Self::CopilotRepo => &[],
        }
    }
}

/// The frontmatter kind of a file, from its path.
#[must_use]
pub fn frontmatter_kind(path: &Path) -> Option<FrontmatterKind> {
    let name = path.file_name()?.to_str()?;
    let under = |a: &str, b: &str| {
        let mut it = path.components().rev().skip(1).map(|c| c.as_os_str());
        let mut prev: Option<&std::ffi::OsStr> = None;
        for c in it.by_ref() {
            if c == a && prev.is_some_and(|p| p == b) {
                return true;
            }
            prev = Some(c);
        }
        false
    };
    if name.ends_with(".instructions.md") {
        Some(FrontmatterKind::Copilot)
    } else if name == "copilot-instructions.md" {
        Some(FrontmatterKind::CopilotRepo)
    } else if name.ends_with(".mdc") && under(".cursor", "rules") {
        Some(FrontmatterKind::Cursor)
    } else if name.ends_with(".md") && under(".claude", "rules") {
        Some(FrontmatterKind::ClaudeRule)
    } else if name == "AGENTS.md" || name == "AGENTS.override.md" {
        Some(FrontmatterKind::Agents)
    } else {
        None
    }
}

/// Levenshtein distance, for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn list(keys: &[&str]) -> String {
    match keys {
        [] => String::new(),
        [one] => format!("only {one}"),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

const EXCLUDE_AGENTS: &[&str] = &["code-review", "coding-agent"];

fn quoted(raw: &str) -> bool {
    raw.len() >= 2
        && (raw.starts_with('"') && raw.ends_with('"')
            || raw.starts_with('\'') && raw.ends_with('\''))
}

/// Every frontmatter finding of one file.
#[must_use]
pub fn checks(path: &Path, text: &str) -> Vec<(Code, TextRange, String)> {
    let Some(kind) = frontmatter_kind(path) else {
        return Vec::new();
    };
    let h = header(text);
    let mut out = Vec::new();
    if kind == FrontmatterKind::CopilotRepo {
        if text.trim().is_empty() {
            out.push((
                Code::InstructionsEmpty,
                TextRange::new(0, text.find('\n').unwrap_or(text.len())),
                "empty instruction file: Copilot attaches nothing".to_string(),
            ));
        }
        return out;
    }
    if kind == FrontmatterKind::Agents {
        if h.present && h.closed && !h.attrs.is_empty() {
            let end = h.attrs.last().map_or(h.open.end, |a| a.line.end);
            out.push((
                Code::InstructionsFrontmatterInert,
                TextRange::new(h.open.start, end),
                "frontmatter in AGENTS.md is not read as settings by any host: Codex and Cursor pass these lines to the model as text".to_string(),
            ));
        }
        return out;
    }
    for a in &h.attrs {
        if kind.keys().contains(&a.key.as_str()) {
            continue;
        }
        let mut msg = format!(
            "unknown key \"{}\": {} ignores it (it reads {})",
            a.key,
            kind.host(),
            list(kind.keys())
        );
        if let Some(k) = kind.keys().iter().find(|k| {
            k.eq_ignore_ascii_case(&a.key)
                || distance(&k.to_ascii_lowercase(), &a.key.to_ascii_lowercase()) <= 2
        }) {
            msg.push_str(&format!("; did you mean \"{k}\"?"));
        }
        out.push((
            Code::InstructionsKeyIgnored,
            TextRange::new(a.line.start, a.line.start + a.key.len()),
            msg,
        ));
    }
    match kind {
        FrontmatterKind::Copilot => copilot(&h, text, &mut out),
        FrontmatterKind::Cursor => {
            if let (Some(always), Some(g)) = (h.get("alwaysApply"), h.get("globs"))
                && always.raw == "true"
            {
                out.push((
                    Code::InstructionsKeyIgnored,
                    g.span,
                    "globs has no effect: alwaysApply: true already applies this rule to every request".to_string(),
                ));
            }
            if let Some(a) = h.get("alwaysApply")
                && quoted(a.raw.trim())
                && a.raw.trim()[1..a.raw.trim().len() - 1]
                    .trim()
                    .eq_ignore_ascii_case("true")
                && rule_type(&h) != RuleType::Manual
            {
                out.push((
                    Code::InstructionsValueInvalid,
                    a.span,
                    format!(
                        "alwaysApply is the quoted string {}, not the boolean true: Cursor does not apply this rule to every request (write alwaysApply: true, without quotes)",
                        a.raw.trim()
                    ),
                ));
            }
        }
        FrontmatterKind::ClaudeRule | FrontmatterKind::Agents | FrontmatterKind::CopilotRepo => {}
    }
    out
}

/// The text after the closing `---` line of a closed header.
fn after_header(text: &str) -> &str {
    let mut pos = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        pos += line.len();
        if i > 0 && line.trim_end() == "---" {
            return &text[pos..];
        }
    }
    ""
}

fn copilot(
    h: &super::super::super::host_files::Header,
    text: &str,
    out: &mut Vec<(Code, TextRange, String)>,
) {
    if let Some(a) = h.get("excludeAgent") {
        let v = a.raw.trim().trim_matches(['"', '\'']);
        if !EXCLUDE_AGENTS.contains(&v) {
            out.push((
                Code::InstructionsValueInvalid,
                a.span,
                format!(
                    "excludeAgent \"{v}\" is not an agent Copilot knows (\"code-review\" or \"coding-agent\"), so it excludes nothing"
                ),
            ));
        }
    }
    let body = if h.present && h.closed {
        after_header(text)
    } else {
        text
    };
    let first = TextRange::new(0, text.find('\n').unwrap_or(text.len()));
    if body.trim().is_empty() {
        out.push((
            Code::InstructionsEmpty,
            first,
            "empty instruction file: Copilot attaches nothing".to_string(),
        ));
    } else if h.get("applyTo").is_none() {
        out.push((
            Code::InstructionsRuleManualOnly,
            first,
            "no applyTo: Copilot never attaches this file on its own (GitHub.com and the Copilot CLI never apply it; VS Code only when you add it to the chat)".to_string(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(path: &str, text: &str) -> Vec<(Code, String, String)> {
        checks(Path::new(path), text)
            .into_iter()
            .map(|(c, r, m)| (c, text[r.start..r.end].to_string(), m))
            .collect()
    }

    #[test]
    fn families_come_from_the_path() {
        assert_eq!(
            frontmatter_kind(Path::new("/w/.github/instructions/a.instructions.md")),
            Some(FrontmatterKind::Copilot)
        );
        assert_eq!(
            frontmatter_kind(Path::new("/w/.cursor/rules/a.mdc")),
            Some(FrontmatterKind::Cursor)
        );
        assert_eq!(
            frontmatter_kind(Path::new("/w/pkg/.claude/rules/x/a.md")),
            Some(FrontmatterKind::ClaudeRule)
        );
        assert_eq!(
            frontmatter_kind(Path::new("/w/AGENTS.md")),
            Some(FrontmatterKind::Agents)
        );
        assert_eq!(frontmatter_kind(Path::new("/w/rules/a.mdc")), None);
        assert_eq!(frontmatter_kind(Path::new("/w/CLAUDE.md")), None);
    }

    #[test]
    fn known_keys_and_good_values_are_fine() {
        let p = "/w/.github/instructions/ts.instructions.md";
        assert_eq!(
            found(
                p,
                "---\nname: TS\ndescription: d\napplyTo: \"**/*.ts\"\nexcludeAgent: \"code-review\"\n---\n# TS\n"
            ),
            []
        );
        assert_eq!(
            found(
                "/w/.cursor/rules/a.mdc",
                "---\ndescription: d\nglobs: \"**/*.ts\"\nalwaysApply: false\n---\nx\n"
            ),
            []
        );
        assert_eq!(
            found(
                "/w/.claude/rules/a.md",
                "---\npaths:\n  - \"src/**\"\n---\nx\n"
            ),
            []
        );
        assert_eq!(found("/w/AGENTS.md", "# P\n\n---\n\ntext\n"), []);
    }

    #[test]
    fn ignored_keys_values_and_unattached_files_have_ranges_and_messages() {
        let p = "/w/.github/instructions/ts.instructions.md";
        assert_eq!(
            found(p, "---\napplyTo: \"**/*.ts\"\npriority: high\napplyto: x\nexcludeAgent: \"invalid-agent\"\n---\n# TS\n"),
            [
                (Code::InstructionsKeyIgnored, "priority".into(), "unknown key \"priority\": Copilot ignores it (it reads applyTo, description, name and excludeAgent)".into()),
                (Code::InstructionsKeyIgnored, "applyto".into(), "unknown key \"applyto\": Copilot ignores it (it reads applyTo, description, name and excludeAgent); did you mean \"applyTo\"?".into()),
                (Code::InstructionsValueInvalid, "\"invalid-agent\"".into(), "excludeAgent \"invalid-agent\" is not an agent Copilot knows (\"code-review\" or \"coding-agent\"), so it excludes nothing".into()),
            ]
        );
        assert_eq!(
            found(p, "---\nexcludeAgent: \"code-review\"\n---\n# TypeScript\nUse strict mode."),
            [(Code::InstructionsRuleManualOnly, "---".into(), "no applyTo: Copilot never attaches this file on its own (GitHub.com and the Copilot CLI never apply it; VS Code only when you add it to the chat)".into())]
        );
        assert_eq!(
            found("/w/.github/copilot-instructions.md", "   \n\n"),
            [(
                Code::InstructionsEmpty,
                "   ".into(),
                "empty instruction file: Copilot attaches nothing".into()
            )]
        );
        assert_eq!(
            found(
                "/w/.github/instructions/e.instructions.md",
                "---\napplyTo: \"**\"\n---\n\n"
            ),
            [(
                Code::InstructionsEmpty,
                "---".into(),
                "empty instruction file: Copilot attaches nothing".into()
            )]
        );
        assert_eq!(
            found("/w/.cursor/rules/a.mdc", "---\ndescription: TS\nalwaysApply: true\nglobs: \"**/*.ts\"\nunknownKey: v\n---\nx\n"),
            [
                (Code::InstructionsKeyIgnored, "unknownKey".into(), "unknown key \"unknownKey\": Cursor ignores it (it reads description, globs and alwaysApply)".into()),
                (Code::InstructionsKeyIgnored, "\"**/*.ts\"".into(), "globs has no effect: alwaysApply: true already applies this rule to every request".into()),
            ]
        );
        assert_eq!(
            found("/w/.cursor/rules/a.mdc", "---\ndescription: TS\nalwaysApply: \"true\"\n---\nx\n"),
            [(Code::InstructionsValueInvalid, "\"true\"".into(), "alwaysApply is the quoted string \"true\", not the boolean true: Cursor does not apply this rule to every request (write alwaysApply: true, without quotes)".into())]
        );
        assert_eq!(
            found(
                "/w/.claude/rules/a.md",
                "---\npaths:\n  - \"src/**\"\ndescription: \"some rule\"\n---\nx\n"
            ),
            [(
                Code::InstructionsKeyIgnored,
                "description".into(),
                "unknown key \"description\": Claude Code ignores it (it reads only paths)".into()
            )]
        );
        assert_eq!(
            found("/w/AGENTS.md", "---\ncontext: fork\nagent: reviewer\n---\n# Project\n"),
            [(Code::InstructionsFrontmatterInert, "---\ncontext: fork\nagent: reviewer".into(), "frontmatter in AGENTS.md is not read as settings by any host: Codex and Cursor pass these lines to the model as text".into())]
        );
    }
}
