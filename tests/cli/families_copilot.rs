//! GitHub Copilot in VS Code's custom agents and prompt files on the command line
//! (docs/spec/instructions.md §10.9): `check` reports what VS Code's prompt validator reports,
//! with exact ranges, and `context explain --host copilot` gives the startup rows: the agents'
//! `<agents>` entries, the prompt files not sent with the reason.

use crate::common::Ws;

/// `(file, code, severity, start line, start col, end line, end col, message)`.
type Row = (String, String, String, u64, u64, u64, u64, String);

fn tree() -> Ws {
    let ws = Ws::new();
    ws.files(&[
        (
            ".github/agents/reviewer.agent.md",
            "---\nname: reviewer\ndescription: Reviews code.\ncolor: blue\n---\nYou review code.\n",
        ),
        (
            ".github/agents/private.agent.md",
            "---\ndescription: Only for users.\ndisable-model-invocation: true\n---\n",
        ),
        (
            ".github/chatmodes/old.chatmode.md",
            "---\ndescription: Old mode.\n---\n",
        ),
        (
            ".github/prompts/review.prompt.md",
            "---\ndescription: Review the diff\nmode: agent\n---\nReview it.\n",
        ),
    ]);
    ws
}

#[test]
fn families_copilot_check_reports_the_validator_findings_with_exact_ranges() {
    let ws = tree();
    let r = ws.run(&["check", "--json"]);
    assert_eq!(r.code, 1, "{r:?}");
    let got: Vec<Row> = r.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let n = |k: &str, j: &str| d["range"][k][j].as_u64().unwrap();
            (
                d["file"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                n("start", "line"),
                n("start", "character"),
                n("end", "line"),
                n("end", "character"),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let s = String::from;
    assert_eq!(
        got,
        [
            (
                s(".github/agents/reviewer.agent.md"),
                s("copilot-attribute-unknown"),
                s("warning"),
                3,
                0,
                3,
                11,
                s(
                    "Attribute 'color' is not supported in VS Code agent files. Supported: agents, argument-hint, description, disable-model-invocation, handoffs, model, name, target, tools, user-invokable."
                ),
            ),
            (
                s(".github/chatmodes/old.chatmode.md"),
                s("copilot-chatmode-renamed"),
                s("warning"),
                0,
                0,
                0,
                3,
                s("Chat modes have been renamed to agents. Please move the file to .github/agents"),
            ),
            (
                s(".github/prompts/review.prompt.md"),
                s("copilot-attribute-deprecated"),
                s("error"),
                2,
                0,
                2,
                11,
                s("The 'mode' attribute has been deprecated. Please rename it to 'agent'."),
            ),
        ]
    );
}

#[test]
fn families_copilot_explain_gives_the_startup_rows() {
    let ws = tree();
    let j = ws
        .run(&["context", "explain", "--host", "copilot", "--json", "."])
        .json();
    let st = &j["startup"];
    assert_eq!(st["host"], "copilot");
    let fam = |i: usize| &st["families"][i];
    assert_eq!(fam(0)["family"], "agents");
    assert_eq!(fam(0)["channel"], "<agents> block");
    let names: Vec<(&str, bool, u64)> = fam(0)["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap(),
                e["loaded"].as_bool().unwrap(),
                e["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    // `<agent>\n<name>reviewer</name>\n<description>Reviews code.</description>\n</agent>`: 79
    // bytes; `old` (the legacy chat mode): 70; `private` is not offered to the model.
    assert_eq!(
        names,
        [
            ("private", false, 0),
            ("reviewer", true, 79),
            ("old", true, 70)
        ]
    );
    assert_eq!(
        fam(0)["entries"][1]["text"],
        "<agent>\n<name>reviewer</name>\n<description>Reviews code.</description>\n</agent>"
    );
    assert_eq!(fam(1)["family"], "commands");
    assert_eq!(fam(1)["channel"], "not sent at startup");
    assert_eq!(fam(1)["entries"][0]["name"], "/review");
    assert_eq!(fam(1)["entries"][0]["loaded"], false);
    assert_eq!(fam(1)["entries"][0]["bytes"], 0);
    assert_eq!(
        fam(1)["entries"][0]["detail"],
        "sent only when the user runs it as a slash command; VS Code lists no prompt files to the model"
    );
    assert_eq!(fam(1)["bytes"], 0);
    assert_eq!(st["bytes"], 149);
    assert_eq!(st["tokens"], 38);
    let t = ws
        .run(&["context", "explain", "--host", "copilot", "."])
        .stdout;
    let table = t
        .split_once("\nStartup cost")
        .map(|(_, b)| b)
        .unwrap_or_default();
    assert_eq!(
        table,
        " (host copilot, bytes the host sends before the first prompt)
family    name      bytes     sent in              file
agents    private   not sent  <agents> block       .github/agents/private.agent.md (disable-model-invocation: true)
agents    reviewer  79        <agents> block       .github/agents/reviewer.agent.md
agents    old       70        <agents> block       .github/chatmodes/old.chatmode.md
commands  /review   not sent  not sent at startup  .github/prompts/review.prompt.md (sent only when the user runs it as a slash command; VS Code lists no prompt files to the model)
total: 149 bytes (~38 tokens); MCP tool definitions come from each server when it connects and are not counted
"
    );
}
