//! SKILL.md in the editor: immediate own diagnostics, cross-file shadowing, lenses, hovers,
//! completions, definitions, quick fixes, `alisio/skillCatalog`, `alisio/setSkillEnabled`.

use serde_json::{Value, json};

use crate::common::Ws;
use crate::harness::{codes, field_of, start, uri};

fn skill(name: &str, desc: &str) -> String {
    format!("---\nname: {name}\ndescription: {desc}\n---\nBody\n")
}

#[test]
fn bad_name_is_reported_at_once_and_cleared_by_an_edit() {
    let ws = Ws::new();
    let text = skill("Bad--Name", "Does things.");
    let f = ws.file(".agents/skills/Bad--Name/SKILL.md", &text);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    lsp.open(&f, &text);
    let diags = lsp.diagnostics_for(&f, |d| codes(d).contains(&"skill-name-format".to_string()));
    let d = diags
        .iter()
        .find(|d| d["code"] == "skill-name-format")
        .unwrap();
    assert_eq!(
        d["range"],
        json!({"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 15}})
    );
    assert_eq!(d["severity"], 1);
    // Quick fix: rename the skill to its kebab form.
    let actions = lsp
        .request("textDocument/codeAction", json!({"textDocument": {"uri": uri(&f)}, "range": d["range"], "context": {"diagnostics": [d]}}))
        .unwrap();
    let titles = field_of(&actions, "title");
    assert!(
        titles.contains(&"Rename skill to \"bad-name\""),
        "{titles:?}"
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Rename skill to \"bad-name\"")
        .unwrap();
    assert_eq!(
        fix["edit"]["changes"][uri(&f)][0],
        json!({"range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 15}}, "newText": "bad-name"})
    );
    // Apply it as the editor would: the file's own diagnostic disappears with version 2.
    lsp.notify("textDocument/didChange", json!({"textDocument": {"uri": uri(&f), "version": 2},
        "contentChanges": [{"range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 15}}, "text": "bad-name"}]}));
    let p = lsp.wait_notification("textDocument/publishDiagnostics", |p| {
        p["uri"] == uri(&f).as_str()
            && p["version"] == 2
            && !p["diagnostics"].to_string().contains("skill-name-format")
    });
    assert!(
        codes(p["diagnostics"].as_array().unwrap())
            .iter()
            .all(|c| c != "skill-name-format")
    );
}

#[test]
fn adding_a_shadowing_skill_updates_both_and_deleting_it_clears() {
    let ws = Ws::new();
    let winner_dir = ws.root.join(".agents/skills/pdf");
    let loser = ws.file(".claude/skills/pdf/SKILL.md", skill("pdf", "Claude copy."));
    let mut lsp = start(&ws, json!({}), json!({"trusted": true, "watcher": "off"}));
    // Alone, the .claude copy is effective: nothing to report.
    let l = lsp.on("textDocument/codeLens", &loser);
    assert!(
        l[0]["command"]["title"]
            .as_str()
            .unwrap()
            .starts_with("project · effective · "),
        "{l}"
    );
    let winner = crate::common::write(&winner_dir.join("SKILL.md"), skill("pdf", "Agents copy."));
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&winner), "type": 1}]}),
    );
    let diags = lsp.diagnostics_for(&loser, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["skill-shadowed"]);
    assert_eq!(diags[0]["severity"], 3);
    assert_eq!(
        diags[0]["message"],
        "shadowed by pdf (project) from .agents/skills/pdf/SKILL.md; this copy is not used"
    );
    assert_eq!(
        diags[0]["relatedInformation"][0]["location"]["uri"],
        uri(&winner)
    );
    let l = lsp.on("textDocument/codeLens", &loser);
    assert_eq!(
        l[0]["command"]["title"],
        "project · shadowed by pdf · not in catalog · body ~2 tokens"
    );
    // Go to definition from the shadowed name to the winner's name value.
    let def = lsp.at("textDocument/definition", &loser, 1, 7);
    assert_eq!(
        def,
        json!({"uri": uri(&winner), "range": {"start": {"line": 1, "character": 6}, "end": {"line": 1, "character": 9}}})
    );
    std::fs::remove_dir_all(&winner_dir).unwrap();
    lsp.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&winner), "type": 3}]}),
    );
    lsp.diagnostics_for(&loser, <[Value]>::is_empty);
}

#[test]
fn lens_catalog_and_set_enabled_agree_with_the_cli() {
    let ws = Ws::new();
    let f = ws.file(
        ".agents/skills/pdf-tools/SKILL.md",
        skill("pdf-tools", "Extract text and tables from PDF files."),
    );
    ws.file(
        ".alisio/config.json",
        "{\n  \"other\": {\"kept\": true}\n}\n",
    );
    let cli = ws.run(&["skills", "list", "--json", "--trust-project"]);
    let entry = &cli.json()[0];
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    let l = lsp.on("textDocument/codeLens", &f);
    assert_eq!(
        l[0]["command"]["title"].as_str().unwrap(),
        format!(
            "project · effective · ~{} tokens in catalog · body ~{} tokens",
            entry["catalogTokens"], entry["bodyTokens"]
        )
    );
    assert_eq!(l[0]["command"]["command"], "alisio.showSkill");
    assert_eq!(l[0]["command"]["arguments"], json!(["pdf-tools"]));
    assert_eq!(l[1]["command"]["title"], "Disable");
    assert_eq!(l[1]["command"]["command"], "alisio.toggleSkill");

    let cat = lsp.request("alisio/skillCatalog", json!({})).unwrap();
    assert_eq!(&cat[0], entry);

    let e = lsp
        .request(
            "alisio/setSkillEnabled",
            json!({"id": "pdf-tools", "enabled": false}),
        )
        .unwrap();
    assert_eq!(e["enabled"], false);
    let saved = std::fs::read_to_string(ws.root.join(".alisio/config.json")).unwrap();
    assert_eq!(
        saved,
        "{\n  \"other\": {\n    \"kept\": true\n  },\n  \"skillOverrides\": {\n    \"pdf-tools\": {\n      \"enabled\": false\n    }\n  }\n}\n"
    );
    let l = lsp.on("textDocument/codeLens", &f);
    assert_eq!(
        l[0]["command"]["title"],
        format!(
            "project · disabled · not in catalog · body ~{} tokens",
            entry["bodyTokens"]
        )
    );
    assert_eq!(l[1]["command"]["title"], "Enable");
    // The command flips it back.
    let e = lsp
        .request(
            "workspace/executeCommand",
            json!({"command": "alisio.toggleSkill", "arguments": ["pdf-tools"]}),
        )
        .unwrap();
    assert_eq!(e["enabled"], true);
    let err = lsp
        .request(
            "alisio/setSkillEnabled",
            json!({"id": "nope", "enabled": false}),
        )
        .unwrap_err();
    assert_eq!(err["message"], "Unknown effective skill: nope");
}

#[test]
fn set_enabled_in_an_untrusted_workspace_is_refused() {
    let ws = Ws::new();
    let f = ws.file(".agents/skills/pdf/SKILL.md", skill("pdf", "Scan"));
    let mut lsp = start(&ws, json!({}), json!({}));
    let err = lsp
        .request(
            "alisio/setSkillEnabled",
            json!({"id": "pdf", "enabled": false}),
        )
        .unwrap_err();
    assert_eq!(
        err["message"],
        "The workspace is not trusted; skill overrides are saved in .alisio/config.json only for trusted workspaces"
    );
    let diags = lsp.diagnostics_for(&f, |d| !d.is_empty());
    assert_eq!(codes(&diags), ["skill-untrusted"]);
    let l = lsp.on("textDocument/codeLens", &f);
    assert_eq!(
        l[0]["command"]["title"],
        "not loaded: workspace not trusted"
    );
    assert!(!ws.root.join(".alisio").exists());
}

#[test]
fn completion_hover_and_link_definition() {
    let ws = Ws::new();
    let text = "---\nname: pdf\ndescription: PDF.\n\n---\nSee [ref](reference.md).\n";
    let f = ws.file(".agents/skills/pdf/SKILL.md", text);
    let reference = ws.file(".agents/skills/pdf/reference.md", "0123456789");
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    lsp.open(&f, text);
    let items = lsp.at("textDocument/completion", &f, 3, 0);
    let labels = field_of(&items, "label");
    assert!(
        labels.contains(&"license") && labels.contains(&"metadata"),
        "{labels:?}"
    );
    assert!(
        !labels.contains(&"name") && !labels.contains(&"description"),
        "present keys are not offered: {labels:?}"
    );
    let meta = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "metadata")
        .unwrap();
    assert_eq!(meta["insertText"], "metadata:\n  ${1:key}: ${2:value}");
    assert_eq!(meta["insertTextFormat"], 2);

    let h = lsp.at("textDocument/hover", &f, 2, 3);
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(
        v.starts_with("Required. 1–1024 characters saying what the skill does and when to use it"),
        "{v}"
    );
    assert!(
        v.ends_with("Allowed by: alisio, spec, codex, claude-code"),
        "{v}"
    );
    let h = lsp.at("textDocument/hover", &f, 5, 12);
    assert_eq!(h["contents"]["value"], "reference.md: 10 bytes (~3 tokens)");

    let def = lsp.at("textDocument/definition", &f, 5, 12);
    assert_eq!(
        def,
        json!({"uri": uri(&reference), "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}})
    );
    let syms = lsp.on("textDocument/documentSymbol", &f);
    let names = field_of(&syms, "name");
    assert_eq!(names, ["name", "description"]);
    assert_eq!(syms[0]["kind"], 7);
}

#[test]
fn empty_documents_are_offered_the_shared_snippets() {
    let ws = Ws::new();
    let skill_file = ws.file(".agents/skills/new/SKILL.md", "");
    let agents = ws.file("AGENTS.md", "");
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    lsp.open(&skill_file, "");
    let items = lsp.at("textDocument/completion", &skill_file, 0, 0);
    let snippet = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "skill")
        .expect("skill snippet");
    assert_eq!(snippet["kind"], 15);
    assert_eq!(snippet["insertTextFormat"], 2);
    assert!(
        snippet["insertText"]
            .as_str()
            .unwrap()
            .starts_with("---\nname: ${1:skill-name}\ndescription: ")
    );
    lsp.open(&agents, "");
    let items = lsp.at("textDocument/completion", &agents, 0, 0);
    let labels = field_of(&items, "label");
    assert_eq!(labels, ["agents"]);
}

#[test]
fn granting_trust_through_configuration_reruns_discovery() {
    let ws = Ws::new();
    let f = ws.file(".agents/skills/pdf/SKILL.md", skill("pdf", "Scan"));
    let mut lsp = start(&ws, json!({}), json!({"trusted": false}));
    assert_eq!(
        codes(&lsp.diagnostics_for(&f, |d| !d.is_empty())),
        ["skill-untrusted"]
    );
    lsp.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"alisio": {"trusted": true}}}),
    );
    lsp.diagnostics_for(&f, <[Value]>::is_empty);
    let cat = lsp
        .request("alisio/skillCatalog", json!({"uri": uri(&f)}))
        .unwrap();
    assert_eq!(cat[0]["id"], "pdf");
    assert_eq!(cat[0]["effective"], true);
}

#[test]
fn the_hover_on_a_skill_shows_the_answer_of_every_host() {
    let ws = Ws::new();
    let text =
        "---\nname: Bad_Name\ndescription: Reads names. Use when testing bad names.\n---\nBody\n";
    let f = ws.file(".agents/skills/Bad_Name/SKILL.md", text);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true}));
    lsp.open(&f, text);
    // The opening line: the table alone (spec/skills.md §12).
    let h = lsp.at("textDocument/hover", &f, 0, 1);
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(
        v.starts_with("**Per host** (spec/skills.md §12)\n\n| host | answer | evidence |\n|---|---|---|\n| alisio | rejected: name must be lowercase letters, digits and single hyphens | source |\n| claude-code | loads | measured |\n"),
        "{v}"
    );
    assert!(
        v.contains("\n| gemini | loads | measured |\n") && v.contains("| upload | rejected: name must be lowercase letters, digits and single hyphens | docs |\n\n"),
        "{v}"
    );
    // Then each host's listing budget as a bar (spec/skills.md §6.5): Claude Code's bundled
    // entries and this skill against its default budget (§9.2), Codex's 2% of 272,000 tokens.
    // Copilot (§9.4): the block's frame (370 characters with line breaks) and this skill's
    // `<skill>` element (121 and its absolute path).
    let copilot = 370 + 121 + f.display().to_string().chars().count();
    assert!(copilot < 1000);
    assert!(
        v.ends_with(&format!(
            "**Listing budgets** (spec/skills.md §6.5)\n\n\
             - claude-code: `██░░░░░░░░` 6,208 of 30,000 columns (21%)\n\
             - codex: `░░░░░░░░░░` 21 of 5,440 tokens (0%)\n\
             - gemini: no budget (1,009 characters in full)\n\
             - copilot: no budget ({copilot} characters in full)\n"
        )),
        "{v}"
    );
    // The name value: the status line, then the same table.
    let h = lsp.at("textDocument/hover", &f, 1, 8);
    let v = h["contents"]["value"].as_str().unwrap();
    assert!(v.contains("\n\n**Per host** (spec/skills.md §12)\n"), "{v}");
}

/// The listing lens (spec/skills.md §6.5): one clause per host, from the same listings as
/// `skills list --listing`.
#[test]
fn listing_lens_names_each_hosts_fate() {
    let ws = Ws::new();
    let short = ws.file(
        ".agents/skills/pdf-tools/SKILL.md",
        skill("pdf-tools", "Extract text and tables from PDF files."),
    );
    let long = ws.file(
        ".claude/skills/long/SKILL.md",
        skill("long", &format!("Use when long. {}", "x".repeat(1600))),
    );
    let mut lsp = start(&ws, json!({}), json!({"trusted": true, "watcher": "off"}));
    let title = |l: &Value| {
        l.as_array().unwrap().last().unwrap()["command"]["title"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        title(&lsp.on("textDocument/codeLens", &short)),
        "listed: claude-code ✗ (not listed), codex ✓, gemini ✓, copilot ✓"
    );
    let l = lsp.on("textDocument/codeLens", &long);
    assert_eq!(
        title(&l),
        "listed: claude-code shortened to 1536, codex ✗ (not listed), gemini ✗ (not listed), copilot shortened to 1024"
    );
    assert_eq!(
        l.as_array().unwrap().last().unwrap()["command"]["command"],
        ""
    );
    let cli = ws.run(&[
        "skills",
        "list",
        "--listing",
        "--host",
        "claude-code",
        "--json",
    ]);
    let e = cli.json()["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "long")
        .cloned()
        .unwrap();
    assert_eq!(e["shortenedTo"], 1536, "the CLI agrees");
}

#[test]
fn listing_lens_follows_hosts_enabled() {
    let ws = Ws::new();
    let f = ws.file(
        ".agents/skills/pdf-tools/SKILL.md",
        skill("pdf-tools", "Extract text and tables from PDF files."),
    );
    ws.file(
        ".alisio/config.json",
        r#"{"hosts": {"enabled": ["alisio", "codex", "copilot", "cursor"]}}"#,
    );
    let mut lsp = start(&ws, json!({}), json!({"trusted": true, "watcher": "off"}));
    let l = lsp.on("textDocument/codeLens", &f);
    assert_eq!(
        l.as_array().unwrap().last().unwrap()["command"]["title"],
        "listed: codex ✓, copilot ✓, cursor not simulated"
    );
}

/// `alisio/testSkillTriggers` (spec/skills.md §10): the offline lab, as `skills test --json`.
#[test]
fn test_skill_triggers_request_matches_the_cli() {
    let ws = Ws::new();
    let f = ws.file(
        ".agents/skills/pdf-tools/SKILL.md",
        skill("pdf-tools", "Extract text and tables from PDF files."),
    );
    ws.file(
        ".agents/skills/pdf-tools/evals/triggers.json",
        r#"{"trigger": ["extract tables from this pdf", "draw plots of these tables"],
            "noTrigger": [{"prompt": "draw a plot", "winner": "chart-maker"}, "hello there"]}"#,
    );
    ws.file(
        ".agents/skills/chart-maker/SKILL.md",
        skill("chart-maker", "Draw charts and plots from spreadsheets."),
    );
    let mut lsp = start(&ws, json!({}), json!({"trusted": true, "watcher": "off"}));
    let got = lsp
        .request("alisio/testSkillTriggers", json!({"uri": uri(&f)}))
        .unwrap();
    let cli = ws
        .run(&["skills", "test", "--json", "--trust-project"])
        .json();
    let hosts: Vec<&str> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["host"].as_str().unwrap())
        .collect();
    assert_eq!(
        hosts,
        ["alisio", "claude-code", "codex", "gemini", "copilot"]
    );
    let codex = &got[2];
    assert_eq!(
        codex["skills"][0],
        json!({"name": "pdf-tools", "uri": uri(&f).as_str(), "listed": true,
            "truePositives": 1, "falsePositives": 0, "falseNegatives": 1, "trueNegatives": 2,
            "precision": 1.0, "recall": 0.5})
    );
    assert_eq!(
        codex["misrouted"][0]["prompt"],
        "draw plots of these tables"
    );
    assert_eq!(codex["misrouted"][0]["uri"], uri(&f).as_str());
    assert_eq!(
        codex["misrouted"][0]["routed"],
        cli[2]["misrouted"][0]["routed"]
    );
    assert_eq!(
        codex["skills"][0]["truePositives"],
        cli[2]["skills"][0]["truePositives"]
    );
    // No eval file: a request error that says so.
    let other = ws.root.join(".agents/skills/chart-maker/SKILL.md");
    let e = lsp.request("alisio/testSkillTriggers", json!({"uri": uri(&other)}));
    assert!(e.is_err(), "{e:?}");
}

/// The hover's budget bars follow the open document's current text (spec/skills.md §6.5), not
/// the last pass: an unsaved edit that lengthens the description shows at once in the next
/// hover, with the figures `skills list --listing` gives once the same text is on disk. The
/// hover asks right after the change, usually before the pass it schedules has finished (a
/// hover that read the last pass failed this test in 4 runs of 5); the deterministic form is
/// `lsp::skills::tests::budget_bars_follow_the_buffer_not_the_last_pass`.
#[test]
fn the_hover_budget_bars_follow_the_unsaved_text() {
    let ws = Ws::new();
    let short = skill("pdf-tools", "Extract text from PDF files.");
    let f = ws.file(".agents/skills/pdf-tools/SKILL.md", &short);
    let mut lsp = start(&ws, json!({}), json!({"trusted": true, "watcher": "off"}));
    lsp.open(&f, &short);
    let bars = |lsp: &mut crate::harness::Lsp| {
        let h = lsp.at("textDocument/hover", &f, 0, 1);
        let v = h["contents"]["value"].as_str().unwrap().to_string();
        v[v.find("**Listing budgets**").unwrap()..].to_string()
    };
    let before = bars(&mut lsp);
    let long = skill(
        "pdf-tools",
        &format!(
            "Extract text from PDF files. Use when {}",
            "a pdf ".repeat(150)
        ),
    );
    lsp.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&f), "version": 2},
               "contentChanges": [{"text": long}]}),
    );
    let after = bars(&mut lsp);
    assert_ne!(before, after);
    // The same text on disk: the CLI's figures for each host.
    std::fs::write(&f, &long).unwrap();
    let total = |host: &str, key: &str| {
        ws.run(&[
            "skills",
            "list",
            "--listing",
            "--host",
            host,
            "--json",
            "--trust-project",
        ])
        .json()[key]
            .as_u64()
            .unwrap()
    };
    let grouped = |n: u64| {
        let s = n.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let codex = format!(" {} of 5,440 tokens", grouped(total("codex", "totalFull")));
    let gemini = format!(
        "- gemini: no budget ({} characters in full)\n",
        grouped(total("gemini", "total"))
    );
    let copilot = format!(
        "- copilot: no budget ({} characters in full)\n",
        grouped(total("copilot", "total"))
    );
    assert!(after.contains(&codex), "{codex}\n{after}");
    assert!(after.contains(&gemini), "{gemini}\n{after}");
    assert!(after.contains(&copilot), "{copilot}\n{after}");
    assert!(!before.contains(&copilot), "{before}");
}
