//! Configuration: the one place that reads and validates `config.json` files, initialization
//! options and flags, and layers them into [`Settings`] (spec/instructions.md §2.10, spec/governor.md §9,
//! spec/skills.md §1.1).
//!
//! Every source is parsed into a [`Layer`]: the raw JSON (unknown keys kept), the valid values of
//! the keys we know, and one [`ConfigProblem`] per invalid value with its byte span. Layers are then
//! applied lowest first. An invalid value never reaches [`Settings`]: the CLI turns problems into
//! exit 2, the language server into `config-invalid` diagnostics while the lower layer applies.
//!
//! The rooms: `layer` parses one source into a [`Layer`] with spans and problems and reads the
//! layers of a workspace; `keys` is the table of known keys, their bounds, checks and messages;
//! `resolve` applies layers over the defaults; `reader` reads one declared key over the layers
//! (sessions); `values` holds the value enums ([`GovernorMode`],
//! [`Host`], [`Profile`], …); `overrides` writes `skillOverrides`; `hosts` the per-host keys.
//! This file holds [`Settings`] and re-exports the public API, so every item keeps its
//! `crate::config::` path.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

mod hosts;
mod keys;
mod layer;
mod overrides;
mod reader;
mod resolve;
mod values;

pub use hosts::{CopilotSettings, GeminiSettings, GeminiTrust, HostSettings};
pub use keys::{
    ConfigProblem, DEFAULT_MAX_BYTES, EPOCH_MESSAGES_V1, EPOCH_MESSAGES_V2, MAX_BYTES_MAX,
    MAX_BYTES_MIN, POLICY_VERSION, SPILL_HEAD_CHARS, SPILL_TAIL_CHARS, SPILL_THRESHOLD_CHARS,
    TRIM_KEEP_DENIALS, TRIM_KEEP_RECENT, TRIM_MIN_CHARS, epoch_default, lookup,
};
pub use keys::{KeyScope, KeySpec, Ty, all as all_keys, spec as key_spec};
pub use layer::{CONFIG_FILE_LIMIT, FileError, Layer, Origin, load_layers, too_large_message};
pub use overrides::write_skill_override;
pub use reader::ConfigReader;
pub use resolve::resolve;
pub use values::{ClaudeInstructionFiles, GovernorMode, Host, Profile};

/// One entry of the `skills` key, resolved against the directory of the file holding it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillRoot {
    pub path: PathBuf,
    /// Which layer gave it (for messages).
    pub origin: Origin,
}

/// Resolved settings. Defaults applied, every value valid.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub claude_md_fallback: bool,
    pub max_bytes: u32,
    pub governor: GovernorMode,
    pub elide_min_age_turns: u32,
    /// `None`: the policy's default ([`EPOCH_MESSAGES_V1`], [`EPOCH_MESSAGES_V2`]).
    pub elide_epoch_messages: Option<u32>,
    pub policy_version: Option<u32>,
    pub invariants_max_chars: u32,
    /// Policy 2 (spec/governor.md §3.3): `context.spill.*` and `context.trim.*`.
    pub spill_threshold_chars: u32,
    pub spill_head_chars: u32,
    pub spill_tail_chars: u32,
    pub trim_min_chars: u32,
    pub trim_keep_recent: u32,
    pub trim_keep_denials: u32,
    pub claude_instruction_files: ClaudeInstructionFiles,
    /// `skills` entries of every layer, highest precedence first (spec/skills.md §1.1).
    pub skills: Vec<SkillRoot>,
    /// `skillOverrides.<id>.enabled`, project layer only (spec/skills.md §3.3).
    pub skill_overrides: BTreeMap<String, bool>,
    /// `hosts.enabled`, `hosts.copilot.*`, `hosts.gemini.*` (spec/hosts.md §6).
    pub hosts: HostSettings,
    /// `diagnostics.severity` and `diagnostics.ignore` of every layer (spec/suppressions.md §2).
    pub diagnostics: crate::suppress::Rules,
    /// The merged raw configuration, unknown keys included, for keys owned by later modules.
    pub raw: Value,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            claude_md_fallback: false,
            max_bytes: DEFAULT_MAX_BYTES,
            governor: GovernorMode::Off,
            elide_min_age_turns: 2,
            elide_epoch_messages: None,
            policy_version: None,
            invariants_max_chars: 4000,
            spill_threshold_chars: SPILL_THRESHOLD_CHARS.2,
            spill_head_chars: SPILL_HEAD_CHARS.2,
            spill_tail_chars: SPILL_TAIL_CHARS.2,
            trim_min_chars: TRIM_MIN_CHARS.2,
            trim_keep_recent: TRIM_KEEP_RECENT.2,
            trim_keep_denials: TRIM_KEEP_DENIALS.2,
            claude_instruction_files: ClaudeInstructionFiles::default(),
            skills: Vec::new(),
            skill_overrides: BTreeMap::new(),
            hosts: HostSettings::default(),
            diagnostics: crate::suppress::Rules::default(),
            raw: Value::Object(serde_json::Map::new()),
        }
    }
}

impl Settings {
    /// The JSON text of the value in effect for a known key (for `(using <value>)` notices).
    #[must_use]
    pub fn shown(&self, key: &str) -> String {
        match key {
            "context.claudeMdFallback" => self.claude_md_fallback.to_string(),
            "context.maxBytes" => self.max_bytes.to_string(),
            "context.governor" => format!("\"{}\"", self.governor.as_str()),
            "context.elide.minAgeTurns" => self.elide_min_age_turns.to_string(),
            "context.elide.epochMessages" => self
                .elide_epoch_messages
                .unwrap_or_else(|| epoch_default(self.policy_version))
                .to_string(),
            "context.policyVersion" => self
                .policy_version
                .map_or_else(|| POLICY_VERSION.to_string(), |v| v.to_string()),
            "context.invariants.maxChars" => self.invariants_max_chars.to_string(),
            "context.spill.thresholdChars" => self.spill_threshold_chars.to_string(),
            "context.spill.headChars" => self.spill_head_chars.to_string(),
            "context.spill.tailChars" => self.spill_tail_chars.to_string(),
            "context.trim.minChars" => self.trim_min_chars.to_string(),
            "context.trim.keepRecent" => self.trim_keep_recent.to_string(),
            "context.trim.keepDenials" => self.trim_keep_denials.to_string(),
            _ => lookup(&self.raw, key)
                .map_or_else(|| "the default".to_string(), ToString::to_string),
        }
    }
}
