//! `search_text` (spec/sessions.md §3.4): a native search over the `list_files` walk with the `regex`
//! crate, printing ripgrep's `--json` lines. No external `rg`.

use super::error::{ToolError, ToolReturn};
use std::time::{Duration, Instant};

use regex::bytes::RegexBuilder;
use serde_json::{Value, json};

use super::ToolCtx;
use super::args::SearchText;
use super::files::walker;

const MAX_STDOUT: usize = 32_000;
const MAX_LINES_PER_FILE: usize = 100;

fn elapsed(d: Duration) -> Value {
    json!({"secs":d.as_secs(),"nanos":d.subsec_nanos(),"human":format!("{:.6}s",d.as_secs_f64())})
}

fn data_text(b: &[u8]) -> Value {
    match std::str::from_utf8(b) {
        Ok(s) => json!({"text":s}),
        Err(_) => json!({"bytes":base64(b)}),
    }
}

fn base64(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

#[derive(Default)]
struct Stats {
    searches: u64,
    with_match: u64,
    bytes_searched: u64,
    bytes_printed: u64,
    matched_lines: u64,
    matches: u64,
}

impl Stats {
    fn json(&self, d: Duration) -> Value {
        json!({"elapsed":elapsed(d),"searches":self.searches,"searches_with_match":self.with_match,"bytes_searched":self.bytes_searched,
            "bytes_printed":self.bytes_printed,"matched_lines":self.matched_lines,"matches":self.matches})
    }
}

/// `search_text`.
///
/// # Errors
/// The tool's error text (confinement, invalid pattern or glob).
pub fn search_text(ctx: &ToolCtx, a: &SearchText) -> ToolReturn {
    let (pattern, path, literal, glob) = (
        a.pattern.as_str(),
        a.path.as_str(),
        a.literal,
        a.glob.as_deref(),
    );
    let c = ctx.roots.confine(path)?;
    let pat = if literal {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    let re = RegexBuilder::new(&pat)
        .multi_line(true)
        .build()
        .map_err(|e| format!("Invalid pattern: {e}"))?;
    let matcher = match glob {
        Some(g) => Some(
            globset::Glob::new(g)
                .map_err(|e| format!("Invalid glob: {e}"))?
                .compile_matcher(),
        ),
        None => None,
    };
    if !c.real.exists() {
        return Err(ToolError::FileNotFound(c.shown));
    }
    let started = Instant::now();
    let mut out = String::new();
    let mut stderr = String::new();
    let mut total = Stats::default();
    let mut truncated = false;
    let mut unreadable = false;
    'files: for e in walker(&c.real).flatten() {
        if ctx.cancelled() || started.elapsed() > Duration::from_secs(30) {
            truncated = true;
            break;
        }
        let Some(ft) = e.file_type() else { continue };
        let p = e.path().to_path_buf();
        if ft.is_symlink() {
            let ok = std::fs::canonicalize(&p)
                .is_ok_and(|t| t.is_file() && ctx.roots.confine(&t.to_string_lossy()).is_ok());
            if !ok {
                continue;
            }
        } else if !ft.is_file() {
            continue;
        }
        let shown_path = p
            .strip_prefix(&c.real)
            .map_or_else(|_| p.clone(), |r| c.lexical.join(r));
        let shown = ctx.roots.show(&shown_path);
        if let Some(m) = &matcher {
            let rel = shown_path.strip_prefix(&c.lexical).unwrap_or(&shown_path);
            if !(m.is_match(rel) || rel.file_name().is_some_and(|n| m.is_match(n))) {
                continue;
            }
        }
        let bytes = match std::fs::read(&p) {
            Ok(b) => b,
            Err(err) => {
                unreadable = true;
                stderr.push_str(&format!("{shown}: {err}\n"));
                continue;
            }
        };
        total.searches += 1;
        // Binary detection as ripgrep's "quit": stop at the first NUL, search what came before.
        let nul = bytes.iter().position(|&b| b == 0);
        let hay = &bytes[..nul.unwrap_or(bytes.len())];
        total.bytes_searched += hay.len() as u64;
        let t0 = Instant::now();
        let mut file = Stats {
            searches: 1,
            bytes_searched: hay.len() as u64,
            ..Stats::default()
        };
        let mut lines_out: Vec<String> = Vec::new();
        let mut off = 0usize;
        let mut line_no = 0usize;
        for line in hay.split_inclusive(|&b| b == b'\n') {
            line_no += 1;
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            let subs: Vec<Value> = re
                .find_iter(body)
                .map(|m| json!({"match":data_text(m.as_bytes()),"start":m.start(),"end":m.end()}))
                .collect();
            if !subs.is_empty() {
                if lines_out.len() >= MAX_LINES_PER_FILE {
                    break;
                }
                file.matched_lines += 1;
                file.matches += subs.len() as u64;
                lines_out.push(
                    json!({"type":"match","data":{"path":{"text":shown},"lines":data_text(line),"line_number":line_no,"absolute_offset":off,"submatches":subs}})
                        .to_string(),
                );
            }
            off += line.len();
        }
        if lines_out.is_empty() {
            continue;
        }
        file.with_match = 1;
        let mut block = vec![json!({"type":"begin","data":{"path":{"text":shown}}}).to_string()];
        block.extend(lines_out);
        let printed: usize = block.iter().map(|l| l.len() + 1).sum();
        file.bytes_printed = printed as u64;
        block.push(json!({"type":"end","data":{"path":{"text":shown},"binary_offset":nul,"stats":file.json(t0.elapsed())}}).to_string());
        for l in block {
            if out.len() + l.len() + 1 > MAX_STDOUT {
                truncated = true;
                break 'files;
            }
            out.push_str(&l);
            out.push('\n');
        }
        total.with_match += 1;
        total.bytes_printed += printed as u64;
        total.matched_lines += file.matched_lines;
        total.matches += file.matches;
    }
    if !truncated {
        let s = json!({"type":"summary","data":{"elapsed_total":elapsed(started.elapsed()),"stats":total.json(started.elapsed())}}).to_string();
        if out.len() + s.len() + 1 > MAX_STDOUT {
            truncated = true;
        } else {
            out.push_str(&s);
            out.push('\n');
        }
    }
    let code = if unreadable {
        2
    } else if total.with_match > 0 {
        0
    } else {
        1
    };
    Ok(json!({"stdout":out,"stderr":stderr,"exitCode":code,"truncated":truncated}).to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(super::base64(b"hi\xff"), "aGn/");
        assert_eq!(super::base64(b"a"), "YQ==");
    }
}
