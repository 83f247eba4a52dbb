//! The rule catalogue (spec/rules.md): every diagnostic [`Code`] as a rule with its summary, the
//! files and hosts it applies to, its default severity, its tier, whether it has a fix and
//! whether that fix is safe, the evidence it was verified against, and a good and a bad
//! example. Declared once here, next to [`Code`]; `alisio-ls rules`, the generated
//! docs/rules.md, SARIF rule metadata and the tier filter of the suppressions all read it.

mod audit;
mod breadth;
mod copilot;
mod families;
mod instructions;
mod skills;

use crate::diagnostic::{Code, Severity};

/// Whether a rule runs unless configured otherwise (spec/rules.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// On by default: a host drops, cuts or misreads something, or a validator rejects it.
    Default,
    /// Advice that is sometimes wrong for a project: off unless enabled (`diagnostics.enable`).
    Opinionated,
}

impl Tier {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Opinionated => "opinionated",
        }
    }
}

/// Whether a rule has a fix, and whether `check --fix` applies it without `--unsafe-fixes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fix {
    None,
    /// Every fix of the rule keeps the file's meaning: `check --fix` applies it.
    Safe,
    /// Some fixes are safe, others are not (each quick fix says which).
    Mixed,
    /// The fix changes what a host does (a name, a placeholder text, a file name): only with
    /// `--unsafe-fixes` or in the editor.
    Unsafe,
}

impl Fix {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Safe => "safe",
            Self::Mixed => "mixed",
            Self::Unsafe => "unsafe",
        }
    }
}

/// A workspace to show a rule on: files (path relative to the workspace root, content) and the
/// command-line options (`--host`, `--profile`, `--trust-project`) `check` runs with.
/// `files` empty: the situation cannot be written as a few small text files (a symlink, bytes
/// that are not UTF-8, a file of 300 KiB); `note` then says what it is.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub args: &'static [&'static str],
    pub files: &'static [(&'static str, &'static str)],
    pub note: &'static str,
}

/// One rule of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub code: Code,
    pub summary: &'static str,
    /// The files it looks at, as a user names them.
    pub files: &'static str,
    /// The hosts whose loading it simulates (`--host`).
    pub hosts: &'static [&'static str],
    /// The validator profiles it belongs to (`--profile`); empty for instruction-file rules.
    pub profiles: &'static [&'static str],
    pub severity: Severity,
    pub tier: Tier,
    pub fix: Fix,
    /// The host source file or documentation, and the version, the behaviour was verified on.
    pub evidence: &'static str,
    pub good: Example,
    pub bad: Example,
}

pub(crate) const ALL_HOSTS: &[&str] = &[
    "alisio",
    "codex",
    "claude-code",
    "copilot",
    "gemini",
    "cursor",
];
pub(crate) const ALL_PROFILES: &[&str] = &["alisio", "spec", "codex", "claude-code"];

pub(crate) const fn ex(
    args: &'static [&'static str],
    files: &'static [(&'static str, &'static str)],
) -> Example {
    Example {
        args,
        files,
        note: "",
    }
}

pub(crate) const fn described(note: &'static str) -> Example {
    Example {
        args: &[],
        files: &[],
        note,
    }
}

/// Every rule, in the order of [`Code::ALL`].
#[must_use]
pub fn all() -> Vec<&'static Rule> {
    Code::ALL.iter().filter_map(|c| get(*c)).collect()
}

/// The rule of a code; `None` only for a code added without its catalogue entry (a test fails).
#[must_use]
pub fn get(code: Code) -> Option<&'static Rule> {
    skills::RULES
        .iter()
        .chain(instructions::RULES)
        .chain(audit::RULES)
        .chain(families::RULES)
        .chain(breadth::RULES)
        .chain(copilot::RULES)
        .find(|r| r.code == code)
}

/// `true` when the rule is opinionated (off unless enabled).
#[must_use]
pub fn opinionated(code: Code) -> bool {
    get(code).is_some_and(|r| r.tier == Tier::Opinionated)
}

fn example_json(e: &Example) -> serde_json::Value {
    serde_json::json!({
        "args": e.args,
        "files": e.files.iter().map(|(p, t)| serde_json::json!({"path": p, "text": t})).collect::<Vec<_>>(),
        "note": if e.note.is_empty() { serde_json::Value::Null } else { e.note.into() },
    })
}

impl Rule {
    /// The object of `alisio-ls rules --json` (spec/rules.md §3).
    #[must_use]
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.code.as_str(),
            "summary": self.summary,
            "files": self.files,
            "hosts": self.hosts,
            "profiles": self.profiles,
            "severity": self.severity.as_str(),
            "tier": self.tier.as_str(),
            "fix": self.fix.as_str(),
            "evidence": self.evidence,
            "good": example_json(&self.good),
            "bad": example_json(&self.bad),
        })
    }
}

fn example_markdown(title: &str, e: &Example, out: &mut String) {
    use std::fmt::Write as _;
    if e.files.is_empty() {
        let _ = writeln!(out, "{title}: {}\n", e.note);
        return;
    }
    let args = if e.args.is_empty() {
        String::new()
    } else {
        format!(" (`check {}`)", e.args.join(" "))
    };
    let _ = writeln!(out, "{title}{args}:\n");
    for (p, t) in e.files {
        let fence = if t.contains("```") { "~~~~" } else { "```" };
        let _ = writeln!(
            out,
            "`{p}`\n\n{fence}\n{t}{}{fence}\n",
            if t.ends_with('\n') || t.is_empty() {
                ""
            } else {
                "\n"
            }
        );
    }
}

/// docs/rules.md, generated from the catalogue (a test fails when the file drifts).
#[must_use]
pub fn markdown() -> String {
    use std::fmt::Write as _;
    let mut out = String::from(
        "# alisio-ls rules\n\n<!-- Generated from crates/alisio-base/src/rules by `alisio-ls rules --markdown`; do not edit. -->\n\n\
Every diagnostic code is a rule (spec/rules.md). `default` rules run unless configured off;\n\
`opinionated` rules run only when enabled (`diagnostics.enable`, spec/suppressions.md §2).\n\
`fix`: `safe` fixes are applied by `check --fix`, `unsafe` ones only with `--unsafe-fixes` or in\n\
the editor, `mixed` rules have both kinds.\n\n\
| id | severity | tier | fix | summary |\n|---|---|---|---|---|\n",
    );
    let rules = all();
    for r in &rules {
        let _ = writeln!(
            out,
            "| [`{0}`](#{0}) | {1} | {2} | {3} | {4} |",
            r.code.as_str(),
            r.severity.as_str(),
            r.tier.as_str(),
            r.fix.as_str(),
            r.summary
        );
    }
    for r in &rules {
        let _ = writeln!(out, "\n## {}\n\n{}\n", r.code.as_str(), r.summary);
        let _ = writeln!(out, "- files: {}", r.files);
        let _ = writeln!(out, "- hosts: {}", r.hosts.join(", "));
        if !r.profiles.is_empty() {
            let _ = writeln!(out, "- profiles: {}", r.profiles.join(", "));
        }
        let _ = writeln!(
            out,
            "- default severity: {}; tier: {}; fix: {}",
            r.severity.as_str(),
            r.tier.as_str(),
            r.fix.as_str()
        );
        let _ = writeln!(out, "- evidence: {}\n", r.evidence);
        example_markdown("Bad", &r.bad, &mut out);
        example_markdown("Good", &r.good, &mut out);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests;
