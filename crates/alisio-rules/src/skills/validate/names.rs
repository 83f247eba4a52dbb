//! The name rules' character tests (spec/skills.md §2.5, §2.6) and the edit distance behind "did you
//! mean" suggestions.

pub(super) fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`.
#[must_use]
pub fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The spec profile's name characters (spec/skills.md §2.6): letters and numbers of any script (Python
/// `isalnum`) and `-`, equal to its own lowercase, no leading/trailing `-`, no `--`.
#[must_use]
pub fn is_spec_name(normalised: &str) -> bool {
    !normalised.is_empty()
        && normalised.chars().all(|c| c == '-' || c.is_alphanumeric())
        && normalised.to_lowercase() == normalised
        && !normalised.starts_with('-')
        && !normalised.ends_with('-')
        && !normalised.contains("--")
}

/// `Some(edit_distance(a, b))` when it is at most `max`, else `None`. The distance is never
/// below the difference of the two lengths in characters, so a pair whose lengths differ by more
/// than `max` is not compared at all (most keys and tool names against most candidates).
#[must_use]
pub fn edit_distance_at_most(a: &str, b: &str, max: usize) -> Option<usize> {
    if a.chars().count().abs_diff(b.chars().count()) > max {
        return None;
    }
    Some(edit_distance(a, b)).filter(|d| *d <= max)
}

/// Optimal string alignment distance (Damerau–Levenshtein with adjacent transpositions).
/// Inputs longer than 256 characters are compared only by length (bounded cost on hostile input).
#[must_use]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 256 || b.len() > 256 {
        return a.len().abs_diff(b.len()).max(usize::from(a != b) * 257);
    }
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}
