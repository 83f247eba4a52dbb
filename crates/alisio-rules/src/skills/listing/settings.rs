//! What changes each host's listing budget, read from the host's own settings
//! (spec/skills.md §9.1): Claude Code's `skillListingBudgetFraction` and
//! `skillListingMaxDescChars` (local, then project, then user `settings.json`, the first that
//! sets a valid value wins) and `SLASH_COMMAND_TOOL_CHAR_BUDGET`; the model and context window
//! given on the command line; Codex's `model_context_window` (`$CODEX_HOME/config.toml`).

use std::path::Path;

use serde_json::Value;

use super::{claude, codex};
use alisio_base::workspace::{Env, Fs};

/// The command line's view: `--model`, `--context-window`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub model: Option<String>,
    pub context_window: Option<u64>,
}

fn settings_files(ws: &Path, env: &Env) -> Vec<std::path::PathBuf> {
    let mut v = vec![
        ws.join(".claude/settings.local.json"),
        ws.join(".claude/settings.json"),
    ];
    if let Some(h) = &env.home {
        v.push(h.join(".claude/settings.json"));
    }
    v
}

fn read_json(fs: &dyn Fs, p: &Path) -> Option<Value> {
    let bytes = fs.read(p).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Claude Code's budget settings seen from workspace `ws`.
#[must_use]
pub fn claude_budget(fs: &dyn Fs, ws: &Path, env: &Env, o: &Overrides) -> claude::ClaudeBudget {
    let docs: Vec<Value> = settings_files(ws, env)
        .iter()
        .filter_map(|p| read_json(fs, p))
        .collect();
    let first = |k: &str, ok: &dyn Fn(&Value) -> bool| {
        docs.iter()
            .filter_map(|d| d.get(k))
            .find(|v| ok(v))
            .cloned()
    };
    let fraction = first("skillListingBudgetFraction", &|v| {
        v.as_f64().is_some_and(|f| f > 0.0 && f <= 1.0)
    })
    .and_then(|v| v.as_f64());
    let max_desc_chars = first("skillListingMaxDescChars", &|v| {
        v.as_u64().is_some_and(|n| n > 0)
    })
    .and_then(|v| v.as_u64());
    claude::ClaudeBudget {
        model: o.model.clone(),
        context_window: o.context_window,
        fraction,
        max_description_chars: max_desc_chars,
        env_budget: env.slash_command_tool_char_budget.clone(),
    }
}

/// Codex's budget: the context window given (`--context-window`), else `model_context_window`
/// of `$CODEX_HOME/config.toml` (a positive integer; anything else is not read), else Codex's
/// default.
#[must_use]
pub fn codex_budget(fs: &dyn Fs, env: &Env, o: &Overrides) -> codex::CodexBudget {
    if let Some(w) = o.context_window {
        return codex::CodexBudget {
            context_window: Some(w),
            from: codex::WindowFrom::CommandLine,
        };
    }
    let configured = env
        .codex_home()
        .and_then(|h| fs.read_prefix(&h.join("config.toml"), 1024 * 1024).ok())
        .and_then(|b| String::from_utf8_lossy(&b).parse::<toml::Table>().ok())
        .and_then(|t| t.get("model_context_window")?.as_integer())
        .and_then(|w| u64::try_from(w).ok())
        .filter(|w| *w > 0);
    codex::CodexBudget {
        context_window: configured,
        from: codex::WindowFrom::Config,
    }
}
