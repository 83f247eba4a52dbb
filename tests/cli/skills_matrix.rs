//! Validity per host (spec/skills.md §12): `skills validate --matrix` over one skill of each kind
//! of trouble (symlinks, no frontmatter, YAML errors, names, sizes, byte order mark, XML tags),
//! every cell exact; the columns whose evidence is a real program are compared with it: the spec
//! column with skills-ref 0.1.1, the claude-code column with the real Claude Code 2.1.332 run
//! offline (the skills it lists), each skipping when its program is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{Ws, run_cmd, write};

/// One variant: directory name and SKILL.md bytes; `None`: a link (made by [`lay_out`]).
fn variants() -> Vec<(&'static str, Option<Vec<u8>>)> {
    let sk =
        |n: &str, d: &str| format!("---\nname: {n}\ndescription: {d}\n---\nBody\n").into_bytes();
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend(sk(
        "bom",
        "Reads bytes. Use when testing a byte order mark.",
    ));
    let huge = format!(
        "---\nname: huge\ndescription: Reads a big file. Use when testing size.\n---\n{}\n",
        "x".repeat(70_000)
    );
    vec![
        ("plain", Some(sk("plain", "Reads plain text. Use when testing plain skills."))),
        ("linkdir", None),
        ("linkfile", None),
        ("nofm", Some(b"# No frontmatter\n\nReads text without frontmatter.\n".to_vec())),
        ("badyaml", Some(b"---\nname: badyaml\ndescription: Use when: editing yaml\n---\nBody\n".to_vec())),
        ("mismatch", Some(sk("other-name", "Reads names. Use when testing a mismatch."))),
        ("listhint", Some(b"---\nname: listhint\ndescription: Reads hints. Use when testing hints.\nargument-hint: [a, b]\n---\nBody\n".to_vec())),
        ("unknown", Some(b"---\nname: unknown\ndescription: Reads keys. Use when testing keys.\nfoo: bar\n---\nBody\n".to_vec())),
        ("nodesc", Some(b"---\nname: nodesc\n---\nFirst body line of nodesc.\n".to_vec())),
        ("Bad_Name", Some(sk("Bad_Name", "Reads names. Use when testing bad names."))),
        ("bom", Some(bom)),
        ("unterminated", Some(b"---\nname: unterminated\ndescription: Reads text.\nBody\n".to_vec())),
        ("xmltag", Some(sk("xmltag", "Reads tags. Use when <example>testing</example> tags."))),
        ("dupkey", Some(b"---\nname: dupkey\nname: dupkey\ndescription: Reads keys. Use when testing.\n---\nBody\n".to_vec())),
        ("huge", Some(huge.into_bytes())),
        ("claude-notes", Some(sk("claude-notes", "Writes notes. Use when testing reserved words."))),
        // 1,500 characters: Codex 0.171.0 loads it and lists 1,021 of them and `...` (measured).
        ("longdesc", Some(sk("longdesc", &format!("Reads long text. Use when testing a long description. {}", "x".repeat(1446))))),
    ]
}

/// Writes the variants into `root` (a skills root); the links point into `elsewhere`.
fn lay_out(root: &Path, elsewhere: &Path) {
    for (dir, text) in variants() {
        if let Some(t) = text {
            write(&root.join(dir).join("SKILL.md"), t);
        }
    }
    let linked = write(
        &elsewhere.join("linked-skill/SKILL.md"),
        "---\nname: linked-skill\ndescription: Reads links. Use when testing linked directories.\n---\nBody\n",
    );
    std::os::unix::fs::symlink(linked.parent().unwrap(), root.join("linkdir")).unwrap();
    let target = write(
        &elsewhere.join("file-target/SKILL.md"),
        "---\nname: linkfile\ndescription: Reads links. Use when testing linked files.\n---\nBody\n",
    );
    std::fs::create_dir_all(root.join("linkfile")).unwrap();
    std::os::unix::fs::symlink(target, root.join("linkfile/SKILL.md")).unwrap();
}

/// `skills validate --matrix --json` over `root`: directory → the verdict letter of each host
/// (L loads, W with warnings, S skipped silently, G skipped with a log line, R rejected).
fn matrix(ws: &Ws, root: &Path) -> Vec<(String, String)> {
    let r = ws.run(&[
        "skills",
        "validate",
        "--matrix",
        "--json",
        root.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    let j = r.json();
    let mut out = Vec::new();
    for row in j.as_array().unwrap() {
        let file = row["file"].as_str().unwrap();
        let dir = Path::new(file).parent().unwrap().file_name().unwrap();
        let hosts: Vec<&str> = row["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["host"].as_str().unwrap())
            .collect();
        assert_eq!(
            hosts,
            [
                "alisio",
                "claude-code",
                "codex",
                "copilot-vscode",
                "copilot-cli",
                "gemini",
                "cursor",
                "spec",
                "upload"
            ]
        );
        let letters: String = row["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| match c["verdict"].as_str().unwrap() {
                "loads" => 'L',
                "loads with warnings" => 'W',
                "skipped silently" => 'S',
                "skipped with a log line" => 'G',
                "rejected" => 'R',
                v => panic!("{v}"),
            })
            .collect();
        out.push((dir.to_string_lossy().into_owned(), letters));
    }
    out
}

fn laid_out() -> (Ws, PathBuf) {
    let ws = Ws::new();
    let root = ws.root.join("skills");
    lay_out(&root, &ws.root.join("elsewhere"));
    (ws, root)
}

#[test]
fn every_cell_of_the_matrix() {
    let (ws, root) = laid_out();
    let got = matrix(&ws, &root);
    // columns: alisio claude-code codex copilot-vscode copilot-cli gemini cursor spec upload
    let want = [
        ("Bad_Name", "RLLLGLSRR"),
        ("badyaml", "RWWSGWSRR"),
        ("bom", "LLGLLSLRL"),
        ("claude-notes", "LLLLLLLLR"),
        ("dupkey", "RWGSGWSRR"),
        ("huge", "RLLLLLLLL"),
        ("linkdir", "GLLGLLLRL"),
        ("linkfile", "GLSLLLLLL"),
        ("listhint", "LLLLLLLRL"),
        ("longdesc", "RWWWGLSRR"),
        ("mismatch", "WLLGLLLRL"),
        ("nodesc", "RWGGGSSRR"),
        ("nofm", "RWGGGSSRR"),
        ("plain", "LLLLLLLLL"),
        ("unknown", "LLLLLLLRL"),
        ("unterminated", "RWGSGSSRR"),
        ("xmltag", "LLLWLLLLR"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(d, l)| ((*d).to_string(), (*l).to_string()))
        .collect();
    assert_eq!(got, want);
    // Reasons and evidence, exactly, for the cells a user asks about most.
    let j = ws
        .run(&[
            "skills",
            "validate",
            "--matrix",
            "--json",
            root.join("linkdir").to_str().unwrap(),
        ])
        .json();
    let cell = |host: &str| {
        j[0]["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["host"] == host)
            .unwrap()
            .clone()
    };
    assert_eq!(
        cell("alisio")["reason"],
        "the skill directory is a symbolic link; host alisio does not follow symbolic links (skill-symlink)"
    );
    assert_eq!(cell("claude-code")["evidence"], "measured");
    assert_eq!(cell("claude-code")["reason"], serde_json::Value::Null);
    assert_eq!(cell("gemini")["evidence"], "measured");
    assert_eq!(cell("codex")["evidence"], "measured");
    assert_eq!(cell("copilot-cli")["evidence"], "docs");
    // Copilot in VS Code from its source (spec/skills.md §12.1): the folder is `linkdir`, the
    // name `linked-skill`.
    assert_eq!(cell("copilot-vscode")["evidence"], "source");
    assert_eq!(
        cell("copilot-vscode")["reason"],
        "VS Code's log: Agent skill name \"linked-skill\" does not match folder name \"linkdir\""
    );
    let human = ws.run(&[
        "skills",
        "validate",
        "--matrix",
        root.join("xmltag").to_str().unwrap(),
    ]);
    assert!(
        human.stdout.contains("  upload          rejected: claude.ai and the Claude API reject a skill whose description contains an XML tag (\"<example>\") [docs]\n"),
        "{}",
        human.stdout
    );
}

#[test]
fn symlinked_skills_load_for_claude_code_and_codex_as_they_read_them_and_are_reported_for_alisio() {
    let ws = Ws::new();
    lay_out(&ws.root.join(".claude/skills"), &ws.root.join("elsewhere"));
    lay_out(&ws.root.join(".agents/skills"), &ws.root.join("elsewhere2"));
    let listed = |host: &str| -> Vec<String> {
        let r = ws.run(&[
            "skills",
            "list",
            "--host",
            host,
            "--trust-project",
            "--json",
        ]);
        r.json()
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["file"].as_str().unwrap().to_string())
            .filter(|f| f.contains("link"))
            .collect()
    };
    assert_eq!(
        listed("claude-code"),
        [
            ".claude/skills/linkdir/SKILL.md",
            ".claude/skills/linkfile/SKILL.md"
        ]
    );
    // Codex 0.171 follows a linked directory, not a linked SKILL.md (tests/real/skills_matrix.rs).
    assert_eq!(listed("codex"), [".agents/skills/linkdir/SKILL.md"]);
    assert_eq!(listed("alisio"), Vec::<String>::new());
    let symlink_codes = |host: &str| -> Vec<String> {
        let r = ws.run(&["check", "--host", host, "--trust-project", "--json"]);
        r.json()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "skill-symlink")
            .map(|d| d["file"].as_str().unwrap().to_string())
            .collect()
    };
    // skill-symlink is host alisio's rule only.
    assert_eq!(symlink_codes("claude-code"), Vec::<String>::new());
    assert_eq!(symlink_codes("codex"), Vec::<String>::new());
    assert_eq!(
        symlink_codes("alisio"),
        [
            ".agents/skills/linkfile/SKILL.md",
            ".claude/skills/linkfile/SKILL.md"
        ]
    );
}

#[test]
fn the_spec_column_agrees_with_skills_ref() {
    let Some(py) = crate::skills_corpus::skills_ref_python() else {
        return;
    };
    let (ws, root) = laid_out();
    let got = matrix(&ws, &root);
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/skills/skills_ref_verdicts.py");
    let mut child = Command::new(&py)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        for (dir, _) in &got {
            writeln!(stdin, "{}", root.join(dir).join("SKILL.md").display()).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let reference: std::collections::BTreeMap<String, Vec<String>> =
        serde_json::from_slice(&out.stdout).unwrap();
    for (dir, letters) in &got {
        let errs = &reference[&root.join(dir).join("SKILL.md").display().to_string()];
        let spec = letters.chars().nth(7).unwrap();
        assert_eq!(
            spec == 'R',
            !errs.is_empty(),
            "{dir}: skills-ref says {errs:?}, we say {spec}"
        );
    }
}

fn claude_bin() -> Option<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/clients");
    let candidates = [
        std::env::var_os("ALISIO_CLAUDE_CODE_BIN").map(PathBuf::from),
        Some(base.join("claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude")),
        Some(base.join("node_modules/@anthropic-ai/claude-code-linux-x64/claude")),
    ];
    let Some(p) = candidates.into_iter().flatten().find(|p| p.is_file()) else {
        eprintln!("skip: no Claude Code under target/clients (tests/clients/setup-claude-code.sh)");
        return None;
    };
    let ok = Command::new("unshare")
        .args(["-n", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skip: unshare -n is not permitted here");
        return None;
    }
    Some(p)
}

/// The skill names of the real `skill_listing` attachment, bundled entries included.
fn listed_by_claude(case: &Path) -> Vec<String> {
    let projects = case.join("home/.claude/projects");
    for d in std::fs::read_dir(projects).unwrap().flatten() {
        for f in std::fs::read_dir(d.path()).unwrap().flatten() {
            let text = std::fs::read_to_string(f.path()).unwrap_or_default();
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                if v["attachment"]["type"] == "skill_listing" {
                    return v["attachment"]["content"]
                        .as_str()
                        .unwrap()
                        .lines()
                        .filter_map(|l| l.strip_prefix("- "))
                        .map(|l| l.split([':', ' ']).next().unwrap().to_string())
                        .collect();
                }
            }
        }
    }
    panic!("no skill_listing in {}", case.display());
}

#[test]
fn the_claude_code_column_agrees_with_the_real_client() {
    let Some(claude) = claude_bin() else { return };
    let ws = Ws::new();
    let base = ws.tmp.path().canonicalize().unwrap();
    let root = ws.home.join(".claude/skills");
    lay_out(&root, &base.join("elsewhere"));
    let runner =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/run-claude-offline.sh");
    let r = run_cmd(Command::new("bash").arg(&runner).arg(&claude).arg(&base));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let real = listed_by_claude(&base);
    for (dir, letters) in matrix(&ws, &root) {
        let loads = matches!(letters.chars().nth(1), Some('L' | 'W'));
        assert_eq!(
            real.contains(&dir),
            loads,
            "{dir}: Claude Code lists {real:?}, the matrix says {letters}"
        );
    }
}

#[test]
fn a_link_to_a_fifo_is_never_read() {
    let ws = Ws::new();
    let fifo = ws.root.join("pipe");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("skip: mkfifo failed");
        return;
    }
    std::fs::create_dir_all(ws.root.join(".claude/skills/f")).unwrap();
    std::os::unix::fs::symlink(&fifo, ws.root.join(".claude/skills/f/SKILL.md")).unwrap();
    // Under a host that reads through links, a link to anything but a regular file keeps
    // skill-symlink and is not opened.
    let r = ws.run(&[
        "check",
        "--host",
        "claude-code",
        "--trust-project",
        "--json",
    ]);
    let codes: Vec<String> = r.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes, ["skill-symlink"]);
    let m = ws.run(&[
        "skills",
        "validate",
        "--matrix",
        ".claude/skills/f/SKILL.md",
    ]);
    assert_eq!(m.code, 2);
    m.assert_stderr_has("error: .claude/skills/f/SKILL.md: not a regular file");
}
