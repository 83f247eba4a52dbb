//! The entries of the tool table of spec/sessions.md §3.3 (the data of each tool; what it does
//! is in `table.rs`), in the table's order.

use super::{ANY, ArgType, CWD, Effect, Offer, Runs, STR, Spec, TASK_STATES, TIMEOUT_MS, f};

#[rustfmt::skip]
pub static READ_FILE: Spec = Spec {
    name: "read_file",
    effect: Effect::Read,
    description: "Read a text file. Returns numbered lines (`<n>: <text>`) and the file's sha256, which write_file and edit_file need as expectedHash.",
    fields: &[
        f("path", STR, true, "File path, relative to the workspace root or absolute."),
        f("startLine", ArgType::Int { min: 1, max: i64::MAX }, false, "First line to return (1-based, default 1)."),
        f("limit", ArgType::Int { min: 1, max: 1000 }, false, "Number of lines (1-1000, default 200)."),
    ],
    paths: &[("path", None)],
    offer: Offer::ByPolicy,
    coordinator: true,
    aliases: &["Read"],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static WRITE_FILE: Spec = Spec {
    name: "write_file",
    effect: Effect::Write,
    description: "Create or replace a text file atomically. expectedHash is the sha256 from read_file, or null to create a file that must not exist.",
    fields: &[
        f("path", STR, true, "File path."),
        f("content", STR, true, "The whole new content (at most 1 MiB)."),
        f("expectedHash", ArgType::StrOrNull, true, "sha256 of the current file, or null when it must not exist."),
    ],
    paths: &[("path", None)],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &["Write"],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static EDIT_FILE: Spec = Spec {
    name: "edit_file",
    effect: Effect::Write,
    description: "Replace exactly one occurrence of oldText with newText in a file. expectedHash is the file's sha256 from read_file.",
    fields: &[
        f("path", STR, true, "File path."),
        f("oldText", ArgType::Str { min: 1, max: ANY }, true, "Text to replace; must occur exactly once."),
        f("newText", STR, true, "Replacement text."),
        f("expectedHash", STR, true, "sha256 of the current file."),
    ],
    paths: &[("path", None)],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &["Edit", "MultiEdit"],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static LIST_FILES: Spec = Spec {
    name: "list_files",
    effect: Effect::Read,
    description: "List files below a directory (gitignore rules apply; .git and node_modules are skipped), sorted, paged.",
    fields: &[
        f("path", STR, false, "Directory (default the workspace root)."),
        f("offset", ArgType::Int { min: 0, max: i64::MAX }, false, "Entries to skip (default 0)."),
        f("limit", ArgType::Int { min: 1, max: 500 }, false, "Entries to return (1-500, default 100)."),
    ],
    paths: &[("path", Some("."))],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &["Glob", "LS"],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static SEARCH_TEXT: Spec = Spec {
    name: "search_text",
    effect: Effect::Read,
    description: "Search file contents with a regular expression (Rust regex syntax) or a literal string. Output is ripgrep --json lines.",
    fields: &[
        f("pattern", ArgType::Str { min: 1, max: 1000 }, true, "Regular expression, or text with literal: true."),
        f("path", STR, false, "Directory or file to search (default the workspace root)."),
        f("literal", ArgType::Bool, false, "Treat the pattern as literal text."),
        f("glob", STR, false, "Only search files matching this glob."),
    ],
    paths: &[("path", Some("."))],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &["Grep"],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static RUN_PROCESS: Spec = Spec {
    name: "run_process",
    effect: Effect::Process,
    description: "Run a program directly (no shell) with arguments and capture stdout and stderr.",
    fields: &[
        f("command", ArgType::Str { min: 1, max: 4096 }, true, "Program name or path."),
        f("args", ArgType::StrArray { max: 256 }, true, "Arguments."),
        CWD,
        TIMEOUT_MS,
    ],
    paths: &[("cwd", Some("."))],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &["Bash"],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static SHELL: Spec = Spec {
    name: "shell",
    effect: Effect::Process,
    description: "Run a command line with /bin/sh -c and capture stdout and stderr.",
    fields: &[
        f("command", ArgType::Str { min: 1, max: 16_000 }, true, "Shell command line."),
        CWD,
        TIMEOUT_MS,
    ],
    paths: &[("cwd", Some("."))],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &["Bash"],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static BG_RUN: Spec = Spec {
    name: "bg_run",
    effect: Effect::Process,
    description: "Start a long-running shell command in the background. Poll its output with bg_output and stop it with bg_stop.",
    fields: &[
        f("command", ArgType::Str { min: 1, max: 8000 }, true, "Shell command line."),
        CWD,
        f("label", ArgType::Str { min: 0, max: 80 }, false, "Short label."),
        f("timeoutMs", ArgType::Int { min: 1000, max: 86_400_000 }, false, "Timeout in milliseconds."),
    ],
    paths: &[("cwd", Some("."))],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static BG_OUTPUT: Spec = Spec {
    name: "bg_output",
    effect: Effect::Read,
    description: "Read a background task's output from an offset; pass next_offset back to continue.",
    fields: &[
        f("id", STR, true, "Task id (bg-1, ...)."),
        f("offset", ArgType::Int { min: 0, max: i64::MAX }, false, "Byte offset (default 0)."),
        f("limit", ArgType::Int { min: 1, max: 65_536 }, false, "Bytes to return (default 16384)."),
        f("waitMs", ArgType::Int { min: 0, max: 30_000 }, false, "Wait up to this long for new output."),
    ],
    paths: &[],
    offer: Offer::WithProcesses,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static BG_LIST: Spec = Spec {
    name: "bg_list",
    effect: Effect::Read,
    description: "List background tasks, newest first.",
    fields: &[
        f("status", ArgType::Enum(TASK_STATES), false, "Only tasks in this state."),
        f("limit", ArgType::Int { min: 1, max: 50 }, false, "At most this many (default 20)."),
    ],
    paths: &[],
    offer: Offer::WithProcesses,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static BG_STOP: Spec = Spec {
    name: "bg_stop",
    effect: Effect::Process,
    description: "Stop a background task (SIGTERM to its process group, SIGKILL after 3 s).",
    fields: &[f("id", STR, true, "Task id.")],
    paths: &[],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static CONTEXT_EXPLAIN: Spec = Spec {
    name: "context_explain",
    effect: Effect::Read,
    description: "Which instruction files (AGENTS.md and friends) apply to a path, in order, with the size budget applied.",
    fields: &[f("path", STR, true, "File or directory path.")],
    paths: &[("path", None)],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static SKILL_LOAD: Spec = Spec {
    name: "skill_load",
    effect: Effect::Read,
    description: "Load an Agent Skill's instructions by name.",
    fields: &[f("name", STR, true, "Skill name, displayId or id.")],
    paths: &[],
    offer: Offer::WithSkills,
    coordinator: false,
    aliases: &[],
    whole: true,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static SKILL_SEARCH: Spec = Spec {
    name: "skill_search",
    effect: Effect::Read,
    description: "Search the skill catalog.",
    fields: &[f("query", STR, true, "Words to search for.")],
    paths: &[],
    offer: Offer::WithSkills,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static SKILL_RESOURCE: Spec = Spec {
    name: "skill_resource",
    effect: Effect::Read,
    description: "Read a file inside a skill's directory, in pages of 32,000 bytes.",
    fields: &[
        f("name", STR, true, "Skill name, displayId or id."),
        f("path", STR, true, "Path inside the skill directory."),
        f("offset", ArgType::Int { min: 0, max: i64::MAX }, false, "Byte offset (default 0)."),
    ],
    paths: &[],
    offer: Offer::WithSkills,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

#[rustfmt::skip]
pub static SKILL_RUN: Spec = Spec {
    name: "skill_run",
    effect: Effect::Read,
    description: "Run an Agent Skill in a sub-session with its allowed tools and return only its final answer (skills whose frontmatter says context: fork must be run this way).",
    fields: &[
        f("name", STR, true, "Skill name, displayId or id."),
        f("prompt", ArgType::Str { min: 1, max: 32_000 }, true, "The request for the skill."),
    ],
    paths: &[],
    offer: Offer::WithSkillsAtRoot,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Skill,
};

#[rustfmt::skip]
pub static RESULT_READ: Spec = Spec {
    name: "result_read",
    effect: Effect::Read,
    description: "Read back the stored text of an earlier tool result of this session (a trimmed or cut result says so and names its callId and field). Reads the raw text of one string field of a JSON result (field; default the longest, the one a spill cuts), offsets in characters of that text. Returns {callId, field, offset, nextOffset, totalChars, totalLines, text}; with pattern, only the matching lines, each as <line>: <text>, within limit characters, and matchesLeft.",
    fields: &[
        f("callId", ArgType::Str { min: 1, max: 200 }, true, "The callId of the result."),
        f("offset", ArgType::Int { min: 0, max: i64::MAX }, false, "Character offset (default 0)."),
        f("limit", ArgType::Int { min: 1, max: 32_000 }, false, "Characters to return (default 16000, at most 32000)."),
        f("pattern", ArgType::Str { min: 1, max: 1000 }, false, "A regular expression (Rust syntax): only the matching lines, with their line numbers."),
        f("field", ArgType::Str { min: 1, max: 200 }, false, "The string field to read (stdout, stderr, content, text, ...); default the longest."),
    ],
    paths: &[],
    offer: Offer::Always,
    coordinator: true,
    aliases: &[],
    whole: true,
    runs: Runs::Store,
};

#[rustfmt::skip]
pub static TASK: Spec = Spec {
    name: "task",
    effect: Effect::Read,
    description: "Start a sub-agent for one self-contained task; returns its final answer.",
    fields: &[
        f("description", ArgType::Str { min: 1, max: 200 }, true, "Short title of the task."),
        f("prompt", ArgType::Str { min: 1, max: 32_000 }, true, "Complete instructions for the sub-agent."),
    ],
    paths: &[],
    offer: Offer::SubAgents,
    coordinator: true,
    aliases: &[],
    whole: true,
    runs: Runs::Child,
};

#[rustfmt::skip]
pub static GLANCE: Spec = Spec {
    name: "glance",
    effect: Effect::Read,
    description: "Run a status or listing command (git status, git log, git diff, ls, pwd, find without actions, ...), alone or joined with &&, ||, ; and | filters such as head, grep, wc or sort, and capture its output. Every other command is refused: delegate real work with task.",
    fields: &[
        f("command", ArgType::Str { min: 1, max: 4096 }, true, "Shell command line made only of status and listing commands."),
        CWD,
        TIMEOUT_MS,
    ],
    paths: &[("cwd", Some("."))],
    offer: Offer::CoordinatorOnly,
    coordinator: true,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};

/// `test_sleep` (feature `test-tools`, debug builds, `ALISIO_TEST_TOOLS=1`): a read tool that
/// sleeps, to observe scheduling.
pub static TEST_SLEEP: Spec = Spec {
    name: "test_sleep",
    effect: Effect::Read,
    description: "Test tool: sleep for ms milliseconds.",
    fields: &[
        f(
            "ms",
            ArgType::Int {
                min: 0,
                max: 600_000,
            },
            true,
            "Milliseconds.",
        ),
        f("tag", ArgType::Str { min: 0, max: ANY }, false, "Tag."),
    ],
    paths: &[],
    offer: Offer::ByPolicy,
    coordinator: false,
    aliases: &[],
    whole: false,
    runs: Runs::Thread,
};
