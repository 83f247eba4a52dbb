//! The `diagnostics` configuration key (spec/suppressions.md §2): `diagnostics.severity` per code and
//! `diagnostics.ignore` as `{paths, codes}` entries. `config` calls [`validate`] for the exact
//! messages and [`Rules::merge`] to layer it; an invalid part is skipped, the rest applies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;

use crate::diagnostic::{Code, Severity};

/// A configured severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Off,
    Set(Severity),
}

pub const LEVELS: &[&str] = &["off", "hint", "info", "warning", "error"];

impl Level {
    #[must_use]
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "off" => Self::Off,
            "hint" => Self::Set(Severity::Hint),
            "info" => Self::Set(Severity::Information),
            "warning" => Self::Set(Severity::Warning),
            "error" => Self::Set(Severity::Error),
            _ => return None,
        })
    }
}

/// One `diagnostics.ignore` entry.
#[derive(Clone, Debug)]
pub struct Ignore {
    pub paths: Vec<String>,
    /// `None` for `"*"`.
    pub codes: Option<BTreeSet<Code>>,
    set: GlobSet,
}

impl PartialEq for Ignore {
    fn eq(&self, other: &Self) -> bool {
        self.paths == other.paths && self.codes == other.codes
    }
}

impl Ignore {
    /// `true` when `rel` (a path relative to the workspace root, `/`-separated, or an absolute
    /// path outside it) or one of its parent directories matches a glob and the code is listed.
    #[must_use]
    pub fn covers(&self, rel: &str, code: Code) -> bool {
        if self.codes.as_ref().is_some_and(|c| !c.contains(&code)) {
            return false;
        }
        let mut p = rel;
        loop {
            if self.set.is_match(p) {
                return true;
            }
            match p.rfind('/') {
                Some(0) | None => return false,
                Some(i) => p = &p[..i],
            }
        }
    }
}

/// One `diagnostics.overrides` entry: severities and enabled rules for the files its globs match.
#[derive(Clone, Debug)]
pub struct Override {
    pub paths: Vec<String>,
    pub severity: BTreeMap<Code, Level>,
    pub enable: BTreeSet<Code>,
    set: GlobSet,
}

impl PartialEq for Override {
    fn eq(&self, other: &Self) -> bool {
        self.paths == other.paths && self.severity == other.severity && self.enable == other.enable
    }
}

impl Override {
    /// `true` when `rel` or one of its parent directories matches a glob (as [`Ignore::covers`]).
    #[must_use]
    pub fn covers(&self, rel: &str) -> bool {
        covered(&self.set, rel)
    }
}

fn covered(set: &GlobSet, rel: &str) -> bool {
    let mut p = rel;
    loop {
        if set.is_match(p) {
            return true;
        }
        match p.rfind('/') {
            Some(0) | None => return false,
            Some(i) => p = &p[..i],
        }
    }
}

/// The resolved `diagnostics` settings of all layers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rules {
    pub severity: BTreeMap<Code, Level>,
    pub ignore: Vec<Ignore>,
    /// Opinionated rules turned on everywhere (`diagnostics.enable`).
    pub enable: BTreeSet<Code>,
    /// Per-path severities and enabled rules, lowest layer first, in file order.
    pub overrides: Vec<Override>,
}

impl Rules {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.severity.is_empty()
            && self.ignore.is_empty()
            && self.enable.is_empty()
            && self.overrides.is_empty()
    }

    /// The level of `code` for the file `rel` (spec/suppressions.md §2): `diagnostics.severity`,
    /// then every override that covers the file, later ones winning. An opinionated rule is
    /// `off` unless enabled, or given a level, for the file. `None`: the default severity.
    #[must_use]
    pub fn level(&self, rel: &str, code: Code) -> Option<Level> {
        let mut level = self.severity.get(&code).copied();
        let mut enabled = self.enable.contains(&code);
        for o in self.overrides.iter().filter(|o| o.covers(rel)) {
            if let Some(l) = o.severity.get(&code) {
                level = Some(*l);
            }
            enabled |= o.enable.contains(&code);
        }
        let chosen = matches!(level, Some(Level::Set(_)));
        if crate::rules::opinionated(code) && !enabled && !chosen {
            return Some(Level::Off);
        }
        level
    }

    /// Layers one configuration object over `self`: its severities replace those below per
    /// code, its ignore entries are added. Invalid parts are skipped ([`validate`] reports them).
    pub fn merge(&mut self, raw: &Value) {
        let Some(Value::Object(d)) = raw.get("diagnostics") else {
            return;
        };
        if let Some(Value::Object(sev)) = d.get("severity") {
            for (k, v) in sev {
                if let (Some(code), Some(level)) =
                    (Code::parse(k), v.as_str().and_then(Level::parse))
                {
                    self.severity.insert(code, level);
                }
            }
        }
        if let Some(Value::Array(items)) = d.get("ignore") {
            self.ignore
                .extend(items.iter().filter_map(|i| entry(i, "", &mut Vec::new())));
        }
        if let Some(v) = d.get("enable") {
            self.enable.extend(codes_list(v, "", &mut Vec::new()));
        }
        if let Some(Value::Array(items)) = d.get("overrides") {
            self.overrides.extend(
                items
                    .iter()
                    .filter_map(|i| override_entry(i, "", &mut Vec::new(), &|_, v| v.to_string())),
            );
        }
    }
}

/// `diagnostics.enable` (or an override's `enable`) at `key`: rule ids; problems pushed to `out`.
fn codes_list(v: &Value, key: &str, out: &mut Problems) -> BTreeSet<Code> {
    let mut set = BTreeSet::new();
    let Value::Array(items) = v else {
        if !v.is_null() {
            out.push((
                key.to_string(),
                format!("{key} must be an array of rule ids; got {}", shown(v)),
            ));
        }
        return set;
    };
    for (j, c) in items.iter().enumerate() {
        match c.as_str().and_then(Code::parse) {
            Some(code) => {
                set.insert(code);
            }
            None => out.push((
                format!("{key}.{j}"),
                format!("{key}.{j} must be a rule id; got {}", shown(c)),
            )),
        }
    }
    set
}

/// A `severity` object at `key` (`diagnostics.severity`, `diagnostics.overrides.N.severity`).
fn severity_map(
    v: &Value,
    key: &str,
    out: &mut Problems,
    shown: &dyn Fn(&str, &Value) -> String,
) -> BTreeMap<Code, Level> {
    let mut map = BTreeMap::new();
    match v {
        Value::Null => {}
        Value::Object(sev) => {
            for (k, v) in sev {
                let vkey = format!("{key}.{k}");
                if v.is_null() {
                    continue;
                }
                match (Code::parse(k), v.as_str().and_then(Level::parse)) {
                    (None, _) => {
                        out.push((vkey, format!("{key}: \"{k}\" is not a diagnostic code")))
                    }
                    (Some(_), None) => {
                        let got = shown(&vkey, v);
                        out.push((vkey.clone(), levels_message(&vkey, &got)));
                    }
                    (Some(c), Some(l)) => {
                        map.insert(c, l);
                    }
                }
            }
        }
        other => out.push((
            key.to_string(),
            format!("{key} must be an object; got {}", shown(key, other)),
        )),
    }
    map
}

/// One `diagnostics.overrides.N` entry at `key`, its problems pushed to `out`.
fn override_entry(
    v: &Value,
    key: &str,
    out: &mut Problems,
    shown_at: &dyn Fn(&str, &Value) -> String,
) -> Option<Override> {
    let Value::Object(m) = v else {
        out.push((
            key.to_string(),
            format!(
                "{key} must be an object with \"paths\" and \"severity\" or \"enable\"; got {}",
                shown(v)
            ),
        ));
        return None;
    };
    let before = out.len();
    for k in m.keys() {
        if !matches!(k.as_str(), "paths" | "severity" | "enable") {
            out.push((
                format!("{key}.{k}"),
                format!(
                    "{key} has an unknown key \"{k}\"; expected \"paths\", \"severity\" and \"enable\""
                ),
            ));
        }
    }
    let (paths, set) = globs(m.get("paths"), key, out);
    let severity = m
        .get("severity")
        .map(|v| severity_map(v, &format!("{key}.severity"), out, shown_at))
        .unwrap_or_default();
    let enable = m
        .get("enable")
        .map(|v| codes_list(v, &format!("{key}.enable"), out))
        .unwrap_or_default();
    if out.len() > before {
        return None;
    }
    Some(Override {
        paths,
        severity,
        enable,
        set: set?,
    })
}

fn glob(pattern: &str) -> Result<globset::Glob, String> {
    let p = pattern.strip_prefix("./").unwrap_or(pattern);
    let p = p.strip_suffix('/').unwrap_or(p);
    // A pattern without `/` names a file or directory at any depth, as in .gitignore.
    let full = if p.contains('/') {
        p.to_string()
    } else {
        format!("**/{p}")
    };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .build()
        .map_err(|e| e.kind().to_string())
}

type Problems = Vec<(String, String)>;

fn shown(v: &Value) -> String {
    v.to_string()
}

/// One ignore entry at `key` (`diagnostics.ignore.N`), its problems pushed to `out`.
fn entry(v: &Value, key: &str, out: &mut Problems) -> Option<Ignore> {
    let Value::Object(m) = v else {
        out.push((
            key.to_string(),
            format!(
                "{key} must be an object with \"paths\" and \"codes\"; got {}",
                shown(v)
            ),
        ));
        return None;
    };
    let before = out.len();
    for k in m.keys() {
        if k != "paths" && k != "codes" {
            out.push((
                format!("{key}.{k}"),
                format!("{key} has an unknown key \"{k}\"; expected \"paths\" and \"codes\""),
            ));
        }
    }
    let (paths, set) = globs(m.get("paths"), key, out);
    let mut codes = Some(BTreeSet::new());
    match m.get("codes") {
        Some(Value::Array(cs)) if !cs.is_empty() => {
            for (j, c) in cs.iter().enumerate() {
                let ck = format!("{key}.codes.{j}");
                match c.as_str() {
                    Some("*") => codes = None,
                    Some(s) if Code::parse(s).is_some() => {
                        if let (Some(set), Some(code)) = (codes.as_mut(), Code::parse(s)) {
                            set.insert(code);
                        }
                    }
                    _ => out.push((
                        ck.clone(),
                        format!("{ck} must be a diagnostic code or \"*\"; got {}", shown(c)),
                    )),
                }
            }
        }
        None => out.push((format!("{key}.codes"), format!("{key}.codes is missing"))),
        Some(other) => out.push((
            format!("{key}.codes"),
            format!(
                "{key}.codes must be a non-empty array of diagnostic codes or \"*\"; got {}",
                shown(other)
            ),
        )),
    }
    if out.len() > before {
        return None;
    }
    Some(Ignore {
        paths,
        codes,
        set: set?,
    })
}

/// The `paths` of an entry at `key`: the globs as written and their set (`None` on a problem).
fn globs(v: Option<&Value>, key: &str, out: &mut Problems) -> (Vec<String>, Option<GlobSet>) {
    let mut paths = Vec::new();
    let mut set = GlobSetBuilder::new();
    match v {
        Some(Value::Array(ps)) if !ps.is_empty() => {
            for (j, p) in ps.iter().enumerate() {
                let pk = format!("{key}.paths.{j}");
                match p.as_str().map(|s| (s, glob(s))) {
                    Some((s, Ok(g))) => {
                        paths.push(s.to_string());
                        set.add(g);
                    }
                    Some((s, Err(e))) => out.push((
                        pk.clone(),
                        format!(
                            "{pk} is not a valid glob ({e}); got {}",
                            shown(&Value::from(s))
                        ),
                    )),
                    None => out.push((
                        pk.clone(),
                        format!("{pk} must be a glob string; got {}", shown(p)),
                    )),
                }
            }
        }
        None => out.push((format!("{key}.paths"), format!("{key}.paths is missing"))),
        Some(other) => out.push((
            format!("{key}.paths"),
            format!(
                "{key}.paths must be a non-empty array of glob strings; got {}",
                shown(other)
            ),
        )),
    }
    (paths, set.build().ok())
}

fn levels_message(key: &str, got: &str) -> String {
    format!("{key} must be \"off\", \"hint\", \"info\", \"warning\" or \"error\"; got {got}")
}

/// Every problem of the `diagnostics` key of one configuration object, as `(dotted key,
/// message)`. `shown` gives a value's text as the file wrote it.
pub fn validate(raw: &Value, shown: &dyn Fn(&str, &Value) -> String) -> Problems {
    let mut out = Vec::new();
    let Some(d) = raw.get("diagnostics").filter(|v| !v.is_null()) else {
        return out;
    };
    let Value::Object(d) = d else {
        out.push((
            "diagnostics".into(),
            format!(
                "diagnostics must be an object; got {}",
                shown("diagnostics", d)
            ),
        ));
        return out;
    };
    if let Some(v) = d.get("severity") {
        severity_map(v, "diagnostics.severity", &mut out, shown);
    }
    match d.get("ignore") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let mut ps = Vec::new();
                entry(item, &format!("diagnostics.ignore.{i}"), &mut ps);
                // Values are shown as the file wrote them where the span is known.
                out.extend(ps);
            }
        }
        Some(other) => out.push((
            "diagnostics.ignore".into(),
            format!(
                "diagnostics.ignore must be an array of {{\"paths\", \"codes\"}} objects; got {}",
                shown("diagnostics.ignore", other)
            ),
        )),
    }
    if let Some(v) = d.get("enable") {
        codes_list(v, "diagnostics.enable", &mut out);
    }
    match d.get("overrides") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                override_entry(item, &format!("diagnostics.overrides.{i}"), &mut out, shown);
            }
        }
        Some(other) => out.push((
            "diagnostics.overrides".into(),
            format!(
                "diagnostics.overrides must be an array of {{\"paths\", \"severity\", \"enable\"}} objects; got {}",
                shown("diagnostics.overrides", other)
            ),
        )),
    }
    for k in d.keys() {
        if !matches!(k.as_str(), "severity" | "ignore" | "enable" | "overrides") {
            out.push((
                format!("diagnostics.{k}"),
                format!(
                    "diagnostics has an unknown key \"{k}\"; expected \"severity\", \"ignore\", \"enable\" and \"overrides\""
                ),
            ));
        }
    }
    out
}

/// How an ignore glob sees a file: relative to the root with `/`, else the absolute path.
#[must_use]
pub fn rel_path(file: &Path, root: &Path) -> String {
    match file.strip_prefix(root) {
        Ok(r) => r.to_string_lossy().replace('\\', "/"),
        Err(_) => file.to_string_lossy().replace('\\', "/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problems(v: Value) -> Vec<String> {
        validate(&v, &|_, v| v.to_string())
            .into_iter()
            .map(|(_, m)| m)
            .collect()
    }

    #[test]
    fn messages_are_exact() {
        assert_eq!(
            problems(json!({"diagnostics": 3})),
            ["diagnostics must be an object; got 3"]
        );
        assert_eq!(
            problems(
                json!({"diagnostics": {"severity": {"skill-name-format": "fatal", "nope": "off"}, "other": 1}})
            ),
            [
                "diagnostics.severity.skill-name-format must be \"off\", \"hint\", \"info\", \"warning\" or \"error\"; got \"fatal\"",
                "diagnostics.severity: \"nope\" is not a diagnostic code",
                "diagnostics has an unknown key \"other\"; expected \"severity\", \"ignore\", \"enable\" and \"overrides\"",
            ]
        );
        assert_eq!(
            problems(json!({"diagnostics": {"ignore": [
                {"paths": ["a/[b"], "codes": ["x"]},
                {"path": ["a"], "codes": []},
                "s",
            ]}})),
            [
                "diagnostics.ignore.0.paths.0 is not a valid glob (unclosed character class; missing ']'); got \"a/[b\"",
                "diagnostics.ignore.0.codes.0 must be a diagnostic code or \"*\"; got \"x\"",
                "diagnostics.ignore.1 has an unknown key \"path\"; expected \"paths\" and \"codes\"",
                "diagnostics.ignore.1.paths is missing",
                "diagnostics.ignore.1.codes must be a non-empty array of diagnostic codes or \"*\"; got []",
                "diagnostics.ignore.2 must be an object with \"paths\" and \"codes\"; got \"s\"",
            ]
        );
        assert_eq!(
            problems(json!({"diagnostics": {"ignore": {}, "severity": []}})),
            [
                "diagnostics.severity must be an object; got []",
                "diagnostics.ignore must be an array of {\"paths\", \"codes\"} objects; got {}",
            ]
        );
    }

    #[test]
    fn globs_match_relative_paths_their_directories_and_bare_names_anywhere() {
        let mut r = Rules::default();
        r.merge(&json!({"diagnostics": {"ignore": [
            {"paths": ["vendor", "docs/*.md"], "codes": ["*"]},
            {"paths": ["SKILL.md"], "codes": ["skill-unknown-key"]},
            {"paths": ["bad["], "codes": ["*"]},
        ]}}));
        assert_eq!(r.ignore.len(), 2);
        let all = &r.ignore[0];
        assert!(all.covers("vendor/x/AGENTS.md", Code::InstructionsEmpty));
        assert!(all.covers("a/vendor/AGENTS.md", Code::InstructionsEmpty));
        assert!(all.covers("docs/AGENTS.md", Code::InstructionsEmpty));
        assert!(!all.covers("docs/sub/AGENTS.md", Code::InstructionsEmpty));
        assert!(r.ignore[1].covers("a/b/SKILL.md", Code::SkillUnknownKey));
        assert!(!r.ignore[1].covers("a/b/SKILL.md", Code::SkillNameFormat));
    }

    #[test]
    fn enable_and_overrides_messages_are_exact() {
        assert_eq!(
            problems(json!({"diagnostics": {"enable": "instructions-too-long"}})),
            ["diagnostics.enable must be an array of rule ids; got \"instructions-too-long\""]
        );
        assert_eq!(
            problems(
                json!({"diagnostics": {"enable": ["instructions-too-long", "nope"], "overrides": [
                    {"paths": ["docs"], "severity": {"instructions-empty": "loud", "x": "off"}, "enable": [3], "codes": []},
                    {"severity": {}},
                    7,
                ]}})
            ),
            [
                "diagnostics.enable.1 must be a rule id; got \"nope\"",
                "diagnostics.overrides.0 has an unknown key \"codes\"; expected \"paths\", \"severity\" and \"enable\"",
                "diagnostics.overrides.0.severity.instructions-empty must be \"off\", \"hint\", \"info\", \"warning\" or \"error\"; got \"loud\"",
                "diagnostics.overrides.0.severity: \"x\" is not a diagnostic code",
                "diagnostics.overrides.0.enable.0 must be a rule id; got 3",
                "diagnostics.overrides.1.paths is missing",
                "diagnostics.overrides.2 must be an object with \"paths\" and \"severity\" or \"enable\"; got 7",
            ]
        );
        assert_eq!(
            problems(json!({"diagnostics": {"overrides": {}}})),
            [
                "diagnostics.overrides must be an array of {\"paths\", \"severity\", \"enable\"} objects; got {}"
            ]
        );
    }

    #[test]
    fn overrides_set_levels_per_path_and_opinionated_rules_are_off_unless_enabled() {
        let mut r = Rules::default();
        r.merge(&json!({"diagnostics": {
            "severity": {"instructions-empty": "warning"},
            "overrides": [
                {"paths": ["docs"], "severity": {"instructions-empty": "off"}, "enable": ["instructions-too-long"]},
                {"paths": ["docs/keep"], "severity": {"instructions-empty": "error"}},
            ]}}));
        assert_eq!(r.overrides.len(), 2);
        let warn = Some(Level::Set(Severity::Warning));
        assert_eq!(r.level("AGENTS.md", Code::InstructionsEmpty), warn);
        assert_eq!(
            r.level("docs/AGENTS.md", Code::InstructionsEmpty),
            Some(Level::Off)
        );
        assert_eq!(
            r.level("docs/keep/AGENTS.md", Code::InstructionsEmpty),
            Some(Level::Set(Severity::Error))
        );
        // Opinionated: off by default, on where enabled.
        assert_eq!(
            r.level("AGENTS.md", Code::InstructionsTooLong),
            Some(Level::Off)
        );
        assert_eq!(r.level("docs/AGENTS.md", Code::InstructionsTooLong), None);
        assert_eq!(
            Rules::default().level("AGENTS.md", Code::InstructionsTooLong),
            Some(Level::Off)
        );
        assert_eq!(
            Rules::default().level("AGENTS.md", Code::InstructionsEmpty),
            None
        );
        // Everywhere with `enable`, or by giving it a level.
        let mut e = Rules::default();
        e.merge(&json!({"diagnostics": {"enable": ["instructions-too-long"]}}));
        assert_eq!(e.level("a/AGENTS.md", Code::InstructionsTooLong), None);
        let mut l = Rules::default();
        l.merge(&json!({"diagnostics": {"severity": {"instructions-too-long": "hint"}}}));
        assert_eq!(
            l.level("AGENTS.md", Code::InstructionsTooLong),
            Some(Level::Set(Severity::Hint))
        );
    }
}
