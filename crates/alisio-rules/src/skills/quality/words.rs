//! The word lists and patterns of the description hints (spec/skills.md §11.2): the cues of a
//! when-to-use clause, first- and second-person pronouns, generic words, XML tags.

use crate::skills::triggers::router;

/// Single words that open a when-to-use clause.
const WHEN_WORDS: &[&str] = &[
    "when",
    "whenever",
    "if",
    "unless",
    "before",
    "after",
    "during",
    "while",
    "trigger",
    "triggers",
    "triggered",
    "invoke",
    "invoked",
    "activate",
    "activates",
    "asks",
    "asked",
    "mentions",
];

/// `use`, `used`, `useful` followed by one of these words is a when-to-use clause too
/// ("Use for …", "Use this skill to …", "Useful for …").
const USE_WORDS: &[&str] = &["use", "used", "useful", "usage"];
const USE_FOLLOWERS: &[&str] = &[
    "for",
    "to",
    "this",
    "it",
    "on",
    "in",
    "with",
    "when",
    "if",
    "whenever",
    "proactively",
];

fn words(s: &str) -> Vec<&str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// `true` when at least 80% of the letters of `d` are ASCII: the when-to-use cues are English
/// words, so a description in another script is not judged.
#[must_use]
pub fn mostly_ascii(d: &str) -> bool {
    let (mut ascii, mut all) = (0usize, 0usize);
    for c in d.chars().filter(|c| c.is_alphabetic()) {
        all += 1;
        ascii += usize::from(c.is_ascii());
    }
    ascii * 5 >= all * 4
}

/// `d` with quoted text (`"…"`, `“…”`, `` `…` ``) blanked: an example prompt or a code span
/// says what a user types, not how the description speaks.
#[must_use]
pub fn unquoted(d: &str) -> String {
    let mut out = String::with_capacity(d.len());
    let mut close: Option<char> = None;
    for c in d.chars() {
        match close {
            Some(e) if c == e => {
                close = None;
                out.push(' ');
            }
            Some(_) => out.push(' '),
            None => match c {
                '"' => close = Some('"'),
                '“' => close = Some('”'),
                '`' => close = Some('`'),
                _ => out.push(c),
            },
        }
    }
    out
}

/// `true` when the description holds a when-to-use clause.
#[must_use]
pub fn has_when_clause(d: &str) -> bool {
    let lower = d.to_lowercase();
    let ws = words(&lower);
    ws.iter().enumerate().any(|(i, w)| {
        WHEN_WORDS.contains(w)
            || (USE_WORDS.contains(w) && ws.get(i + 1).is_some_and(|n| USE_FOLLOWERS.contains(n)))
    })
}

/// First-person words (compared lowercased, except `I`, which must be a capital, and `US`,
/// which is left out: it is a country as often as a pronoun).
const FIRST: &[&str] = &[
    "i'm",
    "i'll",
    "i've",
    "i'd",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "we'll",
    "we're",
    "we've",
    "our",
    "ours",
    "ourselves",
];
const SECOND: &[&str] = &[
    "you",
    "your",
    "yours",
    "you'll",
    "you're",
    "you've",
    "you'd",
    "yourself",
    "yourselves",
];

/// The first first- or second-person word of the description, with `"first"` or `"second"`.
#[must_use]
pub fn person(d: &str) -> Option<(String, &'static str)> {
    let d = unquoted(d);
    for w in words(&d) {
        let lower = w.to_lowercase().replace('’', "'");
        if w == "I" || FIRST.contains(&lower.as_str()) || (w == "us") {
            return Some((w.to_string(), "first"));
        }
        if SECOND.contains(&lower.as_str()) {
            return Some((w.to_string(), "second"));
        }
    }
    None
}

/// Words that say nothing about what a skill is for (compared after the trigger lab's
/// stemming, so `helps`, `helping` and `helper` meet `help`).
const GENERIC: &[&str] = &[
    "help",
    "helps",
    "helper",
    "helpful",
    "assist",
    "assistant",
    "tool",
    "toolkit",
    "utility",
    "utilities",
    "various",
    "variety",
    "general",
    "generic",
    "misc",
    "miscellaneous",
    "thing",
    "stuff",
    "task",
    "work",
    "job",
    "handle",
    "manage",
    "process",
    "support",
    "make",
    "data",
    "file",
    "document",
    "content",
    "code",
    "project",
    "feature",
    "function",
    "skill",
    "common",
    "basic",
    "simple",
    "etc",
    "other",
    "many",
    "different",
    "operation",
    "action",
    "request",
    "item",
    "information",
    "info",
    "everything",
    "anything",
    "something",
    "perform",
    "provide",
    "allow",
    "enable",
    "improve",
    "better",
    "best",
    "practice",
    "guide",
    "guidance",
    "expert",
    "expertise",
    "advanced",
    "powerful",
    "comprehensive",
    "useful",
    "capability",
    "capabilities",
    "new",
    "one",
    "just",
    "more",
    "like",
    "need",
    "want",
    "get",
    "not",
    // The words of a when clause say when, not what.
    "ask",
    "asked",
    "asks",
    "user",
    "mention",
    "trigger",
    "invoke",
    "needed",
];

/// `true` when `term` (a term of [`router::terms`]) is a generic word.
#[must_use]
pub fn is_generic(term: &str) -> bool {
    static STEMS: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    STEMS
        .get_or_init(|| GENERIC.iter().flat_map(|g| router::terms(g)).collect())
        .contains(term)
}

/// The first XML tag of `s`: `<name …>`, `</name>` or `<name/>`, where the name starts with a
/// letter and holds letters, digits, `_`, `.`, `:` and `-`.
#[must_use]
pub fn xml_tag(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let start = i + off;
        let mut j = start + 1;
        if b.get(j) == Some(&b'/') {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_alphabetic) {
            while b
                .get(j)
                .is_some_and(|c| c.is_ascii_alphanumeric() || b"_.:-".contains(c))
            {
                j += 1;
            }
            // Attributes: anything up to `>` without another `<` or a line break.
            let rest_ok = match b.get(j) {
                Some(b'>') => true,
                Some(b'/') => b.get(j + 1) == Some(&b'>'),
                Some(c) if c.is_ascii_whitespace() => true,
                _ => false,
            };
            let close = b[j..].iter().position(|c| matches!(c, b'>' | b'<' | b'\n'));
            if let Some(close) = close.filter(|c| rest_ok && b[j + c] == b'>') {
                return Some(&s[start..=j + close]);
            }
        }
        i = start + 1;
    }
    None
}
