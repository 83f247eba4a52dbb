//! `alisio-ls rules [ID]`: the rule catalogue (spec/rules.md §3), read from
//! `alisio_base::rules`; `--markdown` prints docs/rules.md.

use std::fmt::Write as _;

use alisio_base::diagnostic::Code;
use alisio_base::rules::{self, Example, Rule};
use serde_json::Value;

use super::{Exit, Failure, out};

#[derive(clap::Args, Debug)]
pub struct RulesArgs {
    /// A rule id: explain that rule, with a bad and a good example.
    pub id: Option<String>,
    /// Print the generated docs/rules.md instead.
    #[arg(long, conflicts_with = "id")]
    pub markdown: bool,
}

fn example(title: &str, e: &Example, s: &mut String) {
    if e.files.is_empty() {
        let _ = writeln!(s, "\n{title}: {}", e.note);
        return;
    }
    let args = if e.args.is_empty() {
        String::new()
    } else {
        format!(" (check {})", e.args.join(" "))
    };
    let _ = writeln!(s, "\n{title}{args}:");
    for (path, text) in e.files {
        let _ = writeln!(s, "  {path}:");
        for line in text.lines() {
            let _ = writeln!(s, "  | {line}");
        }
    }
}

fn explain(r: &Rule) -> String {
    let mut s = format!("{}: {}\n", r.code.as_str(), r.summary);
    let _ = writeln!(s, "files: {}", r.files);
    let _ = writeln!(s, "hosts: {}", r.hosts.join(", "));
    if !r.profiles.is_empty() {
        let _ = writeln!(s, "profiles: {}", r.profiles.join(", "));
    }
    let _ = writeln!(
        s,
        "default severity: {}; tier: {}; fix: {}",
        r.severity.as_str(),
        r.tier.as_str(),
        r.fix.as_str()
    );
    let _ = writeln!(s, "evidence: {}", r.evidence);
    example("bad", &r.bad, &mut s);
    example("good", &r.good, &mut s);
    s
}

fn table(all: &[&Rule]) -> String {
    let w = all.iter().map(|r| r.code.as_str().len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in all {
        let _ = writeln!(
            s,
            "{:w$}  {:11}  {:11}  {:6}  {}",
            r.code.as_str(),
            r.severity.as_str(),
            r.tier.as_str(),
            r.fix.as_str(),
            r.summary
        );
    }
    let _ = writeln!(s, "{} rules", all.len());
    s
}

pub fn run(json: bool, args: &RulesArgs) -> Result<Exit, Failure> {
    if args.markdown {
        out(&rules::markdown());
        return Ok(Exit::Ok);
    }
    let all = rules::all();
    match &args.id {
        None if json => {
            let v = Value::Array(all.iter().map(|r| r.to_json()).collect());
            out(&format!("{v}\n"));
        }
        None => out(&table(&all)),
        Some(id) => {
            let r = Code::parse(id).and_then(rules::get).ok_or_else(|| {
                Failure(format!(
                    "unknown rule \"{id}\"; `alisio-ls rules` lists them"
                ))
            })?;
            if json {
                out(&format!("{}\n", r.to_json()));
            } else {
                out(&explain(r));
            }
        }
    }
    Ok(Exit::Ok)
}
