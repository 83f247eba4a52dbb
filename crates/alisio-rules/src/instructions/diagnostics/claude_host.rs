//! spec/instructions.md §5 diagnostics of host `claude-code`: the AGENTS mode and the 4 MiB skip.

#[allow(clippy::wildcard_imports)]
use super::*;

pub(super) fn claude_host(cx: &mut Ctx<'_, '_>, set: &DirSet) -> Option<PathBuf> {
    let setup = cx.setup;
    let names: Vec<String> = ["CLAUDE.md", "AGENTS.md", "CLAUDE.local.md"]
        .map(str::to_string)
        .to_vec();
    let relevant = |entries: &[DirEntry]| {
        names.iter().any(|n| chain::find(entries, n).is_some())
            || chain::find(entries, ".claude").is_some()
    };
    let mut significant = Vec::with_capacity(set.dirs.len());
    for d in &set.dirs {
        significant.push(relevant(&d.entries));
        cx.near_misses(&d.path, &d.entries, &names);
    }
    let (_, size) = groups(set, &significant);
    let mut read_files: Vec<(PathBuf, FileKind, Arc<FileText>)> = Vec::new();
    let mut listed: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let canon = |p: &Path| setup.fs.canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut delivered: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut excluded: Vec<(PathBuf, PathBuf, usize)> = Vec::new();
    for k in sorted_keys(&size) {
        let weight = size.get(&k).copied().unwrap_or(0);
        let rep = k.unwrap_or(0);
        let Some(node) = set.dirs.get(rep) else {
            continue;
        };
        let l = claude::list(setup, cx.reader, &node.path, &node.path);
        if node.path == setup.root {
            always_loaded(cx, &l.files);
        }
        too_deep(cx, &l.files);
        for f in &l.files {
            if listed.insert(f.path.clone()) {
                read_files.push((f.path.clone(), f.kind, f.file.clone()));
            }
        }
        cx.account(&l.files, weight, node);
        for f in &l.files {
            if f.delivery == super::super::DeliveryMode::OnAccess
                || f.file.empty
                || f.truncation == super::super::Truncation::Dropped
            {
                continue;
            }
            delivered.insert(canon(&f.path));
            for i in &f.imports {
                if !i.approval {
                    delivered.insert(canon(&i.path));
                }
            }
        }
        for (agents, claude_file) in &l.excluded_agents {
            excluded.push((agents.clone(), claude_file.clone(), weight));
        }
    }
    // spec/instructions.md §5.2: an AGENTS file that Claude Code delivers for some directory
    // of D (as a file, through a CLAUDE.md symlink, or as an expanded import) is read; only
    // one delivered nowhere gets `instructions-dropped`, naming the CLAUDE file that blocks it
    // in its own directory chain when there is one.
    for (agents, claude_file, weight) in excluded {
        if delivered.contains(&canon(&agents)) {
            continue;
        }
        let text = cx.reader.read(&agents, ReadMode::Claude);
        if claude::delivered_text(&text.text).is_empty() {
            // Empty: `instructions-empty` says it adds nothing; it blocks nothing either.
            continue;
        }
        let own_chain = |c: &Path| {
            c.parent()
                .map(|d| d.strip_suffix_dot_claude())
                .is_some_and(|d| agents.parent().is_some_and(|a| a.starts_with(d)))
        };
        let e = cx.effects.entry(agents.clone()).or_default();
        let (prev, best) = e.agents_mode.take().map_or((0, None), |p| (p.0, Some(p.1)));
        let blocker = match best {
            Some(b) if own_chain(&b) || !own_chain(&claude_file) => b,
            _ => claude_file,
        };
        e.agents_mode = Some((prev + weight, blocker));
        if !cx.texts.contains_key(&agents) {
            let t = cx.reader.read(&agents, ReadMode::Claude);
            cx.texts.insert(agents.clone(), t);
        }
        cx.report(&agents, Some(FileKind::Agents), None);
    }
    // Per-file facts for the workspace's own files; user, managed and ancestor files are
    // reported only when opened (like the alisio global file).
    for (path, kind, file) in read_files {
        cx.report(&path, Some(kind), None);
        if path.starts_with(setup.root) {
            cx.file_facts(&path, &file, &[]);
            let home = setup.env.home.as_deref();
            for (code, r, msg) in
                content::claude_imports::findings(setup.fs, home, &path, &file.text, false)
            {
                let span = LineIndex::new(&file.text).span(r);
                cx.push(&path, span, code, msg, vec![]);
            }
        }
    }
    rules_not_listed(cx, set, &listed);
    None
}

/// `instructions-always-loaded-long` for the root's startup list (spec/instructions.md §5.5),
/// on its first workspace file.
fn always_loaded(cx: &mut Ctx<'_, '_>, files: &[super::super::ListedFile]) {
    use content::always_loaded::{lines, message};
    let root = cx.setup.root;
    let mut parts: Vec<(String, usize)> = Vec::new();
    let mut first: Option<PathBuf> = None;
    for f in files {
        if f.delivery == super::super::DeliveryMode::OnAccess
            || f.file.empty
            || f.truncation == super::super::Truncation::Dropped
            || !f.path.starts_with(root)
        {
            continue;
        }
        first.get_or_insert_with(|| f.path.clone());
        parts.push((
            cx.show(&f.path),
            lines(&claude::delivered_text(&f.file.text)),
        ));
        for i in f
            .imports
            .iter()
            .filter(|i| !i.approval && i.path.starts_with(root))
        {
            let t = cx.reader.read(&i.path, ReadMode::Claude);
            parts.push((cx.show(&i.path), lines(&t.text)));
        }
    }
    if let (Some(file), Some(msg)) = (first, message(&parts)) {
        let span = cx.first_line(&file);
        cx.push(&file, span, Code::InstructionsAlwaysLoadedLong, msg, vec![]);
    }
}

/// `instructions-import-too-deep` (spec/instructions.md §5.6): an `@import` in a workspace file
/// that is already [`claude::MAX_IMPORT_DEPTH`] hops from a listed file, naming a file the list
/// does not hold otherwise. Reported at the token in that file.
fn too_deep(cx: &mut Ctx<'_, '_>, files: &[super::super::ListedFile]) {
    let fs = cx.setup.fs;
    let mut listed = std::collections::HashSet::new();
    for f in files {
        for p in std::iter::once(&f.path).chain(f.imports.iter().map(|i| &i.path)) {
            listed.insert(p.clone());
            listed.insert(fs.canonicalize(p).unwrap_or_else(|_| p.clone()));
        }
    }
    for f in files {
        for t in claude::too_deep(cx.setup, cx.reader, f, &listed) {
            if !t.importer.starts_with(cx.setup.root) {
                continue;
            }
            let text = cx.reader.read(&t.importer, ReadMode::Claude);
            let escaped = t.token.replace(' ', "\\ ");
            let span = [format!("@{escaped}"), format!("@{}", t.token)]
                .iter()
                .find_map(|n| text.text.find(n.as_str()).map(|at| (at, n.len())))
                .map_or_else(
                    || cx.first_line(&t.importer),
                    |(at, len)| {
                        LineIndex::new(&text.text)
                            .span(alisio_base::text::TextRange::new(at, at + len))
                    },
                );
            let chain: Vec<String> = t.chain.iter().map(|p| cx.show(p)).collect();
            let msg = format!(
                "@{escaped} is not imported: this file is {} imports deep ({}), and Claude Code follows @imports at most {} hops, so {} is not delivered; import it from a file nearer {}",
                t.chain.len() - 1,
                chain.join(" → "),
                claude::MAX_IMPORT_DEPTH,
                cx.show(&t.target),
                chain.first().map_or("", String::as_str),
            );
            cx.push(
                &t.importer,
                span,
                Code::InstructionsImportTooDeep,
                msg,
                vec![],
            );
        }
    }
}

/// The content rules on the `.claude/rules` files of the workspace that no startup list names
/// (a `paths` rule is read when a matching file is): Claude Code reads them too.
fn rules_not_listed(
    cx: &mut Ctx<'_, '_>,
    set: &DirSet,
    listed: &std::collections::HashSet<PathBuf>,
) {
    for d in &set.dirs {
        let in_rules = d.path.strip_prefix(cx.setup.root).is_ok_and(|rel| {
            let c: Vec<_> = rel.components().map(|c| c.as_os_str()).collect();
            c.windows(2).any(|w| w[0] == ".claude" && w[1] == "rules")
        });
        if !in_rules {
            continue;
        }
        for e in &d.entries {
            let path = d.path.join(&e.name);
            if e.file_type != FileType::File
                || path.extension().is_none_or(|x| x != "md")
                || listed.contains(&path)
            {
                continue;
            }
            let file = cx.reader.read(&path, ReadMode::Claude);
            let found = content::checks(&file.text)
                .into_iter()
                .chain(content::disk_checks(
                    cx.setup.fs,
                    cx.setup.root,
                    &path,
                    &file.text,
                ));
            for (code, r, msg) in found {
                let span = LineIndex::new(&file.text).span(r);
                cx.push(&path, span, code, msg, vec![]);
            }
        }
    }
}

/// `dir` without a trailing `.claude` component (a `.claude/CLAUDE.md` blocks from its
/// parent directory).
trait StripDotClaude {
    fn strip_suffix_dot_claude(&self) -> &Path;
}

impl StripDotClaude for Path {
    fn strip_suffix_dot_claude(&self) -> &Path {
        if self.file_name().is_some_and(|n| n == ".claude") {
            self.parent().unwrap_or(self)
        } else {
            self
        }
    }
}
