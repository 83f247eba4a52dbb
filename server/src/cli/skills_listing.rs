//! `alisio-ls skills list --listing` (spec/skills.md §9): the skill listing the chosen host sends
//! its model, entry by entry, with the budget and what set it.

use std::path::Path;

use super::{Ctx, Exit, Failure, out};
use alisio_rules::skills::listing::{self, Fate, Listing, settings::Overrides};

/// The settings that change a host's listing budget.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct BudgetArgs {
    /// The model the host runs (Claude Code: decides bytes per token and the default window).
    #[arg(long)]
    pub model: Option<String>,
    /// The model's context window in tokens.
    #[arg(long, value_name = "TOKENS")]
    pub context_window: Option<u64>,
}

impl BudgetArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            model: self.model.clone(),
            context_window: self.context_window,
        }
    }
}

pub fn list(ctx: &Ctx, vantage: &Path, b: &BudgetArgs) -> Result<Exit, Failure> {
    let host = ctx.args.host;
    let Some((_, l)) = listing::for_host(&ctx.fs, ctx.skill_input(), vantage, host, &b.overrides())
    else {
        return Err(Failure(listing::not_simulated(host)));
    };
    if ctx.args.json {
        let show = |p: &Path| ctx.display(p);
        out(&format!("{}\n", listing::listing_json(host, &l, &show)));
    } else {
        out(&human(ctx, host.as_str(), &l));
    }
    Ok(Exit::Ok)
}

fn human(ctx: &Ctx, host: &str, l: &Listing) -> String {
    let unit = l.unit.as_str();
    let with = l
        .items
        .iter()
        .filter(|i| matches!(i.fate, Fate::Full | Fate::Shortened { .. }))
        .count();
    let budget = if l.budget.is_finite() {
        format!("{} of {} {unit}", l.total, l.budget)
    } else {
        format!("{} {unit}", l.total)
    };
    let mut s = format!(
        "{host} skill listing: {} entries, {with} with a description; {budget} ({})\n",
        l.items.len(),
        l.budget_source
    );
    for p in &l.preamble {
        s.push_str(&format!("  {p}\n"));
    }
    if l.over_by() > 0 {
        s.push_str(&format!(
            "the full listing needs {} {unit}: {} over the budget\n",
            l.total_full,
            l.over_by()
        ));
    }
    for i in &l.items {
        let (mark, status) = match i.fate {
            Fate::Full => ("✔", "full".to_string()),
            Fate::Shortened { from, to } => ("✂", format!("shortened {from} → {to}")),
            Fate::Dropped => ("✗", "description dropped".to_string()),
            Fate::Omitted => ("✗", "not listed".to_string()),
        };
        let place = match &i.file {
            Some(f) => ctx.display(f),
            None => format!("{host}'s own"),
        };
        s.push_str(&format!(
            "{mark} {:<28} {:<24} {:>6} {unit}  {place}\n",
            i.name,
            status,
            i.cost()
        ));
    }
    for p in &l.postamble {
        s.push_str(&format!("  {p}\n"));
    }
    s
}
