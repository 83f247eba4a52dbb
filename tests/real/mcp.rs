//! MCP servers of Codex CLI 0.171.0 (`config.toml`) and Gemini CLI 0.61.0 (`settings.json`),
//! and Gemini custom commands (docs/spec/instructions.md §10.7, §10.8), against
//! `context explain --json`'s `startup` object and `check`'s diagnostics.
//!
//! Every server is a probe: `/bin/sh probe.sh NAME` speaks just enough MCP over stdio to offer
//! one tool, `probe_NAME`, so the tools of the client's first request say which servers it
//! started. Nothing leaves the namespace.

use std::sync::Arc;

use serde_json::Value;

use crate::harness::{Case, Check, Client, Ctx, Script, expect, extract};

/// One tool turn before the answer: Gemini's MCP servers connect meanwhile.
fn gemini_turn() -> Script {
    Script::tool_then_text("list_directory", serde_json::json!({"dir_path": "."}), "OK")
}

/// A stdio MCP server in POSIX sh: answers `initialize` (echoing the client's protocol
/// version), `tools/list` (one tool, `probe_<arg>`) and every other request with `{}`.
const PROBE: &str = r#"name="$1"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  ver=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion":"\([^"]*\)".*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"probe","version":"1"}}}\n' "$id" "$ver" ;;
    *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"probe_%s","description":"Probe tool.","inputSchema":{"type":"object","properties":{}}}]}}\n' "$id" "$name" ;;
    *) if [ -n "$id" ]; then printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"; fi ;;
  esac
done
"#;

/// A Codex server table (dotted keys: the harness appends top-level keys after the case's).
fn codex_probe(server: &str, tag: &str) -> String {
    format!(
        "mcp_servers.{server} = {{ command = \"/bin/sh\", args = [\"{{home}}/probe.sh\", \"{tag}\"] }}\n"
    )
}

/// A Gemini server object, `trust: true`: in `-p` mode Gemini CLI offers the model only tools
/// that need no confirmation, and an untrusted server's tools need one.
fn gemini_probe(tag: &str) -> Value {
    serde_json::json!({"command": "/bin/sh", "args": ["{home}/probe.sh", tag], "trust": true})
}

/// Every tool name of the last main request (Codex nests MCP tools in namespaces; Gemini CLI
/// does not wait for its MCP servers before the first request in `-p` mode, the bundle's
/// `waitForMcpInit` being called only in ACP mode, so its cases script one tool turn first).
fn tool_names(ctx: &Ctx<'_>) -> Result<Vec<String>, String> {
    let reqs = extract::main_requests(&ctx.outcome.requests);
    let first = reqs.last().ok_or_else(|| {
        format!(
            "the client sent no main request; stderr:\n{}",
            ctx.outcome.stderr
        )
    })?;
    let mut out = Vec::new();
    let mut stack: Vec<&Value> = vec![first];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if let Some(Value::String(n)) = o.get("name") {
                    out.push(n.clone());
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    Ok(out)
}

/// The servers explain says the client starts, by the probe tag `<name>_<scope>`, and those it
/// does not (shadowed, disabled, untrusted).
fn explained(ex: &Value) -> (Vec<String>, Vec<String>) {
    let mut on = Vec::new();
    let mut off = Vec::new();
    for f in ex["startup"]["families"].as_array().into_iter().flatten() {
        if f["family"] != "mcp" {
            continue;
        }
        for e in f["entries"].as_array().into_iter().flatten() {
            let tag = format!(
                "probe_{}_{}",
                e["name"].as_str().unwrap_or_default(),
                e["scope"].as_str().unwrap_or_default()
            );
            if e["loaded"] == true {
                on.push(tag);
            } else {
                off.push(tag);
            }
        }
    }
    (on, off)
}

/// The client started exactly the servers explain loads: each loaded entry's probe tool is in
/// the request, no other probe is (`also_off`: tags of servers explain lists under
/// `notLoaded`, which must be absent too).
fn started(also_off: &'static [&'static str]) -> Check {
    Arc::new(move |ctx| {
        let names = tool_names(ctx)?;
        let probes: Vec<&String> = names.iter().filter(|n| n.contains("probe_")).collect();
        let ex = expect::explain(ctx, ".")?;
        let (on, off) = explained(&ex);
        for t in &on {
            if !probes.iter().any(|n| n.ends_with(t.as_str())) {
                return Err(format!(
                    "explain loads `{t}`, the client offers {probes:?}\n{}",
                    ex["startup"]
                ));
            }
        }
        for t in off
            .iter()
            .map(String::as_str)
            .chain(also_off.iter().copied())
        {
            if probes.iter().any(|n| n.ends_with(t)) {
                return Err(format!(
                    "the client started `{t}`, explain does not: {probes:?}"
                ));
            }
        }
        if probes.len() != on.len() {
            return Err(format!(
                "the client offers {probes:?}, explain loads {on:?}"
            ));
        }
        Ok(())
    })
}

/// The codes `check --json` reports on the workspace, with their files.
fn check_codes(ctx: &Ctx<'_>) -> Result<Vec<(String, String, String)>, String> {
    let j = expect::alisio(ctx, &["check", "--json", "."])?;
    Ok(j["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            (
                d["file"].as_str().unwrap_or_default().to_string(),
                d["code"].as_str().unwrap_or_default().to_string(),
                d["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect())
}

/// The client stops before any request, saying `said`, and `check` reports `code` on `file`.
fn stops(file: &'static str, code: &'static str, said: &'static str) -> Check {
    Arc::new(move |ctx| {
        if !extract::main_requests(&ctx.outcome.requests).is_empty() {
            return Err("the client sent a request".into());
        }
        if !ctx.outcome.stderr.contains(said) && !ctx.outcome.stdout.contains(said) {
            return Err(format!(
                "the client did not say `{said}`:\n{}{}",
                ctx.outcome.stdout, ctx.outcome.stderr
            ));
        }
        let got = check_codes(ctx)?;
        if !got.iter().any(|(f, c, _)| f == file && c == code) {
            return Err(format!("check does not report {code} on {file}: {got:?}"));
        }
        Ok(())
    })
}

/// Every unknown key `check` reports is one the client names in its warning, and the other
/// way round (`keys`: the client's words for each).
fn warned(keys: &'static [&'static str]) -> Check {
    Arc::new(move |ctx| {
        let out = format!("{}{}", ctx.outcome.stdout, ctx.outcome.stderr);
        for k in keys {
            if !out.contains(k) {
                return Err(format!("the client does not say `{k}`:\n{out}"));
            }
        }
        let n = check_codes(ctx)?
            .iter()
            .filter(|(_, c, _)| c == "mcp-server-key-unknown")
            .count();
        if n != keys.len() {
            return Err(format!(
                "check reports {n} unknown keys, the client {}",
                keys.len()
            ));
        }
        started(&[])(ctx)
    })
}

/// Gemini: explain lists the command `name` (unless empty), and the first request's user text
/// is `want` (the command's prompt, or the prompt as typed).
fn prompt_sent(name: &'static str, want: &'static str) -> Check {
    Arc::new(move |ctx| {
        let reqs = extract::main_requests(&ctx.outcome.requests);
        let first = reqs.first().ok_or("the client sent no main request")?;
        let text = first["contents"].to_string();
        if !text.contains(want) {
            return Err(format!("the request has no `{want}`: {text}"));
        }
        if name.is_empty() {
            return Ok(());
        }
        let ex = expect::explain(ctx, ".")?;
        let names: Vec<&str> = ex["startup"]["families"][1]["entries"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["name"].as_str())
            .collect();
        if !names.contains(&name) {
            return Err(format!(
                "explain lists the commands {names:?}, not `{name}`"
            ));
        }
        Ok(())
    })
}

/// Every MCP and Gemini command case.
pub fn cases() -> Vec<Case> {
    let u = |s: &str| codex_probe(s, &format!("{s}_user"));
    vec![
        Case::new(Client::Codex, "mcp_codex_user_and_trusted_project_servers")
            .file("home/probe.sh", PROBE)
            .codex_config(&format!(
                "{}{}{}mcp_servers.off = {{ command = \"/bin/sh\", args = [\"{{home}}/probe.sh\", \"off_user\"], enabled = false }}\nprojects.\"{{ws}}\".trust_level = \"trusted\"\n",
                u("u"),
                u("same"),
                u("w"),
            ))
            .file(
                "ws/.codex/config.toml",
                &format!("{}{}", codex_probe("p", "p_project"), codex_probe("same", "same_project")),
            )
            .check(started(&["probe_off_user"])),
        Case::new(Client::Codex, "mcp_codex_untrusted_project_file_is_not_read")
            .file("home/probe.sh", PROBE)
            .codex_config(&u("u"))
            .file("ws/.codex/config.toml", &codex_probe("p", "p_project"))
            .check(started(&["probe_p_project"])),
        Case::new(Client::Codex, "mcp_codex_invalid_server_stops_the_client")
            .codex_config("projects.\"{ws}\".trust_level = \"trusted\"\n")
            .file("ws/.codex/config.toml", "[mcp_servers.nocmd]\nargs = [\"x\"]\n")
            .no_request()
            .check(stops(".codex/config.toml", "mcp-server-invalid", "invalid transport")),
        Case::new(Client::Codex, "mcp_codex_unknown_key_is_ignored_with_a_warning")
            .file("home/probe.sh", PROBE)
            .codex_config("projects.\"{ws}\".trust_level = \"trusted\"\n")
            .file(
                "ws/.codex/config.toml",
                "[mcp_servers.k]\ncommand = \"/bin/sh\"\nargs = [\"{home}/probe.sh\", \"k_project\"]\ntimeout = 5\n",
            )
            .check(warned(&["`mcp_servers.k.timeout` is ignored"])),
        Case::new(Client::Gemini, "mcp_gemini_project_servers_over_the_users")
            .file("home/probe.sh", PROBE)
            .gemini_settings(serde_json::json!({"mcpServers": {
                "u": gemini_probe("u_user"),
                "same": gemini_probe("same_user"),
            }}))
            .file(
                "ws/.gemini/settings.json",
                &serde_json::json!({"mcpServers": {
                    "p": gemini_probe("p_project"),
                    "same": gemini_probe("same_project"),
                }})
                .to_string(),
            )
            .script(gemini_turn())
            .check(started(&[])),
        Case::new(Client::Gemini, "mcp_gemini_unknown_key_is_reported_and_the_server_still_started")
            .file("home/probe.sh", PROBE)
            .file(
                "ws/.gemini/settings.json",
                "{\"mcpServers\": {\"k\": {\"command\": \"/bin/sh\", \"args\": [\"{home}/probe.sh\", \"k_project\"], \"trust\": true, \"foo\": 1}}}",
            )
            .script(gemini_turn())
            .check(warned(&["Unrecognized key(s) in object: 'foo'"])),
        Case::new(Client::Gemini, "mcp_gemini_invalid_settings_stop_the_client")
            .file("ws/.gemini/settings.json", "{\"mcpServers\": {\"a\": {\"command\": \"/x\"},},}")
            .no_request()
            .check(stops(
                ".gemini/settings.json",
                "mcp-config-invalid",
                "Please fix the configuration file(s) and try again",
            )),
        Case::new(Client::Gemini, "command_gemini_user_command_runs_headless")
            .file("home/.gemini/commands/git/review.toml", "description = \"Review\"\nprompt = \"USER-PROBE {{args}}\"\n")
            .prompt("/git:review now")
            .check(prompt_sent("git:review", "USER-PROBE now")),
        Case::new(Client::Gemini, "command_gemini_nested_project_command")
            .file("ws/.gemini/commands/git/rv.toml", "prompt = \"NEST-PROBE {{args}}\"\n")
            .prompt("/git:rv now")
            .check(prompt_sent("git:rv", "NEST-PROBE now")),
        Case::new(Client::Gemini, "command_gemini_same_name_renames_both")
            .file("home/.gemini/commands/x.toml", "prompt = \"XUSER-PROBE {{args}}\"\n")
            .file("ws/.gemini/commands/x.toml", "prompt = \"XPROJ-PROBE {{args}}\"\n")
            .prompt("/workspace.x now")
            .check(prompt_sent("workspace.x", "XPROJ-PROBE now")),
        Case::new(Client::Gemini, "command_gemini_same_name_is_not_the_bare_name")
            .file("home/.gemini/commands/x.toml", "prompt = \"XUSER-PROBE {{args}}\"\n")
            .file("ws/.gemini/commands/x.toml", "prompt = \"XPROJ-PROBE {{args}}\"\n")
            .prompt("/x now")
            .check(prompt_sent("user.x", "\"/x now\"")),
        Case::new(Client::Gemini, "command_gemini_file_without_prompt_is_skipped")
            .file("ws/.gemini/commands/nop.toml", "description = \"No prompt\"\n")
            .prompt("/nop hello")
            .check(Arc::new(|ctx| {
                let got = check_codes(ctx)?;
                if !got.iter().any(|(f, c, _)| f == ".gemini/commands/nop.toml" && c == "command-toml-invalid") {
                    return Err(format!("check: {got:?}"));
                }
                prompt_sent("", "\"/nop hello\"")(ctx)
            })),
    ]
}
