//! The recovery model of the replay (spec/governor.md §11.10): what hiding a result would cost if
//! the agent needed it again. **A model of recovery, not measured model behaviour**: a recorded
//! run shows what the agent wrote next; when that names a distinctive token that only a hidden
//! part of a result held, the replay charges the request a `result_read` would have added.
//!
//! Pure. [`HiddenResults`] records, request by request, which results a stream hides and how
//! (whole, or outside a spill stub's head and tail); [`Index`] holds the distinctive tokens of
//! every response and where each occurs; [`evaluate`] finds the needed results and prices one
//! recovery for each.

use foldhash::{HashMap, HashMapExt};
use std::ops::Range;

use serde::Serialize;

use super::RequestParts;
use super::classify::result_text;
use super::model::{Message, PartKind};
use super::tokens::{redacted_prefix, utf16_len};

/// Tokens shorter than this are not distinctive.
pub const MIN_TOKEN: usize = 6;
/// Runs longer than this (encoded blobs) yield only their inner identifiers.
pub const MAX_TOKEN: usize = 128;
/// Quoted strings longer than this are not one token.
pub const MAX_QUOTED: usize = 80;
/// The recovered span: at least this many characters of the hidden part (all of it when smaller).
pub const SPAN_CHARS: u64 = 1000;

/// What the model's name says in every report.
pub const MODEL: &str = "modelled recovery (spec/governor.md §11.10), not measured behaviour";

fn run_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-')
}

/// Code-shaped: an `_`, a digit, or an uppercase letter after the first character (and, for a
/// whole run, a `/` or `.`). Runs of letters and dashes, lowercase after their first letter, are
/// words and never distinctive.
fn shaped(s: &[u8], whole: bool) -> bool {
    s.iter().enumerate().any(|(k, &b)| {
        b == b'_'
            || b.is_ascii_digit()
            || (k > 0 && b.is_ascii_uppercase())
            || (whole && (b == b'/' || b == b'.'))
    })
}

/// Calls `f(byte offset, token)` for every distinctive token of `text` (spec/governor.md §11.10),
/// in text order; a token may be reported more than once.
///
/// - A *run* is a maximal sequence of `[A-Za-z0-9_./-]`, with leading `.`/`-`/`./`/`../` and
///   trailing `.`/`-`/`/` removed. The run itself is a token when it has 6 to 128 characters and holds a
///   `/`, `.`, `_`, a digit, or an uppercase letter after its first character.
/// - Inside a run holding `/`, `.` or `-`, every maximal `[A-Za-z0-9_]` part of at least 6
///   characters holding an `_`, a digit or an uppercase letter after its first character, and
///   the last `/` component when it is a token by the first rule.
/// - A quoted string (`"…"`, `'…'` or `` `…` `` on one line, a `'` not inside a word) whose
///   content has 6 to 80 characters and holds a space is a token (its content, a trailing `\`
///   dropped: JSON-escaped quotes).
/// - Redacted values (spec/governor.md §11.3) are skipped.
pub fn distinctive<'t>(text: &'t str, mut f: impl FnMut(usize, &'t str)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'['
            && let Some((len, _, _)) = redacted_prefix(&text[i..])
        {
            i += len;
            continue;
        }
        if matches!(c, b'"' | b'\'' | b'`') {
            quoted(text, i, &mut f);
            i += 1;
            continue;
        }
        if !run_byte(c) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && run_byte(b[i]) {
            i += 1;
        }
        run(text, start, i, &mut f);
    }
}

fn run<'t>(text: &'t str, mut s: usize, mut e: usize, f: &mut impl FnMut(usize, &'t str)) {
    let b = text.as_bytes();
    // Leading `.`, `-`, `./` and `../` go (`./src/a.rs` is `src/a.rs`).
    loop {
        while s < e && matches!(b[s], b'.' | b'-') {
            s += 1;
        }
        if s < e && b[s] == b'/' && s > 0 && b[s - 1] == b'.' {
            s += 1;
        } else {
            break;
        }
    }
    while e > s && matches!(b[e - 1], b'.' | b'-' | b'/') {
        e -= 1;
    }
    let r = &b[s..e];
    if r.len() < MIN_TOKEN {
        return;
    }
    if r.len() <= MAX_TOKEN && shaped(r, true) {
        f(s, &text[s..e]);
    }
    let compound = r.iter().any(|x| matches!(x, b'/' | b'.' | b'-'));
    if !compound {
        return;
    }
    let mut k = s;
    while k < e {
        if !(b[k].is_ascii_alphanumeric() || b[k] == b'_') {
            k += 1;
            continue;
        }
        let p = k;
        while k < e && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
            k += 1;
        }
        if k - p >= MIN_TOKEN && k - p < e - s && shaped(&b[p..k], false) {
            f(p, &text[p..k]);
        }
    }
    if let Some(slash) = text[s..e].rfind('/') {
        let c = s + slash + 1;
        let comp = &b[c..e];
        if comp.len() >= MIN_TOKEN && comp.len() <= MAX_TOKEN && shaped(comp, true) && c > s {
            // A component with only `_`/digit/case shape was reported by the inner rule.
            if comp.iter().any(|x| matches!(x, b'.' | b'-')) {
                f(c, &text[c..e]);
            }
        }
    }
}

/// A quoted string starting at byte `q`.
fn quoted<'t>(text: &'t str, q: usize, f: &mut impl FnMut(usize, &'t str)) {
    let b = text.as_bytes();
    let mark = b[q];
    if mark == b'\'' && q > 0 && b[q - 1].is_ascii_alphanumeric() {
        return;
    }
    let s = q + 1;
    let Some(len) = b[s..]
        .iter()
        .take(MAX_QUOTED + 2)
        .position(|x| *x == mark || *x == b'\n')
    else {
        return;
    };
    if b[s + len] != mark {
        return;
    }
    if mark == b'\'' && b.get(s + len + 1).is_some_and(u8::is_ascii_alphanumeric) {
        return;
    }
    let mut e = s + len;
    if e > s && b[e - 1] == b'\\' {
        e -= 1;
    }
    let Some(inner) = text.get(s..e) else { return };
    let n = utf16_len(inner);
    if (MIN_TOKEN..=MAX_QUOTED).contains(&n) && inner.contains(' ') {
        f(s, inner);
    }
}

/// The distinctive tokens of a text, deduplicated, in order of first occurrence.
#[must_use]
pub fn tokens_of(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    distinctive(text, |_, t| {
        if seen.insert(t) {
            out.push(t.to_owned());
        }
    });
    out
}

/// How a stream hides one result at one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The whole result text (a pointer, an expiry note, a mask, a policy-1 stub).
    Whole,
    /// All but a spill stub's head and tail (`oversized`).
    Spill,
}

#[derive(Clone, Debug)]
struct Interval {
    from: u64,
    to: u64,
    shape: Shape,
}

/// Which results a stream hides at each request.
#[derive(Clone, Debug, Default)]
pub struct HiddenResults {
    per: Vec<Vec<Interval>>,
}

impl HiddenResults {
    #[must_use]
    pub fn new(messages: usize) -> Self {
        Self {
            per: vec![Vec::new(); messages],
        }
    }

    /// Request `r` (1-based, requests in order) hides message `i` as `shape`.
    pub fn hide(&mut self, r: u64, i: usize, shape: Shape) {
        let Some(v) = self.per.get_mut(i) else { return };
        match v.last_mut() {
            Some(last) if last.to + 1 == r && last.shape == shape => last.to = r,
            _ => v.push(Interval {
                from: r,
                to: r,
                shape,
            }),
        }
    }

    fn at(&self, i: usize, r: u64) -> Option<Shape> {
        let v = self.per.get(i)?;
        let k = v.partition_point(|x| x.to < r);
        v.get(k).filter(|x| x.from <= r).map(|x| x.shape)
    }
}

/// The byte ranges of each tool message's text a shape hides.
#[derive(Clone, Debug, Default)]
pub struct Ranges {
    /// Per message: the text's byte length and the ranges a spill stub hides (none: not spilled).
    pub len: Vec<usize>,
    pub spill: Vec<Vec<Range<usize>>>,
}

impl Ranges {
    /// The ranges of every tool message of a session; `spill` gives a text's spill ranges (none
    /// when the policy never spills it).
    #[must_use]
    pub fn new(n: usize, index: &Index, spill: impl Fn(&str) -> Vec<Range<usize>>) -> Self {
        let mut r = Self {
            len: vec![0; n],
            spill: vec![Vec::new(); n],
        };
        for (i, t) in &index.texts {
            if *i < n {
                r.len[*i] = t.len();
                r.spill[*i] = spill(t);
            }
        }
        r
    }

    #[allow(clippy::single_range_in_vec_init)] // a list of ranges that holds one
    fn of(&self, i: usize, shape: Shape) -> Vec<Range<usize>> {
        match shape {
            Shape::Whole => vec![0..self.len.get(i).copied().unwrap_or(0)],
            Shape::Spill => self.spill.get(i).cloned().unwrap_or_default(),
        }
    }
}

/// Distinctive tokens of a session: those of every response, and where each occurs.
#[derive(Clone, Debug, Default)]
pub struct Index {
    /// Per request r (index r−1): the response's tokens (ids), in order; empty for the last.
    responses: Vec<Vec<u32>>,
    /// Per token id: (message, byte offset) of each occurrence, sorted.
    occurrences: Vec<Vec<(u32, u32)>>,
    /// Per token id: occurs in a request-level part (always shown).
    in_parts: Vec<bool>,
    lens: Vec<u32>,
    /// Each result's text, per tool message (for the reported offsets and spans).
    texts: HashMap<usize, String>,
}

pub(crate) fn message_text(m: &Message) -> String {
    match m {
        Message::Tool(r) => result_text(r),
        Message::User { parts, .. } => parts
            .iter()
            .filter(|p| p.kind == PartKind::Text)
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        Message::Assistant { parts, calls } => parts
            .iter()
            .filter(|p| matches!(p.kind, PartKind::Text | PartKind::Reasoning))
            .map(|p| p.text.as_str())
            .chain(calls.iter().map(|c| c.arguments.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

impl Index {
    /// `ends[r−1]` is the history length of request r; the message at `ends[r−1]` (when it is
    /// in `history`) is that request's response.
    #[must_use]
    pub fn new(history: &[Message], parts: &RequestParts, ends: &[usize]) -> Self {
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut responses = Vec::with_capacity(ends.len());
        for &e in ends {
            let mut v = Vec::new();
            if let Some(m @ Message::Assistant { .. }) = history.get(e) {
                for t in tokens_of(&message_text(m)) {
                    let n = ids.len() as u32;
                    let id = *ids.entry(t).or_insert(n);
                    v.push(id);
                }
            }
            responses.push(v);
        }
        let mut lens = vec![0u32; ids.len()];
        for (t, id) in &ids {
            lens[*id as usize] = t.len() as u32;
        }
        let mut occurrences = vec![Vec::new(); ids.len()];
        let mut in_parts = vec![false; ids.len()];
        let mut texts = HashMap::new();
        if !ids.is_empty() {
            for t in parts
                .system
                .iter()
                .chain(parts.instructions.iter().map(|(_, t)| t))
                .chain(parts.skills.iter())
                .chain(parts.tools.iter())
            {
                distinctive(t, |_, tok| {
                    if let Some(id) = ids.get(tok) {
                        in_parts[*id as usize] = true;
                    }
                });
            }
        }
        for (i, m) in history.iter().enumerate() {
            let text = message_text(m);
            if !ids.is_empty() {
                distinctive(&text, |off, tok| {
                    if let Some(id) = ids.get(tok) {
                        let o = (i as u32, off as u32);
                        let v: &mut Vec<(u32, u32)> = &mut occurrences[*id as usize];
                        if v.last() != Some(&o) {
                            v.push(o);
                        }
                    }
                });
            }
            if matches!(m, Message::Tool(_)) {
                texts.insert(i, text);
            }
        }
        for v in &mut occurrences {
            v.sort_unstable();
            v.dedup();
        }
        Self {
            responses,
            occurrences,
            in_parts,
            lens,
            texts,
        }
    }
}

/// The requests during which a result was hidden one way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HiddenSpan {
    pub from_request: u64,
    pub to_request: u64,
    /// `[start, end)` in characters (UTF-16 units, spec/governor.md §0) of the result text.
    pub ranges: Vec<[u64; 2]>,
}

/// The first need of a hidden result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Needed {
    /// The request whose response names the token.
    pub request: u64,
    /// Where the token starts in the result text (characters).
    pub offset: u64,
    /// The recovered span's characters.
    pub chars: u64,
}

/// One result a stream hid at some request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HiddenResult {
    pub call_id: String,
    pub message: usize,
    pub hidden: Vec<HiddenSpan>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needed: Option<Needed>,
}

/// One stream's recovery figures (spec/governor.md §11.10). `inputTokens` and `cost` include the
/// recovery; the stream's own figures (`replay.governed`, `replay.baselines`) do not.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamRecovery {
    pub name: String,
    pub hidden: u64,
    pub needed: u64,
    pub recovered_chars: u64,
    pub recovery_tokens: u64,
    pub recovery_cost: f64,
    pub input_tokens: u64,
    pub cost: f64,
    /// The recovery tokens of each request (request r at index r−1).
    pub per_request: Vec<u64>,
    pub results: Vec<HiddenResult>,
}

/// `replay.recovery`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recovery {
    pub model: String,
    pub governed: StreamRecovery,
    pub baselines: Vec<StreamRecovery>,
}

fn units_of(text: &str, r: &Range<usize>) -> u64 {
    text.get(r.clone()).map_or(0, |s| utf16_len(s) as u64)
}

/// A stream's columns and identity for [`evaluate`].
pub struct StreamIn<'a> {
    pub name: String,
    /// The stream's input tokens per request (its `perRequest` column).
    pub inputs: &'a [u64],
    /// The stream's cost without recovery.
    pub cost: f64,
    /// Prices of a cache read and a cache write (spec/governor.md §11.8).
    pub read: f64,
    pub write: f64,
    pub tracker: &'a HiddenResults,
    /// `Some(N)` for `mask:N`: a recovered span is masked once N later results exist.
    pub mask: Option<usize>,
}

/// The needed results of one stream and the price of recovering each (spec/governor.md §11.10).
#[must_use]
pub fn evaluate(
    history: &[Message],
    ends: &[usize],
    index: &Index,
    ranges: &Ranges,
    s: &StreamIn<'_>,
) -> StreamRecovery {
    let requests = ends.len();
    let tools_before = tools_before(history);
    let mut needed: HashMap<usize, (u64, usize, u64)> = HashMap::new();
    // Per message: the recovered span (bytes) and the history length of its recovery.
    let mut recovered: HashMap<usize, (Range<usize>, usize)> = HashMap::new();
    for r in 1..=requests as u64 {
        let l = ends[r as usize - 1];
        // A span recovered at an earlier request is in this one (spec/governor.md §11.10: it
        // stays as a `result_read` result would), so what it holds is shown, not hidden.
        let shown = |m: usize, off: usize, len: usize| {
            recovered.get(&m).is_some_and(|(span, at)| {
                *at < l
                    && span.start <= off
                    && off + len <= span.end
                    && s.mask
                        .is_none_or(|keep| tools_before[l] - tools_before[*at] < keep)
            })
        };
        let mut found: Vec<(usize, Range<usize>)> = Vec::new();
        for &tok in &index.responses[r as usize - 1] {
            let t = tok as usize;
            if index.in_parts[t] {
                continue;
            }
            let len = index.lens[t] as usize;
            let mut cand: Option<(usize, usize)> = None;
            let mut visible = false;
            for &(m, off) in &index.occurrences[t] {
                let (m, off) = (m as usize, off as usize);
                if m >= l {
                    break;
                }
                let inside = s.tracker.at(m, r).is_some_and(|shape| {
                    ranges
                        .of(m, shape)
                        .iter()
                        .any(|x| x.start <= off && off + len <= x.end)
                });
                if !inside || shown(m, off, len) {
                    visible = true;
                    break;
                }
                if cand.is_none_or(|c| c.0 != m) {
                    cand = Some((m, off));
                }
            }
            let Some((m, off)) = cand.filter(|_| !visible) else {
                continue;
            };
            if needed.contains_key(&m) {
                continue;
            }
            let shape = s.tracker.at(m, r).unwrap_or(Shape::Whole);
            let text = index.texts.get(&m).map_or("", String::as_str);
            let all = ranges.of(m, shape);
            let hidden: u64 = all.iter().map(|x| units_of(text, x)).sum();
            let c = hidden.min(SPAN_CHARS.max(units_of(text, &(off..off + len))));
            needed.insert(m, (r, off, c));
            if let Some(x) = all.iter().find(|x| x.start <= off && off + len <= x.end) {
                found.push((m, span(text, x, off, len, c)));
            }
        }
        for (m, sp) in found {
            recovered.insert(m, (sp, l));
        }
    }
    price(history, ends, index, ranges, s, &needed)
}

/// The recovered span (spec/governor.md §11.10): `c` characters of the hidden range `x`
/// around the token at bytes `off..off + len`, starting (c − token)/2 characters before the
/// token, moved to fit inside `x` (all of `x` when it is shorter).
fn span(text: &str, x: &Range<usize>, off: usize, len: usize, c: u64) -> Range<usize> {
    let Some(part) = text.get(x.clone()) else {
        return x.clone();
    };
    // Char boundaries of the range (bytes, from the text start) and the units before each.
    let mut at = Vec::with_capacity(part.len() + 1);
    let mut u = 0u64;
    for (i, ch) in part.char_indices() {
        at.push((x.start + i, u));
        u += ch.len_utf16() as u64;
    }
    at.push((x.end, u));
    let total = u;
    if c >= total {
        return x.clone();
    }
    let unit_of = |b: usize| at[at.partition_point(|(p, _)| *p < b).min(at.len() - 1)].1;
    let (ts, te) = (unit_of(off), unit_of(off + len));
    let lead = c.saturating_sub(te - ts) / 2;
    let start = ts.saturating_sub(lead).min(total - c);
    let byte_at = |w: u64| at[at.partition_point(|(_, v)| *v < w).min(at.len() - 1)].0;
    byte_at(start)..byte_at(start + c)
}

fn tools_before(history: &[Message]) -> Vec<usize> {
    let mut acc = Vec::with_capacity(history.len() + 1);
    let mut n = 0;
    acc.push(0);
    for m in history {
        n += usize::from(matches!(m, Message::Tool(_)));
        acc.push(n);
    }
    acc
}

fn price(
    history: &[Message],
    ends: &[usize],
    index: &Index,
    ranges: &Ranges,
    s: &StreamIn<'_>,
    needed: &HashMap<usize, (u64, usize, u64)>,
) -> StreamRecovery {
    let requests = ends.len();
    let mut per = vec![0u64; requests];
    let mut cost = 0.0;
    let mut chars = 0;
    let tools_before = tools_before(history);
    let mut by_request: Vec<Vec<u64>> = vec![Vec::new(); requests + 1];
    for &(r, _, c) in needed.values() {
        by_request[r as usize].push(c);
    }
    // Spans carried by later requests: (history length when recovered, tokens).
    let mut carried: Vec<(usize, u64)> = Vec::new();
    for r in 1..=requests {
        let l = ends[r - 1];
        let mut carry = 0;
        for &(at, t) in &carried {
            let later = tools_before[l] - tools_before[at];
            if s.mask.is_none_or(|keep| later < keep) {
                carry += t;
            }
        }
        let input = s.inputs.get(r - 1).copied().unwrap_or(0) + carry;
        let mut here = carry;
        cost += s.read * carry as f64;
        for &c in &by_request[r] {
            let t = c.div_ceil(4);
            here += input + t;
            cost += s.read * input as f64 + s.write * t as f64;
            chars += c;
            carried.push((l, t));
        }
        per[r - 1] = here;
    }
    let mut results: Vec<HiddenResult> = Vec::new();
    for (i, v) in s.tracker.per.iter().enumerate() {
        if v.is_empty() {
            continue;
        }
        let Some(Message::Tool(tr)) = history.get(i) else {
            continue;
        };
        let text = index.texts.get(&i).map_or("", String::as_str);
        let char_at = |b: usize| text.get(..b).map_or(0, |p| utf16_len(p) as u64);
        results.push(HiddenResult {
            call_id: tr.call_id.clone(),
            message: i,
            hidden: v
                .iter()
                .map(|x| HiddenSpan {
                    from_request: x.from,
                    to_request: x.to,
                    ranges: ranges
                        .of(i, x.shape)
                        .iter()
                        .map(|g| [char_at(g.start), char_at(g.end)])
                        .collect(),
                })
                .collect(),
            needed: needed.get(&i).map(|&(r, off, c)| Needed {
                request: r,
                offset: char_at(off),
                chars: c,
            }),
        });
    }
    let recovery_tokens: u64 = per.iter().sum();
    let input: u64 = s.inputs.iter().sum();
    StreamRecovery {
        name: s.name.clone(),
        hidden: results.len() as u64,
        needed: needed.len() as u64,
        recovered_chars: chars,
        recovery_tokens,
        recovery_cost: cost,
        input_tokens: input + recovery_tokens,
        cost: s.cost + cost,
        per_request: per,
        results,
    }
}

#[cfg(test)]
mod tests;
