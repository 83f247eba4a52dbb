//! `instructions-always-loaded-long` (opinionated; spec/instructions.md §5.5): for the
//! workspace root, host `claude-code`, the workspace files Claude Code loads at every session
//! start (CLAUDE.md, AGENTS.md in its mode, CLAUDE.local.md, `.claude/rules` without `paths`,
//! and the imports of each) hold more than 200 lines together. Claude Code's guidance is a
//! CLAUDE.md under 200 lines; imports and unconditional rules cost the same context, so the
//! guidance is applied to their total (agnix CC-MEM-015).

/// Lines past which the always-loaded total is "long".
pub const MAX_LINES: usize = 200;

/// Lines of a text: a final line break does not start another line.
#[must_use]
pub fn lines(text: &str) -> usize {
    text.split_inclusive('\n').count()
}

/// The message, from the parts (display path, lines) in load order, when their total is over
/// [`MAX_LINES`].
#[must_use]
pub fn message(parts: &[(String, usize)]) -> Option<String> {
    let total: usize = parts.iter().map(|(_, n)| n).sum();
    if total <= MAX_LINES {
        return None;
    }
    let list = parts
        .iter()
        .map(|(p, n)| format!("{p} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!(
        "Claude Code loads {total} lines of instructions at every session start here ({list}): its guidance is to keep what is always loaded under {MAX_LINES} lines (move part-of-the-codebase rules to .claude/rules with paths)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_hundred_lines_in_total_are_fine_and_more_are_reported() {
        assert_eq!(lines("a\nb\n"), 2);
        assert_eq!(lines("a\nb"), 2);
        assert_eq!(
            message(&[("CLAUDE.md".into(), 120), (".claude/rules/a.md".into(), 80)]),
            None
        );
        assert_eq!(
            message(&[
                ("CLAUDE.md".into(), 150),
                ("docs/conventions.md".into(), 150),
                (".claude/rules/style.md".into(), 150)
            ])
            .unwrap(),
            "Claude Code loads 450 lines of instructions at every session start here (CLAUDE.md 150, docs/conventions.md 150, .claude/rules/style.md 150): its guidance is to keep what is always loaded under 200 lines (move part-of-the-codebase rules to .claude/rules with paths)"
        );
    }
}
