//! `skill-command-not-run` (spec/skills.md §11.2): an inline ``!`command` `` that Claude Code
//! 2.1.332 never runs. Its skill loader runs an injection only where `/(?<=^|\s)!`[^`]+`/gm`
//! matches (the pattern in the binary's JavaScript): at the start of a line or after
//! whitespace. Written after any other character (`BRANCH=!`git branch``), the text is sent to
//! the model as written and the command's output is never put in its place. A `!` right after
//! a backtick (`` `a`!`b` ``, two code spans) is not counted, nor one inside a code span or a
//! code block (`` `` KEY=!`cmd` `` ``): documentation showing the syntax means it as written.

use super::Finding;
use alisio_base::diagnostic::Code;
use alisio_base::text::TextRange;

/// The inline injections of the body (from `body_start` in `text`) that follow a character
/// other than whitespace on their line, with the closing backtick on the same line. Also run on
/// Claude Code's slash commands (`.claude/commands`), which the same loader expands.
#[must_use]
pub fn not_run(text: &str, body_start: usize) -> Vec<Finding> {
    let body = &text[body_start.min(text.len())..];
    if !body.contains("!`") {
        return Vec::new();
    }
    let code = super::arguments::code_ranges(body);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(off) = body[from..].find("!`") {
        let at = from + off;
        from = at + 2;
        let Some(prev) = body[..at].chars().next_back() else {
            continue;
        };
        if prev.is_whitespace() || prev == '`' || code.iter().any(|(r, _)| r.contains(&at)) {
            continue;
        }
        let rest = &body[at + 2..];
        let Some(close) = rest.find('`') else {
            continue;
        };
        let command = &rest[..close];
        if command.is_empty() || command.contains('\n') {
            continue;
        }
        let end = at + 2 + close + 1;
        out.push(Finding::new(
            Code::SkillCommandNotRun,
            TextRange::new(body_start + at, body_start + end),
            format!(
                "Claude Code runs !`{command}` only at the start of a line or after a space: after {prev:?} it sends the text as written and never runs the command; put a space before the !"
            ),
        ));
        from = end;
    }
    out
}
