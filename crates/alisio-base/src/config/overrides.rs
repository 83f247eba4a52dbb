//! Writing `skillOverrides.<id>.enabled` into a workspace's `.alisio/config.json`
//! (spec/skills.md §3.3).

use std::path::Path;

use serde_json::Value;

use super::layer::{CONFIG_FILE_LIMIT, Layer, Origin, too_large_message};

/// Writes `skillOverrides.<id>.enabled` into `<workspace root>/.alisio/config.json` atomically
/// (spec/skills.md §3.3 steps 3–6): no symlink is written through, the existing file must be strict
/// JSON with object members where we write, every other key and the key order are kept, and the
/// result (2-space indentation, final newline) replaces the file by rename from a temporary file
/// in the same directory. The file is never left half-written and no temporary file survives.
///
/// # Errors
/// The exact messages of spec/skills.md §3.3 (`refusing to write through a symbolic link: …`,
/// `cannot update .alisio/config.json: …`, `config.json changed while saving; try again`).
pub fn write_skill_override(workspace_root: &Path, id: &str, enabled: bool) -> Result<(), String> {
    use crate::workspace::write::{NewContent, ReplaceOutcome};
    use crate::workspace::{FileType, Fs as _};
    let fs = crate::workspace::DiskFs;
    let dir = workspace_root.join(".alisio");
    let file = dir.join("config.json");
    let cannot = |m: String| format!("cannot update .alisio/config.json: {m}");
    match fs.symlink_metadata(&dir) {
        Ok(m) if m.file_type == FileType::Symlink => {
            return Err(format!(
                "refusing to write through a symbolic link: {}",
                dir.display()
            ));
        }
        Ok(m) if m.file_type != FileType::Dir => {
            return Err(cannot(format!("{} is not a directory", dir.display())));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs.create_dir(&dir).map_err(|e| cannot(e.to_string()))?;
        }
        Err(e) => return Err(cannot(e.to_string())),
    }
    for attempt in 0..2 {
        let before = match fs.symlink_metadata(&file) {
            Ok(m) if m.file_type == FileType::Symlink => {
                return Err(format!(
                    "refusing to write through a symbolic link: {}",
                    file.display()
                ));
            }
            Ok(m) if m.file_type != FileType::File => {
                return Err(cannot("config.json is not a regular file".into()));
            }
            Ok(m) if m.len > CONFIG_FILE_LIMIT => return Err(cannot(too_large_message())),
            Ok(m) => Some(m),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(cannot(e.to_string())),
        };
        let mut text = String::new();
        let mut root = match &before {
            None => Value::Object(serde_json::Map::new()),
            Some(_) => {
                let bytes = fs.read(&file).map_err(|e| cannot(e.to_string()))?;
                text = String::from_utf8(bytes)
                    .map_err(|_| cannot("stream did not contain valid UTF-8".to_string()))?;
                let t = text.strip_prefix('\u{feff}').unwrap_or(&text);
                if t.trim().is_empty() {
                    Value::Object(serde_json::Map::new())
                } else {
                    serde_json::from_str::<Value>(t).map_err(|e| cannot(e.to_string()))?
                }
            }
        };
        // Where a value sits, for messages (1-based line and column).
        let at = |key: &str| -> String {
            let span = Layer::from_file_text(Origin::Project, &file, "config.json", &text)
                .ok()
                .and_then(|l| l.span_of(key));
            let offset = span.map_or(0, |r| r.start);
            let lc = crate::text::LineIndex::new(&text).line_col(offset);
            format!("at line {} column {}", lc.line + 1, lc.utf16 + 1)
        };
        let Value::Object(top) = &mut root else {
            return Err(cannot(format!("the top level is not an object {}", at(""))));
        };
        let overrides = top
            .entry("skillOverrides")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        let Value::Object(overrides) = overrides else {
            return Err(cannot(format!(
                "skillOverrides is not an object {}",
                at("skillOverrides")
            )));
        };
        let slot = overrides
            .entry(id.to_string())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        let Value::Object(slot) = slot else {
            return Err(cannot(format!(
                "skillOverrides.{id} is not an object {}",
                at(&format!("skillOverrides.{id}"))
            )));
        };
        slot.insert("enabled".into(), Value::Bool(enabled));
        let mut out = serde_json::to_string_pretty(&root).map_err(|e| cannot(e.to_string()))?;
        out.push('\n');
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
            ^ (attempt * 7919);
        let tmp = format!("config.json.{}.{nonce:08x}.tmp", std::process::id());
        let new = NewContent {
            bytes: out.as_bytes(),
            temp_name: &tmp,
            expected: before.as_ref(),
        };
        match fs.replace_file(&file, &new) {
            Ok(ReplaceOutcome::Written) => return Ok(()),
            Ok(ReplaceOutcome::Changed) => {}
            Err(e) => return Err(cannot(e.to_string())),
        }
    }
    Err("config.json changed while saving; try again".to_string())
}

#[cfg(test)]
mod override_tests {
    use super::*;

    #[test]
    fn override_write_keeps_other_keys_in_order_with_two_space_indentation() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path();
        std::fs::create_dir(ws.join(".alisio")).unwrap();
        std::fs::write(
            ws.join(".alisio/config.json"),
            r#"{"model":"x","skillOverrides":{"b":{"enabled":false,"note":1}}}"#,
        )
        .unwrap();
        write_skill_override(ws, "pdf", false).unwrap();
        let got = std::fs::read_to_string(ws.join(".alisio/config.json")).unwrap();
        assert_eq!(
            got,
            "{\n  \"model\": \"x\",\n  \"skillOverrides\": {\n    \"b\": {\n      \"enabled\": false,\n      \"note\": 1\n    },\n    \"pdf\": {\n      \"enabled\": false\n    }\n  }\n}\n"
        );
        let names: Vec<_> = std::fs::read_dir(ws.join(".alisio"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["config.json"]);
    }

    #[test]
    fn override_write_creates_the_directory_and_writes_explicit_true() {
        let t = tempfile::tempdir().unwrap();
        write_skill_override(t.path(), "a", true).unwrap();
        assert_eq!(
            std::fs::read_to_string(t.path().join(".alisio/config.json")).unwrap(),
            "{\n  \"skillOverrides\": {\n    \"a\": {\n      \"enabled\": true\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn override_write_refuses_invalid_json_and_symlinks_leaving_bytes_unchanged() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path();
        std::fs::create_dir(ws.join(".alisio")).unwrap();
        std::fs::write(ws.join(".alisio/config.json"), r#"{"a":"#).unwrap();
        let e = write_skill_override(ws, "pdf", false).unwrap_err();
        assert_eq!(
            e,
            "cannot update .alisio/config.json: EOF while parsing a value at line 1 column 5"
        );
        assert_eq!(
            std::fs::read_to_string(ws.join(".alisio/config.json")).unwrap(),
            r#"{"a":"#
        );
        std::fs::write(ws.join(".alisio/config.json"), r#"{"skillOverrides": 3}"#).unwrap();
        assert_eq!(
            write_skill_override(ws, "pdf", false).unwrap_err(),
            "cannot update .alisio/config.json: skillOverrides is not an object at line 1 column 20"
        );
        #[cfg(unix)]
        {
            std::fs::write(ws.join("target.json"), "{}").unwrap();
            std::fs::remove_file(ws.join(".alisio/config.json")).unwrap();
            std::os::unix::fs::symlink(ws.join("target.json"), ws.join(".alisio/config.json"))
                .unwrap();
            let e = write_skill_override(ws, "pdf", false).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "refusing to write through a symbolic link: {}",
                    ws.join(".alisio/config.json").display()
                )
            );
            assert_eq!(
                std::fs::read_to_string(ws.join("target.json")).unwrap(),
                "{}"
            );
        }
    }
}
