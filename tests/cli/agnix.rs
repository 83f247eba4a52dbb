//! The agnix suite (issue 23 "Done means"; docs/agnix.md): the 133 rules of agnix 0.59.3 on files
//! alisio-ls reads (tests/agnix/ids.txt, reproduced by tests/agnix/catalogue.sh), each either
//! covered by an alisio-ls rule that fires on agnix's bad example and stays silent on its good
//! one, or explained in docs/agnix.md. The examples are read from `agnix explain ID --format
//! json` at test time (agnix's own files are not copied here); without agnix the example runs
//! skip, printing why (`.ci/setup-agnix.sh` installs it into target/agnix-venv).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::Ws;

/// Where an example comes from.
#[derive(Clone, Copy)]
enum Ex {
    /// agnix's own example text, written at the row's `path`.
    Agnix,
    /// Our text at the row's `path`: agnix's example is a description ("a file of 40 KiB"), a
    /// placeholder, or wrong for the host (the row's note in docs/agnix.md says which).
    Text(&'static str),
    /// Our files, where the example is a situation of several files.
    Files(&'static [(&'static str, &'static str)]),
    /// Generated files (sizes agnix only describes).
    Gen(fn() -> Vec<(String, Vec<u8>)>),
    /// agnix's text at the row's `path`, with these files beside it (the files its example
    /// says exist).
    AgnixWith(&'static [(&'static str, &'static str)]),
}

#[derive(Clone, Copy)]
enum V {
    /// The alisio rule `code` fires on the bad example and not on the good one, with `args`
    /// (`check --json ARGS`) and `both` written into both workspaces.
    Covered {
        code: &'static str,
        args: &'static [&'static str],
        path: &'static str,
        both: &'static [(&'static str, &'static str)],
        bad: Ex,
        good: Ex,
    },
    /// docs/agnix.md says why the agnix rule is wrong for the host's behaviour or not a loading
    /// fact (its certainty and what it fired on).
    Justified,
    /// Another branch of issue 23 implements it (the name of the branch).
    #[allow(
        dead_code,
        reason = "none is pending now; a branch in progress marks its rows so"
    )]
    Pending(&'static str),
    /// Neither covered nor justified yet.
    Missing,
}

use Ex::{Agnix as A, AgnixWith as AW, Files as F, Gen as G, Text as T};
use V::{Justified as J, Missing as M};

const fn c(
    code: &'static str,
    args: &'static [&'static str],
    path: &'static str,
    both: &'static [(&'static str, &'static str)],
    bad: Ex,
    good: Ex,
) -> V {
    V::Covered {
        code,
        args,
        path,
        both,
        bad,
        good,
    }
}

const CC: &[&str] = &["--host", "claude-code", "--profile", "claude-code"];
const CLAUDE: &[&str] = &["--host", "claude-code"];
const CODEX: &[&str] = &["--host", "codex", "--profile", "codex"];
const COPILOT: &[&str] = &["--host", "copilot"];
const CURSOR: &[&str] = &["--host", "cursor"];
const GEMINI: &[&str] = &["--host", "gemini"];
const SPEC: &[&str] = &["--profile", "spec"];
const NONE: &[&str] = &[];
const TS: &[(&str, &str)] = &[("src/a.ts", "export {};\n"), ("lib/a.js", "\n")];
const ENABLE_LONG: &[(&str, &str)] = &[(
    ".alisio/config.json",
    r#"{"diagnostics": {"enable": ["instructions-too-long"]}}"#,
)];
const ENABLE_SIDE_EFFECT: &[(&str, &str)] = &[(
    ".alisio/config.json",
    r#"{"diagnostics": {"enable": ["skill-side-effect-invocable"]}}"#,
)];
const ENABLE_LINKS: &[(&str, &str)] = &[(
    ".alisio/config.json",
    r#"{"diagnostics": {"enable": ["instructions-link-broken"]}}"#,
)];
const TRUST: &[&str] = &["--trust-project"];
const CC_TRUST: &[&str] = &[
    "--host",
    "claude-code",
    "--profile",
    "claude-code",
    "--trust-project",
];
const ENABLE_NO_WHEN: &[(&str, &str)] = &[(
    ".alisio/config.json",
    r#"{"diagnostics": {"enable": ["skill-description-no-when"]}}"#,
)];
const ENABLE_PERSON: &[(&str, &str)] = &[(
    ".alisio/config.json",
    r#"{"diagnostics": {"enable": ["skill-description-person"]}}"#,
)];
const SETUP_LINKS: &[(&str, &str)] = &[
    ("docs/setup.md", "# Setup\n"),
    (
        ".alisio/config.json",
        r#"{"diagnostics": {"enable": ["instructions-link-broken"]}}"#,
    ),
];
const BODY: &str = "# Project\n\nRun `cargo test` before committing.\n";

/// A token of GitHub's shape, built at run time: agnix's examples (`ghp_...`,
/// `sk-live-super-secret-value`) are placeholders, which alisio-ls deliberately skips.
fn token() -> String {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let alphabet = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut t = String::from("gh");
    t.push_str("p_");
    for _ in 0..36 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t.push(char::from(alphabet[usize::try_from(x % 57).unwrap()]));
    }
    t
}

fn skill_token() -> Vec<(String, Vec<u8>)> {
    vec![(
        ".agents/skills/release/SKILL.md".into(),
        format!("---\nname: release\ndescription: Cuts a release. Use when asked.\n---\nTOKEN = \"{}\"  # a literal token\n", token()).into_bytes(),
    )]
}

fn agents_token() -> Vec<(String, Vec<u8>)> {
    vec![(
        "AGENTS.md".into(),
        format!("GITHUB_TOKEN={}\n", token()).into_bytes(),
    )]
}

fn huge_skill() -> Vec<(String, Vec<u8>)> {
    vec![
        (
            ".agents/skills/huge-skill/SKILL.md".into(),
            b"---\nname: huge-skill\ndescription: Use when running a task with many large assets\n---\nThis skill bundles 31MB of binary data in its directory.\n".to_vec(),
        ),
        (".agents/skills/huge-skill/assets/data.bin".into(), vec![0u8; 31 * 1024 * 1024]),
    ]
}

fn enable(code: &str) -> (String, Vec<u8>) {
    (
        ".alisio/config.json".into(),
        format!(r#"{{"diagnostics": {{"enable": ["{code}"]}}}}"#).into_bytes(),
    )
}

fn n_lines(head: &str, n: usize) -> Vec<u8> {
    let mut t = head.to_string();
    while t.lines().count() < n {
        t.push_str("- Keep changes small and covered by a test.\n");
    }
    t.into_bytes()
}

fn always_loaded_bad() -> Vec<(String, Vec<u8>)> {
    vec![
        (
            "CLAUDE.md".into(),
            n_lines("# Project\n\n@docs/conventions.md\n\n", 150),
        ),
        (
            "docs/conventions.md".into(),
            n_lines("# Conventions\n", 150),
        ),
        (".claude/rules/style.md".into(), n_lines("# Style\n", 150)),
        enable("instructions-always-loaded-long"),
    ]
}

fn always_loaded_good() -> Vec<(String, Vec<u8>)> {
    vec![
        ("CLAUDE.md".into(), n_lines("# Project\n\n", 120)),
        (
            ".claude/rules/api.md".into(),
            n_lines("---\npaths:\n  - \"src/api/**\"\n---\n# API\n", 150),
        ),
        ("src/api/a.ts".into(), b"export {};\n".to_vec()),
        enable("instructions-always-loaded-long"),
    ]
}

fn cursor_900() -> Vec<(String, Vec<u8>)> {
    vec![
        (
            ".cursor/rules/style-guide.mdc".into(),
            n_lines("---\ndescription: Style guide\n---\n", 900),
        ),
        enable("instructions-too-long"),
    ]
}

fn copilot_1200() -> Vec<(String, Vec<u8>)> {
    vec![
        (
            ".github/copilot-instructions.md".into(),
            n_lines("# Copilot Instructions\n\n", 1200),
        ),
        enable("instructions-too-long"),
    ]
}

fn lines(n: usize, path: &str, head: &str) -> Vec<(String, Vec<u8>)> {
    let mut t = head.to_string();
    for i in 0..n {
        t.push_str(&format!("- Step {i}: keep changes small.\n"));
    }
    vec![(path.to_string(), t.into_bytes())]
}

fn skill_501_lines() -> Vec<(String, Vec<u8>)> {
    lines(
        501,
        ".agents/skills/setup-env/SKILL.md",
        "---\nname: setup-env\ndescription: Use when setting up the development environment\n---\n",
    )
}

fn skill_25k_chars() -> Vec<(String, Vec<u8>)> {
    let mut t =
        "---\nname: focused\ndescription: Use when formatting release notes.\n---\n".to_string();
    for _ in 0..250 {
        t.push_str(&"word ".repeat(20));
        t.push('\n');
    }
    vec![(".agents/skills/focused/SKILL.md".into(), t.into_bytes())]
}

fn claude_250_lines() -> Vec<(String, Vec<u8>)> {
    let mut v = lines(250, "CLAUDE.md", "# Project\n\n");
    v.push((
        ".alisio/config.json".into(),
        br#"{"diagnostics": {"enable": ["instructions-too-long"]}}"#.to_vec(),
    ));
    v
}

fn agents_of(bytes: usize) -> String {
    let mut t = String::from("# Project\n\n");
    while t.len() < bytes {
        t.push_str("- Keep changes small and covered by a test.\n");
    }
    t
}

fn codex_40k() -> Vec<(String, Vec<u8>)> {
    vec![("AGENTS.md".into(), agents_of(40 * 1024).into_bytes())]
}

fn codex_chain() -> Vec<(String, Vec<u8>)> {
    vec![
        ("AGENTS.md".into(), agents_of(20 * 1024).into_bytes()),
        ("pkg/AGENTS.md".into(), agents_of(15 * 1024).into_bytes()),
    ]
}

fn listing(n: usize, root: &str, desc: usize) -> Vec<(String, Vec<u8>)> {
    (0..n)
        .map(|i| {
            (
                format!("{root}/s{i:02}/SKILL.md"),
                format!(
                    "---\nname: s{i:02}\ndescription: {}\n---\nBody.\n",
                    "x".repeat(desc)
                )
                .into_bytes(),
            )
        })
        .collect()
}

fn claude_listing() -> Vec<(String, Vec<u8>)> {
    listing(60, ".claude/skills", 1000)
}

/// 80 skills: Codex 0.171.0's measured budget (2% of a 272,000-token window, spec/skills.md
/// §9.3) holds agnix's 40.
fn codex_listing() -> Vec<(String, Vec<u8>)> {
    listing(80, ".agents/skills", 500)
}

/// Every agnix rule on a file alisio-ls reads, in the order of tests/agnix/ids.txt.
#[rustfmt::skip]
const ROWS: &[(&str, V)] = &[
    ("AGM-001", c("instructions-fence-unclosed", NONE, "AGENTS.md", &[], A, A)),
    ("AGM-002", J),
    ("AGM-004", J),
    ("AGM-007", J),
    ("AGM-008", c("instructions-legacy-name", NONE, "", &[], F(&[("AGENT.md", BODY)]), F(&[("AGENTS.md", BODY)]))),
    ("AGM-009", J),
    ("AS-001", c("skill-frontmatter-missing", NONE, ".agents/skills/deploy-app/SKILL.md", &[], A, A)),
    ("AS-002", c("skill-name-missing", NONE, ".agents/skills/lint-code/SKILL.md", &[], A, A)),
    ("AS-003", c("skill-description-missing", NONE, ".agents/skills/lint-code/SKILL.md", &[], A, A)),
    ("AS-004", c("skill-name-format", NONE, ".agents/skills/run-tests/SKILL.md", &[], A, A)),
    ("AS-005", c("skill-name-format", NONE, ".agents/skills/build-project/SKILL.md", &[], A, A)),
    ("AS-006", c("skill-name-format", NONE, ".agents/skills/format-code/SKILL.md", &[], A, A)),
    ("AS-008", c("skill-description-missing", NONE, ".agents/skills/check-deps/SKILL.md", &[], A, A)),
    ("AS-009", c("skill-upload-rejected", NONE, ".agents/skills/review-pr/SKILL.md", &[], A, A)),
    ("AS-011", c("skill-compatibility-empty", NONE, ".agents/skills/migrate-db/SKILL.md", &[], A, A)),
    ("AS-012", c("skill-body-too-long", NONE, ".agents/skills/setup-env/SKILL.md", &[], G(skill_501_lines), A)),
    ("AS-013", J),
    ("AS-015", c("skill-upload-too-large", NONE, ".agents/skills/huge-skill/SKILL.md", &[], G(huge_skill), A)),
    ("AS-016", J),
    ("AS-017", c("skill-name-directory-mismatch", NONE, ".agents/skills/code-review/SKILL.md", &[], A, A)),
    ("AS-020", c("skill-description-no-when", TRUST, ".agents/skills/pdf-tools/SKILL.md", ENABLE_NO_WHEN, A, A)),
    ("AS-021", c("skill-body-too-long", NONE, ".agents/skills/focused/SKILL.md", &[], G(skill_25k_chars), A)),
    ("AS-022", J),
    ("AS-023", J),
    ("AS-024", J),
    ("AS-025", c("skill-shadowed", &["--trust-project"], "", &[],
        F(&[(".claude/skills/review/SKILL.md", "---\nname: review\ndescription: Reviews code. Use when reviewing.\n---\nBody.\n"),
            (".agents/skills/review/SKILL.md", "---\nname: review\ndescription: Reviews pull requests. Use when asked.\n---\nBody.\n")]),
        F(&[(".agents/skills/review/SKILL.md", "---\nname: review\ndescription: Reviews pull requests. Use when asked.\n---\nBody.\n")]))),
    ("AS-026", J),
    ("AS-027", J),
    ("CC-MEM-001", c("instructions-import-unresolved", CLAUDE, "CLAUDE.md", &[], A, A)),
    ("CC-MEM-002", J),
    ("CC-MEM-003", c("instructions-import-too-deep", CLAUDE, "", &[], F(&[("CLAUDE.md", "# Project Memory\n\n@level1.md\n"), ("level1.md", "@level2.md\n"), ("level2.md", "@level3.md\n"), ("level3.md", "@level4.md\n"), ("level4.md", "@level5.md\n"), ("level5.md", "Five hops down.\n")]),
        F(&[("CLAUDE.md", "# Project Memory\n\n@docs/guidelines.md\n\nKeep import chains shallow.\n"), ("docs/guidelines.md", "# Guidelines\n")]))),
    ("CC-MEM-004", J),
    ("CC-MEM-010", J),
    ("CC-MEM-011", c("instructions-glob-unmatched", COPILOT, ".claude/rules/ts.md", TS, A, A)),
    ("CC-MEM-012", c("instructions-key-ignored", CLAUDE, ".claude/rules/ts.md", TS, A, A)),
    ("CC-MEM-014", c("instructions-too-long", &["--host", "claude-code", "--trust-project"], "CLAUDE.md", ENABLE_LONG, G(claude_250_lines), A)),
    ("CC-MEM-015", c("instructions-always-loaded-long", &["--host", "claude-code", "--trust-project"], "", &[], G(always_loaded_bad), G(always_loaded_good))),
    ("CC-MEM-017", J),
    ("CC-MEM-018", c("instructions-dropped", CLAUDE, "CLAUDE.md", &[("AGENTS.md", BODY)], A, A)),
    ("CC-MEM-019", c("instructions-import-unresolved", CLAUDE, "CLAUDE.md", &[("Design Docs/api-conventions.md", "# API conventions\n")], A, A)),
    ("CC-MEM-020", c("instructions-local-not-ignored", NONE, ".gitignore", &[("CLAUDE.local.md", "Use my sandbox URLs.\n")], T("target/\n*.log\n"), A)),
    ("CC-MEM-021", J),
    ("CC-SK-001", J),
    ("CC-SK-002", c("skill-value-invalid", CC, ".claude/skills/parallel-task/SKILL.md", &[], A, A)),
    ("CC-SK-004", c("skill-agent-without-fork", CC, ".claude/skills/explore-code/SKILL.md", &[], A, A)),
    ("CC-SK-005", c("skill-agent-unknown", CC, ".claude/skills/search-files/SKILL.md", &[], A, A)),
    ("CC-SK-006", c("skill-side-effect-invocable", &["--host", "claude-code", "--profile", "claude-code", "--trust-project"], ".claude/skills/deploy-staging/SKILL.md", ENABLE_SIDE_EFFECT, A, A)),
    ("CC-SK-007", c("skill-shell-unrestricted", CC, ".claude/skills/git-status/SKILL.md", &[], A, A)),
    ("CC-SK-008", c("skill-tool-unknown", CC, ".claude/skills/find-files/SKILL.md", &[], A, A)),
    ("CC-SK-010", c("skill-hook-event-unknown", CC, ".claude/skills/hook-skill/SKILL.md", &[], A, A)),
    ("CC-SK-013", J),
    ("CC-SK-014", c("skill-field-type", CC, ".claude/skills/quiet-skill/SKILL.md", &[], A, A)),
    ("CC-SK-015", c("skill-field-type", CC, ".claude/skills/slash-cmd/SKILL.md", &[], A, A)),
    ("CC-SK-016", J),
    ("CC-SK-017", c("skill-unknown-key", CC, ".claude/skills/lint-config/SKILL.md", &[], A,
        T("---\nname: lint-config\ndescription: Use when validating configuration files\nallowed-tools: Read, Grep\ndisallowed-tools: Write\n---\nLint project configuration files.\n"))),
    ("CC-SK-018", c("skill-value-invalid", CC, ".claude/skills/my-skill/SKILL.md", &[], A, A)),
    ("CC-SK-019", J),
    ("CC-SK-020", c("skill-value-invalid", CC, ".claude/skills/my-skill/SKILL.md", &[], A, A)),
    ("CC-SK-021", J),
    ("CC-SK-022", c("skill-name-format", CC, ".claude/skills/pdf-helper/SKILL.md", &[], A, A)),
    ("CC-SK-023", c("skill-arguments-in-code", CC, ".claude/skills/top-processes/SKILL.md", &[], A, A)),
    ("CC-SK-024", c("skill-description-missing", CC, ".claude/skills/pdf-tools/SKILL.md", &[], A, A)),
    ("CC-SK-025", c("skill-description-dropped", &["--host", "claude-code", "--profile", "claude-code", "--trust-project"], "", &[],
        G(claude_listing), F(&[(".claude/skills/s00/SKILL.md", "---\nname: s00\ndescription: Short. Use when asked.\n---\nBody.\n")]))),
    ("CC-SK-028", c("skill-command-not-run", CC, ".claude/skills/status/SKILL.md", &[], A, A)),
    ("CC-SK-030", c("skill-upload-rejected", CC, ".claude/skills/claude-pdf-tools/SKILL.md", &[], A, A)),
    ("CC-SK-031", c("skill-upload-rejected", CC, ".claude/skills/formatter/SKILL.md", &[], A, A)),
    ("CC-SK-032", c("skill-description-person", CC_TRUST, ".claude/skills/excel-reports/SKILL.md", ENABLE_PERSON, A, A)),
    ("CC-SK-033", J),
    ("CC-SK-034", J),
    ("CDX-000", M),
    ("CDX-004", M),
    ("CDX-005", M),
    ("CDX-006", M),
    ("CDX-AG-001", c("instructions-empty", CODEX, "AGENTS.md", &[], A, A)),
    ("CDX-AG-002", c("instructions-secret", CODEX, "AGENTS.md", &[], G(agents_token), A)),
    ("CDX-AG-003", J),
    ("CDX-AG-005", c("instructions-link-broken", &["--host", "codex", "--trust-project"], "AGENTS.md", SETUP_LINKS, A, A)),
    ("CDX-AG-006", J),
    ("CDX-AG-008", c("instructions-hidden-by-override", CODEX, "", &[],
        F(&[("services/payments/AGENTS.md", BODY), ("services/payments/AGENTS.override.md", BODY)]),
        F(&[("services/payments/AGENTS.override.md", BODY)]))),
    ("CDX-AG-009", c("instructions-truncated", CODEX, "", &[], G(codex_40k), F(&[("AGENTS.md", BODY)]))),
    ("CDX-AG-010", c("instructions-truncated", CODEX, "", &[], G(codex_chain), F(&[("AGENTS.md", BODY), ("pkg/AGENTS.md", BODY)]))),
    ("COP-001", c("instructions-empty", COPILOT, ".github/copilot-instructions.md", &[], A, A)),
    ("COP-002", c("instructions-rule-manual-only", COPILOT, ".github/instructions/ts.instructions.md", &[("src/a.ts", "export {};\n"), ("src/b.tsx", "export {};\n")], A, A)),
    ("COP-003", c("instructions-glob-unmatched", COPILOT, ".github/instructions/ts.instructions.md", TS, A, A)),
    ("COP-004", c("instructions-key-ignored", COPILOT, ".github/instructions/ts.instructions.md", TS, A, A)),
    ("COP-005", c("instructions-value-invalid", COPILOT, ".github/instructions/ts.instructions.md", TS, A, A)),
    ("COP-006", c("instructions-too-long", &["--host", "copilot", "--trust-project"], ".github/copilot-instructions.md", ENABLE_LONG, G(copilot_1200), A)),
    ("COP-030", M),
    ("COP-038", J),
    ("CP-SK-001", c("skill-unknown-key", SPEC, ".agents/skills/my-skill/SKILL.md", &[], A, A)),
    ("CP-SK-002", c("skill-shell-unrestricted", NONE, ".agents/skills/image-convert/SKILL.md", &[], A, A)),
    ("CR-SK-001", M),
    ("CUR-001", c("instructions-rule-manual-only", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-002", c("instructions-rule-manual-only", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-003", c("instructions-glob-unmatched", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-004", c("instructions-glob-unmatched", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-005", c("instructions-key-ignored", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-006", c("instructions-legacy-name", CURSOR, ".cursorrules", &[], A, F(&[(".cursor/rules/ts.mdc", "---\ndescription: TypeScript rules\nglobs: \"**/*.ts\"\n---\n# TypeScript Rules\n\nUse strict mode.\n"), ("src/a.ts", "export {};\n")]))),
    ("CUR-007", c("instructions-key-ignored", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-008", c("instructions-value-invalid", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-009", c("instructions-rule-manual-only", CURSOR, ".cursor/rules/ts.mdc", TS, A, A)),
    ("CUR-020", c("instructions-rule-ignored", CURSOR, "", &[],
        F(&[(".cursor/rules/typescript.md", "# TypeScript\n\nUse strict mode.\n")]),
        F(&[(".cursor/rules/typescript.mdc", "---\nalwaysApply: true\n---\n# TypeScript\n\nUse strict mode.\n")]))),
    ("CUR-021", c("instructions-too-long", &["--host", "cursor", "--trust-project"], ".cursor/rules/api.mdc", ENABLE_LONG, G(cursor_900), A)),
    ("CUR-023", c("skill-unknown-key", CC, ".claude/skills/react/SKILL.md", &[], A, A)),
    ("CUR-036", J),
    ("CX-SK-001", c("skill-unknown-key", CODEX, ".agents/skills/my-skill/SKILL.md", &[], A, A)),
    ("CX-SK-004", c("skill-description-shortened", &["--host", "codex", "--profile", "codex", "--trust-project"], "", &[],
        G(codex_listing), F(&[(".agents/skills/s00/SKILL.md", "---\nname: s00\ndescription: Short. Use when asked.\n---\nBody.\n")]))),
    ("CX-SK-006", M),
    ("CX-SK-007", J),
    ("GM-001", c("instructions-fence-unclosed", GEMINI, "GEMINI.md", &[], A, A)),
    ("GM-002", J),
    ("GM-003", J),
    ("PE-002", J),
    ("PE-004", J),
    ("PE-005", J),
    ("PE-006", J),
    ("REF-001", c("instructions-import-unresolved", CLAUDE, "CLAUDE.md", &[("docs/coding-standards.md", "# Standards\n")], A, A)),
    ("REF-002", c("instructions-link-broken", TRUST, "AGENTS.md", ENABLE_LINKS, A, AW(&[("docs/STYLE.md", "# Style\n")]))),
    ("REF-003", J),
    ("XML-001", c("instructions-xml-unbalanced", NONE, "AGENTS.md", &[], A, A)),
    ("XML-002", c("instructions-xml-unbalanced", NONE, "AGENTS.md", &[], A, A)),
    ("XML-003", c("instructions-xml-unbalanced", NONE, "AGENTS.md", &[], A, A)),
    ("XP-001", c("instructions-frontmatter-inert", NONE, "AGENTS.md", &[], T("---\ncontext: fork\nagent: reviewer\nallowed-tools: Read Write\n---\n# Project Guidelines\n\n- type: PreToolExecution\n  command: echo \"lint\"\n"), A)),
    ("XP-002", J),
    ("XP-003", J),
    ("XP-004", c("instructions-commands-conflict", NONE, "", &[],
        F(&[("AGENTS.md", "# Project\n\n## Commands\n- `npm install`\n- `npm run build`\n- `npm run test`\n"), ("app/AGENTS.md", "# App\n\n## Commands\n- `pnpm install`\n- `pnpm build`\n- `pnpm test`\n")]),
        F(&[("AGENTS.md", "# Project\n\n## Commands\n- `npm install`\n- `npm run build`\n- `npm test`\n"), ("app/AGENTS.md", "# App\n\n## Commands\n- `npm install`\n- `npm run build`\n- `npm test`\n")]))),
    ("XP-005", J),
    ("XP-006", J),
    ("XP-008", M),
    ("XP-SK-001", c("skill-unknown-key", SPEC, ".agents/skills/code-review/SKILL.md", &[], A, A)),
    ("XP-SK-002", J),
    ("XP-SK-003", c("skill-secret", NONE, ".agents/skills/release/SKILL.md", &[], G(skill_token), F(&[(".agents/skills/release/SKILL.md", "---\nname: release\ndescription: Cuts a release. Use when asked.\n---\nTOKEN = os.environ[\"GITHUB_TOKEN\"]\n")]))),
    ("XP-SK-004", J),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn status(v: &V) -> &'static str {
    match v {
        V::Covered { .. } => "covered",
        V::Justified => "justified",
        V::Pending(_) => "pending",
        V::Missing => "missing",
    }
}

/// The agnix binary: `$AGNIX`, target/agnix-venv (`.ci/setup-agnix.sh`), or `agnix` on PATH at
/// the pinned version; `Err` says why there is none.
fn agnix() -> Result<PathBuf, String> {
    let pin = std::fs::read_to_string(repo().join("tests/agnix/pin.txt")).unwrap();
    let want = format!("agnix {}", pin.trim());
    let mut tried = Vec::new();
    let candidates = std::env::var_os("AGNIX")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            repo().join("target/agnix-venv/bin/agnix"),
            PathBuf::from("agnix"),
        ]);
    for c in candidates {
        match Command::new(&c).arg("--version").output() {
            Ok(o) if String::from_utf8_lossy(&o.stdout).trim() == want => return Ok(c),
            Ok(o) => tried.push(format!(
                "{}: {}",
                c.display(),
                String::from_utf8_lossy(&o.stdout).trim()
            )),
            Err(e) => tried.push(format!("{}: {e}", c.display())),
        }
    }
    Err(format!(
        "{want} not found (run .ci/setup-agnix.sh); tried {}",
        tried.join("; ")
    ))
}

fn explain(agnix: &Path, id: &str) -> serde_json::Value {
    let o = Command::new(agnix)
        .args(["explain", id, "--format", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "agnix explain {id}: {o:?}");
    serde_json::from_slice(&o.stdout).unwrap()
}

fn write_ex(ws: &Ws, ex: Ex, path: &str, agnix_text: &str) {
    match ex {
        Ex::Agnix => {
            ws.file(path, agnix_text);
        }
        Ex::Text(t) => {
            ws.file(path, t);
        }
        Ex::Files(fs) => ws.files(fs),
        Ex::AgnixWith(fs) => {
            ws.file(path, agnix_text);
            ws.files(fs);
        }
        Ex::Gen(g) => {
            for (p, b) in g() {
                ws.file(&p, b);
            }
        }
    }
}

/// The codes `check --json ARGS` reports on one example.
fn codes(
    args: &[&str],
    both: &[(&str, &str)],
    ex: Ex,
    path: &str,
    text: &str,
) -> Vec<(String, String)> {
    let ws = Ws::new();
    ws.files(both);
    write_ex(&ws, ex, path, text);
    let mut a = vec!["check", "--json"];
    a.extend(args);
    let r = ws.run(&a);
    assert!(r.code == 0 || r.code == 1, "{a:?}: {r:?}");
    r.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn ids() -> Vec<String> {
    std::fs::read_to_string(repo().join("tests/agnix/ids.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_mapping_lists_the_133_ids_and_the_docs_agree() {
    let ids = ids();
    assert_eq!(ids.len(), 133);
    let rows: Vec<&str> = ROWS.iter().map(|(id, _)| *id).collect();
    assert_eq!(rows, ids);
    // docs/agnix.md has one table row per id, with the same status.
    let doc = std::fs::read_to_string(repo().join("docs/agnix.md")).unwrap();
    for (id, v) in ROWS {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| {id} |")))
            .unwrap_or_else(|| panic!("docs/agnix.md has no row for {id}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[3], status(v), "{id}: {row}");
        if let V::Covered { code, .. } = v {
            assert!(cells[4].contains(&format!("`{code}`")), "{id}: {row}");
        }
        if let V::Pending(branch) = v {
            assert!(
                cells[5].contains(&format!("branch {branch}")),
                "{id}: {row}"
            );
        }
    }
    let count = |s: &str| ROWS.iter().filter(|(_, v)| status(v) == s).count();
    let (cov, jus, pen, mis) = (
        count("covered"),
        count("justified"),
        count("pending"),
        count("missing"),
    );
    eprintln!(
        "agnix: {cov} covered, {jus} justified, {pen} pending on other branches, {mis} missing (of 133)"
    );
    let summary = format!(
        "**{cov} covered, {jus} justified** ({} of 133), {pen} pending on other branches, {mis} missing",
        cov + jus
    );
    assert!(doc.contains(&summary), "docs/agnix.md must say: {summary}");
}

#[test]
fn agnix_examples_fire_the_mapped_rule_on_bad_and_not_on_good() {
    let agnix = match agnix() {
        Ok(a) => a,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let mut failures = Vec::new();
    let mut ran = 0;
    for (id, v) in ROWS {
        let V::Covered {
            code,
            args,
            path,
            both,
            bad,
            good,
        } = *v
        else {
            continue;
        };
        let e = explain(&agnix, id);
        let bad_text = e["bad_example"].as_str().unwrap_or_default();
        let good_text = e["good_example"].as_str().unwrap_or_default();
        let on_bad = codes(args, both, bad, path, bad_text);
        if !on_bad.iter().any(|(c, _)| c == code) {
            failures.push(format!(
                "{id}: {code} silent on the bad example: {on_bad:?}"
            ));
        }
        let on_good = codes(args, both, good, path, good_text);
        if let Some((_, m)) = on_good.iter().find(|(c, _)| c == code) {
            failures.push(format!("{id}: {code} fires on the good example: {m}"));
        }
        ran += 1;
    }
    eprintln!("agnix: {ran} covered rules run on agnix's examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_list_of_133_is_reproducible_from_agnix_explain() {
    let agnix = match agnix() {
        Ok(a) => a,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(repo().join("tests/agnix/catalogue.sh"))
        .arg(&agnix)
        .arg(out.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let listed: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(listed, ids());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("702 rules resolve"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
