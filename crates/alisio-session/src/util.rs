//! Small shared pieces of the session module: UUID v7 ids, RFC 3339 timestamps, the token
//! estimate, char-safe cutting and compact JSON.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A UUID version 7 string (lowercase, hyphenated). The random bits come from SHA-256 of the
/// clock, the process id and a process-wide counter: unique without a random-number crate.
#[must_use]
pub fn uuid7() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let ms = u64::try_from(now.as_millis()).unwrap_or(u64::MAX);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut h = Sha256::new();
    h.update(now.as_nanos().to_le_bytes());
    h.update(std::process::id().to_le_bytes());
    h.update(n.to_le_bytes());
    h.update(format!("{:?}", std::thread::current().id()).as_bytes());
    let r = h.finalize();
    let mut b = [0u8; 16];
    b[..6].copy_from_slice(&ms.to_be_bytes()[2..8]);
    b[6..16].copy_from_slice(&r[..10]);
    // rand_a carries the low bits of the counter so ids made in one millisecond still sort.
    let c = (n & 0x0fff) as u16;
    b[6] = 0x70 | ((c >> 8) as u8 & 0x0f);
    b[7] = (c & 0xff) as u8;
    b[8] = 0x80 | (b[8] & 0x3f);
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Now as RFC 3339 UTC with millisecond precision (`2026-11-29T11:53:00.123Z`).
#[must_use]
pub fn now_rfc3339() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(now.as_millis())
}

/// Milliseconds since the epoch as RFC 3339 UTC.
#[must_use]
pub fn rfc3339(ms: u128) -> String {
    let secs = (ms / 1000) as i64;
    let milli = (ms % 1000) as u32;
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

/// The proleptic Gregorian date `(year, month, day)` of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`); the one calendar of the crate, with [`days_from_civil`].
#[must_use]
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (`month` 1–12): the inverse of
/// [`civil_from_days`].
#[must_use]
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Milliseconds since the epoch.
#[must_use]
pub fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis()
}

/// The shared text measures (`text`), re-exported for the session's callers.
pub use alisio_base::text::{chars, sha256_hex};
/// The one token estimate (spec/governor.md §10), kept under the session's name for its callers.
pub use alisio_governor::tokens::tokens as estimate;

/// The first `n` chars of `s`.
#[must_use]
pub fn take_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Cuts to `n` chars and appends `…` when cut.
#[must_use]
pub fn ellipsize(s: &str, n: usize) -> String {
    if chars(s) > n {
        format!("{}…", take_chars(s, n.saturating_sub(1)))
    } else {
        s.to_string()
    }
}

/// Compact JSON (keys in insertion order: serde_json's `preserve_order`).
#[must_use]
pub fn compact(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Largest byte index ≤ `i` on a char boundary.
#[must_use]
pub fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Aborts the process at a named fault point when `ALISIO_FAULT` names it (spec/sessions.md §1.5).
/// Only debug builds with the `fault-injection` feature honour it.
pub fn fault(point: &str) {
    #[cfg(all(debug_assertions, feature = "fault-injection"))]
    if std::env::var("ALISIO_FAULT").is_ok_and(|v| v == point) {
        std::process::abort();
    }
    #[cfg(not(all(debug_assertions, feature = "fault-injection")))]
    let _ = point;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_a_known_instant() {
        assert_eq!(rfc3339(1_795_953_180_123), "2026-11-29T11:53:00.123Z");
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn uuid7_has_version_and_variant_and_sorts_by_time() {
        let a = uuid7();
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "7");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(a, uuid7());
    }

    #[test]
    fn estimate_counts_utf16_units() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("abcde"), 2);
        assert_eq!(estimate("😀😀"), 1);
    }

    #[test]
    fn the_calendar_round_trips() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(1994, 11, 6), 9075);
        assert_eq!(civil_from_days(9075), (1994, 11, 6));
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
        for days in [-800_000, -1, 59, 60, 10_957, 20_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
