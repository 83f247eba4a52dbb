//! GitHub Copilot in VS Code's agents and prompt files (spec/instructions.md §10.9): what VS Code
//! lists at startup and its validator's diagnostics, from its source (no client runs offline).

use std::path::Path;

use alisio_base::diagnostic::{Code, Severity};
use alisio_base::workspace::DiskFs;

use super::copilot::{self, CopilotKind};
use super::*;

/// `(start line, start col, end line, end col, code, severity, message)` of a text's diagnostics.
type Row = (u32, u32, u32, u32, Code, Severity, String);

fn diags(path: &str, text: &str) -> Vec<Row> {
    let p = Path::new("/ws").join(path);
    let kind = copilot::kind_of(&p).unwrap();
    copilot::judge_text(&p, text, kind)
        .diagnostics
        .into_iter()
        .map(|d| {
            (
                d.span.start.line,
                d.span.start.utf16,
                d.span.end.line,
                d.span.end.utf16,
                d.code,
                d.severity,
                d.message,
            )
        })
        .collect()
}

fn row(l0: u32, c0: u32, l1: u32, c1: u32, code: Code, sev: Severity, m: &str) -> Row {
    (l0, c0, l1, c1, code, sev, m.to_string())
}

const AGENT: &str = ".github/agents/reviewer.agent.md";
const PROMPT: &str = ".github/prompts/review.prompt.md";

#[test]
fn copilot_kinds_of_paths() {
    let k = |p: &str| copilot::kind_of(Path::new(p));
    assert_eq!(k("/w/.github/agents/a.agent.md"), Some(CopilotKind::Agent));
    assert_eq!(k("/w/.github/agents/plain.md"), Some(CopilotKind::Agent));
    assert_eq!(k("/w/.github/agents/README.md"), None);
    assert_eq!(k("/w/.github/agents/sub/a.agent.md"), None);
    assert_eq!(
        k("/w/.github/chatmodes/a.chatmode.md"),
        Some(CopilotKind::LegacyMode)
    );
    assert_eq!(k("/w/.github/chatmodes/a.md"), None);
    assert_eq!(
        k("/w/.github/prompts/a.prompt.md"),
        Some(CopilotKind::Prompt)
    );
    assert_eq!(k("/w/.github/prompts/a.md"), None);
    assert_eq!(k("/w/docs/a.prompt.md"), None);
    assert_eq!(
        family_of(Path::new("/w/.github/agents/a.agent.md")),
        Some(Family::Agent)
    );
    assert_eq!(
        family_of(Path::new("/w/.github/prompts/a.prompt.md")),
        Some(Family::Command)
    );
    assert_eq!(
        family_of(Path::new("/w/.github/chatmodes/a.chatmode.md")),
        Some(Family::Agent)
    );
}

#[test]
fn copilot_startup_lists_agents_in_the_agents_block_and_no_prompt_files() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().canonicalize().unwrap();
    let files: &[(&str, &str)] = &[
        (
            ".github/agents/reviewer.agent.md",
            "---\nname: code-reviewer\ndescription: Reviews code.\nargument-hint: a diff\n---\nbody\n",
        ),
        // No header: the name is the file name less `.agent.md`, no description line.
        (".github/agents/planner.agent.md", "Plan the work.\n"),
        (
            ".github/agents/plain.md",
            "---\ndescription: A plain .md agent.\n---\n",
        ),
        (
            ".github/agents/private.agent.md",
            "---\ndescription: Not for subagents.\ndisable-model-invocation: true\n---\n",
        ),
        (".github/agents/README.md", "# About these agents\n"),
        (
            ".github/agents/sub/deep.agent.md",
            "---\ndescription: Not read.\n---\n",
        ),
        (
            ".github/chatmodes/old.chatmode.md",
            "---\ndescription: Legacy mode.\n---\n",
        ),
        (
            ".github/prompts/review.prompt.md",
            "---\ndescription: Review the diff\n---\nReview it.\n",
        ),
        (".github/prompts/notes.md", "not a prompt file\n"),
    ];
    for (p, t) in files {
        let p = ws.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
    let s = copilot::startup(&DiskFs, &ws);
    let agents: Vec<(&str, bool, Option<&str>)> = s
        .of(Family::Agent)
        .map(|e| (e.name.as_str(), e.loaded(), e.text.as_deref()))
        .collect();
    assert_eq!(
        agents,
        [
            (
                "plain",
                true,
                Some(
                    "<agent>\n<name>plain</name>\n<description>A plain .md agent.</description>\n</agent>"
                )
            ),
            (
                "planner",
                true,
                Some("<agent>\n<name>planner</name>\n</agent>")
            ),
            (
                "private",
                false,
                Some(
                    "<agent>\n<name>private</name>\n<description>Not for subagents.</description>\n</agent>"
                )
            ),
            (
                "code-reviewer",
                true,
                Some(
                    "<agent>\n<name>code-reviewer</name>\n<description>Reviews code.</description>\n<argumentHint>a diff</argumentHint>\n</agent>"
                )
            ),
            (
                "old",
                true,
                Some(
                    "<agent>\n<name>old</name>\n<description>Legacy mode.</description>\n</agent>"
                )
            ),
        ]
    );
    let prompts: Vec<(&str, bool, u64, &str)> = s
        .of(Family::Command)
        .map(|e| (e.name.as_str(), e.loaded(), e.bytes(), e.detail.as_str()))
        .collect();
    assert_eq!(prompts, [("/review", false, 0, copilot::PROMPT_REASON)]);
    // What is sent: the four loaded `<agent>` entries.
    let sent: u64 = s.entries.iter().map(FamilyEntry::bytes).sum();
    assert_eq!(sent, 81 + 37 + 120 + 73);
    let j = StartupObject::new(Host::Copilot, &s, &|p: &Path| {
        p.strip_prefix(&ws).unwrap().display().to_string()
    });
    assert_eq!(j.bytes, 311);
    assert_eq!(j.tokens, 78);
    assert_eq!(j.families[0].channel, "<agents> block");
    assert_eq!(j.families[1].channel, "not sent at startup");
    assert_eq!(
        j.families[1].entries[0].file,
        ".github/prompts/review.prompt.md"
    );
    // The only diagnostic: the legacy chat mode.
    let codes: Vec<(String, Code)> = s
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.file.strip_prefix(&ws).unwrap().display().to_string(),
                d.code,
            )
        })
        .collect();
    assert_eq!(
        codes,
        [(
            ".github/chatmodes/old.chatmode.md".to_string(),
            Code::CopilotChatmodeRenamed
        )]
    );
    // `context explain --host copilot` goes through `startup` for the workspace root.
    let human = startup_human(Host::Copilot, &s, &|p: &Path| {
        p.strip_prefix(&ws).unwrap().display().to_string()
    });
    assert_eq!(
        human,
        "
Startup cost (host copilot, bytes the host sends before the first prompt)
family    name           bytes     sent in              file
agents    plain          81        <agents> block       .github/agents/plain.md
agents    planner        37        <agents> block       .github/agents/planner.agent.md
agents    private        not sent  <agents> block       .github/agents/private.agent.md (disable-model-invocation: true)
agents    code-reviewer  120       <agents> block       .github/agents/reviewer.agent.md
agents    old            73        <agents> block       .github/chatmodes/old.chatmode.md
commands  /review        not sent  not sent at startup  .github/prompts/review.prompt.md (sent only when the user runs it as a slash command; VS Code lists no prompt files to the model)
total: 311 bytes (~78 tokens); MCP tool definitions come from each server when it connects and are not counted
"
    );
}

#[test]
fn copilot_good_agent_and_prompt_files_have_no_diagnostic() {
    let agent = "---\nname: reviewer\ndescription: Reviews a diff.\nargument-hint: a diff\nmodel: ['GPT-5', 'Claude Sonnet 4.5']\ntools: ['search', 'read']\ntarget: vscode\nuser-invokable: true\ndisable-model-invocation: false\nagents: ['*']\nhandoffs:\n  - label: Fix it\n    agent: fixer\n    prompt: Fix the findings.\n    send: true\n---\nYou review code.\n";
    assert_eq!(diags(AGENT, agent), []);
    let cloud = "---\nname: reviewer\ndescription: Reviews.\ntarget: github-copilot\ntools: ['read', 42]\nmcp-servers: {}\n---\n";
    assert_eq!(diags(AGENT, cloud), []);
    let prompt = "---\nname: review\ndescription: Review the diff\nargument-hint: a PR number\nagent: agent\nmodel: GPT-5\ntools: ['search']\n---\nReview it.\n";
    assert_eq!(diags(PROMPT, prompt), []);
    assert_eq!(diags(PROMPT, "No header at all.\n"), []);
}

#[test]
fn copilot_header_invalid() {
    use Code::CopilotHeaderInvalid as C;
    assert_eq!(
        diags(AGENT, "---\n- just\n- a list\n---\nbody\n"),
        [row(
            1,
            0,
            1,
            6,
            C,
            Severity::Error,
            "Invalid header, expecting <key: value> pairs"
        )]
    );
    let d = diags(AGENT, "---\ndescription: [unclosed\n---\n");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!((d[0].4, d[0].5), (C, Severity::Error));
    assert!(
        d[0].6.starts_with("the header is not valid YAML: "),
        "{d:?}"
    );
}

#[test]
fn copilot_attribute_unknown_per_file_type() {
    use Code::CopilotAttributeUnknown as C;
    let w = Severity::Warning;
    assert_eq!(
        diags(
            PROMPT,
            "---\ndescription: Review\napplyTo: '**/*.ts'\n---\n"
        ),
        [row(
            2,
            0,
            2,
            18,
            C,
            w,
            "Attribute 'applyTo' is not supported in prompt files. Supported: agent, argument-hint, description, model, name, tools."
        )]
    );
    assert_eq!(
        diags(AGENT, "---\ndescription: Reviews\ncolor: blue\n---\n"),
        [row(
            2,
            0,
            2,
            11,
            C,
            w,
            "Attribute 'color' is not supported in VS Code agent files. Supported: agents, argument-hint, description, disable-model-invocation, handoffs, model, name, target, tools, user-invokable."
        )]
    );
    assert_eq!(
        diags(AGENT, "---\ntarget: github-copilot\nmodel: GPT-5\n---\n"),
        [row(
            2,
            0,
            2,
            12,
            C,
            w,
            "Attribute 'model' is not supported in custom GitHub Copilot agent files. Supported: description, infer, mcp-servers, name, target, tools."
        )]
    );
    assert_eq!(
        diags(
            AGENT,
            "---\nhandoffs:\n  - label: Go\n    agent: a\n    prompt: p\n    colour: red\n---\n"
        ),
        [row(
            5,
            12,
            5,
            15,
            C,
            w,
            "Unknown property 'colour' in handoff object. Supported properties are 'label', 'agent', 'prompt' and optional 'send', 'showContinueOn', 'model'."
        )]
    );
}

#[test]
fn copilot_attribute_ignored_locally() {
    assert_eq!(
        diags(AGENT, "---\ndescription: Reviews\nmcp-servers: {}\n---\n"),
        [row(
            2,
            0,
            2,
            15,
            Code::CopilotAttributeIgnored,
            Severity::Information,
            "Attribute 'mcp-servers' is ignored when running locally in VS Code."
        )]
    );
    // With `target: github-copilot` it is supported.
    assert_eq!(
        diags(AGENT, "---\ntarget: github-copilot\nmcp-servers: {}\n---\n"),
        []
    );
}

#[test]
fn copilot_attribute_invalid_types_and_values() {
    use Code::CopilotAttributeInvalid as C;
    let e = Severity::Error;
    assert_eq!(
        diags(
            AGENT,
            "---\nname: 42\ndescription: '  '\ntools: search, read\n---\n"
        ),
        [
            row(1, 0, 1, 8, C, e, "The 'name' attribute must be a string."),
            row(
                2,
                13,
                2,
                17,
                C,
                e,
                "The 'description' attribute should not be empty."
            ),
            row(3, 7, 3, 19, C, e, "The 'tools' attribute must be an array."),
        ]
    );
    assert_eq!(
        diags(
            AGENT,
            "---\ntarget: cloud\nuser-invokable: 'yes'\nmodel: []\nagents: [1]\n---\n"
        ),
        [
            row(
                1,
                8,
                1,
                13,
                C,
                e,
                "The 'target' attribute must be one of: github-copilot, vscode."
            ),
            row(
                2,
                16,
                2,
                21,
                C,
                e,
                "The 'user-invokable' attribute must be a boolean."
            ),
            row(3, 7, 3, 9, C, e, "The 'model' array must not be empty."),
            row(
                4,
                9,
                4,
                10,
                C,
                e,
                "Each agent name in the 'agents' attribute must be a string."
            ),
        ]
    );
    assert_eq!(
        diags(AGENT, "---\nhandoffs:\n  - label: Go\n  - just text\n---\n"),
        [
            row(
                2,
                4,
                2,
                13,
                C,
                e,
                "Missing required properties 'agent', 'prompt' in handoff object."
            ),
            row(
                3,
                4,
                3,
                13,
                C,
                e,
                "Each handoff in the 'handoffs' attribute must be an object with 'label', 'agent', 'prompt' and optional 'send'."
            ),
        ]
    );
    assert_eq!(
        diags(
            PROMPT,
            "---\nargument-hint: 3\ntools: ['ok', 7]\nagent: ''\n---\n"
        ),
        [
            row(
                1,
                0,
                1,
                16,
                C,
                e,
                "The 'argument-hint' attribute must be a string."
            ),
            row(
                3,
                7,
                3,
                9,
                C,
                e,
                "The 'agent' attribute must be a non-empty string."
            ),
            row(
                2,
                14,
                2,
                15,
                C,
                e,
                "Each tool name in the 'tools' attribute must be a string."
            ),
        ]
    );
}

#[test]
fn copilot_attribute_deprecated() {
    use Code::CopilotAttributeDeprecated as C;
    assert_eq!(
        diags(PROMPT, "---\nmode: agent\n---\n"),
        [row(
            1,
            0,
            1,
            11,
            C,
            Severity::Error,
            "The 'mode' attribute has been deprecated. Please rename it to 'agent'."
        )]
    );
    assert_eq!(
        diags(PROMPT, "---\nagent: agent\nmode: ask\n---\n"),
        [row(
            2,
            0,
            2,
            9,
            C,
            Severity::Warning,
            "The 'mode' attribute has been deprecated. The 'agent' attribute is used instead."
        )]
    );
    assert_eq!(
        diags(AGENT, "---\ninfer: false\n---\n"),
        [row(
            1,
            7,
            1,
            12,
            C,
            Severity::Error,
            "The 'infer' attribute is deprecated in favour of 'user-invokable' and 'disable-model-invocation'."
        )]
    );
}

#[test]
fn copilot_chatmode_renamed() {
    assert_eq!(
        diags(
            ".github/chatmodes/old.chatmode.md",
            "---\ndescription: Old.\n---\n"
        ),
        [row(
            0,
            0,
            0,
            3,
            Code::CopilotChatmodeRenamed,
            Severity::Warning,
            "Chat modes have been renamed to agents. Please move the file to .github/agents"
        )]
    );
    assert_eq!(diags(AGENT, "---\ndescription: New.\n---\n"), []);
}

#[test]
fn copilot_hovers_and_completions() {
    let p = Path::new("/w/.github/agents/reviewer.agent.md");
    let text = "---\nname: reviewer\ndescription: Reviews code.\n\n---\n";
    let h = editor::hover(p, text, 5).unwrap();
    assert_eq!(
        h,
        "**name** (custom agent header, GitHub Copilot in VS Code)\n\nThe name of the agent as shown in the UI.\n\nVS Code lists this agent in the `<agents>` block of every request as:\n\n```\n<agent>\n<name>reviewer</name>\n<description>Reviews code.</description>\n</agent>\n```"
    );
    let at = text.find("\n\n---").unwrap() + 1;
    let keys: Vec<&str> = editor::completions(p, text, at)
        .into_iter()
        .map(|c| c.key)
        .collect();
    assert_eq!(
        keys,
        [
            "argument-hint",
            "model",
            "tools",
            "handoffs",
            "target",
            "agents",
            "user-invokable",
            "disable-model-invocation"
        ]
    );
    let q = Path::new("/w/.github/prompts/review.prompt.md");
    let text = "---\ndescription: Review\n\n---\n";
    let h = editor::hover(q, text, 4).unwrap();
    assert!(h.ends_with("VS Code sends nothing for `/review` at startup: the prompt is sent when the user runs it."), "{h}");
    let at = text.find("\n\n---").unwrap() + 1;
    let keys: Vec<&str> = editor::completions(q, text, at)
        .into_iter()
        .map(|c| c.key)
        .collect();
    assert_eq!(keys, ["name", "argument-hint", "model", "tools", "agent"]);
}
