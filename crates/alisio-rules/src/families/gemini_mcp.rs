//! Gemini CLI's MCP servers (spec/instructions.md §10.7), as 0.61.0 reads them, measured
//! offline (`gemini mcp list` and `gemini -p`, tests/real `mcp`):
//!
//! - the `mcpServers` object of `.gemini/settings.json` in the session's directory (not of its
//!   ancestors), then of `~/.gemini/settings.json`; a project server replaces the user's of the
//!   same name; JSON with comments, no trailing commas;
//! - in an untrusted folder every server is disabled, the user's too ("MCP servers are
//!   configured but disabled because this folder is untrusted"); trusted (the bundle's
//!   `checkPathTrust`): `GEMINI_CLI_TRUST_WORKSPACE=true`, or folder trust off
//!   (`security.folderTrust.enabled: false`), or the longest rule of
//!   `~/.gemini/trustedFolders.json` whose folder holds it is `TRUST_FOLDER` (that folder) or
//!   `TRUST_PARENT` (its parent), not `DO_NOT_TRUST`;
//! - a settings file that is not JSON stops the CLI ("Please fix the configuration file(s) and
//!   try again"); a value that does not fit the schema (`MCPServerConfig` of the bundle's
//!   settings schema, unknown keys rejected) is reported at every start ("Invalid configuration
//!   in …") and the server is still tried; a server with no `command`, `url`, `httpUrl` or `tcp`
//!   has nothing to connect to.

use std::path::{Path, PathBuf};

use jsonc_parser::ast::{Object, Value as A};

use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange};
use alisio_base::workspace::{Env, FileType, Fs};

use super::mcp::{range, value_range};
use super::{Family, FamilyScope, NotLoadedFamilyFile, Startup};

/// Gemini CLI's home: `GEMINI_CLI_HOME`, else `$HOME`.
pub(super) fn home(env: &Env) -> Option<PathBuf> {
    env.gemini_cli_home.clone().or_else(|| env.home.clone())
}

/// `settings.json` files are read up to this size.
pub const SETTINGS_LIMIT: u64 = 1024 * 1024;

/// Why no server is started in an untrusted folder.
pub const UNTRUSTED_REASON: &str = "the folder is not trusted: Gemini CLI 0.61.0 disables every MCP server there (`~/.gemini/trustedFolders.json`, `GEMINI_CLI_TRUST_WORKSPACE=true`)";

const WARNS: &str =
    "Gemini CLI reports \"Invalid configuration\" at every start and still tries this server";

/// The keys of `MCPServerConfig` in Gemini CLI 0.61.0's settings schema, with their meaning.
pub const SERVER_KEYS: [(&str, &str); 19] = [
    ("command", "Executable invoked for stdio transport."),
    (
        "args",
        "Command-line arguments for the stdio transport command.",
    ),
    (
        "env",
        "Environment variables to set for the server process.",
    ),
    ("cwd", "Working directory for the server process."),
    (
        "url",
        "URL for SSE or HTTP transport. Use with \"type\" field to specify transport type.",
    ),
    ("httpUrl", "Streaming HTTP transport URL."),
    ("headers", "Additional HTTP headers sent to the server."),
    ("tcp", "TCP address for websocket transport."),
    ("type", "Transport type: \"stdio\", \"sse\" or \"http\"."),
    ("timeout", "Timeout in milliseconds for MCP requests."),
    (
        "trust",
        "Marks the server as trusted: its tool calls are not confirmed.",
    ),
    ("description", "Human-readable description of the server."),
    (
        "includeTools",
        "Subset of tools that should be enabled for this server. When omitted all tools are enabled.",
    ),
    (
        "excludeTools",
        "Tools that should be disabled for this server even if exposed.",
    ),
    (
        "extension",
        "Metadata describing the Gemini CLI extension that owns this MCP server.",
    ),
    (
        "oauth",
        "OAuth configuration for authenticating with the server.",
    ),
    (
        "authProviderType",
        "Authentication provider used for acquiring credentials.",
    ),
    (
        "targetAudience",
        "OAuth target audience (CLIENT_ID.apps.googleusercontent.com).",
    ),
    (
        "targetServiceAccount",
        "Service account email to impersonate.",
    ),
];

/// `authProviderType` values of the bundle's `AuthProviderType`.
pub const AUTH_PROVIDERS: [&str; 3] = [
    "dynamic_discovery",
    "google_credentials",
    "service_account_impersonation",
];

const TYPES: [&str; 3] = ["stdio", "sse", "http"];

fn describe(v: &A<'_>) -> &'static str {
    match v {
        A::StringLit(_) => "a string",
        A::NumberLit(_) => "a number",
        A::BooleanLit(_) => "a boolean",
        A::Object(_) => "an object",
        A::Array(_) => "an array",
        A::NullKeyword(_) => "null",
    }
}

fn get<'a, 'b>(o: &'b Object<'a>, key: &str) -> Option<&'b A<'a>> {
    o.properties
        .iter()
        .find(|p| p.name.as_str() == key)
        .map(|p| &p.value)
}

/// `None` when `v` fits `key`'s schema, else the message (unknown keys are judged apart).
fn mismatch(key: &str, v: &A<'_>) -> Option<String> {
    let strings = |v: &A<'_>| matches!(v, A::Array(a) if a.elements.iter().all(|e| matches!(e, A::StringLit(_))));
    let object_of_strings = |v: &A<'_>| matches!(v, A::Object(o) if o.properties.iter().all(|p| matches!(p.value, A::StringLit(_))));
    let ok = match key {
        "command"
        | "cwd"
        | "url"
        | "httpUrl"
        | "tcp"
        | "description"
        | "targetAudience"
        | "targetServiceAccount" => matches!(v, A::StringLit(_)),
        "args" | "includeTools" | "excludeTools" => strings(v),
        "env" | "headers" => object_of_strings(v),
        "trust" => matches!(v, A::BooleanLit(_)),
        // Measured: 0.61.0 does not report `"timeout": "5"`.
        "timeout" => true,
        "extension" | "oauth" => matches!(v, A::Object(_)),
        "type" => matches!(v, A::StringLit(s) if TYPES.contains(&s.value.as_ref())),
        "authProviderType" => {
            matches!(v, A::StringLit(s) if AUTH_PROVIDERS.contains(&s.value.as_ref()))
        }
        _ => return None,
    };
    if ok {
        return None;
    }
    Some(match key {
        "args" | "includeTools" | "excludeTools" => "must be an array of strings".into(),
        "env" | "headers" => "must be an object whose values are strings".into(),
        "trust" => format!("must be `true` or `false`, not {}", describe(v)),
        "extension" | "oauth" => format!("must be an object, not {}", describe(v)),
        "type" => "must be one of `stdio`, `sse`, `http`".into(),
        "authProviderType" => format!(
            "must be one of {}",
            AUTH_PROVIDERS.map(|a| format!("`{a}`")).join(", ")
        ),
        _ => format!("must be a string, not {}", describe(v)),
    })
}

/// The transport Gemini CLI connects with (its order: `httpUrl`, `url`, `command`, `tcp`).
fn transport(o: &Object<'_>) -> Option<String> {
    if get(o, "httpUrl").is_some() {
        return Some("http".into());
    }
    if get(o, "url").is_some() {
        return Some(match get(o, "type") {
            Some(A::StringLit(s)) => s.value.to_string(),
            _ => "http".into(),
        });
    }
    if get(o, "command").is_some() {
        return Some("stdio".into());
    }
    get(o, "tcp").map(|_| "websocket".into())
}

/// Whether Gemini CLI trusts `dir` (see the module's comment).
#[must_use]
pub fn trusted(fs: &dyn Fs, env: &Env, dir: &Path) -> bool {
    if let Some(t) = env.gemini_trust_workspace {
        return t;
    }
    let Some(h) = home(env) else {
        return false;
    };
    if folder_trust_off(fs, &h) {
        return true;
    }
    let Ok(bytes) = fs.read_prefix(
        &h.join(".gemini").join("trustedFolders.json"),
        SETTINGS_LIMIT,
    ) else {
        return false;
    };
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return false;
    };
    let mut best: Option<(usize, bool)> = None;
    for (path, kind) in v.as_object().into_iter().flatten() {
        let p = Path::new(path);
        let (effective, trust) = match kind.as_str() {
            Some("TRUST_FOLDER") => (p, true),
            Some("TRUST_PARENT") => (p.parent().unwrap_or(p), true),
            Some("DO_NOT_TRUST") => (p, false),
            _ => continue,
        };
        let len = path.len();
        if dir.starts_with(effective) && best.is_none_or(|(l, _)| len >= l) {
            best = Some((len, trust));
        }
    }
    best.is_some_and(|(_, t)| t)
}

/// `security.folderTrust.enabled: false` in the user's settings: every folder is trusted.
fn folder_trust_off(fs: &dyn Fs, home: &Path) -> bool {
    let Ok(bytes) = fs.read_prefix(&home.join(".gemini").join("settings.json"), SETTINGS_LIMIT)
    else {
        return false;
    };
    let text = String::from_utf8_lossy(&bytes);
    let opts = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
    };
    let Ok(ast) =
        jsonc_parser::parse_to_ast(&text, &jsonc_parser::CollectOptions::default(), &opts)
    else {
        return false;
    };
    let mut v = ast.value.as_ref();
    for k in ["security", "folderTrust", "enabled"] {
        v = match v {
            Some(A::Object(o)) => get(o, k),
            _ => None,
        };
    }
    matches!(v, Some(A::BooleanLit(b)) if !b.value)
}

/// The key of a server of `mcpServers` under byte `offset`, if any.
#[must_use]
pub fn server_key_at(text: &str, offset: usize) -> Option<String> {
    let opts = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
    };
    let ast =
        jsonc_parser::parse_to_ast(text, &jsonc_parser::CollectOptions::default(), &opts).ok()?;
    let Some(A::Object(top)) = &ast.value else {
        return None;
    };
    let Some(A::Object(servers)) = get(top, "mcpServers") else {
        return None;
    };
    servers.properties.iter().find_map(|s| {
        let A::Object(o) = &s.value else {
            return None;
        };
        o.properties.iter().find_map(|p| {
            let r = range(&p.name);
            (r.start <= offset && offset <= r.end).then(|| p.name.as_str().to_string())
        })
    })
}

struct File<'a> {
    path: &'a Path,
    text: &'a str,
}

impl File<'_> {
    fn diag(&self, r: TextRange, severity: Severity, code: Code, msg: String) -> Diagnostic {
        Diagnostic::new(
            self.path,
            LineIndex::new(self.text).span(r),
            severity,
            code,
            msg,
        )
    }
}

fn not_loaded(s: &mut Startup, path: &Path, reason: String) {
    s.not_loaded.push(NotLoadedFamilyFile {
        family: Family::Mcp,
        file: path.to_path_buf(),
        reason,
    });
}

fn server(
    f: &File<'_>,
    name: &str,
    name_r: TextRange,
    v: &A<'_>,
    ok: bool,
    scope: FamilyScope,
    s: &mut Startup,
) {
    let A::Object(o) = v else {
        let why = format!(
            "MCP server `{name}`: must be an object, not {}",
            describe(v)
        );
        s.diagnostics.push(f.diag(
            value_range(v),
            Severity::Error,
            Code::McpServerInvalid,
            format!("{why}; Gemini CLI cannot connect to it"),
        ));
        not_loaded(s, f.path, why);
        return;
    };
    for p in &o.properties {
        let k = p.name.as_str();
        if !SERVER_KEYS.iter().any(|(x, _)| *x == k) {
            s.diagnostics.push(f.diag(range(&p.name), Severity::Warning, Code::McpServerKeyUnknown, format!("unknown key `{k}` in MCP server `{name}`: Gemini CLI reports \"Unrecognized key(s) in object\" at every start and ignores it")));
        } else if let Some(m) = mismatch(k, &p.value) {
            s.diagnostics.push(f.diag(
                value_range(&p.value),
                Severity::Error,
                Code::McpServerInvalid,
                format!("MCP server `{name}`: `{k}` {m}; {WARNS}"),
            ));
        }
    }
    let Some(kind) = transport(o) else {
        let why = format!("MCP server `{name}`: no `command`, `url`, `httpUrl` or `tcp`");
        s.diagnostics.push(f.diag(
            name_r,
            Severity::Error,
            Code::McpServerInvalid,
            format!("{why}; Gemini CLI has nothing to connect to"),
        ));
        not_loaded(s, f.path, why);
        return;
    };
    if !ok {
        not_loaded(s, f.path, format!("server `{name}`: {UNTRUSTED_REASON}"));
        return;
    }
    let description = match get(o, "description") {
        Some(A::StringLit(d)) => d.value.to_string(),
        _ => String::new(),
    };
    super::mcp::push_server(s, name.to_string(), f.path, scope, description, kind);
}

/// One settings.json: its servers into `s` (counted only when `ok`), its problems always.
fn read_file(fs: &dyn Fs, path: &Path, scope: FamilyScope, ok: bool, s: &mut Startup) {
    if !fs
        .metadata(path)
        .is_ok_and(|m| m.file_type == FileType::File)
    {
        return;
    }
    let Ok(bytes) = fs.read_prefix(path, SETTINGS_LIMIT) else {
        return;
    };
    s.files.push(path.to_path_buf());
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let f = File { path, text: &text };
    let opts = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
    };
    let fail = |s: &mut Startup, r: TextRange, msg: String, then: &str| {
        s.diagnostics.push(f.diag(
            r,
            Severity::Error,
            Code::McpConfigInvalid,
            format!("{msg}: {then}"),
        ));
        not_loaded(s, path, msg);
    };
    let ast = match jsonc_parser::parse_to_ast(
        &text,
        &jsonc_parser::CollectOptions::default(),
        &opts,
    ) {
        Ok(a) => a,
        Err(e) => {
            let r = TextRange::new(e.range().start, e.range().end);
            let msg = format!(
                "invalid JSON: {} at line {} column {}",
                e.kind(),
                e.line_display(),
                e.column_display()
            );
            fail(
                s,
                r,
                msg,
                "Gemini CLI does not start (\"Please fix the configuration file(s) and try again\")",
            );
            return;
        }
    };
    let Some(A::Object(top)) = &ast.value else {
        let r = ast.value.as_ref().map_or(TextRange::new(0, 0), value_range);
        fail(
            s,
            r,
            "the top level must be a JSON object".into(),
            "Gemini CLI does not start",
        );
        return;
    };
    let Some(servers) = get(top, "mcpServers") else {
        return;
    };
    let A::Object(servers) = servers else {
        let msg = format!("`mcpServers` must be an object, not {}", describe(servers));
        fail(
            s,
            value_range(servers),
            msg,
            "Gemini CLI reports \"Invalid configuration\" and starts none of this file's servers",
        );
        return;
    };
    for p in &servers.properties {
        server(&f, p.name.as_str(), range(&p.name), &p.value, ok, scope, s);
    }
}

/// The servers Gemini CLI starts in a session started in `cwd` (the project's first, then the
/// user's), into `s`, with the problems of both files.
pub fn servers(fs: &dyn Fs, env: &Env, cwd: &Path, s: &mut Startup) {
    let ok = trusted(fs, env, cwd);
    let user: Option<PathBuf> = home(env).map(|h| h.join(".gemini").join("settings.json"));
    let project = cwd.join(".gemini").join("settings.json");
    if user.as_deref() != Some(project.as_path()) {
        read_file(fs, &project, FamilyScope::Project, ok, s);
    }
    if let Some(u) = user {
        read_file(fs, &u, FamilyScope::User, ok, s);
    }
}
