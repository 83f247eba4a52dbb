//! The process sandbox (spec/sessions.md §10.4, docs/security.md "The process sandbox"): process
//! tools run through a re-exec helper, `alisio-ls sandbox-exec`, which restricts itself with
//! Landlock (writes) and seccomp (sockets) and then `exec`s the command in place, so the pid and
//! the process group the tools manage stay the same. No `unsafe`, no `pre_exec`.
//!
//! This side decides the mode of a run (configuration, the kernel's support, the simulated
//! fallback), builds the helper's command line and labels results; [`exec`] is the helper.

pub mod exec;
#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use serde_json::{Value, json};

/// `process.sandbox`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Writes in the workspace, approved external directories and the private temp dir.
    WorkspaceWrite,
    /// Writes only in the private temp dir.
    ReadOnly,
    /// No sandbox (the behaviour before the sandbox existed).
    Off,
}

impl Mode {
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "workspace-write" => Some(Self::WorkspaceWrite),
            "read-only" => Some(Self::ReadOnly),
            "off" => Some(Self::Off),
            _ => None,
        }
    }

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::WorkspaceWrite => "workspace-write",
            Self::ReadOnly => "read-only",
            Self::Off => "off",
        }
    }
}

/// The message for a bad `process.sandbox` / `--sandbox` value.
#[must_use]
pub fn invalid_mode(v: &str) -> String {
    format!("Unknown sandbox mode: {v} (expected workspace-write, read-only, off)")
}

/// Where the helper binary is: [`set_helper`], else `ALISIO_SANDBOX_HELPER`, else
/// `alisio-ls-sandbox` beside the running executable, else the running executable (the
/// `alisio-ls` binary itself, which answers `sandbox-exec` too).
static HELPER: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Points the sandbox at an `alisio-ls` binary (library users and tests whose executable is
/// not `alisio-ls`).
pub fn set_helper(path: PathBuf) {
    *HELPER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(path);
}

fn helper() -> Option<PathBuf> {
    if let Some(p) = HELPER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
    {
        return Some(p);
    }
    if let Some(p) = std::env::var_os("ALISIO_SANDBOX_HELPER").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    // The small helper binary beside this one starts faster than a re-exec of this binary.
    let small = exe.with_file_name(format!("alisio-ls-sandbox{}", std::env::consts::EXE_SUFFIX));
    Some(if small.is_file() { small } else { exe })
}

/// The test-only switch that simulates a kernel without Landlock (debug builds with the
/// `fault-injection` feature only).
fn simulated_unavailable() -> bool {
    cfg!(all(debug_assertions, feature = "fault-injection"))
        && std::env::var("ALISIO_SANDBOX_UNAVAILABLE").is_ok_and(|v| v == "1")
}

/// Probe results per helper binary, once per process: `Ok(abi)` or why not.
static PROBES: Mutex<Vec<(PathBuf, Result<u32, String>)>> = Mutex::new(Vec::new());

/// Whether the helper can apply the sandbox here: runs `<helper> sandbox-exec --probe` once.
///
/// # Errors
/// Why the sandbox cannot be applied.
pub fn probe(helper: &Path) -> Result<u32, String> {
    if simulated_unavailable() {
        return Err("simulated by ALISIO_SANDBOX_UNAVAILABLE=1".into());
    }
    if !cfg!(target_os = "linux") {
        return Err(format!(
            "no sandbox for process tools on {}",
            std::env::consts::OS
        ));
    }
    let mut probes = PROBES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, r)) = probes.iter().find(|(p, _)| p == helper) {
        return r.clone();
    }
    let r = run_probe(helper);
    probes.push((helper.to_path_buf(), r.clone()));
    r
}

fn run_probe(helper: &Path) -> Result<u32, String> {
    let out = Command::new(helper)
        .args(["sandbox-exec", "--probe"])
        .env_clear()
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot start the sandbox helper {}: {e}", helper.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Option<Value> = serde_json::from_str(text.trim()).ok();
    match v
        .as_ref()
        .and_then(|v| v.get("abi"))
        .and_then(Value::as_u64)
    {
        Some(abi) if out.status.success() => u32::try_from(abi).map_err(|_| "bad probe".into()),
        _ => {
            let err = String::from_utf8_lossy(&out.stderr);
            let err = err.trim().trim_start_matches(exec::MARK).trim();
            Err(if err.is_empty() {
                format!("the sandbox helper {} did not answer", helper.display())
            } else {
                err.to_string()
            })
        }
    }
}

/// The sandbox of one run.
#[derive(Clone, Debug)]
pub struct Sandbox {
    /// The mode processes run in (`off` after a fallback).
    pub mode: Mode,
    /// The configured mode.
    pub requested: Mode,
    /// Whether the network is open (always true when `off`).
    pub network: bool,
    /// The Landlock ABI the probe found.
    pub abi: Option<u32>,
    /// Why the requested sandbox could not be applied.
    pub unavailable: Option<String>,
    helper: PathBuf,
    /// The private temporary directory (made `TMPDIR`).
    pub tmp: PathBuf,
}

impl Sandbox {
    /// No sandbox at all (`process.sandbox: off`, or runs without process tools).
    #[must_use]
    pub fn off() -> Self {
        Self {
            mode: Mode::Off,
            requested: Mode::Off,
            network: true,
            abi: None,
            unavailable: None,
            helper: PathBuf::new(),
            tmp: PathBuf::new(),
        }
    }

    /// The sandbox for a run: probes the helper unless `requested` is off; a failed probe
    /// falls back to `off` and says why in [`Sandbox::unavailable`].
    #[must_use]
    pub fn prepare(requested: Mode, network: bool, tmp: PathBuf) -> Self {
        if requested == Mode::Off {
            return Self::off();
        }
        let mut s = Self {
            mode: requested,
            requested,
            network,
            abi: None,
            unavailable: None,
            helper: PathBuf::new(),
            tmp,
        };
        let probed = helper()
            .ok_or_else(|| "cannot locate the alisio-ls binary".to_string())
            .and_then(|h| probe(&h).map(|abi| (h, abi)));
        match probed {
            Ok((h, abi)) => {
                s.helper = h;
                s.abi = Some(abi);
            }
            Err(e) => {
                s.mode = Mode::Off;
                s.network = true;
                s.unavailable = Some(e);
            }
        }
        s
    }

    /// Whether processes run confined.
    #[must_use]
    pub fn active(&self) -> bool {
        self.mode != Mode::Off
    }

    /// `{mode, network}` for results, events and approval requests.
    #[must_use]
    pub fn json(&self) -> Value {
        json!({"mode":self.mode.as_str(),"network":self.network})
    }

    /// What an approval summary ends with.
    #[must_use]
    pub fn note(&self) -> String {
        if self.active() {
            format!(
                " [sandbox: {}{}]",
                self.mode.as_str(),
                if self.network { ", network" } else { "" }
            )
        } else {
            " [no sandbox]".into()
        }
    }

    /// The `sandbox_unavailable` event data (once per run, when a requested sandbox fell back).
    #[must_use]
    pub fn unavailable_event(&self) -> Option<Value> {
        self.unavailable
            .as_ref()
            .map(|r| json!({"requested":self.requested.as_str(),"mode":"off","reason":r}))
    }

    /// The notice for stderr.
    #[must_use]
    pub fn notice(&self) -> Option<String> {
        self.unavailable.as_ref().map(|r| {
            format!(
                "the process sandbox ({}) is not available: {r}; process tools run unsandboxed and need approval",
                self.requested.as_str()
            )
        })
    }

    /// The command that runs `program args` under this sandbox, writable in `write`
    /// (workspace-write: the workspace root and approved external directories). Without a
    /// sandbox it is the program itself.
    #[must_use]
    pub fn command(&self, program: &str, args: &[String], write: &[PathBuf]) -> Command {
        if !self.active() {
            let mut c = Command::new(program);
            c.args(args);
            return c;
        }
        let mut c = Command::new(&self.helper);
        c.arg("sandbox-exec").arg("--mode").arg(self.mode.as_str());
        if self.network {
            c.arg("--network");
        }
        let mut dirs: Vec<OsString> = vec![self.tmp.clone().into_os_string()];
        if self.mode == Mode::WorkspaceWrite {
            dirs.extend(write.iter().map(|d| d.clone().into_os_string()));
        }
        for d in dirs {
            c.arg("--write").arg(d);
        }
        c.arg("--").arg(program).args(args);
        c
    }

    /// Makes the private temporary directory `TMPDIR` (`TEMP`, `TMP`) of a sandboxed command
    /// and creates it (mode 0700).
    ///
    /// # Errors
    /// The directory cannot be created.
    pub fn apply_env(&self, c: &mut Command) -> Result<(), String> {
        if !self.active() {
            return Ok(());
        }
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        b.create(&self.tmp)
            .map_err(|e| format!("Cannot create the sandbox temporary directory: {e}"))?;
        for k in ["TMPDIR", "TEMP", "TMP"] {
            c.env(k, &self.tmp);
        }
        Ok(())
    }

    /// Removes the private temporary directory (end of a CLI run).
    pub fn cleanup(&self) {
        if self.active() && self.tmp.is_dir() {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// The "Active grants" capability naming the sandbox (governor.md's invariants block):
/// `sandbox: workspace-write`, `sandbox: read-only, network`, `sandbox: off`.
#[must_use]
pub fn capability(s: &Sandbox) -> String {
    if s.active() && s.network {
        format!("sandbox: {}, network", s.mode.as_str())
    } else {
        format!("sandbox: {}", s.mode.as_str())
    }
}

/// The private temporary directory of a session: `<state dir>/tmp/<sessionId>`.
#[must_use]
pub fn tmp_dir(state_dir: &Path, session_id: &str) -> PathBuf {
    state_dir.join("tmp").join(session_id)
}

/// How a sandboxed command that never started ended: the helper's marked stderr line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The program does not exist (`Command not found`).
    NotFound,
    /// Another exec error (`Cannot start`).
    Exec(String),
    /// The sandbox could not be applied: nothing ran.
    Sandbox(String),
}

/// Reads the helper's failure marker from the captured stderr of an exit with code 125–127.
#[must_use]
pub fn start_error(code: Option<i32>, stderr: &[u8]) -> Option<StartError> {
    if !matches!(code, Some(125..=127)) {
        return None;
    }
    let s = std::str::from_utf8(stderr).ok()?;
    let rest = s.strip_prefix(exec::MARK)?.trim_end();
    if let Some(m) = rest.strip_prefix("not-found") {
        let _ = m;
        return Some(StartError::NotFound);
    }
    if let Some(m) = rest.strip_prefix("exec: ") {
        return Some(StartError::Exec(m.to_string()));
    }
    rest.strip_prefix("sandbox: ")
        .map(|m| StartError::Sandbox(m.to_string()))
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn modes_parse_and_name_themselves() {
        for m in [Mode::WorkspaceWrite, Mode::ReadOnly, Mode::Off] {
            assert_eq!(Mode::parse(m.as_str()), Some(m));
        }
        assert_eq!(Mode::parse("danger-full-access"), None);
        assert_eq!(
            invalid_mode("x"),
            "Unknown sandbox mode: x (expected workspace-write, read-only, off)"
        );
    }

    #[test]
    fn helper_markers_are_read_only_from_its_exit_codes() {
        let m = |s: &str| format!("{}{s}\n", exec::MARK).into_bytes();
        assert_eq!(
            start_error(Some(127), &m("not-found")),
            Some(StartError::NotFound)
        );
        assert_eq!(
            start_error(Some(126), &m("exec: Permission denied (os error 13)")),
            Some(StartError::Exec("Permission denied (os error 13)".into()))
        );
        assert_eq!(
            start_error(Some(125), &m("sandbox: no Landlock")),
            Some(StartError::Sandbox("no Landlock".into()))
        );
        assert_eq!(start_error(Some(1), &m("not-found")), None);
        assert_eq!(start_error(Some(127), b"sh: x: not found\n"), None);
    }

    #[test]
    fn unsandboxed_commands_are_the_program_itself() {
        let s = Sandbox::off();
        let c = s.command("echo", &["hi".into()], &[]);
        assert_eq!(c.get_program(), "echo");
        assert_eq!(s.json(), json!({"mode":"off","network":true}));
        assert_eq!(s.note(), " [no sandbox]");
    }

    #[test]
    fn sandboxed_commands_go_through_the_helper_with_their_writable_dirs() {
        let s = Sandbox {
            mode: Mode::WorkspaceWrite,
            requested: Mode::WorkspaceWrite,
            network: false,
            abi: Some(7),
            unavailable: None,
            helper: PathBuf::from("/bin/alisio-ls"),
            tmp: PathBuf::from("/state/tmp/s1"),
        };
        let c = s.command("git", &["status".into()], &[PathBuf::from("/ws")]);
        let args: Vec<String> = c
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(c.get_program(), "/bin/alisio-ls");
        assert_eq!(
            args,
            [
                "sandbox-exec",
                "--mode",
                "workspace-write",
                "--write",
                "/state/tmp/s1",
                "--write",
                "/ws",
                "--",
                "git",
                "status"
            ]
        );
        assert_eq!(s.note(), " [sandbox: workspace-write]");
        let ro = Sandbox {
            mode: Mode::ReadOnly,
            ..s
        };
        let args: Vec<String> = ro
            .command("true", &[], &[PathBuf::from("/ws")])
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "sandbox-exec",
                "--mode",
                "read-only",
                "--write",
                "/state/tmp/s1",
                "--",
                "true"
            ]
        );
    }
}
