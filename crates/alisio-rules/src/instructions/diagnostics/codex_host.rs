//! spec/instructions.md §5 diagnostics of host `codex`: project roots by marker, fallback names, the root-first
//! budget.

#[allow(clippy::wildcard_imports)]
use super::*;

pub(super) fn codex_host(cx: &mut Ctx<'_, '_>, set: &DirSet) -> Option<PathBuf> {
    let setup = cx.setup;
    let cfg = CodexConfig::load(setup);
    let cands = cfg.candidates();
    let names: Vec<String> = cands.iter().map(|(n, _)| n.clone()).collect();
    let limit = cfg
        .max_bytes
        .max(crate::instructions::PER_FILE_LIMIT as u64)
        + 4;
    let mut winners: Vec<Option<ListedFile>> = Vec::with_capacity(set.dirs.len());
    let mut markers: Vec<bool> = Vec::with_capacity(set.dirs.len());
    for d in &set.dirs {
        markers.push(has_marker(setup, &cfg, d));
        let (winner, losers) = codex::pick(setup.fs, &d.path, &d.entries, &cands);
        let winner = winner.map(|(name, kind)| {
            let path = d.path.join(&name);
            let file = cx.reader.read(&path, ReadMode::Raw { limit });
            cx.texts.insert(path.clone(), file.clone());
            let mut e = ListedFile::new(path, FileScope::Project, kind, file);
            e.bytes = if e.file.empty || e.file.error.is_some() {
                0
            } else {
                usize::try_from(e.file.file_bytes).unwrap_or(usize::MAX)
            };
            e.kept_bytes = e.bytes;
            (name, kind, e)
        });
        if let Some((wname, wkind, _)) = &winner {
            for l in &losers {
                cx.loser(&d.path, l, wname, *wkind);
            }
        }
        if !cands.iter().any(|(n, _)| n == "CLAUDE.md")
            && let Some(e) = chain::find(&d.entries, "CLAUDE.md")
            && (e.file_type == FileType::File
                || setup
                    .fs
                    .metadata(&d.path.join("CLAUDE.md"))
                    .is_ok_and(|m| m.file_type == FileType::File))
        {
            let p = d.path.join("CLAUDE.md");
            cx.file_level(
                &p,
                Code::InstructionsClaudeIgnored,
                "not read: project_doc_fallback_filenames does not list CLAUDE.md".into(),
                vec![],
            );
            cx.report(&p, Some(FileKind::Claude), Some("fallback off".into()));
        }
        if let Some((_, kind, e)) = &winner {
            let file = e.file.clone();
            cx.file_facts(&e.path, &file, &losers);
            cx.report(&e.path, Some(*kind), None);
        }
        cx.near_misses(&d.path, &d.entries, &names);
        winners.push(winner.map(|w| w.2));
    }
    let global = codex::global(setup, cx.reader);
    if let Some(g) = &global {
        cx.texts.insert(g.path.clone(), g.file.clone());
        cx.report(&g.path, Some(g.kind), None);
    }
    let (above, above_files) = above_root(setup, cx.reader, &cfg);
    // Group key: (codex root: Some(index) / above / none, nearest winner below that root).
    #[derive(Clone, Copy, PartialEq, Eq, Hash)]
    enum Root {
        Dir(usize),
        Above,
        Alone,
    }
    let mut croot: Vec<Root> = Vec::with_capacity(set.dirs.len());
    let mut nwin: Vec<Option<usize>> = Vec::with_capacity(set.dirs.len());
    let mut groups: HashMap<(Root, Option<usize>), (usize, usize)> = HashMap::new();
    for (i, d) in set.dirs.iter().enumerate() {
        let r = if markers[i] {
            Root::Dir(i)
        } else {
            match d.parent.and_then(|p| croot.get(p).copied()) {
                Some(r) => r,
                None => {
                    if above.is_some() {
                        Root::Above
                    } else {
                        Root::Alone
                    }
                }
            }
        };
        let has = winners[i].is_some();
        let w = if has {
            Some(i)
        } else if r == Root::Alone || r == Root::Dir(i) {
            None
        } else {
            d.parent.and_then(|p| nwin.get(p).copied().flatten())
        };
        croot.push(r);
        nwin.push(w);
        let g = groups.entry((r, w)).or_insert((i, 0));
        g.1 += 1;
    }
    let mut keys: Vec<_> = groups.iter().map(|(k, v)| (v.0, *k, v.1)).collect();
    keys.sort_by_key(|k| k.0);
    for (rep, (r, w), weight) in keys {
        let mut list: Vec<ListedFile> = Vec::new();
        let mut cur = w;
        while let Some(i) = cur {
            if let Some(Some(e)) = winners.get(i) {
                list.push(e.clone());
            }
            if r == Root::Alone || r == Root::Dir(i) {
                break;
            }
            cur = set
                .dirs
                .get(i)
                .and_then(|d| d.parent)
                .and_then(|p| nwin.get(p).copied().flatten());
            if let (Some(c), Root::Dir(ri)) = (cur, r)
                && !is_below_or_eq(set, c, ri)
            {
                break;
            }
        }
        list.reverse();
        if r == Root::Above {
            let mut all = above_files.clone();
            all.extend(list);
            list = all;
        }
        if let Some(g) = &global {
            list.insert(0, g.clone());
        }
        budget::apply_codex(&mut list, cfg.max_bytes);
        if let Some(node) = set.dirs.get(rep) {
            cx.account(&list, weight, node);
        }
    }
    global.map(|g| g.path)
}

/// Whether directory `d` holds one of Codex's project-root markers.
fn has_marker(setup: &Setup<'_>, cfg: &CodexConfig, d: &DirNode) -> bool {
    cfg.markers
        .iter()
        .filter(|m| !m.is_empty())
        .any(|m| match chain::find(&d.entries, m) {
            Some(e) if e.file_type == FileType::Symlink => {
                setup.fs.metadata(&d.path.join(m)).is_ok()
            }
            Some(_) => true,
            None => m.contains('/') && setup.fs.metadata(&d.path.join(m)).is_ok(),
        })
}

/// Codex's root for the workspace root's ancestors (markers above the workspace), and the
/// files of its chain that lie between that root and the workspace.
fn above_root(
    setup: &Setup<'_>,
    reader: &Reader<'_>,
    cfg: &CodexConfig,
) -> (Option<PathBuf>, Vec<ListedFile>) {
    let above: Option<PathBuf> = setup.root.parent().and_then(|p| {
        p.ancestors()
            .find(|a| cfg.has_marker(setup.fs, a))
            .map(Path::to_path_buf)
    });
    let files = match (&above, setup.root.parent()) {
        (Some(a), Some(parent)) => codex::chain(setup, reader, cfg, parent)
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.path.starts_with(a))
            .collect(),
        _ => Vec::new(),
    };
    (above, files)
}
