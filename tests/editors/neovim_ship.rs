//! Headless Neovim with the shipped plugin: `:checkhealth alisio` (lua/alisio/health.lua), the
//! client attaching only to the files the server serves, and `:AlisioInit`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::Ws;
use crate::neovim::find_nvim;
use crate::{repo_root, run_with_timeout, server_bin};

fn probe(nvim: &Path, ws: &Ws, server: &Path, files: &[PathBuf], step: &str) -> Value {
    probe_env(nvim, ws, server, files, step, &[])
}

fn probe_env(
    nvim: &Path,
    ws: &Ws,
    server: &Path,
    files: &[PathBuf],
    step: &str,
    env: &[(&str, String)],
) -> Value {
    let base = ws.tmp.path().join("nvim-ship");
    let config = base.join("config").join("nvim");
    std::fs::create_dir_all(&config).unwrap();
    let plugin = repo_root().join("editors").join("neovim");
    std::fs::write(
        config.join("init.lua"),
        format!(
            "vim.opt.runtimepath:prepend({:?})\nvim.lsp.enable('alisio_ls')\n",
            plugin.display().to_string()
        ),
    )
    .unwrap();
    let out = base.join("out.json");
    let joined: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut cmd = Command::new(nvim);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &ws.home)
        .env("ALISIO_CONFIG_HOME", &ws.config_home)
        .env("ALISIO_STATE_HOME", ws.tmp.path().join("state"))
        .env("XDG_CONFIG_HOME", base.join("config"))
        .env("XDG_DATA_HOME", base.join("data"))
        .env("XDG_STATE_HOME", base.join("state"))
        .env("XDG_CACHE_HOME", base.join("cache"))
        .env("ALISIO_LS_PATH", server)
        .env("ALISIO_TEST_OUT", &out)
        .env("ALISIO_TEST_FILES", joined.join(":"))
        .env("ALISIO_TEST_STEP", step)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(&ws.root)
        .arg("--headless")
        .arg("-c")
        .arg(format!(
            "luafile {}",
            repo_root().join("tests/clients/neovim/ship.lua").display()
        ));
    let o = run_with_timeout(&mut cmd, Duration::from_secs(90));
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        panic!(
            "no probe output ({e}); {:?}\n{}\n{}",
            o.status, o.stdout, o.stderr
        )
    });
    serde_json::from_str(&text).unwrap()
}

fn lines(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_owned())
        .collect()
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

#[test]
fn checkhealth_reports_binary_version_neovim_client_and_trust_without_error() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let r = probe(&nvim, &ws, &server_bin(), &[f], "health");
    assert_eq!(r["attached"], json!(true));
    let health = lines(&r["health"]);
    let text = health.join("\n");
    assert!(!text.contains("ERROR"), "{text}");
    let want = format!(
        "- ✅ OK binary: {} (alisio-ls {})",
        server_bin().display(),
        env!("CARGO_PKG_VERSION")
    );
    assert!(health.contains(&want), "{want} not in\n{text}");
    assert!(
        health.iter().any(|l| l.starts_with("- ✅ OK Neovim 0.")),
        "{text}"
    );
    assert!(
        health.iter().any(|l| l.starts_with("- ✅ OK client ")
            && l.contains("attached to 1 buffer(s) (AGENTS.md); root ")
            && l.ends_with(&ws.root.display().to_string())),
        "{text}"
    );
    assert!(
        health.contains(
            &"- workspace not trusted: project skills and .alisio/config.json are not loaded"
                .to_owned()
        ),
        "{text}"
    );
}

#[test]
fn checkhealth_reports_an_error_when_the_binary_is_missing() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let missing = ws.tmp.path().join("nowhere/alisio-ls");
    let r = probe(&nvim, &ws, &missing, &[f], "health");
    assert_eq!(r["attached"], json!(false));
    let health = lines(&r["health"]);
    let want = format!(
        "- ❌ ERROR alisio-ls binary not found: {}",
        missing.display()
    );
    assert!(
        health.contains(&want),
        "{want} not in\n{}",
        health.join("\n")
    );
}

#[test]
fn the_client_attaches_to_markdown_and_alisio_config_but_not_to_other_json() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    let pkg = ws.file("package.json", "{\"name\": \"x\"}\n");
    let md = ws.file("docs/notes.md", "# Notes\n");
    let cfg = ws.file(".alisio/config.json", "{}\n");
    let r = probe(&nvim, &ws, &server_bin(), &[pkg, md, cfg], "attach");
    assert_eq!(
        r["per_file"],
        json!([
            {"name": "package.json", "filetype": "json", "attached": false},
            {"name": "notes.md", "filetype": "markdown", "attached": true},
            {"name": "config.json", "filetype": "json", "attached": true},
        ])
    );
}

#[test]
fn alisio_init_shows_the_proposal_then_writes_it_on_write() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    ws.file("go.mod", "module x\n");
    let agents = ws.file("AGENTS.md", "# Ours\n");
    let r = probe(
        &nvim,
        &ws,
        &server_bin(),
        std::slice::from_ref(&agents),
        "init",
    );
    assert_eq!(r["attached"], json!(true));
    assert_eq!(r["choices"], json!(["Write", "Cancel"]));
    assert_eq!(r["last"]["written"], json!(true), "{r:#}");
    let proposed = r["last"]["proposal"]["proposed"].as_str().unwrap();
    assert_eq!(std::fs::read_to_string(&agents).unwrap(), proposed);
    assert!(proposed.starts_with("# Ours\n\n<!-- alisio-ls init: begin"));
    assert!(proposed.contains("- Test command: `go test ./...`\n"));
    assert_eq!(
        r["tabs"],
        json!(1),
        "the diff tab is closed after the write"
    );
}

#[test]
fn the_report_buffer_has_a_sparkline_of_the_tokens_per_segment() {
    let nvim = nvim_or_skip!();
    let ws = Ws::new();
    ws.file("a.txt", "alpha");
    ws.file(
        "s.jsonl",
        "{\"toolCalls\":[{\"id\":\"r1\",\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}]}\n{\"text\":\"ok\"}\n",
    );
    let run = crate::common::run_cmd(ws.cmd().args([
        "run",
        "--json",
        "--governor",
        "on",
        "--script",
        "s.jsonl",
        "hi",
    ]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let list = crate::common::run_cmd(ws.cmd().args(["sessions", "list", "--json"])).json();
    let id = list[0]["sessionId"].as_str().unwrap().to_owned();
    let report = crate::common::run_cmd(ws.cmd().args(["sessions", "report", &id, "--json"]));
    assert_eq!(report.code, 0, "{}", report.stderr);
    let rep: Value = serde_json::from_str(&report.stdout).unwrap();
    let f = ws.file("AGENTS.md", "# Rules\n");
    let r = probe_env(
        &nvim,
        &ws,
        &server_bin(),
        &[f],
        "spark",
        &[("ALISIO_TEST_REPORT", report.stdout.clone())],
    );
    assert_eq!(r["spark"], "▁▂▃▄▅▆▇█");
    assert_eq!(r["wide"], "▂▂█", "buckets of two values, summed");
    // The line the buffer shows: one cell per segment (fewer than 60), the largest a full bar.
    let line = lines(&r["lines"])
        .into_iter()
        .find(|l| l.starts_with("tokens by segment "))
        .unwrap();
    let cells: Vec<char> = line["tokens by segment ".len()..].chars().collect();
    let segs = rep["segments"].as_array().unwrap();
    assert_eq!(cells.len(), segs.len());
    let max = segs
        .iter()
        .map(|s| s["tokens"].as_u64().unwrap())
        .max()
        .unwrap();
    for (c, s) in cells.iter().zip(segs) {
        assert_eq!(*c == '█', s["tokens"].as_u64().unwrap() == max, "{line}");
    }
}
