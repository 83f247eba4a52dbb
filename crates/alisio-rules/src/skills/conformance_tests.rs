//! spec/skills.md §8 conformance cases that exercise the library API the language server and agent
//! sessions call (plugins, overrides, skill tools, lenses, definitions).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::catalog::{self, Discovery, Input};
use super::discover::{Owner, PluginRoot};
use super::editor;
use super::tools::{self, Loaded};
use alisio_base::config::Settings;
use alisio_base::workspace::{DiskFs, Env};

struct T {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    cfg: PathBuf,
}

impl T {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let (ws, home, cfg) = (base.join("ws"), base.join("home"), base.join("cfg"));
        for d in [&ws, &home, &cfg] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir(ws.join(".git")).unwrap();
        Self {
            _tmp: tmp,
            ws,
            home,
            cfg,
        }
    }
    fn env(&self) -> Env {
        Env {
            home: Some(self.home.clone()),
            alisio_config_home: Some(self.cfg.clone()),
            ..Env::default()
        }
    }
    fn settings(&self, trusted: bool) -> Settings {
        let layers =
            alisio_base::config::load_layers(&DiskFs, Some(&self.cfg), &self.ws, trusted, None)
                .unwrap();
        alisio_base::config::resolve(&layers, Some(&self.home))
    }
    fn discover(&self, trusted: bool, plugins: &[PluginRoot]) -> Discovery {
        let s = self.settings(trusted);
        let env = self.env();
        catalog::discover(
            &DiskFs,
            Input {
                workspace_root: &self.ws,
                trusted,
                settings: &s,
                env: &env,
                plugins,
            },
            &self.ws,
        )
    }
    fn discover_from(&self, vantage: &Path) -> Discovery {
        let s = self.settings(true);
        let env = self.env();
        catalog::discover(
            &DiskFs,
            Input {
                workspace_root: &self.ws,
                trusted: true,
                settings: &s,
                env: &env,
                plugins: &[],
            },
            vantage,
        )
    }
}

fn valid(dir: &Path) {
    skill(dir, "Does X.", "Body\n");
}

fn skill(dir: &Path, desc: &str, body: &str) {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {desc}\n---\n{body}"),
    )
    .unwrap();
}

fn vercel(t: &T) -> Vec<PluginRoot> {
    vec![PluginRoot {
        path: t.home.join("plugins/vercel/skills"),
        owner: Owner {
            id: "vercel".into(),
            name: "vercel".into(),
        },
    }]
}

#[test]
fn plugin_copy_is_locked_and_shadowed_by_a_user_skill_of_the_same_name() {
    let t = T::new();
    valid(&t.home.join("plugins/vercel/skills/nextjs"));
    valid(&t.home.join(".agents/skills/nextjs"));
    let d = t.discover(true, &vercel(&t));
    let p = d
        .entries
        .iter()
        .find(|e| e.display_id == "vercel:nextjs")
        .unwrap();
    assert_eq!(p.id, "vercel:nextjs");
    assert!(p.locked && p.enabled && !p.effective);
    assert_eq!(p.shadowed_by.as_deref(), Some("nextjs"));
    let j = catalog::entry_json(p, &t.ws);
    assert_eq!(j["owner"], json!({"id": "vercel", "name": "vercel"}));
    // Case 14, shadowed: not an effective entry.
    assert_eq!(
        catalog::set_enabled(&d, &t.ws, true, "vercel:nextjs", false).unwrap_err(),
        "Unknown effective skill: vercel:nextjs"
    );
}

#[test]
fn an_effective_plugin_skill_cannot_be_toggled() {
    let t = T::new();
    valid(&t.home.join("plugins/vercel/skills/nextjs"));
    let d = t.discover(true, &vercel(&t));
    assert_eq!(
        catalog::set_enabled(&d, &t.ws, true, "vercel:nextjs", false).unwrap_err(),
        "This skill is locked by its plugin vercel; enable or disable the plugin instead"
    );
    assert!(!t.ws.join(".alisio").exists());
}

fn case5(t: &T) {
    valid(&t.ws.join(".agents/skills/pdf"));
    valid(&t.home.join(".agents/skills/pdf"));
    valid(&t.ws.join(".agents/skills/other"));
}

#[test]
fn disabling_the_effective_skill_removes_it_from_the_catalog_and_keeps_the_copy_shadowed() {
    let t = T::new();
    case5(&t);
    let d = t.discover(true, &[]);
    let e = catalog::set_enabled(&d, &t.ws, true, "pdf", false).unwrap();
    assert!(!e.enabled);
    let d = t.discover(true, &[]);
    assert_eq!(
        catalog::catalog_text(&d.entries).unwrap(),
        "Available skills (load instructions with skill_load):\n[{\"name\":\"other\",\"description\":\"Does X.\"}]"
    );
    let schema = tools::skill_load_schema(&d.entries);
    assert_eq!(schema["properties"]["name"]["enum"], json!(["other"]));
    assert_eq!(
        tools::skill_load(&DiskFs, &d.entries, &mut Loaded::default(), "pdf").unwrap_err(),
        "Skill \"pdf\" is disabled"
    );
    let copy = d.entries.iter().find(|e| e.id == "pdf#shadow-1").unwrap();
    assert!(!copy.effective);
    assert!(!d.entries.iter().find(|e| e.id == "pdf").unwrap().enabled);
}

#[test]
fn override_write_on_an_existing_file_keeps_keys_and_formatting() {
    let t = T::new();
    case5(&t);
    std::fs::create_dir(t.ws.join(".alisio")).unwrap();
    std::fs::write(
        t.ws.join(".alisio/config.json"),
        r#"{"model":"x","skillOverrides":{"b":{"enabled":false,"note":1}}}"#,
    )
    .unwrap();
    let d = t.discover(true, &[]);
    catalog::set_enabled(&d, &t.ws, true, "pdf", false).unwrap();
    let text = std::fs::read_to_string(t.ws.join(".alisio/config.json")).unwrap();
    assert_eq!(
        text,
        "{\n  \"model\": \"x\",\n  \"skillOverrides\": {\n    \"b\": {\n      \"enabled\": false,\n      \"note\": 1\n    },\n    \"pdf\": {\n      \"enabled\": false\n    }\n  }\n}\n"
    );
    let left: Vec<String> = std::fs::read_dir(t.ws.join(".alisio"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["config.json"]);
}

#[test]
fn overrides_are_refused_when_untrusted_invalid_or_symlinked() {
    let t = T::new();
    case5(&t);
    let d = t.discover(true, &[]);
    assert_eq!(
        catalog::set_enabled(&d, &t.ws, false, "pdf", false).unwrap_err(),
        "The workspace is not trusted; skill overrides are saved in .alisio/config.json only for trusted workspaces"
    );
    assert!(!t.ws.join(".alisio").exists());
    std::fs::create_dir(t.ws.join(".alisio")).unwrap();
    std::fs::write(t.ws.join(".alisio/config.json"), r#"{"a":"#).unwrap();
    let e = catalog::set_enabled(&d, &t.ws, true, "pdf", false).unwrap_err();
    assert!(e.starts_with("cannot update .alisio/config.json: "), "{e}");
    assert_eq!(
        std::fs::read(t.ws.join(".alisio/config.json")).unwrap(),
        br#"{"a":"#
    );
    #[cfg(unix)]
    {
        std::fs::remove_file(t.ws.join(".alisio/config.json")).unwrap();
        std::fs::write(t.home.join("target.json"), "{}").unwrap();
        std::os::unix::fs::symlink(t.home.join("target.json"), t.ws.join(".alisio/config.json"))
            .unwrap();
        let e = catalog::set_enabled(&d, &t.ws, true, "pdf", false).unwrap_err();
        assert!(
            e.starts_with("refusing to write through a symbolic link: "),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(t.home.join("target.json")).unwrap(),
            "{}"
        );
    }
}

#[test]
fn skill_resource_refuses_escapes_lexically_and_through_symlinks() {
    let t = T::new();
    let dir = t.ws.join(".agents/skills/pdf");
    valid(&dir);
    std::fs::create_dir_all(dir.join("refs")).unwrap();
    std::fs::write(dir.join("refs/a.md"), "inside").unwrap();
    let d = t.discover(true, &[]);
    let r = |p: &str| tools::skill_resource(&DiskFs, &d.entries, "pdf", p, None);
    assert_eq!(
        r("../../etc/passwd").unwrap_err(),
        "Path escapes the skill directory: ../../etc/passwd"
    );
    assert_eq!(
        r("../../no/such/file").unwrap_err(),
        "Path escapes the skill directory: ../../no/such/file"
    );
    assert_eq!(
        r("/etc/passwd").unwrap_err(),
        "Path must be relative to the skill directory: /etc/passwd"
    );
    assert_eq!(
        r("C:x").unwrap_err(),
        "Path must be relative to the skill directory: C:x"
    );
    assert_eq!(
        r("").unwrap_err(),
        "path must name a file inside the skill directory"
    );
    assert_eq!(r("a\u{1}b").unwrap_err(), "Invalid path: a\u{1}b");
    assert_eq!(
        r("refs/nope.md").unwrap_err(),
        "File not found: refs/nope.md"
    );
    let ok = r("refs/../refs/a.md").unwrap();
    assert_eq!(
        ok,
        json!({"skill": "pdf", "path": "refs/a.md", "content": "inside", "offset": 0, "nextOffset": null, "size": 6})
    );
    let listing = r("refs").unwrap();
    assert_eq!(
        listing,
        json!({"skill": "pdf", "path": "refs", "entries": ["a.md"], "omitted": 0})
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc", dir.join("refs/x")).unwrap();
        assert_eq!(
            r("refs/x/passwd").unwrap_err(),
            "Path escapes the skill directory through a symlink: refs/x/passwd"
        );
        assert_eq!(
            r("refs/x/nonexistent").unwrap_err(),
            "Path escapes the skill directory through a symlink: refs/x/nonexistent"
        );
        std::os::unix::fs::symlink("a.md", dir.join("refs/inner")).unwrap();
        assert_eq!(r("refs/inner").unwrap()["content"], "inside");
    }
}

#[test]
fn skill_resource_pages_long_files() {
    let t = T::new();
    let dir = t.ws.join(".agents/skills/pdf");
    valid(&dir);
    let big: String = (0..100_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    std::fs::write(dir.join("big.txt"), &big).unwrap();
    std::fs::write(dir.join("bin.dat"), b"ab\0cd").unwrap();
    let d = t.discover(true, &[]);
    let p = tools::skill_resource(&DiskFs, &d.entries, "pdf", "big.txt", None).unwrap();
    assert_eq!(p["content"].as_str().unwrap().len(), 32_000);
    assert_eq!(
        (p["nextOffset"].clone(), p["size"].clone()),
        (json!(32000), json!(100000))
    );
    let p = tools::skill_resource(&DiskFs, &d.entries, "pdf", "big.txt", Some(96_000)).unwrap();
    assert_eq!(p["content"].as_str().unwrap(), &big[96_000..]);
    assert_eq!(p["nextOffset"], json!(null));
    assert_eq!(
        tools::skill_resource(&DiskFs, &d.entries, "pdf", "big.txt", Some(100_000)).unwrap_err(),
        "Offset 100000 is past the end of the file (100000 bytes)"
    );
    assert_eq!(
        tools::skill_resource(&DiskFs, &d.entries, "pdf", "bin.dat", None).unwrap_err(),
        "Binary file; text reader refused"
    );
}

#[test]
fn skill_load_deduplicates_until_the_file_changes() {
    let t = T::new();
    let dir = t.ws.join(".agents/skills/pdf");
    valid(&dir);
    let d = t.discover(true, &[]);
    let mut loaded = Loaded::default();
    let first = tools::skill_load(&DiskFs, &d.entries, &mut loaded, "pdf").unwrap();
    assert_eq!(
        first,
        format!(
            "Skill root: {}\nUse skill_resource to read supporting files.\n\n---\nname: pdf\ndescription: Does X.\n---\nBody\n",
            dir.display()
        )
    );
    assert_eq!(
        tools::skill_load(&DiskFs, &d.entries, &mut loaded, "pdf").unwrap(),
        "Skill \"pdf\" is already loaded in this conversation and has not changed; follow the instructions from the earlier skill_load result."
    );
    skill(&dir, "Does X.", "Body 2\n");
    assert!(
        tools::skill_load(&DiskFs, &d.entries, &mut loaded, "pdf")
            .unwrap()
            .ends_with("Body 2\n")
    );
    std::fs::write(dir.join("SKILL.md"), "# no frontmatter\n").unwrap();
    assert_eq!(
        tools::skill_load(&DiskFs, &d.entries, &mut loaded, "pdf").unwrap_err(),
        "Skill \"pdf\" cannot be loaded: SKILL.md must start with a --- line followed by YAML frontmatter"
    );
    assert_eq!(
        tools::skill_load(&DiskFs, &d.entries, &mut loaded, "pfd").unwrap_err(),
        "Unknown skill: pfd. Did you mean: pdf?"
    );
}

#[test]
fn a_large_catalog_collapses_and_the_schema_loses_its_enum() {
    let t = T::new();
    for i in 0..300 {
        skill(
            &t.home.join(format!(".agents/skills/skill-{i:03}")),
            "Describes a skill with a long enough description.",
            "B\n",
        );
    }
    let d = t.discover(true, &[]);
    assert_eq!(
        catalog::catalog_text(&d.entries).unwrap(),
        "Large skill catalog. Use skill_search to find skills, then skill_load."
    );
    let schema = tools::skill_load_schema(&d.entries);
    assert!(schema["properties"]["name"].get("enum").is_none());
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn skill_search_ranks_exact_names_first_and_caps_at_thirty() {
    let t = T::new();
    for i in 0..39 {
        skill(
            &t.home.join(format!(".agents/skills/tool-{i:02}")),
            "Works with pdf files.",
            "B\n",
        );
    }
    skill(&t.home.join(".agents/skills/pdf"), "Main.", "B\n");
    let d = t.discover(true, &[]);
    let r = tools::skill_search(&d.entries, "pdf");
    assert_eq!(r["total"], 40);
    let skills = r["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 30);
    assert_eq!(skills[0]["name"], "pdf");
    assert_eq!(skills[1]["name"], "tool-00");
    for s in skills {
        let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "name", "displayId", "description", "scope"]);
    }
    assert!(!r.to_string().contains(&*t.home.to_string_lossy()));
    assert_eq!(tools::skill_search(&d.entries, "  ")["total"], 40);
}

#[test]
fn user_only_skills_are_not_listed_and_refuse_model_loads() {
    let t = T::new();
    let dir = t.home.join(".agents/skills/x");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: x\ndescription: d\ndisable-model-invocation: true\n---\n",
    )
    .unwrap();
    let d = t.discover(true, &[]);
    assert_eq!(d.entries.len(), 1);
    assert!(!d.entries[0].model_invocable);
    assert_eq!(catalog::catalog_text(&d.entries), None);
    assert_eq!(tools::skill_search(&d.entries, "x")["total"], 0);
    assert_eq!(
        tools::skill_load(&DiskFs, &d.entries, &mut Loaded::default(), "x").unwrap_err(),
        "Skill \"x\" can only be invoked by the user."
    );
    // `/skill:x` is the session's: it loads the text without the model check.
    assert!(tools::load_text(&DiskFs, &d.entries[0]).is_ok());
}

#[test]
fn code_lens_titles_follow_state() {
    let t = T::new();
    case5(&t);
    let d = t.discover(true, &[]);
    let pfile = t.ws.join(".agents/skills/pdf/SKILL.md");
    let ls = editor::lenses(&d, &pfile, true, None);
    let p = &d.entries[0];
    assert_eq!(
        ls[0].title,
        format!(
            "project · effective · ~{} tokens in catalog · body ~2 tokens",
            p.catalog_tokens
        )
    );
    assert_eq!(ls[0].command, Some(("alisio.showSkill", "pdf".to_string())));
    assert_eq!(ls[1].title, "Disable");
    assert_eq!(
        ls[1].command,
        Some(("alisio.toggleSkill", "pdf".to_string()))
    );
    catalog::set_enabled(&d, &t.ws, true, "pdf", false).unwrap();
    let d = t.discover(true, &[]);
    let ls = editor::lenses(&d, &pfile, true, None);
    assert_eq!(
        ls[0].title,
        "project · disabled · not in catalog · body ~2 tokens"
    );
    assert_eq!(ls[1].title, "Enable");
    let ls = editor::lenses(&d, &t.home.join(".agents/skills/pdf/SKILL.md"), true, None);
    assert_eq!(ls.len(), 1);
    assert_eq!(
        ls[0].title,
        "user · shadowed by pdf · not in catalog · body ~2 tokens"
    );
    assert_eq!(
        editor::lenses(&d, Path::new("/nowhere/SKILL.md"), true, None)[0].title,
        "not in a skill root"
    );
}

#[test]
fn root_copy_lens_is_effective_from_its_owner_vantage() {
    let t = T::new();
    valid(&t.ws.join(".agents/skills/a"));
    valid(&t.ws.join("pkg/.agents/skills/a"));
    let owner = t.discover_from(&t.ws);
    let ls = editor::lenses(&owner, &t.ws.join(".agents/skills/a/SKILL.md"), true, None);
    assert!(
        ls[0].title.starts_with("project · effective · "),
        "{}",
        ls[0].title
    );
}

#[test]
fn not_loaded_lens_uses_the_alisio_reason() {
    let t = T::new();
    let dir = t.home.join(".agents/skills/données");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: données\ndescription: d\n---\n",
    )
    .unwrap();
    let d = t.discover(true, &[]);
    let s = &d.skills[0];
    let reason = editor::not_loaded_reason(&s.checked);
    assert_eq!(
        reason.as_deref(),
        Some("not loaded: name must be lowercase letters, digits and single hyphens")
    );
    assert_eq!(
        editor::lenses(&d, &s.candidate.file, true, reason)[0].title,
        "not loaded: name must be lowercase letters, digits and single hyphens"
    );
}

#[test]
fn definition_goes_to_the_winner_and_to_link_targets() {
    let t = T::new();
    case5(&t);
    let user = t.home.join(".agents/skills/pdf/SKILL.md");
    std::fs::write(
        &user,
        "---\nname: pdf\ndescription: Does X.\n---\nSee [a](references/a.md).\n",
    )
    .unwrap();
    std::fs::create_dir_all(t.home.join(".agents/skills/pdf/references")).unwrap();
    std::fs::write(t.home.join(".agents/skills/pdf/references/a.md"), "a").unwrap();
    let d = t.discover(true, &[]);
    let c =
        crate::skills::validate::check_file(&DiskFs, &user, alisio_base::config::Profile::Alisio);
    let (f, r) = editor::definition(&c, &d, 10).unwrap();
    assert_eq!(f, t.ws.join(".agents/skills/pdf/SKILL.md"));
    assert_eq!((r.start, r.end), (10, 13));
    let at = c.text.find("references/a.md").unwrap() + 2;
    let (f, r) = editor::definition(&c, &d, at).unwrap();
    assert_eq!(f, t.home.join(".agents/skills/pdf/references/a.md"));
    assert_eq!((r.start, r.end), (0, 0));
    let winner = crate::skills::validate::check_file(
        &DiskFs,
        &t.ws.join(".agents/skills/pdf/SKILL.md"),
        alisio_base::config::Profile::Alisio,
    );
    assert_eq!(editor::definition(&winner, &d, 10), None);
}

#[test]
fn explicit_invocation_expands_user_only_skills_and_counts_as_a_load() {
    let t = T::new();
    let dir = t.home.join(".agents/skills/x");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: x\ndescription: d\ndisable-model-invocation: true\n---\nDo it well.\n",
    )
    .unwrap();
    let d = t.discover(true, &[]);
    let mut loaded = Loaded::default();
    let (text, marker) =
        tools::expand_invocation(&DiskFs, &d.entries, &mut loaded, "/skill:x do it")
            .unwrap()
            .unwrap();
    assert_eq!(marker, "x");
    assert_eq!(
        text,
        format!(
            "Skill root: {}\nUse skill_resource to read supporting files.\n\n---\nname: x\ndescription: d\ndisable-model-invocation: true\n---\nDo it well.\n\n\nUser request: do it",
            dir.display()
        )
    );
    assert!(tools::expand_invocation(&DiskFs, &d.entries, &mut loaded, "plain prompt").is_none());
    assert_eq!(
        tools::expand_invocation(&DiskFs, &d.entries, &mut loaded, "/skill:nope go")
            .unwrap()
            .unwrap_err(),
        "Unknown skill: nope"
    );
}

#[test]
fn loaded_block_names_what_does_not_fit() {
    let t = T::new();
    skill(&t.home.join(".agents/skills/small"), "d", "short\n");
    skill(
        &t.home.join(".agents/skills/huge"),
        "d",
        &"x".repeat(60_000),
    );
    let d = t.discover(true, &[]);
    let block = tools::loaded_block(
        &DiskFs,
        &d.entries,
        &["small".into(), "huge".into(), "gone".into()],
    )
    .unwrap();
    assert!(block.starts_with("# Loaded skills (kept across compaction)\n\nSkill root: "));
    assert!(block.contains("short\n"));
    assert!(
        block.ends_with(
            "\n\nLoaded earlier, not repeated here (call skill_load again if needed): huge, gone"
        ),
        "{block}"
    );
    assert_eq!(tools::loaded_block(&DiskFs, &d.entries, &[]), None);
}
