//! The one table of ephemeral commands (spec/governor.md §3.3, `expired`; spec/sessions.md §12.3,
//! glance): status and listing commands whose output goes stale and is recovered by running
//! them again. Three callers ask the same function, [`check`]: the runner's own calls
//! (`policy2.rs`, for `run_process`, `shell` and `glance`), the foreign-transcript readers
//! (`readers/`, for shell commands), and the coordinator's glance shell, which runs a command
//! only when [`check`] accepts it. So what the coordinator may run and what expires never
//! disagree.
//!
//! The table is strict because glance executes what it accepts: every element must be in it,
//! no word may be expanded into something unseen (`$`, backticks, globs outside `ls`), no
//! program may be named by a path, no `NAME=value` prefix may change its environment, and no
//! redirection may reach a file.

use super::classify::{OPAQUE_FIRST, is_filter, program};
use super::lex::{Simple, Word, lex, structure};

/// Alisio's own tools whose results are ephemeral whatever their arguments.
pub const EPHEMERAL_TOOLS: &[&str] = &["list_files", "bg_list"];

/// Programs that only report state (each with its own operand rules in [`program_reports`]).
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

/// `git` options allowed before the subcommand. `-c`, `--config-env`, `--exec-path`,
/// `--git-dir` and the others can make git run a program of the caller's choosing
/// (`git -c core.fsmonitor=… status`), so they are not in the table.
const GIT_GLOBAL: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-optional-locks",
    "--literal-pathspecs",
    "--no-replace-objects",
];

/// `git` options that write a file or run an external program.
fn git_option_refused(t: &str) -> bool {
    t.starts_with("--output") || t == "--ext-diff" || t.starts_with("--exec")
}

/// Programs allowed beside reporting ones (`git status && echo --- && git log`); alone they do
/// not make a command ephemeral.
const NEUTRAL: &[&str] = &["echo", "printf", "true"];

/// Why a command is not in the table.
fn not_listed(cmd: &Simple) -> String {
    let words: Vec<&str> = cmd.words.iter().map(|w| w.text.as_str()).collect();
    format!("\"{}\" is not a status or listing command", words.join(" "))
}

/// Whether a `git` invocation only reports state.
fn git_reports(args: &[Word]) -> bool {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.text.as_str() {
            "-C" => i += 2,
            t if GIT_GLOBAL.contains(&t) => i += 1,
            t if t.starts_with('-') => return false,
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
    if rest.iter().any(|w| git_option_refused(&w.text)) {
        return false;
    }
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
fn find_lists(args: &[Word]) -> bool {
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

/// The operand rules of the reporting programs: the forms that set state (`date -s`,
/// `hostname NAME`, `env CMD`, `tree -o FILE`) are not reports.
fn program_reports(prog: &str, args: &[Word]) -> bool {
    let operands = || args.iter().filter(|w| !w.text.starts_with('-')).count();
    match prog {
        "env" => args.is_empty(),
        "date" => args.iter().all(|w| {
            w.text.starts_with('+')
                || (w.text.starts_with('-')
                    && !w.text.starts_with("-s")
                    && !w.text.starts_with("--set"))
        }),
        "hostname" => {
            operands() == 0
                && !args.iter().any(|w| {
                    w.text.starts_with("-F")
                        || w.text.starts_with("--file")
                        || w.text.starts_with("-b")
                        || w.text.starts_with("--boot")
                })
        }
        "tree" => !args.iter().any(|w| w.text.starts_with("-o")),
        p => PROGRAMS.contains(&p),
    }
}

/// A `sed` filter whose script only prints or deletes lines by number (`sed -n 1,20p`): any other
/// script can write files (`w`) or run commands (`e`).
fn sed_prints(args: &[Word]) -> bool {
    let mut scripts = 0;
    for w in args {
        match w.text.as_str() {
            "-n" | "--quiet" | "--silent" => {}
            t if !t.starts_with('-')
                && !t.is_empty()
                && t.chars()
                    .all(|c| c.is_ascii_digit() || " \t,;$!pdqn".contains(c)) =>
            {
                scripts += 1;
            }
            _ => return false,
        }
    }
    scripts == 1
}

/// An `awk` filter without `-f`, output redirection, pipes, `system` or `getline`.
fn awk_prints(args: &[Word]) -> bool {
    let mut i = 0;
    let mut programs = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if t == "-F" || t == "-v" {
            i += 2;
            continue;
        }
        if t.starts_with("-F") || t.starts_with("-v") {
            i += 1;
            continue;
        }
        if t.starts_with('-')
            || ["system", "getline", ">", "|", "@"]
                .iter()
                .any(|x| t.contains(x))
        {
            return false;
        }
        programs += 1;
        i += 1;
    }
    programs == 1
}

/// A later pipeline stage that only filters what an earlier one printed, and writes nothing.
fn safe_filter(prog: &str, args: &[Word]) -> bool {
    let writes = |opts: &[&str]| {
        args.iter()
            .any(|w| opts.iter().any(|o| w.text.starts_with(o)))
    };
    match prog {
        "sed" => sed_prints(args),
        "awk" => awk_prints(args),
        "sort"
            if writes(&[
                "-o",
                "--output",
                "--compress-program",
                "-T",
                "--temporary-directory",
            ]) =>
        {
            false
        }
        p => is_filter(p, args),
    }
}

/// Whether a word may be expanded by the shell into something the table did not see. `ls`
/// operands may be globs (`ls src/*.rs`): `ls` has no option that writes or runs anything.
fn expands(w: &Word, glob_ok: bool) -> bool {
    if !w.dynamic {
        return false;
    }
    let t = w.text.as_str();
    let tilde = t.starts_with('~');
    let rest = if tilde { &t[1..] } else { t };
    rest.contains(['$', '`']) || (!glob_ok && rest.contains(['*', '?', '[', '{']))
}

/// Whether one stage only reports state (`Ok(true)`), is neutral or a filter of what an
/// earlier stage printed (`Ok(false)`); `Err` says why it is neither.
fn reports(cmd: &Simple, first: bool) -> Result<bool, String> {
    if cmd.stdin.is_some() {
        return Err("input redirections and heredocs are not allowed".into());
    }
    for (op, t, dup) in &cmd.redirs {
        let to_null = *op != "<" && t.as_ref().is_some_and(|t| t.text == "/dev/null");
        if !(*dup || to_null) {
            return Err(format!(
                "redirection {op} {} reaches a file",
                t.as_ref().map_or("", |t| t.text.as_str())
            ));
        }
    }
    let Some(first_word) = cmd.words.first() else {
        return Err("an empty command".into());
    };
    if first_word.text.contains('=') {
        return Err(format!(
            "\"{}\": an environment assignment is not allowed",
            first_word.text
        ));
    }
    if first_word.text.contains('/') {
        return Err(format!(
            "\"{}\": name the program, not a path",
            first_word.text
        ));
    }
    let (prog, args) = program(cmd).ok_or_else(|| not_listed(cmd))?;
    let glob_ok = prog == "ls";
    if let Some(w) = cmd.words.iter().find(|w| expands(w, glob_ok)) {
        return Err(format!("\"{}\" would be expanded by the shell", w.text));
    }
    if (!first && safe_filter(&prog, args)) || NEUTRAL.contains(&prog.as_str()) {
        return Ok(false);
    }
    let ok = match prog.as_str() {
        "git" => git_reports(args),
        "find" => find_lists(args),
        p => program_reports(p, args),
    };
    if ok { Ok(true) } else { Err(not_listed(cmd)) }
}

/// The one decision: `Ok(signature)` (the trimmed text) when the command is ephemeral, else why
/// not, naming the first element that is not in the table. A command is ephemeral when every
/// element (split at `&&`, `||`, `;`, newline) is a `cd DIR`, or a pipeline whose first stage
/// only reports state and whose later stages are filters; with at least one reporting stage.
/// `git status && rm -rf x` is not ephemeral: its second element is not in the table.
///
/// # Errors
/// The reason, for the glance shell's refusal.
pub fn check(command: &str) -> Result<String, String> {
    let lexed = lex(command);
    if lexed.opaque {
        return Err("subshells, command substitution, backgrounding, unbalanced quotes and unterminated heredocs are not allowed".into());
    }
    let elements = structure(lexed.tokens);
    let mut any = false;
    for el in &elements {
        let is_cd = el.len() == 1
            && el[0].redirs.is_empty()
            && el[0].stdin.is_none()
            && el[0].words.first().is_some_and(|w| w.text == "cd")
            && !el[0].words.iter().any(|w| expands(w, false));
        if is_cd {
            continue;
        }
        if let Some(w) = el.first().and_then(|c| c.words.first()).filter(|w| {
            w.plain && (OPAQUE_FIRST.contains(&w.text.as_str()) || w.text == "{" || w.text == "}")
        }) {
            return Err(format!("\"{}\": compound commands are not allowed", w.text));
        }
        for (k, c) in el.iter().enumerate() {
            any |= reports(c, k == 0)?;
        }
    }
    if any {
        Ok(command.trim().to_owned())
    } else {
        Err("no status or listing command in it".into())
    }
}

/// The signature of an ephemeral shell command (its trimmed text), or `None` ([`check`]).
#[must_use]
pub fn ephemeral(command: &str) -> Option<String> {
    check(command).ok()
}
