//! `alisio-ls-sandbox sandbox-exec …`: the process sandbox's helper as a binary of its own
//! (docs/sessions.md "Process sandbox"). It is `alisio-ls sandbox-exec` without the rest of
//! `alisio-ls`: a small executable starts several times faster than the full one, and process
//! tools start one per call. When it is not installed beside `alisio-ls`, the tools re-exec
//! `alisio-ls` itself.

use std::io::Write as _;

fn main() -> std::process::ExitCode {
    alisio_ls::session::sandbox::exec::intercept().unwrap_or_else(|| {
        let _ = writeln!(
            std::io::stderr().lock(),
            "{}sandbox: usage: alisio-ls-sandbox sandbox-exec --mode MODE [--network] [--write DIR]... -- PROGRAM [ARG]...",
            alisio_ls::session::sandbox::exec::MARK
        );
        std::process::ExitCode::from(125)
    })
}
