//! Codex CLI and Gemini CLI MCP servers and Gemini command files (spec/instructions.md §10.7,
//! §10.8): what each host starts or loads, and the located problems, with exact values.

use std::path::PathBuf;

use alisio_base::diagnostic::{Code, Diagnostic};
use alisio_base::workspace::{DiskFs, Env};

use super::*;

struct Tree {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    ws: PathBuf,
    env: Env,
}

fn tree(files: &[(&str, &str)]) -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    for (p, t) in files {
        let p = base.join(p.replace("{BASE}", &base.display().to_string()));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, t.replace("{BASE}", &base.display().to_string())).unwrap();
    }
    std::fs::create_dir_all(base.join("ws/.git")).unwrap();
    let env = Env {
        home: Some(base.join("home")),
        ..Env::default()
    };
    Tree {
        ws: base.join("ws"),
        base,
        _tmp: tmp,
        env,
    }
}

/// `(file relative to the tree, start line, start col, end line, end col, code, message)`.
fn located(t: &Tree, d: &Diagnostic) -> (String, u32, u32, u32, u32, Code, String) {
    (
        d.file.strip_prefix(&t.base).unwrap().display().to_string(),
        d.span.start.line,
        d.span.start.utf16,
        d.span.end.line,
        d.span.end.utf16,
        d.code,
        d.message.clone(),
    )
}

/// `(name, file relative to the tree, detail, loaded)` of the MCP entries.
fn servers(t: &Tree, s: &Startup) -> Vec<(String, String, String, bool)> {
    s.of(Family::Mcp)
        .map(|e| {
            (
                e.name.clone(),
                e.file.strip_prefix(&t.base).unwrap().display().to_string(),
                e.detail.clone(),
                e.loaded(),
            )
        })
        .collect()
}

fn reasons(t: &Tree, s: &Startup, f: Family) -> Vec<(String, String)> {
    s.not_loaded
        .iter()
        .filter(|n| n.family == f)
        .map(|n| {
            (
                n.file.strip_prefix(&t.base).unwrap().display().to_string(),
                n.reason.clone(),
            )
        })
        .collect()
}

const STOPS: &str =
    "Codex CLI does not start with this configuration (\"Error loading config.toml\")";

#[test]
fn codex_starts_the_trusted_project_servers_over_the_users() {
    // As measured with `codex mcp list --json` on 0.171.0 (a real git repository, trust on
    // the repository root): the nearest file's server of a name wins; `enabled = false` is off.
    let t = tree(&[
        (
            "home/.codex/config.toml",
            "[mcp_servers.u]\ncommand = \"/user\"\n[mcp_servers.same]\ncommand = \"/same-user\"\n[mcp_servers.off]\ncommand = \"/off\"\nenabled = false\n\n[projects.\"{BASE}/ws\"]\ntrust_level = \"trusted\"\n",
        ),
        (
            "ws/.codex/config.toml",
            "[mcp_servers.p]\ncommand = \"/proj\"\n[mcp_servers.same]\nurl = \"http://127.0.0.1:9/mcp\"\n",
        ),
        (
            "ws/sub/.codex/config.toml",
            "[mcp_servers.same]\ncommand = \"/sub\"\n",
        ),
    ]);
    let s = codex::startup(&DiskFs, &t.env, &t.ws, &t.ws.join("sub"));
    assert_eq!(
        servers(&t, &s),
        [
            (
                "same".into(),
                "ws/sub/.codex/config.toml".into(),
                "stdio".into(),
                true
            ),
            (
                "p".into(),
                "ws/.codex/config.toml".into(),
                "stdio".into(),
                true
            ),
            (
                "same".into(),
                "ws/.codex/config.toml".into(),
                "streamable_http".into(),
                false
            ),
            (
                "u".into(),
                "home/.codex/config.toml".into(),
                "stdio".into(),
                true
            ),
            (
                "same".into(),
                "home/.codex/config.toml".into(),
                "stdio".into(),
                false
            ),
        ]
    );
    assert_eq!(
        reasons(&t, &s, Family::Mcp),
        [(
            "home/.codex/config.toml".to_string(),
            "server `off`: `enabled = false`".to_string()
        )]
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn codex_reads_a_project_file_only_below_a_trusted_directory() {
    // Measured: trust on `ws/sub` reads `ws/sub/.codex` but not `ws/.codex`.
    let t = tree(&[
        (
            "home/.codex/config.toml",
            "[projects.\"{BASE}/ws/sub\"]\ntrust_level = \"trusted\"\n",
        ),
        (
            "ws/.codex/config.toml",
            "[mcp_servers.p]\ncommand = \"/proj\"\n",
        ),
        (
            "ws/sub/.codex/config.toml",
            "[mcp_servers.s]\ncommand = \"/sub\"\n",
        ),
    ]);
    let s = codex::startup(&DiskFs, &t.env, &t.ws, &t.ws.join("sub"));
    assert_eq!(
        servers(&t, &s),
        [(
            "s".into(),
            "ws/sub/.codex/config.toml".into(),
            "stdio".into(),
            true
        )]
    );
    assert_eq!(
        reasons(&t, &s, Family::Mcp),
        [(
            "ws/.codex/config.toml".to_string(),
            codex_mcp::UNTRUSTED_REASON.to_string()
        )]
    );
}

#[test]
fn codex_server_problems_are_located_as_the_client_names_them() {
    // The client's words, measured on 0.171.0: "invalid transport", "url is not supported for
    // stdio", "invalid type: integer `5`, expected a string in `mcp_servers.a.command`", and
    // the warning "`mcp_servers.web.model` is ignored".
    let t = tree(&[(
        "ws/.codex/config.toml",
        "[mcp_servers.nocmd]\nargs = [\"x\"]\n\n[mcp_servers.both]\ncommand = \"/x\"\nurl = \"http://127.0.0.1:9\"\n\n[mcp_servers.num]\ncommand = 5\n\n[mcp_servers.web]\nurl = \"http://127.0.0.1:9\"\nmodel = \"gpt\"\nenv = { A = \"1\" }\n\n[mcp_servers]\nflat = 5\n",
    )]);
    let s = codex::startup(&DiskFs, &t.env, &t.ws, &t.ws);
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    let f = "ws/.codex/config.toml".to_string();
    assert_eq!(
        d,
        [
            (f.clone(), 0, 13, 0, 18, Code::McpServerInvalid, format!("MCP server `nocmd`: no `command` (stdio) or `url` (streamable HTTP): \"invalid transport\"; {STOPS}")),
            (f.clone(), 5, 0, 5, 3, Code::McpServerInvalid, format!("MCP server `both`: `url` is not supported for stdio; {STOPS}")),
            (f.clone(), 8, 10, 8, 11, Code::McpServerInvalid, format!("MCP server `num`: `command` must be a string, not an integer; {STOPS}")),
            (f.clone(), 12, 0, 12, 5, Code::McpServerKeyUnknown, "unknown key `model` in MCP server `web`: Codex CLI ignores it (\"`mcp_servers.web.model` is ignored\")".into()),
            (f.clone(), 13, 0, 13, 3, Code::McpServerInvalid, format!("MCP server `web`: `env` is not supported for streamable_http; {STOPS}")),
            (f, 16, 7, 16, 8, Code::McpServerInvalid, format!("MCP server `flat`: must be a table, not an integer; {STOPS}")),
        ]
    );
    assert!(servers(&t, &s).is_empty());
}

#[test]
fn a_codex_file_that_is_not_toml_or_has_no_server_table_stops_the_client() {
    let t = tree(&[
        ("home/.codex/config.toml", "mcp_servers = 5\n"),
        (
            "ws/.codex/config.toml",
            "[mcp_servers.a\ncommand = \"/x\"\n",
        ),
    ]);
    let s = codex::startup(&DiskFs, &t.env, &t.ws, &t.ws);
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    assert_eq!(
        d,
        [
            (
                "ws/.codex/config.toml".into(),
                0,
                14,
                1,
                0,
                Code::McpConfigInvalid,
                format!("invalid TOML: invalid table header\nexpected `.`, `]`; {STOPS}")
            ),
            (
                "home/.codex/config.toml".into(),
                0,
                14,
                0,
                15,
                Code::McpConfigInvalid,
                format!("`mcp_servers` must be a table, not an integer; {STOPS}")
            ),
        ]
    );
}

const WARNS: &str =
    "Gemini CLI reports \"Invalid configuration\" at every start and still tries this server";

#[test]
fn gemini_starts_the_project_servers_over_the_users_in_a_trusted_folder() {
    // Measured with `gemini mcp list` on 0.61.0: the project's `same` replaces the user's, the
    // settings of an ancestor are not read, comments are allowed.
    let t = tree(&[
        (
            "home/.gemini/settings.json",
            "{\n  // mine\n  \"mcpServers\": {\"u\": {\"command\": \"/u\"}, \"same\": {\"command\": \"/same-user\"}}\n}\n",
        ),
        (
            "home/.gemini/trustedFolders.json",
            "{\"{BASE}/ws\": \"TRUST_FOLDER\"}",
        ),
        (
            "ws/pkg/.gemini/settings.json",
            "{\"mcpServers\": {\"same\": {\"url\": \"http://127.0.0.1:9/sse\", \"type\": \"sse\", \"description\": \"Docs\"}, \"h\": {\"httpUrl\": \"http://127.0.0.1:9\"}}}",
        ),
        (
            "ws/.gemini/settings.json",
            "{\"mcpServers\": {\"top\": {\"command\": \"/top\"}}}",
        ),
    ]);
    let s = gemini::startup(&DiskFs, &t.env, &t.ws.join("pkg"));
    assert_eq!(
        servers(&t, &s),
        [
            (
                "same".into(),
                "ws/pkg/.gemini/settings.json".into(),
                "sse".into(),
                true
            ),
            (
                "h".into(),
                "ws/pkg/.gemini/settings.json".into(),
                "http".into(),
                true
            ),
            (
                "u".into(),
                "home/.gemini/settings.json".into(),
                "stdio".into(),
                true
            ),
            (
                "same".into(),
                "home/.gemini/settings.json".into(),
                "stdio".into(),
                false
            ),
        ]
    );
    assert_eq!(s.of(Family::Mcp).next().unwrap().description, "Docs");
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
}

#[test]
fn gemini_trust_follows_the_longest_rule_and_the_environment() {
    let files = [
        (
            "home/.gemini/settings.json",
            "{\"mcpServers\": {\"u\": {\"command\": \"/u\"}}}",
        ),
        (
            "home/.gemini/trustedFolders.json",
            "{\"{BASE}\": \"TRUST_FOLDER\", \"{BASE}/ws\": \"DO_NOT_TRUST\", \"{BASE}/ws/ok/x\": \"TRUST_PARENT\"}",
        ),
    ];
    let mut t = tree(&files);
    std::fs::create_dir_all(t.ws.join("ok")).unwrap();
    let s = gemini::startup(&DiskFs, &t.env, &t.ws);
    assert!(servers(&t, &s).is_empty());
    assert_eq!(
        reasons(&t, &s, Family::Mcp),
        [(
            "home/.gemini/settings.json".to_string(),
            format!("server `u`: {}", gemini_mcp::UNTRUSTED_REASON)
        )]
    );
    let ok = gemini::startup(&DiskFs, &t.env, &t.ws.join("ok"));
    assert_eq!(servers(&t, &ok).len(), 1);
    t.env.gemini_trust_workspace = Some(true);
    assert_eq!(
        servers(&t, &gemini::startup(&DiskFs, &t.env, &t.ws)).len(),
        1
    );
    t.env.gemini_trust_workspace = Some(false);
    assert!(servers(&t, &gemini::startup(&DiskFs, &t.env, &t.ws.join("ok"))).is_empty());
}

#[test]
fn gemini_server_problems_are_located_as_the_client_reports_them() {
    // The client's words, measured on 0.61.0: "Unrecognized key(s) in object: 'foo'",
    // "Expected string, received number", "Invalid enum value"; a server without a transport
    // is listed with nothing to connect to.
    let t = tree(&[(
        "ws/.gemini/settings.json",
        "{\"mcpServers\": {\n\"a\": {\"command\": \"/x\", \"foo\": 1},\n\"b\": {\"command\": 5},\n\"c\": {\"url\": \"http://127.0.0.1:9\", \"type\": \"ws\"},\n\"d\": {\"args\": [\"x\"]},\n\"e\": [1]\n}}",
    )]);
    let mut t = t;
    t.env.gemini_trust_workspace = Some(true);
    let s = gemini::startup(&DiskFs, &t.env, &t.ws);
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    let f = "ws/.gemini/settings.json".to_string();
    assert_eq!(
        d,
        [
            (f.clone(), 1, 23, 1, 28, Code::McpServerKeyUnknown, "unknown key `foo` in MCP server `a`: Gemini CLI reports \"Unrecognized key(s) in object\" at every start and ignores it".into()),
            (f.clone(), 2, 17, 2, 18, Code::McpServerInvalid, format!("MCP server `b`: `command` must be a string, not a number; {WARNS}")),
            (f.clone(), 3, 43, 3, 47, Code::McpServerInvalid, format!("MCP server `c`: `type` must be one of `stdio`, `sse`, `http`; {WARNS}")),
            (f.clone(), 4, 0, 4, 3, Code::McpServerInvalid, "MCP server `d`: no `command`, `url`, `httpUrl` or `tcp`; Gemini CLI has nothing to connect to".into()),
            (f, 5, 5, 5, 8, Code::McpServerInvalid, "MCP server `e`: must be an object, not an array; Gemini CLI cannot connect to it".into()),
        ]
    );
    let names: Vec<String> = servers(&t, &s).into_iter().map(|x| x.0).collect();
    assert_eq!(names, ["a", "b", "c"]);
}

#[test]
fn a_gemini_settings_file_that_is_not_json_stops_the_client() {
    let mut t = tree(&[
        (
            "ws/.gemini/settings.json",
            "{\"mcpServers\": {\"u\": {\"command\": \"/u\"},},}",
        ),
        ("home/.gemini/settings.json", "{\"mcpServers\": 5}"),
    ]);
    t.env.gemini_trust_workspace = Some(true);
    let s = gemini::startup(&DiskFs, &t.env, &t.ws);
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    assert_eq!(
        d,
        [
            ("ws/.gemini/settings.json".into(), 0, 38, 0, 39, Code::McpConfigInvalid, "invalid JSON: Trailing commas are not allowed at line 1 column 39: Gemini CLI does not start (\"Please fix the configuration file(s) and try again\")".into()),
            ("home/.gemini/settings.json".into(), 0, 15, 0, 16, Code::McpConfigInvalid, "`mcpServers` must be an object, not a number: Gemini CLI reports \"Invalid configuration\" and starts none of this file's servers".into()),
        ]
    );
}

#[test]
fn gemini_commands_are_named_by_path_and_cost_nothing_at_startup() {
    // Measured on 0.61.0 (tests/real `mcp`): a user and a project `git/review.toml` become
    // `/user.git:review` and `/workspace.git:review`.
    let mut t = tree(&[
        (
            "home/.gemini/commands/git/review.toml",
            "description = \"User review\"\nprompt = \"Review {{args}}\"\n",
        ),
        ("home/.gemini/commands/plain.toml", "prompt = \"Plain.\"\n"),
        (
            "ws/.gemini/commands/git/review.toml",
            "description = \"Project   review\\nof the diff\"\nprompt = \"Review the diff\"\n",
        ),
        ("ws/.gemini/commands/my cmd.toml", "prompt = \"x\"\n"),
        ("ws/.gemini/commands/notes.md", "not a command\n"),
    ]);
    t.env.gemini_trust_workspace = Some(true);
    let s = gemini::startup(&DiskFs, &t.env, &t.ws);
    let got: Vec<(String, String, bool, Option<String>)> = s
        .of(Family::Command)
        .map(|e| {
            (
                e.name.clone(),
                e.description.clone(),
                e.shadowed_by.is_some(),
                e.hidden.clone(),
            )
        })
        .collect();
    let h = Some(gemini_commands::HIDDEN.to_string());
    assert_eq!(
        got,
        [
            (
                "plain".into(),
                "Custom command from plain.toml".into(),
                false,
                h.clone()
            ),
            (
                "user.git:review".into(),
                "User review".into(),
                false,
                h.clone()
            ),
            (
                "my_cmd".into(),
                "Custom command from my cmd.toml".into(),
                false,
                h.clone()
            ),
            (
                "workspace.git:review".into(),
                "Project review of the diff".into(),
                false,
                h
            ),
        ]
    );
    assert_eq!(
        s.of(Family::Command).map(FamilyEntry::bytes).sum::<u64>(),
        0
    );
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    let obj = StartupObject::new(Host::Gemini, &s, &|p| p.display().to_string());
    assert_eq!(obj.families[1].channel, "slash commands");
    assert_eq!(
        obj.families[1].entries[1].hidden,
        Some(gemini_commands::HIDDEN.to_string())
    );
    assert!(!obj.families[1].entries[1].loaded);
}

#[test]
fn gemini_command_files_it_skips_are_located() {
    // The loader's words (0.61.0 bundle): "The 'prompt' field is required.", "The 'prompt'
    // field must be a string.", "Failed to parse TOML file".
    let mut t = tree(&[
        (
            "ws/.gemini/commands/a.toml",
            "description = \"No prompt\"\n",
        ),
        ("ws/.gemini/commands/b.toml", "prompt = 5\n"),
        (
            "ws/.gemini/commands/c.toml",
            "prompt = \"x\"\ndescription = [\"d\"]\n",
        ),
        ("ws/.gemini/commands/d.toml", "prompt = \"unclosed\n"),
    ]);
    t.env.gemini_trust_workspace = Some(true);
    let s = gemini::startup(&DiskFs, &t.env, &t.ws);
    let d: Vec<_> = s.diagnostics.iter().map(|d| located(&t, d)).collect();
    let c = Code::CommandTomlInvalid;
    assert_eq!(
        d,
        [
            ("ws/.gemini/commands/a.toml".into(), 0, 0, 0, 25, c, "no `prompt`: Gemini CLI skips this command (\"The 'prompt' field is required.\")".into()),
            ("ws/.gemini/commands/b.toml".into(), 0, 9, 0, 10, c, "`prompt` must be a string, not an integer: Gemini CLI skips this command (\"The 'prompt' field must be a string.\")".into()),
            ("ws/.gemini/commands/c.toml".into(), 1, 14, 1, 19, c, "`description` must be a string, not an array: Gemini CLI skips this command (\"Skipping invalid command file\")".into()),
            ("ws/.gemini/commands/d.toml".into(), 0, 18, 1, 0, c, "invalid TOML: invalid basic string: Gemini CLI skips this command (\"Failed to parse TOML file\")".into()),
        ]
    );
    assert!(s.of(Family::Command).next().is_none());
    t.env.gemini_trust_workspace = Some(false);
    let s = gemini::startup(&DiskFs, &t.env, &t.ws);
    assert_eq!(s.diagnostics.len(), 4, "judged even when not loaded");
}
