//! Codex's skill listing (spec/skills.md §9.3), measured on the pinned Codex CLI 0.171.0
//! (`tests/real/skills.rs`) and read against its source (`openai/codex`,
//! `codex-rs/core-skills/src/render.rs`): a skill roots table (`- \`rN\` = \`<root>\``, the
//! roots that hold a listed skill: user, system, admin, then the repo roots from the project
//! root down) and entries `- <name>: <description> (file: rN/<path in the root>)` ordered by
//! scope (system, admin, repo, user), name and absolute path; descriptions capped at 1,024
//! characters (`...`); a budget of 2% of the context window in tokens (`ceil(bytes / 4)` a
//! line; the roots table is not charged), the window being `model_context_window` or 272,000
//! for a model Codex has no window for. Over it, description space is handed out one character
//! at a time across the entries; when even the bare entries do not fit, entries are left out.

use super::{Fate, Item, Listing, ListingSource, Unit};
use crate::skills::discover::SkillScope;
use std::path::{Path, PathBuf};

pub const MAX_DESC_CHARS: usize = 1024;
pub const WINDOW_PERCENT: u64 = 2;
/// The window Codex 0.171.0 assumes for a model it has no window for (measured: a budget of
/// 5,440 tokens for the fake model).
pub const DEFAULT_WINDOW: u64 = 272_000;
const SUFFIX: &str = "...";

/// Where the context window came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WindowFrom {
    /// `--context-window`.
    #[default]
    CommandLine,
    /// `model_context_window` in `$CODEX_HOME/config.toml`.
    Config,
}

/// What sets Codex's budget: the model's context window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodexBudget {
    pub context_window: Option<u64>,
    pub from: WindowFrom,
}

impl CodexBudget {
    /// The budget, its unit and how it was computed.
    #[must_use]
    pub fn limit(self) -> (u64, Unit, String) {
        let (w, how) = match (self.context_window.filter(|w| *w > 0), self.from) {
            (Some(w), WindowFrom::CommandLine) => (w, format!("a {w}-token context window")),
            (Some(w), WindowFrom::Config) => (
                w,
                format!("a {w}-token context window, model_context_window in config.toml"),
            ),
            (None, _) => (
                DEFAULT_WINDOW,
                format!("a {DEFAULT_WINDOW}-token context window, Codex's default"),
            ),
        };
        (
            (w * WINDOW_PERCENT / 100).max(1),
            Unit::Tokens,
            format!("{WINDOW_PERCENT}% of {how}"),
        )
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

fn rank(s: SkillScope) -> u8 {
    match s {
        SkillScope::System => 0,
        SkillScope::Admin => 1,
        SkillScope::Project => 2,
        _ => 3,
    }
}

struct Line {
    name: String,
    file: PathBuf,
    path: String,
    /// The description after the per-entry cap.
    description: Vec<char>,
    original_chars: usize,
}

impl Line {
    fn render(&self, chars: usize) -> String {
        if chars == 0 {
            format!("- {}: (file: {})", self.name, self.path)
        } else {
            let d: String = self.description[..chars.min(self.description.len())]
                .iter()
                .collect();
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
            for c in &l.description {
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
            if alloc[i] >= lines[i].description.len() {
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

fn slashed(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// The roots table: the roots of `roots` (in Codex's order) that hold one of `sources`, each
/// with its alias `rN`.
fn aliases<'a>(roots: &'a [PathBuf], sources: &[ListingSource]) -> Vec<(&'a Path, String)> {
    roots
        .iter()
        .filter(|r| sources.iter().any(|s| s.root == **r))
        .enumerate()
        .map(|(i, r)| (r.as_path(), format!("r{i}")))
        .collect()
}

/// The path an entry shows: `rN/<path in its root>`, or the absolute path outside every root.
fn shown_path(s: &ListingSource, table: &[(&Path, String)]) -> String {
    table
        .iter()
        .find(|(r, _)| *r == s.root)
        .and_then(|(r, a)| Some(format!("{a}/{}", slashed(s.file.strip_prefix(r).ok()?))))
        .unwrap_or_else(|| slashed(&s.file))
}

/// The listing of `sources` (skills that allow implicit invocation); `roots` are Codex's skill
/// roots in its order (user, system, admin, repo from the project root down).
#[must_use]
pub fn listing(sources: &[ListingSource], roots: &[PathBuf], budget: CodexBudget) -> Listing {
    let (limit, unit, how) = budget.limit();
    let table = aliases(roots, sources);
    let mut ordered: Vec<&ListingSource> = sources.iter().collect();
    ordered
        .sort_by(|a, b| (rank(a.scope), &a.name, &a.file).cmp(&(rank(b.scope), &b.name, &b.file)));
    let lines: Vec<Line> = ordered
        .iter()
        .map(|s| Line {
            name: s.name.clone(),
            file: s.file.clone(),
            path: shown_path(s, &table),
            description: capped(&s.description),
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
        .map(|l| line_cost(unit, &l.render(l.description.len())))
        .collect();
    let min_cost: Vec<u64> = lines
        .iter()
        .map(|l| line_cost(unit, &l.render(0)))
        .collect();
    let total_full: u64 = full_cost.iter().sum();
    let min_total: u64 = min_cost.iter().sum();
    let chars: Vec<Option<usize>> = if total_full <= limit {
        lines.iter().map(|l| Some(l.description.len())).collect()
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
                Some(0) if !l.description.is_empty() => Fate::Dropped,
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
                description: l.description[..got.unwrap_or(0).min(l.description.len())]
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
        postamble: Vec::new(),
        preamble: table
            .iter()
            .map(|(r, a)| format!("- `{a}` = `{}`", slashed(r)))
            .collect(),
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

    fn src(name: &str, desc: &str, scope: SkillScope) -> ListingSource {
        ListingSource {
            name: name.into(),
            label: None,
            description: desc.into(),
            when_to_use: None,
            scope,
            file: PathBuf::from(format!("/s/{name}/SKILL.md")),
            root: PathBuf::from("/s"),
            command: false,
        }
    }

    fn ten(len: usize) -> Vec<ListingSource> {
        (0..10)
            .map(|i| src(&format!("a{i}"), &"x".repeat(len), SkillScope::User))
            .collect()
    }

    fn window(w: u64) -> CodexBudget {
        CodexBudget {
            context_window: Some(w),
            from: WindowFrom::CommandLine,
        }
    }

    #[test]
    fn description_space_is_shared_one_character_at_a_time() {
        // 2% of 100,000 = 2,000 tokens. Each bare entry `- aN: (file: r0/aN/SKILL.md)` and its
        // line break are 29 bytes = 8 tokens: 1,920 left, and a description of k characters
        // makes the line ceil((30 + k) / 4) tokens: 200 at most for k = 770.
        let l = listing(&ten(1000), &[PathBuf::from("/s")], window(100_000));
        assert_eq!(l.unit, Unit::Tokens);
        assert_eq!(l.budget, 2000.0);
        assert_eq!(l.total_full, 2580);
        assert_eq!(l.total, 2000);
        assert_eq!(l.preamble, ["- `r0` = `/s`"]);
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
            format!("- a0: {} (file: r0/a0/SKILL.md)", "x".repeat(770))
        );
    }

    #[test]
    fn past_the_bare_entries_whole_entries_are_left_out() {
        // 2% of 1,000 tokens = 20; a bare entry is 29 bytes = 8 tokens: two fit.
        let l = listing(&ten(10), &[PathBuf::from("/s")], window(1000));
        let fates: Vec<Fate> = l.items.iter().map(|i| i.fate).collect();
        assert_eq!(&fates[..2], &[Fate::Dropped, Fate::Dropped]);
        assert!(fates[2..].iter().all(|f| *f == Fate::Omitted));
        assert_eq!(l.total, 16);
    }

    #[test]
    fn the_default_window_is_272000_tokens() {
        let (limit, unit, how) = CodexBudget::default().limit();
        assert_eq!((limit, unit), (5440, Unit::Tokens));
        assert_eq!(how, "2% of a 272000-token context window, Codex's default");
    }

    #[test]
    fn cap_order_and_whitespace() {
        let l = listing(
            &[
                src("b-user", "B.", SkillScope::User),
                src("a-user", &"y".repeat(2000), SkillScope::User),
                src("z-repo", "Z  \n z.", SkillScope::Project),
                src("sys", "S.", SkillScope::System),
            ],
            &[PathBuf::from("/s")],
            CodexBudget::default(),
        );
        let names: Vec<&str> = l.items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["sys", "z-repo", "a-user", "b-user"]);
        assert_eq!(
            l.items[1].text().unwrap(),
            "- z-repo: Z z. (file: r0/z-repo/SKILL.md)"
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

    #[test]
    fn only_roots_that_hold_a_skill_get_an_alias() {
        let mut outside = src("loose", "L.", SkillScope::User);
        outside.root = PathBuf::from("/elsewhere");
        outside.file = PathBuf::from("/plugins/loose/SKILL.md");
        let mut repo = src("r", "R.", SkillScope::Project);
        repo.root = PathBuf::from("/ws/.agents/skills");
        repo.file = PathBuf::from("/ws/.agents/skills/deep/r/SKILL.md");
        let roots = [
            PathBuf::from("/home/.codex/skills"),
            PathBuf::from("/s"),
            PathBuf::from("/ws/.agents/skills"),
        ];
        let l = listing(
            &[repo, src("u", "U.", SkillScope::User), outside],
            &roots,
            CodexBudget::default(),
        );
        assert_eq!(
            l.preamble,
            ["- `r0` = `/s`", "- `r1` = `/ws/.agents/skills`"]
        );
        let texts: Vec<&str> = l.items.iter().filter_map(Item::text).collect();
        assert_eq!(
            texts,
            [
                "- r: R. (file: r1/deep/r/SKILL.md)",
                "- loose: L. (file: /plugins/loose/SKILL.md)",
                "- u: U. (file: r0/u/SKILL.md)",
            ]
        );
    }
}
