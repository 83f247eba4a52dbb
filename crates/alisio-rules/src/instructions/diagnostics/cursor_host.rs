//! spec/hosts.md §5 for host `cursor`: `.md` files Cursor ignores, rules reachable only by manual
//! mention, globs that match no file, `agents.md` in the wrong case, the legacy `.cursorrules`.

use std::path::{Path, PathBuf};

use super::super::cursor::{RuleType, matcher_matches, rule_files, rule_type};
use super::super::host_files::header;
use super::super::read::ReadMode;
use super::host_common::{GlobScan, content_diagnostics, diag, file_level, span_of};

use alisio_base::diagnostic::{Code, Diagnostic};
use alisio_base::workspace::FileType;

/// Cursor's rules docs: the root `.cursorrules` is still read, but deprecated (spec/hosts.md CU7).
const LEGACY: &str = ".cursorrules is Cursor's legacy rules file: still read as an always-applied rule, but deprecated; move it to .cursor/rules/*.mdc (alwaysApply: true) or AGENTS.md";

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn rule_diagnostics(p: &Path, text: &str, base: &Path, files: &[PathBuf]) -> Vec<Diagnostic> {
    let h = header(text);
    let quoted_true = h.get("alwaysApply").filter(|a| {
        let r = a.raw.trim();
        r.len() >= 2
            && (r.starts_with('"') && r.ends_with('"') || r.starts_with('\'') && r.ends_with('\''))
            && r[1..r.len() - 1].trim().eq_ignore_ascii_case("true")
    });
    match rule_type(&h) {
        RuleType::Manual if quoted_true.is_some() => {
            let a = quoted_true.map_or_else(|| file_level(text), |a| span_of(text, a.span));
            vec![diag(
                p,
                a,
                Code::InstructionsRuleManualOnly,
                format!(
                    "alwaysApply is the quoted string {}, not the boolean true: Cursor applies this rule only when you mention it with @{} (write alwaysApply: true, without quotes)",
                    quoted_true.map_or("", |a| a.raw.trim()),
                    stem(p)
                ),
            )]
        }
        RuleType::Manual => vec![diag(
            p,
            file_level(text),
            Code::InstructionsRuleManualOnly,
            format!(
                "this rule has no alwaysApply, globs or description: Cursor applies it only when you mention it with @{}",
                stem(p)
            ),
        )],
        RuleType::AutoAttached(pieces) => {
            let rels: Vec<String> = files
                .iter()
                .filter_map(|f| f.strip_prefix(base).ok())
                .map(|r| r.to_string_lossy().replace('\\', "/"))
                .collect();
            let span = h
                .get("globs")
                .map_or_else(|| file_level(text), |a| span_of(text, a.span));
            pieces
                .iter()
                .filter(|piece| {
                    !crate::instructions::host_files::glob(piece, false)
                        .is_some_and(|m| rels.iter().any(|r| matcher_matches(&m, piece, r)))
                })
                .map(|piece| {
                    diag(
                        p,
                        span,
                        Code::InstructionsGlobUnmatched,
                        format!("globs pattern \"{piece}\" matches no file in the workspace"),
                    )
                })
                .collect()
        }
        RuleType::Always | RuleType::AgentRequested => Vec::new(),
    }
}

/// Every cursor diagnostic of the workspace (`files`: the regular files of D).
pub(super) fn diagnostics(scan: &GlobScan<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for node in &scan.set.dirs {
        let is_rules = node.path.file_name().is_some_and(|n| n == "rules")
            && node
                .path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == ".cursor");
        if is_rules {
            let base = node
                .path
                .parent()
                .and_then(Path::parent)
                .unwrap_or(scan.setup.root);
            let (rules, md) = rule_files(scan.setup.fs, &node.path);
            for p in md {
                let t = scan.reader.read(&p, ReadMode::Claude);
                out.push(diag(
                    &p,
                    file_level(&t.text),
                    Code::InstructionsRuleIgnored,
                    format!(
                        "not read: Cursor reads only .mdc files in .cursor/rules; rename it to {}.mdc",
                        stem(&p)
                    ),
                ));
            }
            for p in rules {
                let t = scan.reader.read(&p, ReadMode::Claude);
                out.extend(rule_diagnostics(&p, &t.text, base, scan.files));
                out.extend(content_diagnostics(scan.setup, &p, &t.text));
            }
        }
        for e in &node.entries {
            if node.path == scan.setup.root
                && e.file_type == FileType::File
                && e.name == ".cursorrules"
            {
                let p = node.path.join(&e.name);
                let t = scan.reader.read(&p, ReadMode::Claude);
                out.push(diag(
                    &p,
                    file_level(&t.text),
                    Code::InstructionsLegacyName,
                    LEGACY.to_string(),
                ));
            }
            if e.file_type == FileType::File
                && e.name != "AGENTS.md"
                && e.name
                    .to_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case("AGENTS.md"))
            {
                let p = node.path.join(&e.name);
                let t = scan.reader.read(&p, ReadMode::Claude);
                out.push(diag(
                    &p,
                    file_level(&t.text),
                    Code::InstructionsNameCase,
                    "not read: cursor reads \"AGENTS.md\" (names are case-sensitive)".to_string(),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_rules_and_unmatched_globs() {
        let base = Path::new("/w");
        let files = vec![PathBuf::from("/w/src/a.ts")];
        let d = rule_diagnostics(
            Path::new("/w/.cursor/rules/m.mdc"),
            "just text",
            base,
            &files,
        );
        assert_eq!(d[0].code, Code::InstructionsRuleManualOnly);
        assert_eq!(
            d[0].message,
            "this rule has no alwaysApply, globs or description: Cursor applies it only when you mention it with @m"
        );
        let text = "---\nglobs: **/*.ts, **/*.py\n---\n";
        let d = rule_diagnostics(Path::new("/w/.cursor/rules/g.mdc"), text, base, &files);
        let msgs: Vec<_> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            ["globs pattern \"**/*.py\" matches no file in the workspace"]
        );
        let r = d[0].span.bytes;
        assert_eq!(&text[r.start..r.end], "**/*.ts, **/*.py");
        let d = rule_diagnostics(
            Path::new("/w/.cursor/rules/a.mdc"),
            "---\nalwaysApply: true\n---\n",
            base,
            &files,
        );
        assert!(d.is_empty());
    }

    #[test]
    fn a_quoted_always_apply_says_it_is_a_string() {
        let text = "---\nalwaysApply: \"true\"\n---\nbody\n";
        let d = rule_diagnostics(
            Path::new("/w/.cursor/rules/q.mdc"),
            text,
            Path::new("/w"),
            &[],
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, Code::InstructionsRuleManualOnly);
        assert_eq!(
            d[0].message,
            "alwaysApply is the quoted string \"true\", not the boolean true: Cursor applies this rule only when you mention it with @q (write alwaysApply: true, without quotes)"
        );
        let r = d[0].span.bytes;
        assert_eq!(&text[r.start..r.end], "\"true\"");
        let d = rule_diagnostics(
            Path::new("/w/.cursor/rules/s.mdc"),
            "---\nalwaysApply: 'TRUE'\n---\n",
            Path::new("/w"),
            &[],
        );
        assert!(
            d[0].message
                .starts_with("alwaysApply is the quoted string 'TRUE'")
        );
    }
}
