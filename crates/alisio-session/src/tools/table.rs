//! The tools: one type per tool, each implementing [`Tool`] over its entry of `specs.rs`, and
//! [`TOOLS`], the one table the provider request, the offer, the scheduler, the approvals,
//! the previews, the sandbox note, the workbench and the view cap read (spec/sessions.md §3).
//! The tool types are private: every other file reaches a tool through [`TOOLS`] (their names
//! are the tools' own, `Shell` for `shell`, and mean nothing outside the table).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::args::{self, ContextTool};
use super::confine::Confined;
use super::error::ToolReturn;
use super::{
    CallOutcome, Spec, Tool, ToolCtx, ToolDef, Writes, bg, files, process, search, specs, typed,
};
use alisio_base::workspace::Fs;

/// The table of spec/sessions.md §3.3, in its order.
pub static TOOLS: &[&dyn Tool] = &[
    &ReadFile,
    &WriteFile,
    &EditFile,
    &ListFiles,
    &SearchText,
    &RunProcess,
    &Shell,
    &BgRun,
    &BgOutput,
    &BgList,
    &BgStop,
    &ContextExplain,
    &SkillLoad,
    &SkillSearch,
    &SkillResource,
    &SkillRun,
    &ResultRead,
    &Task,
    &Glance,
];

/// A string argument, `""` when absent.
fn text<'a>(args: &'a Map<String, Value>, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The first declared path as the approval shows it.
fn first(paths_shown: &[String]) -> String {
    paths_shown.first().cloned().unwrap_or_default()
}

/// `read_file`.
struct ReadFile;
impl Tool for ReadFile {
    fn spec(&self) -> &'static Spec {
        &specs::READ_FILE
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        args::decode(a)
            .and_then(|x| files::read_file(ctx, &x))
            .into()
    }
}

/// `write_file`.
struct WriteFile;
impl Tool for WriteFile {
    fn spec(&self) -> &'static Spec {
        &specs::WRITE_FILE
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        args::decode(a)
            .and_then(|x| files::write_file(ctx, &x))
            .into()
    }
    fn summary(&self, a: &Map<String, Value>, paths_shown: &[String]) -> String {
        format!(
            "Write {} ({} bytes)",
            first(paths_shown),
            args::decode::<args::WriteFile>(a).map_or(0, |x| x.content.len())
        )
    }
    fn preview(
        &self,
        fs: &dyn Fs,
        a: &Map<String, Value>,
        target: Option<&Confined>,
    ) -> Option<Value> {
        super::preview::file(fs, target?, |_| {
            Some(a.get("content")?.as_str()?.to_string())
        })
    }
    fn writes(&self) -> Option<Writes> {
        Some(Writes::Whole)
    }
}

/// `edit_file`.
struct EditFile;
impl Tool for EditFile {
    fn spec(&self) -> &'static Spec {
        &specs::EDIT_FILE
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        args::decode(a)
            .and_then(|x| files::edit_file(ctx, &x))
            .into()
    }
    fn summary(&self, _a: &Map<String, Value>, paths_shown: &[String]) -> String {
        format!("Edit {}", first(paths_shown))
    }
    fn preview(
        &self,
        fs: &dyn Fs,
        a: &Map<String, Value>,
        target: Option<&Confined>,
    ) -> Option<Value> {
        let s = |k: &str| a.get(k).and_then(Value::as_str);
        super::preview::file(fs, target?, |before| {
            super::preview::apply_edit(before?, s("oldText")?, s("newText")?).ok()
        })
    }
    fn writes(&self) -> Option<Writes> {
        Some(Writes::Edit)
    }
}

/// `list_files`.
struct ListFiles;
impl Tool for ListFiles {
    fn spec(&self) -> &'static Spec {
        &specs::LIST_FILES
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        args::decode(a)
            .and_then(|x| files::list_files(ctx, &x))
            .into()
    }
}

/// `search_text`.
struct SearchText;
impl Tool for SearchText {
    fn spec(&self) -> &'static Spec {
        &specs::SEARCH_TEXT
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        args::decode(a)
            .and_then(|x| search::search_text(ctx, &x))
            .into()
    }
}

/// `run_process`.
struct RunProcess;
impl Tool for RunProcess {
    fn spec(&self) -> &'static Spec {
        &specs::RUN_PROCESS
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        typed::<process::RunProcessArgs>(a).map_or_else(CallOutcome::error, |x| {
            process::run_process(ctx, &process::ProcessCall::from(&x))
        })
    }
    fn summary(&self, a: &Map<String, Value>, _paths_shown: &[String]) -> String {
        let words: Vec<String> = a
            .get("args")
            .and_then(Value::as_array)
            .map(|v| {
                v.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        format!("Run {} {}", text(a, "command"), words.join(" "))
    }
    fn preview(
        &self,
        _fs: &dyn Fs,
        a: &Map<String, Value>,
        target: Option<&Confined>,
    ) -> Option<Value> {
        super::preview::process(a, target)
    }
    fn command_line(&self, a: &Map<String, Value>) -> Option<String> {
        let mut t = a.get("command").and_then(Value::as_str)?.to_string();
        for w in a
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            t.push(' ');
            t.push_str(w);
        }
        Some(t)
    }
}

/// `shell`.
struct Shell;
impl Tool for Shell {
    fn spec(&self) -> &'static Spec {
        &specs::SHELL
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        typed::<process::ShellArgs>(a).map_or_else(CallOutcome::error, |x| {
            process::run_process(ctx, &process::ProcessCall::from(&x))
        })
    }
    fn summary(&self, a: &Map<String, Value>, _paths_shown: &[String]) -> String {
        format!("Run shell: {}", text(a, "command"))
    }
    fn preview(
        &self,
        _fs: &dyn Fs,
        a: &Map<String, Value>,
        target: Option<&Confined>,
    ) -> Option<Value> {
        super::preview::process(a, target)
    }
    fn command_line(&self, a: &Map<String, Value>) -> Option<String> {
        a.get("command").and_then(Value::as_str).map(String::from)
    }
}

/// `bg_run`.
struct BgRun;
impl Tool for BgRun {
    fn spec(&self) -> &'static Spec {
        &specs::BG_RUN
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        typed::<bg::BgRunArgs>(a)
            .and_then(|x| {
                bg::bg_run(
                    ctx,
                    &x.command,
                    x.cwd.as_deref(),
                    x.label.as_deref(),
                    x.timeout_ms,
                )
            })
            .into()
    }
    fn summary(&self, a: &Map<String, Value>, _paths_shown: &[String]) -> String {
        format!("Start background task: {}", text(a, "command"))
    }
    fn preview(
        &self,
        _fs: &dyn Fs,
        a: &Map<String, Value>,
        target: Option<&Confined>,
    ) -> Option<Value> {
        super::preview::process(a, target)
    }
    fn command_line(&self, a: &Map<String, Value>) -> Option<String> {
        a.get("command").and_then(Value::as_str).map(String::from)
    }
}

/// `bg_output`.
struct BgOutput;
impl Tool for BgOutput {
    fn spec(&self) -> &'static Spec {
        &specs::BG_OUTPUT
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        typed::<bg::BgOutputArgs>(a)
            .and_then(|x| bg::bg_output(ctx, &x.id, x.offset, x.limit, x.wait_ms))
            .into()
    }
}

/// `bg_list`.
struct BgList;
impl Tool for BgList {
    fn spec(&self) -> &'static Spec {
        &specs::BG_LIST
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        typed::<bg::BgListArgs>(a)
            .and_then(|x| bg::bg_list(ctx, x.status.as_deref(), x.limit))
            .into()
    }
}

/// `bg_stop`.
struct BgStop;
impl Tool for BgStop {
    fn spec(&self) -> &'static Spec {
        &specs::BG_STOP
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        typed::<bg::BgStopArgs>(a)
            .and_then(|x| bg::bg_stop(ctx, &x.id))
            .into()
    }
    fn summary(&self, a: &Map<String, Value>, _paths_shown: &[String]) -> String {
        format!("Stop background task {}", text(a, "id"))
    }
}

/// A call answered by the run's [`SessionContext`](crate::SessionContext).
fn context_call(ctx: &ToolCtx, call: ToolReturn<ContextTool>) -> CallOutcome {
    call.and_then(|c| ctx.context.tool(&c, &ctx.cwd)).into()
}

/// `context_explain`.
struct ContextExplain;
impl Tool for ContextExplain {
    fn spec(&self) -> &'static Spec {
        &specs::CONTEXT_EXPLAIN
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        context_call(ctx, args::decode(a).map(ContextTool::Explain))
    }
}

/// `skill_load`.
struct SkillLoad;
impl Tool for SkillLoad {
    fn spec(&self) -> &'static Spec {
        &specs::SKILL_LOAD
    }
    /// `name` is an enum of `skill_names` when the catalog fits the bound (spec/skills.md §4.2,
    /// [`alisio_rules::skills::catalog::enum_names`]).
    fn definition(&self, skill_names: Option<&[String]>) -> ToolDef {
        let mut d = self.spec().definition();
        if let Some(n) = skill_names
            && let Some(p) = d.input_schema.pointer_mut("/properties/name")
        {
            p["enum"] = json!(n);
        }
        d
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        context_call(ctx, args::decode(a).map(ContextTool::SkillLoad))
    }
}

/// `skill_search`.
struct SkillSearch;
impl Tool for SkillSearch {
    fn spec(&self) -> &'static Spec {
        &specs::SKILL_SEARCH
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        context_call(ctx, args::decode(a).map(ContextTool::SkillSearch))
    }
}

/// `skill_resource`.
struct SkillResource;
impl Tool for SkillResource {
    fn spec(&self) -> &'static Spec {
        &specs::SKILL_RESOURCE
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        context_call(ctx, args::decode(a).map(ContextTool::SkillResource))
    }
}

/// `skill_run`: the runner runs the skill in a sub-session ([`Runs::Skill`](super::Runs::Skill)).
struct SkillRun;
impl Tool for SkillRun {
    fn spec(&self) -> &'static Spec {
        &specs::SKILL_RUN
    }
}

/// `result_read`: the runner reads the store ([`Runs::Store`](super::Runs::Store)).
struct ResultRead;
impl Tool for ResultRead {
    fn spec(&self) -> &'static Spec {
        &specs::RESULT_READ
    }
}

/// `task`: the runner runs a sub-agent ([`Runs::Child`](super::Runs::Child)).
struct Task;
impl Tool for Task {
    fn spec(&self) -> &'static Spec {
        &specs::TASK
    }
}

/// `glance`: only the commands of the ephemeral table, under the glance sandbox.
struct Glance;
impl Tool for Glance {
    fn spec(&self) -> &'static Spec {
        &specs::GLANCE
    }
    /// One function decides this and expiry: `alisio_governor::shell::ephemeral_check`.
    fn refusal(&self, a: &Map<String, Value>) -> Option<String> {
        alisio_governor::shell::ephemeral_check(text(a, "command")).err().map(|why| {
            format!("Refused: glance runs only status and listing commands ({why}). Delegate anything else: start a sub-session with task.")
        })
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        // The runner refused every command outside the ephemeral table ([`Tool::refusal`]);
        // what is left runs under the glance sandbox (read-only where available).
        typed::<process::ShellArgs>(a).map_or_else(CallOutcome::error, |x| {
            let mut g = ctx.clone();
            if let Some(sb) = &ctx.glance_sandbox {
                g.sandbox = Arc::clone(sb);
            }
            process::run_process(&g, &process::ProcessCall::from(&x))
        })
    }
}

/// `test_sleep` (feature `test-tools`, debug builds, `ALISIO_TEST_TOOLS=1`): a read tool that
/// sleeps, to observe scheduling; outside [`TOOLS`].
pub struct TestSleep;
impl Tool for TestSleep {
    fn spec(&self) -> &'static Spec {
        &specs::TEST_SLEEP
    }
    fn execute(&self, ctx: &ToolCtx, a: &Map<String, Value>) -> CallOutcome {
        let ms = match args::decode::<args::TestSleep>(a) {
            Ok(x) => x.ms,
            Err(e) => return CallOutcome::error(e),
        };
        let end = std::time::Instant::now() + std::time::Duration::from_millis(ms);
        while std::time::Instant::now() < end {
            if ctx.cancelled() {
                return CallOutcome::Cancelled;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        CallOutcome::Ok(json!({"slept":ms}).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{Effect, Offer, Runs, tool};

    fn names(f: impl Fn(&Spec) -> bool) -> Vec<&'static str> {
        TOOLS
            .iter()
            .map(|t| t.spec())
            .filter(|s| f(s))
            .map(|s| s.name)
            .collect()
    }

    #[test]
    fn the_table_holds_each_tool_once_in_the_order_of_the_spec() {
        assert_eq!(
            names(|_| true),
            [
                "read_file",
                "write_file",
                "edit_file",
                "list_files",
                "search_text",
                "run_process",
                "shell",
                "bg_run",
                "bg_output",
                "bg_list",
                "bg_stop",
                "context_explain",
                "skill_load",
                "skill_search",
                "skill_resource",
                "skill_run",
                "result_read",
                "task",
                "glance",
            ]
        );
        for t in TOOLS {
            let found = tool(t.spec().name).map(|f| f.spec().name);
            assert_eq!(found, Some(t.spec().name));
        }
        assert!(tool("test_sleep").is_none() || crate::tools::test_tools_enabled());
        assert!(tool("Read").is_none());
    }

    #[test]
    fn what_differs_between_tools_is_declared_in_their_entries() {
        assert_eq!(
            names(|s| s.coordinator),
            ["read_file", "result_read", "task", "glance"]
        );
        assert_eq!(names(|s| s.whole), ["skill_load", "result_read", "task"]);
        assert_eq!(names(|s| s.runs == Runs::Store), ["result_read"]);
        assert_eq!(names(|s| s.runs == Runs::Child), ["task"]);
        assert_eq!(names(|s| s.runs == Runs::Skill), ["skill_run"]);
        assert_eq!(names(|s| s.offer == Offer::Always), ["result_read"]);
        assert_eq!(
            names(|s| s.offer == Offer::WithSkills),
            ["skill_load", "skill_search", "skill_resource"]
        );
        assert_eq!(
            names(|s| s.offer == Offer::WithProcesses),
            ["bg_output", "bg_list"]
        );
        assert_eq!(
            names(|s| s.aliases.contains(&"Bash")),
            ["run_process", "shell"]
        );
        assert_eq!(names(|s| s.aliases.contains(&"LS")), ["list_files"]);
        let writers: Vec<&str> = TOOLS
            .iter()
            .filter(|t| t.writes().is_some())
            .map(|t| t.spec().name)
            .collect();
        assert_eq!(writers, names(|s| s.effect == Effect::Write));
        assert_eq!(WriteFile.writes(), Some(Writes::Whole));
        assert_eq!(EditFile.writes(), Some(Writes::Edit));
    }

    #[test]
    fn the_approval_texts_and_command_lines_of_each_tool() {
        let a = |v: Value| v.as_object().cloned().unwrap_or_default();
        let shown = ["src/a.rs".to_string()];
        let w = a(json!({"path":"a","content":"héllo","expectedHash":null}));
        assert_eq!(WriteFile.summary(&w, &shown), "Write src/a.rs (6 bytes)");
        assert_eq!(EditFile.summary(&w, &shown), "Edit src/a.rs");
        let r = a(json!({"command":"git","args":["status","-s"]}));
        assert_eq!(RunProcess.summary(&r, &[]), "Run git status -s");
        assert_eq!(
            RunProcess.command_line(&r).as_deref(),
            Some("git status -s")
        );
        let sh = a(json!({"command":"ls | wc -l"}));
        assert_eq!(Shell.summary(&sh, &[]), "Run shell: ls | wc -l");
        assert_eq!(BgRun.summary(&sh, &[]), "Start background task: ls | wc -l");
        assert_eq!(BgRun.command_line(&sh).as_deref(), Some("ls | wc -l"));
        assert_eq!(
            BgStop.summary(&a(json!({"id":"bg-3"})), &[]),
            "Stop background task bg-3"
        );
        assert_eq!(BgStop.command_line(&a(json!({"id":"bg-3"}))), None);
        assert_eq!(
            ContextExplain.summary(&a(json!({})), &[]),
            "Run context_explain"
        );
        assert_eq!(Glance.command_line(&sh), None);
        assert_eq!(Glance.refusal(&a(json!({"command":"git status"}))), None);
        assert!(
            Glance
                .refusal(&a(json!({"command":"rm -rf x"})))
                .is_some_and(
                    |t| t.starts_with("Refused: glance runs only status and listing commands (")
                )
        );
    }

    #[test]
    fn only_skill_load_puts_the_catalog_in_its_schema() {
        let names = ["a".to_string(), "b".to_string()];
        let d = SkillLoad.definition(Some(&names));
        assert_eq!(
            d.input_schema["properties"]["name"]["enum"],
            json!(["a", "b"])
        );
        let d = SkillSearch.definition(Some(&names));
        assert_eq!(d, SkillSearch.spec().definition());
    }
}
