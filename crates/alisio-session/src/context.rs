//! The default [`SessionContext`]: instruction files (spec/instructions.md §2.7–2.8) and skills read
//! from disk for every request, so edits are seen at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::tools::args::ContextTool;
use super::tools::error::{ToolError, ToolReturn};
use super::{AttachedFile, ForkSkill, NestedAttachment, Section, SessionContext};
use crate::store::Delivered;
use alisio_base::config::{Host, Settings};
use alisio_base::text::sha256_hex;
use alisio_base::workspace::{DiskFs, Env};
use alisio_rules::instructions::read::{ReadMode, Reader};
use alisio_rules::instructions::{
    FileKind, FileScope, ListedFile, Setup, Truncation, attach, budget, chain, explain, model_text,
};
use alisio_rules::skills::{catalog, tools as stools};

/// Instruction files and skills of a workspace, from disk.
#[derive(Clone, Debug)]
pub struct DiskContext {
    /// Canonical workspace root.
    pub root: PathBuf,
    pub settings: Settings,
    pub trusted: bool,
    pub env: Env,
    /// Skills loaded in this session (deduplication of repeated `skill_load`, spec/skills.md §4.2).
    pub loaded: Arc<Mutex<stools::Loaded>>,
}

fn kind_of(path: &Path) -> FileKind {
    match path.file_name().and_then(|n| n.to_str()) {
        Some("AGENTS.override.md") => FileKind::Override,
        Some("AGENT.md") => FileKind::Legacy,
        Some("CLAUDE.md") => FileKind::Claude,
        _ => FileKind::Agents,
    }
}

impl DiskContext {
    /// A context for one session.
    #[must_use]
    pub fn new(root: PathBuf, settings: Settings, trusted: bool, env: Env) -> Self {
        Self {
            root,
            settings,
            trusted,
            env,
            loaded: Arc::new(Mutex::new(stools::Loaded::default())),
        }
    }

    fn skills(&self, cwd: &Path) -> Vec<catalog::CatalogSkill> {
        let input = catalog::Input {
            workspace_root: &self.root,
            trusted: self.trusted,
            settings: &self.settings,
            env: &self.env,
            plugins: &[],
        };
        catalog::discover(&DiskFs, input, cwd).entries
    }

    fn with<R>(&self, f: impl FnOnce(&Setup<'_>, &Reader<'_>) -> R) -> R {
        let setup = Setup {
            fs: &DiskFs,
            env: &self.env,
            root: &self.root,
            settings: &self.settings,
            host: Host::Alisio,
            claude_managed: None,
            claude_session: None,
        };
        let reader = Reader::new(&DiskFs);
        f(&setup, &reader)
    }

    /// L of spec/instructions.md §2.6 for `cwd`: the global file, the chain, then the attached files in attach order.
    fn list(
        &self,
        setup: &Setup<'_>,
        reader: &Reader<'_>,
        cwd: &Path,
        attached: &[AttachedFile],
    ) -> Vec<ListedFile> {
        let mut l: Vec<ListedFile> = chain::global_alisio(setup, reader).into_iter().collect();
        if let Ok((files, _)) = chain::chain_alisio(setup, reader, cwd) {
            l.extend(files);
        }
        for a in attached {
            if l.iter().any(|e| e.path == a.path) || !a.path.is_file() {
                continue;
            }
            let mut e = ListedFile::new(
                a.path.clone(),
                FileScope::Project,
                kind_of(&a.path),
                reader.read(&a.path, ReadMode::Alisio),
            );
            // hosts.md H3: lazily attached nested files arrive on access.
            e.delivery = alisio_rules::instructions::DeliveryMode::OnAccess;
            l.push(e);
        }
        l
    }
}

impl SessionContext for DiskContext {
    fn instruction_section(&self, cwd: &Path, attached: &[AttachedFile]) -> Section {
        self.with(|setup, reader| {
            let mut l = self.list(setup, reader, cwd, attached);
            let (_, notice) = budget::apply_alisio(&mut l, self.settings.max_bytes);
            let skills = self.skills(cwd);
            let text = catalog::catalog_text(&skills);
            let mut delivered = delivered_files(&l);
            delivered.extend(delivered_skills(&skills, text.as_deref()));
            Section {
                files: model_text::section_parts(&l, notice.as_deref(), &self.root),
                // The skill catalog is the section's extras (spec/instructions.md §2.7 item 5).
                skills: text,
                skill_names: catalog::enum_names(&skills),
                delivered,
            }
        })
    }

    fn skills_listed(&self, cwd: &Path) -> bool {
        !catalog::listed(&self.skills(cwd)).is_empty()
    }

    fn expand_prompt(&self, prompt: &str, cwd: &Path) -> Option<ToolReturn<(String, String)>> {
        if !prompt.starts_with("/skill:") {
            return None;
        }
        let entries = self.skills(cwd);
        let mut loaded = self
            .loaded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        stools::expand_invocation(&DiskFs, &entries, &mut loaded, prompt)
            .map(|r| r.map_err(ToolError::Failed))
    }

    fn loaded_block(&self, ids: &[String], cwd: &Path) -> Option<String> {
        stools::loaded_block(&DiskFs, &self.skills(cwd), ids)
    }

    fn attach(
        &self,
        cwd: &Path,
        attached: &[AttachedFile],
        paths: &[PathBuf],
    ) -> Option<NestedAttachment> {
        self.with(|setup, reader| {
            let base = attach::base_set(setup, reader, cwd);
            let sent: HashMap<PathBuf, String> = attached
                .iter()
                .map(|a| (a.path.clone(), a.sha256.clone()))
                .collect();
            let files = attach::qualifying(setup, reader, &base, &sent, paths);
            let text = attach::attachment(&files)?;
            let delivered = files
                .iter()
                .map(|f| {
                    let mut d = delivered(
                        "instruction",
                        "nested",
                        f.path.to_string_lossy().into_owned(),
                        f.sha256.clone(),
                    );
                    d.bytes = i64::try_from(f.text.len()).unwrap_or(i64::MAX);
                    d
                })
                .collect();
            Some(NestedAttachment {
                text,
                delivered,
                files: files
                    .into_iter()
                    .map(|f| AttachedFile {
                        path: f.path,
                        sha256: f.sha256,
                    })
                    .collect(),
            })
        })
    }

    fn skill_fork(&self, name: &str, cwd: &Path) -> Option<ToolReturn<ForkSkill>> {
        let entries = self.skills(cwd);
        let fork = stools::resolve_for_model(&entries, name).and_then(|e| {
            let text = stools::load_text(&DiskFs, e)?;
            let raw = std::fs::read_to_string(&e.file).unwrap_or_default();
            let (fork, allowed_tools) = fork_fields(&raw);
            Ok(ForkSkill {
                display_id: e.display_id.clone(),
                text,
                fork,
                allowed_tools,
            })
        });
        Some(fork.map_err(ToolError::Failed))
    }

    fn tool(&self, call: &ContextTool, cwd: &Path) -> ToolReturn {
        let text = match call {
            ContextTool::Explain(a) => self.with(|setup, reader| {
                let p = a.path.as_str();
                // Relative paths start at the workspace root (spec/sessions.md §3.2).
                let _ = cwd;
                explain::explain_path(setup, reader, &self.root, Path::new(p))
                    .map(|e| e.to_json().to_string())
                    .map_err(|e| format!("{e:?}"))
            }),
            ContextTool::SkillLoad(a) => {
                if let Some(Ok(f)) = self
                    .skill_fork(&a.name, cwd)
                    .filter(|f| f.as_ref().is_ok_and(|f| f.fork))
                {
                    return Err(ToolError::Failed(format!(
                        "Skill \"{}\" runs in a sub-session (context: fork): call skill_run with its name and the request",
                        f.display_id
                    )));
                }
                let entries = self.skills(cwd);
                let mut loaded = self
                    .loaded
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                stools::skill_load(&DiskFs, &entries, &mut loaded, &a.name)
            }
            ContextTool::SkillSearch(a) => {
                Ok(stools::skill_search(&self.skills(cwd), &a.query).to_string())
            }
            ContextTool::SkillResource(a) => {
                stools::skill_resource(&DiskFs, &self.skills(cwd), &a.name, &a.path, a.offset)
                    .map(|v| v.to_string())
            }
        };
        text.map_err(ToolError::Failed)
    }
}

fn delivered(kind: &'static str, how: &'static str, path: String, sha256: String) -> Delivered {
    Delivered {
        kind,
        how,
        path,
        sha256,
        bytes: 0,
        name: None,
        detail: None,
        call_id: None,
        tool: None,
        target: None,
    }
}

/// The instruction files the section carries (those [`model_text::section_parts`] keeps), with
/// the sha256 of each file's text as read (the attach map's hash) and the bytes kept: a file
/// attached on access that joined the section is `joined`, the others `section`.
fn delivered_files(l: &[ListedFile]) -> Vec<Delivered> {
    l.iter()
        .filter(|f| f.kept_bytes > 0 && f.truncation != Truncation::Dropped && !f.file.empty)
        .map(|f| {
            let how = if f.delivery == alisio_rules::instructions::DeliveryMode::OnAccess {
                "joined"
            } else {
                "section"
            };
            let mut d = delivered(
                "instruction",
                how,
                f.path.to_string_lossy().into_owned(),
                sha256_hex(&f.file.text),
            );
            d.bytes = i64::try_from(f.kept_bytes).unwrap_or(i64::MAX);
            d.detail = (f.truncation != Truncation::None).then(|| f.truncation.as_str().to_owned());
            d
        })
        .collect()
}

/// The catalog as sent (its text's sha256 and length) and each listed skill (its SKILL.md's
/// sha256, its description's length as listed, `full` or `dropped` when the catalog is
/// collapsed); nothing when no skill is listed.
fn delivered_skills(entries: &[catalog::CatalogSkill], text: Option<&str>) -> Vec<Delivered> {
    let Some(text) = text else {
        return Vec::new();
    };
    let collapsed = catalog::is_collapsed(entries);
    let mut out = vec![delivered(
        "catalog",
        "listing",
        String::new(),
        sha256_hex(text),
    )];
    out[0].bytes = i64::try_from(text.len()).unwrap_or(i64::MAX);
    for e in catalog::listed(entries) {
        let bytes = std::fs::read(&e.file).unwrap_or_default();
        let mut d = delivered(
            "skill",
            "listing",
            e.file.to_string_lossy().into_owned(),
            sha256_hex(&bytes),
        );
        d.name = Some(e.name.clone());
        d.bytes = if collapsed {
            0
        } else {
            i64::try_from(e.description.chars().count()).unwrap_or(i64::MAX)
        };
        d.detail = Some(if collapsed { "dropped" } else { "full" }.to_owned());
        out.push(d);
    }
    out
}

/// `context: fork` and `allowed-tools` (a space-separated string or a list) of a SKILL.md's
/// frontmatter.
fn fork_fields(raw: &str) -> (bool, Option<Vec<String>>) {
    use alisio_base::config::Profile;
    use alisio_rules::skills::frontmatter::{Found, Value as FmValue, find_block, parse_yaml};
    let text = raw.strip_prefix('\u{feff}').unwrap_or(raw);
    let Found::Block(b) = find_block(text, false, Profile::Alisio) else {
        return (false, None);
    };
    let fm = parse_yaml(text, b.yaml, Profile::Alisio);
    let fork = fm
        .get("context")
        .and_then(|e| e.value.as_str())
        .is_some_and(|v| v.trim() == "fork");
    let tools = fm.get("allowed-tools").map(|e| match &e.value.value {
        FmValue::Seq(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(String::from))
            .collect(),
        _ => e
            .value
            .as_str()
            .unwrap_or_default()
            .split([' ', ','])
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect(),
    });
    (fork, tools)
}

#[cfg(test)]
mod fork_tests {
    #[test]
    fn fork_fields_read_context_and_allowed_tools() {
        assert_eq!(
            super::fork_fields(
                "---\nname: a\ndescription: d\ncontext: fork\nallowed-tools: Read Grep\n---\nbody\n"
            ),
            (true, Some(vec!["Read".to_string(), "Grep".to_string()]))
        );
        assert_eq!(super::fork_fields("---\nname: a\n---\n"), (false, None));
    }
}
