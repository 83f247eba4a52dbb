//! What a call would do, shown to the user before it is approved (`alisio/approve`'s
//! `preview`, docs/editors.md "Approvals with a preview"):
//! - `write_file` / `edit_file`: `{path, before, after}`: `before` the file's current text
//!   (`null` for a new file), `after` exactly the text the call writes. When either side is over
//!   1 MiB (or is not UTF-8 text), `{path, before: null, after: null, truncated: true,
//!   newFile}` instead: no text, and no half diff.
//! - `run_process` / `shell` / `bg_run`: `{command, args?, cwd}`.
//!
//! Pure over [`Fs`]: reads only, at most 1 MiB + 1 byte of the file. An edit that would fail
//! (no unique match) has no preview; the call itself reports why.

use serde_json::{Map, Value, json};

use super::confine::Confined;
use alisio_base::workspace::Fs;

/// Each side of a file preview carries at most this many bytes of text.
pub const PREVIEW_MAX: usize = 1_048_576;

/// The preview of one call of `tool`, `None` for tools that have none ([`Tool::preview`](super::Tool::preview)).
#[must_use]
pub fn of_call(
    fs: &dyn Fs,
    tool: &str,
    args: &Map<String, Value>,
    target: Option<&Confined>,
) -> Option<Value> {
    super::tool(tool)?.preview(fs, args, target)
}

/// `{command, args?, cwd}` of a process call.
pub(crate) fn process(args: &Map<String, Value>, target: Option<&Confined>) -> Option<Value> {
    let command = args.get("command").and_then(Value::as_str)?;
    let mut v = json!({"command": command, "cwd": target.map_or(".", |c| c.shown.as_str())});
    if let Some(a) = args.get("args").filter(|a| a.is_array()) {
        v["args"] = a.clone();
    }
    Some(v)
}

/// `{path, before, after}` from the current file and the text the call computes from it.
pub(crate) fn file(
    fs: &dyn Fs,
    c: &Confined,
    after_of: impl FnOnce(Option<&str>) -> Option<String>,
) -> Option<Value> {
    let before = match fs.read_prefix(&c.real, PREVIEW_MAX as u64 + 1) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => return None,
    };
    let new_file = before.is_none();
    let before_text = match &before {
        None => None,
        Some(b) if b.len() > PREVIEW_MAX => return Some(truncated(c, new_file)),
        Some(b) => match std::str::from_utf8(b) {
            Ok(t) => Some(t),
            Err(_) => return Some(truncated(c, new_file)),
        },
    };
    let after = after_of(before_text)?;
    if after.len() > PREVIEW_MAX {
        return Some(truncated(c, new_file));
    }
    let hunks = crate::diff::hunks(before_text.unwrap_or(""), &after);
    Some(json!({"path": c.shown, "before": before_text, "after": after, "hunks": hunks}))
}

fn truncated(c: &Confined, new_file: bool) -> Value {
    json!({"path": c.shown, "before": null, "after": null, "truncated": true, "newFile": new_file})
}

/// The text `edit_file` writes: `old` replaced by `new` exactly once, with the CRLF retry of
/// spec/sessions.md §3.4 (a file that uses `\r\n` throughout matches an `old` written with `\n`).
///
/// # Errors
/// The tool's error text when `old` equals `new` or does not match exactly once.
pub fn apply_edit(text: &str, old: &str, new: &str) -> super::error::ToolReturn {
    if old == new {
        return Err("Edit changes nothing: oldText equals newText".into());
    }
    let mut n = text.matches(old).count();
    let (mut o, mut nw) = (old.to_string(), new.to_string());
    if n == 0
        && text.contains("\r\n")
        && text.matches('\n').count() == text.matches("\r\n").count()
        && old.contains('\n')
    {
        let crlf = |s: &str| s.replace("\r\n", "\n").replace('\n', "\r\n");
        o = crlf(old);
        nw = crlf(new);
        n = text.matches(o.as_str()).count();
    }
    if n != 1 {
        return Err(format!("Edit must match exactly one occurrence (found {n})").into());
    }
    Ok(text.replacen(o.as_str(), &nw, 1))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use alisio_base::workspace::DiskFs;

    fn obj(v: &Value) -> &Map<String, Value> {
        v.as_object().unwrap()
    }

    fn confined(dir: &Path, name: &str) -> Confined {
        Confined {
            lexical: dir.join(name),
            real: dir.join(name),
            shown: name.to_string(),
        }
    }

    #[test]
    fn an_edit_shows_the_file_before_and_exactly_what_is_written_after() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.txt"), "one\r\ntwo\r\n").unwrap();
        let c = confined(d.path(), "a.txt");
        let args =
            json!({"path": "a.txt", "oldText": "one\ntwo", "newText": "1\n2", "expectedHash": "x"});
        assert_eq!(
            of_call(&DiskFs, "edit_file", obj(&args), Some(&c)),
            Some(
                json!({"path": "a.txt", "before": "one\r\ntwo\r\n", "after": "1\r\n2\r\n",
                "hunks": [{"oldStart": 0, "oldLines": 2, "newStart": 0, "newLines": 2}]})
            )
        );
        let no_match = json!({"oldText": "three", "newText": "3"});
        assert_eq!(
            of_call(&DiskFs, "edit_file", obj(&no_match), Some(&c)),
            None
        );
    }

    #[test]
    fn a_new_file_has_before_null_and_an_oversized_side_has_no_text() {
        let d = tempfile::tempdir().unwrap();
        let c = confined(d.path(), "new.txt");
        let args = json!({"path": "new.txt", "content": "hello\n"});
        assert_eq!(
            of_call(&DiskFs, "write_file", obj(&args), Some(&c)),
            Some(
                json!({"path": "new.txt", "before": null, "after": "hello\n",
                "hunks": [{"oldStart": 0, "oldLines": 0, "newStart": 0, "newLines": 1}]})
            )
        );
        let big = json!({"content": "x".repeat(PREVIEW_MAX + 1)});
        assert_eq!(
            of_call(&DiskFs, "write_file", obj(&big), Some(&c)),
            Some(
                json!({"path": "new.txt", "before": null, "after": null, "truncated": true, "newFile": true})
            )
        );
        let exact = json!({"content": "x".repeat(PREVIEW_MAX)});
        let v = of_call(&DiskFs, "write_file", obj(&exact), Some(&c)).unwrap();
        assert_eq!(v["after"].as_str().map(str::len), Some(PREVIEW_MAX));
    }

    #[test]
    fn a_process_call_shows_its_command_and_directory() {
        let d = tempfile::tempdir().unwrap();
        let c = confined(d.path(), "src");
        let args = json!({"command": "cargo", "args": ["test", "-q"], "cwd": "src"});
        assert_eq!(
            of_call(&DiskFs, "run_process", obj(&args), Some(&c)),
            Some(json!({"command": "cargo", "args": ["test", "-q"], "cwd": "src"}))
        );
        assert_eq!(
            of_call(
                &DiskFs,
                "shell",
                obj(&json!({"command": "ls | wc -l"})),
                None
            ),
            Some(json!({"command": "ls | wc -l", "cwd": "."}))
        );
        assert_eq!(
            of_call(&DiskFs, "bg_stop", obj(&json!({"id": "t1"})), None),
            None
        );
    }
}
