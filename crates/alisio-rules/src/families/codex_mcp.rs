//! Codex CLI's MCP servers (spec/instructions.md §10.7), as 0.171.0 reads them, measured
//! offline (`codex mcp list --json` and `codex exec`, tests/real `mcp`):
//!
//! - `[mcp_servers.NAME]` tables of `$CODEX_HOME/config.toml` (else `~/.codex/config.toml`), then
//!   of `.codex/config.toml` in each directory from the project root down to the session's
//!   directory, each read only when that directory or an ancestor is trusted in the user file
//!   (`[projects."<dir>"] trust_level = "trusted"`); the nearest file's server of a name wins;
//! - the server schema is `RawMcpServerConfig` (codex-rs/config/src/mcp_types.rs; the keys of
//!   0.171.0 measured one by one: it has `environment_id`, `startup_readiness` and
//!   `http_headers_helper`, and ignores `experimental_environment`, `type` and `timeout`):
//!   `command` makes a stdio server, else `url` a streamable HTTP one, else "invalid transport";
//!   a key of the other transport (`bearer_token` of both), a value of the wrong type, a file
//!   that is not TOML or an `mcp_servers` that is not a table stop Codex before the session
//!   starts ("Error loading config.toml"; `codex mcp list`: "failed to load bootstrap
//!   configuration"); an unknown key is ignored with a warning ("Codex is ignoring 1
//!   unrecognized configuration setting"); `enabled = false` keeps the server off.

use std::path::{Path, PathBuf};

use toml_edit::{Item, TableLike};

use alisio_base::diagnostic::{Code, Severity};
use alisio_base::text::TextRange;
use alisio_base::workspace::{Env, FileType, Fs};

use super::toml_doc::{self, ValueShape};
use super::{Family, FamilyScope, NotLoadedFamilyFile, Startup};
use crate::skills::discover::project_dirs;

/// `config.toml` files are read up to this size.
pub const CONFIG_LIMIT: u64 = 1024 * 1024;

const STOPS: &str =
    "Codex CLI does not start with this configuration (\"Error loading config.toml\")";

/// Why a project file is not read.
pub const UNTRUSTED_REASON: &str = "Codex CLI 0.171.0 reads a project `.codex/config.toml` only when its directory or an ancestor is trusted (`[projects.\"<dir>\"] trust_level = \"trusted\"` in the user's config.toml)";

/// Which transport a key belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Only {
    Both,
    Stdio,
    Http,
}

/// The keys of `RawMcpServerConfig`, their shapes and transports, with their meaning (hovers
/// and completions).
pub const SERVER_KEYS: [(&str, &str); 26] = [
    (
        "command",
        "The program of a stdio server. With `url` absent it makes the server stdio.",
    ),
    ("args", "Arguments of `command` (an array of strings)."),
    (
        "env",
        "Environment variables set for `command` (a table of strings).",
    ),
    (
        "env_vars",
        "Names of environment variables passed through to `command` (strings, or tables with `name` and `source` `local` or `remote`).",
    ),
    ("cwd", "The working directory of `command`."),
    (
        "url",
        "The URL of a streamable HTTP server (without `command`).",
    ),
    (
        "bearer_token_env_var",
        "HTTP: the environment variable holding the bearer token.",
    ),
    (
        "bearer_token",
        "Not accepted: Codex rejects a literal token; use `bearer_token_env_var`.",
    ),
    (
        "http_headers",
        "HTTP: headers sent with every request (a table of strings).",
    ),
    (
        "env_http_headers",
        "HTTP: headers whose values are read from environment variables.",
    ),
    (
        "experimental_environment",
        "Where Codex starts the server (experimental).",
    ),
    (
        "startup_timeout_sec",
        "Seconds to wait for the server to start and list its tools (default 10).",
    ),
    (
        "startup_timeout_ms",
        "The startup timeout in milliseconds (`startup_timeout_sec` wins).",
    ),
    (
        "tool_timeout_sec",
        "Seconds a tool call may take (default 60).",
    ),
    ("enabled", "`false`: Codex does not start this server."),
    (
        "required",
        "`true`: `codex exec` fails when this server does not start.",
    ),
    (
        "supports_parallel_tool_calls",
        "`true`: every tool of the server may run in parallel.",
    ),
    (
        "default_tools_approval_mode",
        "`auto`, `prompt` or `approve`: the approval of the server's tools.",
    ),
    (
        "enabled_tools",
        "Only these tools of the server are offered to the model.",
    ),
    (
        "disabled_tools",
        "These tools are removed (after `enabled_tools`).",
    ),
    ("scopes", "OAuth scopes asked at `codex mcp login`."),
    ("oauth", "OAuth settings (`client_id`)."),
    ("oauth_resource", "The OAuth resource parameter (RFC 8707)."),
    ("name", "A legacy display name (accepted, unused)."),
    (
        "tools",
        "Per-tool settings (`[mcp_servers.NAME.tools.TOOL] approval_mode = …`).",
    ),
    (
        "type",
        "Not a Codex key: the transport follows from `command` or `url`.",
    ),
];

const APPROVAL: &[&str] = &["auto", "prompt", "approve"];
const READINESS: &[&str] = &["connection", "catalog"];

fn shape(key: &str) -> Option<(ValueShape, Only)> {
    Some(match key {
        "command" | "cwd" => (ValueShape::Str, Only::Stdio),
        "args" => (ValueShape::Strings, Only::Stdio),
        "env" => (ValueShape::StringTable, Only::Stdio),
        "env_vars" => (ValueShape::StringsOrTables, Only::Stdio),
        "url" => (ValueShape::Str, Only::Http),
        "bearer_token_env_var" | "bearer_token" => (ValueShape::Str, Only::Http),
        "http_headers" | "env_http_headers" => (ValueShape::StringTable, Only::Http),
        "oauth" => (ValueShape::Table, Only::Http),
        "oauth_resource" => (ValueShape::Str, Only::Http),
        "http_headers_helper" => (ValueShape::Str, Only::Http),
        "environment_id" | "name" => (ValueShape::Str, Only::Both),
        "startup_readiness" => (ValueShape::OneOf(READINESS), Only::Both),
        "startup_timeout_sec" | "tool_timeout_sec" => (ValueShape::Number, Only::Both),
        "startup_timeout_ms" => (ValueShape::Unsigned, Only::Both),
        "enabled" | "required" | "supports_parallel_tool_calls" => (ValueShape::Bool, Only::Both),
        "default_tools_approval_mode" => (ValueShape::OneOf(APPROVAL), Only::Both),
        "enabled_tools" | "disabled_tools" | "scopes" => (ValueShape::Strings, Only::Both),
        "tools" => (ValueShape::Table, Only::Both),
        _ => return None,
    })
}

/// `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`.
#[must_use]
pub fn user_config(env: &Env) -> Option<PathBuf> {
    env.codex_home().map(|h| h.join("config.toml"))
}

fn read(fs: &dyn Fs, p: &Path) -> Option<String> {
    if !fs.metadata(p).is_ok_and(|m| m.file_type == FileType::File) {
        return None;
    }
    let bytes = fs.read_prefix(p, CONFIG_LIMIT).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The directories the user's config.toml trusts (`[projects."<dir>"] trust_level = "trusted"`).
#[must_use]
pub fn trusted_dirs(fs: &dyn Fs, env: &Env) -> Vec<PathBuf> {
    let Some(text) = user_config(env).and_then(|p| read(fs, &p)) else {
        return Vec::new();
    };
    let Ok(doc) = toml_doc::parse(&text) else {
        return Vec::new();
    };
    let Some(projects) = doc.get("projects").and_then(toml_doc::table) else {
        return Vec::new();
    };
    projects
        .iter()
        .filter(|(_, v)| {
            toml_doc::table(v)
                .and_then(|t| t.get("trust_level"))
                .and_then(Item::as_str)
                == Some("trusted")
        })
        .map(|(k, _)| PathBuf::from(k))
        .collect()
}

/// A server judged: its transport, or the first problem Codex stops on.
fn judge(t: &dyn TableLike, whole: TextRange) -> Result<&'static str, (TextRange, String)> {
    for (k, v) in t.iter() {
        if let Some((s, _)) = shape(k)
            && let Some(m) = s.mismatch(v)
        {
            return Err((toml_doc::item_range(v, whole), format!("`{k}` {m}")));
        }
    }
    let (kind, other, name) = if t.contains_key("command") {
        ("stdio", Only::Http, "stdio")
    } else if t.contains_key("url") {
        ("streamable_http", Only::Stdio, "streamable_http")
    } else {
        return Err((
            whole,
            "no `command` (stdio) or `url` (streamable HTTP): \"invalid transport\"".into(),
        ));
    };
    for (k, _) in t.iter() {
        if shape(k).is_some_and(|(_, o)| o == other) {
            let r = t
                .get_key_value(k)
                .map_or(whole, |(key, _)| toml_doc::key_range(key, whole));
            return Err((r, format!("`{k}` is not supported for {name}")));
        }
    }
    if let Some((key, _)) = t.get_key_value("bearer_token") {
        let r = toml_doc::key_range(key, whole);
        return Err((r, format!("`bearer_token` is not supported for {name}")));
    }
    Ok(kind)
}

/// One config.toml: its servers into `s` when `counted`, its problems always.
fn read_file(fs: &dyn Fs, path: &Path, scope: FamilyScope, counted: bool, s: &mut Startup) {
    let Some(text) = read(fs, path) else {
        return;
    };
    s.files.push(path.to_path_buf());
    let problem = |s: &mut Startup, r: TextRange, code: Code, msg: String| {
        s.diagnostics.push(toml_doc::diag(
            path,
            &text,
            r,
            Severity::Error,
            code,
            format!("{msg}; {STOPS}"),
        ));
        s.not_loaded.push(NotLoadedFamilyFile {
            family: Family::Mcp,
            file: path.to_path_buf(),
            reason: msg,
        });
    };
    let doc = match toml_doc::parse(&text) {
        Ok(d) => d,
        Err((r, m)) => {
            problem(s, r, Code::McpConfigInvalid, format!("invalid TOML: {m}"));
            return;
        }
    };
    let Some((key, servers)) = doc.as_table().get_key_value("mcp_servers") else {
        return;
    };
    let top = toml_doc::key_range(key, TextRange::new(0, 0));
    let Some(servers) = toml_doc::table(servers) else {
        let r = toml_doc::item_range(servers, top);
        let m = format!(
            "`mcp_servers` must be a table, not {}",
            toml_doc::describe(servers)
        );
        problem(s, r, Code::McpConfigInvalid, m);
        return;
    };
    if !counted && !servers.is_empty() {
        s.not_loaded.push(NotLoadedFamilyFile {
            family: Family::Mcp,
            file: path.to_path_buf(),
            reason: UNTRUSTED_REASON.into(),
        });
    }
    for (name, v) in servers.iter() {
        let whole = servers
            .get_key_value(name)
            .map_or(top, |(k, _)| toml_doc::key_range(k, top));
        let Some(t) = toml_doc::table(v) else {
            let r = toml_doc::item_range(v, whole);
            let m = format!(
                "MCP server `{name}`: must be a table, not {}",
                toml_doc::describe(v)
            );
            problem(s, r, Code::McpServerInvalid, m);
            continue;
        };
        for (k, _) in t.iter() {
            if shape(k).is_none() {
                let r = t
                    .get_key_value(k)
                    .map_or(whole, |(key, _)| toml_doc::key_range(key, whole));
                s.diagnostics.push(toml_doc::diag(
                    path,
                    &text,
                    r,
                    Severity::Warning,
                    Code::McpServerKeyUnknown,
                    format!("unknown key `{k}` in MCP server `{name}`: Codex CLI ignores it (\"`mcp_servers.{name}.{k}` is ignored\")"),
                ));
            }
        }
        let kind = match judge(t, whole) {
            Ok(k) => k,
            Err((r, why)) => {
                problem(
                    s,
                    r,
                    Code::McpServerInvalid,
                    format!("MCP server `{name}`: {why}"),
                );
                continue;
            }
        };
        if !counted {
            continue;
        }
        if t.get("enabled").and_then(Item::as_bool) == Some(false) {
            s.not_loaded.push(NotLoadedFamilyFile {
                family: Family::Mcp,
                file: path.to_path_buf(),
                reason: format!("server `{name}`: `enabled = false`"),
            });
            continue;
        }
        super::mcp::push_server(
            s,
            name.to_string(),
            path,
            scope,
            String::new(),
            kind.to_string(),
        );
    }
}

/// The servers Codex CLI starts in a session started in `vantage` (the nearest project file
/// first, the user's last): into `s`, with the problems of every file read.
pub fn servers(fs: &dyn Fs, env: &Env, root: &Path, vantage: &Path, s: &mut Startup) {
    let trusted = trusted_dirs(fs, env);
    for d in project_dirs(root, vantage) {
        let ok = trusted.iter().any(|t| d.starts_with(t));
        read_file(
            fs,
            &d.join(".codex").join("config.toml"),
            FamilyScope::Project,
            ok,
            s,
        );
    }
    if let Some(p) = user_config(env) {
        read_file(fs, &p, FamilyScope::User, true, s);
    }
}
