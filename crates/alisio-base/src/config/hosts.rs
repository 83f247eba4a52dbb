//! `hosts.enabled`, `hosts.copilot.*` and `hosts.gemini.*` (spec/hosts.md §2.1, §3.1, §6): their
//! validation with the exact messages, and how a layer sets them.

use std::collections::BTreeMap;

use serde_json::Value;

use super::keys::{ConfigProblem, enum_message, lookup};
use super::values::Host;
use crate::text::TextRange;

/// `hosts.gemini.folderTrust`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GeminiTrust {
    /// Gemini's folder-trust feature is disabled (its default): every folder is trusted.
    #[default]
    Off,
    Trusted,
    Untrusted,
}

/// hosts.md CP1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopilotSettings {
    pub use_instruction_files: bool,
    pub use_agents_md_file: bool,
    pub use_nested_agents_md_files: bool,
    pub use_claude_md_file: bool,
    pub include_applying_instructions: bool,
    pub read_file_tool: bool,
    /// CP8: the defaults merged with the configured map.
    pub locations: BTreeMap<String, bool>,
}

/// The default `chat.instructionsFilesLocations` (hosts.md CP8).
pub const COPILOT_DEFAULT_LOCATIONS: [&str; 4] = [
    ".github/instructions",
    ".claude/rules",
    "~/.copilot/instructions",
    "~/.claude/rules",
];

impl Default for CopilotSettings {
    fn default() -> Self {
        Self {
            use_instruction_files: true,
            use_agents_md_file: true,
            use_nested_agents_md_files: false,
            use_claude_md_file: true,
            include_applying_instructions: true,
            read_file_tool: true,
            locations: COPILOT_DEFAULT_LOCATIONS
                .iter()
                .map(|l| ((*l).to_string(), true))
                .collect(),
        }
    }
}

/// spec/hosts.md §3.1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeminiSettings {
    /// `hosts.gemini.fileName` as configured (GM1 adds `GEMINI.md`).
    pub file_name: Vec<String>,
    pub boundary_markers: Vec<String>,
    pub trust: GeminiTrust,
}

impl Default for GeminiSettings {
    fn default() -> Self {
        Self {
            file_name: Vec::new(),
            boundary_markers: vec![".git".to_string()],
            trust: GeminiTrust::Off,
        }
    }
}

/// Everything under `hosts.` that is not `hosts.claudeCode`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct HostSettings {
    /// `hosts.enabled`; `None` when no layer sets it (hosts.md H9).
    pub enabled: Option<Vec<Host>>,
    pub copilot: CopilotSettings,
    pub gemini: GeminiSettings,
}

const COPILOT_BOOLS: [&str; 6] = [
    "useInstructionFiles",
    "useAgentsMdFile",
    "useNestedAgentsMdFiles",
    "useClaudeMdFile",
    "includeApplyingInstructions",
    "readFileTool",
];

const TRUST: [&str; 3] = ["off", "trusted", "untrusted"];

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|e| e.as_str().map(str::to_string))
        .collect()
}

/// The problems of one layer's `hosts` values. `shown` gives a value's JSON text as written,
/// `span` its location.
pub fn validate(
    raw: &Value,
    shown: impl Fn(&str, &Value) -> String,
    span: impl Fn(&str) -> Option<TextRange>,
) -> Vec<ConfigProblem> {
    let mut out = Vec::new();
    let mut push = |key: &str, at: &str, message: String| {
        out.push(ConfigProblem {
            key: key.to_string(),
            message,
            span: span(at),
        });
    };
    let present = |key: &str| lookup(raw, key).filter(|v| !v.is_null());
    if let Some(v) = present("hosts.enabled") {
        let k = "hosts.enabled";
        let msg = |got: &str| {
            format!(
                "{k} must be an array of host names (\"alisio\", \"codex\", \"claude-code\", \"copilot\", \"gemini\" or \"cursor\"); got {got}"
            )
        };
        match v.as_array() {
            None => push(k, k, msg(&shown(k, v))),
            Some(items) => {
                if let Some((i, bad)) = items
                    .iter()
                    .enumerate()
                    .find(|(_, e)| e.as_str().and_then(Host::parse).is_none())
                {
                    let at = format!("{k}.{i}");
                    push(k, &at, msg(&shown(&at, bad)));
                }
            }
        }
    }
    for name in COPILOT_BOOLS {
        let k = format!("hosts.copilot.{name}");
        if let Some(v) = present(&k)
            && !v.is_boolean()
        {
            push(
                &k,
                &k,
                format!("{k} must be true or false; got {}", shown(&k, v)),
            );
        }
    }
    let k = "hosts.copilot.instructionsFilesLocations";
    if let Some(v) = present(k) {
        let msg = |got: &str| format!("{k} must be an object of true or false values; got {got}");
        match v.as_object() {
            None => push(k, k, msg(&shown(k, v))),
            Some(map) => {
                if let Some((name, bad)) = map.iter().find(|(_, b)| !b.is_boolean()) {
                    let at = format!("{k}.{name}");
                    push(k, &at, msg(&shown(&at, bad)));
                }
            }
        }
    }
    let k = "hosts.gemini.fileName";
    if let Some(v) = present(k)
        && !(v.is_string() || strings(v).is_some())
    {
        push(
            k,
            k,
            format!(
                "{k} must be a string or an array of strings; got {}",
                shown(k, v)
            ),
        );
    }
    let k = "hosts.gemini.memoryBoundaryMarkers";
    if let Some(v) = present(k)
        && strings(v).is_none()
    {
        push(
            k,
            k,
            format!("{k} must be an array of strings; got {}", shown(k, v)),
        );
    }
    let k = "hosts.gemini.folderTrust";
    if let Some(v) = present(k)
        && !v.as_str().is_some_and(|s| TRUST.contains(&s))
    {
        push(k, k, enum_message(k, &TRUST, &shown(k, v)));
    }
    out
}

/// Applies one layer's valid values (`get` returns `None` for absent, null or invalid keys).
pub fn apply<'v>(s: &mut HostSettings, get: &impl Fn(&str) -> Option<&'v Value>) {
    if let Some(items) = get("hosts.enabled").and_then(Value::as_array) {
        s.enabled = Some(
            items
                .iter()
                .filter_map(|e| e.as_str().and_then(Host::parse))
                .collect(),
        );
    }
    let c = &mut s.copilot;
    for (name, field) in [
        ("useInstructionFiles", &mut c.use_instruction_files),
        ("useAgentsMdFile", &mut c.use_agents_md_file),
        ("useNestedAgentsMdFiles", &mut c.use_nested_agents_md_files),
        ("useClaudeMdFile", &mut c.use_claude_md_file),
        (
            "includeApplyingInstructions",
            &mut c.include_applying_instructions,
        ),
        ("readFileTool", &mut c.read_file_tool),
    ] {
        if let Some(b) = get(&format!("hosts.copilot.{name}")).and_then(Value::as_bool) {
            *field = b;
        }
    }
    if let Some(map) = get("hosts.copilot.instructionsFilesLocations").and_then(Value::as_object) {
        for (loc, on) in map {
            if let Some(b) = on.as_bool() {
                c.locations.insert(loc.clone(), b);
            }
        }
    }
    let g = &mut s.gemini;
    match get("hosts.gemini.fileName") {
        Some(Value::String(one)) => g.file_name = vec![one.clone()],
        Some(v) => {
            if let Some(list) = strings(v) {
                g.file_name = list;
            }
        }
        None => {}
    }
    if let Some(list) = get("hosts.gemini.memoryBoundaryMarkers").and_then(strings) {
        g.boundary_markers = list;
    }
    if let Some(t) = get("hosts.gemini.folderTrust").and_then(Value::as_str) {
        g.trust = match t {
            "trusted" => GeminiTrust::Trusted,
            "untrusted" => GeminiTrust::Untrusted,
            _ => GeminiTrust::Off,
        };
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{Layer, Origin, resolve};
    use super::*;

    fn layer(text: &str) -> Layer {
        Layer::from_file_text(Origin::CommandLine, Path::new("/c/c.json"), "c.json", text).unwrap()
    }

    fn messages(text: &str) -> Vec<String> {
        layer(text)
            .problems
            .into_iter()
            .map(|p| p.message)
            .collect()
    }

    #[test]
    fn every_message_is_exact() {
        assert_eq!(
            messages(
                r#"{"hosts":{"enabled":["copilot","vim"],"copilot":{"useAgentsMdFile":"yes","instructionsFilesLocations":{"a":1}},"gemini":{"fileName":3,"memoryBoundaryMarkers":".git","folderTrust":"TRUSTED"}}}"#
            ),
            [
                r#"hosts.enabled must be an array of host names ("alisio", "codex", "claude-code", "copilot", "gemini" or "cursor"); got "vim""#,
                r#"hosts.copilot.useAgentsMdFile must be true or false; got "yes""#,
                "hosts.copilot.instructionsFilesLocations must be an object of true or false values; got 1",
                "hosts.gemini.fileName must be a string or an array of strings; got 3",
                r#"hosts.gemini.memoryBoundaryMarkers must be an array of strings; got ".git""#,
                r#"hosts.gemini.folderTrust must be "off", "trusted" or "untrusted"; got "TRUSTED""#,
            ]
        );
        assert_eq!(
            messages(
                r#"{"hosts":{"enabled":"cursor","copilot":{"instructionsFilesLocations":[]}}}"#
            ),
            [
                r#"hosts.enabled must be an array of host names ("alisio", "codex", "claude-code", "copilot", "gemini" or "cursor"); got "cursor""#,
                "hosts.copilot.instructionsFilesLocations must be an object of true or false values; got []",
            ]
        );
    }

    #[test]
    fn the_span_of_a_bad_element_is_the_element() {
        let text = r#"{"hosts":{"enabled":["gemini", 7]}}"#;
        let l = layer(text);
        let r = l.problems[0].span.unwrap();
        assert_eq!(&text[r.start..r.end], "7");
    }

    #[test]
    fn layers_apply_and_locations_merge_over_the_defaults() {
        let low = layer(
            r#"{"hosts":{"enabled":["cursor"],"gemini":{"fileName":"AGENTS.md","folderTrust":"untrusted"}}}"#,
        );
        let high = layer(
            r#"{"hosts":{"copilot":{"useNestedAgentsMdFiles":true,"instructionsFilesLocations":{".claude/rules":false,"docs/ai":true}},"gemini":{"fileName":["A.md","B.md"],"folderTrust":7}}}"#,
        );
        let s = resolve(&[low, high], None).hosts;
        assert_eq!(s.enabled, Some(vec![Host::Cursor]));
        assert!(s.copilot.use_nested_agents_md_files);
        assert_eq!(s.copilot.locations.get(".claude/rules"), Some(&false));
        assert_eq!(s.copilot.locations.get("docs/ai"), Some(&true));
        assert_eq!(s.copilot.locations.len(), 5);
        assert_eq!(s.gemini.file_name, ["A.md", "B.md"]);
        // The invalid higher value leaves the lower one in effect.
        assert_eq!(s.gemini.trust, GeminiTrust::Untrusted);
        assert_eq!(HostSettings::default().gemini.boundary_markers, [".git"]);
    }
}
