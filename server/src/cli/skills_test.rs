//! `alisio-ls skills test [PATH...]` (spec/skills.md §10): the offline trigger lab. Each skill's
//! `evals/triggers.json` is routed over the catalog as each simulated host lists it.

use std::path::{Path, PathBuf};

use super::skills_listing::BudgetArgs;
use super::{Ctx, Exit, Failure, out};
use alisio_base::workspace::{FileType, Fs as _};
use alisio_rules::skills::triggers::{self, EVALS_FILE, HostResult, lab};

/// The SKILL.md files to test: the PATHs (a SKILL.md, a skill directory, or a directory searched
/// for skills with an eval file), else every skill of the hosts' listings that has one.
fn targets(ctx: &Ctx, paths: &[PathBuf], listed: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    if paths.is_empty() {
        return Ok(listed
            .iter()
            .filter(|f| has_evals(ctx, f))
            .cloned()
            .collect());
    }
    let mut v = Vec::new();
    for p in paths {
        let abs = ctx.resolve(p);
        let canon = ctx
            .fs
            .canonicalize(&abs)
            .map_err(|_| Failure(format!("{}: no such file or directory", p.display())))?;
        let meta = ctx
            .fs
            .metadata(&canon)
            .map_err(|e| Failure(format!("{}: {e}", p.display())))?;
        if meta.file_type != FileType::Dir {
            if canon.file_name().is_some_and(|n| n == "SKILL.md") {
                v.push(canon);
                continue;
            }
            return Err(Failure(format!("{}: not a SKILL.md file", p.display())));
        }
        if ctx.fs.metadata(&canon.join("SKILL.md")).is_ok() {
            v.push(canon.join("SKILL.md"));
            continue;
        }
        let found: Vec<PathBuf> = listed
            .iter()
            .filter(|f| f.starts_with(&canon) && has_evals(ctx, f))
            .cloned()
            .collect();
        if found.is_empty() {
            return Err(Failure(format!(
                "{}: no listed skill with {EVALS_FILE} below it",
                p.display()
            )));
        }
        v.extend(found);
    }
    v.sort();
    v.dedup();
    Ok(v)
}

fn has_evals(ctx: &Ctx, skill: &Path) -> bool {
    lab::has_evals(&ctx.fs, skill)
}

pub fn run(
    ctx: &Ctx,
    paths: &[PathBuf],
    b: &BudgetArgs,
    live: &super::skills_live::LiveArgs,
) -> Result<Exit, Failure> {
    let o = b.overrides();
    let catalogs = lab::catalogs(&ctx.fs, ctx.skill_input(), &ctx.cwd, &o);
    let all_files = lab::listed_files(&catalogs);
    let skills = targets(ctx, paths, &all_files)?;
    if skills.is_empty() {
        return Err(Failure(format!(
            "no skill has an {EVALS_FILE} file; write one beside a SKILL.md (spec/skills.md §10.1)"
        )));
    }
    let show = |p: &Path| ctx.display(p);
    if live.live {
        let evals = skills
            .iter()
            .map(|s| lab::read_evals(&ctx.fs, s, &show))
            .collect::<Result<Vec<_>, _>>()
            .map_err(Failure)?;
        return super::skills_live::run(ctx, &evals, b, live);
    }
    let results = lab::run_all(&ctx.fs, &catalogs, &skills, &show).map_err(Failure)?;
    if ctx.args.json {
        let v: Vec<serde_json::Value> = results
            .iter()
            .map(|r| triggers::result_json(r, &show))
            .collect();
        out(&format!("{}\n", serde_json::Value::Array(v)));
    } else {
        out(&human(&results));
    }
    let missed = results.iter().any(|r| !r.misses.is_empty());
    Ok(if missed { Exit::Findings } else { Exit::Ok })
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |x| format!("{:.1}%", x * 100.0))
}

fn human(results: &[HostResult]) -> String {
    let mut s = String::new();
    for r in results {
        s.push_str(&format!("{}:\n", r.host));
        for k in &r.scores {
            let listed = if k.listed { "" } else { " (not listed)" };
            s.push_str(&format!(
                "  {:<28} precision {:>6}  recall {:>6}  (tp {} fp {} fn {}){listed}\n",
                k.name,
                pct(k.precision()),
                pct(k.recall()),
                k.true_positives,
                k.false_positives,
                k.false_negatives
            ));
        }
        for m in &r.misses {
            let to = m.routed.as_deref().unwrap_or(triggers::NONE);
            s.push_str(&format!(
                "  ✗ {}: \"{}\" went to {to} (expected {})\n",
                m.skill, m.prompt, m.expected
            ));
        }
    }
    s
}
