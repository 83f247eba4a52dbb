//! The offline trigger lab (spec/skills.md §10): `evals/triggers.json` beside a SKILL.md, each
//! prompt routed over the catalog as a host lists it, and precision, recall, a confusion matrix
//! and the prompts that go to a sibling.

pub mod lab;
pub mod live;
pub mod router;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The eval file's place beside a SKILL.md.
pub const EVALS_FILE: &str = "evals/triggers.json";
/// The confusion-matrix label of "no skill".
pub const NONE: &str = "(none)";

/// One prompt of an eval file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub prompt: String,
    /// `true`: the skill should be chosen; `false`: it should not.
    pub trigger: bool,
    /// For a prompt that should not trigger it: the skill that should win instead.
    pub winner: Option<String>,
}

/// The eval file of one skill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evals {
    pub skill_file: PathBuf,
    pub cases: Vec<Case>,
}

fn prompt_of(v: &Value, key: &str, i: usize, trigger: bool) -> Result<Case, String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Ok(Case {
            prompt: s.clone(),
            trigger,
            winner: None,
        }),
        Value::Object(m) => {
            let prompt = m
                .get("prompt")
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
                .ok_or(format!("\"{key}[{i}].prompt\" must be a non-empty string"))?;
            let winner = match m.get("winner") {
                None | Some(Value::Null) => None,
                Some(Value::String(w)) if !trigger && !w.is_empty() => Some(w.clone()),
                Some(_) if trigger => {
                    return Err(format!(
                        "\"{key}[{i}].winner\" is only allowed in \"noTrigger\""
                    ));
                }
                Some(_) => return Err(format!("\"{key}[{i}].winner\" must be a skill name")),
            };
            if let Some(k) = m.keys().find(|k| *k != "prompt" && *k != "winner") {
                return Err(format!("unknown key \"{key}[{i}].{k}\""));
            }
            Ok(Case {
                prompt: prompt.to_string(),
                trigger,
                winner,
            })
        }
        _ => Err(format!(
            "\"{key}[{i}]\" must be a non-empty string or {{\"prompt\", \"winner\"}}"
        )),
    }
}

/// Parses an eval file; the error names what is wrong, with the line and column for JSON errors.
pub fn parse(skill_file: &Path, text: &str) -> Result<Evals, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "invalid JSON at line {} column {}: {e}",
            e.line(),
            e.column()
        )
    })?;
    let Value::Object(m) = &v else {
        return Err("the top level must be an object".to_string());
    };
    let mut cases = Vec::new();
    for (key, trigger) in [("trigger", true), ("noTrigger", false)] {
        match m.get(key) {
            None => {}
            Some(Value::Array(a)) => {
                for (i, p) in a.iter().enumerate() {
                    cases.push(prompt_of(p, key, i, trigger)?);
                }
            }
            Some(_) => return Err(format!("\"{key}\" must be an array")),
        }
    }
    if let Some(k) = m.keys().find(|k| *k != "trigger" && *k != "noTrigger") {
        return Err(format!(
            "unknown key \"{k}\" (allowed: \"trigger\", \"noTrigger\")"
        ));
    }
    if cases.is_empty() {
        return Err("no prompts: \"trigger\" and \"noTrigger\" are both empty or absent".into());
    }
    Ok(Evals {
        skill_file: skill_file.to_path_buf(),
        cases,
    })
}

/// One skill as a host lists it, for routing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub description: String,
    pub file: Option<PathBuf>,
}

/// Per-skill figures of one host.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    pub name: String,
    pub file: PathBuf,
    /// Whether the host lists the skill at all.
    pub listed: bool,
    pub true_positives: u32,
    pub false_positives: u32,
    pub false_negatives: u32,
    pub true_negatives: u32,
}

impl Score {
    #[must_use]
    pub fn precision(&self) -> Option<f64> {
        let d = self.true_positives + self.false_positives;
        (d > 0).then(|| f64::from(self.true_positives) / f64::from(d))
    }
    #[must_use]
    pub fn recall(&self) -> Option<f64> {
        let d = self.true_positives + self.false_negatives;
        (d > 0).then(|| f64::from(self.true_positives) / f64::from(d))
    }
}

/// A prompt that did not go where its eval file says.
#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub skill: String,
    pub prompt: String,
    /// The skill it should go to (`(none)`: not this skill, and no winner given → any other).
    pub expected: String,
    pub routed: Option<String>,
    pub score: f64,
}

/// The lab's result for one host.
#[derive(Clone, Debug, PartialEq)]
pub struct HostResult {
    pub host: String,
    pub scores: Vec<Score>,
    /// expected → routed → count.
    pub confusion: BTreeMap<String, BTreeMap<String, u32>>,
    pub misses: Vec<Miss>,
}

/// Routes every prompt of `evals` over `catalog` (one host's listing, in its order).
#[must_use]
pub fn run(host: &str, catalog: &[Listed], evals: &[Evals]) -> HostResult {
    let docs: Vec<(String, String)> = catalog
        .iter()
        .map(|l| (l.name.clone(), l.description.clone()))
        .collect();
    let router = router::Router::new(&docs);
    let name_of = |f: &Path| {
        catalog
            .iter()
            .find(|l| l.file.as_deref() == Some(f))
            .map(|l| l.name.clone())
    };
    let mut scores: Vec<Score> = evals
        .iter()
        .map(|e| Score {
            name: name_of(&e.skill_file).unwrap_or_else(|| dir_name(&e.skill_file)),
            file: e.skill_file.clone(),
            listed: name_of(&e.skill_file).is_some(),
            true_positives: 0,
            false_positives: 0,
            false_negatives: 0,
            true_negatives: 0,
        })
        .collect();
    let mut confusion: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    let mut misses = Vec::new();
    for (k, e) in evals.iter().enumerate() {
        let me = scores[k].name.clone();
        for c in &e.cases {
            let routed = router.route(&c.prompt);
            let routed_name = routed.map(|(i, _)| catalog[i].name.clone());
            let expected = if c.trigger {
                me.clone()
            } else {
                c.winner.clone().unwrap_or_else(|| NONE.to_string())
            };
            *confusion
                .entry(expected.clone())
                .or_default()
                .entry(routed_name.clone().unwrap_or_else(|| NONE.to_string()))
                .or_insert(0) += 1;
            let to_me = routed_name.as_deref() == Some(me.as_str()) && scores[k].listed;
            let ok = if c.trigger {
                to_me
            } else {
                match &c.winner {
                    Some(w) => routed_name.as_deref() == Some(w.as_str()),
                    None => !to_me,
                }
            };
            match (c.trigger, to_me) {
                (true, true) => scores[k].true_positives += 1,
                (true, false) => scores[k].false_negatives += 1,
                (false, true) => scores[k].false_positives += 1,
                (false, false) => scores[k].true_negatives += 1,
            }
            // A prompt of another skill's file routed to a skill under test is a false positive
            // of that skill too.
            if let Some(r) = &routed_name
                && *r != me
                && let Some(j) = scores.iter().position(|s| s.listed && s.name == *r)
                && c.trigger
            {
                scores[j].false_positives += 1;
            }
            if !ok {
                misses.push(Miss {
                    skill: me.clone(),
                    prompt: c.prompt.clone(),
                    expected,
                    routed: routed_name,
                    score: routed.map_or(0.0, |(_, s)| s),
                });
            }
        }
    }
    HostResult {
        host: host.to_string(),
        scores,
        confusion,
        misses,
    }
}

fn dir_name(file: &Path) -> String {
    file.parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Rounds a ratio to 4 decimals for output (stable across platforms).
fn ratio(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |x| json!((x * 10_000.0).round() / 10_000.0))
}

/// The JSON of one host's result (spec/interfaces.md §1.5).
#[must_use]
pub fn result_json(r: &HostResult, show: &dyn Fn(&Path) -> String) -> Value {
    json!({
        "host": r.host,
        "skills": r.scores.iter().map(|s| json!({
            "name": s.name,
            "file": show(&s.file),
            "listed": s.listed,
            "truePositives": s.true_positives,
            "falsePositives": s.false_positives,
            "falseNegatives": s.false_negatives,
            "trueNegatives": s.true_negatives,
            "precision": ratio(s.precision()),
            "recall": ratio(s.recall()),
        })).collect::<Vec<_>>(),
        "confusion": r.confusion,
        "misrouted": r.misses.iter().map(|m| json!({
            "skill": m.skill,
            "prompt": m.prompt,
            "expected": m.expected,
            "routed": m.routed,
            "score": (m.score * 10_000.0).round() / 10_000.0,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, desc: &str) -> Listed {
        Listed {
            name: name.into(),
            description: desc.into(),
            file: Some(PathBuf::from(format!("/s/{name}/SKILL.md"))),
        }
    }

    #[test]
    fn precision_recall_confusion_and_siblings() {
        let cat = [
            listed("pdf-tools", "Extract text and tables from PDF files."),
            listed("chart-maker", "Draw charts and plots from spreadsheets."),
        ];
        let evals = parse(
            Path::new("/s/pdf-tools/SKILL.md"),
            r#"{"trigger": ["extract tables from this pdf", "draw plots of these tables"],
                "noTrigger": ["make a chart of sales", {"prompt": "draw a plot", "winner": "chart-maker"}, "hello there"]}"#,
        )
        .unwrap();
        let r = run("claude-code", &cat, &[evals]);
        let s = &r.scores[0];
        assert_eq!(
            (
                s.true_positives,
                s.false_positives,
                s.false_negatives,
                s.true_negatives
            ),
            (1, 0, 1, 3)
        );
        assert_eq!(s.precision(), Some(1.0));
        assert_eq!(s.recall(), Some(0.5));
        assert_eq!(r.misses.len(), 1);
        assert_eq!(r.misses[0].prompt, "draw plots of these tables");
        assert_eq!(r.misses[0].routed.as_deref(), Some("chart-maker"));
        assert_eq!(r.confusion["pdf-tools"]["chart-maker"], 1);
        assert_eq!(r.confusion["chart-maker"]["chart-maker"], 1);
        assert_eq!(r.confusion[NONE][NONE], 1);
        assert_eq!(
            run(
                "claude-code",
                &cat,
                &[parse(Path::new("/s/pdf-tools/SKILL.md"), r#"{"trigger":["pdf"]}"#).unwrap()]
            )
            .scores[0]
                .true_positives,
            1
        );
    }

    #[test]
    fn eval_file_errors_are_located() {
        let p = Path::new("/s/x/SKILL.md");
        assert_eq!(
            parse(p, "{\"trigger\": [1]}").unwrap_err(),
            "\"trigger[0]\" must be a non-empty string or {\"prompt\", \"winner\"}"
        );
        assert!(
            parse(p, "{\n\"trigger\": [")
                .unwrap_err()
                .starts_with("invalid JSON at line 2 column")
        );
        assert_eq!(
            parse(p, r#"{"trigger": [{"prompt": "a", "winner": "b"}]}"#).unwrap_err(),
            "\"trigger[0].winner\" is only allowed in \"noTrigger\""
        );
        assert_eq!(
            parse(p, r#"{"should": []}"#).unwrap_err(),
            "unknown key \"should\" (allowed: \"trigger\", \"noTrigger\")"
        );
    }
}
