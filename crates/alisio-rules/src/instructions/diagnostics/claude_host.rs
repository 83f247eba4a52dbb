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
    let mut read_files: Vec<(PathBuf, Kind, Arc<FileText>)> = Vec::new();
    let mut listed: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for k in sorted_keys(&size) {
        let weight = size.get(&k).copied().unwrap_or(0);
        let rep = k.unwrap_or(0);
        let Some(node) = set.dirs.get(rep) else {
            continue;
        };
        let l = claude::list(setup, cx.reader, &node.path, &node.path);
        for f in &l.files {
            if listed.insert(f.path.clone()) {
                read_files.push((f.path.clone(), f.kind, f.file.clone()));
            }
        }
        cx.account(&l.files, weight, node);
        for (agents, claude_file) in &l.excluded_agents {
            let e = cx.effects.entry(agents.clone()).or_default();
            let prev = e.agents_mode.take().map_or(0, |p| p.0);
            e.agents_mode = Some((prev + weight, claude_file.clone()));
            if !cx.texts.contains_key(agents) {
                let t = cx.reader.read(agents, Mode::Claude);
                cx.texts.insert(agents.clone(), t);
            }
            cx.report(agents, Some(Kind::Agents), None);
        }
    }
    // Per-file facts for the workspace's own files; user, managed and ancestor files are
    // reported only when opened (like the alisio global file).
    for (path, kind, file) in read_files {
        cx.report(&path, Some(kind), None);
        if path.starts_with(setup.root) {
            cx.file_facts(&path, &file, &[]);
        }
    }
    None
}
