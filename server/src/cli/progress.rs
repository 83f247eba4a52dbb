//! Progress on stderr for long commands (indicatif): `governor analyze` over several
//! transcripts (a bar, one step a file) and `check` (a spinner while the tree is walked and
//! analysed). Shown only when stderr is a terminal and the output is not machine output
//! (`--json`, or `check --format json|sarif|github`); never on stdout; cleared when done.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long `check` works before its spinner appears.
pub const SPINNER_DELAY: Duration = Duration::from_millis(300);

/// Whether progress is shown: a terminal on stderr, human output, and enough work.
#[must_use]
pub fn wanted(stderr_is_terminal: bool, machine_output: bool, steps: u64) -> bool {
    stderr_is_terminal && !machine_output && steps > 1
}

/// A progress indicator, or nothing.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar of `len` steps (`governor analyze`: one per transcript).
    #[must_use]
    pub fn bar(machine_output: bool, len: u64, what: &str) -> Self {
        if !wanted(std::io::stderr().is_terminal(), machine_output, len) {
            return Self(None);
        }
        let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {wide_msg}")
        {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(what.to_owned());
        Self(Some(pb))
    }

    /// A spinner (`check`: the walk and the analysis have no known length). It appears only
    /// when the work lasts longer than [`SPINNER_DELAY`], so a small tree never flickers.
    #[must_use]
    pub fn spinner(machine_output: bool, what: &str) -> Self {
        if !wanted(std::io::stderr().is_terminal(), machine_output, 2) {
            return Self(None);
        }
        let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            pb.set_style(style);
        }
        pb.set_message(what.to_owned());
        let later = pb.clone();
        std::thread::spawn(move || {
            std::thread::sleep(SPINNER_DELAY);
            if !later.is_finished() {
                later.set_draw_target(ProgressDrawTarget::stderr());
                later.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Self(Some(pb))
    }

    /// The current step's label (a file name).
    pub fn message(&self, msg: &str) {
        if let Some(pb) = &self.0 {
            pb.set_message(msg.to_owned());
        }
    }

    pub fn inc(&self) {
        if let Some(pb) = &self.0 {
            pb.inc(1);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(pb) = &self.0 {
            pb.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::wanted;

    #[test]
    fn only_on_a_terminal_for_human_output_and_more_than_one_step() {
        assert!(wanted(true, false, 2));
        assert!(!wanted(false, false, 2), "stderr not a terminal");
        assert!(!wanted(true, true, 2), "--json");
        assert!(!wanted(true, false, 1), "one file");
    }
}
