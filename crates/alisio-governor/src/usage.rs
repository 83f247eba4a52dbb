//! The usage heuristic (spec/governor.md §8): of the results the model saw in full, which did the
//! agent act on later. It never influences what is elided.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::classify::{attributable, named_paths};
use super::model::Message;
use super::rules::Fact;

/// `{seen, used, reread, unused}` of one attributable tool; `unused` is `seen − used − reread`
/// and is written, never read back (a stored `usage` is read without it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct ToolUsage {
    pub seen: u64,
    pub used: u64,
    pub reread: u64,
}

impl ToolUsage {
    /// The results seen that were neither used nor read again.
    #[must_use]
    pub const fn unused(&self) -> u64 {
        self.seen.saturating_sub(self.used + self.reread)
    }
}

impl Serialize for ToolUsage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut st = s.serialize_struct("ToolUsage", 4)?;
        st.serialize_field("seen", &self.seen)?;
        st.serialize_field("used", &self.used)?;
        st.serialize_field("reread", &self.reread)?;
        st.serialize_field("unused", &self.unused())?;
        st.end()
    }
}

/// The `usage` object of a report or event (read back from a stored `context_governed` event).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub per_tool: BTreeMap<String, ToolUsage>,
    pub not_attributable: u64,
}

/// Per message: the `used` value of a ledger result.
pub type Outcomes = Vec<Option<&'static str>>;

/// Computes usage over the ledger results of `history` (`ledger` holds call ids).
#[must_use]
pub fn compute(
    history: &[Message],
    facts: &[Option<Fact>],
    ledger: &HashSet<String>,
) -> (Usage, Outcomes) {
    let mut usage = Usage::default();
    let mut outcomes = vec![None; history.len()];
    // Suffix counts over the calls of later assistant messages.
    let mut named: HashMap<String, u32> = HashMap::new();
    let mut named_by_own_read: HashMap<String, u32> = HashMap::new();
    let mut reads: HashMap<String, u32> = HashMap::new();
    for i in (0..history.len()).rev() {
        match &history[i] {
            Message::Assistant { calls, .. } => {
                for c in calls {
                    let (mut ns, r) = named_paths(c);
                    ns.sort();
                    ns.dedup();
                    for n in &ns {
                        *named.entry(n.clone()).or_default() += 1;
                    }
                    if let Some(r) = r {
                        if ns.contains(&r) {
                            *named_by_own_read.entry(r.clone()).or_default() += 1;
                        }
                        *reads.entry(r).or_default() += 1;
                    }
                }
            }
            Message::Tool(r) if ledger.contains(&r.call_id) => {
                let fact = facts.get(i).and_then(Option::as_ref);
                let call = fact
                    .and_then(|f| f.call)
                    .and_then(|(mi, ci)| match &history[mi] {
                        Message::Assistant { calls, .. } => calls.get(ci),
                        _ => None,
                    });
                let attr = call
                    .zip(fact)
                    .and_then(|(c, f)| attributable(c, r, &f.class));
                let Some((tool, paths)) = attr else {
                    usage.not_attributable += 1;
                    outcomes[i] = Some("not_attributable");
                    continue;
                };
                let is_read = tool == "read_file";
                let count = |m: &HashMap<String, u32>, p: &String| m.get(p).copied().unwrap_or(0);
                let used = paths.iter().any(|p| {
                    let n = count(&named, p);
                    if is_read {
                        n > count(&named_by_own_read, p)
                    } else {
                        n > 0
                    }
                });
                let reread = !used && is_read && paths.iter().any(|p| count(&reads, p) > 0);
                let entry = usage.per_tool.entry(tool).or_default();
                entry.seen += 1;
                if used {
                    entry.used += 1;
                    outcomes[i] = Some("used");
                } else if reread {
                    entry.reread += 1;
                    outcomes[i] = Some("reread");
                } else {
                    outcomes[i] = Some("unused");
                }
            }
            _ => {}
        }
    }
    (usage, outcomes)
}
