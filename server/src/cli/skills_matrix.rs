//! `alisio-ls skills validate --matrix [PATH...]` (spec/skills.md §12): one answer per skill and
//! host, human or `--json`.

use std::path::{Path, PathBuf};

use super::{Ctx, Exit, Failure, out};
use alisio_base::workspace::{FileType, Fs as _};
use alisio_rules::skills::{catalog, validity};

/// The SKILL.md files of the PATHs as given (links kept, so the matrix sees them): a
/// `SKILL.md`, a skill directory, or a root whose children (directories or links to them)
/// hold one. Without PATH, the skills the host discovers from the cwd.
fn files(ctx: &Ctx, paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    if paths.is_empty() {
        let d =
            catalog::discover_host_for(&ctx.fs, ctx.skill_input(), &ctx.cwd, ctx.args.host, None);
        let mut v: Vec<PathBuf> = d.skills.iter().map(|s| s.candidate.file.clone()).collect();
        v.dedup();
        return Ok(v);
    }
    let is_file = |p: &Path| {
        ctx.fs
            .metadata(p)
            .is_ok_and(|m| m.file_type == FileType::File)
    };
    let mut out = Vec::new();
    for p in paths {
        let abs = ctx.resolve(p);
        let Ok(meta) = ctx.fs.metadata(&abs) else {
            return Err(Failure(format!(
                "{}: no such file or directory",
                p.display()
            )));
        };
        if meta.file_type != FileType::Dir && meta.file_type != FileType::File {
            return Err(Failure(format!("{}: not a regular file", p.display())));
        }
        if meta.file_type == FileType::File {
            if abs.file_name().is_some_and(|n| n == "SKILL.md") {
                out.push(abs);
                continue;
            }
            return Err(Failure(format!("{}: not a SKILL.md file", p.display())));
        }
        if is_file(&abs.join("SKILL.md")) {
            out.push(abs.join("SKILL.md"));
            continue;
        }
        let before = out.len();
        for e in ctx.fs.read_dir(&abs).unwrap_or_default() {
            let f = abs.join(&e.name).join("SKILL.md");
            if matches!(e.file_type, FileType::Dir | FileType::Symlink) && is_file(&f) {
                out.push(f);
            }
        }
        if out.len() == before {
            return Err(Failure(format!("{}: no SKILL.md found", p.display())));
        }
    }
    Ok(out)
}

pub fn run(ctx: &Ctx, paths: &[PathBuf]) -> Result<Exit, Failure> {
    let files = files(ctx, paths)?;
    let rows: Vec<(PathBuf, Vec<validity::Cell>)> = files
        .into_iter()
        .map(|f| {
            let r = validity::row(&ctx.fs, &f);
            (f, r)
        })
        .collect();
    if ctx.args.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(f, cells)| {
                serde_json::json!({
                    "file": ctx.display(f),
                    "hosts": cells.iter().map(|c| serde_json::json!({
                        "host": c.host,
                        "verdict": c.verdict.as_str(),
                        "reason": c.reason,
                        "evidence": c.evidence.as_str(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        out(&format!("{}\n", serde_json::Value::Array(v)));
        return Ok(Exit::Ok);
    }
    let mut s = String::new();
    for (f, cells) in &rows {
        s.push_str(&ctx.display(f));
        s.push('\n');
        for c in cells {
            s.push_str(&format!(
                "  {:<15} {} [{}]\n",
                c.host,
                c.text(),
                c.evidence.as_str()
            ));
        }
    }
    out(&s);
    Ok(Exit::Ok)
}
