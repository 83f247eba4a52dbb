//! Token estimation (spec/governor.md §10) and the text measures it rests on: UTF-16 length,
//! redacted-value tokens (spec/governor.md §11.3) counted as their `len`.

/// Length in UTF-16 code units (spec/governor.md §0).
#[must_use]
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// A redacted value `[REDACTED_<A-Z_> len=N sha=<8 hex>]` at the start of `s`: `(byte length, N, sha)`.
#[must_use]
pub fn redacted_prefix(s: &str) -> Option<(usize, u64, &str)> {
    let rest = s.strip_prefix("[REDACTED_")?;
    let kind_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_uppercase() || *b == b'_')
        .count();
    if kind_len == 0 {
        return None;
    }
    let rest = rest.get(kind_len..)?.strip_prefix(" len=")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 18 {
        return None;
    }
    let n: u64 = rest.get(..digits)?.parse().ok()?;
    let rest = rest.get(digits..)?.strip_prefix(" sha=")?;
    let sha = rest.get(..8)?;
    if !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    rest.get(8..)?.strip_prefix(']')?;
    let total = s.len() - rest.len() + 9;
    Some((total, n, sha))
}

/// Whether `s` is entirely one redacted token; gives `(len, sha)`.
#[must_use]
pub fn redacted_token(s: &str) -> Option<(u64, &str)> {
    redacted_prefix(s)
        .filter(|(l, _, _)| *l == s.len())
        .map(|(_, n, sha)| (n, sha))
}

/// Measured length: UTF-16 units, with every redacted value counted as its `len`.
#[must_use]
pub fn units(s: &str) -> u64 {
    if !s.contains("[REDACTED_") {
        return utf16_len(s) as u64;
    }
    let mut total = 0u64;
    let mut rest = s;
    while let Some(at) = rest.find("[REDACTED_") {
        total += utf16_len(&rest[..at]) as u64;
        let tail = &rest[at..];
        if let Some((len, n, _)) = redacted_prefix(tail) {
            total += n;
            rest = &tail[len..];
        } else {
            total += 1;
            rest = &tail[1..];
        }
    }
    total + utf16_len(rest) as u64
}

/// tokens(s) = ceil(units / 4) (spec/governor.md §10).
#[must_use]
pub fn tokens(s: &str) -> u64 {
    units(s).div_ceil(4)
}

/// Tokens of text given in pieces (a segment made of several parts).
#[must_use]
pub fn tokens_of<'a>(pieces: impl IntoIterator<Item = &'a str>) -> u64 {
    pieces.into_iter().map(units).sum::<u64>().div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_the_checklist_examples() {
        assert_eq!(tokens("0123456789"), 3);
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("😀"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(tokens("[REDACTED_TEXT len=13131 sha=036b7e47]"), 3283);
    }

    #[test]
    fn redacted_values_inside_text_count_their_len() {
        assert_eq!(units("ab[REDACTED_X len=10 sha=0123abcd]cd"), 14);
        assert_eq!(units("[REDACTED_X len=10 sha=0123abc]"), 31);
        assert_eq!(
            redacted_token("[REDACTED_ARGUMENTS len=456 sha=df6be51a]"),
            Some((456, "df6be51a"))
        );
        assert_eq!(
            redacted_token("[REDACTED_ARGUMENTS len=456 sha=df6be51a] "),
            None
        );
    }
}
