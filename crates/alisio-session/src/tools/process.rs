//! `run_process` and `shell` (spec/sessions.md §3.4, §10.3): no stdin, a new process group, an
//! environment allowlist, output caps and timeouts; every kill is SIGTERM then SIGKILL to the
//! whole group.

use super::error::{ToolError, ToolReturn};
use std::io::Read as _;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::args::tool_args;
use super::{CallOutcome, ToolCtx};
use alisio_sandbox::SpawnError;

/// Output kept per result (stdout and stderr together): 8 MiB; past it the process is ended and
/// the result says `"truncated": true` (the model is shown a cut view, spec/governor.md §3.3).
const CAP: usize = 8 * 1024 * 1024;

/// The environment children get.
#[derive(Clone, Debug, Default)]
pub struct ChildEnv {
    pub vars: Vec<(String, String)>,
}

const ALLOW: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ",
    "TMPDIR", "TEMP", "TMP",
];

impl ChildEnv {
    /// The allowlist plus `pass_env`, minus the provider key variable, plus the fixed pager
    /// settings.
    #[must_use]
    pub fn from_process(pass_env: &[String], key_env: Option<&str>) -> Self {
        let mut vars = Vec::new();
        for name in ALLOW
            .iter()
            .map(|s| (*s).to_string())
            .chain(pass_env.iter().cloned())
        {
            if Some(name.as_str()) == key_env || vars.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Ok(v) = std::env::var(&name) {
                vars.push((name, v));
            }
        }
        for (k, v) in [
            ("GIT_TERMINAL_PROMPT", "0"),
            ("GIT_PAGER", "cat"),
            ("PAGER", "cat"),
        ] {
            vars.push((k.into(), v.into()));
        }
        Self { vars }
    }

    /// Applies to a command (clears everything else).
    pub fn apply(&self, c: &mut Command) {
        c.env_clear();
        for (k, v) in &self.vars {
            c.env(k, v);
        }
    }
}

/// Process groups started by tools of this process that may still run (the CLI's second SIGINT
/// kills them all at once, spec/sessions.md §2.10 step 6).
static LIVE: Mutex<std::collections::BTreeSet<u32>> = Mutex::new(std::collections::BTreeSet::new());

/// Registers a live process group for the lifetime of the value.
pub struct LiveGroup(u32);

impl LiveGroup {
    #[must_use]
    pub fn new(pgid: u32) -> Self {
        LIVE.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(pgid);
        Self(pgid)
    }
}

impl Drop for LiveGroup {
    fn drop(&mut self) {
        LIVE.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.0);
    }
}

/// The live process groups of this process's tools, as they are now.
fn live_groups() -> Vec<u32> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .copied()
        .collect()
}

/// SIGKILL to every live process group of this process's tools, without waiting.
pub fn kill_live_groups() {
    let groups = live_groups();
    for g in groups {
        #[cfg(unix)]
        signal_group(g, nix::sys::signal::Signal::SIGKILL);
        #[cfg(not(unix))]
        kill_group(g, Duration::ZERO);
    }
}

/// Sends a signal to a process group.
#[cfg(unix)]
pub fn signal_group(pgid: u32, sig: nix::sys::signal::Signal) {
    if let Ok(p) = i32::try_from(pgid) {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(p), sig);
    }
}

#[cfg(unix)]
fn group_alive(pgid: u32) -> bool {
    i32::try_from(pgid)
        .is_ok_and(|p| nix::sys::signal::killpg(nix::unistd::Pid::from_raw(p), None).is_ok())
}

/// Ends every live process group of this process's tools: SIGTERM to all, SIGKILL after
/// `grace` to whatever is left (the LSP server's exit, spec/sessions.md §10.3).
pub fn end_live_groups(grace: Duration) {
    let groups = live_groups();
    #[cfg(unix)]
    {
        for g in &groups {
            signal_group(*g, nix::sys::signal::Signal::SIGTERM);
        }
        let end = Instant::now() + grace;
        while Instant::now() < end && groups.iter().any(|g| group_alive(*g)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        for g in &groups {
            signal_group(*g, nix::sys::signal::Signal::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    for g in groups {
        kill_group(g, grace);
    }
}

/// SIGTERM to the group, SIGKILL after `grace` if anything in it is still alive.
#[cfg(unix)]
pub fn kill_group(pgid: u32, grace: Duration) {
    signal_group(pgid, nix::sys::signal::Signal::SIGTERM);
    let end = Instant::now() + grace;
    while Instant::now() < end {
        if !group_alive(pgid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    signal_group(pgid, nix::sys::signal::Signal::SIGKILL);
}

/// Tree kills on Windows need a Job Object (not in this build): `taskkill /T /F` is the fallback.
#[cfg(not(unix))]
pub fn kill_group(pid: u32, _grace: Duration) {
    let _ = Command::new("taskkill")
        .args(["/T", "/F", "/PID", &pid.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(unix)]
fn signal_name(sig: i32) -> String {
    nix::sys::signal::Signal::try_from(sig)
        .map_or_else(|_| format!("SIG{sig}"), |s| s.as_str().to_string())
}

/// Resolves the `cwd` argument (default the workspace root).
///
/// # Errors
/// The confinement message or `Working directory not found`.
pub fn resolve_cwd(ctx: &ToolCtx, cwd: Option<&str>) -> ToolReturn<std::path::PathBuf> {
    let c = ctx.roots.confine(cwd.unwrap_or("."))?;
    if !c.real.is_dir() {
        return Err(ToolError::WorkingDirectoryNotFound(c.shown));
    }
    Ok(c.real)
}

tool_args! {
    /// `run_process` arguments (spec/sessions.md §3.4), after [`super::Spec::validate`].
    RunProcessArgs {
        command: String,
        args: Vec<String>,
        cwd: Option<String>,
        timeout_ms: Option<u64>,
    }
}

tool_args! {
    /// `shell` arguments.
    ShellArgs {
        command: String,
        cwd: Option<String>,
        timeout_ms: Option<u64>,
    }
}

/// One process call: a program with `args`, or a shell command line without.
#[derive(Clone, Debug)]
pub struct ProcessCall<'a> {
    pub command: &'a str,
    pub args: Option<&'a [String]>,
    pub cwd: Option<&'a str>,
    pub timeout: Option<u64>,
}

impl<'a> From<&'a RunProcessArgs> for ProcessCall<'a> {
    fn from(a: &'a RunProcessArgs) -> Self {
        Self {
            command: &a.command,
            args: Some(&a.args),
            cwd: a.cwd.as_deref(),
            timeout: a.timeout_ms,
        }
    }
}

impl<'a> From<&'a ShellArgs> for ProcessCall<'a> {
    fn from(a: &'a ShellArgs) -> Self {
        Self {
            command: &a.command,
            args: None,
            cwd: a.cwd.as_deref(),
            timeout: a.timeout_ms,
        }
    }
}

/// The command of a process tool: the program (or the shell with the command line) under the
/// run's sandbox, with the child environment, no stdin and a new process group.
///
/// # Errors
/// The sandbox's temporary directory cannot be created.
pub fn command(ctx: &ToolCtx, program: &str, args: &[String]) -> ToolReturn<Command> {
    let mut c = Command::new(program);
    c.args(args);
    ctx.env.apply(&mut c);
    ctx.sandbox.apply_env(&mut c)?;
    c.stdin(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        c.process_group(0);
    }
    Ok(c)
}

/// Starts a command of [`command`] under the run's sandbox, writable in the workspace root and
/// the approved external directories (`workspace-write`).
///
/// # Errors
/// The sandbox cannot be applied (nothing ran), or the command did not start.
pub fn spawn(ctx: &ToolCtx, c: Command) -> Result<std::process::Child, SpawnError> {
    let mut write = vec![ctx.roots.root.clone()];
    write.extend(ctx.roots.external.iter().cloned());
    ctx.sandbox.spawn(c, &write)
}

/// `run_process` (with `args`) or `shell` (without).
#[must_use]
pub fn run_process(ctx: &ToolCtx, call: &ProcessCall<'_>) -> CallOutcome {
    let (command, timeout) = (call.command, call.timeout);
    let dir = match resolve_cwd(ctx, call.cwd) {
        Ok(d) => d,
        Err(e) => return CallOutcome::Err(e.to_string()),
    };
    let (program, argv): (&str, Vec<String>) = match call.args {
        Some(a) => (command, a.to_vec()),
        None if cfg!(windows) => (
            "cmd.exe",
            ["/d", "/s", "/c", command].map(String::from).to_vec(),
        ),
        None => ("/bin/sh", vec!["-c".into(), command.into()]),
    };
    let mut c = match self::command(ctx, program, &argv) {
        Ok(c) => c,
        Err(e) => return CallOutcome::Err(e.to_string()),
    };
    c.current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match spawn(ctx, c) {
        Ok(ch) => ch,
        Err(SpawnError::Sandbox(e)) => {
            return CallOutcome::Err(format!("Cannot start {command}: the sandbox failed: {e}"));
        }
        Err(SpawnError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return CallOutcome::Err(format!("Command not found: {command}"));
        }
        Err(SpawnError::Io(e)) => return CallOutcome::Err(format!("Cannot start {command}: {e}")),
    };
    let pgid = child.id();
    let _live = LiveGroup::new(pgid);
    let total = Arc::new(Mutex::new(0usize));
    let over = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        let total = Arc::clone(&total);
        let over = Arc::clone(&over);
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let Some(mut p) = pipe else { return kept };
            let mut buf = [0u8; 8192];
            loop {
                match p.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut t = total
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        let room = CAP.saturating_sub(*t);
                        let take = n.min(room);
                        kept.extend_from_slice(&buf[..take]);
                        *t += n;
                        if *t > CAP {
                            over.store(true, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                }
            }
            kept
        })
    };
    let out_t = reader(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    );
    let err_t = reader(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    );
    let limit = Duration::from_millis(timeout.unwrap_or(30_000));
    let start = Instant::now();
    let mut timed_out = false;
    let mut cancelled = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {}
            Err(_) => break None,
        }
        if over.load(std::sync::atomic::Ordering::Relaxed) {
            kill_group(pgid, Duration::from_secs(2));
        } else if ctx.cancelled() {
            cancelled = true;
            kill_group(pgid, Duration::from_secs(2));
        } else if start.elapsed() >= limit {
            timed_out = true;
            kill_group(pgid, Duration::from_secs(2));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Grandchildren that keep the pipes open would block the readers: give them a moment, then
    // end the group.
    let wait_end = Instant::now() + Duration::from_millis(500);
    while !(out_t.is_finished() && err_t.is_finished()) && Instant::now() < wait_end {
        std::thread::sleep(Duration::from_millis(10));
    }
    if !(out_t.is_finished() && err_t.is_finished()) {
        kill_group(pgid, Duration::from_millis(200));
    }
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    // Nothing the call started outlives it (spec/sessions.md §10.3): a grandchild that closed or
    // redirected its pipes would otherwise keep running after the result, and after the run.
    #[cfg(unix)]
    if group_alive(pgid) {
        kill_group(pgid, Duration::from_secs(2));
    }
    if cancelled {
        return CallOutcome::Cancelled;
    }
    let (code, signal) = match status {
        Some(s) => {
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                (s.code(), s.signal().map(signal_name))
            }
            #[cfg(not(unix))]
            {
                (s.code(), None::<String>)
            }
        }
        None => (None, None),
    };
    let truncated = over.load(std::sync::atomic::Ordering::Relaxed);
    CallOutcome::Ok(
        json!({"stdout":String::from_utf8_lossy(&stdout),"stderr":String::from_utf8_lossy(&stderr),"exitCode":code,"signal":signal,"timedOut":timed_out,"truncated":truncated,"sandbox":ctx.sandbox.json()})
            .to_string(),
    )
}
