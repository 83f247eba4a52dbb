//! `instructions-commands-conflict` (spec/instructions.md §5.5): two files the host loads
//! together for the same directory (one startup list) tell the agent to use different
//! JavaScript package managers (`npm install` in one, `pnpm install` in the other), so the agent
//! gets both. Only commands written as code (a code span or block) count; only files of one
//! list are compared, so unrelated trees never are (agnix XP-004 compared them).

use alisio_base::text::TextRange;

const MANAGERS: &[&str] = &["npm", "pnpm", "yarn", "bun"];
const VERBS: &[&str] = &[
    "install", "i", "ci", "add", "run", "test", "build", "exec", "dlx", "x", "remove", "start",
];

/// The package-manager command of a file: the first one written as code (its range, the
/// manager, and the manager with its verb: `pnpm install`, `npm run`), when every such command
/// of the file names the same manager. A file that itself names several (a root file that
/// says what an installer runs, `npm install --omit=dev`, and uses `pnpm install`) says nothing
/// clear, and is not compared.
#[must_use]
pub fn first_command(text: &str) -> Option<(TextRange, &'static str, String)> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    if !MANAGERS.iter().any(|m| text.contains(m)) {
        return None;
    }
    let mut in_block = false;
    let mut first: Option<(TextRange, &'static str, String)> = None;
    for (ev, range) in Parser::new(text).into_offset_iter() {
        let code = match ev {
            Event::Start(Tag::CodeBlock(_)) => {
                in_block = true;
                continue;
            }
            Event::End(TagEnd::CodeBlock) => {
                in_block = false;
                continue;
            }
            Event::Code(c) => Some(c),
            Event::Text(t) if in_block => Some(t),
            _ => None,
        };
        let Some(code) = code else { continue };
        let src = text.get(range.clone()).unwrap_or_default();
        let Some(base) = src.find(code.as_ref()).map(|p| range.start + p) else {
            continue;
        };
        for (off, m, cmd) in scan(&code) {
            match &first {
                None => first = Some((TextRange::new(base + off, base + off + cmd.len()), m, cmd)),
                Some((_, fm, _)) if *fm != m => return None,
                Some(_) => {}
            }
        }
    }
    first
}

/// Every `<manager> <verb>` of one piece of code: offset, manager, command.
fn scan(code: &str) -> Vec<(usize, &'static str, String)> {
    let words: Vec<(usize, &str)> = code
        .char_indices()
        .filter(|(i, c)| {
            !c.is_whitespace()
                && (*i == 0
                    || code[..*i].ends_with(|p: char| p.is_whitespace() || "(;&|`$".contains(p)))
        })
        .map(|(i, _)| {
            let end = code[i..]
                .find(char::is_whitespace)
                .map_or(code.len(), |e| i + e);
            (i, &code[i..end])
        })
        .collect();
    let mut out = Vec::new();
    for w in words.windows(2) {
        let (at, m) = w[0];
        let (vat, v) = w[1];
        if let Some(man) = MANAGERS.iter().find(|x| **x == m)
            && VERBS.contains(&v)
        {
            out.push((at, *man, code[at..vat + v.len()].to_string()));
        }
    }
    out
}

/// The message on the file that says `mine`, against `other` said in `other_file`.
#[must_use]
pub fn message(mine: &str, other_file: &str, other: &str) -> String {
    format!(
        "this file says `{mine}` while {other_file}, loaded with it here, says `{other}`: the agent gets both package managers (use one in every file)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_in_code_are_found_and_prose_is_not() {
        assert_eq!(first_command("Use pnpm install, not npm.\n"), None);
        let t = "# Build\n\n- `pnpm install`\n- `pnpm test`\n";
        assert_eq!(
            first_command(t),
            Some((TextRange::new(12, 24), "pnpm", "pnpm install".to_string()))
        );
        let t = "```sh\ncd web && npm run build\n```\n";
        assert_eq!(
            first_command(t),
            Some((TextRange::new(16, 23), "npm", "npm run".to_string()))
        );
        assert_eq!(
            first_command("Run `npx eslint .` and `cargo test`.\n"),
            None
        );
        assert_eq!(
            message("pnpm install", "AGENTS.md", "npm install"),
            "this file says `pnpm install` while AGENTS.md, loaded with it here, says `npm install`: the agent gets both package managers (use one in every file)"
        );
    }
}
