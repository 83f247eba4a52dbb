//! Subagents, slash commands and MCP servers on the command line (docs/spec/instructions.md
//! §10): `check` reports their problems with exact ranges, `context explain --host claude-code`
//! gives their startup cost (JSON and the human table), `skills list --listing` counts the
//! commands in the skill listing.

use crate::common::Ws;

fn tree() -> Ws {
    let ws = Ws::new();
    ws.files(&[
        (".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\nbody\n"),
        (".claude/agents/broken.md", "no frontmatter\n"),
        (".claude/commands/lint.md", "---\ndescription: Lint the repo\n---\nRun the linter.\n"),
        (".claude/commands/deploy.md", "---\ndescription: Deploy\n---\nx\n"),
        (".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploy the app. Use to ship.\n---\n# Deploy\n"),
        (".mcp.json", "{\"mcpServers\": {\"docs\": {\"command\": \"docs-mcp\"}, \"web\": {\"type\": \"http\"}}}\n"),
    ]);
    std::fs::create_dir_all(ws.home.join(".claude/agents")).unwrap();
    std::fs::write(
        ws.home.join(".claude/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: The user's reviewer.\n---\n",
    )
    .unwrap();
    ws
}

#[test]
fn check_reports_the_family_files_with_exact_ranges() {
    let ws = tree();
    let r = ws.run(&["check", "--json"]);
    assert_eq!(r.code, 1, "{r:?}");
    let got: Vec<(String, String, u64, u64, u64, u64, String)> = r.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d["code"].as_str().unwrap().starts_with("skill-"))
        .map(|d| {
            let n = |k: &str, j: &str| d["range"][k][j].as_u64().unwrap();
            (
                d["file"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                n("start", "line"),
                n("start", "character"),
                n("end", "line"),
                n("end", "character"),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let s = String::from;
    assert_eq!(
        got,
        [
            (
                s(".claude/agents/broken.md"),
                s("agent-frontmatter-missing"),
                0,
                0,
                0,
                14,
                s(
                    "no frontmatter: Claude Code loads an agent only from a file that starts with a `---` block holding `name` and `description`"
                )
            ),
            (
                s(".claude/commands/deploy.md"),
                s("command-shadowed"),
                1,
                0,
                1,
                11,
                s("command `deploy` is not in the skill listing: a skill of the same name wins")
            ),
            (
                s(".mcp.json"),
                s("mcp-server-invalid"),
                0,
                49,
                0,
                54,
                s(
                    "MCP server `web`: a server of type `http` needs `url`; Claude Code drops this server silently"
                )
            ),
        ]
    );
    // The user's shadowed agent is not the workspace's: not reported.
    let human = ws.run(&["check"]);
    assert!(
        human
            .stdout
            .contains(".claude/commands/deploy.md:2:1: warning[command-shadowed]: "),
        "{}",
        human.stdout
    );
}

#[test]
fn explain_gives_the_startup_cost_as_json_and_as_a_table() {
    let ws = tree();
    let j = ws
        .run(&["context", "explain", "--host", "claude-code", "--json", "."])
        .json();
    let st = &j["startup"];
    assert_eq!(st["host"], "claude-code");
    let fam = |i: usize| &st["families"][i];
    assert_eq!(fam(0)["family"], "agents");
    assert_eq!(
        fam(0)["entries"][0]["text"],
        "- reviewer: Reviews code. (Tools: Read, Grep)"
    );
    assert_eq!(fam(0)["entries"][0]["bytes"], 45);
    assert_eq!(fam(0)["entries"][0]["scope"], "project");
    assert_eq!(fam(0)["notLoaded"][0]["file"], ".claude/agents/broken.md");
    assert_eq!(fam(0)["notLoaded"][0]["reason"], "no frontmatter");
    assert_eq!(fam(0)["bytes"], 45, "the user's reviewer loses: 0 bytes");
    assert_eq!(fam(1)["channel"], "skill listing");
    assert_eq!(fam(1)["entries"][0]["name"], "deploy");
    assert_eq!(
        fam(1)["entries"][0]["shadowedBy"],
        ".claude/skills/deploy/SKILL.md"
    );
    assert_eq!(fam(1)["entries"][1]["text"], "- lint: Lint the repo");
    assert_eq!(fam(1)["bytes"], 21);
    assert_eq!(fam(2)["entries"][0]["name"], "docs");
    assert_eq!(fam(2)["entries"][0]["detail"], "stdio");
    assert_eq!(fam(2)["entries"][0]["text"], serde_json::Value::Null);
    assert_eq!(st["bytes"], 66);
    assert_eq!(st["tokens"], 17);
    let other = ws.run(&["context", "explain", "--json", "."]).json();
    assert_eq!(
        other["startup"],
        serde_json::Value::Null,
        "host alisio loads none"
    );
    let t = ws
        .run(&["context", "explain", "--host", "claude-code", "."])
        .stdout;
    assert!(
        t.contains(
            "\nStartup cost (host claude-code, bytes the host sends before the first prompt)\n"
        ),
        "{t}"
    );
    assert!(t.contains("\nagents    reviewer  45 "), "{t}");
    assert!(
        t.contains("\nmcp       docs      tools at connect  MCP servers"),
        "{t}"
    );
    assert!(t.ends_with("total: 66 bytes (~17 tokens); MCP tool definitions come from each server when it connects and are not counted\n"), "{t}");
}

#[test]
fn commands_join_the_claude_skill_listing_after_the_skills() {
    let ws = tree();
    let l = ws
        .run(&[
            "skills",
            "list",
            "--listing",
            "--host",
            "claude-code",
            "--json",
        ])
        .json();
    let l = if l.is_array() { l[0].clone() } else { l };
    let own: Vec<(&str, &str)> = l["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["builtin"] == false)
        .map(|e| (e["text"].as_str().unwrap(), e["file"].as_str().unwrap()))
        .collect();
    assert_eq!(
        own,
        [
            (
                "- deploy: Deploy the app. Use to ship.",
                ".claude/skills/deploy/SKILL.md"
            ),
            ("- lint: Lint the repo", ".claude/commands/lint.md"),
        ]
    );
}

/// Codex CLI's and Gemini CLI's MCP servers and Gemini commands in `context explain`
/// (spec/instructions.md §10.7, §10.8): the servers each host starts with their transport, the
/// project file Codex does not read (untrusted) and the Gemini commands loaded but not sent,
/// in JSON and in the table; `check` reports their files.
#[test]
fn explain_lists_codex_and_gemini_mcp_servers_and_gemini_commands() {
    let ws = Ws::new();
    ws.files(&[
        (
            ".codex/config.toml",
            "[mcp_servers.proj]\ncommand = \"proj-mcp\"\n",
        ),
        (
            ".gemini/settings.json",
            "{\"mcpServers\": {\"web\": {\"httpUrl\": \"http://127.0.0.1:9/mcp\"}}}",
        ),
        (
            ".gemini/commands/git/review.toml",
            "description = \"Review the diff\"\nprompt = \"Review {{args}}\"\n",
        ),
        (
            ".gemini/commands/broken.toml",
            "description = \"No prompt\"\n",
        ),
    ]);
    crate::common::write(
        &ws.home.join(".codex/config.toml"),
        "[mcp_servers.docs]\nurl = \"http://127.0.0.1:9/mcp\"\n",
    );
    crate::common::write(
        &ws.home.join(".gemini/trustedFolders.json"),
        format!("{{\"{}\": \"TRUST_FOLDER\"}}", ws.root.display()),
    );
    let j = ws
        .run(&["context", "explain", "--host", "codex", "--json", "."])
        .json();
    let mcp = &j["startup"]["families"][2];
    assert_eq!(mcp["entries"].as_array().unwrap().len(), 1, "{mcp:#}");
    assert_eq!(mcp["entries"][0]["name"], "docs");
    assert_eq!(mcp["entries"][0]["scope"], "user");
    assert_eq!(mcp["entries"][0]["detail"], "streamable_http");
    assert_eq!(mcp["entries"][0]["loaded"], true);
    assert_eq!(mcp["notLoaded"][0]["file"], ".codex/config.toml");
    assert_eq!(
        mcp["notLoaded"][0]["reason"],
        "Codex CLI 0.171.0 reads a project `.codex/config.toml` only when its directory or an ancestor is trusted (`[projects.\"<dir>\"] trust_level = \"trusted\"` in the user's config.toml)"
    );
    let g = ws
        .run(&["context", "explain", "--host", "gemini", "--json", "."])
        .json();
    let fam = |i: usize| &g["startup"]["families"][i];
    assert_eq!(fam(1)["channel"], "slash commands");
    assert_eq!(fam(1)["entries"][0]["name"], "git:review");
    assert_eq!(fam(1)["entries"][0]["description"], "Review the diff");
    assert_eq!(fam(1)["entries"][0]["loaded"], false);
    assert_eq!(
        fam(1)["entries"][0]["hidden"],
        "a slash command the user types: Gemini CLI sends the model nothing for it at startup"
    );
    assert_eq!(fam(1)["notLoaded"][0]["reason"], "no `prompt`");
    assert_eq!(fam(1)["bytes"], 0);
    assert_eq!(fam(2)["entries"][0]["name"], "web");
    assert_eq!(fam(2)["entries"][0]["detail"], "http");
    assert_eq!(fam(2)["entries"][0]["loaded"], true);
    let t = ws
        .run(&["context", "explain", "--host", "gemini", "."])
        .stdout;
    assert!(
        t.contains("\ncommands  git:review  not sent          slash commands  .gemini/commands/git/review.toml (a slash command the user types: Gemini CLI sends the model nothing for it at startup)\n"),
        "{t}"
    );
    assert!(
        t.contains(
            "\nmcp       web         tools at connect  MCP servers     .gemini/settings.json\n"
        ),
        "{t}"
    );
    let r = ws.run(&["check", "--json"]);
    let codes: Vec<(String, String)> = r.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [(
            ".gemini/commands/broken.toml".to_string(),
            "command-toml-invalid".to_string()
        )]
    );
}
