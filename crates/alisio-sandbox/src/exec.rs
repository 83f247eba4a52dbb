//! The restriction itself ([`restrict`]: Landlock writes, TCP, signal scope; seccomp sockets)
//! and the hidden command `alisio-ls sandbox-exec`, which applies it to itself and `exec`s a
//! program (the way Codex's `codex-linux-sandbox` works) — for running a command by hand in the
//! sandbox the process tools use, and for the tests' probe:
//!
//! ```text
//! alisio-ls sandbox-exec --mode workspace-write|read-only [--network] [--write DIR]... -- PROGRAM [ARG]...
//! alisio-ls sandbox-exec --probe
//! ```
//!
//! The restriction — Landlock: writes only beneath the `--write` directories and a few
//! devices; without `--network` no TCP bind/connect; signals only inside the sandbox; seccomp:
//! no socket of a family other than `AF_UNIX`, no io_uring — survives `exec` and is inherited
//! by every descendant, including one that leaves the process group with `setsid`. The process
//! tools do not exec this helper: they start their commands from a thread restricted the same
//! way ([`super::spawner`]), which saves an `exec` per call.
//!
//! Failures before the program runs are one stderr line starting with [`MARK`] and exit 125
//! (sandbox), 126 (exec) or 127 (not found). It never runs the program unconfined.

use std::ffi::OsString;
use std::path::PathBuf;

/// The prefix of the helper's own failure line.
pub const MARK: &str = "alisio-ls sandbox-exec: ";

/// The Landlock ABI whose rights are requested (best effort below it, docs/security.md).
#[cfg(target_os = "linux")]
const ABI: landlock::ABI = landlock::ABI::V6;

/// Devices a sandboxed process may write to (those that exist).
#[cfg(target_os = "linux")]
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// Parsed arguments.
#[derive(Debug, Default, PartialEq, Eq)]
struct Args {
    probe: bool,
    network: bool,
    write: Vec<PathBuf>,
    program: Option<OsString>,
    args: Vec<OsString>,
}

fn parse(argv: &[OsString]) -> Result<Args, String> {
    let mut a = Args::default();
    let mut it = argv.iter();
    let mut mode = None;
    while let Some(x) = it.next() {
        match x.to_str() {
            Some("--probe") => a.probe = true,
            Some("--network") => a.network = true,
            Some("--mode") => {
                let m = it.next().and_then(|m| m.to_str()).unwrap_or_default();
                if !matches!(m, "workspace-write" | "read-only") {
                    return Err(format!("bad --mode {m}"));
                }
                mode = Some(m.to_string());
            }
            Some("--write") => {
                let d = it.next().ok_or("--write needs a directory")?;
                a.write.push(PathBuf::from(d));
            }
            Some("--") => {
                a.program = it.next().cloned();
                a.args = it.cloned().collect();
                break;
            }
            _ => return Err(format!("unexpected argument {}", x.to_string_lossy())),
        }
    }
    if !a.probe && (mode.is_none() || a.program.is_none()) {
        return Err(
            "usage: sandbox-exec --mode MODE [--network] [--write DIR]... -- PROGRAM [ARG]..."
                .into(),
        );
    }
    Ok(a)
}

/// Runs the helper when the process was started as `alisio-ls sandbox-exec …`; `None`
/// otherwise. Called first thing in `main`, before anything starts a thread.
#[must_use]
pub fn intercept() -> Option<std::process::ExitCode> {
    let mut argv = std::env::args_os().skip(1);
    if argv.next().is_none_or(|a| a != "sandbox-exec") {
        return None;
    }
    let rest: Vec<OsString> = argv.collect();
    Some(std::process::ExitCode::from(main(&rest)))
}

/// The helper's one failure line (it is a command-line tool of its own, like `cli`).
fn fail(code: u8, what: &str) -> u8 {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{MARK}{what}");
    code
}

/// The helper: returns an exit code only when the program did not start.
fn main(argv: &[OsString]) -> u8 {
    let a = match parse(argv) {
        Ok(a) => a,
        Err(e) => return fail(125, &format!("sandbox: {e}")),
    };
    let abi = match restrict(a.network, &a.write) {
        Ok(abi) => abi,
        Err(e) => return fail(125, &format!("sandbox: {e}")),
    };
    if a.probe {
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), "{{\"abi\":{abi}}}");
        return 0;
    }
    let Some(program) = &a.program else {
        return fail(125, "sandbox: no program");
    };
    exec(program, &a.args)
}

#[cfg(unix)]
fn exec(program: &OsString, args: &[OsString]) -> u8 {
    use std::os::unix::process::CommandExt as _;
    let e = std::process::Command::new(program).args(args).exec();
    if e.kind() == std::io::ErrorKind::NotFound {
        fail(127, "not-found")
    } else {
        fail(126, &format!("exec: {e}"))
    }
}

#[cfg(not(unix))]
fn exec(_program: &OsString, _args: &[OsString]) -> u8 {
    fail(125, "sandbox: no exec on this platform")
}

/// Applies Landlock and seccomp to the calling thread — and so to every process it starts from
/// now on — writable beneath `dirs` (and [`DEVICES`]), without network unless `network`; the
/// kernel's Landlock ABI. Restricts this thread only (no `TSYNC`): the helper is
/// single-threaded, and [`super::spawner`] gives the restriction a thread of its own.
///
/// # Errors
/// Why the sandbox cannot be applied; the thread may then be partly restricted and must not
/// start anything.
#[cfg(target_os = "linux")]
pub(super) fn restrict(network: bool, dirs: &[PathBuf]) -> Result<u32, String> {
    use landlock::{
        AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, path_beneath_rules,
    };
    let e = |e: landlock::RulesetError| e.to_string();
    let write = AccessFs::from_write(ABI);
    let mut rs = Ruleset::default()
        .handle_access(write)
        .map_err(e)?
        .scope(Scope::Signal)
        .map_err(e)?;
    if !network {
        rs = rs
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(e)?;
    }
    let status = rs
        .create()
        .map_err(e)?
        .add_rules(path_beneath_rules(dirs, write))
        .map_err(e)?
        .add_rules(path_beneath_rules(DEVICES, write))
        .map_err(e)?
        .restrict_self()
        .map_err(e)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(match status.landlock {
            LandlockStatus::NotEnabled => "Landlock is not enabled in this kernel".into(),
            _ => "this kernel has no Landlock".into(),
        });
    }
    if !status.no_new_privs {
        return Err("no_new_privs could not be set".into());
    }
    if !network {
        seccomp()?;
    }
    Ok(match status.landlock {
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => kernel_abi.map_or(effective_abi as u32, |k| k.unsigned_abs()),
        _ => 0,
    })
}

/// Denies `socket(2)` for every family but `AF_UNIX` and `io_uring_setup(2)` (which could
/// create sockets past the filter) with `EPERM`.
#[cfg(target_os = "linux")]
fn seccomp() -> Result<(), String> {
    use nix::libc;
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    let e = |e: seccompiler::Error| e.to_string();
    let be = |e: seccompiler::BackendError| e.to_string();
    let not_unix = || -> Result<Vec<SeccompRule>, String> {
        let c = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )
        .map_err(be)?;
        Ok(vec![SeccompRule::new(vec![c]).map_err(be)?])
    };
    let mut rules = std::collections::BTreeMap::new();
    rules.insert(libc::SYS_socket, not_unix()?);
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    #[cfg(target_arch = "x86_64")]
    {
        // The x32 ABI shares the x86_64 audit arch: its socket(2) is numbered apart.
        const X32: i64 = 0x4000_0000;
        rules.insert(X32 | libc::SYS_socket, not_unix()?);
        rules.insert(X32 | libc::SYS_io_uring_setup, Vec::new());
    }
    let arch = std::env::consts::ARCH.try_into().map_err(be)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(be)?;
    let prog: BpfProgram = filter.try_into().map_err(be)?;
    seccompiler::apply_filter(&prog).map_err(e)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn restrict(_network: bool, _dirs: &[PathBuf]) -> Result<u32, String> {
    Err(format!(
        "no sandbox for process tools on {}",
        std::env::consts::OS
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments_parse_up_to_the_program() {
        let a = parse(&os(&[
            "--mode",
            "read-only",
            "--write",
            "/t",
            "--",
            "sh",
            "-c",
            "--write",
        ]))
        .unwrap();
        assert_eq!(a.write, [PathBuf::from("/t")]);
        assert_eq!(a.program, Some(OsString::from("sh")));
        assert_eq!(a.args, os(&["-c", "--write"]));
        assert!(!a.network && !a.probe);
        assert!(parse(&os(&["--probe"])).unwrap().probe);
    }

    #[test]
    fn bad_arguments_are_refused() {
        assert_eq!(
            parse(&os(&["--mode", "off", "--", "x"])).unwrap_err(),
            "bad --mode off"
        );
        assert!(parse(&os(&["--mode", "read-only"])).is_err());
        assert!(parse(&os(&["--bogus"])).is_err());
    }
}
