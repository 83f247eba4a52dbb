use std::path::{Path, PathBuf};

use alisio_base::diagnostic::{Code, Diagnostic};
use alisio_base::workspace::{DiskFs, Env};

use super::*;

struct Tree {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    env: Env,
}

fn tree(files: &[(&str, &str)]) -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    for (p, t) in files {
        let p = base.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
    std::fs::create_dir_all(base.join("ws/.git")).unwrap();
    let env = Env {
        home: Some(base.join("home")),
        ..Env::default()
    };
    Tree {
        ws: base.join("ws"),
        _tmp: tmp,
        env,
    }
}

fn run(t: &Tree, vantage: &str, skills: &[&str]) -> Startup {
    let names: Vec<(String, PathBuf)> = skills
        .iter()
        .map(|s| {
            (
                (*s).to_string(),
                t.ws.join(format!(".claude/skills/{s}/SKILL.md")),
            )
        })
        .collect();
    claude::startup(&DiskFs, &t.env, &t.ws, &t.ws.join(vantage), &names)
}

fn texts(s: &Startup, f: Family) -> Vec<String> {
    s.of(f)
        .filter(|e| e.loaded())
        .filter_map(|e| e.text.clone())
        .collect()
}

/// `(file relative to ws, start line, start col, end line, end col, code, message)`.
fn located(t: &Tree, d: &Diagnostic) -> (String, u32, u32, u32, u32, Code, String) {
    (
        d.file
            .strip_prefix(&t.ws)
            .unwrap_or(&d.file)
            .display()
            .to_string(),
        d.span.start.line,
        d.span.start.utf16,
        d.span.end.line,
        d.span.end.utf16,
        d.code,
        d.message.clone(),
    )
}

#[test]
fn agents_as_claude_code_lists_them() {
    // The probe of tests/real `families::claude_agent_listing`, measured on 2.1.332.
    let t = tree(&[
        (
            "ws/.claude/agents/reviewer.md",
            "---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\nbody\n",
        ),
        (
            "ws/.claude/agents/sub/deep.md",
            "---\nname: deep\ndescription: Deep one.\ndisallowedTools: Bash\n---\n",
        ),
        (
            "ws/.claude/agents/loose.md",
            "---\nname: loose\ndescription: Bad: yaml: here\n---\n",
        ),
        (
            "ws/.claude/agents/both.md",
            "---\nname: both\ndescription: Both.\ntools: [Read, Bash]\ndisallowedTools: [Bash]\n---\n",
        ),
        (
            "home/.claude/agents/reviewer.md",
            "---\nname: code-reviewer\ndescription: User copy.\n---\n",
        ),
        (
            "home/.claude/agents/helper.md",
            "---\nname: helper\ndescription: Helper.\n---\n",
        ),
    ]);
    let s = run(&t, "", &[]);
    assert_eq!(
        texts(&s, Family::Agent),
        [
            "- both: Both. (Tools: Read)",
            "- code-reviewer: Reviews code. (Tools: Read, Grep)",
            "- deep: Deep one. (Tools: All tools except Bash)",
            "- helper: Helper. (Tools: All tools)",
            "- loose: Bad: yaml: here (Tools: All tools)",
        ]
    );
    let shadowed: Vec<&FamilyEntry> = s.of(Family::Agent).filter(|e| !e.loaded()).collect();
    assert_eq!(shadowed.len(), 1);
    assert!(
        shadowed[0]
            .file
            .ends_with("home/.claude/agents/reviewer.md")
    );
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    let home = t.env.home.clone().unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].1, d[0].2, d[0].3, d[0].4, d[0].5, d[0].6.as_str()),
        (
            1,
            6,
            1,
            19,
            Code::AgentShadowed,
            "agent `code-reviewer` is not loaded: another agent of the same name wins"
        )
    );
    assert_eq!(
        s.diagnostics[0].file,
        home.join(".claude/agents/reviewer.md")
    );
    assert!(
        s.diagnostics[0].related[0]
            .file
            .ends_with("ws/.claude/agents/reviewer.md")
    );
    // With the client's own agents, in localeCompare order.
    let names: Vec<String> = claude::agent_listing(&s)
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert_eq!(
        names,
        [
            "both",
            "claude",
            "code-reviewer",
            "deep",
            "Explore",
            "general-purpose",
            "helper",
            "loose",
            "Plan",
            "statusline-setup"
        ]
    );
}

#[test]
fn the_nearest_directory_wins_for_agents_and_mcp_servers() {
    // Measured on 2.1.332 from ws/pkg: both the agent and the server of ws/pkg win.
    let t = tree(&[
        (
            "ws/.claude/agents/a.md",
            "---\nname: dupe\ndescription: ROOT agent.\n---\n",
        ),
        (
            "ws/pkg/.claude/agents/a.md",
            "---\nname: dupe\ndescription: PKG agent.\n---\n",
        ),
        (
            "home/.claude/agents/a.md",
            "---\nname: dupe\ndescription: USER agent.\n---\n",
        ),
        (
            "ws/.mcp.json",
            "{\"mcpServers\": {\"same\": {\"command\": \"/ROOT\"}}}",
        ),
        (
            "ws/pkg/.mcp.json",
            "{\"mcpServers\": {\"same\": {\"command\": \"/PKG\"}}}",
        ),
        (
            "home/.claude.json",
            "{\"mcpServers\": {\"same\": {\"command\": \"/USER\"}}}",
        ),
    ]);
    let s = run(&t, "pkg", &[]);
    assert_eq!(
        texts(&s, Family::Agent),
        ["- dupe: PKG agent. (Tools: All tools)"]
    );
    let won: Vec<&FamilyEntry> = s.of(Family::Mcp).filter(|e| e.loaded()).collect();
    assert_eq!(won.len(), 1);
    assert!(
        won[0].file.ends_with("ws/pkg/.mcp.json"),
        "{:?}",
        won[0].file
    );
    assert_eq!(s.of(Family::Mcp).count(), 3);
}

#[test]
fn an_agent_without_frontmatter_name_or_description_is_not_loaded() {
    let t = tree(&[
        ("ws/.claude/agents/nofm.md", "Just a body.\n"),
        (
            "ws/.claude/agents/nodesc.md",
            "---\nname: nodesc\n---\nbody\n",
        ),
        (
            "ws/.claude/agents/noname.md",
            "---\ndescription: No name.\n---\n",
        ),
        (
            "ws/.claude/agents/ok.md",
            "---\nname: ok\ndescription: Fine.\n---\n",
        ),
        ("ws/.claude/agents/notes.txt", "not an agent\n"),
    ]);
    let s = run(&t, "", &[]);
    assert_eq!(texts(&s, Family::Agent), ["- ok: Fine. (Tools: All tools)"]);
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    assert_eq!(
        d,
        [
            (".claude/agents/nodesc.md".into(), 0, 0, 0, 3, Code::AgentFieldMissing, "no `description`: Claude Code does not load this agent".into()),
            (".claude/agents/nofm.md".into(), 0, 0, 0, 12, Code::AgentFrontmatterMissing, "no frontmatter: Claude Code loads an agent only from a file that starts with a `---` block holding `name` and `description`".into()),
            (".claude/agents/noname.md".into(), 0, 0, 0, 3, Code::AgentFieldMissing, "no `name`: Claude Code does not load this agent".into()),
        ]
    );
    assert_eq!(s.not_loaded.len(), 3);
    assert!(
        s.files
            .iter()
            .all(|f| f.extension().is_some_and(|e| e == "md"))
    );
}

#[test]
fn commands_names_fallbacks_and_what_wins() {
    let t = tree(&[
        (
            "ws/.claude/commands/deploy.md",
            "---\ndescription: Deploy the app\nargument-hint: [env]\n---\nDeploy $ARGUMENTS.\n",
        ),
        (
            "ws/.claude/commands/plain.md",
            "Run the plain checks.\nSecond line.\n",
        ),
        (
            "ws/.claude/commands/fmonly.md",
            "---\nargument-hint: x\n---\n\n# Heading line\nbody\n",
        ),
        ("ws/.claude/commands/empty.md", ""),
        (
            "ws/.claude/commands/sub/nested.md",
            "---\ndescription: Nested\n---\n",
        ),
        (
            "ws/.claude/commands/hidden.md",
            "---\ndescription: Hidden\ndisable-model-invocation: true\n---\n",
        ),
        (
            "ws/.claude/commands/zeta.md",
            "---\ndescription: Clashes with a skill\n---\n",
        ),
        (
            "ws/.claude/commands/same.md",
            "---\ndescription: Same project\n---\n",
        ),
        (
            "home/.claude/commands/same.md",
            "---\ndescription: Same user\n---\n",
        ),
        (
            "ws/pkg/.claude/commands/pkgcmd.md",
            "---\ndescription: Pkg\n---\n",
        ),
    ]);
    let s = run(&t, "", &["zeta"]);
    assert_eq!(
        texts(&s, Family::Command),
        [
            "- deploy: Deploy the app",
            "- empty: Custom command",
            "- fmonly: Heading line",
            "- plain: Run the plain checks.",
            "- same: Same user",
            "- sub:nested: Nested",
        ]
    );
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    assert_eq!(
        d,
        [
            (
                ".claude/commands/same.md".into(),
                1,
                0,
                1,
                11,
                Code::CommandShadowed,
                "command `same` is not in the skill listing: another command of the same name wins"
                    .into()
            ),
            (
                ".claude/commands/zeta.md".into(),
                1,
                0,
                1,
                11,
                Code::CommandShadowed,
                "command `zeta` is not in the skill listing: a skill of the same name wins".into()
            ),
        ]
    );
    assert!(
        s.diagnostics[1].related[0]
            .file
            .ends_with(".claude/skills/zeta/SKILL.md")
    );
    assert!(
        s.diagnostics[0].related[0]
            .file
            .ends_with("home/.claude/commands/same.md")
    );
    // From pkg, its own commands join.
    let p = run(&t, "pkg", &[]);
    assert!(texts(&p, Family::Command).contains(&"- pkgcmd: Pkg".to_string()));
}

#[test]
fn mcp_servers_files_ignored_whole_and_servers_dropped_alone() {
    let t = tree(&[
        (
            "ws/.mcp.json",
            "{\"mcpServers\": {\n  \"ghost\": {\"command\": \"/nonexistent/ghost\"},\n  \"nocmd\": {\"args\": [\"x\"]},\n  \"badtype\": {\"type\": \"carrier-pigeon\", \"url\": \"u\"},\n  \"env\": {\"command\": \"x\", \"env\": {\"A\": 1}},\n  \"remote\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\"}\n}}\n",
        ),
        (
            "ws/pkg/.mcp.json",
            "{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/pkg\"}}\n",
        ),
        (
            "home/.claude.json",
            "{\"mcpServers\": {\"userghost\": {\"command\": \"/nonexistent/user\"}}}",
        ),
    ]);
    let s = run(&t, "pkg", &[]);
    let servers: Vec<(String, String, bool)> = s
        .of(Family::Mcp)
        .map(|e| (e.name.clone(), e.detail.clone(), e.loaded()))
        .collect();
    assert_eq!(
        servers,
        [
            ("ghost".into(), "stdio".into(), true),
            ("remote".into(), "http".into(), true),
            ("userghost".into(), "stdio".into(), true),
        ]
    );
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    assert_eq!(
        d,
        [
            ("pkg/.mcp.json".into(), 0, 0, 1, 0, Code::McpConfigInvalid, "invalid JSON: Unterminated object at line 1 column 1: Claude Code ignores this file".into()),
            (".mcp.json".into(), 2, 2, 2, 9, Code::McpServerInvalid, "MCP server `nocmd`: a stdio server needs `command` (or give `type` and `url`); Claude Code drops this server silently".into()),
            (".mcp.json".into(), 3, 22, 3, 38, Code::McpServerInvalid, "MCP server `badtype`: `type` must be one of stdio, sse, http, ws; Claude Code drops this server silently".into()),
            (".mcp.json".into(), 4, 33, 4, 41, Code::McpServerInvalid, "MCP server `env`: `env` must be an object whose values are strings; Claude Code drops this server silently".into()),
        ]
    );
}

#[test]
fn the_startup_json_counts_what_is_sent() {
    let t = tree(&[
        (
            "ws/.claude/agents/a.md",
            "---\nname: a\ndescription: A.\n---\n",
        ),
        ("ws/.claude/commands/c.md", "---\ndescription: C.\n---\n"),
        (
            "ws/.mcp.json",
            "{\"mcpServers\": {\"m\": {\"command\": \"x\"}}}",
        ),
    ]);
    let s = run(&t, "", &[]);
    let root = t.ws.clone();
    let show = move |p: &Path| alisio_base::workspace::display_path(p, &root);
    let j = startup_json(alisio_base::config::Host::ClaudeCode, &s, &show);
    assert_eq!(
        j["families"][0]["entries"][0]["text"],
        "- a: A. (Tools: All tools)"
    );
    assert_eq!(j["families"][0]["bytes"], 26);
    assert_eq!(j["families"][1]["entries"][0]["text"], "- c: C.");
    assert_eq!(j["families"][1]["bytes"], 7);
    assert_eq!(
        j["families"][2]["entries"][0]["text"],
        serde_json::Value::Null
    );
    assert_eq!(j["families"][2]["entries"][0]["file"], ".mcp.json");
    assert_eq!(j["bytes"], 33);
    assert_eq!(j["tokens"], 9);
}

#[test]
fn family_of_paths() {
    assert_eq!(
        family_of(Path::new("/w/.claude/agents/x.md")),
        Some(Family::Agent)
    );
    assert_eq!(
        family_of(Path::new("/w/.claude/agents/sub/x.md")),
        Some(Family::Agent)
    );
    assert_eq!(
        family_of(Path::new("/w/.claude/commands/x.md")),
        Some(Family::Command)
    );
    assert_eq!(family_of(Path::new("/w/.mcp.json")), Some(Family::Mcp));
    assert_eq!(family_of(Path::new("/w/.claude/skills/x/SKILL.md")), None);
    assert_eq!(family_of(Path::new("/w/agents/x.md")), None);
    assert_eq!(family_of(Path::new("/w/.claude/agents/x.txt")), None);
}

#[test]
fn hovers_and_completions_of_an_agent_file() {
    let p = Path::new("/w/.claude/agents/a.md");
    let text = "---\nname: a\ndescription: A.\n\n---\nbody\n";
    let h = editor::hover(p, text, 5).unwrap();
    assert!(
        h.starts_with("**name** (agent frontmatter, Claude Code)\n\nThe agent's name"),
        "{h}"
    );
    assert!(h.ends_with("```\n- a: A. (Tools: …)\n```"), "{h}");
    assert_eq!(editor::hover(p, text, 36), None, "the body");
    let at = text.find("\n\n---").unwrap() + 1;
    let keys: Vec<&str> = editor::completions(p, text, at)
        .iter()
        .map(|c| c.key)
        .collect();
    assert_eq!(keys.len(), 10);
    assert!(
        keys.contains(&"tools") && !keys.contains(&"name"),
        "{keys:?}"
    );
    assert!(
        editor::completions(p, text, text.len()).is_empty(),
        "after the block"
    );
    let c = Path::new("/w/.claude/commands/c.md");
    let keys: Vec<&str> = editor::completions(c, "---\nd\n---\n", 5)
        .iter()
        .map(|c| c.key)
        .collect();
    assert_eq!(keys, ["description", "disable-model-invocation"]);
}

#[test]
fn gemini_user_agents_in_file_order_and_what_it_skips() {
    let t = tree(&[
        (
            "home/.gemini/agents/zed.md",
            "---\nname: zed\ndescription: Zed.\n---\n",
        ),
        (
            "home/.gemini/agents/Mid.md",
            "---\nname: mid\ndescription: Mid.\n---\n",
        ),
        (
            "home/.gemini/agents/_draft.md",
            "---\nname: draft\ndescription: D.\n---\n",
        ),
        (
            "home/.gemini/agents/sub/deep.md",
            "---\nname: deep\ndescription: Deep.\n---\n",
        ),
        (
            "ws/.gemini/agents/bad.md",
            "---\nname: Bad Name\ndescription: Bad.\n---\n",
        ),
        (
            "ws/.gemini/agents/ok.md",
            "---\nname: ok\ndescription: Ok.\n---\n",
        ),
    ]);
    let s = gemini::startup(&DiskFs, &t.env, &t.ws);
    assert_eq!(texts(&s, Family::Agent), ["- mid -> Mid.", "- zed -> Zed."]);
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    assert_eq!(
        d,
        [(".gemini/agents/bad.md".into(), 1, 6, 1, 14, Code::AgentFieldMissing, "`name` must be lowercase letters, digits, `-` and `_` (Gemini CLI: \"Name must be a valid slug\"), not `Bad Name`: Gemini CLI does not load this agent".into())]
    );
    let reasons: Vec<&str> = s.not_loaded.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(reasons, ["`name` is not a slug", gemini::PROJECT_REASON]);
}

#[test]
fn codex_user_agents_sorted_with_subdirectories() {
    let t = tree(&[
        (
            "home/.codex/agents/zed.toml",
            "name = \"zed\"\ndescription = \"Zed.\"\ndeveloper_instructions = \"z\"\n",
        ),
        (
            "home/.codex/agents/sub/deep.toml",
            "name = \"deep\"\ndescription = \"Deep.\"\ndeveloper_instructions = \"d\"\n",
        ),
        (
            "home/.codex/agents/nodesc.toml",
            "name = \"nodesc\"\ndeveloper_instructions = \"n\"\n",
        ),
        ("ws/.codex/agents/broken.toml", "name = \n"),
    ]);
    let s = codex::startup(&DiskFs, &t.env, &t.ws, &t.ws);
    assert_eq!(
        texts(&s, Family::Agent),
        ["deep: {\nDeep.\n}", "zed: {\nZed.\n}"]
    );
    let d: Vec<_> = s
        .diagnostics
        .iter()
        .map(|d| (d.code, d.span.start.line, d.span.start.utf16))
        .collect();
    assert_eq!(
        d,
        [
            (Code::AgentFieldMissing, 0, 0),
            (Code::AgentFrontmatterMissing, 0, 7)
        ]
    );
    assert_eq!(
        s.diagnostics[0].message,
        "no `description`: Codex ignores agent role `nodesc` (\"must define a description\")"
    );
    assert!(
        s.diagnostics[1].message.starts_with("invalid TOML: "),
        "{}",
        s.diagnostics[1].message
    );
}

#[test]
fn a_command_inline_injection_after_a_character_is_reported() {
    let t = tree(&[(
        "ws/.claude/commands/today.md",
        "---\ndescription: Summarise today's merges.\n---\n1. Date: TODAY=!`date +%Y-%m-%d`\n2. Branch: !`git branch --show-current`\n",
    )]);
    let s = run(&t, ".", &[]);
    let got: Vec<_> = s
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::SkillCommandNotRun)
        .map(|d| located(&t, d))
        .collect();
    assert_eq!(
        got,
        [(
            ".claude/commands/today.md".to_string(),
            3,
            15,
            3,
            32,
            Code::SkillCommandNotRun,
            "Claude Code runs !`date +%Y-%m-%d` only at the start of a line or after a space: after '=' it sends the text as written and never runs the command; put a space before the !".to_string()
        )]
    );
}
