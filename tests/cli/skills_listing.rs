//! `skills list --listing` and the listing diagnostics (spec/skills.md §9) on hand-made catalogs.

use crate::common::{Ws, run_cmd, write};

fn user_skill(ws: &Ws, root: &str, name: &str, desc: &str) {
    write(
        &ws.home.join(root).join(name).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {desc}\n---\nBody\n"),
    );
}

#[test]
fn dropped_description_names_host_budget_overage_and_the_space_takers() {
    let ws = Ws::new();
    user_skill(&ws, ".claude/skills", "abc", &"x".repeat(50));
    let mut c = ws.cmd();
    c.env("SLASH_COMMAND_TOOL_CHAR_BUDGET", "6131")
        .args(["skills", "validate", "--json"]);
    let j = run_cmd(&mut c).json();
    let d = &j["diagnostics"][0];
    assert_eq!(d["code"], "skill-description-dropped");
    assert_eq!(d["severity"], "warning");
    assert_eq!(
        d["message"],
        "claude-code lists this skill by name only, without its description: the full listing \
         needs 6266 columns and the budget is 6131 (SLASH_COMMAND_TOOL_CHAR_BUDGET), 135 over; \
         the most space goes to claude-code's own entries (6062)"
    );
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 2, "character": 13})
    );
    assert_eq!(
        d["range"]["end"],
        serde_json::json!({"line": 2, "character": 63})
    );
    // One column more and it is kept: no diagnostic.
    let mut c = ws.cmd();
    c.env("SLASH_COMMAND_TOOL_CHAR_BUDGET", "6132")
        .args(["skills", "validate", "--json"]);
    assert_eq!(run_cmd(&mut c).json()["diagnostics"], serde_json::json!([]));
}

#[test]
fn listing_json_shows_each_entry_as_sent_and_the_budget() {
    let ws = Ws::new();
    user_skill(&ws, ".claude/skills", "pdf", "Fill PDF forms.");
    user_skill(&ws, ".claude/skills", "big", &"y".repeat(1600));
    let r = ws.run(&[
        "skills",
        "list",
        "--host",
        "claude-code",
        "--listing",
        "--json",
        "--model",
        "claude-sonnet-4-5",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["host"], "claude-code");
    assert_eq!(j["unit"], "columns");
    assert_eq!(j["budget"], 8000.0);
    assert_eq!(
        j["budgetSource"],
        "200000 tokens × 4 bytes × skillListingBudgetFraction 0.01"
    );
    let e = &j["entries"];
    assert_eq!(e[0]["name"], "big");
    assert_eq!(e[0]["status"], "shortened");
    assert_eq!(e[0]["shortenedFrom"], 1600);
    assert_eq!(e[0]["shortenedTo"], 1536);
    assert_eq!(e[1]["text"], "- pdf: Fill PDF forms.");
    assert_eq!(
        e[1]["file"],
        ws.home
            .join(".claude/skills/pdf/SKILL.md")
            .display()
            .to_string()
    );
    assert_eq!(e[2]["builtin"], true);
    assert_eq!(e.as_array().unwrap().len(), 15);
    // The cut is reported as the per-entry cap, not the budget.
    let v = ws.run(&["skills", "validate", "--json"]).json();
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "skill-description-shortened");
    assert_eq!(
        d["message"],
        "claude-code cuts this description from 1600 to 1536 characters, its cap for one entry"
    );
}

#[test]
fn hosts_without_a_simulated_listing_say_so() {
    let ws = Ws::new();
    let r = ws.run(&["skills", "list", "--host", "cursor", "--listing"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.trim(),
        "error: the skill listing of cursor is not simulated (spec/skills.md §9.4)"
    );
}

#[test]
fn codex_listing_is_limited_to_hosts_enabled() {
    let ws = Ws::new();
    // 30 descriptions of 1,000 characters: about 7,800 tokens, over 2% of Codex's default
    // 272,000-token window (5,440).
    for i in 0..30 {
        write(
            &ws.root.join(format!(".agents/skills/s{i}/SKILL.md")),
            format!(
                "---\nname: s{i}\ndescription: {}\n---\nB\n",
                "z".repeat(1000)
            ),
        );
    }
    let all = ws
        .run(&["skills", "validate", "--json", "--trust-project"])
        .json();
    let codes: Vec<&str> = all["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, vec!["skill-description-shortened"; 30]);
    assert!(
        all["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("codex shortens this description from 1000 to "),
        "{}",
        all["diagnostics"][0]["message"]
    );
    ws.file(
        ".alisio/config.json",
        r#"{"hosts": {"enabled": ["claude-code"]}}"#,
    );
    let mut c = ws.cmd();
    c.args(["skills", "validate", "--json", "--trust-project"]);
    assert_eq!(run_cmd(&mut c).json()["diagnostics"], serde_json::json!([]));
}

/// Copilot (VS Code): the `<skills>` block as `computeAutomaticInstructions.ts` writes it and
/// Copilot Chat resolves its tool reference (spec/skills.md §9.4), from the workspace's and the
/// user's roots; a description over 1,024 UTF-16 units is cut there, and with
/// `hosts.enabled: ["copilot"]` the cut is reported with the cap message.
#[test]
fn copilot_listing_is_the_skills_block_of_the_vscode_source() {
    let ws = Ws::new();
    write(
        &ws.root.join(".github/skills/pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Reads <b>PDF</b> files. Use when a PDF is attached.\n---\nBody\n",
    );
    let long = format!("Use when long. {}", "y".repeat(1100));
    write(
        &ws.root.join(".claude/skills/long/SKILL.md"),
        format!("---\nname: long\ndescription: {long}\n---\nBody\n"),
    );
    write(
        &ws.root.join(".agents/skills/hidden/SKILL.md"),
        "---\nname: hidden\ndescription: Manual.\ndisable-model-invocation: true\n---\n",
    );
    user_skill(&ws, ".copilot/skills", "notes", "Takes notes.");
    let j = ws
        .run(&["skills", "list", "--listing", "--host", "copilot", "--json"])
        .json();
    let pdf = ws.root.join(".github/skills/pdf/SKILL.md");
    let notes = ws.home.join(".copilot/skills/notes/SKILL.md");
    assert_eq!(
        j["preamble"],
        serde_json::json!([
            "<skills>",
            "Here is a list of skills that contain domain specific knowledge on a variety of topics.",
            "Each skill comes with a description of the topic and a file path that contains the detailed instructions.",
            "When a user asks you to perform a task that falls within the domain of a skill, use the 'read_file' tool to acquire the full instructions from the file URI."
        ])
    );
    assert_eq!(j["postamble"], serde_json::json!(["</skills>"]));
    assert_eq!(j["budget"], serde_json::Value::Null, "no budget: {j}");
    let e = j["entries"].as_array().unwrap();
    let names: Vec<&str> = e.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pdf", "long", "notes"]);
    assert_eq!(
        e[0]["text"],
        format!(
            "<skill>\n<name>pdf</name>\n<description>Reads PDF files. Use when a PDF is attached.</description>\n<file>{}</file>\n</skill>",
            pdf.display()
        )
    );
    assert_eq!(e[1]["status"], "shortened");
    assert_eq!(
        (e[1]["shortenedFrom"].as_u64(), e[1]["shortenedTo"].as_u64()),
        (Some(1115), Some(1024))
    );
    assert_eq!(
        e[2]["text"],
        format!(
            "<skill>\n<name>notes</name>\n<description>Takes notes.</description>\n<file>{}</file>\n</skill>",
            notes.display()
        )
    );
    // The frame and every entry with its line break.
    let frame: u64 = j["preamble"]
        .as_array()
        .unwrap()
        .iter()
        .chain(j["postamble"].as_array().unwrap())
        .map(|l| l.as_str().unwrap().chars().count() as u64 + 1)
        .sum();
    let entries: u64 = e
        .iter()
        .map(|e| e["text"].as_str().unwrap().chars().count() as u64 + 1)
        .sum();
    assert_eq!(j["total"].as_u64(), Some(frame + entries));
    // The cut reported where copilot is enabled.
    ws.file(
        ".alisio/config.json",
        r#"{"hosts": {"enabled": ["copilot"]}}"#,
    );
    let mut c = ws.cmd();
    c.args(["skills", "validate", "--json", "--trust-project"]);
    let v = run_cmd(&mut c).json();
    let d: Vec<&serde_json::Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "skill-description-shortened")
        .collect();
    assert_eq!(d.len(), 1, "{v}");
    assert_eq!(
        d[0]["message"],
        "copilot cuts this description from 1115 to 1024 characters, its cap for one entry"
    );
}
