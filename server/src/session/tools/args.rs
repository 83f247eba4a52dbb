//! Typed arguments of the file, search, skill and sub-agent tools. A call's arguments are
//! first validated against the tool table's schema (`Spec::validate`, which owns the error
//! texts of spec/sessions.md §2.5 step 3), then decoded into these structs; a key's name lives in
//! one place, and the test below fails when a struct and its schema disagree.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Decodes validated arguments.
///
/// # Errors
/// `Invalid arguments: <detail>` (only when a struct and its schema disagree).
pub fn decode<T: DeserializeOwned>(args: &Map<String, Value>) -> Result<T, String> {
    serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| format!("Invalid arguments: {e}"))
}

fn dot() -> String {
    ".".to_string()
}

/// `read_file`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadFile {
    pub path: String,
    pub start_line: Option<u64>,
    pub limit: Option<u64>,
}

/// `write_file`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WriteFile {
    pub path: String,
    pub content: String,
    /// `null`: the file must not exist.
    pub expected_hash: Option<String>,
}

/// `edit_file`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditFile {
    pub path: String,
    pub old_text: String,
    pub new_text: String,
    pub expected_hash: String,
}

/// `list_files`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListFiles {
    #[serde(default = "dot")]
    pub path: String,
    pub offset: Option<u64>,
    pub limit: Option<u64>,
}

/// `search_text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchText {
    pub pattern: String,
    #[serde(default = "dot")]
    pub path: String,
    #[serde(default)]
    pub literal: bool,
    pub glob: Option<String>,
}

/// `context_explain`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextExplain {
    pub path: String,
}

/// `skill_load`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillLoad {
    /// Skill name, displayId or id.
    pub name: String,
}

/// `skill_search`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillSearch {
    pub query: String,
}

/// `skill_resource`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillResource {
    /// Skill name, displayId or id.
    pub name: String,
    /// Path inside the skill directory.
    pub path: String,
    pub offset: Option<u64>,
}

/// `task`: a sub-agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Task {
    /// The child session's title.
    pub description: String,
    pub prompt: String,
}

/// `test_sleep`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestSleep {
    pub ms: u64,
    pub tag: Option<String>,
}

/// A call of the instruction and skill tools, answered by the run's
/// [`SessionContext`](crate::session::SessionContext).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContextTool {
    Explain(ContextExplain),
    SkillLoad(SkillLoad),
    SkillSearch(SkillSearch),
    SkillResource(SkillResource),
}

impl ContextTool {
    /// Decodes the validated arguments of `name`; `None` when `name` is not one of these tools.
    ///
    /// # Errors
    /// See [`decode`].
    pub fn decode(name: &str, args: &Map<String, Value>) -> Option<Result<Self, String>> {
        Some(match name {
            "context_explain" => decode(args).map(Self::Explain),
            "skill_load" => decode(args).map(Self::SkillLoad),
            "skill_search" => decode(args).map(Self::SkillSearch),
            "skill_resource" => decode(args).map(Self::SkillResource),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::json;

    use super::*;
    use crate::session::tools::{Spec, TEST_SLEEP, Ty, spec};

    /// A valid value of every field of the schema.
    fn sample(s: &Spec) -> Map<String, Value> {
        s.fields
            .iter()
            .map(|f| {
                let v = match f.ty {
                    Ty::Str { min, .. } => json!("x".repeat(min.max(1))),
                    Ty::StrOrNull => json!("abc"),
                    Ty::Int { min, .. } => json!(min),
                    Ty::Bool => json!(true),
                    Ty::StrArray { .. } => json!(["a"]),
                    Ty::Enum(vals) => json!(vals[0]),
                };
                (f.name.to_string(), v)
            })
            .collect()
    }

    /// Decoding every schema field and encoding again gives exactly the schema's keys, and a
    /// required key the struct does not require is caught.
    fn agrees<T: DeserializeOwned + Serialize>(s: &Spec) {
        let full = sample(s);
        let t: T = decode(&full).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let back = serde_json::to_value(&t).unwrap();
        let keys: BTreeSet<&str> = back
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let names: BTreeSet<&str> = s.fields.iter().map(|f| f.name).collect();
        assert_eq!(keys, names, "{}", s.name);
        for f in s.fields.iter().filter(|f| f.required) {
            let mut m = full.clone();
            m.remove(f.name);
            let nullable = matches!(f.ty, Ty::StrOrNull);
            assert_eq!(
                decode::<T>(&m).is_err(),
                !nullable,
                "{}: required field {}",
                s.name,
                f.name
            );
        }
    }

    #[test]
    fn every_typed_tool_agrees_with_its_schema() {
        let get = |n: &str| spec(n).unwrap();
        agrees::<ReadFile>(get("read_file"));
        agrees::<WriteFile>(get("write_file"));
        agrees::<EditFile>(get("edit_file"));
        agrees::<ListFiles>(get("list_files"));
        agrees::<SearchText>(get("search_text"));
        agrees::<ContextExplain>(get("context_explain"));
        agrees::<SkillLoad>(get("skill_load"));
        agrees::<SkillSearch>(get("skill_search"));
        agrees::<SkillResource>(get("skill_resource"));
        agrees::<Task>(get("task"));
        agrees::<TestSleep>(&TEST_SLEEP);
    }

    #[test]
    fn optional_paths_default_to_the_workspace_root() {
        let l: ListFiles = decode(&Map::new()).unwrap();
        assert_eq!(l.path, ".");
        let s: SearchText = decode(json!({"pattern":"p"}).as_object().unwrap()).unwrap();
        assert_eq!((s.path.as_str(), s.literal, s.glob), (".", false, None));
    }
}
