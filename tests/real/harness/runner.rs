//! Laying a case out on disk, running its client, and the suite's own test runner (this target
//! has `harness = false`: the binary is also the inner runner of [`super::netns`]). Output and
//! exit code follow libtest: `test NAME ... ok`, then
//! `test result: ok. N passed; M failed; K ignored; 0 measured; F filtered out; finished in Ts`.

use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::json;

use super::clients::{self, Client, Installed};
use super::netns::{self, Plan};
use super::{Case, Ctx, Verdict, fill};

fn write(path: &Path, content: &str) -> Result<(), String> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).map_err(|e| format!("mkdir {}: {e}", p.display()))?;
    }
    std::fs::write(path, content).map_err(|e| format!("write {}: {e}", path.display()))
}

/// Writes the case's tree below `base` (`ws/`, `home/`, the clients' settings files).
///
/// # Errors
/// A file that cannot be written.
pub fn lay_out(case: &Case, base: &Path) -> Result<(), String> {
    let ws = base.join("ws");
    let home = base.join("home");
    for d in [&ws, &home] {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    if case.git {
        std::fs::create_dir_all(ws.join(".git")).map_err(|e| e.to_string())?;
    }
    for d in &case.dirs {
        std::fs::create_dir_all(base.join(d)).map_err(|e| e.to_string())?;
    }
    for (rel, content) in &case.files {
        write(&base.join(rel), &fill(content, base))?;
    }
    for (link, target) in &case.links {
        let l = base.join(link);
        if let Some(p) = l.parent() {
            std::fs::create_dir_all(p).map_err(|e| e.to_string())?;
        }
        std::os::unix::fs::symlink(fill(target, base), &l)
            .map_err(|e| format!("symlink {}: {e}", l.display()))?;
    }
    match case.client {
        Client::Codex => {
            let path = home.join(".codex/config.toml");
            let own = std::fs::read_to_string(&path).unwrap_or_default();
            let text = format!(
                "{}{}\n{}",
                fill(&case.codex_config, base),
                own,
                clients::codex_provider()
            );
            write(&path, &text)?;
        }
        Client::Gemini => {
            let settings = clients::gemini_settings(&case.gemini_settings);
            write(
                &home.join(".gemini/settings.json"),
                &fill(&settings.to_string(), base),
            )?;
        }
        Client::ClaudeCode => {
            if let Some(s) = &case.claude_settings {
                write(
                    &home.join(".claude/settings.json"),
                    &fill(&s.to_string(), base),
                )?;
            }
        }
    }
    if let Some(cfg) = &case.alisio_config {
        write(&ws.join(".alisio/config.json"), &cfg.to_string())?;
    }
    Ok(())
}

/// The client's read-tool call for an absolute path.
fn read_turn(client: Client, abs: &Path) -> super::Turn {
    let p = abs.display().to_string();
    match client {
        Client::ClaudeCode => super::Turn::Tool {
            name: "Read".into(),
            input: json!({"file_path": p}),
        },
        Client::Codex => super::Turn::Tool {
            name: "shell".into(),
            input: json!({"command": ["cat", p]}),
        },
        Client::Gemini => super::Turn::Tool {
            name: "read_file".into(),
            input: json!({"file_path": p}),
        },
    }
}

/// Runs the case's client in a network namespace and returns the check's context.
///
/// # Errors
/// The run failed (the client timed out, the runner broke).
pub fn run_client<'a>(case: &'a Case, inst: &Installed, base: &Path) -> Result<Ctx<'a>, String> {
    let home = base.join("home");
    let cwd = base.join(&case.cwd);
    let (argv, env) = clients::command(inst, &home, &case.prompt);
    let mut script = case.script.clone();
    // `{ws}`, `{home}` and `{base}` in a scripted tool call's input name the laid-out tree.
    for t in &mut script.turns {
        if let super::Turn::Tool { input, .. } = t
            && let Ok(v) = serde_json::from_str(&fill(&input.to_string(), base))
        {
            *input = v;
        }
    }
    if let Some(r) = &case.read {
        script.turns = vec![
            read_turn(case.client, &base.join(r)),
            super::Turn::Text("done".into()),
        ];
    }
    let mut templated = Vec::new();
    if case.client == Client::Codex {
        templated.push(home.join(".codex/config.toml"));
    }
    let plan = Plan {
        argv,
        env,
        cwd: cwd.clone(),
        api: case.client.api(),
        script,
        timeout_ms: case.timeout_ms,
        templated,
    };
    let scratch = base.join("run");
    let outcome = netns::run(&plan, &scratch)?;
    if outcome.timed_out {
        return Err(format!(
            "{} did not finish within {} ms (its process group was killed)\nstderr:\n{}",
            case.client.package(),
            case.timeout_ms,
            outcome.stderr
        ));
    }
    if outcome.requests.is_empty() && !case.no_request {
        return Err(format!(
            "{} sent no request (exit {:?})\nstdout:\n{}\nstderr:\n{}",
            case.client.package(),
            outcome.exit_code,
            outcome.stdout,
            outcome.stderr
        ));
    }
    Ok(Ctx {
        case,
        base: base.to_path_buf(),
        ws: base.join("ws"),
        home,
        cwd,
        client_version: inst.version.clone(),
        outcome,
    })
}

/// Runs `cases` (those whose full name contains one of the command-line filters, all without
/// one) on `ALISIO_REAL_JOBS` threads (default 2), prints libtest-style lines and returns the
/// exit code (1 when a case failed).
#[must_use]
pub fn main(cases: Vec<Case>) -> i32 {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let total = cases.len();
    let selected: Vec<Case> = cases
        .into_iter()
        .filter(|c| filters.is_empty() || filters.iter().any(|f| c.full_name().contains(f)))
        .collect();
    let filtered_out = total - selected.len();
    let jobs = std::env::var("ALISIO_REAL_JOBS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(2);
    println!("\nrunning {} tests", selected.len());
    let started = Instant::now();
    let queue = Mutex::new(selected.iter());
    let results: Mutex<Vec<(String, Verdict)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let Some(case) = queue.lock().ok().and_then(|mut q| q.next()) else {
                        return;
                    };
                    let t = Instant::now();
                    let v = run_case(case);
                    let secs = t.elapsed().as_secs_f64();
                    let line = match &v {
                        Verdict::Pass => format!("test {} ... ok ({secs:.1}s)", case.full_name()),
                        Verdict::Skip(r) => {
                            format!("test {} ... ignored, {r}", case.full_name())
                        }
                        Verdict::Fail(_) => {
                            format!("test {} ... FAILED ({secs:.1}s)", case.full_name())
                        }
                    };
                    println!("{line}");
                    if let Ok(mut r) = results.lock() {
                        r.push((case.full_name(), v));
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    let mut failed: Vec<(&String, &String)> = Vec::new();
    let (mut passed, mut ignored) = (0, 0);
    for (name, v) in &results {
        match v {
            Verdict::Pass => passed += 1,
            Verdict::Skip(_) => ignored += 1,
            Verdict::Fail(e) => failed.push((name, e)),
        }
    }
    if !failed.is_empty() {
        println!("\nfailures:\n");
        for (name, e) in &failed {
            println!("---- {name} ----\n{e}\n");
        }
        println!("failures:");
        for (name, _) in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {passed} passed; {} failed; {ignored} ignored; 0 measured; {filtered_out} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    i32::from(!failed.is_empty())
}

use super::run_case;
