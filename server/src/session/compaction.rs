//! Compaction (sessions.md §6): measuring, triggers, planning the cut, the summarizer request,
//! parsing and rendering the checkpoint, persisting it, budget reduction in place and the last
//! chance before `context_budget`. Nothing is ever deleted: replaced rows are marked compacted.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::events::Pending;
use super::providers::{Failure, ModelRequest, RequestKind, Stop, calls_of, texts};
use super::runner::Run;
use super::store::MsgRow;
use super::util::{chars, compact, estimate, fault, take_chars};

/// The summarizer's system text (§6.5).
pub const SUMMARIZER_SYSTEM: &str = "You condense the transcript of a coding-agent session into a checkpoint that lets the agent continue the work without the original messages. Answer with only this JSON object and nothing else: {\"checkpoint\":{\"goal\":\"...\",\"instructions\":[\"...\"],\"discoveries\":[\"...\"],\"accomplished\":[\"...\"],\"currentState\":\"...\",\"nextSteps\":[\"...\"],\"relevantFiles\":[\"...\"]}}. `instructions` are the user's instructions and constraints. Keep file paths, symbols, commands, tool call ids and error texts exactly as written. Invent nothing. Be brief.";

const CUT_OFF: &str = "Compaction summary was cut off before any usable text was produced; raise compaction.maxOutputTokens";

/// Sizes of §6.2.
#[derive(Clone, Copy, Debug, Default)]
pub struct Measure {
    pub instructions: u64,
    pub conversation: u64,
    pub request: u64,
    /// Token estimate of the texts `request` counts.
    pub request_tokens: u64,
    pub used: u64,
}

fn measure(run: &Run<'_>, active: &[MsgRow]) -> Measure {
    let (system, tools, _) = run.parts();
    let tools_json = compact(&Value::Array(
        tools
            .iter()
            .map(|s| json!({"name":s.name,"description":s.description,"input_schema":s.schema()}))
            .collect(),
    ));
    let instructions = chars(&system) as u64;
    let sizes: Vec<(u64, u64)> = active.iter().map(|m| run.row_size(m)).collect();
    let conv_msgs: u64 = sizes.iter().map(|s| s.0).sum();
    let conversation = instructions + conv_msgs;
    let request = conversation + chars(&tools_json) as u64;
    let request_tokens =
        estimate(&system) + sizes.iter().map(|s| s.1).sum::<u64>() + estimate(&tools_json);
    let mut used = request_tokens;
    if let Some(i) = active.iter().rposition(|m| m.role == "assistant") {
        let v = active[i].value();
        let u = &v["usage"];
        let later_rewrite = active[i + 1..].iter().any(|m| m.kind != "message")
            || active
                .iter()
                .any(|m| m.kind != "message" && m.seq > active[i].seq);
        if u["estimated"] == json!(false) && !later_rewrite {
            used = u["input"].as_u64().unwrap_or(0)
                + u["output"].as_u64().unwrap_or(0)
                + sizes[i + 1..].iter().map(|s| s.1).sum::<u64>();
            // Mode `on`: the provider counted the projection; add back what it removed.
            if run.gov.mode == crate::config::GovernorMode::On {
                let saved = run
                    .store
                    .last_event_data(&run.sid, "context_governed")
                    .ok()
                    .flatten();
                used += saved
                    .and_then(|d| serde_json::from_str::<Value>(&d).ok())
                    .and_then(|v| v["tokensSaved"].as_u64())
                    .unwrap_or(0);
            }
        }
    }
    Measure {
        instructions,
        conversation,
        request,
        request_tokens,
        used,
    }
}

/// How the last compaction attempt of the turn went.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Attempt {
    None,
    Done,
    Skipped,
    Failed(String),
}

/// §6.4: the index of the first kept message, or `None` (no plan).
#[must_use]
pub fn plan(active: &[MsgRow], keep_turns: u32) -> Option<usize> {
    let n = active.len();
    let mut open: HashSet<String> = HashSet::new();
    let mut safe = vec![false; n + 1];
    for (i, m) in active.iter().enumerate() {
        if i > 0 && m.role != "tool" && open.is_empty() {
            safe[i] = true;
        }
        let v = m.value();
        if m.role == "assistant" {
            for (id, _, _) in calls_of(&v) {
                open.insert(id);
            }
        } else if m.role == "tool"
            && let Some(id) = v.get("callId").and_then(Value::as_str)
        {
            open.remove(id);
        }
    }
    if !open.is_empty() {
        return None;
    }
    let mut starts: Vec<usize> = Vec::new();
    if active.first().is_some_and(|m| m.role == "user") {
        starts.push(0);
    }
    for (i, m) in active.iter().enumerate() {
        if i > 0 && safe[i] && m.role == "user" {
            starts.push(i);
        }
    }
    let k = keep_turns as usize;
    let mut cut = if k == 0 {
        n
    } else if starts.len() > k {
        starts[starts.len() - k]
    } else if starts.len() >= 2 {
        starts[starts.len() - 1]
    } else {
        0
    };
    if cut < 2 {
        cut = (2..n).rev().find(|&i| safe[i] && n - i >= 4).unwrap_or(0);
    }
    (cut >= 2).then_some(cut)
}

fn item(s: String) -> String {
    if chars(&s) > 4000 {
        format!("{}… [truncated]", take_chars(&s, 4000))
    } else {
        s
    }
}

/// The summarizer's user message (§6.5).
#[must_use]
pub fn transcript(msgs: &[MsgRow]) -> String {
    let mut lines = Vec::new();
    for m in msgs {
        let v = m.value();
        match m.role.as_str() {
            "user" if m.kind == "checkpoint" => {
                lines.push(item(format!("PREVIOUS SUMMARY: {}", texts(&v))))
            }
            "user" => lines.push(item(format!("USER: {}", texts(&v)))),
            "assistant" => {
                let t = texts(&v);
                if !t.is_empty() {
                    lines.push(item(format!("ASSISTANT: {t}")));
                }
                for (id, name, args) in calls_of(&v) {
                    lines.push(item(format!("TOOL CALL {id} {name}: {args}")));
                }
            }
            _ => {
                let err = if v["isError"] == json!(true) {
                    " (error)"
                } else {
                    ""
                };
                lines.push(item(format!(
                    "TOOL RESULT {}{err}: {}",
                    v["callId"].as_str().unwrap_or_default(),
                    texts(&v)
                )));
            }
        }
    }
    format!(
        "Checkpoint this session transcript.\n\n<transcript>\n{}\n</transcript>",
        lines.join("\n")
    )
}

/// §6.6: the parsed checkpoint object, when valid.
#[must_use]
pub fn parse(raw: &str) -> Option<Value> {
    let body = if let Some(start) = raw.find("```") {
        let after = &raw[start + 3..];
        let after = after.strip_prefix("json").unwrap_or(after);
        after.find("```").map(|e| after[..e].to_string())
    } else {
        None
    };
    let body = body.or_else(|| {
        let (a, b) = (raw.find('{')?, raw.rfind('}')?);
        (a < b).then(|| raw[a..=b].to_string())
    })?;
    let v: Value = serde_json::from_str(body.trim()).ok()?;
    let c = v.get("checkpoint")?;
    let goal = c.get("goal")?.as_str()?.trim();
    if goal.is_empty() || chars(goal) > 4000 {
        return None;
    }
    for k in [
        "instructions",
        "discoveries",
        "accomplished",
        "nextSteps",
        "relevantFiles",
    ] {
        match c.get(k) {
            None => {}
            Some(Value::Array(a))
                if a.len() <= 40
                    && a.iter()
                        .all(|x| x.as_str().is_some_and(|s| chars(s) <= 4000)) => {}
            _ => return None,
        }
    }
    match c.get("currentState") {
        None => {}
        Some(Value::String(s)) if chars(s) <= 4000 => {}
        _ => return None,
    }
    Some(v)
}

/// §6.6 rendering of a structured checkpoint.
#[must_use]
pub fn render(v: &Value) -> String {
    let c = &v["checkpoint"];
    let list = |k: &str| {
        let items: Vec<String> = c
            .get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| format!("- {s}"))
                    .collect()
            })
            .unwrap_or_default();
        if items.is_empty() {
            "- (none)".to_string()
        } else {
            items.join("\n")
        }
    };
    let string = |k: &str| {
        c.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or("(none)")
            .to_string()
    };
    [
        format!("## Goal\n{}", string("goal")),
        format!(
            "## User instructions and constraints\n{}",
            list("instructions")
        ),
        format!("## Discoveries\n{}", list("discoveries")),
        format!("## Accomplished\n{}", list("accomplished")),
        format!("## Current state\n{}", string("currentState")),
        format!("## Next steps\n{}", list("nextSteps")),
        format!("## Relevant files\n{}", list("relevantFiles")),
    ]
    .join("\n\n")
}

fn max_summary_tokens(run: &Run<'_>) -> u32 {
    let window = run.pcfg.context_window;
    let base = run.opts.config.compaction_max_output.unwrap_or(8192);
    window.map_or(base, |w| {
        base.min(u32::try_from(w / 4).unwrap_or(u32::MAX)).max(256)
    })
}

/// One compaction (§6.4–§6.7).
fn compact_once(run: &mut Run<'_>, reason: &'static str) -> Result<Attempt, String> {
    let active = run.active()?;
    let m = measure(run, &active);
    let sid = run.sid.clone();
    let Some(cut) = plan(&active, run.opts.config.keep_turns) else {
        run.em.durable(
            &mut run.store,
            vec![Pending::new(&sid, None, "compaction_skipped", json!({"reason":reason,"before":m.request_tokens,"detail":"Not enough history to compact"}))],
        )?;
        return Ok(Attempt::Skipped);
    };
    let summarized = &active[..cut];
    run.em.durable(
        &mut run.store,
        vec![Pending::new(
            &sid,
            None,
            "compaction_started",
            json!({"reason":reason,"before":m.request_tokens,"messages":cut}),
        )],
    )?;
    let mut system = SUMMARIZER_SYSTEM.to_string();
    if let Some(extra) = run.gov.summarizer_extra() {
        system.push(' ');
        system.push_str(&extra);
    }
    let req = ModelRequest {
        kind: RequestKind::Summary,
        system,
        messages: vec![
            json!({"role":"user","content":[{"type":"text","text":transcript(summarized)}]}),
        ],
        tools: Vec::new(),
        max_output_tokens: max_summary_tokens(run),
        invariants_at: None,
    };
    let fail = |run: &mut Run<'_>, error: String| -> Result<Attempt, String> {
        let sid = run.sid.clone();
        run.em.durable(
            &mut run.store,
            vec![Pending::new(
                &sid,
                None,
                "compaction_failed",
                json!({"reason":reason,"error":error}),
            )],
        )?;
        Ok(Attempt::Failed(error))
    };
    let resp = match run.call_provider(&req, None) {
        Ok(r) => r,
        Err(Failure::Cancelled) => return Ok(Attempt::Failed("Cancelled".into())),
        Err(Failure::Fatal { message, .. }) => return fail(run, message),
    };
    let raw = resp.text.trim().to_string();
    let partial = resp.stop == Some(Stop::MaxTokens);
    if raw.is_empty() {
        let e = if partial {
            CUT_OFF.to_string()
        } else {
            "Summarizer returned an empty summary".to_string()
        };
        return fail(run, e);
    }
    let parsed = parse(&raw);
    let structured = parsed.is_some();
    let body = parsed.as_ref().map_or_else(|| raw.clone(), render);
    let text = format!(
        "[Checkpoint of {cut} earlier messages, generated by context compaction]\n\n{body}"
    );
    let msg = json!({"role":"user","content":[{"type":"text","text":text}],"checkpoint":parsed.as_ref().map(|p| p["checkpoint"].clone()),"structured":structured,"replaced":cut,"partial":partial});
    let msg_s = compact(&msg);
    let first_kept_pos = active
        .get(cut)
        .map_or_else(|| active.last().map_or(1, |m| m.pos + 1), |m| m.pos);
    let pos = first_kept_pos - 1;
    let summarized_tokens: u64 = summarized.iter().map(|m| estimate(&m.json)).sum();
    let checkpoint_tokens = estimate(&text);
    let after_msgs: u64 =
        active[cut..].iter().map(|m| estimate(&m.json)).sum::<u64>() + estimate(&msg_s);
    let after = m
        .request_tokens
        .saturating_sub(active.iter().map(|m| estimate(&m.json)).sum::<u64>())
        + after_msgs;
    let new_conv = m.instructions
        + chars(&msg_s) as u64
        + active[cut..]
            .iter()
            .map(|m| chars(&m.json) as u64)
            .sum::<u64>();
    let options = run
        .gov
        .accept_quotes(&run.session.options, parsed.as_ref(), summarized);
    let seqs: Vec<i64> = summarized.iter().map(|m| m.seq).collect();
    let run_id = run.run_id.clone();
    fault("before_compaction_commit");
    let ev = Pending::new(
        &sid,
        None,
        "compaction_completed",
        json!({"reason":reason,"before":m.request_tokens,"after":after,"replaced":cut,"structured":structured,"summarizedTokens":summarized_tokens,"checkpointTokens":checkpoint_tokens,"partial":partial}),
    );
    run.em.commit(&mut run.store, vec![ev], |tx| {
        let seq = tx.next_seq(&sid)?;
        for s in &seqs {
            tx.mark_compacted(&sid, *s, seq)?;
        }
        let got =
            tx.append_message(&sid, Some(pos), "user", "checkpoint", &msg_s, Some(&run_id))?;
        debug_assert_eq!(got, seq);
        tx.set_compacted_chars(&sid, new_conv as i64)?;
        if let Some(o) = &options {
            tx.set_options(&sid, o)?;
        }
        Ok(())
    })?;
    run.rewrites.set(run.rewrites.get() + 1);
    fault("after_compaction_commit");
    if let Some(s) = run.store.session(&sid)? {
        run.session = s;
    }
    Ok(Attempt::Done)
}

fn originals(run: &Run<'_>, m: &MsgRow) -> Value {
    // Clipping is always from the original: follow `replaced_by` back to the first row.
    let mut cur = m.clone();
    for _ in 0..100 {
        if cur.kind != "reduced" {
            break;
        }
        match run.store.replaced_by(&run.sid, cur.seq).ok().flatten() {
            Some(prev) => cur = prev,
            None => break,
        }
    }
    cur.value()
}

fn clippable(m: &MsgRow, v: &Value) -> bool {
    m.kind != "checkpoint"
        && v.get("skill").is_none()
        && !(m.role == "tool" && v["name"] == "skill_load")
}

fn clip(v: &Value, cap: usize) -> Value {
    let mut out = v.clone();
    let mut left = cap;
    let mut cut_any = false;
    if let Some(parts) = out.get_mut("content").and_then(Value::as_array_mut) {
        for p in parts.iter_mut() {
            if p["type"] != "text" {
                continue;
            }
            let t = p["text"].as_str().unwrap_or_default().to_string();
            let n = chars(&t);
            if n <= left {
                left -= n;
            } else {
                p["text"] = json!(take_chars(&t, left).to_string());
                left = 0;
                cut_any = true;
            }
        }
        if cut_any {
            if let Some(last) = parts.iter_mut().rev().find(|p| p["type"] == "text") {
                let t = last["text"].as_str().unwrap_or_default().to_string();
                last["text"] = json!(format!("{t}\n… [truncated by context budget]"));
            }
            parts.retain(|p| {
                p["type"] != "text" || p["text"].as_str().is_some_and(|s| !s.is_empty())
            });
        }
    }
    out
}

/// §6.8. Returns whether anything was clipped.
fn reduce(run: &mut Run<'_>) -> Result<bool, String> {
    let active = run.active()?;
    let m = measure(run, &active);
    let max = run.opts.config.max_context_chars;
    if m.conversation <= max {
        return Ok(false);
    }
    let target = 4000u64.max(max.saturating_sub(m.instructions)) as usize;
    let mut sizes: Vec<usize> = active.iter().map(|r| chars(&r.json)).collect();
    let mut new_json: Vec<Option<String>> = vec![None; active.len()];
    let caps = [
        (8000usize, 16_000usize),
        (4096, 8192),
        (2048, 4096),
        (1024, 2048),
        (512, 1024),
    ];
    for (tool_cap, text_cap) in caps {
        loop {
            if sizes.iter().sum::<usize>() <= target {
                break;
            }
            let mut best: Option<usize> = None;
            for (i, r) in active.iter().enumerate() {
                let orig = originals(run, r);
                if !clippable(r, &orig) {
                    continue;
                }
                let cap = if r.role == "tool" { tool_cap } else { text_cap };
                if chars(&texts(&orig)) <= cap {
                    continue;
                }
                let current = new_json[i]
                    .as_ref()
                    .map_or_else(|| r.json.clone(), Clone::clone);
                let candidate = compact(&clip(&orig, cap));
                if chars(&candidate) >= chars(&current) {
                    continue;
                }
                if best.is_none_or(|b| sizes[i] > sizes[b]) {
                    best = Some(i);
                }
            }
            let Some(i) = best else { break };
            let cap = if active[i].role == "tool" {
                tool_cap
            } else {
                text_cap
            };
            let c = compact(&clip(&originals(run, &active[i]), cap));
            sizes[i] = chars(&c);
            new_json[i] = Some(c);
        }
    }
    let changed: Vec<(MsgRow, String)> = active
        .iter()
        .zip(new_json)
        .filter_map(|(r, j)| j.map(|j| (r.clone(), j)))
        .collect();
    if changed.is_empty() {
        return Ok(false);
    }
    let saved: u64 = changed
        .iter()
        .map(|(r, j)| estimate(&r.json).saturating_sub(estimate(j)))
        .sum();
    let sid = run.sid.clone();
    let run_id = run.run_id.clone();
    fault("before_reduction_commit");
    let ev = Pending::new(
        &sid,
        None,
        "context_reduced",
        json!({"messages":changed.len(),"reason":"budget","tokensSaved":saved}),
    );
    run.em.commit(&mut run.store, vec![ev], |tx| {
        for (r, j) in &changed {
            let seq = tx.next_seq(&sid)?;
            tx.mark_compacted(&sid, r.seq, seq)?;
            tx.append_message(&sid, Some(r.pos), &r.role, "reduced", j, Some(&run_id))?;
        }
        Ok(())
    })?;
    run.rewrites.set(run.rewrites.get() + 1);
    run.gov.invalidate();
    Ok(true)
}

/// Runs the compaction steps before a model turn. `Ok(Some((code, message)))` ends the run.
///
/// # Errors
/// Store errors.
pub fn before_turn(run: &mut Run<'_>) -> Result<Option<(&'static str, String)>, String> {
    let cfg = run.opts.config.clone();
    let active = run.active()?;
    let m = measure(run, &active);
    let max = cfg.max_context_chars as f64;
    let window = run.pcfg.context_window.or(run.window);
    let a = match window {
        Some(w) => m.used as f64 >= w as f64 * cfg.compaction_threshold,
        None => m.request as f64 >= max,
    };
    let b = m.conversation as f64 >= max * cfg.compaction_threshold
        && m.conversation as f64 >= run.session.compacted_chars as f64 + max * 0.10;
    let mut attempt = Attempt::None;
    if cfg.compaction_auto && (a || b) {
        attempt = compact_once(run, "auto")?;
    } else if m.conversation <= cfg.max_context_chars {
        // Nothing changed and the budget holds: no reduction, no last chance.
        return Ok(None);
    }
    reduce(run)?;
    let over = |run: &Run<'_>| -> Result<(bool, u64), String> {
        let act = run.active()?;
        let m = measure(run, &act);
        Ok((m.conversation > cfg.max_context_chars, m.conversation))
    };
    let (still, _) = over(run)?;
    if still && cfg.compaction_auto && attempt == Attempt::None {
        attempt = compact_once(run, "budget")?;
        reduce(run)?;
    }
    let (still, n) = over(run)?;
    if !still {
        return Ok(None);
    }
    let what = match (&attempt, cfg.compaction_auto) {
        (_, false) => "Automatic compaction is disabled (compaction.auto is false).".to_string(),
        (Attempt::Done, _) => "Automatic compaction ran but could not reduce it enough.".to_string(),
        (Attempt::Failed(e), _) => format!("Automatic compaction failed ({e})."),
        _ => "Automatic compaction was skipped because there is no safe boundary to summarize (the conversation is a single long turn or too short).".to_string(),
    };
    Ok(Some((
        "context_budget",
        format!(
            "Context budget exceeded (about {n} characters of conversation; limit {}). {what} Start a new session, trim large tool outputs, or raise limits.maxContextChars.",
            cfg.max_context_chars
        ),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seq: i64, role: &str, json: Value) -> MsgRow {
        MsgRow {
            seq,
            pos: seq,
            role: role.into(),
            kind: "message".into(),
            json: json.to_string(),
            compacted: false,
            replaced_by: None,
            run_id: None,
            created_at: String::new(),
        }
    }

    fn user(seq: i64) -> MsgRow {
        row(
            seq,
            "user",
            json!({"role":"user","content":[{"type":"text","text":"u"}]}),
        )
    }

    fn call(seq: i64, id: &str) -> MsgRow {
        row(
            seq,
            "assistant",
            json!({"role":"assistant","content":[{"type":"tool_call","id":id,"name":"read_file","arguments":"{}"}]}),
        )
    }

    fn result(seq: i64, id: &str) -> MsgRow {
        row(
            seq,
            "tool",
            json!({"role":"tool","callId":id,"name":"read_file","isError":false,"outcome":"ok","content":[{"type":"text","text":"r"}]}),
        )
    }

    #[test]
    fn the_cut_keeps_the_last_exchanges_and_never_splits_a_call() {
        let t = vec![
            user(1),
            call(2, "a"),
            result(3, "a"),
            user(4),
            call(5, "b"),
            result(6, "b"),
            user(7),
        ];
        assert_eq!(plan(&t, 2), Some(3));
        let single = vec![user(1), call(2, "a"), result(3, "a"), call(4, "b")];
        assert_eq!(plan(&single, 2), None, "an unanswered call: no plan");
        let short = vec![
            user(1),
            call(2, "a"),
            result(3, "a"),
            row(
                4,
                "assistant",
                json!({"role":"assistant","content":[{"type":"text","text":"x"}]}),
            ),
        ];
        assert_eq!(plan(&short, 2), None);
    }

    #[test]
    fn structured_checkpoints_render_seven_headings() {
        let v = parse(
            "```json\n{\"checkpoint\":{\"goal\":\"g\",\"instructions\":[\"no semicolons\"]}}\n```",
        )
        .unwrap();
        assert_eq!(
            render(&v),
            "## Goal\ng\n\n## User instructions and constraints\n- no semicolons\n\n## Discoveries\n- (none)\n\n## Accomplished\n- (none)\n\n## Current state\n(none)\n\n## Next steps\n- (none)\n\n## Relevant files\n- (none)"
        );
        assert!(parse("just words").is_none());
        assert!(parse("} backwards {").is_none());
        assert!(parse("{\"checkpoint\":{\"goal\":\"\"}}").is_none());
    }
}
