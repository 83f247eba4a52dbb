//! The human rendering of a ContextReport as JSON (`sessions report ID`): the summary and the
//! segment table of `governor analyze`, plus a table per tool: calls, result tokens, elided
//! results and tokens saved (from the segments), and the usage heuristic of spec/governor.md §8
//! (`seen`, `used`, `reread`) when the report has it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

#[derive(Default)]
struct PerTool {
    calls: u64,
    result_tokens: u64,
    elided: u64,
    saved: u64,
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// The report as text, one block; `r` is the JSON of interfaces.md's ContextReport.
#[must_use]
pub fn render(r: &Value) -> String {
    let mut t = format!("session {}\n", s(&r["sessionId"]));
    if r["measured"] == Value::Bool(false) {
        t.push_str("  governor off: nothing measured\n");
        return t;
    }
    let tt = &r["totals"];
    let before = n(&tt["tokensBefore"]);
    let pct = if before == 0 {
        0.0
    } else {
        n(&tt["tokensSaved"]) as f64 * 100.0 / before as f64
    };
    // Every reason the report carries, in its order (spec/governor.md §6.4).
    let reasons: Vec<String> = tt["byReason"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k} {}", n(v)))
        .collect();
    let _ = writeln!(
        t,
        "  {} messages, {} elided ({}); tokens {} -> {} (saved {}, {pct:.1}%)",
        n(&r["messages"]),
        n(&tt["elided"]),
        reasons.join(", "),
        before,
        n(&tt["tokensAfter"]),
        n(&tt["tokensSaved"]),
    );
    let c = &tt["byCriticality"];
    let _ = writeln!(
        t,
        "  mode {}, policy v{}, eligible {}, compacted {}, segments {} ({} omitted from the list), criticality pinned {} high {} normal {} low {}",
        s(&r["mode"]),
        n(&r["policyVersion"]),
        n(&r["eligibleMessages"]),
        r["compacted"] == Value::Bool(true),
        n(&tt["segments"]),
        n(&r["segmentsOmitted"]),
        n(&c["pinned"]),
        n(&c["high"]),
        n(&c["normal"]),
        n(&c["low"]),
    );
    // The live replay (spec/governor.md §11.8) and the recorded bill (§11.11).
    if let Some(rp) = r.get("replay").filter(|v| v.is_object()) {
        let _ = writeln!(
            t,
            "{}",
            alisio_governor::replay::summary_line(rp).trim_start_matches('\n')
        );
        if let Ok(b) = serde_json::from_value(rp["recorded"].clone()) {
            let _ = writeln!(t, "  {}", alisio_governor::recorded::live_line(&b));
        }
    }
    tools_table(&mut t, r);
    segments_table(&mut t, r);
    t
}

fn tools_table(t: &mut String, r: &Value) {
    let mut tools: BTreeMap<String, PerTool> = BTreeMap::new();
    for x in r["segments"].as_array().into_iter().flatten() {
        let Some(name) = x["tool"].as_str() else {
            continue;
        };
        let e = tools.entry(name.to_owned()).or_default();
        match s(&x["kind"]) {
            "tool_call" => e.calls += 1,
            "tool_result" => {
                e.result_tokens += n(&x["tokens"]);
                if x["elided"].is_object() {
                    e.elided += 1;
                    e.saved += n(&x["elided"]["tokensSaved"]);
                }
            }
            _ => {}
        }
    }
    let usage = r["usage"]["perTool"].as_object();
    for name in usage.into_iter().flat_map(|u| u.keys()) {
        tools.entry(name.clone()).or_default();
    }
    if tools.is_empty() {
        return;
    }
    let _ = writeln!(
        t,
        "\n  {:<16} {:>5} {:>13} {:>6} {:>7} {:>5} {:>5} {:>6}",
        "tool", "calls", "result tokens", "elided", "saved", "seen", "used", "reread"
    );
    for (name, p) in &tools {
        let u = usage.and_then(|u| u.get(name));
        let col = |k: &str| u.map_or("-".to_owned(), |u| n(&u[k]).to_string());
        let _ = writeln!(
            t,
            "  {:<16} {:>5} {:>13} {:>6} {:>7} {:>5} {:>5} {:>6}",
            name,
            p.calls,
            p.result_tokens,
            p.elided,
            p.saved,
            col("seen"),
            col("used"),
            col("reread")
        );
    }
    if let Some(na) = r["usage"]["notAttributable"].as_u64() {
        let _ = writeln!(t, "  results not attributable to a tool: {na}");
    }
}

fn segments_table(t: &mut String, r: &Value) {
    let rows: Vec<&Value> = r["segments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|x| matches!(s(&x["criticality"]), "pinned" | "low") || x["elided"].is_object())
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        t,
        "\n  {:>6}  {:<12} {:<8} {:<22} {:>7}  origin",
        "index", "kind", "crit", "reason", "tokens"
    );
    for x in rows {
        let e = &x["elided"];
        let extra = if e.is_object() {
            format!(
                "  [{} by {}, saves {}]",
                s(&e["reason"]),
                s(&e["by"]),
                n(&e["tokensSaved"])
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "  {:>6}  {:<12} {:<8} {:<22} {:>7}  {}{extra}",
            n(&x["index"]),
            s(&x["kind"]),
            s(&x["criticality"]),
            s(&x["reason"]),
            n(&x["tokens"]),
            s(&x["origin"])
        );
    }
}
