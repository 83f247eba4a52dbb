//! The main-thread share (spec/governor.md §11.9, seed 003 layer one): for a transcript with
//! sub-agents, how many turns, tool calls and body characters stay in the main thread and how
//! many land in sub-agents, and how long the briefs (the main thread's task prompts) are.

use serde_json::{Value, json};

use crate::model::Message;

/// Figures of one thread (or of several summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Thread {
    /// Assistant messages.
    pub turns: u64,
    pub tool_calls: u64,
    /// Body characters (UTF-16 units): user, assistant and result text, call arguments.
    pub chars: u64,
}

impl Thread {
    fn add(&mut self, o: Thread) {
        self.turns += o.turns;
        self.tool_calls += o.tool_calls;
        self.chars += o.chars;
    }

    fn json(self) -> Value {
        json!({"turns":self.turns,"toolCalls":self.tool_calls,"chars":self.chars})
    }
}

fn units(s: &str) -> u64 {
    s.encode_utf16().count() as u64
}

/// The figures of one history.
#[must_use]
pub fn thread(history: &[Message]) -> Thread {
    let mut t = Thread::default();
    for m in history {
        match m {
            Message::User { parts, .. } => {
                t.chars += parts.iter().map(|p| units(&p.text)).sum::<u64>()
            }
            Message::Assistant { parts, calls } => {
                t.turns += 1;
                t.tool_calls += calls.len() as u64;
                t.chars += parts.iter().map(|p| units(&p.text)).sum::<u64>();
                t.chars += calls.iter().map(|c| units(&c.arguments)).sum::<u64>();
            }
            Message::Tool(r) => t.chars += r.parts.iter().map(|p| units(&p.text)).sum::<u64>(),
        }
    }
    t
}

/// Tools that start a sub-agent: alisio's `task`, Claude Code's `Task` and `Agent`.
pub const DELEGATING: &[&str] = &["task", "Task", "Agent"];

/// The lengths of the briefs (`prompt` arguments of delegating calls) in a history, in order.
#[must_use]
pub fn briefs(history: &[Message]) -> Vec<u64> {
    history
        .iter()
        .filter_map(|m| match m {
            Message::Assistant { calls, .. } => Some(calls),
            _ => None,
        })
        .flatten()
        .filter(|c| DELEGATING.contains(&c.name.as_str()))
        .filter_map(|c| {
            serde_json::from_str::<Value>(&c.arguments)
                .ok()
                .and_then(|a| a["prompt"].as_str().map(units))
        })
        .collect()
}

fn share(main: u64, sub: u64) -> Value {
    let all = main + sub;
    if all == 0 {
        return json!(null);
    }
    json!((main as f64 / all as f64 * 1000.0).round() / 1000.0)
}

/// The delegation figures of a main history and its sub-agents' histories.
#[must_use]
pub fn figures(main: &[Message], subs: &[&[Message]]) -> Value {
    let m = thread(main);
    let mut s = Thread::default();
    for h in subs {
        s.add(thread(h));
    }
    let b = briefs(main);
    json!({
        "subagents": subs.len(),
        "main": m.json(),
        "subagent": s.json(),
        "mainShare": {"turns": share(m.turns, s.turns), "toolCalls": share(m.tool_calls, s.tool_calls), "chars": share(m.chars, s.chars)},
        "briefs": {"count": b.len(), "chars": b.iter().sum::<u64>(), "min": b.iter().min(), "max": b.iter().max()},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Call, Part};

    fn asst(calls: Vec<Call>) -> Message {
        Message::Assistant {
            parts: vec![Part::text("ok")],
            calls,
        }
    }

    #[test]
    fn shares_count_turns_calls_and_chars_of_each_side() {
        let main = vec![
            Message::user("go"),
            asst(vec![Call::new("t1", "Task", r#"{"prompt":"abcd"}"#)]),
            asst(vec![]),
        ];
        let sub = vec![
            Message::user("abcd"),
            asst(vec![
                Call::new("r", "Read", "{}"),
                Call::new("s", "Bash", "{}"),
            ]),
            asst(vec![]),
        ];
        let f = figures(&main, &[&sub]);
        // main: 2 turns, 1 call, chars 2+2+17+2 = 23; sub: 2 turns, 2 calls, 4+2+2+2+2 = 12.
        assert_eq!(f["main"], json!({"turns":2,"toolCalls":1,"chars":23}));
        assert_eq!(f["subagent"], json!({"turns":2,"toolCalls":2,"chars":12}));
        assert_eq!(
            f["mainShare"],
            json!({"turns":0.5,"toolCalls":0.333,"chars":0.657})
        );
        assert_eq!(f["briefs"], json!({"count":1,"chars":4,"min":4,"max":4}));
    }
}
