//! The process sandbox (spec/sessions.md §10.4, docs/security.md "The process sandbox"): process
//! tools start their commands from a thread that has restricted itself with Landlock (writes,
//! TCP, signals) and seccomp (sockets) — [`spawner`] — so every command and its descendants are
//! confined, while the pid, the process group and everything else the tools manage stay as
//! without a sandbox. No `unsafe`, no `pre_exec`. [`exec`] holds the restriction and the hidden
//! `alisio-ls sandbox-exec` helper that applies it to a command by hand.
//!
//! This side decides the mode of a run (configuration, the kernel's support, the simulated
//! fallback), starts the commands and labels results.

pub mod exec;
pub mod spawner;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex, OnceLock};

pub use spawner::{SpawnError, Spawner};

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

/// The test-only switch that simulates a kernel without Landlock (debug builds with the
/// `fault-injection` feature only).
fn simulated_unavailable() -> bool {
    cfg!(all(debug_assertions, feature = "fault-injection"))
        && std::env::var("ALISIO_SANDBOX_UNAVAILABLE").is_ok_and(|v| v == "1")
}

/// A reason that makes every later probe fail (unit tests of the fallback, which cannot set
/// the environment of a shared test process).
#[cfg(any(test, feature = "fault-injection"))]
static FORCED: Mutex<Option<String>> = Mutex::new(None);

#[cfg(any(test, feature = "fault-injection"))]
#[doc(hidden)]
pub fn force_unavailable(reason: &str) {
    *FORCED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(reason.into());
}

/// The probe's result, once per process: `Ok(abi)` or why not.
static PROBE: OnceLock<Result<u32, String>> = OnceLock::new();

/// Whether the sandbox can be applied here (once per process: restricts a short-lived thread).
///
/// # Errors
/// Why the sandbox cannot be applied.
pub fn probe() -> Result<u32, String> {
    if simulated_unavailable() {
        return Err("simulated by ALISIO_SANDBOX_UNAVAILABLE=1".into());
    }
    #[cfg(any(test, feature = "fault-injection"))]
    if let Some(r) = FORCED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
    {
        return Err(r);
    }
    if !cfg!(target_os = "linux") {
        return Err(format!(
            "no sandbox for process tools on {}",
            std::env::consts::OS
        ));
    }
    PROBE.get_or_init(spawner::probe).clone()
}

/// The sandbox threads of a run, one per set of writable directories (shared by the clones of
/// a [`Sandbox`]; the threads end with the last clone).
#[derive(Clone, Default)]
struct Spawners(Arc<Mutex<Vec<Thread>>>);

/// A sandbox thread and the writable directories it was restricted to.
type Thread = (Vec<PathBuf>, Arc<Spawner>);

impl std::fmt::Debug for Spawners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spawners")
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
    spawners: Spawners,
    /// The private temporary directory (made `TMPDIR`).
    pub temp_dir: PathBuf,
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
            spawners: Spawners::default(),
            temp_dir: PathBuf::new(),
        }
    }

    /// The sandbox for a run: probes the kernel unless `requested` is off; a failed probe
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
            spawners: Spawners::default(),
            temp_dir: tmp,
        };
        match probe() {
            Ok(abi) => s.abi = Some(abi),
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

    /// Starts `c` under this sandbox, writable in `write` (workspace-write: the workspace root
    /// and approved external directories; always the private temp dir): from the sandbox
    /// thread of that set of directories ([`Spawner`]), started on first use. Without a
    /// sandbox, `c` starts as it is.
    ///
    /// # Errors
    /// The sandbox cannot be applied (nothing ran), or the command did not start.
    pub fn spawn(&self, mut c: Command, write: &[PathBuf]) -> Result<Child, SpawnError> {
        if !self.active() {
            return c.spawn().map_err(SpawnError::Io);
        }
        let mut dirs = vec![self.temp_dir.clone()];
        if self.mode == Mode::WorkspaceWrite {
            dirs.extend(write.iter().cloned());
        }
        let spawner = {
            let mut all = self
                .spawners
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match all.iter().find(|(d, _)| *d == dirs) {
                Some((_, sp)) => Arc::clone(sp),
                None => {
                    let sp = Arc::new(
                        Spawner::start(self.network, dirs.clone()).map_err(SpawnError::Sandbox)?,
                    );
                    all.push((dirs, Arc::clone(&sp)));
                    sp
                }
            }
        };
        let r = spawner.spawn(c);
        if matches!(r, Err(SpawnError::Sandbox(_))) {
            // The thread is gone: the next call starts a new one.
            self.spawners
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .retain(|(_, sp)| !Arc::ptr_eq(sp, &spawner));
        }
        r
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
        b.create(&self.temp_dir)
            .map_err(|e| format!("Cannot create the sandbox temporary directory: {e}"))?;
        for k in ["TMPDIR", "TEMP", "TMP"] {
            c.env(k, &self.temp_dir);
        }
        Ok(())
    }

    /// Removes the private temporary directory (end of a CLI run).
    pub fn cleanup(&self) {
        if self.active() && self.temp_dir.is_dir() {
            let _ = std::fs::remove_dir_all(&self.temp_dir);
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
    fn unsandboxed_commands_start_as_they_are() {
        let s = Sandbox::off();
        let mut c = Command::new("sh");
        c.args(["-c", "exit 3"]);
        let code = s.spawn(c, &[]).unwrap().wait().unwrap().code();
        assert_eq!(code, Some(3));
        assert_eq!(s.json(), json!({"mode":"off","network":true}));
        assert_eq!(s.note(), " [no sandbox]");
    }

    /// `sh -c script` under `s`, writable in `write`: (exit code, stderr).
    fn sh(s: &Sandbox, script: &str, write: &[PathBuf]) -> (Option<i32>, String) {
        let mut c = Command::new("sh");
        c.args(["-c", script])
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null());
        s.apply_env(&mut c).unwrap();
        let out = s.spawn(c, write).unwrap().wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into(),
        )
    }

    #[test]
    // A skip says why on stderr, by design.
    #[allow(clippy::print_stderr)]
    fn sandboxed_commands_start_confined_and_leave_this_process_free() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let (ws, out) = (base.join("ws"), base.join("out"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        // The kernel's answer itself: `probe()` may be forced to fail by the fallback's test,
        // which shares this process.
        if let Err(why) = spawner::probe() {
            eprintln!("skipped: the process sandbox is not available here: {why}");
            return;
        }
        let active = |mode| Sandbox {
            mode,
            requested: mode,
            network: false,
            abi: None,
            unavailable: None,
            spawners: Spawners::default(),
            temp_dir: base.join("tmp"),
        };
        let s = active(Mode::WorkspaceWrite);
        let write = [ws.clone()];
        let (o, w) = (
            out.join("x").display().to_string(),
            ws.join("y").display().to_string(),
        );
        let (code, err) = sh(&s, &format!("echo 1 > {o}"), &write);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("Permission denied"), "{err}");
        assert!(!out.join("x").exists());
        assert_eq!(
            sh(&s, &format!("echo 1 > {w} && echo 2 > $TMPDIR/z"), &write).0,
            Some(0)
        );
        assert!(ws.join("y").is_file());
        // One thread per set of writable directories, reused.
        assert_eq!(sh(&s, "true", &write).0, Some(0));
        assert_eq!(s.spawners.0.lock().unwrap().len(), 1);
        // This thread, and the process, stay unrestricted.
        std::fs::write(out.join("free"), "1").unwrap();
        let ro = active(Mode::ReadOnly);
        let (code, err) = sh(&ro, &format!("echo 1 > {w}2"), &write);
        assert_eq!(code, Some(2), "{err}");
        assert!(!ws.join("y2").exists());
        // A writable directory that does not exist is left out of the rules (`landlock`'s
        // `path_beneath_rules` skips what it cannot open): the command runs, writing nowhere new.
        let gone = base.join("gone");
        let (code, err) = sh(
            &s,
            &format!("mkdir {}", gone.display()),
            std::slice::from_ref(&gone),
        );
        assert_eq!(code, Some(1), "{err}");
        assert!(!gone.exists());
        let missing = s.spawn(Command::new("/nonexistent/program"), &write);
        assert!(
            matches!(&missing, Err(SpawnError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound),
            "{missing:?}"
        );
    }
}
