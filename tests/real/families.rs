//! Probe (temporary): dumps what the clients send for subagents, commands and MCP servers.

use std::sync::Arc;

use crate::harness::{Case, Client};

fn dump(name: &'static str) -> crate::harness::Check {
    Arc::new(move |ctx| {
        let bodies: Vec<serde_json::Value> = ctx
            .outcome
            .requests
            .iter()
            .map(|r| {
                serde_json::json!({"path": r.path, "body": serde_json::from_str::<serde_json::Value>(&r.body).unwrap_or(serde_json::Value::String(r.body.clone()))})
            })
            .collect();
        let out = serde_json::json!({"requests": bodies, "stdout": ctx.outcome.stdout, "stderr": ctx.outcome.stderr});
        std::fs::write(
            format!("/tmp/probe-families/{name}.json"),
            serde_json::to_string_pretty(&out).unwrap(),
        )
        .unwrap();
        Ok(())
    })
}

pub fn cases() -> Vec<Case> {
    if std::env::var_os("ALISIO_PROBE").is_none() {
        return Vec::new();
    }
    vec![
        Case::new(Client::ClaudeCode, "probe_claude")
            .file("ws/.claude/agents/reviewer.md", "---\nname: code-reviewer\ndescription: Reviews code for quality. Use after edits.\ntools: Read, Grep\nmodel: sonnet\n---\nYou are a code reviewer.\n")
            .file("ws/.claude/agents/nodesc.md", "---\nname: nodesc\n---\nNo description here.\n")
            .file("ws/.claude/agents/nofm.md", "Just a body, no frontmatter.\n")
            .file("home/.claude/agents/reviewer.md", "---\nname: code-reviewer\ndescription: USER copy of the reviewer.\n---\nuser body\n")
            .file("home/.claude/agents/helper.md", "---\nname: helper\ndescription: User-level helper agent.\n---\nhelper body\n")
            .file("ws/.claude/commands/deploy.md", "---\ndescription: Deploy the app to staging\nargument-hint: [env]\n---\nDeploy $ARGUMENTS now.\n")
            .file("ws/.claude/commands/plain.md", "Run the plain checks on the repo.\nSecond line.\n")
            .file("ws/.claude/commands/sub/nested.md", "---\ndescription: A nested command\n---\nnested\n")
            .file("home/.claude/commands/mine.md", "---\ndescription: My user command\n---\nmine\n")
            .file("ws/.mcp.json", "{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/ghost-mcp\", \"args\": []}, \"remote\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\"}}}\n")
            .claude_settings(serde_json::json!({"enableAllProjectMcpServers": true}))
            .check(dump("probe_claude")),

        Case::new(Client::ClaudeCode, "probe_claude2")
            .file("ws/.claude/skills/zeta/SKILL.md", "---\nname: zeta\ndescription: Zeta project skill.\n---\nz\n")
            .file("home/.claude/skills/alpha/SKILL.md", "---\nname: alpha\ndescription: Alpha user skill.\n---\na\n")
            .file("ws/.claude/commands/beta.md", "---\ndescription: Beta project command\n---\nb\n")
            .file("home/.claude/commands/gamma.md", "---\ndescription: Gamma user command\n---\ng\n")
            .file("ws/.claude/commands/zeta.md", "---\ndescription: Zeta command clashes with skill\n---\nzc\n")
            .file("ws/.claude/commands/hidden.md", "---\ndescription: Hidden command\ndisable-model-invocation: true\n---\nh\n")
            .file("ws/.claude/commands/empty.md", "")
            .file("ws/.claude/commands/fmonly.md", "---\nargument-hint: x\n---\n\n# Heading line\nbody\n")
            .file("ws/.claude/commands/notes.txt", "not a command\n")
            .file("ws/.claude/agents/sub/deep.md", "---\nname: deep\ndescription: Deep agent in a subdirectory.\ndisallowedTools: Bash\n---\nd\n")
            .file("ws/.claude/agents/badyaml.md", "---\nname: badyaml\ndescription: Bad: yaml: here\n---\nb\n")
            .file("ws/.claude/agents/listtools.md", "---\nname: listtools\ndescription: \"Multi\\nline desc\"\ntools: [Read, Bash]\n---\nb\n")
            .file("ws/.claude/agents/filename.md", "---\ndescription: No name field.\n---\nb\n")
            .file("ws/.mcp.json", "{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/ghost-mcp\"}}}\n")
            .check(dump("probe_claude2")),

        Case::new(Client::ClaudeCode, "probe_claude3")
            .file("ws/.claude/agents/top.md", "---\nname: top\ndescription: Top agent.\ntools: Read, Bash\ndisallowedTools: Bash\n---\nt\n")
            .file("ws/pkg/.claude/agents/inner.md", "---\nname: inner\ndescription: Inner agent of pkg.\n---\ni\n")
            .file("ws/.claude/agents/long.md", "---\nname: long\ndescription: LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL\n---\nl\n")
            .file("ws/.claude/agents/dup1.md", "---\nname: dup\ndescription: Dup one.\n---\nd\n")
            .file("ws/.claude/agents/dup2.md", "---\nname: dup\ndescription: Dup two.\n---\nd\n")
            .file("ws/.claude/commands/same.md", "---\ndescription: Same project command\n---\ns\n")
            .file("home/.claude/commands/same.md", "---\ndescription: Same user command\n---\ns\n")
            .file("ws/pkg/.claude/commands/pkgcmd.md", "---\ndescription: Pkg command\n---\np\n")
            .file("ws/.mcp.json", "{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/ghost-mcp\"}, \"nocmd\": {\"args\": [\"x\"]}, \"badtype\": {\"type\": \"carrier-pigeon\", \"url\": \"http://127.0.0.1:9\"}}}\n")
            .file("ws/pkg/.mcp.json", "{\"mcpServers\": {\"pkgghost\": {\"command\": \"/nonexistent/pkg-mcp\"}}}\n")
            .cwd("ws/pkg")
            .check(dump("probe_claude3")),
        Case::new(Client::ClaudeCode, "probe_claude4")
            .file("ws/.mcp.json", "{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/ghost-mcp\"}}\n")
            .file("home/.claude.json", "{\"mcpServers\": {\"userghost\": {\"command\": \"/nonexistent/user-mcp\"}}}\n")
            .check(dump("probe_claude4")),
        Case::new(Client::ClaudeCode, "probe_claude5")
            .file("ws/.mcp.json", "{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/ghost-mcp\"}, \"ok2\": {\"command\": \"/nonexistent/two\", \"env\": {\"A\": 1}}}}\n")
            .check(dump("probe_claude5")),
    ]
}
