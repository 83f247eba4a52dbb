//! [`ConfigReader`]: the one way to read a declared key's value from a workspace's layers (the CLI,
//! the server and sessions). The highest layer that sets a valid value wins; a value that is a
//! [`ConfigProblem`](super::ConfigProblem) of its layer is never read (the CLI has exited 2 on it,
//! the server shows it as `config-invalid` and the lower layer applies); a [`KeyScope::NotProject`]
//! key is never read from the project file (spec/sessions.md §1.8).

use serde_json::{Map, Value};

use super::keys::{KeyScope, spec};
use super::layer::{Layer, Origin};
use super::lookup;

/// Reads declared keys over layers given lowest precedence first.
#[derive(Clone, Copy, Debug)]
pub struct ConfigReader<'a> {
    layers: &'a [Layer],
}

impl<'a> ConfigReader<'a> {
    #[must_use]
    pub const fn new(layers: &'a [Layer]) -> Self {
        Self { layers }
    }

    fn readable(layer: &Layer, key: &str) -> bool {
        let project_only_blocked = spec(key).is_some_and(|s| s.scope == KeyScope::NotProject)
            || key
                .rsplit_once('.')
                .and_then(|(parent, _)| spec(parent))
                .is_some_and(|s| s.scope == KeyScope::NotProject);
        let from_project = layer.origin == Origin::Project;
        !(layer.is_invalid(key) || from_project && project_only_blocked)
    }

    /// The valid value in effect for a declared key; `None` when no layer sets one (the
    /// default applies).
    ///
    /// # Panics
    /// In debug builds, on a key that is not declared in the key table (a reader of an
    /// undeclared key is a bug the tests catch).
    #[must_use]
    pub fn value(&self, key: &str) -> Option<&'a Value> {
        debug_assert!(spec(key).is_some(), "undeclared configuration key {key}");
        self.layers.iter().rev().find_map(|l| {
            Self::readable(l, key)
                .then(|| lookup(&l.raw, key).filter(|v| !v.is_null()))
                .flatten()
        })
    }

    #[must_use]
    pub fn bool(&self, key: &str) -> Option<bool> {
        self.value(key).and_then(Value::as_bool)
    }

    #[must_use]
    pub fn u64(&self, key: &str) -> Option<u64> {
        self.value(key).and_then(Value::as_u64)
    }

    #[must_use]
    pub fn u32(&self, key: &str) -> Option<u32> {
        self.u64(key).and_then(|v| u32::try_from(v).ok())
    }

    #[must_use]
    pub fn f64(&self, key: &str) -> Option<f64> {
        self.value(key).and_then(Value::as_f64)
    }

    #[must_use]
    pub fn str(&self, key: &str) -> Option<&'a str> {
        self.value(key).and_then(Value::as_str)
    }

    /// An array of strings.
    #[must_use]
    pub fn strings(&self, key: &str) -> Option<Vec<String>> {
        self.value(key).and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
    }

    /// An object merged key by key over the layers (`provider`): each member is read like a
    /// key of its own (`provider.kind`), so an invalid member of one layer leaves the lower
    /// layer's value in effect.
    #[must_use]
    pub fn merged(&self, key: &str) -> Map<String, Value> {
        debug_assert!(spec(key).is_some(), "undeclared configuration key {key}");
        let mut out = Map::new();
        for l in self.layers {
            if !Self::readable(l, key) {
                continue;
            }
            let Some(Value::Object(members)) = lookup(&l.raw, key) else {
                continue;
            };
            for (k, v) in members {
                if !v.is_null() && !l.is_invalid(&format!("{key}.{k}")) {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn file(origin: Origin, text: &str) -> Layer {
        Layer::from_file_text(origin, Path::new("/c.json"), "c.json", text).unwrap()
    }

    #[test]
    fn the_highest_valid_layer_wins_and_an_invalid_value_leaves_the_lower_one() {
        let layers = [
            file(
                Origin::User,
                r#"{"limits":{"maxTurns":7},"compaction":{"threshold":0.5}}"#,
            ),
            file(
                Origin::Project,
                r#"{"limits":{"maxTurns":0},"compaction":{"threshold":0.6}}"#,
            ),
        ];
        assert_eq!(
            layers[1].problems[0].message,
            "limits.maxTurns must be an integer from 1 to 1000; got 0"
        );
        let r = ConfigReader::new(&layers);
        assert_eq!(r.u32("limits.maxTurns"), Some(7));
        assert_eq!(r.f64("compaction.threshold"), Some(0.6));
        assert_eq!(r.u32("compaction.keepTurns"), None);
    }

    #[test]
    fn sensitive_keys_and_their_members_are_never_read_from_the_project_file() {
        let layers = [
            file(
                Origin::User,
                r#"{"provider":{"kind":"anthropic","model":"m1"}}"#,
            ),
            file(
                Origin::Project,
                r#"{"provider":{"model":"evil","baseUrl":"http://x"},"approvals":{"write":"allow"},"limits":{"maxTokens":5}}"#,
            ),
        ];
        let r = ConfigReader::new(&layers);
        let p = r.merged("provider");
        assert_eq!(p.get("model"), Some(&Value::from("m1")));
        assert_eq!(p.get("baseUrl"), None);
        assert_eq!(r.str("approvals.write"), None);
        assert_eq!(r.u64("limits.maxTokens"), None);
    }

    #[test]
    fn an_invalid_member_of_a_merged_object_keeps_the_lower_layer() {
        let layers = [
            file(
                Origin::User,
                r#"{"provider":{"kind":"anthropic","maxRetries":2}}"#,
            ),
            Layer::from_client(serde_json::json!({"provider":{"kind":"gemini","maxRetries":5}})),
        ];
        assert_eq!(
            layers[1].problems[0].message,
            r#"provider.kind must be "openai", "anthropic" or "script"; got "gemini""#
        );
        let p = ConfigReader::new(&layers).merged("provider");
        assert_eq!(p.get("kind"), Some(&Value::from("anthropic")));
        assert_eq!(p.get("maxRetries"), Some(&Value::from(5)));
    }
}

#[cfg(test)]
mod table_tests {
    use super::super::keys::all;

    /// Every default written as JSON in the key table is a valid value of its own key, and no key
    /// is declared twice.
    #[test]
    fn every_stated_default_is_valid_and_every_key_is_declared_once() {
        let mut seen = std::collections::BTreeSet::new();
        let mut json_defaults = 0;
        for k in all() {
            assert!(seen.insert(k.key), "{} declared twice", k.key);
            if k.default.starts_with('(') {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(k.default)
                .unwrap_or_else(|e| panic!("{}: default {} is not JSON: {e}", k.key, k.default));
            assert_eq!(k.ty.check(k.key, &v, k.default), Ok(()), "{}", k.key);
            json_defaults += 1;
        }
        assert_eq!((all().len(), json_defaults), (58, 40));
    }
}
