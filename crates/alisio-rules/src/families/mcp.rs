//! MCP server configurations as Claude Code 2.1.332 reads them (spec/instructions.md §10.3):
//! `.mcp.json` in the session's directory and each ancestor up to the workspace root, then
//! `~/.claude.json`, each a JSON object whose `mcpServers` maps a name to a server. A file that
//! is not such an object is ignored whole; a server that does not fit the client's schema is
//! dropped alone, silently (measured: tests/real `families`). The schema, from the client's
//! bundle: `stdio` (the default `type`) needs a non-empty `command`, `args` a list of strings,
//! `env` an object of strings; `sse`, `http` and `ws` need a `url` string, `headers` an object
//! of strings.

use std::path::{Path, PathBuf};

use jsonc_parser::ast::{Object, Value as A};
use jsonc_parser::common::Ranged;

use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange};
use alisio_base::workspace::{FileType, Fs};

use super::{Family, FamilyEntry, FamilyScope, NotLoadedFamilyFile, Startup};

/// `.mcp.json` files are read up to this size.
pub const MCP_FILE_LIMIT: u64 = 1024 * 1024;

/// The transports Claude Code 2.1.332's schema accepts in a configuration file.
pub const TRANSPORTS: [&str; 4] = ["stdio", "sse", "http", "ws"];

/// The range of a jsonc node (shared by the Gemini `settings.json` reader).
pub(super) fn range<T: Ranged>(t: &T) -> TextRange {
    let r = t.range();
    TextRange::new(r.start, r.end)
}

/// The range of a jsonc value.
pub(super) fn value_range(v: &A<'_>) -> TextRange {
    match v {
        A::StringLit(x) => range(x),
        A::NumberLit(x) => range(x),
        A::BooleanLit(x) => range(x),
        A::Object(x) => range(x),
        A::Array(x) => range(x),
        A::NullKeyword(x) => range(x),
    }
}

fn get<'a, 'b>(o: &'b Object<'a>, key: &str) -> Option<&'b jsonc_parser::ast::ObjectProp<'a>> {
    o.properties.iter().find(|p| p.name.as_str() == key)
}

fn strings_object(v: &A<'_>) -> bool {
    matches!(v, A::Object(o) if o.properties.iter().all(|p| matches!(p.value, A::StringLit(_))))
}

/// Why Claude Code drops a server (`None`: it keeps it), with the range to show, and the
/// transport it uses.
fn judge(name_range: TextRange, v: &A<'_>) -> Result<String, (TextRange, String)> {
    let A::Object(o) = v else {
        return Err((value_range(v), "a server must be a JSON object".into()));
    };
    let kind = match get(o, "type").map(|p| &p.value) {
        None => "stdio".to_string(),
        Some(A::StringLit(s)) if TRANSPORTS.contains(&s.value.as_ref()) => s.value.to_string(),
        Some(other) => {
            return Err((
                value_range(other),
                format!("`type` must be one of {}", TRANSPORTS.join(", ")),
            ));
        }
    };
    let field = |k: &str| get(o, k).map(|p| &p.value);
    if kind == "stdio" {
        match field("command") {
            Some(A::StringLit(s)) if !s.value.is_empty() => {}
            Some(other) => {
                return Err((
                    value_range(other),
                    "`command` must be a non-empty string".into(),
                ));
            }
            None => {
                return Err((
                    name_range,
                    "a stdio server needs `command` (or give `type` and `url`)".into(),
                ));
            }
        }
        if let Some(a) = field("args")
            && !matches!(a, A::Array(arr) if arr.elements.iter().all(|e| matches!(e, A::StringLit(_))))
        {
            return Err((value_range(a), "`args` must be a list of strings".into()));
        }
        if let Some(e) = field("env")
            && !strings_object(e)
        {
            return Err((
                value_range(e),
                "`env` must be an object whose values are strings".into(),
            ));
        }
    } else {
        match field("url") {
            Some(A::StringLit(_)) => {}
            Some(other) => return Err((value_range(other), "`url` must be a string".into())),
            None => {
                return Err((name_range, format!("a server of type `{kind}` needs `url`")));
            }
        }
        if let Some(h) = field("headers")
            && !strings_object(h)
        {
            return Err((
                value_range(h),
                "`headers` must be an object whose values are strings".into(),
            ));
        }
    }
    Ok(kind)
}

fn push_file_problem(s: &mut Startup, path: &Path, text: &str, r: TextRange, msg: String) {
    s.diagnostics.push(Diagnostic::new(
        path,
        LineIndex::new(text).span(r),
        Severity::Error,
        Code::McpConfigInvalid,
        format!("{msg}: Claude Code ignores this file"),
    ));
    s.not_loaded.push(NotLoadedFamilyFile {
        family: Family::Mcp,
        file: path.to_path_buf(),
        reason: msg,
    });
}

/// Adds the MCP server `name` of `file` to `s`, shadowed by the first server of that name
/// already there (every host's files are read nearest first; spec/instructions.md §10.3, §10.7).
pub(super) fn push_server(
    s: &mut Startup,
    name: String,
    file: &Path,
    scope: FamilyScope,
    description: String,
    transport: String,
) {
    let first = s
        .of(Family::Mcp)
        .find(|e| e.name == name)
        .map(|e| e.file.clone());
    s.entries.push(FamilyEntry {
        family: Family::Mcp,
        name,
        file: file.to_path_buf(),
        scope,
        description,
        text: None,
        detail: transport,
        shadowed_by: first,
        hidden: None,
    });
}

/// Reads one file's servers into `s` (the first server of a name wins).
fn read_file(fs: &dyn Fs, path: &Path, scope: FamilyScope, s: &mut Startup) {
    if !fs
        .metadata(path)
        .is_ok_and(|m| m.file_type == FileType::File)
    {
        return;
    }
    let Ok(bytes) = fs.read_prefix(path, MCP_FILE_LIMIT) else {
        return;
    };
    s.files.push(path.to_path_buf());
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let opts = jsonc_parser::ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
    };
    let ast =
        match jsonc_parser::parse_to_ast(&text, &jsonc_parser::CollectOptions::default(), &opts) {
            Ok(a) => a,
            Err(e) => {
                let r = TextRange::new(e.range().start, e.range().end);
                let msg = format!(
                    "invalid JSON: {} at line {} column {}",
                    e.kind(),
                    e.line_display(),
                    e.column_display()
                );
                push_file_problem(s, path, &text, r, msg);
                return;
            }
        };
    let Some(A::Object(top)) = &ast.value else {
        let r = ast.value.as_ref().map_or(TextRange::new(0, 0), value_range);
        push_file_problem(
            s,
            path,
            &text,
            r,
            "the top level must be a JSON object".into(),
        );
        return;
    };
    let Some(servers) = get(top, "mcpServers") else {
        return;
    };
    let A::Object(servers) = &servers.value else {
        push_file_problem(
            s,
            path,
            &text,
            value_range(&servers.value),
            "`mcpServers` must be an object".into(),
        );
        return;
    };
    for p in &servers.properties {
        let name = p.name.as_str().to_string();
        let name_range = range(&p.name);
        match judge(name_range, &p.value) {
            Ok(kind) => push_server(s, name, path, scope, String::new(), kind),
            Err((r, why)) => {
                s.diagnostics.push(Diagnostic::new(
                    path,
                    LineIndex::new(&text).span(r),
                    Severity::Error,
                    Code::McpServerInvalid,
                    format!("MCP server `{name}`: {why}; Claude Code drops this server silently"),
                ));
                s.not_loaded.push(NotLoadedFamilyFile {
                    family: Family::Mcp,
                    file: path.to_path_buf(),
                    reason: format!("server `{name}`: {why}"),
                });
            }
        }
    }
}

/// The servers of `files` (nearest `.mcp.json` first, `~/.claude.json` last).
pub fn servers(fs: &dyn Fs, files: &[(PathBuf, FamilyScope)], s: &mut Startup) {
    for (p, scope) in files {
        read_file(fs, p, *scope, s);
    }
}
