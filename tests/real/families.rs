//! The files beside skills that cost startup context (docs/spec/instructions.md §10): what
//! Gemini CLI 0.61.0 and Codex CLI 0.171.0 list for user subagents, and what
//! Claude Code 2.1.332 sends for subagents (the agent listing), slash commands (in the skill
//! listing) and MCP servers (each pointing at a command that does not exist, so the client
//! reports it as failed to connect; nothing is started and nothing reaches the network),
//! against `context explain --json`'s `startup` object and `skills list --listing --json`.

use std::sync::Arc;

use serde_json::Value;

use crate::harness::{Case, Check, Client, Ctx, expect, extract};

const AGENTS_HEAD: &str = "Available agent types for the Agent tool:\n";
const AGENTS_TAIL: &str = "\n\nWhen you launch multiple agents";
const SKILLS_HEAD: &str = "The following skills are available for use with the Skill tool:\n\n";
const MCP_HEAD: &str = "are unavailable for this session:\n";
/// The client's own agents (their lines are not compared).
const BUILTIN_AGENTS: [&str; 5] = [
    "claude",
    "Explore",
    "general-purpose",
    "Plan",
    "statusline-setup",
];

/// Every text part of the first main request.
fn first_texts(ctx: &Ctx<'_>) -> Result<String, String> {
    let reqs = extract::main_requests(&ctx.outcome.requests);
    let first = reqs.first().ok_or("the client sent no main request")?;
    let mut out = String::new();
    for m in first["messages"].as_array().into_iter().flatten() {
        match &m["content"] {
            Value::String(s) => out.push_str(s),
            Value::Array(parts) => {
                for p in parts {
                    out.push_str(p["text"].as_str().unwrap_or_default());
                    out.push('\n');
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn between<'a>(text: &'a str, head: &str, tail: &str) -> Result<&'a str, String> {
    let i = text
        .find(head)
        .ok_or_else(|| format!("no `{head}` in the request"))?
        + head.len();
    let j = text[i..].find(tail).map_or(text.len(), |j| i + j);
    Ok(&text[i..j])
}

fn startup_texts(ex: &Value, family: &str) -> Vec<String> {
    ex["startup"]["families"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["family"] == family)
        .flat_map(|f| f["entries"].as_array().cloned().unwrap_or_default())
        .filter(|e| e["loaded"] == true)
        .map(|e| {
            e["text"]
                .as_str()
                .unwrap_or(e["name"].as_str().unwrap_or_default())
                .to_string()
        })
        .collect()
}

/// The agent listing: every agent explain lists, and no other but the client's own, in order.
fn agents(ctx: &Ctx<'_>, text: &str, ex: &Value) -> Result<(), String> {
    let block = between(text, AGENTS_HEAD, AGENTS_TAIL)?;
    let want = startup_texts(ex, "agents");
    let mut at = 0;
    for w in &want {
        let line = format!("{w}\n");
        let found = format!("{block}\n")[at..].find(&line).ok_or_else(|| {
            format!(
                "{}: the client's agent listing has no `{w}` after byte {at}:\n{block}",
                ctx.case.name
            )
        })?;
        at += found + line.len();
    }
    // Entries start a line with `- name: `; descriptions may hold line breaks.
    let client: Vec<&str> = block
        .split('\n')
        .filter_map(|l| {
            l.strip_prefix("- ")
                .and_then(|l| l.split_once(": "))
                .map(|(n, _)| n)
        })
        .filter(|n| !BUILTIN_AGENTS.contains(n))
        .collect();
    if client.len() != want.len() {
        return Err(format!(
            "agents: the client lists {client:?}, explain {want:?}"
        ));
    }
    Ok(())
}

/// The skill listing: the user's entries (skills, then commands) exactly as `skills list
/// --listing` gives them, up to the client's own.
fn commands(ctx: &Ctx<'_>, text: &str) -> Result<(), String> {
    let block = between(text, SKILLS_HEAD, "- dataviz:")?;
    let got: Vec<&str> = block.lines().filter(|l| !l.is_empty()).collect();
    let l = expect::alisio(
        ctx,
        &[
            "skills",
            "list",
            "--listing",
            "--host",
            "claude-code",
            "--json",
        ],
    )?;
    let l = if l.is_array() { l[0].clone() } else { l };
    let want: Vec<String> = l["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["builtin"] == false)
        .filter_map(|e| e["text"].as_str().map(str::to_string))
        .collect();
    if got != want {
        return Err(format!(
            "skill listing: the client sent {got:?}, skills list --listing gives {want:?}"
        ));
    }
    Ok(())
}

/// The MCP servers the client tried: every server explain loads, and no other.
fn mcp(text: &str, ex: &Value) -> Result<(), String> {
    let mut got: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(MCP_HEAD) {
        rest = &rest[i + MCP_HEAD.len()..];
        for l in rest.lines().take_while(|l| !l.is_empty()) {
            if let Some((name, _)) = l.split_once(" (") {
                got.push(name.to_string());
            }
        }
    }
    let mut want = startup_texts(ex, "mcp");
    got.sort();
    want.sort();
    if got != want {
        return Err(format!(
            "MCP servers: the client tried {got:?}, explain loads {want:?}"
        ));
    }
    Ok(())
}

fn check() -> Check {
    Arc::new(|ctx| {
        let text = first_texts(ctx)?;
        let ex = expect::explain(ctx, ".")?;
        if ex["startup"]["host"] != "claude-code" {
            return Err(format!(
                "explain has no claude-code startup object: {}",
                ex["startup"]
            ));
        }
        agents(ctx, &text, &ex)?;
        commands(ctx, &text)?;
        mcp(&text, &ex)
    })
}

/// Gemini CLI: the sub-agent list of the system instruction ends with explain's agents.
fn gemini_check() -> Check {
    Arc::new(|ctx| {
        let reqs = extract::main_requests(&ctx.outcome.requests);
        let first = reqs.first().ok_or("the client sent no main request")?;
        let sys: String = first["systemInstruction"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["text"].as_str())
            .collect();
        let block = between(
            &sys,
            "The following sub-agents are available:\n\n",
            "\n\nRemember that",
        )?;
        let ex = expect::explain(ctx, ".")?;
        let want = startup_texts(&ex, "agents");
        let own = ["codebase_investigator", "cli_help", "generalist"];
        let tail: Vec<&str> = block.split("\n- ").collect();
        let tail = tail[own.len().min(tail.len())..].join("\n- ");
        let tail = if tail.is_empty() {
            tail
        } else {
            format!("- {tail}")
        };
        if tail != want.join("\n") {
            return Err(format!(
                "gemini agents: the client sent {tail:?}, explain {want:?}"
            ));
        }
        Ok(())
    })
}

/// Codex CLI: the roles of `spawn_agent`'s `agent_type` start with explain's agents.
fn codex_check() -> Check {
    Arc::new(|ctx| {
        let reqs = extract::main_requests(&ctx.outcome.requests);
        let first = reqs.first().ok_or("the client sent no main request")?;
        let text = first.to_string();
        let body: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let mut desc = None;
        for t in body["tools"].as_array().into_iter().flatten() {
            for f in t["tools"].as_array().into_iter().flatten() {
                if f["name"] == "spawn_agent" {
                    desc = f["parameters"]["properties"]["agent_type"]["description"]
                        .as_str()
                        .map(str::to_string);
                }
            }
        }
        let desc = desc.ok_or("no spawn_agent tool")?;
        let roles = between(&desc, "Available roles:\n", "default: {")?;
        let ex = expect::explain(ctx, ".")?;
        let want: String = startup_texts(&ex, "agents")
            .iter()
            .map(|t| format!("{t}\n"))
            .collect();
        if roles != want {
            return Err(format!(
                "codex agents: the client sent {roles:?}, explain {want:?}"
            ));
        }
        Ok(())
    })
}

fn case(name: &str) -> Case {
    Case::new(Client::ClaudeCode, name).check(check())
}

const NOFILE: &str = "/nonexistent/alisio-test-mcp";

/// Every family case (Claude Code).
pub fn cases() -> Vec<Case> {
    vec![
        case("family_agents_precedence_tools_and_loose_yaml")
            .file("ws/.claude/agents/reviewer.md", "---\nname: code-reviewer\ndescription: Reviews code for quality. Use after edits.\ntools: Read, Grep\nmodel: sonnet\n---\nYou are a code reviewer.\n")
            .file("ws/.claude/agents/nodesc.md", "---\nname: nodesc\n---\nNo description here.\n")
            .file("ws/.claude/agents/nofm.md", "Just a body, no frontmatter.\n")
            .file("ws/.claude/agents/filename.md", "---\ndescription: No name field.\n---\nb\n")
            .file("ws/.claude/agents/sub/deep.md", "---\nname: deep\ndescription: Deep agent in a subdirectory.\ndisallowedTools: Bash\n---\nd\n")
            .file("ws/.claude/agents/badyaml.md", "---\nname: badyaml\ndescription: Bad: yaml: here\n---\nb\n")
            .file("ws/.claude/agents/both.md", "---\nname: both\ndescription: Both lists.\ntools: Read, Bash\ndisallowedTools: Bash\n---\nt\n")
            .file("ws/.claude/agents/multi.md", "---\nname: multi\ndescription: \"Multi\\nline desc\"\ntools: [Read, Bash]\n---\nb\n")
            .file("home/.claude/agents/reviewer.md", "---\nname: code-reviewer\ndescription: USER copy of the reviewer.\n---\nuser body\n")
            .file("home/.claude/agents/helper.md", "---\nname: helper\ndescription: User-level helper agent.\n---\nhelper body\n"),
        case("family_agents_of_an_ancestor_and_the_cwd")
            .file("ws/.claude/agents/top.md", "---\nname: top\ndescription: Top agent.\n---\nt\n")
            .file("ws/pkg/.claude/agents/inner.md", "---\nname: inner\ndescription: Inner agent of pkg.\n---\ni\n")
            .file("ws/pkg/x.txt", "x\n")
            .cwd("ws/pkg"),
        case("family_the_nearest_agent_and_server_win")
            .file("ws/.mcp.json", &format!("{{\"mcpServers\": {{\"same\": {{\"command\": \"{NOFILE}-root\"}}}}}}\n"))
            .file("ws/pkg/.mcp.json", &format!("{{\"mcpServers\": {{\"same\": {{\"command\": \"{NOFILE}-pkg\"}}}}}}\n"))
            .file("home/.claude.json", &format!("{{\"mcpServers\": {{\"same\": {{\"command\": \"{NOFILE}-user\"}}}}}}\n"))
            .file("ws/.claude/agents/a.md", "---\nname: dupe\ndescription: ROOT agent.\n---\nb\n")
            .file("ws/pkg/.claude/agents/a.md", "---\nname: dupe\ndescription: PKG agent.\n---\nb\n")
            .file("ws/pkg/x.txt", "x\n")
            .cwd("ws/pkg"),
        case("family_commands_after_skills_with_fallback_descriptions")
            .file("ws/.claude/skills/zeta/SKILL.md", "---\nname: zeta\ndescription: Zeta project skill.\n---\nz\n")
            .file("home/.claude/skills/alpha/SKILL.md", "---\nname: alpha\ndescription: Alpha user skill.\n---\na\n")
            .file("ws/.claude/commands/beta.md", "---\ndescription: Beta project command\n---\nb\n")
            .file("home/.claude/commands/gamma.md", "---\ndescription: Gamma user command\n---\ng\n")
            .file("ws/.claude/commands/zeta.md", "---\ndescription: Zeta command clashes with skill\n---\nzc\n")
            .file("ws/.claude/commands/hidden.md", "---\ndescription: Hidden command\ndisable-model-invocation: true\n---\nh\n")
            .file("ws/.claude/commands/empty.md", "")
            .file("ws/.claude/commands/plain.md", "Run the plain checks on the repo.\nSecond line.\n")
            .file("ws/.claude/commands/fmonly.md", "---\nargument-hint: x\n---\n\n# Heading line\nbody\n")
            .file("ws/.claude/commands/sub/nested.md", "---\ndescription: A nested command\n---\nnested\n")
            .file("ws/.claude/commands/notes.txt", "not a command\n"),
        case("family_commands_user_wins_and_the_cwd_directory")
            .file("ws/.claude/commands/same.md", "---\ndescription: Same project command\n---\ns\n")
            .file("home/.claude/commands/same.md", "---\ndescription: Same user command\n---\ns\n")
            .file("ws/.claude/commands/top.md", "---\ndescription: Top command\n---\nt\n")
            .file("ws/pkg/.claude/commands/pkgcmd.md", "---\ndescription: Pkg command\n---\np\n")
            .file("ws/pkg/x.txt", "x\n")
            .cwd("ws/pkg"),
        case("family_mcp_servers_dropped_alone_and_files_of_ancestors")
            .file("ws/.mcp.json", &format!("{{\"mcpServers\": {{\"ghost\": {{\"command\": \"{NOFILE}\"}}, \"nocmd\": {{\"args\": [\"x\"]}}, \"badtype\": {{\"type\": \"carrier-pigeon\", \"url\": \"http://127.0.0.1:9\"}}, \"badenv\": {{\"command\": \"{NOFILE}\", \"env\": {{\"A\": 1}}}}}}}}\n"))
            .file("ws/pkg/.mcp.json", &format!("{{\"mcpServers\": {{\"pkgghost\": {{\"command\": \"{NOFILE}\", \"args\": [\"--stdio\"]}}}}}}\n"))
            .file("ws/pkg/x.txt", "x\n")
            .cwd("ws/pkg"),
        case("family_mcp_invalid_file_ignored_and_the_user_file")
            .file("ws/.mcp.json", &format!("{{\"mcpServers\": {{\"ghost\": {{\"command\": \"{NOFILE}\"}}}}\n"))
            .file("home/.claude.json", &format!("{{\"mcpServers\": {{\"userghost\": {{\"command\": \"{NOFILE}\"}}}}}}\n")),
        Case::new(Client::Gemini, "family_gemini_user_agents_in_file_order")
            .file("home/.gemini/agents/zed.md", "---\nname: zed\ndescription: Zed agent.\n---\nbody\n")
            .file("home/.gemini/agents/alpha.md", "---\nname: alpha\ndescription: Alpha agent.\n---\nbody\n")
            .file("home/.gemini/agents/Mid.md", "---\nname: mid\ndescription: \"Two\\nlines.\"\n---\nbody\n")
            .file("home/.gemini/agents/_draft.md", "---\nname: draft\ndescription: Draft.\n---\nbody\n")
            .file("home/.gemini/agents/nodesc.md", "---\nname: nodesc\n---\nbody\n")
            .file("home/.gemini/agents/bad.md", "---\nname: Bad Name\ndescription: Bad.\n---\nbody\n")
            .file("home/.gemini/agents/sub/deep.md", "---\nname: deep\ndescription: Deep.\n---\nbody\n")
            .file("home/.gemini/agents/notes.txt", "x\n")
            .file("ws/.gemini/agents/proj.md", "---\nname: proj\ndescription: Project agent.\n---\nbody\n")
            .check(gemini_check()),
        Case::new(Client::Codex, "family_codex_user_agents_sorted")
            .file("home/.codex/agents/zed.toml", "name = \"zed\"\ndescription = \"Zed agent.\"\ndeveloper_instructions = \"z\"\n")
            .file("home/.codex/agents/alpha.toml", "name = \"alpha\"\ndescription = \"Alpha agent.\"\ndeveloper_instructions = \"a\"\n")
            .file("home/.codex/agents/nodesc.toml", "name = \"nodesc\"\ndeveloper_instructions = \"a\"\n")
            .file("home/.codex/agents/sub/deep.toml", "name = \"deep\"\ndescription = \"Deep.\"\ndeveloper_instructions = \"a\"\n")
            .file("ws/.codex/agents/proj.toml", "name = \"proj\"\ndescription = \"Project.\"\ndeveloper_instructions = \"p\"\n")
            .check(codex_check()),
    ]
}
