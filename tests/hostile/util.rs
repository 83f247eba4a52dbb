//! Runs with a timeout, and checks every hostile run shares.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Run, Ws};

/// Runs `cmd`, killing it (and failing the test) when it outlives the shared limit
/// (`common::run_limit`, 120 s unless `ALISIO_TEST_TIMEOUT_SECS` says otherwise).
pub fn run_limited(cmd: &mut Command) -> Run {
    crate::common::run_cmd(cmd)
}

pub fn run(ws: &Ws, args: &[&str]) -> Run {
    run_limited(ws.cmd().args(args))
}

/// No panic, no crash by signal, and an exit code of the interface (0, 1 or 2).
pub fn sane(r: &Run) {
    assert!(!r.stderr.contains("panicked"), "panic: {r:?}");
    assert!(matches!(r.code, 0..=2), "exit code {}: {r:?}", r.code);
}

/// Neither output mentions `marker` (text of a file outside the workspace) nor `outside`.
pub fn no_escape(r: &Run, marker: &str, outside: &Path) {
    for s in [&r.stdout, &r.stderr] {
        assert!(
            !s.contains(marker),
            "content from outside the workspace leaked: {r:?}"
        );
        assert!(
            !s.contains(&outside.display().to_string()),
            "a path outside the workspace was reported: {r:?}"
        );
    }
}

/// `true` when the tests run as root (permission bits do not stop root).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// `VmRSS` or `VmHWM` of a process in KiB.
pub fn proc_kib(pid: u32, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Removes a tree too deep for `std::fs::remove_dir_all` to handle gracefully.
pub fn rm_rf(p: &Path) {
    let _ = Command::new("rm").arg("-rf").arg(p).status();
}

/// Builds `root/d/d/…/d`, `depth` levels deep (deeper than PATH_MAX lets one path name), with
/// an `AGENTS.md` in the deepest directory. Built in chunks of 1000 levels that are moved into
/// each other, so no path used here is longer than ~2 KiB.
pub fn deep_chain(root: &Path, depth: usize) {
    let stage = root.parent().expect("parent").join("stage");
    let chunk = 1000.min(depth);
    let levels = |n: usize| "d/".repeat(n);
    let mut made = 0;
    let mut prev: Option<PathBuf> = None;
    let mut i = 0;
    while made < depth {
        let n = chunk.min(depth - made);
        let base = stage.join(format!("c{i}"));
        let bottom = base.join(levels(n));
        std::fs::create_dir_all(&bottom).expect("mkdir chunk");
        match &prev {
            None => std::fs::write(bottom.join("AGENTS.md"), "# Deepest\n").expect("write"),
            Some(p) => {
                // The chunk's deepest `d` is replaced by the previous chain's top.
                std::fs::remove_dir(&bottom).expect("rmdir");
                std::fs::rename(p, &bottom).expect("nest chunk");
            }
        }
        prev = Some(base.join("d"));
        made += n;
        i += 1;
    }
    std::fs::rename(prev.expect("one chunk"), root.join("d")).expect("move chain in");
    rm_rf(&stage);
}
