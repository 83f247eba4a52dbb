//! The field rules of spec/skills.md §2.5 with the Unicode decisions of spec/skills.md §2.6: one `check_<field>`
//! function per key, each pushing its problems.

use unicode_normalization::UnicodeNormalization as _;

use super::names::{collapse_ws, edit_distance_at_most, is_kebab, is_spec_name};
use super::problem::RuleProblem;
use super::{MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, Meta, allowed_keys};
use crate::skills::frontmatter::{Frontmatter, FrontmatterEntry, Node, ScalarKind, Value};
use alisio_base::config::Profile;
use alisio_base::diagnostic::Code;
use alisio_base::text::{TextRange, chars};

/// Runs every field rule of `profile`. Returns the metadata when name and description are
/// usable strings.
pub(super) fn field_checks(
    fm: &Frontmatter,
    dir: &str,
    open: TextRange,
    profile: Profile,
    loading: bool,
    problems: &mut Vec<RuleProblem>,
) -> Option<Meta> {
    // An unknown key never keeps a skill from loading: a judgement of loading alone skips it.
    if !loading {
        check_unknown_keys(fm, profile, problems);
    }
    let name = check_name(fm, dir, open, profile, problems);
    let description = check_description(fm, open, profile, problems);
    if matches!(profile, Profile::Alisio | Profile::Spec) {
        check_compatibility(fm, profile, problems);
        check_license(fm, profile, problems);
    }
    if profile != Profile::ClaudeCode {
        check_metadata(fm, profile, problems);
    }
    if matches!(
        profile,
        Profile::Alisio | Profile::Spec | Profile::ClaudeCode
    ) {
        check_allowed_tools(fm, profile, problems);
    }
    let mut model_invocable = true;
    if matches!(profile, Profile::Alisio | Profile::ClaudeCode) {
        model_invocable = check_booleans(fm, profile, problems);
    }
    Some(Meta {
        name: name?,
        description: description?,
        model_invocable,
    })
}

fn is_blank_string(n: &Node) -> bool {
    n.is_null() || n.as_str().is_some_and(|s| s.trim().is_empty())
}

/// The entry of an optional key when it counts as present: null never counts; the empty string
/// does not count for the spec profile.
fn present<'a>(fm: &'a Frontmatter, profile: Profile, key: &str) -> Option<&'a FrontmatterEntry> {
    fm.get(key).filter(|e| {
        !(e.value.is_null() || (profile == Profile::Spec && e.value.as_str() == Some("")))
    })
}

/// `skill-field-type` at the value of `e`.
fn field_type(
    problems: &mut Vec<RuleProblem>,
    key: &'static str,
    e: &FrontmatterEntry,
    message: String,
) {
    problems.push(RuleProblem::field_type(key, e.value.span, message));
}

/// `skill-unknown-key` once per key outside the profile's set, with a suggestion within edit
/// distance 2.
fn check_unknown_keys(fm: &Frontmatter, profile: Profile, problems: &mut Vec<RuleProblem>) {
    let allowed = allowed_keys(profile);
    let mut reported: Vec<&str> = Vec::new();
    for e in &fm.entries {
        if allowed.contains(&e.key.as_str()) || reported.contains(&e.key.as_str()) {
            continue;
        }
        reported.push(&e.key);
        let mut message = format!("unknown key \"{}\"", e.key);
        message.push_str(match profile {
            Profile::Alisio => "; alisio ignores it (move it under metadata to keep it)",
            Profile::Spec => "; the specification allows only name, description, license, compatibility, metadata and allowed-tools",
            Profile::Codex => "; Codex ignores it",
            Profile::ClaudeCode => "; Claude Code ignores it",
        });
        let best = allowed
            .iter()
            .filter_map(|k| edit_distance_at_most(&e.key, k, 2).map(|d| (d, *k)))
            .min_by_key(|(d, _)| *d);
        if let Some((_, k)) = best {
            message.push_str(&format!(" (did you mean \"{k}\"?)"));
        }
        problems.push(RuleProblem::new(Code::SkillUnknownKey, e.key_span, message));
    }
}

/// `name`: required, a string, at most 64 characters, the profile's format, equal to the
/// directory name. Returns the name as written when it is a string.
fn check_name(
    fm: &Frontmatter,
    dir: &str,
    open: TextRange,
    profile: Profile,
    problems: &mut Vec<RuleProblem>,
) -> Option<String> {
    let e = match fm.get("name") {
        None => {
            problems.push(RuleProblem::new(
                Code::SkillNameMissing,
                open,
                "missing required key \"name\"",
            ));
            return None;
        }
        Some(e) if is_blank_string(&e.value) => {
            problems.push(RuleProblem::new(
                Code::SkillNameMissing,
                e.value.span,
                "name is empty",
            ));
            return None;
        }
        Some(e) => e,
    };
    let Some(raw) = e.value.as_str() else {
        let hint = e
            .value
            .scalar_text()
            .map(|t| format!("; quote it: name: \"{t}\""))
            .unwrap_or_default();
        field_type(
            problems,
            "name",
            e,
            format!(
                "\"name\" must be a string, found {}{hint}",
                e.value.describe()
            ),
        );
        return None;
    };
    let name: String = match profile {
        Profile::Spec => raw.trim().nfkc().collect(),
        Profile::Codex => collapse_ws(raw),
        _ => raw.to_string(),
    };
    let n = chars(&name);
    if n > MAX_NAME_CHARS {
        problems.push(RuleProblem::new(
            Code::SkillNameTooLong,
            e.value.span,
            format!("name is {n} characters; the limit is {MAX_NAME_CHARS}"),
        ));
    }
    let format_ok = match profile {
        Profile::Spec => is_spec_name(&name),
        Profile::Codex => true,
        _ => is_kebab(&name),
    };
    if !format_ok {
        problems.push(RuleProblem::new(
            Code::SkillNameFormat,
            e.value.span,
            "name must be lowercase letters, digits and single hyphens",
        ));
    }
    let matches_dir = match profile {
        Profile::Spec => dir.nfkc().collect::<String>() == name,
        _ => dir == raw,
    };
    if !matches_dir && profile != Profile::Codex {
        let message = match profile {
            Profile::Spec => format!("name \"{raw}\" must equal the directory name \"{dir}\""),
            Profile::ClaudeCode => format!(
                "Claude Code uses the directory name \"{dir}\" as the command; \"name\" is only a label"
            ),
            _ => format!(
                "name \"{raw}\" differs from the directory name \"{dir}\"; the skill is loaded anyway"
            ),
        };
        problems.push(RuleProblem::new(
            Code::SkillNameDirectoryMismatch,
            e.value.span,
            message,
        ));
    }
    Some(raw.to_string())
}

/// `description`: required, a string, at most 1,024 characters (Codex counts it with white
/// space collapsed). Returns it when it is a string.
fn check_description(
    fm: &Frontmatter,
    open: TextRange,
    profile: Profile,
    problems: &mut Vec<RuleProblem>,
) -> Option<String> {
    let e = match fm.get("description") {
        None => {
            let mut message = "missing required key \"description\"".to_string();
            if profile == Profile::ClaudeCode {
                message.push_str("; Claude Code uses the first paragraph of the body instead");
            }
            problems.push(RuleProblem::new(
                Code::SkillDescriptionMissing,
                open,
                message,
            ));
            return None;
        }
        Some(e) if is_blank_string(&e.value) => {
            problems.push(RuleProblem::new(
                Code::SkillDescriptionMissing,
                e.value.span,
                "description is empty",
            ));
            return None;
        }
        Some(e) => e,
    };
    let Some(raw) = e.value.as_str() else {
        field_type(
            problems,
            "description",
            e,
            format!(
                "\"description\" must be a string, found {}",
                e.value.describe()
            ),
        );
        return None;
    };
    let n = if profile == Profile::Codex {
        chars(&collapse_ws(raw))
    } else {
        chars(raw)
    };
    if n > MAX_DESCRIPTION_CHARS {
        // Codex 0.171.0 loads such a skill and lists its description cut to 1,021 characters
        // and `...` (measured, tests/real/skills.rs; spec/skills.md §2.9): a warning there.
        let message = if profile == Profile::Codex {
            format!(
                "description is {n} characters; the limit is {MAX_DESCRIPTION_CHARS}: Codex lists the first {} and `...`",
                MAX_DESCRIPTION_CHARS - 3
            )
        } else {
            format!("description is {n} characters; the limit is {MAX_DESCRIPTION_CHARS}")
        };
        problems.push(RuleProblem::new(
            Code::SkillDescriptionTooLong,
            e.value.span,
            message,
        ));
    }
    Some(raw.to_string())
}

/// `compatibility`: a string of at most 500 characters.
fn check_compatibility(fm: &Frontmatter, profile: Profile, problems: &mut Vec<RuleProblem>) {
    let Some(e) = present(fm, profile, "compatibility") else {
        return;
    };
    match e.value.as_str() {
        None => field_type(
            problems,
            "compatibility",
            e,
            format!(
                "\"compatibility\" must be a string, found {}",
                e.value.describe()
            ),
        ),
        Some(s) => {
            let n = chars(s);
            if n > MAX_COMPATIBILITY_CHARS {
                problems.push(RuleProblem::new(
                    Code::SkillCompatibilityTooLong,
                    e.value.span,
                    format!(
                        "compatibility is {n} characters; the limit is {MAX_COMPATIBILITY_CHARS}"
                    ),
                ));
            }
        }
    }
}

/// `license`: a string.
fn check_license(fm: &Frontmatter, profile: Profile, problems: &mut Vec<RuleProblem>) {
    if let Some(e) = present(fm, profile, "license")
        && e.value.as_str().is_none()
    {
        field_type(
            problems,
            "license",
            e,
            format!("\"license\" must be a string, found {}", e.value.describe()),
        );
    }
}

/// `metadata`: a mapping; for the spec profile, of strings (each nested value is reported at
/// its own range).
fn check_metadata(fm: &Frontmatter, profile: Profile, problems: &mut Vec<RuleProblem>) {
    let Some(e) = present(fm, profile, "metadata") else {
        return;
    };
    let Value::Map(items) = &e.value.value else {
        field_type(
            problems,
            "metadata",
            e,
            format!(
                "\"metadata\" must be a mapping, found {}",
                e.value.describe()
            ),
        );
        return;
    };
    if profile != Profile::Spec {
        return;
    }
    for (k, v) in items {
        if matches!(v.value, Value::Seq(_) | Value::Map(_)) {
            problems.push(RuleProblem::field_type(
                "metadata.values",
                v.span,
                format!(
                    "metadata values must be strings; \"{}\" is {}",
                    k.scalar_text().unwrap_or(""),
                    v.describe()
                ),
            ));
        }
    }
}

/// `allowed-tools`: a string (the spec: space-separated), or for other profiles a list of
/// strings.
fn check_allowed_tools(fm: &Frontmatter, profile: Profile, problems: &mut Vec<RuleProblem>) {
    let Some(e) = present(fm, profile, "allowed-tools") else {
        return;
    };
    let ok = match &e.value.value {
        Value::Scalar {
            kind: ScalarKind::Str,
            ..
        } => true,
        Value::Seq(items) if profile != Profile::Spec => items.iter().all(|i| i.as_str().is_some()),
        _ => false,
    };
    if !ok {
        let m = if profile == Profile::Spec {
            "\"allowed-tools\" must be a space-separated string"
        } else {
            "\"allowed-tools\" must be a string or a list of strings"
        };
        field_type(problems, "allowed-tools", e, m.into());
    }
}

/// The boolean keys `disable-model-invocation`, `user-invocable` and `background` (Claude Code
/// 2.1.332 also reads the strings `true`/`yes`/`on`/`1` and `false`/`no`/`off`/`0`, trimmed and
/// in any case: its `De`/`pi` helpers). Returns whether the model may invoke the
/// skill.
fn check_booleans(fm: &Frontmatter, profile: Profile, problems: &mut Vec<RuleProblem>) -> bool {
    let mut model_invocable = true;
    for key in ["disable-model-invocation", "user-invocable", "background"] {
        let Some(e) = present(fm, profile, key) else {
            continue;
        };
        let v = match &e.value.value {
            Value::Scalar {
                kind: ScalarKind::Bool(b),
                ..
            } => Some(*b),
            Value::Scalar {
                text,
                kind: ScalarKind::Str | ScalarKind::Int,
                ..
            } if profile == Profile::ClaudeCode => {
                match text.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" | "on" | "1" => Some(true),
                    "false" | "no" | "off" | "0" => Some(false),
                    _ => None,
                }
            }
            _ => None,
        };
        match v {
            Some(true) if key == "disable-model-invocation" => model_invocable = false,
            Some(_) => {}
            None => {
                let found = match e.value.scalar_text() {
                    Some(t) if e.value.as_str().is_some() => format!("\"{t}\""),
                    Some(t) => t.to_string(),
                    None => e.value.describe().to_string(),
                };
                field_type(
                    problems,
                    key,
                    e,
                    format!("\"{key}\" must be true or false, found {found}"),
                );
            }
        }
    }
    model_invocable
}
