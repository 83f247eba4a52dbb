//! Typed arguments of the file, search, skill and sub-agent tools. A call's arguments are
//! first validated against the tool table's schema (`Spec::validate`, which owns the error
//! texts of spec/sessions.md §2.5 step 3), then decoded into these structs; a key's name lives in
//! one place, and the test below fails when a struct and its schema disagree.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::error::{ToolError, ToolReturn};

/// Decodes validated arguments.
///
/// # Errors
/// `Invalid arguments: <detail>` (only when a struct and its schema disagree).
pub fn decode<T: DeserializeOwned>(args: &Map<String, Value>) -> ToolReturn<T> {
    serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| ToolError::InvalidArguments(e.to_string()))
}

/// Declares the typed arguments of a tool: `pub` fields, camelCase keys, unknown keys refused.
macro_rules! tool_args {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
        }
    };
}
pub(crate) use tool_args;

fn dot() -> String {
    ".".to_string()
}

tool_args! {
    /// `read_file`.
    ReadFile {
        path: String,
        start_line: Option<u64>,
        limit: Option<u64>,
    }
}

tool_args! {
    /// `write_file`.
    WriteFile {
        path: String,
        content: String,
        /// `null`: the file must not exist.
        expected_hash: Option<String>,
    }
}

tool_args! {
    /// `edit_file`.
    EditFile {
        path: String,
        old_text: String,
        new_text: String,
        expected_hash: String,
    }
}

tool_args! {
    /// `list_files`.
    ListFiles {
        #[serde(default = "dot")]
        path: String,
        offset: Option<u64>,
        limit: Option<u64>,
    }
}

tool_args! {
    /// `search_text`.
    SearchText {
        pattern: String,
        #[serde(default = "dot")]
        path: String,
        #[serde(default)]
        literal: bool,
        glob: Option<String>,
    }
}

tool_args! {
    /// `context_explain`.
    ContextExplain {
        path: String,
    }
}

tool_args! {
    /// `skill_load`.
    SkillLoad {
        /// Skill name, displayId or id.
        name: String,
    }
}

tool_args! {
    /// `skill_search`.
    SkillSearch {
        query: String,
    }
}

tool_args! {
    /// `skill_resource`.
    SkillResource {
        /// Skill name, displayId or id.
        name: String,
        /// Path inside the skill directory.
        path: String,
        offset: Option<u64>,
    }
}

tool_args! {
    /// `task`: a sub-agent.
    Task {
        /// The child session's title.
        description: String,
        prompt: String,
    }
}

tool_args! {
    /// `test_sleep`.
    TestSleep {
        ms: u64,
        tag: Option<String>,
    }
}

/// A call of the instruction and skill tools, answered by the run's
/// [`SessionContext`](crate::SessionContext).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContextTool {
    Explain(ContextExplain),
    SkillLoad(SkillLoad),
    SkillSearch(SkillSearch),
    SkillResource(SkillResource),
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde::Serialize;
    use serde_json::json;

    use super::*;
    use crate::tools::specs::TEST_SLEEP;
    use crate::tools::{ArgType, Spec, spec};

    /// A valid value of every field of the schema.
    fn sample(s: &Spec) -> Map<String, Value> {
        s.fields
            .iter()
            .map(|f| {
                let v = match f.ty {
                    ArgType::Str { min, .. } => json!("x".repeat(min.max(1))),
                    ArgType::StrOrNull => json!("abc"),
                    ArgType::Int { min, .. } => json!(min),
                    ArgType::Bool => json!(true),
                    ArgType::StrArray { .. } => json!(["a"]),
                    ArgType::Enum(vals) => json!(vals[0]),
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
            let nullable = matches!(f.ty, ArgType::StrOrNull);
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
