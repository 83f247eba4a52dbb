//! `governor analyze --delegation` (spec/governor.md §11.9): the main-thread share of
//! transcripts with sub-agents: Claude Code sidechains and `<session>/subagents/agent-*.jsonl`
//! files beside the main file, alisio's child session exports among the inputs.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Ctx, Exit, Failure, err_line, out};
use alisio_governor::delegation;
use alisio_governor::model::Message;
use alisio_governor::readers::{self, Format};

/// One input file, read.
struct Input {
    shown: String,
    format: Format,
    sessions: Vec<readers::Session>,
    /// alisio exports: `(session id, parent id)`.
    ids: Option<(String, Option<String>)>,
}

fn read(path: &Path, shown: &str, format: Option<Format>) -> Result<Input, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let (format, sessions) = readers::read(&bytes, format, shown).map_err(|e| e.to_string())?;
    let ids = (format == Format::Alisio)
        .then(|| serde_json::from_slice::<Value>(&bytes).ok())
        .flatten()
        .map(|v| {
            (
                v["session"]["id"].as_str().unwrap_or_default().to_string(),
                v["session"]["parentId"].as_str().map(String::from),
            )
        });
    Ok(Input {
        shown: shown.to_string(),
        format,
        sessions,
        ids,
    })
}

/// `<dir>/<stem>/subagents/*.jsonl`, sorted.
fn subagent_files(main: &Path) -> Vec<PathBuf> {
    let Some(stem) = main.file_stem() else {
        return Vec::new();
    };
    let dir = main.with_file_name(stem).join("subagents");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    v
}

/// Runs `governor analyze --delegation`.
///
/// # Errors
/// None beyond the per-file errors (printed; exit 2).
pub fn run(ctx: &Ctx, files: &[PathBuf], format: Option<Format>) -> Result<Exit, Failure> {
    let mut failed = false;
    let mut inputs = Vec::new();
    for p in files {
        let shown = p.display().to_string();
        match read(&ctx.resolve(p), &shown, format) {
            Ok(i) => inputs.push((ctx.resolve(p), i)),
            Err(e) => {
                err_line(&format!("error: {shown}: {e}"));
                failed = true;
            }
        }
    }
    let parents: Vec<String> = inputs
        .iter()
        .filter_map(|(_, i)| i.ids.as_ref().map(|x| x.0.clone()))
        .collect();
    let mut rows = Vec::new();
    for (path, i) in &inputs {
        // A child export whose parent is among the inputs is counted with its parent.
        if i.ids
            .as_ref()
            .and_then(|x| x.1.as_ref())
            .is_some_and(|p| parents.contains(p))
        {
            continue;
        }
        let Some(main) = i.sessions.first() else {
            continue;
        };
        let mut subs: Vec<Vec<Message>> =
            i.sessions[1..].iter().map(|s| s.history.clone()).collect();
        if i.format == Format::ClaudeCode {
            for f in subagent_files(path) {
                match read(&f, &f.display().to_string(), Some(Format::ClaudeCode)) {
                    Ok(x) => subs.extend(x.sessions.into_iter().map(|s| s.history)),
                    Err(e) => err_line(&format!("error: {}: {e}", f.display())),
                }
            }
        }
        if let Some((id, _)) = &i.ids {
            for (_, c) in &inputs {
                if c.ids.as_ref().and_then(|x| x.1.as_ref()) == Some(id) {
                    subs.extend(c.sessions.iter().map(|s| s.history.clone()));
                }
            }
        }
        let refs: Vec<&[Message]> = subs.iter().map(Vec::as_slice).collect();
        let mut f = delegation::figures(&main.history, &refs);
        f["file"] = json!(i.shown);
        f["format"] = json!(i.format.as_str());
        f["session"] = json!(main.source.session);
        rows.push(f);
    }
    if ctx.args.json {
        out(&format!(
            "{}\n",
            serde_json::to_string(&rows).unwrap_or_default()
        ));
    } else {
        for r in &rows {
            out(&format!(
                "{} [{}]: {} sub-agents; main thread {} of turns, {} of tool calls, {} of chars; {} briefs, {} chars\n",
                r["file"].as_str().unwrap_or_default(),
                r["session"].as_str().unwrap_or_default(),
                r["subagents"],
                r["mainShare"]["turns"],
                r["mainShare"]["toolCalls"],
                r["mainShare"]["chars"],
                r["briefs"]["count"],
                r["briefs"]["chars"],
            ));
        }
    }
    Ok(if failed { Exit::Usage } else { Exit::Ok })
}
