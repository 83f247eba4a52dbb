//! The editor's strings for instruction files (spec/instructions.md §6) as pure functions: the code-lens title and
//! the hover of an instruction file (from its [`FileReport`]), the hover and optional lens of an
//! ordinary file (from its [`Explanation`]), and the Markdown headings for `documentSymbol`.

use super::diagnostics::FileReport;
use super::explain::Explanation;
use super::{Load, Truncation, directories, tokens};
use alisio_base::config::Host;
use alisio_base::text::TextRange;

fn status(r: &FileReport, host: Host) -> String {
    if let Some(reason) = &r.not_read {
        return format!("not read: {reason}");
    }
    if r.empty {
        return "empty".to_string();
    }
    let n = r.dirs;
    let cut_word = if host == Host::Codex {
        "end cut"
    } else {
        "beginning cut"
    };
    match (r.cut, r.dropped) {
        (0, 0) => "loaded in full".to_string(),
        (k, 0) => format!("{cut_word} in {k} of {n}"),
        (0, m) => format!("dropped in {m} of {n}"),
        (k, m) => format!("cut in {k}, dropped in {m} of {n}"),
    }
}

/// The code-lens title of an instruction file:
/// `<kind> · <N> director(y/ies) · <status> · ~<T> tokens`.
#[must_use]
pub fn instruction_lens_title(r: &FileReport, host: Host) -> String {
    let kind = r.kind.map_or("unread", super::FileKind::as_str);
    format!(
        "{kind} · {} · {} · ~{} tokens",
        directories(r.dirs),
        status(r, host),
        tokens(r.size)
    )
}

/// The hover on line 0 of an instruction file (`label` as explain shows its path).
#[must_use]
pub fn instruction_hover(r: &FileReport, label: &str, host: Host) -> String {
    let kind = r.kind.map_or("unread", super::FileKind::as_str);
    let mut out = format!(
        "**{label}** — {kind}, {} bytes (~{} tokens)\n\n",
        r.size,
        tokens(r.size)
    );
    let n = r.dirs;
    let mut lines = Vec::new();
    if let Some(reason) = &r.not_read {
        lines.push(format!("Not read: {reason}."));
    } else if r.empty {
        lines.push(format!(
            "Empty: it adds nothing (startup list of {}).",
            directories(n)
        ));
    } else {
        let full = n.saturating_sub(r.cut + r.dropped);
        if full > 0 {
            lines.push(format!("Loaded in full for {full} of {}.", directories(n)));
        }
        if let Some((dir, kept)) = &r.cut_example {
            let part = if host == Host::Codex { "first" } else { "last" };
            let what = if host == Host::Codex {
                "End cut"
            } else {
                "Beginning cut"
            };
            lines.push(format!(
                "{what} for {} of {n} (e.g. `{dir}`: only the {part} {kept} of {} bytes).",
                r.cut, r.size
            ));
        }
        if let Some(dir) = &r.dropped_example {
            lines.push(format!("Dropped for {} of {n} (e.g. `{dir}`).", r.dropped));
        }
    }
    if r.file_cut {
        lines.push(format!(
            "Only the first 262144 of {} bytes are read (per-file limit).",
            r.file_bytes
        ));
    }
    if r.invalid > 0 {
        lines.push(format!(
            "{} invalid UTF-8 sequence(s) reach the model as U+FFFD.",
            r.invalid
        ));
    }
    for l in lines {
        out.push_str("- ");
        out.push_str(&l);
        out.push('\n');
    }
    out
}

pub(crate) fn loaded(f: &super::ListedFile, host: Host) -> String {
    if f.load == Load::OnRead {
        return "on read".to_string();
    }
    if f.file.empty && f.file.error.is_none() {
        return "empty".to_string();
    }
    match f.truncation {
        Truncation::None => format!("in full ({} bytes)", f.bytes),
        Truncation::Beginning | Truncation::End => {
            let part = if host == Host::Codex { "first" } else { "last" };
            format!("{part} {} of {} bytes", f.kept_bytes, f.bytes)
        }
        Truncation::Dropped => format!("dropped ({} bytes)", f.bytes),
    }
}

/// The hover of an ordinary file: only on line 0 (`None` elsewhere, to stay out of the way of
/// the file's own language server).
#[must_use]
pub fn ordinary_hover(ex: &Explanation, line: u32) -> Option<String> {
    if line != 0 {
        return None;
    }
    let path = ex.show(&ex.target);
    if ex.files.is_empty() {
        return Some(format!("No instruction file applies to {path}."));
    }
    let mut out = format!(
        "**Instructions for {path}** (host {})\n\n| # | file | kind | loaded |\n|---|---|---|---|\n",
        ex.host.as_str()
    );
    for (i, f) in ex.files.iter().enumerate() {
        out.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            i + 1,
            ex.show(&f.path),
            f.kind.as_str(),
            loaded(f, ex.host)
        ));
    }
    if let Some(n) = &ex.notice {
        out.push('\n');
        out.push_str(n);
        out.push('\n');
    }
    out.push_str("\nThe closest file wins on conflicts.\n");
    if ex.host == Host::ClaudeCode {
        for f in &ex.files {
            for imp in &f.imports {
                out.push_str(&format!(
                    "imports {} (depth {})\n",
                    ex.show(&imp.path),
                    imp.depth
                ));
            }
        }
    }
    Some(out)
}

/// The optional code lens of an ordinary file (`codeLens.instructionsOnEveryFile`).
#[must_use]
pub fn ordinary_lens_title(ex: &Explanation) -> String {
    if ex.files.is_empty() {
        return "Instructions: none".to_string();
    }
    let kept: usize = ex.files.iter().map(|f| f.kept_bytes).sum();
    let total: usize = ex.files.iter().map(|f| f.bytes).sum();
    let mut s = format!(
        "Instructions: {} file(s) · {kept} of {total} bytes",
        ex.files.len()
    );
    if ex.omitted_bytes > 0 {
        s.push_str(&format!(" · {} bytes cut", ex.omitted_bytes));
    }
    s
}

/// A Markdown heading for `documentSymbol`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    /// The section: from the heading to the next heading of the same or a higher level.
    pub range: TextRange,
    /// The heading line(s) themselves.
    pub selection: TextRange,
    pub children: Vec<Heading>,
}

fn atx(line: &str) -> Option<(u8, String)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let hashes = t.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &t[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let mut text = rest.trim();
    let stripped = text.trim_end_matches('#');
    if stripped.is_empty() || stripped.ends_with([' ', '\t']) {
        text = stripped.trim_end();
    }
    Some((u8::try_from(hashes).unwrap_or(6), text.to_string()))
}

fn setext(line: &str) -> Option<u8> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let t = t.trim_end();
    if !t.is_empty() && t.bytes().all(|b| b == b'=') {
        Some(1)
    } else if !t.is_empty() && t.bytes().all(|b| b == b'-') {
        Some(2)
    } else {
        None
    }
}

/// The headings of a Markdown text (ATX and setext, outside fenced code), nested by level.
#[must_use]
pub fn headings(text: &str) -> Vec<Heading> {
    let mut flat: Vec<Heading> = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut prev: Option<(usize, usize, bool)> = None; // (start, end, is paragraph text)
    let mut off = 0;
    let mut in_frontmatter = false;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let start = off;
        off += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        // A YAML frontmatter block at the top is not Markdown.
        if i == 0 && line == "---" {
            in_frontmatter = true;
            continue;
        }
        if in_frontmatter {
            in_frontmatter = !(line == "---" || line == "...");
            continue;
        }
        let end = start + line.len();
        let t = line.trim_start_matches(' ');
        let run = |c: u8| t.bytes().take_while(|b| *b == c).count();
        let (tick, tilde) = (run(b'`'), run(b'~'));
        if line.len() - t.len() <= 3 && (tick >= 3 || tilde >= 3) {
            let (c, n) = if tick >= 3 {
                (b'`', tick)
            } else {
                (b'~', tilde)
            };
            fence = match fence {
                None => Some((c, n)),
                Some((fc, fnum)) if fc == c && n >= fnum && t[n..].trim().is_empty() => None,
                f => f,
            };
            prev = None;
            continue;
        }
        if fence.is_some() {
            continue;
        }
        if let Some((level, h)) = atx(line) {
            flat.push(Heading {
                level,
                text: h,
                range: TextRange::new(start, end),
                selection: TextRange::new(start, end),
                children: vec![],
            });
            prev = None;
            continue;
        }
        if let (Some(level), Some((ps, _, true))) = (setext(line), prev) {
            let title = text[ps..start]
                .lines()
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ");
            flat.push(Heading {
                level,
                text: title,
                range: TextRange::new(ps, end),
                selection: TextRange::new(ps, end),
                children: vec![],
            });
            prev = None;
            continue;
        }
        let blank = line.trim().is_empty();
        prev = if blank {
            None
        } else {
            match prev {
                Some((ps, _, true)) => Some((ps, end, true)),
                _ => Some((start, end, true)),
            }
        };
    }
    // Section ranges: up to the next heading of the same or a higher level.
    let ends: Vec<usize> = (0..flat.len())
        .map(|i| {
            flat.iter()
                .skip(i + 1)
                .find(|h| h.level <= flat[i].level)
                .map_or(text.len(), |h| h.range.start)
        })
        .collect();
    for (h, e) in flat.iter_mut().zip(ends) {
        h.range.end = e.max(h.selection.end);
        let trimmed = text[h.range.start..h.range.end]
            .trim_end_matches(['\n', '\r'])
            .len();
        h.range.end = h.range.start + trimmed.max(h.selection.end - h.selection.start);
    }
    nest(flat)
}

fn nest(flat: Vec<Heading>) -> Vec<Heading> {
    let mut roots: Vec<Heading> = Vec::new();
    let mut stack: Vec<Heading> = Vec::new();
    for h in flat {
        while stack.last().is_some_and(|top| top.level >= h.level) {
            let done = stack.pop();
            attach(&mut stack, &mut roots, done);
        }
        stack.push(h);
    }
    while let Some(done) = stack.pop() {
        attach(&mut stack, &mut roots, Some(done));
    }
    roots
}

fn attach(stack: &mut [Heading], roots: &mut Vec<Heading>, done: Option<Heading>) {
    let Some(done) = done else { return };
    match stack.last_mut() {
        Some(parent) => parent.children.push(done),
        None => roots.push(done),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::instructions::{Setup, diagnostics, explain, read::Reader};
    use alisio_base::config::Settings;
    use alisio_base::workspace::{DiskFs, Env};

    struct Case50 {
        _t: tempfile::TempDir,
        ws: std::path::PathBuf,
        env: Env,
    }

    fn case_50() -> Case50 {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let ws = base.join("ws");
        let home = base.join("config");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(ws.join("src/lsp")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("AGENTS.md"), "g".repeat(900)).unwrap();
        std::fs::write(ws.join("AGENTS.md"), "r".repeat(30000)).unwrap();
        std::fs::write(ws.join("src/AGENTS.override.md"), "o".repeat(10000)).unwrap();
        let env = Env {
            alisio_config_home: Some(home),
            ..Env::default()
        };
        Case50 { _t: t, ws, env }
    }

    fn setup<'a>(c: &'a Case50, s: &'a Settings, host: Host) -> Setup<'a> {
        Setup::for_test(&DiskFs, &c.env, &c.ws, s, host)
    }

    #[test]
    fn case_50_lens_on_the_root_file_counts_directories_where_it_is_cut() {
        let c = case_50();
        let s = Settings::default();
        let a = diagnostics::analyze(&setup(&c, &s, Host::Alisio), false);
        let r = a.report(&c.ws.join("AGENTS.md")).unwrap();
        assert_eq!(
            instruction_lens_title(r, Host::Alisio),
            "agents · 3 directories · beginning cut in 2 of 3 · ~7500 tokens"
        );
        let o = a.report(&c.ws.join("src/AGENTS.override.md")).unwrap();
        assert_eq!(
            instruction_lens_title(o, Host::Alisio),
            "override · 2 directories · loaded in full · ~2500 tokens"
        );
        let g = a
            .report(&c.env.alisio_config_home.clone().unwrap().join("AGENTS.md"))
            .unwrap();
        assert!(g.global);
        assert_eq!(
            instruction_lens_title(g, Host::Alisio),
            "agents · 3 directories · dropped in 2 of 3 · ~225 tokens"
        );
        assert_eq!(
            instruction_hover(r, "AGENTS.md", Host::Alisio),
            "**AGENTS.md** — agents, 30000 bytes (~7500 tokens)\n\n- Loaded in full for 1 of 3 directories.\n- Beginning cut for 2 of 3 (e.g. `src`: only the last 22768 of 30000 bytes).\n"
        );
    }

    #[test]
    fn case_50_hover_of_an_ordinary_file_shows_the_table_on_line_0_only() {
        let c = case_50();
        let s = Settings::default();
        let st = setup(&c, &s, Host::Alisio);
        let ex = explain::explain_path(
            &st,
            &Reader::new(&DiskFs),
            &c.ws,
            Path::new("src/lsp/handlers.rs"),
        )
        .unwrap();
        let g = c.env.alisio_config_home.clone().unwrap().join("AGENTS.md");
        let expected = format!(
            "**Instructions for src/lsp/handlers.rs** (host alisio)\n\n| # | file | kind | loaded |\n|---|---|---|---|\n\
             | 1 | `{}` | agents | dropped (900 bytes) |\n| 2 | `AGENTS.md` | agents | last 22768 of 30000 bytes |\n\
             | 3 | `src/AGENTS.override.md` | override | in full (10000 bytes) |\n\n\
             [truncated: 8132 bytes of farther instruction files omitted to stay within 32768 bytes; closest files kept]\n\n\
             The closest file wins on conflicts.\n",
            g.display()
        );
        assert_eq!(ordinary_hover(&ex, 0).unwrap(), expected);
        assert_eq!(ordinary_hover(&ex, 5), None);
        assert_eq!(
            ordinary_lens_title(&ex),
            "Instructions: 3 file(s) · 32768 of 40900 bytes · 8132 bytes cut"
        );
    }

    #[test]
    fn hover_without_any_file_says_so() {
        let c = case_50();
        std::fs::remove_file(c.ws.join("AGENTS.md")).unwrap();
        std::fs::remove_file(c.ws.join("src/AGENTS.override.md")).unwrap();
        let env = Env::default();
        let s = Settings::default();
        let st = Setup::for_test(&DiskFs, &env, &c.ws, &s, Host::Alisio);
        let ex =
            explain::explain_path(&st, &Reader::new(&DiskFs), &c.ws, Path::new("a.rs")).unwrap();
        assert_eq!(
            ordinary_hover(&ex, 0).unwrap(),
            "No instruction file applies to a.rs."
        );
        assert_eq!(ordinary_lens_title(&ex), "Instructions: none");
    }

    #[test]
    fn lens_of_hidden_and_empty_files_names_the_reason() {
        let c = case_50();
        std::fs::write(c.ws.join("src/AGENTS.md"), "x").unwrap();
        std::fs::write(c.ws.join("AGENT.md"), "x").unwrap();
        std::fs::create_dir_all(c.ws.join("e")).unwrap();
        std::fs::write(c.ws.join("e/AGENTS.md"), " \n").unwrap();
        let s = Settings::default();
        let a = diagnostics::analyze(&setup(&c, &s, Host::Alisio), false);
        let t = |p: &str| instruction_lens_title(a.report(&c.ws.join(p)).unwrap(), Host::Alisio);
        assert_eq!(
            t("src/AGENTS.md"),
            "agents · 0 directories · not read: hidden by AGENTS.override.md · ~1 tokens"
        );
        assert_eq!(
            t("AGENT.md"),
            "legacy · 0 directories · not read: AGENTS.md wins · ~1 tokens"
        );
        assert_eq!(t("e/AGENTS.md"), "agents · 1 directory · empty · ~0 tokens");
    }

    #[test]
    fn headings_nest_by_level_with_atx_and_setext() {
        let text = "# Title\n\nintro\n\nSetup\n-----\n\n### Deep\n\n```\n# not a heading\n```\n## Two ##\ntext\n\nOther\n=====\n";
        let h = headings(text);
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].level, h[0].text.as_str()), (1, "Title"));
        let kids: Vec<(u8, &str)> = h[0]
            .children
            .iter()
            .map(|c| (c.level, c.text.as_str()))
            .collect();
        assert_eq!(kids, [(2, "Setup"), (2, "Two")]);
        assert_eq!(h[0].children[0].children[0].text, "Deep");
        assert_eq!((h[1].level, h[1].text.as_str()), (1, "Other"));
        assert_eq!(&text[h[0].selection.start..h[0].selection.end], "# Title");
        assert_eq!(
            &text[h[0].children[0].selection.start..h[0].children[0].selection.end],
            "Setup\n-----"
        );
        assert_eq!(h[0].range.start, 0);
        assert_eq!(h[0].range.end, text.find("Other").unwrap() - 2);
        assert_eq!(h[1].range.end, text.len() - 1);
        assert_eq!(headings("a\nb\n===\n")[0].text, "a b");
    }

    #[test]
    fn frontmatter_dashes_and_hash_words_are_not_headings() {
        assert!(headings("---\nname: x\n---\n#hashtag\n    # indented code\n").is_empty());
    }
}
