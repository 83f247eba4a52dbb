use super::*;
use alisio_governor::audit::{Delivery, ImportSeen, ListedSkill, SkillListing, SkillUse};

fn delivery(
    path: &Path,
    on_disk: &'static str,
    predicted: bool,
    imports: Vec<ImportSeen>,
) -> Delivery {
    Delivery {
        path: path.display().to_string(),
        scope: Some("Project".into()),
        how: "startup",
        prompt: 1,
        after_tool: None,
        sha256: "x".into(),
        bytes: 1,
        line: 3,
        client_says_differs: None,
        imports,
        on_disk: Some(on_disk),
        predicted: Some(predicted),
        joined: Vec::new(),
        text: String::new(),
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    env: Env,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for (p, t) in [
        (
            "CLAUDE.md",
            "# Rules\n\nSee @docs/style.md and @AGENTS.md.\n",
        ),
        ("AGENTS.md", "agents\n"),
        ("docs/style.md", "tabs\n"),
        (
            ".claude/skills/greet/SKILL.md",
            "---\nname: greet\ndescription: Greets.\n---\nSay hello; see ref.md.\n",
        ),
    ] {
        let f = root.join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, t).unwrap();
    }
    Fixture {
        env: Env {
            home: Some(root.join("home")),
            ..Env::default()
        },
        _dir: dir,
        root,
    }
}

fn session(f: &Fixture, id: &str, deliveries: Vec<Delivery>, invoked: bool) -> SessionAudit {
    SessionAudit {
        file: format!("{id}.jsonl"),
        format: "claude-code",
        session: id.into(),
        cwd: Some(f.root.display().to_string()),
        workspace_match: Some(true),
        deliveries,
        skill_listings: vec![SkillListing {
            line: 2,
            prompt: 1,
            bytes: 10,
            sha256: "l".into(),
            skills: vec![ListedSkill {
                name: "greet".into(),
                description_chars: 3,
                description: "shortened",
                text: String::new(),
            }],
        }],
        skills_invoked: if invoked {
            vec![SkillUse {
                name: "greet".into(),
                line: 9,
                dir: None,
                body_sha256: None,
                unread_references: vec!["ref.md".into()],
                references: vec!["ref.md".into()],
            }]
        } else {
            Vec::new()
        },
        ..SessionAudit::default()
    }
}

fn imports(root: &Path) -> Vec<ImportSeen> {
    vec![
        ImportSeen {
            token: "@docs/style.md".into(),
            path: Some(root.join("docs/style.md").display().to_string()),
            expanded: false,
        },
        ImportSeen {
            token: "@AGENTS.md".into(),
            path: Some(root.join("AGENTS.md").display().to_string()),
            expanded: true,
        },
        ImportSeen {
            token: "@missing.md".into(),
            path: Some(root.join("missing.md").display().to_string()),
            expanded: false,
        },
    ]
}

#[test]
fn findings_diagnostics_and_lenses_of_recent_sessions() {
    let f = fixture();
    let claude = f.root.join("CLAUDE.md");
    let agents = f.root.join("AGENTS.md");
    let newest = session(
        &f,
        "s2",
        vec![
            delivery(&claude, "same", true, imports(&f.root)),
            delivery(&agents, "same", false, Vec::new()),
        ],
        true,
    );
    let older = session(
        &f,
        "s1",
        vec![
            delivery(&claude, "same", true, imports(&f.root)),
            delivery(&agents, "older-copy", false, Vec::new()),
        ],
        false,
    );
    let sf = session_findings(&f.env, &newest);
    let kinds: Vec<(&str, &str)> = sf.iter().map(|x| (x.kind, x.message.as_str())).collect();
    let c = claude.display().to_string();
    let a = agents.display().to_string();
    let root = f.root.display().to_string();
    assert_eq!(
        kinds,
        [
            ("import-not-expanded", format!("{c}: `@docs/style.md` was not expanded").as_str()),
            ("not-predicted", format!("received {a} unchanged since, but `context explain --host claude-code` does not predict it for {root}").as_str()),
            ("reference-unread", "skill `greet`: `ref.md` was never read after it was invoked"),
            ("description-shortened", "skill `greet`: description shortened to 3 characters in the listing"),
        ]
    );
    let audited = vec![(&newest, sf), (&older, session_findings(&f.env, &older))];
    assert_eq!(audited[1].1[1].message, format!("ran an older copy of {a}"));
    let p = pending(&audited);
    let text = std::fs::read_to_string(&claude).unwrap();
    let d = diagnostics(&p, &claude, &text);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::AuditImportNotExpanded);
    assert_eq!(d[0].severity, Severity::Warning);
    assert_eq!(
        (
            d[0].span.start.line,
            d[0].span.start.utf16,
            d[0].span.end.line,
            d[0].span.end.utf16
        ),
        (2, 4, 2, 18)
    );
    assert_eq!(
        d[0].message,
        "Claude Code did not expand `@docs/style.md` in 2 of the last 2 Claude Code session(s) (newest: s2): the model got the line, not the file"
    );
    let d = diagnostics(&p, &agents, "agents\n");
    assert_eq!(d.len(), 1);
    assert_eq!(
        (
            d[0].code,
            d[0].span.start.utf16,
            d[0].span.end.utf16,
            d[0].span.end.line
        ),
        (Code::AuditNotPredicted, 0, 6, 0)
    );
    assert_eq!(
        d[0].message,
        "Claude Code received this file, unchanged since, in 1 of the last 2 Claude Code session(s) (newest: s2), but `context explain --host claude-code` does not predict it for the session's cwd"
    );
    let skill = f.root.join(".claude/skills/greet/SKILL.md");
    let text = std::fs::read_to_string(&skill).unwrap();
    let d = diagnostics(&p, &skill, &text);
    assert_eq!(d.len(), 1);
    assert_eq!(
        (
            d[0].code,
            d[0].severity,
            d[0].span.start.line,
            d[0].span.start.utf16,
            d[0].span.end.utf16
        ),
        (Code::AuditReferenceUnread, Severity::Information, 4, 15, 21)
    );
    assert_eq!(
        d[0].message,
        "skill `greet` was invoked in 1 of the last 2 Claude Code session(s) (newest: s2), and `ref.md` was never read after it"
    );
    let l = Lenses::new(&f.env, &audited);
    assert_eq!(
        l.titles(&agents, false),
        [
            "Claude Code, last 2 sessions: delivered 2/2; 1 ran an older copy; 1 not as explain predicts"
        ]
    );
    assert_eq!(
        l.titles(&claude, false),
        ["Claude Code, last 2 sessions: delivered 2/2"]
    );
    assert_eq!(
        l.titles(&f.root.join("docs/style.md"), false),
        ["Claude Code, last 2 sessions: delivered 0/2"]
    );
    assert_eq!(
        l.titles(&skill, true),
        ["Claude Code, last 2 sessions: listed 2/2; 1 invoked it; 1 left a reference unread"]
    );
}

#[test]
fn a_token_is_found_where_a_word_starts_only() {
    assert_eq!(
        locate("x sub/ref.md ref.md", "ref.md"),
        Some(TextRange::new(13, 19))
    );
    assert_eq!(locate("`@a.md` @a.md", "@a.md"), Some(TextRange::new(1, 6)));
    assert_eq!(locate("email@a.md", "@a.md"), None);
}
