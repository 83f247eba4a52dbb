//! Benchmark: the process sandbox's cost per process start (docs/security.md §8 "Overhead").
//! Starts each command `runs` times each way, the ways taking turns so that they share the load:
//! directly (`Command::spawn`, as with `process.sandbox: off`; and, as a control, from an
//! unrestricted thread of their own, the way the sandbox thread does), through the run's sandbox
//! thread (`Sandbox::spawn`, as the process tools start commands), and, for each `--helper BIN`,
//! through the re-exec helper `BIN sandbox-exec … -- command` (what the tools did before).
//! Prints the median wall time of a start-to-exit and the mean CPU (user+sys of this process,
//! its sandbox thread included, and of the children) per start, and the ratios to direct.
//! Run by bench/sandbox.sh: `cargo run --release --example sandbox_bench -- WS TMP RUNS [--helper BIN]...`.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use alisio_ls::sandbox::{Mode, Sandbox};

/// User+sys seconds of this process (all its threads) and of its waited-for children, from
/// `/proc/self/stat` (`utime stime cutime cstime`, in clock ticks of 1/100 s: USER_HZ on Linux).
fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name's closing parenthesis; utime is the 14th of the line.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() / 100.0
}

/// The command as the process tools build it, whatever the way: no stdin, output not read, a
/// cleared environment with the variables they keep (`PATH`, `HOME`; the sandbox adds `TMPDIR`).
fn quiet(ws: &Path, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Command {
    let mut c = Command::new(program);
    c.args(args).env_clear();
    for k in ["PATH", "HOME"] {
        if let Some(v) = std::env::var_os(k) {
            c.env(k, v);
        }
    }
    c.current_dir(ws)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// One way of starting a command; `None` when it did not exit 0.
type Start<'a> = Box<dyn Fn(&str, &[&str]) -> Option<()> + 'a>;

fn way<'a>(f: impl Fn(&str, &[&str]) -> Option<()> + 'a) -> Start<'a> {
    Box::new(f)
}

/// Rounds in which each way starts a batch of `runs / ROUNDS`.
const ROUNDS: usize = 4;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() -> std::process::ExitCode {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (Some(ws), Some(tmp)) = (a.first(), a.get(1)) else {
        eprintln!("usage: sandbox_bench WS TMP [RUNS] [--helper BIN]...");
        return std::process::ExitCode::from(2);
    };
    let (ws, tmp) = (PathBuf::from(ws), PathBuf::from(tmp));
    let runs: usize = a.get(2).and_then(|r| r.parse().ok()).unwrap_or(200);
    let helpers: Vec<PathBuf> = a
        .windows(2)
        .filter(|w| w[0] == "--helper")
        .map(|w| PathBuf::from(&w[1]))
        .collect();
    let sb = Sandbox::prepare(Mode::WorkspaceWrite, false, tmp.clone());
    if let Some(why) = &sb.unavailable {
        eprintln!("no sandbox on this machine: {why}");
        return std::process::ExitCode::from(1);
    }
    let write = [ws.clone()];
    // A control: the same commands started from a thread of their own, unrestricted, the way
    // the sandbox thread starts them (sets the thread's share of the figures apart).
    let (jobs, rx) = std::sync::mpsc::channel::<(
        Command,
        std::sync::mpsc::Sender<Option<std::process::Child>>,
    )>();
    std::thread::spawn(move || {
        while let Ok((mut c, reply)) = rx.recv() {
            let _ = reply.send(c.spawn().ok());
        }
    });
    let (t, w) = (tmp.display().to_string(), ws.display().to_string());
    let mut ways: Vec<(&str, Start)> = vec![
        (
            "direct",
            way(|p, args| quiet(&ws, p, args).status().ok()?.success().then_some(())),
        ),
        (
            "direct, from a thread",
            way(|p, args| {
                let (tx, rx) = std::sync::mpsc::channel();
                jobs.send((quiet(&ws, p, args), tx)).ok()?;
                rx.recv().ok()??.wait().ok()?.success().then_some(())
            }),
        ),
        (
            "sandbox thread",
            way(|p, args| {
                let mut c = quiet(&ws, p, args);
                sb.apply_env(&mut c).ok()?;
                let mut child = sb.spawn(c, &write).ok()?;
                child.wait().ok()?.success().then_some(())
            }),
        ),
    ];
    let names: Vec<String> = helpers
        .iter()
        .map(|h| {
            let n = h.file_name().unwrap_or_default().to_string_lossy();
            format!("{n} helper")
        })
        .collect();
    for (h, n) in helpers.iter().zip(&names) {
        let (t, w, ws) = (t.as_str(), w.as_str(), ws.as_path());
        ways.push((
            n.as_str(),
            way(move |p, args| {
                let mut all = vec![
                    "sandbox-exec",
                    "--mode",
                    "workspace-write",
                    "--write",
                    t,
                    "--write",
                    w,
                    "--",
                    p,
                ];
                all.extend_from_slice(args);
                quiet(ws, h, &all).status().ok()?.success().then_some(())
            }),
        ));
    }
    println!(
        "{} starts of each, in {ROUNDS} rounds of batches; wall = median start-to-exit ms,",
        runs.div_ceil(ROUNDS) * ROUNDS
    );
    println!(
        "cpu = mean user+sys ms per start (this process and its sandbox thread + the children)"
    );
    println!(
        "{:<12} {:<24} {:>8} {:>6} {:>8} {:>6}",
        "command", "started", "wall", "ratio", "cpu", "ratio"
    );
    for (name, program, args) in [
        ("true", "true", &[][..]),
        ("git status", "git", &["status", "--porcelain"][..]),
    ] {
        let mut wall = vec![Vec::with_capacity(runs); ways.len()];
        let mut used = vec![0.0; ways.len()];
        let per_round = runs.div_ceil(ROUNDS);
        // Five starts of each to warm up, then the ways take turns, a batch each per round (the
        // CPU clock counts 1/100 s: a batch's total is exact to a tick, a single start's not).
        for round in 0..=ROUNDS {
            for (k, (way, start)) in ways.iter().enumerate() {
                let n = if round == 0 { 5 } else { per_round };
                let c0 = cpu();
                for _ in 0..n {
                    let t0 = Instant::now();
                    if start(program, args).is_none() {
                        eprintln!("{name} failed when started by {way}");
                        return std::process::ExitCode::from(1);
                    }
                    if round > 0 {
                        wall[k].push(t0.elapsed().as_secs_f64() * 1000.0);
                    }
                }
                if round > 0 {
                    used[k] += (cpu() - c0) * 1000.0;
                }
            }
        }
        let runs = per_round * ROUNDS;
        let (w0, c0) = (median(wall[0].clone()), used[0] / runs as f64);
        for (k, (way, _)) in ways.iter().enumerate() {
            let (w, c) = (median(wall[k].clone()), used[k] / runs as f64);
            println!(
                "{name:<12} {way:<24} {w:>8.2} {:>6.2} {c:>8.2} {:>6.2}",
                w / w0,
                c / c0
            );
        }
    }
    std::process::ExitCode::SUCCESS
}
