//! Codex's skill listing (spec/skills.md §9.3), from its source (`openai/codex`,
//! `codex-rs/core-skills/src/render.rs` and `render/allocation.rs`): entries
//! `- <name>: <description> (file: <path>)` ordered by scope (system, admin, repo, user), name
//! and path; descriptions capped at 1,024 characters (`...`); a budget of 2% of the context
//! window in tokens (`ceil(bytes / 4)` a line), or 8,000 characters when the window is unknown.
//! Over it, description space is handed out one character at a time across the entries; when
//! even the bare entries do not fit, entries are left out. The path-alias rendering Codex may
//! choose instead when it is shorter is not simulated.

use super::{Fate, Item, Listing, Source, Unit};
use crate::skills::discover::Scope;

pub const MAX_DESC_CHARS: usize = 1024;
pub const DEFAULT_CHAR_BUDGET: u64 = 8000;
pub const WINDOW_PERCENT: u64 = 2;
const SUFFIX: &str = "...";

/// What sets Codex's budget: the model's context window (`model_context_window`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    pub context_window: Option<u64>,
}

impl Budget {
    /// The budget, its unit and how it was computed.
    #[must_use]
    pub fn limit(self) -> (u64, Unit, String) {
        match self.context_window.filter(|w| *w > 0) {
            Some(w) => (
                (w * WINDOW_PERCENT / 100).max(1),
                Unit::Tokens,
                format!("{WINDOW_PERCENT}% of a {w}-token context window"),
            ),
            None => (
                DEFAULT_CHAR_BUDGET,
                Unit::Characters,
                "8000 characters (context window unknown)".to_string(),
            ),
        }
    }
}

fn cost(unit: Unit, chars: usize, bytes: usize) -> u64 {
    match unit {
        Unit::Tokens => bytes.div_ceil(4) as u64,
        _ => chars as u64,
    }
}

fn line_cost(unit: Unit, line: &str) -> u64 {
    cost(unit, line.chars().count() + 1, line.len() + 1)
}

fn rank(s: Scope) -> u8 {
    match s {
        Scope::System => 0,
        Scope::Admin => 1,
        Scope::Project => 2,
        _ => 3,
    }
}

struct Line {
    name: String,
    file: std::path::PathBuf,
    path: String,
    /// The description after the per-entry cap.
    desc: Vec<char>,
    original_chars: usize,
}

impl Line {
    fn render(&self, chars: usize) -> String {
        if chars == 0 {
            format!("- {}: (file: {})", self.name, self.path)
        } else {
            let d: String = self.desc[..chars.min(self.desc.len())].iter().collect();
            format!("- {}: {d} (file: {})", self.name, self.path)
        }
    }
}

fn capped(d: &str) -> Vec<char> {
    let d: Vec<char> = d
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .collect();
    if d.len() <= MAX_DESC_CHARS {
        return d;
    }
    let mut v = d[..MAX_DESC_CHARS - SUFFIX.len()].to_vec();
    v.extend(SUFFIX.chars());
    v
}

/// Characters of description each line gets from `limit` (render/allocation.rs).
fn allocate(unit: Unit, lines: &[Line], limit: u64) -> Vec<usize> {
    let extras: Vec<Vec<u64>> = lines
        .iter()
        .map(|l| {
            let min = l.render(0);
            let (mc, mb) = (min.chars().count() + 1, min.len() + 1);
            let base = cost(unit, mc, mb);
            let mut v = vec![0];
            let (mut pc, mut pb) = (0, 0);
            for c in &l.desc {
                pc += 1;
                pb += c.len_utf8();
                v.push(cost(unit, mc + pc + 1, mb + pb + 1).saturating_sub(base));
            }
            v
        })
        .collect();
    let mut alloc = vec![0usize; lines.len()];
    let mut remaining = limit;
    loop {
        let mut changed = false;
        for (i, e) in extras.iter().enumerate() {
            if alloc[i] >= lines[i].desc.len() {
                continue;
            }
            let delta = e[alloc[i] + 1].saturating_sub(e[alloc[i]]);
            if delta <= remaining {
                alloc[i] += 1;
                remaining -= delta;
                changed = true;
            }
        }
        if !changed {
            return alloc;
        }
    }
}

/// The listing of `sources` (skills that allow implicit invocation).
#[must_use]
pub fn listing(sources: &[Source], budget: Budget) -> Listing {
    let (limit, unit, how) = budget.limit();
    let mut ordered: Vec<&Source> = sources.iter().collect();
    ordered
        .sort_by(|a, b| (rank(a.scope), &a.name, &a.file).cmp(&(rank(b.scope), &b.name, &b.file)));
    let lines: Vec<Line> = ordered
        .iter()
        .map(|s| Line {
            name: s.name.clone(),
            file: s.file.clone(),
            path: s.file.to_string_lossy().replace('\\', "/"),
            desc: capped(&s.description),
            original_chars: s
                .description
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .count(),
        })
        .collect();
    let full_cost: Vec<u64> = lines
        .iter()
        .map(|l| line_cost(unit, &l.render(l.desc.len())))
        .collect();
    let min_cost: Vec<u64> = lines
        .iter()
        .map(|l| line_cost(unit, &l.render(0)))
        .collect();
    let total_full: u64 = full_cost.iter().sum();
    let min_total: u64 = min_cost.iter().sum();
    let chars: Vec<Option<usize>> = if total_full <= limit {
        lines.iter().map(|l| Some(l.desc.len())).collect()
    } else if min_total <= limit {
        allocate(unit, &lines, limit - min_total)
            .into_iter()
            .map(Some)
            .collect()
    } else {
        let mut used = 0;
        min_cost
            .iter()
            .map(|c| {
                (used + c <= limit).then(|| {
                    used += c;
                    0
                })
            })
            .collect()
    };
    let items: Vec<Item> = lines
        .iter()
        .zip(&chars)
        .enumerate()
        .map(|(i, (l, got))| {
            let fate = match got {
                None => Fate::Omitted,
                Some(0) if !l.desc.is_empty() => Fate::Dropped,
                Some(n) if *n < l.original_chars => Fate::Shortened {
                    from: l.original_chars as u64,
                    to: *n as u64,
                },
                Some(_) => Fate::Full,
            };
            let full = l.render(got.unwrap_or(0));
            Item {
                name: l.name.clone(),
                file: Some(l.file.clone()),
                builtin: false,
                fixed: false,
                full_cost: line_cost(unit, &full),
                description: l.desc[..got.unwrap_or(0).min(l.desc.len())]
                    .iter()
                    .collect(),
                name_cost: min_cost[i],
                name_only: l.render(0),
                full,
                fate,
            }
        })
        .collect();
    let total = items.iter().map(Item::cost).sum();
    Listing {
        unit,
        budget: limit as f64,
        budget_source: how,
        total_full,
        total,
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn src(name: &str, desc: &str, scope: Scope) -> Source {
        Source {
            name: name.into(),
            label: None,
            description: desc.into(),
            when_to_use: None,
            scope,
            file: PathBuf::from(format!("/s/{name}/SKILL.md")),
            command: false,
        }
    }

    fn ten(len: usize) -> Vec<Source> {
        (0..10)
            .map(|i| src(&format!("a{i}"), &"x".repeat(len), Scope::User))
            .collect()
    }

    #[test]
    fn description_space_is_shared_one_character_at_a_time() {
        // Each bare entry `- aN: (file: /s/aN/SKILL.md)` is 28 characters + a line break; 8000
        // − 290 = 7710 left, and a description of k characters costs k + 1 (its space).
        let l = listing(&ten(1000), Budget::default());
        assert_eq!(l.unit, Unit::Characters);
        assert_eq!(l.total_full, 10_300);
        assert_eq!(l.total, 8000);
        for i in &l.items {
            assert_eq!(
                i.fate,
                Fate::Shortened {
                    from: 1000,
                    to: 770
                }
            );
        }
        assert_eq!(
            l.items[0].text().unwrap(),
            format!("- a0: {} (file: /s/a0/SKILL.md)", "x".repeat(770))
        );
    }

    #[test]
    fn past_the_bare_entries_whole_entries_are_left_out() {
        // 2% of 1,000 tokens = 20; a bare entry is 29 bytes = 8 tokens: two fit.
        let l = listing(
            &ten(10),
            Budget {
                context_window: Some(1000),
            },
        );
        assert_eq!(l.unit, Unit::Tokens);
        let fates: Vec<Fate> = l.items.iter().map(|i| i.fate).collect();
        assert_eq!(&fates[..2], &[Fate::Dropped, Fate::Dropped]);
        assert!(fates[2..].iter().all(|f| *f == Fate::Omitted));
        assert_eq!(l.total, 16);
    }

    #[test]
    fn cap_order_and_whitespace() {
        let l = listing(
            &[
                src("b-user", "B.", Scope::User),
                src("a-user", &"y".repeat(2000), Scope::User),
                src("z-repo", "Z  \n z.", Scope::Project),
                src("sys", "S.", Scope::System),
            ],
            Budget::default(),
        );
        let names: Vec<&str> = l.items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["sys", "z-repo", "a-user", "b-user"]);
        assert_eq!(
            l.items[1].text().unwrap(),
            "- z-repo: Z z. (file: /s/z-repo/SKILL.md)"
        );
        assert_eq!(
            l.items[2].fate,
            Fate::Shortened {
                from: 2000,
                to: 1024
            }
        );
        assert!(
            l.items[2]
                .full
                .contains(&format!("{}... (file:", "y".repeat(1021)))
        );
    }
}
