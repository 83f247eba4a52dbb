//! spec/instructions.md §5 diagnostics of host `alisio`: the chain of every group of D, the global file, winners,
//! near misses and symlinks.

#[allow(clippy::wildcard_imports)]
use super::*;

pub(super) fn alisio(cx: &mut Ctx<'_, '_>, set: &DirSet, include_global: bool) -> Option<PathBuf> {
    let setup = cx.setup;
    let fallback = setup.settings.claude_md_fallback;
    let names: Vec<String> = chain::alisio_candidates(true)
        .iter()
        .map(|(n, _)| (*n).to_string())
        .collect();
    let mut winners: Vec<Option<ListedFile>> = Vec::with_capacity(set.dirs.len());
    for d in &set.dirs {
        let pick = chain::pick_alisio(&d.entries, fallback);
        let winner = pick.winner.map(|(name, kind)| {
            let path = d.path.join(&name);
            let file = cx.reader.read(&path, ReadMode::Alisio);
            cx.texts.insert(path.clone(), file.clone());
            (
                name,
                kind,
                ListedFile::new(path, FileScope::Project, kind, file),
            )
        });
        let mut hides = Vec::new();
        for (name, kind) in chain::alisio_candidates(true) {
            let Some(e) = chain::find(&d.entries, name) else {
                continue;
            };
            let path = d.path.join(name);
            if winner.as_ref().is_some_and(|w| w.0 == *name) {
                continue;
            }
            match e.file_type {
                FileType::File => {}
                // A symlinked CLAUDE.md with the fallback off is reported as off, like a file.
                FileType::Symlink if *kind == FileKind::Claude && !fallback => {}
                FileType::Symlink => {
                    let mut msg = format!("not read: {name} is a symbolic link");
                    if let Ok(t) = setup.fs.read_link(&path) {
                        msg.push_str(&format!(" to {}", t.display()));
                    }
                    cx.push(
                        &path,
                        Span::default(),
                        Code::InstructionsSymlink,
                        msg,
                        vec![],
                    );
                    cx.report(&path, Some(*kind), Some("symbolic link".into()));
                    continue;
                }
                _ => continue,
            }
            if *kind == FileKind::Claude && !fallback {
                cx.file_level(
                    &path,
                    Code::InstructionsClaudeIgnored,
                    "not read: context.claudeMdFallback is off".into(),
                    vec![],
                );
                cx.report(&path, Some(*kind), Some("fallback off".into()));
                continue;
            }
            if let Some((wname, wkind, _)) = &winner {
                cx.loser(&d.path, name, wname, *wkind);
                hides.push((*name).to_string());
                if let Some(r) = cx.report_mut(&path) {
                    r.kind = Some(*kind);
                }
            }
        }
        if let Some((_, kind, entry)) = &winner {
            if *kind == FileKind::Legacy {
                cx.file_level(
                    &entry.path,
                    Code::InstructionsLegacyName,
                    "AGENT.md is read as a legacy alias; rename it to AGENTS.md".into(),
                    vec![],
                );
            }
            let file = entry.file.clone();
            cx.file_facts(&entry.path, &file, &hides);
            cx.report(&entry.path, Some(*kind), None);
        }
        cx.near_misses(&d.path, &d.entries, &names);
        winners.push(winner.map(|w| w.2));
    }
    // The global file and its own directory's facts.
    let global = chain::global_alisio(setup, cx.reader);
    if let Some(g) = &global {
        cx.texts.insert(g.path.clone(), g.file.clone());
        cx.report(&g.path, Some(g.kind), None);
        if let Some(r) = cx.report_mut(&g.path) {
            r.global = true;
        }
        if include_global {
            let file = g.file.clone();
            let home = g.path.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut hides = Vec::new();
            if g.kind == FileKind::Override
                && setup
                    .fs
                    .metadata(&home.join("AGENTS.md"))
                    .is_ok_and(|m| m.file_type == FileType::File)
            {
                cx.loser(&home, "AGENTS.md", "AGENTS.override.md", FileKind::Override);
                hides.push("AGENTS.md".to_string());
            }
            cx.file_facts(&g.path.clone(), &file, &hides);
        }
    }
    let global_canon = global.as_ref().map(|g| {
        setup
            .fs
            .canonicalize(&g.path)
            .unwrap_or_else(|_| g.path.clone())
    });
    let significant: Vec<bool> = winners.iter().map(Option::is_some).collect();
    let (_, size) = groups(set, &significant);
    for k in sorted_keys(&size) {
        let weight = size.get(&k).copied().unwrap_or(0);
        let mut list: Vec<ListedFile> = Vec::new();
        let mut cur = k;
        while let Some(i) = cur {
            if let Some(Some(w)) = winners.get(i)
                && Some(&w.path) != global_canon.as_ref()
            {
                list.push(w.clone());
            }
            cur = set
                .dirs
                .get(i)
                .and_then(|d| d.parent)
                .and_then(|p| nearest(set, &significant, p));
        }
        list.reverse();
        if let Some(g) = &global {
            list.insert(0, g.clone());
        }
        budget::apply_alisio(&mut list, setup.settings.max_bytes);
        let rep = k.map_or(0, |i| i);
        if let Some(node) = set.dirs.get(rep) {
            cx.account(&list, weight, node);
        }
    }
    global.map(|g| g.path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_base::config::Settings;
    use alisio_base::workspace::{DiskFs, Env};

    /// The host-`alisio` analysis of the workspace `ws` with `context.maxBytes` 1024.
    fn analyzed(ws: &std::path::Path) -> Analysis {
        let env = Env::default();
        let s = Settings {
            max_bytes: 1024,
            ..Settings::default()
        };
        let setup = Setup::for_test(&DiskFs, &env, ws, &s, Host::Alisio);
        analyze(&setup, false)
    }

    #[test]
    fn case_38_truncated_range_has_utf8_columns_too() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::write(ws.join("sub/AGENTS.md"), "a".repeat(1000)).unwrap();
        std::fs::write(ws.join("AGENTS.md"), format!("😀😀{}", "a".repeat(30))).unwrap();
        let a = analyzed(&ws);
        let d = a
            .diagnostics
            .iter()
            .find(|d| d.code == Code::InstructionsTruncated)
            .unwrap();
        let s = &d.span;
        assert_eq!(
            (s.start.utf8, s.end.line, s.end.utf16, s.end.utf8),
            (0, 0, 10, 14)
        );
        assert_eq!(d.span.bytes, TextRange::new(0, 14));
        assert_eq!(a.dir_count, 2);
    }

    #[test]
    fn dropped_message_names_three_closer_files_then_counts_the_rest() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        let mut dir = ws.clone();
        std::fs::write(dir.join("AGENTS.md"), "r".repeat(100)).unwrap();
        for name in ["a", "b", "c", "d", "e"] {
            dir = dir.join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("AGENTS.md"), "x".repeat(300)).unwrap();
        }
        let a = analyzed(&ws);
        let d = a
            .diagnostics
            .iter()
            .find(|d| d.code == Code::InstructionsDropped && d.file == ws.join("AGENTS.md"))
            .unwrap();
        assert_eq!(
            d.message,
            "not loaded for 2 directories (e.g. a/b/c/d): the closer files a/AGENTS.md, a/b/AGENTS.md, a/b/c/AGENTS.md and 1 more use the whole context.maxBytes budget (1024)"
        );
        assert_eq!(d.related.len(), 3);
    }
}

#[cfg(all(test, unix))]
mod symlink_tests {
    use super::*;
    use alisio_base::config::Settings;
    use alisio_base::workspace::{DiskFs, Env};

    #[test]
    fn file_opened_through_a_symlinked_directory_is_reported() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join("real")).unwrap();
        std::fs::write(ws.join("real/AGENTS.md"), "x").unwrap();
        std::os::unix::fs::symlink(ws.join("real"), ws.join("src")).unwrap();
        let env = Env::default();
        let s = Settings::default();
        let setup = Setup::for_test(&DiskFs, &env, &ws, &s, Host::Alisio);
        let d = through_symlinked_directory(&setup, &ws.join("src/AGENTS.md")).unwrap();
        assert_eq!(
            d.message,
            "not read: the directory src on its path is a symbolic link"
        );
        assert_eq!(d.severity, Severity::Error);
        assert!(through_symlinked_directory(&setup, &ws.join("real/AGENTS.md")).is_none());
    }
}
