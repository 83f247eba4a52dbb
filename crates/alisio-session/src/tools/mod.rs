//! The tools of spec/sessions.md §3: their schemas (exact, `additionalProperties: false`), argument
//! validation (spec/sessions.md §2.5 step 3), effects, declared paths, and execution.

pub mod args;
pub mod bg;
pub mod confine;
pub mod error;
pub mod files;
pub mod preview;
pub mod process;
pub mod review;
pub mod search;
pub mod specs;
pub mod table;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use confine::Roots;
use error::{ToolError, ToolReturn};

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
pub enum ArgType {
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
    pub ty: ArgType,
    pub required: bool,
    pub description: &'static str,
}

pub(crate) const fn f(
    name: &'static str,
    ty: ArgType,
    required: bool,
    description: &'static str,
) -> Field {
    Field {
        name,
        ty,
        required,
        description,
    }
}

pub(crate) const ANY: usize = usize::MAX;
/// A string of any length.
pub(crate) const STR: ArgType = ArgType::Str { min: 0, max: ANY };
/// `cwd` of the process tools.
pub(crate) const CWD: Field = f(
    "cwd",
    ArgType::Str { min: 0, max: ANY },
    false,
    "Working directory (default the workspace root).",
);
/// `timeoutMs` of the process tools.
pub(crate) const TIMEOUT_MS: Field = f(
    "timeoutMs",
    ArgType::Int {
        min: 1,
        max: 600_000,
    },
    false,
    "Timeout in milliseconds (default 30000).",
);
pub(crate) const TASK_STATES: &[&str] = &[
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
    /// When a session is offered the tool (spec/sessions.md §4.3).
    pub offer: Offer,
    /// Offered to a coordinator's root (spec/sessions.md §12.1).
    pub coordinator: bool,
    /// The Claude Code names an `allowed-tools` entry maps to this tool (spec/sessions.md §12.7).
    pub aliases: &'static [&'static str],
    /// Its results reach the model whole, never cut at the view cap (skill bodies are
    /// protected, `result_read` pages itself, a sub-agent's answer is its only channel back).
    pub whole: bool,
    /// Where the call runs.
    pub runs: Runs,
}

/// When a session is offered a tool (spec/sessions.md §4.3, §9, §12.1, §12.7), in this order:
/// the skill tools go by the listed skills, then a coordinator's root is offered
/// [`Spec::coordinator`] tools only, then the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// When the session lists skills.
    WithSkills,
    /// When the session lists skills, in root sessions only.
    WithSkillsAtRoot,
    /// Only to a coordinator's root.
    CoordinatorOnly,
    /// When process calls are not denied (the background tools).
    WithProcesses,
    /// Always: the tool list, and with it the prompt cache, never changes.
    Always,
    /// Root sessions with sub-agents enabled, and a coordinator's root (spec/sessions.md §9).
    SubAgents,
    /// When the policy of its effect is not `deny`.
    ByPolicy,
}

/// What the session a request is for allows, as [`Offer`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seating {
    pub skills: bool,
    pub child: bool,
    pub coordinator: bool,
    pub sub_agents: bool,
    /// Process calls are not denied.
    pub processes: bool,
}

impl Offer {
    /// Whether a tool with this offer is offered; `by_policy` is the answer of its effect's policy.
    #[must_use]
    pub fn offered(self, coordinator_tool: bool, seat: Seating, by_policy: bool) -> bool {
        match self {
            Self::WithSkills => seat.skills,
            Self::WithSkillsAtRoot => seat.skills && !seat.child,
            _ if seat.coordinator => coordinator_tool,
            Self::CoordinatorOnly => false,
            Self::WithProcesses => seat.processes,
            Self::Always => true,
            Self::SubAgents => seat.sub_agents,
            Self::ByPolicy => by_policy,
        }
    }
}

/// Where a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// [`Tool::execute`] on a thread (plain reads in parallel batches of up to four).
    Thread,
    /// The runner reads the session's store (`result_read`).
    Store,
    /// The runner runs a sub-agent session (`task`).
    Child,
    /// The runner runs a skill in a sub-session (`skill_run`).
    Skill,
}

/// The write tools' result shapes (spec/sessions.md §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writes {
    /// The whole text (`write_file`: the result has `bytes` and `created`).
    Whole,
    /// One replacement (`edit_file`).
    Edit,
}

/// One tool: its table entry ([`Spec`]) and everything that differs from tool to tool. Every
/// caller reaches a tool through [`TOOLS`](table::TOOLS) ([`tool`]); nothing else switches on
/// a tool's name.
pub trait Tool: Sync {
    /// The table entry.
    fn spec(&self) -> &'static Spec;

    /// The definition sent to a provider; `skill_names` is the catalog when it fits the enum
    /// bound (only `skill_load` uses it).
    fn definition(&self, _skill_names: Option<&[String]>) -> ToolDef {
        self.spec().definition()
    }

    /// Runs a validated call whose paths passed confinement ([`Runs::Thread`] tools).
    fn execute(&self, _ctx: &ToolCtx, _args: &Map<String, Value>) -> CallOutcome {
        CallOutcome::Err(format!("Unknown tool: {}", self.spec().name))
    }

    /// The one-line summary an approval request shows (before ellipsizing).
    fn summary(&self, _args: &Map<String, Value>, _paths_shown: &[String]) -> String {
        format!("Run {}", self.spec().name)
    }

    /// What the call would do, shown before it is approved (`preview.rs`).
    fn preview(
        &self,
        _fs: &dyn alisio_base::workspace::Fs,
        _args: &Map<String, Value>,
        _target: Option<&confine::Confined>,
    ) -> Option<Value> {
        None
    }

    /// The command line of a process call that runs a command under the sandbox (the
    /// approval's sandbox note, the workbench's runs).
    fn command_line(&self, _args: &Map<String, Value>) -> Option<String> {
        None
    }

    /// A refusal decided from the validated arguments before anything runs (`glance` outside
    /// the ephemeral table, spec/sessions.md §12.3).
    fn refusal(&self, _args: &Map<String, Value>) -> Option<String> {
        None
    }

    /// The write tools' result shape.
    fn writes(&self) -> Option<Writes> {
        None
    }
}

impl std::fmt::Debug for dyn Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Tool").field(&self.spec().name).finish()
    }
}

/// Whether the test tools are compiled in and switched on.
#[must_use]
pub fn test_tools_enabled() -> bool {
    cfg!(all(debug_assertions, feature = "test-tools"))
        && std::env::var("ALISIO_TEST_TOOLS").is_ok_and(|v| v == "1")
}

/// A tool by name (the table, plus `test_sleep` when enabled).
#[must_use]
pub fn tool(name: &str) -> Option<&'static dyn Tool> {
    table::TOOLS
        .iter()
        .copied()
        .find(|t| t.spec().name == name)
        .or_else(|| {
            (name == specs::TEST_SLEEP.name && test_tools_enabled())
                .then_some(&table::TestSleep as &dyn Tool)
        })
}

/// The table entry of a tool by name ([`tool`]).
#[must_use]
pub fn spec(name: &str) -> Option<&'static Spec> {
    tool(name).map(Tool::spec)
}

fn ty_schema(ty: ArgType, description: &str) -> Value {
    let mut m = Map::new();
    match ty {
        ArgType::Str { min, max } => {
            m.insert("type".into(), json!("string"));
            if min > 0 {
                m.insert("minLength".into(), json!(min));
            }
            if max != ANY {
                m.insert("maxLength".into(), json!(max));
            }
        }
        ArgType::StrOrNull => {
            m.insert("type".into(), json!(["string", "null"]));
        }
        ArgType::Int { min, max } => {
            m.insert("type".into(), json!("integer"));
            m.insert("minimum".into(), json!(min));
            if max != i64::MAX {
                m.insert("maximum".into(), json!(max));
            }
        }
        ArgType::Bool => {
            m.insert("type".into(), json!("boolean"));
        }
        ArgType::StrArray { max } => {
            m.insert("type".into(), json!("array"));
            m.insert("items".into(), json!({"type":"string"}));
            m.insert("maxItems".into(), json!(max));
        }
        ArgType::Enum(vals) => {
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
    pub fn validate(&self, raw: &str) -> ToolReturn<Map<String, Value>> {
        let inv = ToolError::InvalidArguments;
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
                ArgType::Str { min, max } => {
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
                ArgType::StrOrNull => {
                    if !(v.is_string() || v.is_null()) {
                        return Err(inv(format!("{n} must be a string or null")));
                    }
                }
                ArgType::Int { min, max } => {
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
                ArgType::Bool => {
                    if !v.is_boolean() {
                        return Err(inv(format!("{n} must be a boolean")));
                    }
                }
                ArgType::StrArray { max } => {
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
                ArgType::Enum(vals) => {
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
pub enum CallOutcome {
    Ok(String),
    Err(String),
    Cancelled,
}

impl CallOutcome {
    /// The error result of `e` (its text, as the model reads it).
    #[must_use]
    pub fn error(e: ToolError) -> Self {
        Self::Err(e.to_string())
    }
}

/// Everything tools need; shared by concurrent read calls.
#[derive(Clone)]
pub struct ToolCtx {
    pub roots: Roots,
    pub session_id: String,
    pub state_dir: PathBuf,
    pub cancel: Arc<AtomicBool>,
    pub background_tasks: Arc<Mutex<bg::Tasks>>,
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
pub(crate) fn typed<T: serde::de::DeserializeOwned>(a: &Map<String, Value>) -> ToolReturn<T> {
    serde_json::from_value(Value::Object(a.clone()))
        .map_err(|e| ToolError::InvalidArguments(e.to_string()))
}

/// Runs a validated call whose paths passed confinement.
#[must_use]
pub fn execute(ctx: &ToolCtx, name: &str, a: &Map<String, Value>) -> CallOutcome {
    match tool(name) {
        Some(t) => t.execute(ctx, a),
        None => CallOutcome::Err(format!("Unknown tool: {name}")),
    }
}

impl From<ToolReturn> for CallOutcome {
    fn from(r: ToolReturn) -> Self {
        match r {
            Ok(s) => Self::Ok(s),
            Err(e) => Self::Err(e.to_string()),
        }
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
                .unwrap_err()
                .to_string(),
            "Invalid arguments: missing field \"args\""
        );
    }

    #[test]
    fn validation_names_the_field() {
        let r = spec("read_file").unwrap();
        assert_eq!(
            r.validate(r#"{"path":1}"#).unwrap_err().to_string(),
            "Invalid arguments: path must be a string"
        );
        assert_eq!(
            r.validate("{}").unwrap_err().to_string(),
            "Invalid arguments: missing field \"path\""
        );
        assert_eq!(
            r.validate(r#"{"path":"a","x":1}"#).unwrap_err().to_string(),
            "Invalid arguments: unknown field \"x\""
        );
        assert_eq!(
            r.validate(r#"{"path":"a","limit":0}"#)
                .unwrap_err()
                .to_string(),
            "Invalid arguments: limit must be between 1 and 1000"
        );
        assert_eq!(
            r.validate("{").unwrap_err().to_string(),
            "Invalid arguments: arguments are not valid JSON"
        );
    }
}
