//! Policy 2 (spec/governor.md §3.3): `oversized`, `aged_output` and `expired`, on top of the three
//! policy-1 rules (a policy-1 stub wins when both apply). Every stub says how to get the text
//! back (`result_read`, or running the command again), so errors are eligible too.
//!
//! - `oversized` is decided from the result alone, at every index, from the result's first
//!   request on: append-only between epochs (G8) holds.
//! - `aged_output` and `expired` are decided on the eligible prefix P, like the policy-1 rules,
//!   so they change what is sent only at an epoch boundary.

use serde_json::Value;

use super::fact::{Fact, Step};
use super::model::{Call, Class, Message, ToolResult};
use super::shell;
use super::stubs::{Reason, quote};
use super::tokens::{tokens, utf16_len};

/// Tools whose results policy 2 never replaces: the read tool itself (its results are what a
/// stub points to) and skill content (protected from pruning).
pub const EXEMPT: &[&str] = &["result_read", "skill_load", "skill_resource"];

pub use super::fact::{Aging, GateRule, GateStart, Info, Policy2};

const SHORT_KEYS: &[&str] = &[
    "command",
    "cmd",
    "path",
    "file_path",
    "filePath",
    "pattern",
    "id",
    "name",
    "url",
    "query",
];
const SHORT_MAX: usize = 12;

/// The short form of a call's arguments: the first of a few telling string fields (with
/// `run_process` arguments appended), else the raw text; whitespace runs become one space, cut
/// to 12 characters with `...` (the call itself is in the request, just before).
fn short(call: &Call, args: Option<&serde_json::Map<String, Value>>) -> String {
    let mut s = args
        .and_then(|a| {
            SHORT_KEYS
                .iter()
                .find_map(|k| a.get(*k).and_then(Value::as_str))
                .map(|first| {
                    let mut t = first.to_owned();
                    if let Some(Value::Array(rest)) = a.get("args") {
                        for w in rest.iter().filter_map(Value::as_str) {
                            t.push(' ');
                            t.push_str(w);
                        }
                    }
                    t
                })
        })
        .unwrap_or_else(|| call.arguments.clone());
    s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    // A leading `cd DIR && ` says nothing the call does not (mini-swe-agent prefixes it always).
    if let Some(rest) = s.strip_prefix("cd ")
        && let Some(k) = rest.find(" && ")
        && !rest[..k].contains(' ')
    {
        s = rest[k + 4..].to_owned();
    }
    if s.chars().count() > SHORT_MAX {
        s = s.chars().take(SHORT_MAX).collect::<String>() + "...";
    }
    s
}

/// The command text of Alisio's own process tools.
fn native_command(call: &Call, args: Option<&serde_json::Map<String, Value>>) -> Option<String> {
    let a = args?;
    let cmd = a.get("command").and_then(Value::as_str)?;
    match call.name.as_str() {
        "shell" | "glance" | "bg_run" => Some(cmd.to_owned()),
        "run_process" => {
            let mut t = cmd.to_owned();
            for w in a
                .get("args")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                t.push(' ');
                t.push_str(&shell_quote(w));
            }
            Some(t)
        }
        _ => None,
    }
}

fn shell_quote(w: &str) -> String {
    if !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// The exit status a native process result reports.
fn native_exit(call: &Call, text: &str) -> Option<i64> {
    if !matches!(call.name.as_str(), "run_process" | "shell" | "bg_output") {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    v.get("exitCode")
        .or_else(|| v.get("exit_code"))
        .and_then(Value::as_i64)
}

/// Tools whose results are never `oversized`: a sub-session's final answer is the only channel
/// back to its parent (flower), so it reaches the parent whole; it may be aged out later.
pub const NEVER_SPILLED: &[&str] = &["task"];

/// The one-line stub of a pruned refusal (spec/governor.md §3.4).
#[must_use]
pub fn denied_stub(label: &str, keep: u32) -> String {
    if keep == 0 {
        format!("[refused: {label}]")
    } else {
        format!("[refused: {label}; a later refusal of the same kind is kept]")
    }
}

/// The policy-2 facts of a result; `denial` is its structural refusal mark, `keep` the
/// `keepDenials` setting (the stub's wording).
#[must_use]
pub fn info(call: Option<&Call>, text: &str, denial: Option<&str>, keep: u32) -> Option<Info> {
    let call = call?;
    let args = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(Value::Object(m)) => Some(m),
        _ => None,
    };
    let (exit, ephemeral) = match &call.foreign {
        Some(f) => (f.exit, f.ephemeral.clone()),
        None => (
            native_exit(call, text),
            if shell::EPHEMERAL_TOOLS.contains(&call.name.as_str()) {
                Some(format!("tool\u{0}{}\u{0}{}", call.name, call.arguments))
            } else {
                native_command(call, args.as_ref())
                    .filter(|_| call.name != "bg_run")
                    .and_then(|c| shell::ephemeral(&c))
            },
        ),
    };
    let label = format!("{} {}", call.name, quote(&short(call, args.as_ref())));
    Some(Info {
        denial: denial.map(|d| (call.name.clone(), d.to_owned(), denied_stub(&label, keep))),
        whole: NEVER_SPILLED.contains(&call.name.as_str()),
        label,
        lines: fields::lines(text),
        size: usize::try_from(super::tokens::units(text)).unwrap_or(usize::MAX),
        exit,
        ephemeral,
        exempt: EXEMPT.contains(&call.name.as_str()),
    })
}

/// The hash of a distinctive token (the working set, spec/governor.md §3.3).
fn token_hash(t: &str) -> u64 {
    // A fixed seed: the same token hashes the same in every process (the uses are a pure function).
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x5eed).hash_one(t)
}

/// The uses of each tool message in `history[..e]` (the working set, spec/governor.md §3.3): per
/// message, the assistant messages (ascending) that write, for the first time in the history, a
/// distinctive token whose latest holder before them is that tool message. User messages and
/// earlier assistant messages count as having written their tokens.
#[must_use]
pub fn uses(history: &[Message], facts: &[Option<Fact>], e: usize) -> Vec<Vec<usize>> {
    use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
    let mut out = vec![Vec::new(); e];
    let mut latest: HashMap<u64, usize> = HashMap::new();
    let mut written: HashSet<u64> = HashSet::new();
    for (i, m) in history.iter().enumerate().take(e) {
        match m {
            Message::Tool(r) => {
                if facts
                    .get(i)
                    .and_then(Option::as_ref)
                    .is_some_and(|f| f.info.is_some())
                {
                    super::recovery::distinctive(&super::classify::result_text(r), |_, t| {
                        latest.insert(token_hash(t), i);
                    });
                }
            }
            Message::User { .. } => {
                super::recovery::distinctive(&super::recovery::message_text(m), |_, t| {
                    written.insert(token_hash(t));
                });
            }
            Message::Assistant { .. } => {
                super::recovery::distinctive(&super::recovery::message_text(m), |_, t| {
                    let h = token_hash(t);
                    if written.insert(h)
                        && let Some(&j) = latest.get(&h)
                        && out[j].last() != Some(&i)
                    {
                        out[j].push(i);
                    }
                });
            }
        }
    }
    out
}

/// The result `keepRecent` later results after which `aged_output` applies to the result at
/// message `i` (spec/governor.md §3.3), or `None` when P has not that many yet. Under
/// `Aging::LastUse` the count starts at the result's last use before the boundary at which it
/// would age (so an aged result stays aged: the uses after that boundary are never looked at).
fn aged_at(
    tools: &[usize],
    i: usize,
    keep: usize,
    uses: &[usize],
    e: usize,
    epoch: u32,
) -> Option<usize> {
    let mut u = i;
    loop {
        let from = tools.partition_point(|t| *t <= u);
        let k = if keep == 0 {
            u.max(i)
        } else {
            *tools.get(from + keep - 1)?
        };
        if keep == 0 {
            return Some(k);
        }
        let at = boundary_after(k, epoch).min(e);
        match uses.iter().rev().find(|a| **a > u && **a < at) {
            Some(&a) => u = a,
            None => return Some(k),
        }
    }
}

fn status(info: &Info) -> String {
    info.exit.map(|e| format!(", exit {e}")).unwrap_or_default()
}

/// The largest char boundary of `s` at most `units` UTF-16 units in, pulled back to just after
/// a newline when one is in the second half.
fn head_end(s: &str, units: usize) -> usize {
    let mut u = 0;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        u += c.len_utf16();
        if u > units {
            break;
        }
        end = i + c.len_utf8();
    }
    if end == s.len() {
        return end;
    }
    match s[..end].rfind('\n') {
        Some(nl) if nl + 1 > end / 2 => nl + 1,
        _ => end,
    }
}

/// The smallest char boundary of `s` with at most `units` UTF-16 units after it, pushed forward
/// to just after a newline when one is in the first half of the tail.
fn tail_start(s: &str, units: usize) -> usize {
    let mut u = 0;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        u += c.len_utf16();
        if u > units {
            break;
        }
        start = i;
    }
    if start == 0 {
        return 0;
    }
    let tail = &s[start..];
    match tail.find('\n') {
        Some(nl) if nl + 1 < tail.len() / 2 => start + nl + 1,
        _ => start,
    }
}

/// What an `oversized` stub of `text` cuts (spec/governor.md §4.1): the long string fields of a
/// JSON object result, else the whole text.
#[must_use]
pub fn spill_plan(p: &Policy2, text: &str) -> Vec<fields::Cut> {
    fields::plan(
        text,
        p.threshold_chars as usize,
        p.head_chars as usize,
        p.tail_chars as usize,
        head_end,
        tail_start,
    )
}

/// The byte ranges of `text` an `oversized` stub leaves out (between the head and the tail of
/// each cut text): the replay's recovery model (spec/governor.md §11.10).
#[must_use]
pub fn spill_hidden(p: &Policy2, text: &str) -> Vec<std::ops::Range<usize>> {
    if utf16_len(text) <= p.threshold_chars as usize {
        return Vec::new();
    }
    spill_plan(p, text).iter().map(|c| c.hidden(text)).collect()
}

/// The `oversized` stub (spec/governor.md §4.1): a pointer line, then the result with each cut
/// text as its head, an omission line and its tail (a JSON result keeps its structure). The
/// counts are those of the cut text itself: its characters and real lines.
#[must_use]
pub fn spill_stub(p: &Policy2, info: &Info, call_id: &str, text: &str) -> Option<String> {
    let cuts = spill_plan(p, text);
    let first = cuts.first()?;
    let counts: Vec<String> = cuts
        .iter()
        .map(|c| {
            let what = c
                .name
                .as_deref()
                .map(|n| format!("{n} "))
                .unwrap_or_default();
            format!("{what}{} chars, {} lines", c.chars(), c.lines())
        })
        .collect();
    let field = first
        .name
        .as_deref()
        .map(|n| format!(" field {}", quote(n)))
        .unwrap_or_default();
    Some(format!(
        "[oversized: {} {}{}; head and tail shown; result_read {}{field} offset {} reads the rest]\n{}",
        info.label,
        counts.join("; "),
        status(info),
        quote(call_id),
        utf16_len(&first.raw[..first.head]),
        fields::cut_text(text, &cuts),
    ))
}

/// The `aged_output` stub: a pointer line only (it is resent at every request, so it is short).
#[must_use]
pub fn aged_stub(info: &Info, call_id: &str, chars: usize) -> String {
    format!(
        "[trimmed {} {chars} chars, result_read {}]",
        info.label,
        quote(call_id)
    )
}

/// The `expired` note: no pointer, running the command again is the recovery.
#[must_use]
pub fn expired_stub(info: &Info) -> String {
    format!("[expired {}: stale, run it again]", info.label)
}

/// The `oversized` stub of a result when policy 2 replaces it from its first request on.
#[must_use]
pub fn spill_of(p: &Policy2, f: &Fact, r: &ToolResult, text: &str) -> Option<String> {
    let info = f.info.as_deref()?;
    if info.exempt || info.whole || f.pinned || matches!(f.class, Class::Skill) {
        return None;
    }
    if f.len <= p.threshold_chars as usize {
        return None;
    }
    let s = spill_stub(p, info, &r.call_id, text)?;
    (utf16_len(&s) < f.len).then_some(s)
}

/// The budget rule (spec/governor.md §3.5): the `oversized` stub result `r` of `call` is sent as
/// from its first request on, when it has one. Such a result was never in the thread whole, so
/// compaction triggers, the hard context limit and the context meter count this stub; a result
/// sent whole once and hidden later counts whole.
#[must_use]
pub fn entry_stub(p: &Policy2, call: &Call, r: &ToolResult) -> Option<String> {
    let text = super::classify::result_text(r);
    let len = utf16_len(&text);
    if len <= p.threshold_chars as usize || super::classify::has_attached_instructions(r) {
        return None;
    }
    let info = info(Some(call), &text, r.denial.as_deref(), p.keep_denials)?;
    if info.exempt || info.whole || info.denial.is_some() {
        return None;
    }
    let s = spill_stub(p, &info, &r.call_id, &text)?;
    (utf16_len(&s) < len).then_some(s)
}

/// The stub that replaces result `i` for `reason`.
#[must_use]
pub fn stub_of(history: &[Message], i: usize, f: &Fact, reason: Reason) -> Option<String> {
    match reason {
        Reason::SupersededRead | Reason::StaleBgOutput | Reason::DuplicateSearch => f.stub.clone(),
        Reason::Oversized => f.spill.clone(),
        Reason::AgedOutput => match history.get(i) {
            Some(Message::Tool(r)) => {
                let info = f.info.as_deref()?;
                Some(aged_stub(info, &r.call_id, info.size))
            }
            _ => None,
        },
        Reason::Expired => Some(expired_stub(f.info.as_deref()?)),
        Reason::Denied => f.info.as_deref()?.denial.as_ref().map(|d| d.2.clone()),
    }
}

fn elide(history: &[Message], i: usize, f: &Fact, reason: Reason, by: String) -> Option<Step> {
    let s = stub_of(history, i, f, reason)?;
    let size = f.info.as_deref().map_or(f.len, |x| x.size.max(f.len));
    (utf16_len(&s) < size).then(|| Step::Elide {
        reason,
        by,
        tokens_saved: f.tokens.saturating_sub(tokens(&s)),
    })
}

/// The first eligible-prefix end (epoch boundary) that contains message `x`: the request at
/// which a rule whose last condition is met at `x` first applies.
const fn boundary_after(x: usize, epoch: u32) -> usize {
    if epoch == 0 {
        x + 1
    } else {
        let n = epoch as usize;
        (x / n + 1) * n
    }
}

/// Applies the policy-2 rules over policy-1 `steps` (one per message of `history`): `expired`
/// and `aged_output` on P = `[0, e)`, `oversized` everywhere.
///
/// **Once replaced, a stub stays (decision, the cache math).** When a policy-1 rule and
/// `expired`/`aged_output` both apply to a result on P, the one that applied at the earlier
/// epoch boundary keeps it (the policy-1 stub on a tie): switching an old result from one stub
/// to another would rewrite the history from that result on and break the prompt cache for
/// all of it, to save a few tokens. Both boundaries are computed from P alone, so this stays a
/// pure function of the history (G7) and changes only at epoch boundaries (G8). `oversized` is
/// the exception: any other rule replaces it, since it applies from the first request on.
pub fn decide(
    history: &[Message],
    facts: &[Option<Fact>],
    e: usize,
    s: &super::GovSettings,
    steps: &mut [Step],
) {
    let p = &s.policy2;
    let keep = p.keep_recent as usize;
    let e = e.min(history.len()).min(facts.len()).min(steps.len());
    let tools: Vec<usize> = (0..e)
        .filter(|i| matches!(history[*i], Message::Tool(_)))
        .collect();
    let assistants: Vec<usize> = (0..e).filter(|i| history[*i].is_assistant()).collect();
    let id = |j: usize| match &history[j] {
        Message::Tool(r) => r.call_id.clone(),
        _ => String::new(),
    };
    let index_of: std::collections::HashMap<&str, usize> = tools
        .iter()
        .filter_map(|&j| match &history[j] {
            Message::Tool(r) => Some((r.call_id.as_str(), j)),
            _ => None,
        })
        .collect();
    // The boundary at which the policy-1 elision of `i` (justified by `by`) first applied.
    let p1_boundary = |i: usize, by: &str| {
        let j = index_of.get(by).copied().unwrap_or(i);
        let after = assistants.partition_point(|a| *a <= i);
        let aged = assistants
            .get(after + (s.min_age_turns as usize).saturating_sub(1))
            .copied()
            .unwrap_or(i);
        boundary_after(j.max(aged), s.epoch_messages)
    };
    let mut used: Option<Vec<Vec<usize>>> = None;
    for (pos, &i) in tools.iter().enumerate() {
        let Some(f) = facts[i].as_ref() else { continue };
        if f.call.is_none() || f.pinned {
            continue;
        }
        let Some(info) = f.info.as_deref() else {
            continue;
        };
        if info.exempt || matches!(f.class, Class::Skill) {
            continue;
        }
        let later = tools.len() - pos - 1;
        let mut step = None;
        if let Some(d) = &info.denial {
            if let Some(by) = pruned(history, &tools[pos + 1..], facts, d, p.keep_denials, i, e)
                && let Some(st) = elide(history, i, f, Reason::Denied, id(by))
            {
                steps[i] = st;
            }
            continue;
        }
        if later >= keep {
            let k = tools[pos + keep];
            let first = |k: usize| match &steps[i] {
                Step::Elide { by, .. } => p1_boundary(i, by) <= boundary_after(k, s.epoch_messages),
                _ => false,
            };
            if info.ephemeral.is_some() && !first(k) {
                step = elide(history, i, f, Reason::Expired, id(k));
            }
            if step.is_none() && info.size >= p.min_chars as usize {
                let aged = match p.aging {
                    Aging::Entry => Some(k),
                    Aging::LastUse => {
                        let u = used.get_or_insert_with(|| uses(history, facts, e));
                        aged_at(&tools, i, keep, &u[i], e, s.epoch_messages)
                    }
                };
                if let Some(k) = aged.filter(|k| !first(*k)) {
                    step = elide(history, i, f, Reason::AgedOutput, id(k));
                }
            }
        }
        if step.is_none() && f.spill.is_some() && !matches!(steps[i], Step::Elide { .. }) {
            step = elide(history, i, f, Reason::Oversized, id(i));
        }
        if let Some(st) = step {
            steps[i] = st;
        }
    }
    for i in e..history.len().min(facts.len()).min(steps.len()) {
        if let Some(st) = oversized(history, i, facts[i].as_ref()) {
            steps[i] = st;
        }
    }
}

/// Denial pruning (spec/governor.md §3.4): refusal `i` of kind `d` is pruned once an assistant
/// message follows it in P and at least `keep` later refusals of the same tool and kind are in P.
/// Gives `by`: the `keep`-th later refusal of the kind (`i` itself when `keep` is 0).
fn pruned(
    history: &[Message],
    later: &[usize],
    facts: &[Option<Fact>],
    d: &(String, String, String),
    keep: u32,
    i: usize,
    e: usize,
) -> Option<usize> {
    if !history[i + 1..e].iter().any(Message::is_assistant) {
        return None;
    }
    let mut same = later.iter().copied().filter(|j| {
        facts[*j]
            .as_ref()
            .and_then(|f| f.info.as_deref())
            .and_then(|x| x.denial.as_ref())
            .is_some_and(|x| x.0 == d.0 && x.1 == d.1)
    });
    if keep == 0 {
        return Some(i);
    }
    same.nth(keep as usize - 1)
}

/// The `oversized` step of a result beyond P (decided from the result alone).
#[must_use]
pub fn oversized(history: &[Message], i: usize, f: Option<&Fact>) -> Option<Step> {
    let f = f.filter(|f| f.spill.is_some())?;
    let Some(Message::Tool(r)) = history.get(i) else {
        return None;
    };
    elide(history, i, f, Reason::Oversized, r.call_id.clone())
}

pub mod fields;

#[cfg(test)]
mod tests;
