//! Running a client offline: in a new network namespace that has only loopback (`unshare -n`,
//! then `ip link set lo up`), with the fake model server started inside the same namespace.
//!
//! The test binary re-executes itself under `unshare -n` with [`INNER_ENV`] naming a plan file;
//! that inner process ([`inner_main`]) brings loopback up, starts the fake server on
//! 127.0.0.1, runs the client in its own process group with a deadline, kills the whole group
//! when the deadline passes (or when the client exits, so nothing it started lingers), and
//! writes the recorded requests next to the plan. Nothing can leave the namespace: it has no
//! interface but `lo`.

use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::http::{Request, Server};
use super::model::{Api, Script, responder};

/// The variable that turns the test binary into the inner runner.
pub const INNER_ENV: &str = "ALISIO_REAL_INNER_PLAN";
/// Written into argument and environment values, replaced by the fake server's port.
pub const PORT: &str = "{PORT}";

/// One client run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub argv: Vec<String>,
    /// The client's whole environment (nothing of the test's is inherited but `PATH`).
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    pub api: Api,
    pub script: Script,
    pub timeout_ms: u64,
    /// Files in which the inner runner replaces [`PORT`] before starting the client (a
    /// client's own configuration file naming the server).
    pub templated: Vec<PathBuf>,
}

/// What a run produced.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Outcome {
    pub requests: Vec<Request>,
    /// `None` when the client was killed.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub wall_ms: u64,
}

/// How this machine can make a network namespace: `unshare -n` (root), else `unshare -rn`
/// (an unprivileged user namespace), else the reason it cannot.
pub fn unshare_args() -> Result<&'static [&'static str], String> {
    static PROBE: OnceLock<Result<&'static [&'static str], String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            let mut last = String::new();
            for args in [&["-n"][..], &["-r", "-n"][..]] {
                let out = Command::new("unshare")
                    .args(args)
                    .args(["--", "ip", "link", "set", "lo", "up"])
                    .stdin(Stdio::null())
                    .output();
                match out {
                    Ok(o) if o.status.success() => return Ok(args),
                    Ok(o) => {
                        last = format!(
                            "`unshare {} -- ip link set lo up` failed: {}",
                            args.join(" "),
                            String::from_utf8_lossy(&o.stderr).trim()
                        );
                    }
                    Err(e) => last = format!("cannot run unshare: {e}"),
                }
            }
            Err(last)
        })
        .clone()
}

/// Runs `plan` in a fresh network namespace and returns what the fake server recorded.
///
/// # Errors
/// When no namespace can be made (the reason, for a skip) or the inner runner fails.
pub fn run(plan: &Plan, scratch: &Path) -> Result<Outcome, String> {
    let args = unshare_args()?;
    std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    let plan_path = scratch.join("plan.json");
    let out_path = scratch.join("outcome.json");
    let _ = std::fs::remove_file(&out_path);
    std::fs::write(
        &plan_path,
        serde_json::to_vec(plan).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cmd = Command::new("unshare");
    cmd.args(args)
        .arg("--")
        .arg(exe)
        .env(INNER_ENV, &plan_path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let child = cmd.spawn().map_err(|e| format!("spawn unshare: {e}"))?;
    // The inner runner enforces the client's deadline; this one only catches a stuck runner.
    let backstop = Duration::from_millis(plan.timeout_ms) + Duration::from_secs(30);
    let (status, _out, err) = wait_group(child, backstop);
    let text = std::fs::read_to_string(&out_path).map_err(|e| {
        format!(
            "the inner runner wrote no outcome ({e}; status {status:?}); its stderr:\n{}",
            String::from_utf8_lossy(&err)
        )
    })?;
    serde_json::from_str(&text).map_err(|e| format!("outcome.json: {e}"))
}

/// Waits for `child` (the leader of its own process group) up to `limit`, then kills the whole
/// group; also kills the group after a normal exit, so no grandchild outlives the run. Returns
/// the exit code (`None` when killed) and the captured stdout and stderr.
pub fn wait_group(mut child: Child, limit: Duration) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let pgid = child.id();
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut v);
        }
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut v);
        }
        v
    });
    let deadline = Instant::now() + limit;
    let code = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s.code(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                kill_group(pgid);
                let _ = child.wait();
                break None;
            }
        }
    };
    kill_group(pgid);
    (
        code,
        t_out.join().unwrap_or_default(),
        t_err.join().unwrap_or_default(),
    )
}

/// SIGKILL to every process of the group `pgid` (ignored when the group is already gone).
pub fn kill_group(pgid: u32) {
    if let Ok(p) = i32::try_from(pgid) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(p),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// The inner runner (inside the namespace). Returns the process exit code.
#[must_use]
pub fn inner_main(plan_path: &Path) -> i32 {
    match inner(plan_path) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("real-client inner runner: {e}");
            3
        }
    }
}

fn inner(plan_path: &Path) -> Result<(), String> {
    let plan: Plan = serde_json::from_slice(&std::fs::read(plan_path).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let up = Command::new("ip")
        .args(["link", "set", "lo", "up"])
        .status()
        .map_err(|e| format!("ip link set lo up: {e}"))?;
    if !up.success() {
        return Err(format!("ip link set lo up: {up}"));
    }
    let server = Server::start(responder(plan.api, plan.script.clone()))
        .map_err(|e| format!("fake server: {e}"))?;
    let port = server.port.to_string();
    let sub = |s: &str| s.replace(PORT, &port);
    for f in &plan.templated {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        std::fs::write(f, sub(&text)).map_err(|e| format!("{}: {e}", f.display()))?;
    }
    let (prog, rest) = plan.argv.split_first().ok_or("empty argv")?;
    let mut cmd = Command::new(sub(prog));
    cmd.args(rest.iter().map(|a| sub(a)))
        .env_clear()
        .envs(plan.env.iter().map(|(k, v)| (k.clone(), sub(v))))
        .current_dir(&plan.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let child = cmd.spawn().map_err(|e| format!("spawn {prog}: {e}"))?;
    let (code, out, err) = wait_group(child, Duration::from_millis(plan.timeout_ms));
    let outcome = Outcome {
        requests: server.recorded(),
        exit_code: code,
        timed_out: code.is_none(),
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
        wall_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    let out_path = plan_path.with_file_name("outcome.json");
    std::fs::write(
        out_path,
        serde_json::to_vec(&outcome).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())
}
