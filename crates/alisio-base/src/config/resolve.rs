//! Layering: [`resolve`] applies layers, lowest precedence first, over the defaults.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::keys::lookup;
use super::layer::{Layer, Origin};
use super::values::ClaudeInstructionFiles;
use super::values::GovernorMode;
use super::{Settings, SkillRoot, hosts};

fn u32_of(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok())
}

/// Applies layers (lowest precedence first) over the defaults. Invalid values are skipped, so
/// the lower layer or the default stays in effect.
#[must_use]
pub fn resolve(layers: &[Layer], home: Option<&Path>) -> Settings {
    let mut s = Settings::default();
    let mut raw = serde_json::Map::new();
    for layer in layers {
        let get = |key: &str| -> Option<&Value> {
            if layer.is_invalid(key) {
                return None;
            }
            lookup(&layer.raw, key).filter(|v| !v.is_null())
        };
        if let Some(v) = get("context.claudeMdFallback").and_then(Value::as_bool) {
            s.claude_md_fallback = v;
        }
        if let Some(v) = get("context.maxBytes").and_then(u32_of) {
            s.max_bytes = v;
        }
        if let Some(v) = get("context.governor")
            .and_then(Value::as_str)
            .and_then(GovernorMode::parse)
        {
            s.governor = v;
        }
        if let Some(v) = get("context.elide.minAgeTurns").and_then(u32_of) {
            s.elide_min_age_turns = v;
        }
        if let Some(v) = get("context.elide.epochMessages").and_then(u32_of) {
            s.elide_epoch_messages = Some(v);
        }
        if let Some(v) = get("context.policyVersion").and_then(u32_of) {
            s.policy_version = Some(v);
        }
        if let Some(v) = get("context.invariants.maxChars").and_then(u32_of) {
            s.invariants_max_chars = v;
        }
        for (key, slot) in [
            ("context.spill.thresholdChars", &mut s.spill_threshold_chars),
            ("context.spill.headChars", &mut s.spill_head_chars),
            ("context.spill.tailChars", &mut s.spill_tail_chars),
            ("context.trim.minChars", &mut s.trim_min_chars),
            ("context.trim.keepRecent", &mut s.trim_keep_recent),
            ("context.trim.keepDenials", &mut s.trim_keep_denials),
        ] {
            if let Some(v) = get(key).and_then(u32_of) {
                *slot = v;
            }
        }
        if let Some(v) = get("hosts.claudeCode.instructionFiles").and_then(Value::as_str) {
            s.claude_instruction_files = match v {
                "claude-md-and-agents-md" => ClaudeInstructionFiles::ClaudeMdAndAgentsMd,
                "claude-md" => ClaudeInstructionFiles::ClaudeMd,
                "managed-only" => ClaudeInstructionFiles::ManagedOnly,
                _ => ClaudeInstructionFiles::ClaudeMdOrAgentsMd,
            };
        }
        if let Some(Value::Array(items)) = get("skills") {
            let base = layer.path.as_deref().and_then(Path::parent);
            // Higher layers come first: prepend this layer's entries.
            let mut mine: Vec<SkillRoot> = items
                .iter()
                .filter_map(Value::as_str)
                .map(|e| SkillRoot {
                    path: resolve_entry(e, base, home),
                    origin: layer.origin,
                })
                .collect();
            mine.append(&mut s.skills);
            s.skills = mine;
        }
        if layer.origin == Origin::Project
            && let Some(Value::Object(map)) = get("skillOverrides")
        {
            for (id, entry) in map {
                if let Some(Value::Bool(b)) = entry.get("enabled") {
                    s.skill_overrides.insert(id.clone(), *b);
                }
            }
        }
        hosts::apply(&mut s.hosts, &get);
        s.diagnostics.merge(&layer.raw);
        if let Value::Object(m) = &layer.raw {
            merge(&mut raw, m);
        }
    }
    s.raw = Value::Object(raw);
    s
}

fn resolve_entry(entry: &str, base: Option<&Path>, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (entry.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    let p = Path::new(entry);
    match base {
        Some(b) if p.is_relative() => crate::workspace::normalize_lexically(&b.join(p)),
        _ => p.to_path_buf(),
    }
}

fn merge(into: &mut serde_json::Map<String, Value>, from: &serde_json::Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            (_, Value::Null) => {}
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::layer::tests::layer;

    #[test]
    fn invalid_value_leaves_lower_layer_in_effect() {
        let low = layer(r#"{"context":{"maxBytes":4096}}"#);
        let high =
            layer(r#"{"context":{"maxBytes":10, "claudeMdFallback": true}, "other": {"kept": 1}}"#);
        let s = resolve(&[low, high], None);
        assert_eq!(s.max_bytes, 4096);
        assert!(s.claude_md_fallback);
        assert_eq!(s.raw["other"]["kept"], 1);
    }

    #[test]
    fn null_means_absent() {
        let s = resolve(
            &[
                layer(r#"{"context":{"maxBytes":4096}}"#),
                layer(r#"{"context":{"maxBytes":null}}"#),
            ],
            None,
        );
        assert_eq!(s.max_bytes, 4096);
    }

    #[test]
    fn skills_entries_resolve_against_their_file_and_concatenate_highest_first() {
        let user = Layer::from_file_text(
            Origin::User,
            Path::new("/home/u/.config/alisio/config.json"),
            "u",
            r#"{"skills":["~/s","abs"]}"#,
        )
        .unwrap();
        let proj = Layer::from_file_text(
            Origin::Project,
            Path::new("/ws/.alisio/config.json"),
            "p",
            r#"{"skills":["../tools/skills", 3]}"#,
        )
        .unwrap();
        assert_eq!(proj.problems.len(), 1);
        let s = resolve(&[user, proj], Some(Path::new("/home/u")));
        let paths: Vec<_> = s.skills.iter().map(|r| r.path.clone()).collect();
        assert_eq!(
            paths,
            [
                PathBuf::from("/ws/tools/skills"),
                PathBuf::from("/home/u/s"),
                PathBuf::from("/home/u/.config/alisio/abs")
            ]
        );
    }
}
