//! Claude Code's skill listing (spec/skills.md §9.2), as the pinned client builds the
//! `skill_listing` attachment: entries `- <name>: <description>` joined by line breaks, personal
//! skills then project skills (each sorted by `localeCompare`), then the client's own bundled
//! entries; measured in terminal display width; past the budget, descriptions are removed whole,
//! first come first kept.

use super::{Fate, Item, Listing, ListingSource, Unit, collate, width};
use crate::skills::discover::SkillScope;

/// The client version these figures were measured on (tests/conformance, `listing_claude`).
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";
/// Per-entry cap on the description (`skillListingMaxDescChars`), in UTF-16 units.
pub const MAX_DESC_CHARS: u64 = 1536;
/// `skillListingBudgetFraction`'s default.
pub const BUDGET_FRACTION: f64 = 0.01;
/// The context window Claude Code assumes when the model's is unknown.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// The entries Claude Code 2.1.332 adds itself, after the user's skills: name, display width of
/// the whole entry, and whether it is fixed (a bundled skill, never shortened). Measured from
/// the real client's listing with an empty skill directory; only the figures are kept.
pub const BUILTINS: [(&str, u64, bool); 13] = [
    ("dataviz", 1447, true),
    ("update-config", 707, true),
    ("keybindings-help", 248, true),
    ("code-review", 850, true),
    ("simplify", 188, true),
    ("fewer-permission-prompts", 191, true),
    ("loop", 344, true),
    ("claude-api", 1169, true),
    ("workflow-authoring", 252, true),
    ("run", 368, true),
    ("plugin-authoring", 275, true),
    ("init", 67, false),
    ("security-review", 90, false),
];

/// Models whose tokens Claude Code counts as 4 bytes (all others: 3).
const FOUR_BYTE_MODELS: [&str; 14] = [
    "claude-3-opus",
    "claude-3-sonnet",
    "claude-3-haiku",
    "claude-3-5-sonnet",
    "claude-3-5-haiku",
    "claude-3-7-sonnet",
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-sonnet-4-0",
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
];

/// What sets Claude Code's budget.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaudeBudget {
    /// The model (`--model`); decides bytes per token and, when no window is given, the window.
    pub model: Option<String>,
    /// The model's context window in tokens.
    pub context_window: Option<u64>,
    /// `skillListingBudgetFraction` from Claude Code's settings.
    pub fraction: Option<f64>,
    /// `skillListingMaxDescChars` from Claude Code's settings.
    pub max_description_chars: Option<u64>,
    /// `SLASH_COMMAND_TOOL_CHAR_BUDGET` as set in the environment.
    pub env_budget: Option<String>,
}

impl ClaudeBudget {
    fn four_bytes(&self) -> bool {
        self.model.as_deref().is_some_and(|m| {
            let m = m.to_ascii_lowercase().replace(['.', '_'], "-");
            let m = m.split('[').next().unwrap_or(&m);
            FOUR_BYTE_MODELS
                .iter()
                .any(|k| m == *k || m.starts_with(&format!("{k}-")))
        })
    }

    /// The context window: the configured one; else 200,000 for the models counted at 4 bytes
    /// a token and 1,000,000 for the newer default model (claude-opus-5-5 in 2.1.332).
    #[must_use]
    pub fn window(&self) -> u64 {
        self.context_window.unwrap_or(if self.four_bytes() {
            DEFAULT_CONTEXT_WINDOW
        } else {
            1_000_000
        })
    }

    /// Bytes per token of the model (4 or 3).
    #[must_use]
    pub fn bytes_per_token(&self) -> u64 {
        if self.four_bytes() { 4 } else { 3 }
    }

    /// The budget in display columns and how it was computed.
    #[must_use]
    pub fn limit(&self) -> (f64, String) {
        if let Some(v) = self.env_budget.as_deref().and_then(parse_number) {
            return (v, "SLASH_COMMAND_TOOL_CHAR_BUDGET".to_string());
        }
        let fraction = self.fraction.unwrap_or(BUDGET_FRACTION);
        let (w, b) = (self.window(), self.bytes_per_token());
        let v = ((w * b) as f64 * fraction).floor().max(1.0);
        (
            v,
            format!("{w} tokens × {b} bytes × skillListingBudgetFraction {fraction}"),
        )
    }
}

/// `Number(value)` as Claude Code reads the variable; 0, empty and non-numbers do not count.
fn parse_number(v: &str) -> Option<f64> {
    let t = v.trim();
    let n = if t.is_empty() {
        0.0
    } else {
        t.parse::<f64>()
            .ok()
            .or_else(|| t.replace(',', "").parse::<f64>().ok())?
    };
    (n != 0.0 && n.is_finite()).then_some(n)
}

/// The first `n` UTF-16 units of `s` (never splitting a character).
fn utf16_prefix(s: &str, n: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        units += c.len_utf16();
        if units > n {
            return &s[..i];
        }
    }
    s
}

/// The description Claude Code lists: `description` (line breaks and tabs as spaces, trimmed),
/// then ` - <when_to_use>`, cut to the cap with `…`.
fn listed_description(s: &ListingSource, cap: u64) -> (String, Option<usize>) {
    let clean = |t: &str| t.replace(['\n', '\r', '\t'], " ").trim().to_string();
    let mut d = clean(&s.description);
    if let Some(w) = s.when_to_use.as_deref().filter(|w| !w.trim().is_empty()) {
        d = format!("{d} - {}", clean(w));
    }
    let units = d.encode_utf16().count();
    if units as u64 > cap {
        let cut = utf16_prefix(&d, cap.saturating_sub(1) as usize);
        let cut = format!("{cut}…");
        (cut, Some(units))
    } else {
        (d, None)
    }
}

/// The listing of `sources` (the effective, model-invocable skills Claude Code loads).
#[must_use]
pub fn listing(sources: &[ListingSource], budget: &ClaudeBudget) -> Listing {
    let (limit, how) = budget.limit();
    let cap = budget.max_description_chars.unwrap_or(MAX_DESC_CHARS);
    let mut ordered: Vec<&ListingSource> = sources.iter().collect();
    // Personal skills first, then project ones, then the commands (one group, measured:
    // spec/instructions.md §10.2); each group in localeCompare order.
    ordered.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| collate::compare(&a.name, &b.name))
    });
    let mut items: Vec<Item> = Vec::new();
    for s in &ordered {
        let shown = match s.label.as_deref() {
            Some(l) if l != s.name && !sources.iter().any(|o| o.name == l) => {
                format!("{} ({l})", s.name)
            }
            _ => s.name.clone(),
        };
        let (desc, cut_from) = listed_description(s, cap);
        let full = format!("- {shown}: {desc}");
        let name_only = format!("- {shown}");
        items.push(Item {
            name: s.name.clone(),
            file: Some(s.file.clone()),
            builtin: false,
            fixed: false,
            full_cost: width::width(&full) as u64,
            name_cost: width::width(&name_only) as u64,
            fate: match cut_from {
                Some(from) => Fate::Shortened {
                    from: from as u64,
                    to: cap,
                },
                None => Fate::Full,
            },
            full,
            name_only,
            description: desc,
        });
    }
    for (name, w, fixed) in BUILTINS {
        let name_only = format!("- {name}");
        items.push(Item {
            name: name.to_string(),
            file: None,
            builtin: true,
            fixed,
            full_cost: w,
            name_cost: width::width(&name_only) as u64,
            fate: Fate::Full,
            full: String::new(),
            name_only,
            description: String::new(),
        });
    }
    let n = items.len() as u64;
    let total_full = items.iter().map(|i| i.full_cost).sum::<u64>() + n.saturating_sub(1);
    if total_full as f64 > limit {
        let base = items
            .iter()
            .map(|i| if i.fixed { i.full_cost } else { i.name_cost })
            .sum::<u64>()
            + n.saturating_sub(1);
        let mut left = limit - base as f64;
        // A fresh profile: every skill has the same use count, so the stable sort keeps the
        // listing order and the first skills keep their descriptions.
        for i in items.iter_mut().filter(|i| !i.fixed) {
            let extra = (i.full_cost - i.name_cost) as f64;
            if extra <= left {
                left -= extra;
            } else {
                i.fate = Fate::Dropped;
            }
        }
    }
    let total = items.iter().map(Item::cost).sum::<u64>() + n.saturating_sub(1);
    Listing {
        postamble: Vec::new(),
        preamble: Vec::new(),
        unit: Unit::Columns,
        budget: limit,
        budget_source: how,
        total_full,
        total,
        items,
    }
}

/// The listing group: personal skills, project skills, then every command.
fn rank(s: &ListingSource) -> u8 {
    if s.command { 3 } else { group(s.scope) }
}

fn group(s: SkillScope) -> u8 {
    match s {
        SkillScope::User => 0,
        SkillScope::Project => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn src(name: &str, desc: &str, scope: SkillScope) -> ListingSource {
        ListingSource {
            name: name.into(),
            label: None,
            description: desc.into(),
            when_to_use: None,
            scope,
            file: PathBuf::from(format!("/h/.claude/skills/{name}/SKILL.md")),
            root: PathBuf::from("/s"),
            command: false,
        }
    }

    fn env(b: &str) -> ClaudeBudget {
        ClaudeBudget {
            model: None,
            context_window: None,
            fraction: None,
            max_description_chars: None,
            env_budget: Some(b.into()),
        }
    }

    #[test]
    fn the_budget_threshold_the_real_client_showed() {
        // Claude Code 2.1.332 kept abc's description at SLASH_COMMAND_TOOL_CHAR_BUDGET=6132 and
        // dropped it at 6131 (bisected offline, docs/skills.md): 6039 columns of fixed bundled
        // entries, three names and 13 line breaks leave exactly 52 for abc's description.
        let s = [src("abc", &"x".repeat(50), SkillScope::User)];
        let kept = listing(&s, &env("6132"));
        assert_eq!(kept.items[0].fate, Fate::Full);
        assert_eq!(kept.items[0].full, format!("- abc: {}", "x".repeat(50)));
        assert_eq!(kept.total_full, 6266);
        assert_eq!(kept.total, 6132);
        assert_eq!(
            kept.items[12].fate,
            Fate::Dropped,
            "init loses its description"
        );
        let dropped = listing(&s, &env("6131"));
        assert_eq!(dropped.items[0].fate, Fate::Dropped);
        assert_eq!(dropped.items[0].text(), Some("- abc"));
        assert_eq!(dropped.total, 6080);
        assert_eq!(dropped.over_by(), 135);
        assert_eq!(listing(&s, &env("6266")).items[12].fate, Fate::Full);
    }

    #[test]
    fn budgets_per_model_fraction_and_variable() {
        let mut b = env("");
        assert_eq!(
            b.limit().0,
            30_000.0,
            "the default model: 1,000,000 × 3 × 1%"
        );
        b.model = Some("claude-sonnet-4-5".into());
        assert_eq!(b.limit().0, 8_000.0);
        b.fraction = Some(0.02);
        assert_eq!(b.limit().0, 16_000.0);
        b.context_window = Some(100_000);
        assert_eq!(b.limit().0, 8_000.0);
        b.env_budget = Some("0".into());
        assert_eq!(b.limit().0, 8_000.0, "0 does not count");
        b.env_budget = Some(" 1234 ".into());
        assert_eq!(
            b.limit(),
            (1234.0, "SLASH_COMMAND_TOOL_CHAR_BUDGET".to_string())
        );
    }

    #[test]
    fn order_label_when_to_use_and_the_per_entry_cap() {
        let mut foo = src("foo", "Foo\tdesc.\n", SkillScope::User);
        foo.label = Some("bar".into());
        let mut wtu = src("wtu", "Main.", SkillScope::User);
        wtu.when_to_use = Some("When X.".into());
        let long = src("long", &"x".repeat(2000), SkillScope::User);
        let proj = src("a-proj", "P.", SkillScope::Project);
        let l = listing(&[proj, wtu, long, foo], &env("100000"));
        let texts: Vec<&str> = l.items[..4].iter().filter_map(Item::text).collect();
        assert_eq!(texts[0], "- foo (bar): Foo desc.");
        assert_eq!(texts[1], format!("- long: {}…", "x".repeat(1535)));
        assert_eq!(texts[2], "- wtu: Main. - When X.");
        assert_eq!(texts[3], "- a-proj: P.");
        assert_eq!(
            l.items[1].fate,
            Fate::Shortened {
                from: 2000,
                to: 1536
            }
        );
    }

    #[test]
    fn first_come_first_kept_and_a_later_short_one_still_fits() {
        // 6039 fixed + 5 names ("- a" … ) + 17 + 6 + 15 line breaks = base; 10 columns left.
        let s = [
            src("a", &"y".repeat(30), SkillScope::User),
            src("b", "12345678", SkillScope::User),
        ];
        let base = 6039 + 3 + 3 + 6 + 17 + 14;
        let l = listing(&s, &env(&(base + 10).to_string()));
        assert_eq!(l.items[0].fate, Fate::Dropped);
        assert_eq!(l.items[1].fate, Fate::Full, "`: 12345678` is 10 columns");
    }
}
