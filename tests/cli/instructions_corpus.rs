//! `context explain` over every directory of the real nested AGENTS.md sets of
//! `../shared/corpus/agents-md/`, checked against an independent computation of §2.5–§2.6
//! written here (sizes from disk, closest files kept, the notice text).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Ws, corpus};

fn dirs_below(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        let mut kids: Vec<PathBuf> = std::fs::read_dir(&out[i])
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() && !p.is_symlink())
            .collect();
        kids.sort();
        out.extend(kids);
        i += 1;
    }
    out
}

/// The expected `(path, bytes, keptBytes, truncation)` rows, omitted bytes and notice.
type Rows = Vec<(String, usize, usize, String)>;

fn expected(root: &Path, dir: &Path, max: usize) -> (Rows, usize, Option<String>) {
    let mut chain = vec![root.to_path_buf()];
    let rel = dir.strip_prefix(root).unwrap();
    for c in rel.components() {
        let next = chain.last().unwrap().join(c);
        chain.push(next);
    }
    let mut files: Vec<(String, String)> = Vec::new();
    for d in &chain {
        for name in ["AGENTS.override.md", "AGENTS.md", "AGENT.md"] {
            let p = d.join(name);
            let meta = std::fs::symlink_metadata(&p);
            if meta.is_ok_and(|m| m.file_type().is_file()) {
                let raw = std::fs::read(&p).unwrap();
                let body = raw.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(&raw);
                let mut text = String::from_utf8_lossy(body).into_owned();
                if text.len() > 262_144 {
                    let mut at = 262_144;
                    while !text.is_char_boundary(at) {
                        at -= 1;
                    }
                    text.truncate(at);
                }
                if text.chars().all(char::is_whitespace) {
                    text.clear();
                }
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((rel, text));
                break;
            }
        }
    }
    let mut remaining = max;
    let mut omitted = 0;
    let mut rows = Vec::new();
    for (path, text) in files.iter().rev() {
        let s = text.len();
        let (kept, t) = if s == 0 {
            (0, "none")
        } else if remaining == 0 {
            omitted += s;
            (0, "dropped")
        } else if s <= remaining {
            remaining -= s;
            (s, "none")
        } else {
            let mut start = s - remaining;
            while !text.is_char_boundary(start) {
                start += 1;
            }
            omitted += start;
            remaining = 0;
            (s - start, "beginning")
        };
        rows.push((path.clone(), s, kept, t.to_string()));
    }
    rows.reverse();
    let notice = (omitted > 0).then(|| {
        format!("[truncated: {omitted} bytes of farther instruction files omitted to stay within {max} bytes; closest files kept]")
    });
    (rows, omitted, notice)
}

#[test]
fn explain_budget_matches_an_independent_computation_on_real_monorepos() {
    let Some(corpus) = corpus() else {
        eprintln!("../shared/corpus is absent; skipping");
        return;
    };
    let sets_dir = corpus.join("agents-md/gabrielmoreira__agent-skills-mirror/mirrors/repos");
    let Ok(entries) = std::fs::read_dir(&sets_dir) else {
        eprintln!("no nested AGENTS.md sets in the corpus; skipping");
        return;
    };
    let mut sets: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    let ws = Ws::new();
    ws.file("small.json", r#"{"context": {"maxBytes": 4096}}"#);
    let small = ws.root.join("small.json");
    let mut checked = 0;
    let mut cut_seen = 0;
    for set in &sets {
        for dir in dirs_below(set) {
            let rel = dir
                .strip_prefix(set)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let target = if rel.is_empty() {
                ".".to_string()
            } else {
                format!("{rel}/")
            };
            for (max, extra) in [
                (32768usize, vec![]),
                (
                    4096,
                    vec!["--config".to_string(), small.to_string_lossy().into_owned()],
                ),
            ] {
                let mut args = vec![
                    "context".to_string(),
                    "explain".into(),
                    "--json".into(),
                    "--cwd".into(),
                    set.to_string_lossy().into_owned(),
                    target.clone(),
                ];
                args.extend(extra);
                let r = ws.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
                assert_eq!(r.code, 0, "{r:?}");
                let v: Value = r.json();
                if v["workspace"] != set.to_str().unwrap() {
                    eprintln!(
                        "a .git above the corpus makes {} part of a larger workspace; skipping",
                        set.display()
                    );
                    return;
                }
                let (rows, omitted, notice) = expected(set, &dir, max);
                let got: Vec<(String, usize, usize, String)> = v["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| {
                        (
                            f["path"].as_str().unwrap().to_string(),
                            f["bytes"].as_u64().unwrap() as usize,
                            f["keptBytes"].as_u64().unwrap() as usize,
                            f["truncation"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect();
                assert_eq!(got, rows, "{} ({target}, max {max})", set.display());
                assert_eq!(v["omittedBytes"].as_u64().unwrap() as usize, omitted);
                assert_eq!(v["notice"].as_str().map(str::to_string), notice);
                assert_eq!(v["maxBytes"].as_u64().unwrap() as usize, max);
                let kept: usize = got.iter().map(|r| r.2).sum();
                assert!(kept <= max);
                if omitted > 0 {
                    assert!(
                        kept + 3 >= max,
                        "kept {kept} of {max} with {omitted} omitted"
                    );
                    cut_seen += 1;
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
    assert!(
        cut_seen > 0,
        "the 4096-byte budget cuts something in a real monorepo"
    );
    eprintln!("{checked} explains checked, {cut_seen} with a cut");
}
