//! The one table of ephemeral commands (spec/governor.md §3.3, `expired`): status and listing
//! commands whose output goes stale and is recovered by running them again. The runner's own
//! calls (`classify.rs`, for `run_process` and `shell`) and the foreign-transcript readers
//! (`readers/`, for shell commands) both ask [`ephemeral`], so the two never disagree.

use super::classify::{OPAQUE_FIRST, is_filter, program};
use super::lex::{Simple, lex, structure};

/// Alisio's own tools whose results are ephemeral whatever their arguments.
pub const EPHEMERAL_TOOLS: &[&str] = &["list_files", "bg_list"];

/// Programs that only report state, whatever their operands.
const PROGRAMS: &[&str] = &[
    "ls", "ll", "la", "dir", "pwd", "ps", "tree", "date", "whoami", "id", "hostname", "uptime",
    "df", "du", "free", "jobs", "env", "printenv", "uname", "which", "stat",
];

/// `git` subcommands that only report state (`git branch` and `git stash` only in their listing
/// forms, see [`git_reports`]).
const GIT: &[&str] = &[
    "status",
    "log",
    "diff",
    "branch",
    "stash",
    "remote",
    "rev-parse",
    "describe",
];

/// Programs allowed beside reporting ones (`git status && echo --- && git log`); alone they do
/// not make a command ephemeral.
const NEUTRAL: &[&str] = &["echo", "printf", "true"];

/// Whether a `git` invocation only reports state.
fn git_reports(args: &[super::lex::Word]) -> bool {
    // Global options before the subcommand (`git -C dir status`, `git --no-pager log`).
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "-C" | "-c" => i += 2,
            t if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let Some(sub) = args
        .get(i)
        .map(|w| w.text.as_str())
        .filter(|s| GIT.contains(s))
    else {
        return false;
    };
    let rest = args.get(i + 1..).unwrap_or_default();
    let operands = rest.iter().filter(|w| !w.text.starts_with('-')).count();
    let only = |opts: &[&str]| rest.iter().all(|w| opts.contains(&w.text.as_str()));
    match sub {
        "status" | "log" | "diff" | "rev-parse" | "describe" => true,
        "branch" => {
            operands == 0 && only(&["-a", "-r", "-v", "-vv", "--list", "--all", "--show-current"])
        }
        "stash" => rest.first().map(|w| w.text.as_str()) == Some("list"),
        "remote" => operands == 0,
        _ => false,
    }
}

/// `find` that only lists: no action that deletes, writes or runs anything.
fn find_lists(args: &[super::lex::Word]) -> bool {
    !args.iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-delete"
                | "-exec"
                | "-execdir"
                | "-ok"
                | "-okdir"
                | "-fls"
                | "-fprint"
                | "-fprint0"
                | "-fprintf"
        )
    })
}

/// Whether one stage only reports state (`Some(true)`), is neutral or a filter of what an
/// earlier stage printed (`Some(false)`), or is anything else (`None`).
fn reports(cmd: &Simple, first: bool) -> Option<bool> {
    if cmd.stdin.is_some()
        || !cmd.redirs.iter().all(|(op, t, dup)| {
            *dup || (*op != "<" && t.as_ref().is_some_and(|t| t.text == "/dev/null"))
        })
    {
        return None;
    }
    let (prog, args) = program(cmd)?;
    if (!first && is_filter(&prog, args)) || NEUTRAL.contains(&prog.as_str()) {
        return Some(false);
    }
    match prog.as_str() {
        "git" => git_reports(args).then_some(true),
        "find" => find_lists(args).then_some(true),
        p => PROGRAMS.contains(&p).then_some(true),
    }
}

/// The signature of an ephemeral shell command (its trimmed text), or `None`. A command is
/// ephemeral when every element (`&&`, `||`, `;`) is a `cd`, or a pipeline whose first stage
/// only reports state and whose later stages are filters; with at least one reporting stage.
/// `git status && rm -rf x` is not ephemeral: its second element is not in the table.
#[must_use]
pub fn ephemeral(command: &str) -> Option<String> {
    let lexed = lex(command);
    if lexed.opaque {
        return None;
    }
    let elements = structure(lexed.toks);
    let mut any = false;
    for el in &elements {
        let is_cd = el.len() == 1
            && el[0].redirs.is_empty()
            && el[0].words.first().is_some_and(|w| w.text == "cd");
        if is_cd {
            continue;
        }
        if el
            .first()
            .and_then(|c| c.words.first())
            .is_some_and(|w| w.plain && OPAQUE_FIRST.contains(&w.text.as_str()))
        {
            return None;
        }
        for (k, c) in el.iter().enumerate() {
            any |= reports(c, k == 0)?;
        }
    }
    any.then(|| command.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::ephemeral;

    #[test]
    fn status_and_listing_commands_are_ephemeral() {
        for c in [
            "git status",
            "git status -s && echo ok",
            "cd /testbed && ls -la",
            "ls src | head -20",
            "git --no-pager log --oneline -10",
            "git -C repo status",
            "git branch -a",
            "git stash list",
            "pwd",
            "ps aux | grep python",
            "ls 2>/dev/null",
            "find . -name '*.py' | head",
            "git diff",
        ] {
            assert_eq!(ephemeral(c).as_deref(), Some(c), "{c}");
        }
    }

    #[test]
    fn anything_else_is_not() {
        for c in [
            "git status && rm -rf x",
            "git branch -D old",
            "git stash",
            "git checkout main",
            "cat a.txt",
            "ls > listing.txt",
            "python t.py",
            "cd /testbed",
            "for f in *; do ls $f; done",
            "grep -rn foo .",
            "echo done",
            "find . -name x -delete",
            "find . -exec rm {} ;",
            "",
        ] {
            assert_eq!(ephemeral(c), None, "{c}");
        }
    }
}
