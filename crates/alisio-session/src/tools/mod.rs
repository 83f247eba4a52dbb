//! The tools of spec/sessions.md §3: their schemas (exact, `additionalProperties: false`), argument
//! validation (spec/sessions.md §2.5 step 3), effects, declared paths, and execution.

pub mod args;
pub mod bg;
pub mod confine;
pub mod files;
pub mod preview;
pub mod process;
pub mod review;
pub mod search;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use confine::Roots;

/// What a tool does to the world (spec/sessions.md §4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Effect {
    Read,
    Write,
    Process,
}

impl Effect {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Process => "process",
        }
    }
}

/// One argument's type and range.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    Str { min: usize, max: usize },
    StrOrNull,
    Int { min: i64, max: i64 },
    Bool,
    StrArray { max: usize },
    Enum(&'static [&'static str]),
}

/// One argument.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub required: bool,
    pub description: &'static str,
}

const fn f(name: &'static str, ty: Ty, required: bool, description: &'static str) -> Field {
    Field {
        name,
        ty,
        required,
        description,
    }
}

const ANY: usize = usize::MAX;
/// A string of any length.
const STR: Ty = Ty::Str { min: 0, max: ANY };
/// `cwd` of the process tools.
const CWD: Field = f(
    "cwd",
    Ty::Str { min: 0, max: ANY },
    false,
    "Working directory (default the workspace root).",
);
/// `timeoutMs` of the process tools.
const TIMEOUT_MS: Field = f(
    "timeoutMs",
    Ty::Int {
        min: 1,
        max: 600_000,
    },
    false,
    "Timeout in milliseconds (default 30000).",
);
const TASK_STATES: &[&str] = &[
    "running",
    "exited",
    "failed",
    "timed_out",
    "stopped",
    "killed",
    "lost",
];

/// A tool of the table.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub effect: Effect,
    pub description: &'static str,
    pub fields: &'static [Field],
    /// Declared path fields (spec/sessions.md §3.3 column "paths"), with their default.
    pub paths: &'static [(&'static str, Option<&'static str>)],
}

/// The table of spec/sessions.md §3.3, in its order.
#[rustfmt::skip]
pub static TOOLS: &[Spec] = &[
    Spec {
        name: "read_file",
        effect: Effect::Read,
        description: "Read a text file. Returns numbered lines (`<n>: <text>`) and the file's sha256, which write_file and edit_file need as expectedHash.",
        fields: &[
            f("path", STR, true, "File path, relative to the workspace root or absolute."),
            f("startLine", Ty::Int { min: 1, max: i64::MAX }, false, "First line to return (1-based, default 1)."),
            f("limit", Ty::Int { min: 1, max: 1000 }, false, "Number of lines (1-1000, default 200)."),
        ],
        paths: &[("path", None)],
    },
    Spec {
        name: "write_file",
        effect: Effect::Write,
        description: "Create or replace a text file atomically. expectedHash is the sha256 from read_file, or null to create a file that must not exist.",
        fields: &[
            f("path", STR, true, "File path."),
            f("content", STR, true, "The whole new content (at most 1 MiB)."),
            f("expectedHash", Ty::StrOrNull, true, "sha256 of the current file, or null when it must not exist."),
        ],
        paths: &[("path", None)],
    },
    Spec {
        name: "edit_file",
        effect: Effect::Write,
        description: "Replace exactly one occurrence of oldText with newText in a file. expectedHash is the file's sha256 from read_file.",
        fields: &[
            f("path", STR, true, "File path."),
            f("oldText", Ty::Str { min: 1, max: ANY }, true, "Text to replace; must occur exactly once."),
            f("newText", STR, true, "Replacement text."),
            f("expectedHash", STR, true, "sha256 of the current file."),
        ],
        paths: &[("path", None)],
    },
    Spec {
        name: "list_files",
        effect: Effect::Read,
        description: "List files below a directory (gitignore rules apply; .git and node_modules are skipped), sorted, paged.",
        fields: &[
            f("path", STR, false, "Directory (default the workspace root)."),
            f("offset", Ty::Int { min: 0, max: i64::MAX }, false, "Entries to skip (default 0)."),
            f("limit", Ty::Int { min: 1, max: 500 }, false, "Entries to return (1-500, default 100)."),
        ],
        paths: &[("path", Some("."))],
    },
    Spec {
        name: "search_text",
        effect: Effect::Read,
        description: "Search file contents with a regular expression (Rust regex syntax) or a literal string. Output is ripgrep --json lines.",
        fields: &[
            f("pattern", Ty::Str { min: 1, max: 1000 }, true, "Regular expression, or text with literal: true."),
            f("path", STR, false, "Directory or file to search (default the workspace root)."),
            f("literal", Ty::Bool, false, "Treat the pattern as literal text."),
            f("glob", STR, false, "Only search files matching this glob."),
        ],
        paths: &[("path", Some("."))],
    },
    Spec {
        name: "run_process",
        effect: Effect::Process,
        description: "Run a program directly (no shell) with arguments and capture stdout and stderr.",
        fields: &[
            f("command", Ty::Str { min: 1, max: 4096 }, true, "Program name or path."),
            f("args", Ty::StrArray { max: 256 }, true, "Arguments."),
            CWD,
            TIMEOUT_MS,
        ],
        paths: &[("cwd", Some("."))],
    },
    Spec {
        name: "shell",
        effect: Effect::Process,
        description: "Run a command line with /bin/sh -c and capture stdout and stderr.",
        fields: &[
            f("command", Ty::Str { min: 1, max: 16_000 }, true, "Shell command line."),
            CWD,
            TIMEOUT_MS,
        ],
        paths: &[("cwd", Some("."))],
    },
    Spec {
        name: "bg_run",
        effect: Effect::Process,
        description: "Start a long-running shell command in the background. Poll its output with bg_output and stop it with bg_stop.",
        fields: &[
            f("command", Ty::Str { min: 1, max: 8000 }, true, "Shell command line."),
            CWD,
            f("label", Ty::Str { min: 0, max: 80 }, false, "Short label."),
            f("timeoutMs", Ty::Int { min: 1000, max: 86_400_000 }, false, "Timeout in milliseconds."),
        ],
        paths: &[("cwd", Some("."))],
    },
    Spec {
        name: "bg_output",
        effect: Effect::Read,
        description: "Read a background task's output from an offset; pass next_offset back to continue.",
        fields: &[
            f("id", STR, true, "Task id (bg-1, ...)."),
            f("offset", Ty::Int { min: 0, max: i64::MAX }, false, "Byte offset (default 0)."),
            f("limit", Ty::Int { min: 1, max: 65_536 }, false, "Bytes to return (default 16384)."),
            f("waitMs", Ty::Int { min: 0, max: 30_000 }, false, "Wait up to this long for new output."),
        ],
        paths: &[],
    },
    Spec {
        name: "bg_list",
        effect: Effect::Read,
        description: "List background tasks, newest first.",
        fields: &[
            f("status", Ty::Enum(TASK_STATES), false, "Only tasks in this state."),
            f("limit", Ty::Int { min: 1, max: 50 }, false, "At most this many (default 20)."),
        ],
        paths: &[],
    },
    Spec {
        name: "bg_stop",
        effect: Effect::Process,
        description: "Stop a background task (SIGTERM to its process group, SIGKILL after 3 s).",
        fields: &[f("id", STR, true, "Task id.")],
        paths: &[],
    },
    Spec {
        name: "context_explain",
        effect: Effect::Read,
        description: "Which instruction files (AGENTS.md and friends) apply to a path, in order, with the size budget applied.",
        fields: &[f("path", STR, true, "File or directory path.")],
        paths: &[("path", None)],
    },
    Spec {
        name: "skill_load",
        effect: Effect::Read,
        description: "Load an Agent Skill's instructions by name.",
        fields: &[f("name", STR, true, "Skill name, displayId or id.")],
        paths: &[],
    },
    Spec {
        name: "skill_search",
        effect: Effect::Read,
        description: "Search the skill catalog.",
        fields: &[f("query", STR, true, "Words to search for.")],
        paths: &[],
    },
    Spec {
        name: "skill_resource",
        effect: Effect::Read,
        description: "Read a file inside a skill's directory, in pages of 32,000 bytes.",
        fields: &[
            f("name", STR, true, "Skill name, displayId or id."),
            f("path", STR, true, "Path inside the skill directory."),
            f("offset", Ty::Int { min: 0, max: i64::MAX }, false, "Byte offset (default 0)."),
        ],
        paths: &[],
    },
    Spec {
        name: "skill_run",
        effect: Effect::Read,
        description: "Run an Agent Skill in a sub-session with its allowed tools and return only its final answer (skills whose frontmatter says context: fork must be run this way).",
        fields: &[
            f("name", STR, true, "Skill name, displayId or id."),
            f("prompt", Ty::Str { min: 1, max: 32_000 }, true, "The request for the skill."),
        ],
        paths: &[],
    },
    Spec {
        name: "result_read",
        effect: Effect::Read,
        description: "Read back the stored text of an earlier tool result of this session (a trimmed or cut result says so and names its callId and field). Reads the raw text of one string field of a JSON result (field; default the longest, the one a spill cuts), offsets in characters of that text. Returns {callId, field, offset, nextOffset, totalChars, totalLines, text}; with pattern, only the matching lines, each as <line>: <text>, within limit characters, and matchesLeft.",
        fields: &[
            f("callId", Ty::Str { min: 1, max: 200 }, true, "The callId of the result."),
            f("offset", Ty::Int { min: 0, max: i64::MAX }, false, "Character offset (default 0)."),
            f("limit", Ty::Int { min: 1, max: 32_000 }, false, "Characters to return (default 16000, at most 32000)."),
            f("pattern", Ty::Str { min: 1, max: 1000 }, false, "A regular expression (Rust syntax): only the matching lines, with their line numbers."),
            f("field", Ty::Str { min: 1, max: 200 }, false, "The string field to read (stdout, stderr, content, text, ...); default the longest."),
        ],
        paths: &[],
    },
    Spec {
        name: "task",
        effect: Effect::Read,
        description: "Start a sub-agent for one self-contained task; returns its final answer.",
        fields: &[
            f("description", Ty::Str { min: 1, max: 200 }, true, "Short title of the task."),
            f("prompt", Ty::Str { min: 1, max: 32_000 }, true, "Complete instructions for the sub-agent."),
        ],
        paths: &[],
    },
    Spec {
        name: "glance",
        effect: Effect::Read,
        description: "Run a status or listing command (git status, git log, git diff, ls, pwd, find without actions, ...), alone or joined with &&, ||, ; and | filters such as head, grep, wc or sort, and capture its output. Every other command is refused: delegate real work with task.",
        fields: &[
            f("command", Ty::Str { min: 1, max: 4096 }, true, "Shell command line made only of status and listing commands."),
            CWD,
            TIMEOUT_MS,
        ],
        paths: &[("cwd", Some("."))],
    },
];

/// `test_sleep` (feature `test-tools`, debug builds, `ALISIO_TEST_TOOLS=1`): a read tool that
/// sleeps, to observe scheduling.
pub static TEST_SLEEP: Spec = Spec {
    name: "test_sleep",
    effect: Effect::Read,
    description: "Test tool: sleep for ms milliseconds.",
    fields: &[
        f(
            "ms",
            Ty::Int {
                min: 0,
                max: 600_000,
            },
            true,
            "Milliseconds.",
        ),
        f("tag", Ty::Str { min: 0, max: ANY }, false, "Tag."),
    ],
    paths: &[],
};

/// Whether the test tools are compiled in and switched on.
#[must_use]
pub fn test_tools_enabled() -> bool {
    cfg!(all(debug_assertions, feature = "test-tools"))
        && std::env::var("ALISIO_TEST_TOOLS").is_ok_and(|v| v == "1")
}

/// A tool by name (the table, plus `test_sleep` when enabled).
#[must_use]
pub fn spec(name: &str) -> Option<&'static Spec> {
    TOOLS
        .iter()
        .find(|s| s.name == name)
        .or_else(|| (name == "test_sleep" && test_tools_enabled()).then_some(&TEST_SLEEP))
}

fn ty_schema(ty: Ty, description: &str) -> Value {
    let mut m = Map::new();
    match ty {
        Ty::Str { min, max } => {
            m.insert("type".into(), json!("string"));
            if min > 0 {
                m.insert("minLength".into(), json!(min));
            }
            if max != ANY {
                m.insert("maxLength".into(), json!(max));
            }
        }
        Ty::StrOrNull => {
            m.insert("type".into(), json!(["string", "null"]));
        }
        Ty::Int { min, max } => {
            m.insert("type".into(), json!("integer"));
            m.insert("minimum".into(), json!(min));
            if max != i64::MAX {
                m.insert("maximum".into(), json!(max));
            }
        }
        Ty::Bool => {
            m.insert("type".into(), json!("boolean"));
        }
        Ty::StrArray { max } => {
            m.insert("type".into(), json!("array"));
            m.insert("items".into(), json!({"type":"string"}));
            m.insert("maxItems".into(), json!(max));
        }
        Ty::Enum(vals) => {
            m.insert("type".into(), json!("string"));
            m.insert("enum".into(), json!(vals));
        }
    }
    m.insert("description".into(), json!(description));
    Value::Object(m)
}

impl Spec {
    /// The JSON Schema of the input.
    #[must_use]
    pub fn schema(&self) -> Value {
        let mut props = Map::new();
        for fl in self.fields {
            props.insert(fl.name.into(), ty_schema(fl.ty, fl.description));
        }
        let required: Vec<&str> = self
            .fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.name)
            .collect();
        json!({"type":"object","properties":props,"required":required,"additionalProperties":false})
    }

    /// `{name, description, input_schema}`.
    #[must_use]
    pub fn definition(&self) -> ToolDef {
        ToolDef {
            name: self.name.to_string(),
            description: self.description.to_string(),
            input_schema: self.schema(),
        }
    }

    /// Validates raw arguments (spec/sessions.md §2.5 step 3).
    ///
    /// # Errors
    /// `Invalid arguments: <detail>`.
    pub fn validate(&self, raw: &str) -> Result<Map<String, Value>, String> {
        let inv = |d: String| format!("Invalid arguments: {d}");
        let v: Value =
            serde_json::from_str(raw).map_err(|_| inv("arguments are not valid JSON".into()))?;
        let Value::Object(m) = v else {
            return Err(inv("arguments must be a JSON object".into()));
        };
        for k in m.keys() {
            if !self.fields.iter().any(|f| f.name == k) {
                return Err(inv(format!("unknown field \"{k}\"")));
            }
        }
        for fl in self.fields {
            let Some(v) = m.get(fl.name) else {
                if fl.required {
                    return Err(inv(format!("missing field \"{}\"", fl.name)));
                }
                continue;
            };
            let n = fl.name;
            match fl.ty {
                Ty::Str { min, max } => {
                    let Some(s) = v.as_str() else {
                        return Err(inv(format!("{n} must be a string")));
                    };
                    let c = s.chars().count();
                    if c < min || c > max {
                        return Err(inv(if max == ANY {
                            format!("{n} must be at least {min} characters")
                        } else {
                            format!("{n} must be between {min} and {max} characters")
                        }));
                    }
                }
                Ty::StrOrNull => {
                    if !(v.is_string() || v.is_null()) {
                        return Err(inv(format!("{n} must be a string or null")));
                    }
                }
                Ty::Int { min, max } => {
                    let Some(i) = v.as_i64() else {
                        return Err(inv(format!("{n} must be an integer")));
                    };
                    if i < min || i > max {
                        return Err(inv(if max == i64::MAX {
                            format!("{n} must be at least {min}")
                        } else {
                            format!("{n} must be between {min} and {max}")
                        }));
                    }
                }
                Ty::Bool => {
                    if !v.is_boolean() {
                        return Err(inv(format!("{n} must be a boolean")));
                    }
                }
                Ty::StrArray { max } => {
                    let Some(a) = v.as_array() else {
                        return Err(inv(format!("{n} must be an array of strings")));
                    };
                    if a.iter().any(|x| !x.is_string()) {
                        return Err(inv(format!("{n} must be an array of strings")));
                    }
                    if a.len() > max {
                        return Err(inv(format!("{n} must have at most {max} items")));
                    }
                }
                Ty::Enum(vals) => {
                    if !v.as_str().is_some_and(|s| vals.contains(&s)) {
                        return Err(inv(format!("{n} must be one of {}", vals.join(", "))));
                    }
                }
            }
        }
        Ok(m)
    }

    /// The declared path arguments of a validated call.
    #[must_use]
    pub fn declared_paths(&self, args: &Map<String, Value>) -> Vec<String> {
        self.paths
            .iter()
            .filter_map(|(k, d)| {
                args.get(*k)
                    .and_then(Value::as_str)
                    .map(String::from)
                    .or_else(|| d.map(String::from))
            })
            .collect()
    }
}

/// A tool definition as sent to a provider.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// How a tool call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok(String),
    Err(String),
    Cancelled,
}

/// Everything tools need; shared by concurrent read calls.
#[derive(Clone)]
pub struct ToolCtx {
    pub roots: Roots,
    pub session_id: String,
    pub state_dir: PathBuf,
    pub cancel: Arc<AtomicBool>,
    pub bg: Arc<Mutex<bg::Tasks>>,
    pub env: process::ChildEnv,
    /// The sandbox process tools run in (spec/sessions.md §10.4).
    pub sandbox: Arc<alisio_sandbox::Sandbox>,
    /// The sandbox of the coordinator's `glance` commands (spec/sessions.md §12.3): read-only,
    /// no network; `None` outside coordinator mode.
    pub glance_sandbox: Option<Arc<alisio_sandbox::Sandbox>>,
    /// The skill and instruction tools (provided by the runner's context).
    pub context: Arc<dyn super::SessionContext>,
    pub cwd: PathBuf,
}

impl ToolCtx {
    #[must_use]
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// A validated call's arguments as the tool's typed struct (the field names are checked by
/// the compiler and by `deny_unknown_fields`; [`Spec::validate`] already gave the exact error
/// texts, so a failure here means the table and the struct disagree).
fn typed<T: serde::de::DeserializeOwned>(a: &Map<String, Value>) -> Result<T, String> {
    serde_json::from_value(Value::Object(a.clone())).map_err(|e| format!("Invalid arguments: {e}"))
}

/// Runs a validated call whose paths passed confinement.
#[must_use]
pub fn execute(ctx: &ToolCtx, name: &str, a: &Map<String, Value>) -> Outcome {
    let out = match name {
        "read_file" => args::decode(a).and_then(|x| files::read_file(ctx, &x)),
        "write_file" => args::decode(a).and_then(|x| files::write_file(ctx, &x)),
        "edit_file" => args::decode(a).and_then(|x| files::edit_file(ctx, &x)),
        "list_files" => args::decode(a).and_then(|x| files::list_files(ctx, &x)),
        "search_text" => args::decode(a).and_then(|x| search::search_text(ctx, &x)),
        "run_process" => {
            return typed::<process::RunProcessArgs>(a).map_or_else(Outcome::Err, |x| {
                process::run_process(ctx, &process::Call::from(&x))
            });
        }
        "shell" => {
            return typed::<process::ShellArgs>(a).map_or_else(Outcome::Err, |x| {
                process::run_process(ctx, &process::Call::from(&x))
            });
        }
        "glance" => {
            // The runner refused every command outside the ephemeral table (calls.rs); what is
            // left runs under the glance sandbox (read-only where available).
            return typed::<process::ShellArgs>(a).map_or_else(Outcome::Err, |x| {
                let mut g = ctx.clone();
                if let Some(sb) = &ctx.glance_sandbox {
                    g.sandbox = Arc::clone(sb);
                }
                process::run_process(&g, &process::Call::from(&x))
            });
        }
        "bg_run" => typed::<bg::BgRunArgs>(a).and_then(|x| {
            bg::bg_run(
                ctx,
                &x.command,
                x.cwd.as_deref(),
                x.label.as_deref(),
                x.timeout_ms,
            )
        }),
        "bg_output" => typed::<bg::BgOutputArgs>(a)
            .and_then(|x| bg::bg_output(ctx, &x.id, x.offset, x.limit, x.wait_ms)),
        "bg_list" => {
            typed::<bg::BgListArgs>(a).and_then(|x| bg::bg_list(ctx, x.status.as_deref(), x.limit))
        }
        "bg_stop" => typed::<bg::BgStopArgs>(a).and_then(|x| bg::bg_stop(ctx, &x.id)),
        "context_explain" | "skill_load" | "skill_search" | "skill_resource" => {
            match args::ContextTool::decode(name, a) {
                Some(Ok(call)) => ctx.context.tool(&call, &ctx.cwd),
                Some(Err(e)) => Err(e),
                None => Err(format!("Unknown tool: {name}")),
            }
        }
        "test_sleep" => {
            let ms = match args::decode::<args::TestSleep>(a) {
                Ok(x) => x.ms,
                Err(e) => return Outcome::Err(e),
            };
            let end = std::time::Instant::now() + std::time::Duration::from_millis(ms);
            while std::time::Instant::now() < end {
                if ctx.cancelled() {
                    return Outcome::Cancelled;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Ok(json!({"slept":ms}).to_string())
        }
        _ => Err(format!("Unknown tool: {name}")),
    };
    match out {
        Ok(s) => Outcome::Ok(s),
        Err(e) => Outcome::Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_forbid_additional_properties_and_list_required_fields() {
        let s = spec("read_file").unwrap().schema();
        assert_eq!(s["additionalProperties"], json!(false));
        assert_eq!(s["required"], json!(["path"]));
        assert_eq!(s["properties"]["limit"]["maximum"], json!(1000));
    }

    #[test]
    fn every_field_of_the_process_tools_decodes_into_its_typed_struct() {
        let full = |name: &str, raw: &str| spec(name).unwrap().validate(raw).unwrap();
        let r: process::RunProcessArgs = typed(&full(
            "run_process",
            r#"{"command":"git","args":["status"],"cwd":"sub","timeoutMs":5}"#,
        ))
        .unwrap();
        assert_eq!(
            (r.command.as_str(), r.args, r.cwd.as_deref(), r.timeout_ms),
            ("git", vec!["status".to_string()], Some("sub"), Some(5))
        );
        let s: process::ShellArgs = typed(&full(
            "shell",
            r#"{"command":"ls","cwd":".","timeoutMs":9}"#,
        ))
        .unwrap();
        assert_eq!((s.cwd.as_deref(), s.timeout_ms), (Some("."), Some(9)));
        let b: bg::BgRunArgs = typed(&full(
            "bg_run",
            r#"{"command":"x","cwd":".","label":"l","timeoutMs":1000}"#,
        ))
        .unwrap();
        assert_eq!((b.label.as_deref(), b.timeout_ms), (Some("l"), Some(1000)));
        let o: bg::BgOutputArgs = typed(&full(
            "bg_output",
            r#"{"id":"bg-1","offset":3,"limit":4,"waitMs":5}"#,
        ))
        .unwrap();
        assert_eq!((o.offset, o.limit, o.wait_ms), (Some(3), Some(4), Some(5)));
        let l: bg::BgListArgs =
            typed(&full("bg_list", r#"{"status":"running","limit":2}"#)).unwrap();
        assert_eq!((l.status.as_deref(), l.limit), (Some("running"), Some(2)));
        let st: bg::BgStopArgs = typed(&full("bg_stop", r#"{"id":"bg-2"}"#)).unwrap();
        assert_eq!(st.id, "bg-2");
        // The table's messages come first: the structs never see a bad call.
        assert_eq!(
            spec("run_process")
                .unwrap()
                .validate(r#"{"command":"x"}"#)
                .unwrap_err(),
            "Invalid arguments: missing field \"args\""
        );
    }

    #[test]
    fn validation_names_the_field() {
        let r = spec("read_file").unwrap();
        assert_eq!(
            r.validate(r#"{"path":1}"#).unwrap_err(),
            "Invalid arguments: path must be a string"
        );
        assert_eq!(
            r.validate("{}").unwrap_err(),
            "Invalid arguments: missing field \"path\""
        );
        assert_eq!(
            r.validate(r#"{"path":"a","x":1}"#).unwrap_err(),
            "Invalid arguments: unknown field \"x\""
        );
        assert_eq!(
            r.validate(r#"{"path":"a","limit":0}"#).unwrap_err(),
            "Invalid arguments: limit must be between 1 and 1000"
        );
        assert_eq!(
            r.validate("{").unwrap_err(),
            "Invalid arguments: arguments are not valid JSON"
        );
    }
}
