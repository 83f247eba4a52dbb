//! GitHub Copilot in VS Code: custom agents and prompt files (spec/instructions.md §10.9).
//!
//! VS Code cannot run offline here, so this follows its source, microsoft/vscode,
//! `src/vs/workbench/contrib/chat/common/promptSyntax/` (commits as stored in the reference
//! index):
//!
//! - `config/promptFileLocations.ts` @ 0783120be12fa4dd908032c290f8fa00070deff9: the
//!   extensions `.agent.md`, `.prompt.md`, the legacy `.chatmode.md`; the default folders
//!   `.github/agents` (`DEFAULT_AGENT_SOURCE_FOLDERS`), `.github/prompts`
//!   (`DEFAULT_PROMPT_SOURCE_FOLDERS`) and `.github/chatmodes`
//!   (`LEGACY_MODE_DEFAULT_SOURCE_FOLDER`, still the default of the deprecated mode-locations
//!   setting); a `.md` other than `README.md` directly in `.github/agents` is an agent too
//!   (`getPromptFileType`); the name without a `name` header is the file name less its
//!   extension (`getCleanPromptName`);
//! - `languageProviders/promptValidator.ts` @ 0783120be12fa4dd908032c290f8fa00070deff9: the
//!   header attributes each file type accepts (`allAttributeNames`,
//!   `githubCopilotAgentAttributeNames`), the messages and severities reproduced below (the
//!   checks that need VS Code's runtime, known tools, models and agents, are not made);
//! - `computeAutomaticInstructions.ts` @ 0155379dd454c4c093441a632fb9d3df2a432a3b: what is
//!   sent for agents: an `<agents>` block in the instructions of every request when the
//!   `runSubagent` tool is enabled and the `ChatConfiguration.SubagentToolCustomAgents` setting
//!   is on (its default differs between stored copies of `chat.contribution.ts`: `false` and
//!   experimental, later `true` under an experiment; counted as on), one `<agent>` per custom
//!   agent (`<name>`, `<description>`
//!   and `<argumentHint>` lines) except those the model may not invoke; prompt files appear in
//!   no such list: their text is sent only when the user runs `/name`.
//!
//! The user-profile folders (the profile's `prompts` folder) are not read.

use std::path::{Path, PathBuf};

use alisio_base::config::Profile;
use alisio_base::diagnostic::{Code, Diagnostic, Severity};
use alisio_base::text::{LineIndex, TextRange};
use alisio_base::workspace::{FileType, Fs};

use super::{FILE_LIMIT, Family, FamilyEntry, FamilyScope, Startup};
use crate::skills::frontmatter::{self, Found, Node, ScalarKind, Value};

/// The VS Code source the Copilot family follows (its validator's commit).
pub const SOURCE: &str = "microsoft/vscode promptSyntax @ 0783120be12f (promptValidator.ts, promptFileLocations.ts) and 0155379dd454 (computeAutomaticInstructions.ts)";

/// Why a prompt file costs nothing at startup.
pub const PROMPT_REASON: &str = "sent only when the user runs it as a slash command; VS Code lists no prompt files to the model";

/// The kind of a Copilot file, as `getPromptFileType` decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopilotKind {
    /// `.github/agents/*.agent.md` (or another `.md` but `README.md` there).
    Agent,
    /// `.github/chatmodes/*.chatmode.md`, read as an agent.
    LegacyMode,
    /// `.github/prompts/*.prompt.md`.
    Prompt,
}

fn in_dir(path: &Path, a: &str, b: &str) -> bool {
    let Some(d) = path.parent() else {
        return false;
    };
    d.file_name().is_some_and(|n| n == b)
        && d.parent().and_then(Path::file_name).is_some_and(|n| n == a)
}

/// The Copilot kind of `path`, for the files in the folders VS Code reads by default.
#[must_use]
pub fn kind_of(path: &Path) -> Option<CopilotKind> {
    let name = path.file_name()?.to_str()?;
    if in_dir(path, ".github", "agents") && name.ends_with(".md") && name != "README.md" {
        return Some(CopilotKind::Agent);
    }
    if in_dir(path, ".github", "chatmodes") && name.ends_with(".chatmode.md") {
        return Some(CopilotKind::LegacyMode);
    }
    if in_dir(path, ".github", "prompts") && name.ends_with(".prompt.md") {
        return Some(CopilotKind::Prompt);
    }
    None
}

/// `getCleanPromptName`: the file name less `.prompt.md`, `.chatmode.md`, `.agent.md` or `.md`.
fn clean_name(path: &Path) -> String {
    let n = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    for ext in [".prompt.md", ".chatmode.md", ".agent.md", ".md"] {
        if let Some(s) = n.strip_suffix(ext) {
            return s.to_string();
        }
    }
    n.to_string()
}

/// The header attributes of an agent file (`allAttributeNames[agent]`), each with the hover
/// text of `getAttributeDescription` (where it has one).
pub const AGENT_KEYS: [(&str, &str); 12] = [
    ("name", "The name of the agent as shown in the UI."),
    (
        "description",
        "The description of the custom agent, what it does and when to use it.",
    ),
    (
        "argument-hint",
        "The argument-hint describes what inputs the custom agent expects or supports.",
    ),
    (
        "model",
        "Specify the model that runs this custom agent. Can also be a list of models. The first available model will be used.",
    ),
    (
        "tools",
        "The set of tools that the custom agent has access to.",
    ),
    (
        "handoffs",
        "Possible handoff actions when the agent has completed its task.",
    ),
    (
        "target",
        "The target to which the header attributes like tools apply to. Possible values are `github-copilot` and `vscode`.",
    ),
    (
        "agents",
        "One or more agents that this agent can use as subagents. Use '*' to specify all available agents.",
    ),
    (
        "user-invokable",
        "Whether the agent can be selected and invoked by users in the UI.",
    ),
    (
        "disable-model-invocation",
        "If true, prevents the agent from being invoked as a subagent.",
    ),
    (
        "infer",
        "Controls visibility of the agent. Deprecated in favour of `user-invokable` and `disable-model-invocation`.",
    ),
    ("advancedOptions", "Advanced options (not recommended)."),
];

/// The header attributes of a prompt file (`allAttributeNames[prompt]`).
pub const PROMPT_KEYS: [(&str, &str); 7] = [
    (
        "name",
        "The name of the prompt. This is also the name of the slash command that will run this prompt.",
    ),
    (
        "description",
        "The description of the reusable prompt, what it does and when to use it.",
    ),
    (
        "argument-hint",
        "The argument-hint describes what inputs the prompt expects or supports.",
    ),
    (
        "model",
        "The model to use in this prompt. Can also be a list of models. The first available model will be used.",
    ),
    ("tools", "The tools to use in this prompt."),
    ("agent", "The agent to use when running this prompt."),
    (
        "mode",
        "The agent to use when running this prompt. Deprecated: use `agent`.",
    ),
];

/// `githubCopilotAgentAttributeNames`: an agent with `target: github-copilot`.
const GITHUB_AGENT_KEYS: [&str; 6] = [
    "name",
    "description",
    "tools",
    "target",
    "mcp-servers",
    "infer",
];

/// The keys VS Code lists after `Supported:` (its recommended ones, `sort()`ed).
fn supported(kind: CopilotKind, github: bool) -> String {
    let mut v: Vec<&str> = if github {
        GITHUB_AGENT_KEYS.to_vec()
    } else if kind == CopilotKind::Prompt {
        PROMPT_KEYS.iter().map(|(k, _)| *k).collect()
    } else {
        AGENT_KEYS.iter().map(|(k, _)| *k).collect()
    };
    if !github {
        v.retain(|k| !matches!(*k, "advancedOptions" | "mode" | "infer"));
    }
    v.sort_unstable();
    v.join(", ")
}

/// The keys the editor completes and explains for `kind`.
#[must_use]
pub fn keys(kind: CopilotKind) -> &'static [(&'static str, &'static str)] {
    match kind {
        CopilotKind::Prompt => &PROMPT_KEYS,
        CopilotKind::Agent | CopilotKind::LegacyMode => &AGENT_KEYS,
    }
}

/// One header attribute: key, its range to the end of the value (VS Code's `attribute.range`)
/// and the value.
struct Attr<'a> {
    key: &'a str,
    range: TextRange,
    value: &'a Node,
}

enum Ty {
    Str,
    Bool,
    Array,
    Object,
    Other,
}

fn ty(n: &Node) -> Ty {
    match &n.value {
        Value::Scalar {
            kind: ScalarKind::Str,
            ..
        } => Ty::Str,
        Value::Scalar {
            kind: ScalarKind::Bool(_),
            ..
        } => Ty::Bool,
        Value::Seq(_) => Ty::Array,
        Value::Map(_) => Ty::Object,
        _ => Ty::Other,
    }
}

fn blank(n: &Node) -> bool {
    n.as_str().is_some_and(|s| s.trim().is_empty())
}

/// A file read: its header attributes and the diagnostics of VS Code's validator.
pub struct JudgedCopilotFile {
    pub name: String,
    pub description: Option<String>,
    pub argument_hint: Option<String>,
    /// `disable-model-invocation: true` or `infer: false`: not listed for subagents.
    pub hidden: Option<&'static str>,
    pub diagnostics: Vec<Diagnostic>,
}

struct Out<'a> {
    file: &'a Path,
    index: LineIndex<'a>,
    diags: Vec<Diagnostic>,
}

impl Out<'_> {
    fn push(&mut self, r: TextRange, sev: Severity, code: Code, msg: impl Into<String>) {
        self.diags.push(Diagnostic::new(
            self.file,
            self.index.span(r),
            sev,
            code,
            msg,
        ));
    }
    fn invalid(&mut self, r: TextRange, msg: impl Into<String>) {
        self.push(r, Severity::Error, Code::CopilotAttributeInvalid, msg);
    }
}

/// `validateName`, `validateDescription`, `validateArgumentHint`: a string, not blank.
fn string_attr(o: &mut Out<'_>, a: &Attr<'_>, empty: &str) {
    match ty(a.value) {
        Ty::Str if blank(a.value) => {
            o.invalid(a.value.span, format!("The '{}' attribute {empty}.", a.key))
        }
        Ty::Str => {}
        _ => o.invalid(
            a.range,
            format!("The '{}' attribute must be a string.", a.key),
        ),
    }
}

fn bool_attr(o: &mut Out<'_>, a: &Attr<'_>) {
    if !matches!(ty(a.value), Ty::Bool) {
        o.invalid(
            a.value.span,
            format!("The '{}' attribute must be a boolean.", a.key),
        );
    }
}

fn items(n: &Node) -> &[Node] {
    match &n.value {
        Value::Seq(v) => v,
        _ => &[],
    }
}

fn model(o: &mut Out<'_>, a: &Attr<'_>) {
    match ty(a.value) {
        Ty::Str if blank(a.value) => o.invalid(
            a.value.span,
            "The 'model' attribute must be a non-empty string.",
        ),
        Ty::Str => {}
        Ty::Array if items(a.value).is_empty() => {
            o.invalid(a.value.span, "The 'model' array must not be empty.");
        }
        Ty::Array => {
            for i in items(a.value) {
                if !matches!(ty(i), Ty::Str) {
                    o.invalid(i.span, "The 'model' array must contain only strings.");
                    return;
                }
                if blank(i) {
                    o.invalid(
                        i.span,
                        "Model names in the array must be non-empty strings.",
                    );
                    return;
                }
            }
        }
        _ => o.invalid(
            a.value.span,
            "The 'model' attribute must be a string or an array of strings.",
        ),
    }
}

/// `validateTools`, `validateAgentsAttribute`: an array of strings.
fn string_array(o: &mut Out<'_>, a: &Attr<'_>, each: &str, check_items: bool) {
    if !matches!(ty(a.value), Ty::Array) {
        o.invalid(
            a.value.span,
            format!("The '{}' attribute must be an array.", a.key),
        );
        return;
    }
    if check_items {
        for i in items(a.value) {
            if !matches!(ty(i), Ty::Str) {
                o.invalid(i.span, each.to_string());
            }
        }
    }
}

fn target(o: &mut Out<'_>, a: &Attr<'_>) {
    match ty(a.value) {
        Ty::Str => {
            let v = a.value.as_str().unwrap_or_default().trim();
            if v.is_empty() {
                o.invalid(
                    a.value.span,
                    "The 'target' attribute must be a non-empty string.",
                );
            } else if !matches!(v, "github-copilot" | "vscode") {
                o.invalid(
                    a.value.span,
                    "The 'target' attribute must be one of: github-copilot, vscode.",
                );
            }
        }
        _ => o.invalid(a.value.span, "The 'target' attribute must be a string."),
    }
}

fn handoffs(o: &mut Out<'_>, a: &Attr<'_>) {
    if !matches!(ty(a.value), Ty::Array) {
        o.invalid(a.value.span, "The 'handoffs' attribute must be an array.");
        return;
    }
    for item in items(a.value) {
        let Value::Map(props) = &item.value else {
            o.invalid(item.span, "Each handoff in the 'handoffs' attribute must be an object with 'label', 'agent', 'prompt' and optional 'send'.");
            continue;
        };
        let mut required = vec!["label", "agent", "prompt"];
        for (k, v) in props {
            let key = k.scalar_text().unwrap_or_default();
            let non_empty = matches!(ty(v), Ty::Str) && !blank(v);
            match key {
                "label" | "agent" if !non_empty => o.invalid(
                    v.span,
                    format!("The '{key}' property in a handoff must be a non-empty string."),
                ),
                "prompt" | "model" if !matches!(ty(v), Ty::Str) => o.invalid(
                    v.span,
                    format!("The '{key}' property in a handoff must be a string."),
                ),
                "send" | "showContinueOn" if !matches!(ty(v), Ty::Bool) => o.invalid(
                    v.span,
                    format!("The '{key}' property in a handoff must be a boolean."),
                ),
                "label" | "agent" | "prompt" | "model" | "send" | "showContinueOn" => {}
                _ => o.push(
                    v.span,
                    Severity::Warning,
                    Code::CopilotAttributeUnknown,
                    format!("Unknown property '{key}' in handoff object. Supported properties are 'label', 'agent', 'prompt' and optional 'send', 'showContinueOn', 'model'."),
                ),
            }
            required.retain(|r| *r != key);
        }
        if !required.is_empty() {
            let names: Vec<String> = required.iter().map(|r| format!("'{r}'")).collect();
            o.invalid(
                item.span,
                format!(
                    "Missing required properties {} in handoff object.",
                    names.join(", ")
                ),
            );
        }
    }
}

/// Reads and validates one Copilot file the way VS Code's `PromptValidator` does (the checks
/// that need VS Code's runtime excepted: known tools, models and agents).
#[must_use]
pub fn judge_text(path: &Path, text: &str, kind: CopilotKind) -> JudgedCopilotFile {
    let mut o = Out {
        file: path,
        index: LineIndex::new(text),
        diags: Vec::new(),
    };
    let mut j = JudgedCopilotFile {
        name: clean_name(path),
        description: None,
        argument_hint: None,
        hidden: None,
        diagnostics: Vec::new(),
    };
    // `PromptFileParser.parse`: a header only when the first line is `---` (trailing blanks
    // allowed); an unclosed header runs to the end of the file.
    let fm = match frontmatter::find_block(text, false, Profile::Codex) {
        Found::Block(b) => Some(frontmatter::parse_yaml(text, b.yaml, Profile::ClaudeCode)),
        Found::Unterminated(_) => {
            let next = frontmatter::lines_from(text, 0)
                .next()
                .map_or(text.len(), |l| l.next);
            let yaml = TextRange::new(next, text.len());
            Some(frontmatter::parse_yaml(text, yaml, Profile::ClaudeCode))
        }
        Found::Missing(_) => None,
    };
    if let Some(fm) = &fm {
        if let Some(e) = &fm.error {
            let line = text[..e.at.min(text.len())]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            let end = text[e.at.min(text.len())..]
                .find('\n')
                .map_or(text.len(), |i| e.at + i);
            if e.whole {
                o.push(
                    TextRange::new(line, end),
                    Severity::Error,
                    Code::CopilotHeaderInvalid,
                    "Invalid header, expecting <key: value> pairs",
                );
            } else {
                o.push(
                    TextRange::new(e.at.min(text.len()), end.max(e.at.min(text.len()))),
                    Severity::Error,
                    Code::CopilotHeaderInvalid,
                    format!(
                        "the header is not valid YAML: {}; VS Code reports its parser's error and reads no attribute after it",
                        e.message
                    ),
                );
            }
        }
        let attrs: Vec<Attr<'_>> = fm
            .entries
            .iter()
            .map(|e| Attr {
                key: &e.key,
                range: TextRange::new(e.key_span.start, e.value.span.end.max(e.key_span.end)),
                value: &e.value,
            })
            .collect();
        validate(&mut o, &mut j, kind, &attrs);
    }
    if kind == CopilotKind::LegacyMode {
        // `validateFileName`: Range(1, 1, 1, 4).
        let end = text.find(['\r', '\n']).unwrap_or(text.len()).min(3);
        o.push(
            TextRange::new(0, end),
            Severity::Warning,
            Code::CopilotChatmodeRenamed,
            "Chat modes have been renamed to agents. Please move the file to .github/agents",
        );
    }
    j.diagnostics = o.diags;
    j
}

/// `checkForInvalidArguments`.
fn unknown_attributes(o: &mut Out<'_>, kind: CopilotKind, github: bool, attrs: &[Attr<'_>]) {
    for a in attrs {
        let valid = if github {
            GITHUB_AGENT_KEYS.contains(&a.key)
        } else {
            keys(kind).iter().any(|(k, _)| *k == a.key)
        };
        if valid {
            continue;
        }
        let sup = supported(kind, github);
        if kind == CopilotKind::Prompt {
            o.push(
                a.range,
                Severity::Warning,
                Code::CopilotAttributeUnknown,
                format!(
                    "Attribute '{}' is not supported in prompt files. Supported: {sup}.",
                    a.key
                ),
            );
        } else if github {
            o.push(a.range, Severity::Warning, Code::CopilotAttributeUnknown, format!("Attribute '{}' is not supported in custom GitHub Copilot agent files. Supported: {sup}.", a.key));
        } else if GITHUB_AGENT_KEYS.contains(&a.key) {
            o.push(
                a.range,
                Severity::Information,
                Code::CopilotAttributeIgnored,
                format!(
                    "Attribute '{}' is ignored when running locally in VS Code.",
                    a.key
                ),
            );
        } else {
            o.push(
                a.range,
                Severity::Warning,
                Code::CopilotAttributeUnknown,
                format!(
                    "Attribute '{}' is not supported in VS Code agent files. Supported: {sup}.",
                    a.key
                ),
            );
        }
    }
}

fn validate(o: &mut Out<'_>, j: &mut JudgedCopilotFile, kind: CopilotKind, attrs: &[Attr<'_>]) {
    let get = |k: &str| attrs.iter().find(|a| a.key == k);
    let is_agent = kind != CopilotKind::Prompt;
    // `header.target`: the string value, as written.
    let github = is_agent && get("target").and_then(|a| a.value.as_str()) == Some("github-copilot");
    unknown_attributes(o, kind, github, attrs);
    if let Some(a) = get("name") {
        string_attr(o, a, "must not be empty");
        if let Some(n) = a.value.as_str().filter(|s| !s.trim().is_empty()) {
            j.name = n.to_string();
        }
    }
    if let Some(a) = get("description") {
        string_attr(o, a, "should not be empty");
        j.description = a.value.as_str().map(str::to_string);
    }
    if let Some(a) = get("argument-hint") {
        string_attr(o, a, "should not be empty");
        j.argument_hint = a.value.as_str().map(str::to_string);
    }
    let tools = |o: &mut Out<'_>| {
        if let Some(a) = get("tools") {
            // No check of the items for `target: github-copilot`.
            string_array(
                o,
                a,
                "Each tool name in the 'tools' attribute must be a string.",
                !github,
            );
        }
    };
    if kind == CopilotKind::Prompt {
        // `validateAgent`.
        let agent = get("agent");
        if let Some(m) = get("mode") {
            if agent.is_some() {
                o.push(m.range, Severity::Warning, Code::CopilotAttributeDeprecated, "The 'mode' attribute has been deprecated. The 'agent' attribute is used instead.");
            } else {
                o.push(
                    m.range,
                    Severity::Error,
                    Code::CopilotAttributeDeprecated,
                    "The 'mode' attribute has been deprecated. Please rename it to 'agent'.",
                );
            }
        }
        if let Some(a) = agent.or_else(|| get("mode")) {
            match ty(a.value) {
                Ty::Str if blank(a.value) => o.invalid(
                    a.value.span,
                    format!("The '{}' attribute must be a non-empty string.", a.key),
                ),
                Ty::Str => {}
                _ => o.invalid(
                    a.value.span,
                    format!("The '{}' attribute must be a string.", a.key),
                ),
            }
        }
        tools(o);
        if let Some(a) = get("model") {
            model(o, a);
        }
        return;
    }
    if let Some(a) = get("target") {
        target(o, a);
    }
    if let Some(a) = get("infer") {
        o.push(
            a.value.span,
            Severity::Error,
            Code::CopilotAttributeDeprecated,
            "The 'infer' attribute is deprecated in favour of 'user-invokable' and 'disable-model-invocation'.",
        );
    }
    if let Some(a) = get("user-invokable") {
        bool_attr(o, a);
    }
    if let Some(a) = get("disable-model-invocation") {
        bool_attr(o, a);
    }
    tools(o);
    if !github {
        if let Some(a) = get("model") {
            model(o, a);
        }
        if let Some(a) = get("handoffs") {
            handoffs(o, a);
        }
        if let Some(a) = get("agents") {
            string_array(
                o,
                a,
                "Each agent name in the 'agents' attribute must be a string.",
                true,
            );
        }
    }
    let is_true = |k: &str, b: bool| {
        get(k).is_some_and(|a| {
            matches!(
                a.value.value,
                Value::Scalar {
                    kind: ScalarKind::Bool(v),
                    ..
                } if v == b
            )
        })
    };
    j.hidden = if is_true("disable-model-invocation", true) {
        Some("disable-model-invocation: true")
    } else if is_true("infer", false) {
        Some("infer: false")
    } else {
        None
    };
}

/// The `*.md` files directly in `dir` that are of `kind`, in name order.
fn files(fs: &dyn Fs, dir: &Path, kind: CopilotKind) -> Vec<PathBuf> {
    let Ok(entries) = fs.read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .into_iter()
        .filter(|e| e.file_type == FileType::File)
        .filter_map(|e| e.name.to_str().map(|n| dir.join(n)))
        .filter(|p| kind_of(p) == Some(kind))
        .collect();
    out.sort();
    out
}

fn read_text(fs: &dyn Fs, p: &Path) -> Option<String> {
    let b = fs.read_prefix(p, FILE_LIMIT).ok()?;
    let t = String::from_utf8_lossy(&b).into_owned();
    Some(t.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(t))
}

/// The `<agent>` entry of the `<agents>` block (`_getInstructionsWithPatternsList`), its lines
/// joined by line breaks.
#[must_use]
pub fn agent_text(name: &str, description: Option<&str>, hint: Option<&str>) -> String {
    let mut lines = vec!["<agent>".to_string(), format!("<name>{name}</name>")];
    if let Some(d) = description.filter(|d| !d.is_empty()) {
        lines.push(format!("<description>{d}</description>"));
    }
    if let Some(h) = hint.filter(|h| !h.is_empty()) {
        lines.push(format!("<argumentHint>{h}</argumentHint>"));
    }
    lines.push("</agent>".into());
    lines.join("\n")
}

/// What Copilot in VS Code sends at startup for the workspace folder `root`: the custom
/// agents of `.github/agents` and `.github/chatmodes` in the `<agents>` block, and the prompt
/// files of `.github/prompts`, which cost nothing until run.
#[must_use]
pub fn startup(fs: &dyn Fs, root: &Path) -> Startup {
    let mut s = Startup::default();
    let github = root.join(".github");
    let mut agents = files(fs, &github.join("agents"), CopilotKind::Agent);
    agents.extend(files(
        fs,
        &github.join("chatmodes"),
        CopilotKind::LegacyMode,
    ));
    for p in agents {
        let Some(text) = read_text(fs, &p) else {
            continue;
        };
        s.files.push(p.clone());
        let kind = kind_of(&p).unwrap_or(CopilotKind::Agent);
        let j = judge_text(&p, &text, kind);
        s.diagnostics.extend(j.diagnostics);
        s.entries.push(FamilyEntry {
            family: Family::Agent,
            text: Some(agent_text(
                &j.name,
                j.description.as_deref(),
                j.argument_hint.as_deref(),
            )),
            name: j.name,
            file: p,
            scope: FamilyScope::Project,
            description: j.description.unwrap_or_default(),
            detail: j
                .hidden
                .filter(|h| *h != "disable-model-invocation: true")
                .unwrap_or_default()
                .to_string(),
            shadowed_by: None,
            hidden: j.hidden.map(|h| {
                if h == "disable-model-invocation: true" {
                    h.to_string()
                } else {
                    format!("{h}: not offered as a subagent")
                }
            }),
        });
    }
    for p in files(fs, &github.join("prompts"), CopilotKind::Prompt) {
        let Some(text) = read_text(fs, &p) else {
            continue;
        };
        s.files.push(p.clone());
        let j = judge_text(&p, &text, CopilotKind::Prompt);
        s.diagnostics.extend(j.diagnostics);
        s.entries.push(FamilyEntry {
            family: Family::Command,
            text: None,
            name: format!("/{}", j.name),
            file: p,
            scope: FamilyScope::Project,
            description: j.description.unwrap_or_default(),
            detail: PROMPT_REASON.to_string(),
            shadowed_by: None,
            hidden: Some(PROMPT_REASON.to_string()),
        });
    }
    s
}

/// The hover at byte `offset` of a Copilot file: the meaning of a header attribute (VS Code's
/// `getAttributeDescription`), and on an agent's `name`, `description` or `argument-hint` the
/// `<agent>` entry VS Code sends; on a prompt file's, that nothing is sent until it is run.
#[must_use]
pub fn hover(path: &Path, text: &str, offset: usize) -> Option<String> {
    let kind = kind_of(path)?;
    let doc = super::markdown::read(text);
    let field = doc
        .fields
        .iter()
        .find(|f| f.key_span.start <= offset && offset <= f.key_span.end)?;
    let (_, what) = keys(kind).iter().find(|(k, _)| *k == field.key)?;
    let file = if kind == CopilotKind::Prompt {
        "prompt file"
    } else {
        "custom agent"
    };
    let mut out = format!(
        "**{}** ({file} header, GitHub Copilot in VS Code)\n\n{what}",
        field.key
    );
    if matches!(field.key.as_str(), "name" | "description" | "argument-hint") {
        let j = judge_text(path, text, kind);
        if kind == CopilotKind::Prompt {
            out.push_str(&format!(
                "\n\nVS Code sends nothing for `/{}` at startup: the prompt is sent when the user runs it.",
                j.name
            ));
        } else if let Some(h) = j.hidden {
            out.push_str(&format!(
                "\n\n`{h}`: VS Code does not list this agent for subagents."
            ));
        } else {
            let t = agent_text(
                &j.name,
                j.description.as_deref(),
                j.argument_hint.as_deref(),
            );
            out.push_str(&format!(
                "\n\nVS Code lists this agent in the `<agents>` block of every request as:\n\n```\n{t}\n```"
            ));
        }
    }
    Some(out)
}

/// The header attributes to offer at byte `offset` of a Copilot file: inside the `---` block
/// at the start of a line, the recommended attributes of the file type not yet written.
#[must_use]
pub fn completions(path: &Path, text: &str, offset: usize) -> Vec<(&'static str, &'static str)> {
    let Some(kind) = kind_of(path) else {
        return Vec::new();
    };
    let doc = super::markdown::read(text);
    let Some(block) = doc.block else {
        return Vec::new();
    };
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let inside = offset > block.start + 3 && offset < block.end.saturating_sub(3);
    let prefix = &text[line_start..offset];
    if !inside || prefix.contains(':') || prefix.starts_with(char::is_whitespace) {
        return Vec::new();
    }
    keys(kind)
        .iter()
        .filter(|(k, _)| !matches!(*k, "advancedOptions" | "mode" | "infer"))
        .filter(|(k, _)| doc.get(k).is_none() && k.starts_with(prefix))
        .copied()
        .collect()
}
