//! Sandboxed process starts without a second `exec` (docs/security.md §8 "Overhead").
//!
//! Landlock's `landlock_restrict_self`, `PR_SET_NO_NEW_PRIVS` and a seccomp filter installed
//! without `TSYNC` apply to the calling *thread* only, and a process inherits the restrictions
//! of the thread that forks it. So a [`Spawner`] is a thread that restricts itself once
//! ([`super::exec::restrict`]) and then only starts the commands it is sent
//! (`Command::spawn`): every child — and everything the child starts — is confined from its
//! first instruction, while the rest of the server stays unrestricted. No `unsafe`, no
//! `pre_exec`, no helper process: the cost per call is a message to the thread instead of
//! starting a helper binary that restricts itself and `exec`s the command.
//!
//! The thread holds the restriction for good; it ends when its [`Spawner`] is dropped.

use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::mpsc;

/// One start request: the command and where its outcome goes.
type Job = (Command, mpsc::Sender<std::io::Result<Child>>);

/// A thread confined to one sandbox (network or not, one set of writable directories) that
/// starts commands.
#[derive(Debug)]
pub struct Spawner {
    jobs: mpsc::Sender<Job>,
    /// The kernel's Landlock ABI the restriction found.
    pub abi: u32,
}

/// Why a sandboxed command did not start.
#[derive(Debug)]
pub enum SpawnError {
    /// The sandbox could not be applied: nothing ran.
    Sandbox(String),
    /// The command itself could not start (not found, not executable, …).
    Io(std::io::Error),
}

impl Spawner {
    /// Starts the thread and restricts it: writable beneath `dirs`, network open only with
    /// `network`.
    ///
    /// # Errors
    /// Why the sandbox cannot be applied (the thread then ends without starting anything).
    pub fn start(network: bool, dirs: Vec<PathBuf>) -> Result<Self, String> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel::<Result<u32, String>>();
        std::thread::Builder::new()
            .name("alisio-ls-sandbox".into())
            .spawn(move || {
                let r = super::exec::restrict(network, &dirs);
                let ok = r.is_ok();
                let _ = ready_tx.send(r);
                if !ok {
                    return;
                }
                while let Ok((mut command, reply)) = rx.recv() {
                    let child = command.spawn();
                    // Pipe ends the command holds close here, before the caller reads.
                    drop(command);
                    let _ = reply.send(child);
                }
            })
            .map_err(|e| format!("cannot start the sandbox thread: {e}"))?;
        let abi = ready
            .recv()
            .map_err(|_| "the sandbox thread ended before it was restricted".to_string())??;
        Ok(Self { jobs, abi })
    }

    /// Starts `command` inside the sandbox.
    ///
    /// # Errors
    /// The command did not start, or the sandbox thread is gone.
    pub fn spawn(&self, command: Command) -> Result<Child, SpawnError> {
        let (tx, rx) = mpsc::channel();
        let gone = || SpawnError::Sandbox("the sandbox thread has ended".into());
        self.jobs.send((command, tx)).map_err(|_| gone())?;
        rx.recv().map_err(|_| gone())?.map_err(SpawnError::Io)
    }
}

/// Whether the sandbox can be applied here: restricts a short-lived thread; the Landlock ABI.
///
/// # Errors
/// Why not.
pub fn probe() -> Result<u32, String> {
    std::thread::Builder::new()
        .name("alisio-ls-sandbox-probe".into())
        .spawn(|| super::exec::restrict(false, &[]))
        .map_err(|e| format!("cannot start the sandbox thread: {e}"))?
        .join()
        .map_err(|_| "the sandbox probe failed".to_string())?
}
