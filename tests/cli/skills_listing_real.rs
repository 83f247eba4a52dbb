//! The skill listing of `skills list --host claude-code --listing` against the real Claude Code
//! (spec/skills.md §9.2): the pinned client (2.1.332, `tests/clients/setup-claude-code.sh`) runs
//! offline in a network namespace with only loopback (`tests/clients/run-claude-offline.sh`,
//! fake Anthropic server on 127.0.0.1), and its `skill_listing` attachment (the transcript's copy
//! of what the request carries) must equal the simulation entry for entry: the same skills in
//! the same order, each user entry's text exactly, and each bundled entry full or name-only
//! alike. Skips when the client, `unshare` or python3 is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Rng, Ws, run_cmd};

fn claude_bin() -> Option<PathBuf> {
    // `.ci/setup-clients.sh` installs every pinned client under target/clients;
    // tests/clients/setup-claude-code.sh under target/clients/claude-code.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/clients");
    let bin = "node_modules/@anthropic-ai/claude-code-linux-x64/claude";
    let p = std::env::var_os("ALISIO_CLAUDE_CODE_BIN").map_or_else(
        || {
            [root.join(bin), root.join("claude-code").join(bin)]
                .into_iter()
                .find(|p| p.is_file())
                .unwrap_or_else(|| root.join(bin))
        },
        PathBuf::from,
    );
    if !p.is_file() {
        eprintln!(
            "skip: no Claude Code at {} (tests/clients/setup-claude-code.sh)",
            p.display()
        );
        return None;
    }
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

/// One catalog and the settings it runs under.
struct Case {
    name: &'static str,
    /// (directory, SKILL.md text, project skill?)
    skills: Vec<(String, String, bool)>,
    env: Vec<(&'static str, String)>,
    model: Option<&'static str>,
    settings: Option<&'static str>,
}

const WORDS: [&str; 24] = [
    "parse", "render", "deploy", "review", "audit", "invoice", "ledger", "chart", "schema",
    "migrate", "lint", "format", "bundle", "test", "fixture", "cache", "token", "queue", "stream",
    "image", "audio", "video", "sheet", "report",
];

fn sk(dir: &str, desc: &str) -> String {
    format!(
        "---\nname: {dir}\ndescription: {}\n---\nBody\n",
        serde_json::json!(desc)
    )
}

/// `n` skills, descriptions of `len` characters (0: random 20–1,200), seeded.
fn generated(n: usize, len: usize, seed: u64, extra: &str) -> Vec<(String, String, bool)> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| {
            let dir = format!("{}-{}-{i}", *r.pick(&WORDS), *r.pick(&WORDS));
            let want = if len == 0 { 20 + r.below(1180) } else { len };
            let mut d = format!("Use when {}{extra}. ", dir.replace('-', " "));
            while d.chars().count() < want {
                let word = *r.pick(&WORDS);
                d.push_str(word);
                d.push(' ');
            }
            let d: String = d.chars().take(want).collect::<String>().trim().to_string();
            let project = r.below(4) == 0;
            (dir.clone(), sk(&dir, &d), project)
        })
        .collect()
}

fn cases() -> Vec<Case> {
    let b = |v: u64| vec![("SLASH_COMMAND_TOOL_CHAR_BUDGET", v.to_string())];
    let c = |name, skills, env, model, settings| Case {
        name,
        skills,
        env,
        model,
        settings,
    };
    let mut tricky: Vec<(String, String, bool)> = [
        "zeta", "Alpha", "alpha-2", "alpha_1", "alpha1", "ålpha", "10-x", "9-x", "Beta", "beta",
        "a.b", "a-b", "ab",
    ]
    .iter()
    .map(|n| (n.to_string(), sk(n, &format!("d {n}")), false))
    .collect();
    tricky.push((
        "foo".into(),
        "---\nname: bar\ndescription: Foo desc.\n---\nB\n".into(),
        false,
    ));
    tricky.push((
        "wtu".into(),
        "---\nname: wtu\ndescription: \"a  b\\tc\\n d \"\nwhen_to_use: When X.\n---\nB\n".into(),
        true,
    ));
    tricky.push((
        "nodesc".into(),
        "---\nname: nodesc\n---\n\n## First line  \nmore\n".into(),
        false,
    ));
    tricky.push((
        "user-only".into(),
        "---\nname: user-only\ndescription: Hidden.\ndisable-model-invocation: true\n---\nB\n"
            .into(),
        false,
    ));
    tricky.push(("long".into(), sk("long", &"x".repeat(2000)), false));
    let wide: Vec<(String, String, bool)> = (0..40)
        .map(|i| {
            let d = format!(
                "{} 数据处理 {}",
                "😀".repeat(i % 7 + 1),
                "表".repeat(i * 3 % 50)
            );
            (format!("wide-{i}"), sk(&format!("wide-{i}"), &d), false)
        })
        .collect();
    vec![
        c("one skill", generated(1, 60, 1, ""), vec![], None, None),
        c(
            "names, labels, when_to_use, cap",
            tricky,
            vec![],
            None,
            None,
        ),
        c("5 × 50", generated(5, 50, 2, ""), vec![], None, None),
        c(
            "30 × 400 at 10000",
            generated(30, 400, 3, ""),
            b(10_000),
            None,
            None,
        ),
        c(
            "30 × 400 at 6500",
            generated(30, 400, 4, ""),
            b(6_500),
            None,
            None,
        ),
        c(
            "60 random at 12000",
            generated(60, 0, 5, ""),
            b(12_000),
            None,
            None,
        ),
        c(
            "100 × 500 default model",
            generated(100, 500, 6, ""),
            vec![],
            None,
            None,
        ),
        c(
            "100 × 500 sonnet-4-5",
            generated(100, 500, 7, ""),
            vec![],
            Some("claude-sonnet-4-5"),
            None,
        ),
        c(
            "20 × 300 sonnet-4-5",
            generated(20, 300, 8, ""),
            vec![],
            Some("claude-sonnet-4-5"),
            None,
        ),
        c(
            "200 random default",
            generated(200, 0, 9, ""),
            vec![],
            None,
            None,
        ),
        c(
            "500 × 100 default",
            generated(500, 100, 10, ""),
            vec![],
            None,
            None,
        ),
        c(
            "500 random at 20000",
            generated(500, 0, 11, ""),
            b(20_000),
            None,
            None,
        ),
        c(
            "2 × 1200 at 6200",
            generated(2, 1200, 12, ""),
            b(6_200),
            None,
            None,
        ),
        c(
            "10 × 2000 (cap)",
            generated(10, 2000, 13, ""),
            vec![],
            None,
            None,
        ),
        c("40 wide characters at 7000", wide, b(7_000), None, None),
        c(
            "fraction 0.002",
            generated(50, 300, 14, ""),
            vec![],
            None,
            Some(r#"{"skillListingBudgetFraction": 0.002}"#),
        ),
        c(
            "max desc 100",
            generated(25, 400, 15, ""),
            vec![],
            None,
            Some(r#"{"skillListingMaxDescChars": 100}"#),
        ),
        c(
            "fraction 0.003 + max desc 200, sonnet",
            generated(80, 0, 16, ""),
            vec![],
            Some("claude-sonnet-4-5"),
            Some(r#"{"skillListingBudgetFraction": 0.003, "skillListingMaxDescChars": 200}"#),
        ),
        c(
            "15 × 1000 at 9000",
            generated(15, 1000, 17, ""),
            b(9_000),
            None,
            None,
        ),
        c(
            "300 × 40 sonnet-4-5",
            generated(300, 40, 18, ""),
            vec![],
            Some("claude-sonnet-4-5"),
            None,
        ),
        c(
            "budget below the bundled entries",
            generated(12, 80, 19, ""),
            b(3_000),
            None,
            None,
        ),
        c(
            "8 × 700 at 8000",
            generated(8, 700, 20, ""),
            b(8_000),
            None,
            None,
        ),
    ]
}

/// The entries of the real `skill_listing` attachment (an entry starts with `- ` at a line start;
/// the bundled claude-api entry continues over lines).
fn real_listing(case_dir: &Path) -> Option<Vec<String>> {
    let projects = case_dir.join("home/.claude/projects");
    // Every transcript file of every project folder; anything else the client keeps there (a
    // folder of a session's tool results, say) is passed over, whatever the listing order.
    for d in std::fs::read_dir(projects).ok()?.flatten() {
        let Ok(files) = std::fs::read_dir(d.path()) else {
            continue;
        };
        for f in files.flatten() {
            if f.path().extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(f.path()) else {
                continue;
            };
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                    continue;
                };
                let a = &v["attachment"];
                if a["type"] == "skill_listing" {
                    let content = a["content"].as_str()?;
                    let mut entries: Vec<String> = Vec::new();
                    for l in content.split('\n') {
                        match entries.last_mut() {
                            Some(last) if !l.starts_with("- ") => {
                                last.push('\n');
                                last.push_str(l);
                            }
                            _ => entries.push(l.to_string()),
                        }
                    }
                    return Some(entries);
                }
            }
        }
    }
    None
}

/// The paths below `dir` with their sizes, for a failure message.
fn walkdir_names(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let n = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                out.push(format!("{} ({n} bytes)", p.display()));
            }
        }
    }
    out
}

#[test]
fn claude_code_listing_agrees_with_the_real_client_on_22_catalogs() {
    let Some(claude) = claude_bin() else { return };
    let runner =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/run-claude-offline.sh");
    let all = cases();
    assert!(all.len() >= 20);
    for case in all {
        let ws = Ws::new();
        let base = ws.tmp.path().canonicalize().unwrap();
        for (dir, text, project) in &case.skills {
            let root = if *project {
                ws.root.join(".claude/skills")
            } else {
                ws.home.join(".claude/skills")
            };
            crate::common::write(&root.join(dir).join("SKILL.md"), text);
        }
        if let Some(s) = case.settings {
            crate::common::write(&ws.home.join(".claude/settings.json"), s);
        }
        let mut cmd = Command::new("bash");
        cmd.arg(&runner).arg(&claude).arg(&base);
        for (k, v) in &case.env {
            cmd.arg(format!("{k}={v}"));
        }
        if let Some(m) = case.model {
            cmd.args(["--", "--model", m]);
        }
        let r = run_cmd(&mut cmd);
        assert_eq!(r.code, 0, "{}: {}", case.name, r.stderr);
        let real = real_listing(&base).unwrap_or_else(|| {
            let kept: Vec<String> = walkdir_names(&base.join("home/.claude/projects"));
            panic!(
                "{}: no skill_listing; stderr: {}; files: {kept:?}; requests: {:?}",
                case.name,
                std::fs::read_to_string(base.join("err.txt")).unwrap_or_default(),
                std::fs::read_dir(base.join("req")).map(|r| r.count()).ok()
            )
        });
        let mut ours = ws.cmd();
        ours.args([
            "skills",
            "list",
            "--host",
            "claude-code",
            "--listing",
            "--json",
        ]);
        for (k, v) in &case.env {
            ours.env(k, v);
        }
        if let Some(m) = case.model {
            ours.args(["--model", m]);
        }
        let j = run_cmd(&mut ours).json();
        let entries = j["entries"].as_array().unwrap();
        let count = |s: &str| entries.iter().filter(|e| e["status"] == s).count();
        eprintln!(
            "{}: {} entries, {} full, {} shortened, {} dropped, budget {}",
            case.name,
            entries.len(),
            count("full"),
            count("shortened"),
            count("dropped"),
            j["budget"]
        );
        assert_eq!(entries.len(), real.len(), "{}: entry count", case.name);
        for (e, r) in entries.iter().zip(&real) {
            if e["builtin"] == true {
                let name = e["name"].as_str().unwrap();
                let full = r.starts_with(&format!("- {name}: "));
                assert!(full || *r == format!("- {name}"), "{}: {r}", case.name);
                assert_eq!(e["status"] == "full", full, "{}: bundled {name}", case.name);
            } else {
                assert_eq!(e["text"].as_str().unwrap(), r, "{}", case.name);
            }
        }
    }
}
