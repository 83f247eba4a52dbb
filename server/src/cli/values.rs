//! The command line's parsing of core value types (`--host`, `--profile`): the core stays free
//! of clap (ARCHITECTURE.md), and the names on the command line are the configuration's names
//! (`as_str`), so `--host claude-code` and `"host": "claude-code"` agree.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::config::{Host, Profile};

impl ValueEnum for Host {
    fn value_variants<'a>() -> &'a [Self] {
        &[Self::Alisio, Self::Codex, Self::ClaudeCode]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for Profile {
    fn value_variants<'a>() -> &'a [Self] {
        &[Self::Alisio, Self::Spec, Self::Codex, Self::ClaudeCode]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value the configuration accepts is a command-line value, by the same name.
    #[test]
    fn command_line_names_are_the_configuration_names() {
        let hosts: Vec<&str> = Host::value_variants().iter().map(|h| h.as_str()).collect();
        assert_eq!(hosts, ["alisio", "codex", "claude-code"]);
        for h in Host::value_variants() {
            let json: Host = serde_json::from_value(serde_json::json!(h.as_str())).unwrap();
            assert_eq!(Host::from_str(h.as_str(), false), Ok(json));
        }
        let profiles: Vec<&str> = Profile::value_variants()
            .iter()
            .map(|p| p.as_str())
            .collect();
        assert_eq!(profiles, ["alisio", "spec", "codex", "claude-code"]);
        for p in Profile::value_variants() {
            let json: Profile = serde_json::from_value(serde_json::json!(p.as_str())).unwrap();
            assert_eq!(Profile::from_str(p.as_str(), false), Ok(json));
        }
        assert!(Host::from_str("copilot-x", false).is_err());
    }
}
