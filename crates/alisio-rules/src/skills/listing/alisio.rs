//! Host `alisio`'s catalog as a listing (spec/skills.md §4.1): the compact JSON of the listed
//! entries, all or nothing: past 24,000 characters the model gets only the collapsed line and
//! finds skills with `skill_search`.

use super::{Fate, Item, Listing, Unit};
use crate::skills::catalog::{CATALOG_MAX_CHARS, CatalogSkill, catalog_json, listed};

#[must_use]
pub fn listing(entries: &[CatalogSkill]) -> Listing {
    let list = listed(entries);
    let total_full = catalog_json(entries).chars().count() as u64;
    let collapsed = total_full > CATALOG_MAX_CHARS as u64;
    let items: Vec<Item> = list
        .iter()
        .map(|e| {
            let full =
                serde_json::json!({"name": e.name, "description": e.description}).to_string();
            let cost = full.chars().count() as u64;
            Item {
                name: e.display_id.clone(),
                file: Some(e.file.clone()),
                builtin: false,
                fixed: false,
                name_only: String::new(),
                description: e.description.clone(),
                full_cost: cost,
                name_cost: 0,
                fate: if collapsed { Fate::Omitted } else { Fate::Full },
                full,
            }
        })
        .collect();
    Listing {
        postamble: Vec::new(),
        preamble: Vec::new(),
        unit: Unit::Characters,
        budget: CATALOG_MAX_CHARS as f64,
        budget_source: "the catalog collapses past 24000 characters of JSON".to_string(),
        total_full,
        total: if collapsed { 0 } else { total_full },
        items,
    }
}
