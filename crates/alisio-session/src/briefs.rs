//! Brief discipline (spec/sessions.md §12.2): how much of each brief a coordinator wrote (the
//! `prompt` of its `task` calls) repeats the rules its sub-sessions already have.
//!
//! The measure: a brief's words are its maximal runs of alphanumeric characters, lowercased.
//! A word is *repeated* when it lies in a window of [`SHINGLE`] consecutive words of the brief
//! that also occurs, as consecutive words, in the standing text of a sub-session (the
//! sub-agent paragraph and the worker rules). The share is repeated words over words. It sees
//! copied phrasing, not paraphrase: a brief that restates a rule in other words counts as
//! specific.

use std::collections::HashSet;

use serde_json::{Value, json};

/// Words per window.
pub const SHINGLE: usize = 4;

fn words(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `(words, repeated words)` of `brief` against `rules`.
#[must_use]
pub fn repeated(brief: &str, rules: &str) -> (usize, usize) {
    let b = words(brief);
    let r = words(rules);
    let known: HashSet<&[String]> = r.windows(SHINGLE).collect();
    let mut hit = vec![false; b.len()];
    for (i, w) in b.windows(SHINGLE).enumerate() {
        if known.contains(w) {
            for h in &mut hit[i..i + SHINGLE] {
                *h = true;
            }
        }
    }
    (b.len(), hit.iter().filter(|h| **h).count())
}

/// `{briefs: [{callId, chars, words, repeatedWords, repeatedShare}]}` for the `task` calls of
/// the stored assistant messages `values`, in order, against `rules` (the worker's standing
/// text: `runner::worker_text`).
#[must_use]
pub fn report(values: &[Value], rules: &str) -> Value {
    let mut out = Vec::new();
    for v in values {
        for (id, name, args) in crate::providers::calls_of(v) {
            if name != crate::tools::specs::TASK.name {
                continue;
            }
            let prompt = serde_json::from_str::<Value>(&args)
                .ok()
                .and_then(|a| a["prompt"].as_str().map(String::from))
                .unwrap_or_default();
            let (n, rep) = repeated(&prompt, rules);
            let share = if n == 0 {
                0.0
            } else {
                (rep as f64 / n as f64 * 1000.0).round() / 1000.0
            };
            out.push(json!({"callId":id,"chars":prompt.chars().count(),"words":n,"repeatedWords":rep,"repeatedShare":share}));
        }
    }
    json!({"briefs": out})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copied_phrases_count_and_specific_words_do_not() {
        let rules = "Answer with the paths you wrote and your conclusions, not with the long output itself.";
        assert_eq!(repeated("Count the lines of data/*.csv.", rules), (6, 0));
        // 12 words; "answer with the paths you wrote and your conclusions" (9) is copied.
        assert_eq!(
            repeated(
                "Count data. Answer with the paths you wrote and your conclusions!",
                rules
            ),
            (11, 9)
        );
        assert_eq!(repeated("", rules), (0, 0));
        let v = vec![
            json!({"role":"assistant","content":[{"type":"tool_call","id":"t1","name":"task","arguments":"{\"description\":\"d\",\"prompt\":\"Count data. Answer with the paths you wrote and your conclusions\"}"}]}),
        ];
        let r = report(&v, rules);
        assert_eq!(r["briefs"][0]["words"], json!(11));
        assert_eq!(r["briefs"][0]["repeatedWords"], json!(9));
        assert_eq!(r["briefs"][0]["repeatedShare"], json!(0.818));
    }
}
