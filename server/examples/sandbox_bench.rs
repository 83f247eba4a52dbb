//! Benchmark: the process sandbox's cost per process start (docs/security.md §8 "Overhead").
//! Starts each command `runs` times, the three ways interleaved so that they share the load:
//! directly (`Command::spawn`, as with `process.sandbox: off`), through the run's sandbox
//! thread (`Sandbox::spawn`, as the process tools start commands), and, with `--helper BIN`,
//! through the re-exec helper `BIN sandbox-exec … -- command` (what the tools did before).
//! Prints the median wall time of a start-to-exit and the mean CPU (user+sys of this process,
//! its sandbox thread included, and of the children) per start, and the ratios to direct.
//! Run by bench/sandbox.sh: `cargo run --release --example sandbox_bench -- WS TMP RUNS [--helper BIN]`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use alisio_ls::session::sandbox::{Mode, Sandbox};
use nix::sys::resource::{UsageWho, getrusage};

/// User+sys seconds of this process and of its waited-for children.
fn cpu() -> f64 {
    let secs = |w| {
        getrusage(w).map_or(0.0, |u| {
            let (a, b) = (u.user_time(), u.system_time());
            (a.tv_sec() + b.tv_sec()) as f64 + (a.tv_usec() + b.tv_usec()) as f64 / 1e6
        })
    };
    secs(UsageWho::RUSAGE_SELF) + secs(UsageWho::RUSAGE_CHILDREN)
}

fn quiet(ws: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args)
        .current_dir(ws)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// One way of starting a command; `None` when it did not exit 0.
type Start<'a> = Box<dyn Fn(&str, &[&str]) -> Option<()> + 'a>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() -> std::process::ExitCode {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (Some(ws), Some(tmp)) = (a.first(), a.get(1)) else {
        eprintln!("usage: sandbox_bench WS TMP [RUNS] [--helper BIN]");
        return std::process::ExitCode::from(2);
    };
    let (ws, tmp) = (PathBuf::from(ws), PathBuf::from(tmp));
    let runs: usize = a.get(2).and_then(|r| r.parse().ok()).unwrap_or(200);
    let helper = a
        .iter()
        .position(|x| x == "--helper")
        .and_then(|i| a.get(i + 1))
        .map(PathBuf::from);
    let sb = Sandbox::prepare(Mode::WorkspaceWrite, false, tmp.clone());
    if let Some(why) = &sb.unavailable {
        eprintln!("no sandbox on this machine: {why}");
        return std::process::ExitCode::from(1);
    }
    let write = [ws.clone()];
    let (t, w) = (tmp.display().to_string(), ws.display().to_string());
    let mut ways: Vec<(&str, Start)> = vec![
        (
            "direct",
            Box::new(|p, args| quiet(&ws, p, args).status().ok()?.success().then_some(())),
        ),
        (
            "sandbox thread",
            Box::new(|p, args| {
                let mut c = quiet(&ws, p, args);
                sb.apply_env(&mut c).ok()?;
                let mut child = sb.spawn(c, &write).ok()?;
                child.wait().ok()?.success().then_some(())
            }),
        ),
    ];
    if let Some(h) = &helper {
        ways.push((
            "re-exec helper",
            Box::new(|p, args| {
                let mut all = vec![
                    "sandbox-exec",
                    "--mode",
                    "workspace-write",
                    "--write",
                    &t,
                    "--write",
                    &w,
                    "--",
                    p,
                ];
                all.extend_from_slice(args);
                quiet(&ws, h, &all).status().ok()?.success().then_some(())
            }),
        ));
    }
    println!("{runs} starts of each, interleaved; wall = median start-to-exit ms,");
    println!(
        "cpu = mean user+sys ms per start (this process and its sandbox thread + the children)"
    );
    println!(
        "{:<12} {:<16} {:>8} {:>6} {:>8} {:>6}",
        "command", "started", "wall", "ratio", "cpu", "ratio"
    );
    for (name, program, args) in [
        ("true", "true", &[][..]),
        ("git status", "git", &["status", "--porcelain"][..]),
    ] {
        let mut wall = vec![Vec::with_capacity(runs); ways.len()];
        let mut used = vec![0.0; ways.len()];
        for i in 0..runs + 5 {
            for (k, (_, start)) in ways.iter().enumerate() {
                let (c0, t0) = (cpu(), Instant::now());
                if start(program, args).is_none() {
                    eprintln!("{name} failed when started {}", ways[k].0);
                    return std::process::ExitCode::from(1);
                }
                // The first five of each are warm-up.
                if i >= 5 {
                    wall[k].push(t0.elapsed().as_secs_f64() * 1000.0);
                    used[k] += (cpu() - c0) * 1000.0;
                }
            }
        }
        let (w0, c0) = (median(wall[0].clone()), used[0] / runs as f64);
        for (k, (way, _)) in ways.iter().enumerate() {
            let (w, c) = (median(wall[k].clone()), used[k] / runs as f64);
            println!(
                "{name:<12} {way:<16} {w:>8.2} {:>6.2} {c:>8.2} {:>6.2}",
                w / w0,
                c / c0
            );
        }
    }
    std::process::ExitCode::SUCCESS
}
