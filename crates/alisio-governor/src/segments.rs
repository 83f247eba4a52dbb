//! The segments of a request in request order (spec/governor.md §2.6) with their criticality
//! (spec/governor.md §6.3): request-level parts, then one or more per message, then the invariants block.

use super::RequestParts;
use super::classify::{canonical_of, origin_of, result_text};
use super::model::{Call, Class, Message, Part, PartKind, ToolResult, UserKind};
use super::report::{Criticality, Elided, Segment};
use super::rules::{Fact, Step};
use super::tokens::{tokens, tokens_of};

fn text_of(parts: &[Part], reasoning: bool) -> u64 {
    tokens_of(
        parts
            .iter()
            .filter(|p| p.kind == PartKind::Text || (reasoning && p.kind == PartKind::Reasoning))
            .map(|p| p.text.as_str()),
    )
}

fn call_at(history: &[Message], at: Option<(usize, usize)>) -> Option<&Call> {
    let (mi, ci) = at?;
    match history.get(mi)? {
        Message::Assistant { calls, .. } => calls.get(ci),
        _ => None,
    }
}

fn seg(
    kind: &'static str,
    origin: String,
    message: Option<usize>,
    tokens: u64,
    (criticality, reason): (Criticality, &'static str),
) -> Segment {
    Segment {
        index: 0,
        kind,
        origin,
        message,
        tool: None,
        call_id: None,
        as_tool: None,
        tokens,
        criticality,
        reason,
        elided: None,
        used: None,
    }
}

/// `system`, `instructions` (one per file), `skills`, `tools`.
fn request_level(parts: &RequestParts, out: &mut Vec<Segment>) {
    let pinned = |r| (Criticality::Pinned, r);
    if let Some(s) = &parts.system {
        out.push(seg(
            "system",
            "system".into(),
            None,
            tokens(s),
            pinned("system_prompt"),
        ));
    }
    for (path, text) in &parts.instructions {
        out.push(seg(
            "instructions",
            path.clone(),
            None,
            tokens(text),
            pinned("instruction_file"),
        ));
    }
    if let Some(s) = &parts.skills {
        out.push(seg(
            "skills",
            "skills".into(),
            None,
            tokens(s),
            pinned("skill_catalog"),
        ));
    }
    if let Some(s) = &parts.tools {
        out.push(seg(
            "tools",
            "tools".into(),
            None,
            tokens(s),
            pinned("tool_catalog"),
        ));
    }
}

/// The criticality of a user-role message's segment: (kind, default origin, criticality, reason).
fn user_class(
    kind: UserKind,
    skill: bool,
    last: bool,
) -> (&'static str, &'static str, (Criticality, &'static str)) {
    let high_or = |c: Criticality, r: &'static str| {
        if last {
            (Criticality::High, "last_turn")
        } else {
            (c, r)
        }
    };
    match kind {
        UserKind::Checkpoint => (
            "checkpoint",
            "user",
            (Criticality::Pinned, "compaction_checkpoint"),
        ),
        UserKind::System => ("system", "system", (Criticality::Pinned, "system_prompt")),
        UserKind::Instructions => (
            "instructions",
            "user",
            (Criticality::Pinned, "instruction_file"),
        ),
        _ if skill => ("user", "user", (Criticality::Pinned, "skill_body")),
        UserKind::Plain => ("user", "user", high_or(Criticality::High, "user_message")),
        UserKind::Injected => ("injected", "user", high_or(Criticality::Normal, "default")),
    }
}

/// The criticality of a tool result (spec/governor.md §6.3) from its step on P and on all of H.
fn result_class(
    res: &ToolResult,
    fact: Option<&Fact>,
    (step, full): (&Step, &Step),
    last: bool,
) -> (Criticality, &'static str, Option<Elided>) {
    let is_skill = fact.is_some_and(|f| matches!(f.class, Class::Skill));
    match (step, full) {
        (
            Step::Elide {
                reason,
                by,
                tokens_saved,
            },
            _,
        ) => (
            Criticality::Low,
            "elided",
            Some(Elided {
                reason: reason.as_str(),
                by: by.clone(),
                tokens_saved: *tokens_saved,
            }),
        ),
        _ if is_skill => (Criticality::Pinned, "skill_body", None),
        _ if fact.is_some_and(|f| f.pinned) => (Criticality::Pinned, "attached_instructions", None),
        _ if last => (Criticality::High, "last_turn", None),
        _ if res.is_error => (Criticality::High, "error_result", None),
        (_, Step::Elide { .. }) => (Criticality::Low, "redundant_epoch", None),
        (_, Step::MinAge) => (Criticality::Low, "redundant_min_age", None),
        (_, Step::StubNotShorter) => (Criticality::Normal, "stub_not_shorter", None),
        _ => (Criticality::Normal, "default", None),
    }
}

/// Every segment of a request, indexed. `steps` are the decisions on P and on all of H.
pub(super) fn all(
    parts: &RequestParts,
    history: &[Message],
    facts: &[Option<Fact>],
    (steps, full): (&[Step], &[Step]),
    used: Option<&[Option<&'static str>]>,
    block: Option<&str>,
) -> Vec<Segment> {
    let mut segs: Vec<Segment> = Vec::new();
    request_level(parts, &mut segs);
    let last_turn_start = history.iter().rposition(Message::is_assistant).unwrap_or(0);
    for (i, m) in history.iter().enumerate() {
        let last = i >= last_turn_start;
        match m {
            Message::User {
                kind,
                parts,
                skill,
                origin,
            } => {
                let (k, o, c) = user_class(*kind, skill.is_some(), last);
                let origin = origin.clone().unwrap_or_else(|| o.to_owned());
                // Editor attachments are segments of their own (attachment.rs).
                let t = match super::attachment::split(parts).filter(|_| k == "user") {
                    None => text_of(parts, false),
                    Some((attached, rest)) => {
                        for (path, text) in attached {
                            segs.push(seg("attachment", path, Some(i), tokens(text), c));
                        }
                        tokens_of(rest)
                    }
                };
                segs.push(seg(k, origin, Some(i), t, c));
            }
            Message::Assistant { parts, calls } => {
                let c = if last {
                    (Criticality::High, "last_turn")
                } else {
                    (Criticality::Normal, "default")
                };
                let t = text_of(parts, true);
                segs.push(seg("assistant", "assistant".into(), Some(i), t, c));
                for call in calls {
                    let t = tokens(&call.arguments);
                    let mut s = seg("tool_call", origin_of(call), Some(i), t, c);
                    s.tool = Some(call.name.clone());
                    s.call_id = Some(call.id.clone());
                    s.as_tool = canonical_of(call).map(str::to_owned);
                    segs.push(s);
                }
            }
            Message::Tool(res) => {
                let fact = facts.get(i).and_then(Option::as_ref);
                let call = call_at(history, fact.and_then(|f| f.call));
                let t = fact.map_or_else(|| tokens(&result_text(res)), |f| f.tokens);
                let (c, r, elided) = result_class(res, fact, (&steps[i], &full[i]), last);
                let origin = call.map_or_else(|| "unknown".to_owned(), origin_of);
                let mut s = seg("tool_result", origin, Some(i), t, (c, r));
                s.tool = Some(call.map_or_else(|| "unknown".to_owned(), |c| c.name.clone()));
                s.call_id = Some(res.call_id.clone());
                s.as_tool = call.and_then(canonical_of).map(str::to_owned);
                s.elided = elided;
                s.used = used.and_then(|o| o.get(i).copied().flatten());
                segs.push(s);
            }
        }
    }
    if let Some(b) = block {
        segs.push(seg(
            "invariants",
            "invariants".into(),
            None,
            tokens(b),
            (Criticality::Pinned, "invariants_block"),
        ));
    }
    for (k, s) in segs.iter_mut().enumerate() {
        s.index = k;
    }
    segs
}
