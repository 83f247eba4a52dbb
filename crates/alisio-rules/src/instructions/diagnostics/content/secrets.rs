//! Literal secrets (`instructions-secret`, `skill-secret`; spec/instructions.md §5.5,
//! spec/skills.md §2.10): everything in an instruction file or a SKILL.md is sent to the model
//! provider, so a live token there leaks. Only tokens with a known prefix count (GitHub,
//! OpenAI, Anthropic, Slack, AWS, Google, GitLab, npm, Hugging Face) and a private-key block;
//! the random part must look random (a digit, and at least 3.5 bits of entropy per character),
//! and placeholders (`sk-...`, `ghp_xxxx`, `YOUR_KEY`, `…EXAMPLE`) are skipped. agnix's version
//! of this rule was 0 for 3 on the corpus, all placeholders (agnix-gap.md §4.4).

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};
use alisio_base::text::TextRange;

/// (prefix, service, minimum length of the part after the prefix, exact length or 0).
const PREFIXES: &[(&str, &str, usize, usize)] = &[
    ("github_pat_", "GitHub token", 22, 0),
    ("ghp_", "GitHub token", 36, 0),
    ("gho_", "GitHub token", 36, 0),
    ("ghu_", "GitHub token", 36, 0),
    ("ghs_", "GitHub token", 36, 0),
    ("ghr_", "GitHub token", 36, 0),
    ("sk-ant-", "Anthropic API key", 32, 0),
    ("sk-proj-", "OpenAI API key", 32, 0),
    ("sk-", "API key", 32, 0),
    ("xoxb-", "Slack token", 20, 0),
    ("xoxp-", "Slack token", 20, 0),
    ("xoxa-", "Slack token", 20, 0),
    ("glpat-", "GitLab token", 20, 0),
    ("npm_", "npm token", 36, 0),
    ("hf_", "Hugging Face token", 30, 0),
    ("AKIA", "AWS access key", 16, 16),
    ("ASIA", "AWS access key", 16, 16),
    ("AIza", "Google API key", 35, 35),
];

const PLACEHOLDERS: &[&str] = &[
    "xxxx",
    "example",
    "your",
    "dummy",
    "fake",
    "placeholder",
    "redacted",
    "sample",
    "changeme",
    "0000",
    "1234",
    "abcd",
];

fn token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts = [0usize; 256];
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
    }
    #[allow(
        clippy::cast_precision_loss,
        reason = "lengths of a token, far below 2^52"
    )]
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            #[allow(clippy::cast_precision_loss, reason = "as above")]
            let p = *c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

fn looks_random(rest: &str) -> bool {
    let lower = rest.to_ascii_lowercase();
    rest.bytes().any(|b| b.is_ascii_digit())
        && entropy(rest) >= 3.5
        && !PLACEHOLDERS.iter().any(|p| lower.contains(p))
}

/// The byte strings one of which every secret contains: every prefix of [`PREFIXES`] starts
/// with one, and a private key block with the last. One automaton finds them all in one pass
/// over the text (SIMD), so a text without any costs one scan and no tokenising.
const MARKERS: &[&str] = &[
    "github_pat_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "sk-",
    "xox",
    "glpat-",
    "npm_",
    "hf_",
    "AKIA",
    "ASIA",
    "AIza",
    "-----BEGIN ",
];

/// The search for [`MARKERS`], built once; `None` only if the automaton could not be built.
static MARKER_SEARCH: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(MARKERS)
        .ok()
});

/// The opening of a private key block (searched with SIMD, as the markers are).
static KEY_BLOCK: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("-----BEGIN "));

/// The start of every occurrence of a marker at the start of a token, in order. The search
/// does not report a marker that overlaps an earlier one; no such marker starts a token (every
/// marker but the private key's is made of token characters, and that one ends in a space), and
/// the private key blocks are searched for on their own.
fn marker_starts(b: &[u8]) -> Vec<usize> {
    let found = MARKER_SEARCH
        .as_ref()
        .and_then(|search| search.try_find_iter(b).ok());
    let starts: Vec<usize> = match found {
        Some(matches) => matches.map(|m| m.start()).collect(),
        // Should the automaton fail, each marker is searched for in turn.
        None => {
            let mut all: Vec<usize> = MARKERS
                .iter()
                .flat_map(|m| memchr::memmem::find_iter(b, m.as_bytes()))
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        }
    };
    starts
        .into_iter()
        .filter(|&i| i == 0 || !token_char(b[i - 1]))
        .collect()
}

/// Every secret of `text`: its range and what it looks like.
#[must_use]
pub fn find(text: &str) -> Vec<(TextRange, &'static str)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let starts = marker_starts(b);
    // A token is a maximal run of token characters; only one that starts with a prefix can be a
    // secret, and every prefix starts with a marker, so the tokens to look at are those that
    // begin where a marker does.
    for i in starts {
        let end = i + b[i..].iter().take_while(|c| token_char(**c)).count();
        let tok = &text[i..end];
        for (prefix, what, min, exact) in PREFIXES {
            let Some(rest) = tok.strip_prefix(prefix) else {
                continue;
            };
            let len_ok = if *exact > 0 {
                rest.len() == *exact
                    && rest
                        .bytes()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *prefix == "AIza")
            } else {
                rest.len() >= *min
            };
            if len_ok && looks_random(rest) {
                out.push((TextRange::new(i, end), *what));
            }
            break;
        }
    }
    let mut from = 0;
    while let Some(p) = KEY_BLOCK.find(&b[from..]) {
        let s = from + p;
        let line_end = text[s..].find('\n').map_or(text.len(), |e| s + e);
        let line = &text[s..line_end];
        if line.contains("PRIVATE KEY-----") {
            let body = text[line_end..].lines().nth(1).unwrap_or_default();
            if body.len() >= 40 && looks_random(body) {
                out.push((TextRange::new(s, line_end), "private key"));
            }
        }
        from = line_end.max(s + 1);
    }
    out.sort_by_key(|(r, _)| r.start);
    out
}

/// The message of a finding; it never repeats the secret (only its first characters).
#[must_use]
pub fn message(text: &str, r: TextRange, what: &str) -> String {
    let shown: String = text[r.start..r.end].chars().take(6).collect();
    format!(
        "this looks like a live {what} ({shown}…): everything in this file is sent to the model provider; load it from the environment or a secret store instead"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token-like string built at run time, so no secret scanner sees one in the source.
    pub(crate) fn fake(prefix: &str, n: usize) -> String {
        let alphabet = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut s = prefix.to_string();
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push(char::from(alphabet[usize::try_from(x % 57).unwrap()]));
        }
        s
    }

    #[test]
    fn markers_are_found_where_a_token_starts() {
        // "sk-" inside "task-" and "hf_" inside "sk-ant-hf_" start no token; the key block
        // overlapping "sk-" is found by its own search.
        let t = b"sk-----BEGIN x task-sk-ant-hf_ghp_ AKIAASIA -----BEGIN -----BEGIN github_pat_xox";
        assert_eq!(marker_starts(t), [0, 35, 44, 55, 66]);
        assert_eq!(marker_starts(b"no marker here"), Vec::<usize>::new());
    }

    #[test]
    fn placeholders_and_words_are_not_secrets() {
        let t = "OPENAI_API_KEY=sk-...\nTOKEN = \"ghp_...\"\nkey: '{{env.OPENAI_API_KEY}}'\n\
OPENAI_API_KEY=sk-live-super-secret-value\nAKIAIOSFODNN7EXAMPLE\nghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n\
Use ${GITHUB_TOKEN}; the task-runner uses sk-learn and hf_hub.\n";
        assert_eq!(find(t), []);
    }

    #[test]
    fn live_looking_tokens_are_found_with_their_range() {
        let gh = fake("ghp_", 36);
        let t = format!("TOKEN = \"{gh}\"\n");
        assert_eq!(find(&t), [(TextRange::new(9, 9 + 40), "GitHub token")]);
        assert_eq!(
            message(&t, TextRange::new(9, 49), "GitHub token"),
            "this looks like a live GitHub token (ghp_…): everything in this file is sent to the model provider; load it from the environment or a secret store instead"
                .replace("ghp_…", &format!("{}…", &gh[..6]))
        );
        let aws = format!("id {}", fake("AKIA", 16).to_ascii_uppercase());
        assert_eq!(find(&aws), [(TextRange::new(3, 23), "AWS access key")]);
        let key = format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
            fake("MII", 61)
        );
        assert_eq!(find(&key), [(TextRange::new(0, 31), "private key")]);
    }
}
